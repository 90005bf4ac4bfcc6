"""The conformance corpus (issue 11, item 5): one behaviour per file, default pipeline vs reference.

``tests/data/render/conformance/<class>/<name>.svg`` (written by
``benchmarks/make_render_corpus.py``; measured per class by ``benchmarks/render_conformance.py
--corpus``). The reference is resvg-py's render of the file, or where resvg is wrong the
expectation in ``conformance/expected.json`` (a headless Chromium screenshot, or a plain
background) with its reason. Files the default pipeline does not yet draw within 2/255 are
listed in ``conformance/known_failures.json`` with the measured difference: the test fails when
one of them is fixed (so the list shrinks) or when any other file regresses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from render_conformance import CORPUS, measure_conformance  # noqa: E402

TOLERANCE = 2.0
KNOWN = CORPUS / "known_failures.json"

# Item 2 of issue 11: each behaviour the skia path got wrong, now drawn as a browser draws it.
ITEM_2 = [
    "transforms/transform-origin-0",
    "transforms/transform-origin-1",
    "transforms/transform-origin-2",
    "transforms/transform-origin-css-0",
    "transforms/css-transform-0",
    "transforms/css-transform-sheet-0",
    "transforms/css-transform-1",
    "painting/currentcolor-inherited-keyword",
    "painting/currentcolor-stroke-keyword",
    "painting/fill-color-13",  # "#f00 icc-color(...)": the sRGB fallback
    "filters/filter-flood",
    "filters/filter-flood-srgb",
    "filters/filter-drop-shadow",
    "paint-servers/pattern-basic",
    "paint-servers/pattern-no-size",
    "paint-servers/pattern-zero-size",
    "paint-servers/pattern-empty",
    "structure/duplicate-ids-use",
    "structure/use-cyclic-skipped-alone",
    "structure/use-self",
    "structure/use-mutual-cycle",
    "structure/nested-svg-zero-viewbox",
    "structure/root-zero-viewbox",
    "structure/href-over-xlink-href",
    "markers/marker-paint-order",
]


@pytest.fixture(scope="module")
def rows():
    return {f"{r['class']}/{r['name']}": r for r in measure_conformance()}


def test_corpus_has_hundreds_of_files_in_every_class(rows):
    assert len(rows) >= 300
    classes = {k.split("/")[0] for k in rows}
    assert {"painting", "structure", "paint-servers", "masking", "shapes", "filters"} <= classes


def test_every_file_renders(rows):
    assert [k for k, r in rows.items() if r["error"] is not None] == []


def test_only_known_failures_differ_from_the_reference(rows):
    known = json.loads(KNOWN.read_text())["cases"]
    failing = {k: round(r["diff"], 2) for k, r in rows.items() if r["diff"] > TOLERANCE}
    assert sorted(set(failing) - set(known)) == [], "new failures (regressions)"
    assert sorted(set(known) - set(failing)) == [], "fixed: remove from known_failures.json"


def test_item_2_cases_pass(rows):
    assert [k for k in ITEM_2 if rows[k]["diff"] > TOLERANCE] == []


def test_what_the_normaliser_fixes_stays_fixed(rows):
    # Every file raw skia draws wrong and the default pipeline right: at least as many as
    # measured when the corpus was written (2026-12-01).
    fixed = [k for k, r in rows.items() if r["raw_diff"] > TOLERANCE and r["diff"] <= TOLERANCE]
    assert len(fixed) >= json.loads(KNOWN.read_text())["fixed_at_least"]


def test_expectations_name_their_reason():
    doc = json.loads((CORPUS / "expected.json").read_text())
    for key, e in doc["cases"].items():
        assert e["expect"] in ("chromium", "background") and e["reason"].strip(), key
        if e["expect"] == "chromium":
            cls, name = key.split("/")
            assert (CORPUS / cls / f"{name}.chromium.png").exists(), key
