"""The golden corpus of spellings, tests/data/forms/ (issue 10; see its README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vector_gym.rewards._spec_validity import check_validity
from vector_gym.svg.canonical import REFERENCE, SVG2, canonical_equal, to_node
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.semantic import semantic_equal

ROOT = Path(__file__).resolve().parents[1] / "data" / "forms"
CASES = sorted(p.parent for p in ROOT.glob("*/*/expected.json"))


def test_corpus_covers_every_area():
    areas = {c.parent.name for c in CASES}
    assert {"numbers", "path", "points", "viewbox", "transform", "color", "style", "references",
            "root", "use"} <= areas  # fmt: skip
    assert len(CASES) >= 40


@pytest.mark.parametrize("parity", [False, True], ids=["default", "parity"])
@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.name}" for c in CASES])
def test_form(case: Path, parity: bool):
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert expected["source"]
    want = expected["parity" if parity else "default"]
    dialect = REFERENCE if parity else SVG2
    a = to_node(parse_svg((case / "a.svg").read_text(encoding="utf-8")), dialect=dialect)
    valid, detail, _ = check_validity(a, parity)
    assert valid == want["valid"]
    assert list(detail) == want["detail"]
    if (case / "b.svg").exists():
        b = to_node(parse_svg((case / "b.svg").read_text(encoding="utf-8")), dialect=dialect)
        assert canonical_equal(a, b) == want["c_equal"]
        assert semantic_equal(a, b) == want["v_equal"]
        assert semantic_equal(b, a) == want["v_equal"]
