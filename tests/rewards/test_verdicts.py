"""Data-driven conformance corpus of the specification reward (``tests/data/verdicts``).

Each folder is one behaviour with a hand-written ``expected.json`` naming its spec source; see
``tests/data/verdicts/README.md``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vector_gym.rewards.spec import SpecScorer
from vector_gym.tasks.vector_bench import task_from_vector_bench

CORPUS = Path(__file__).parents[1] / "data" / "verdicts"
CASES = sorted(p.parent for p in CORPUS.glob("*/*/expected.json"))
MODES = {"default": False, "parity": True}


def _params():
    for case in CASES:
        expected = json.loads((case / "expected.json").read_text())
        for mode, parity in MODES.items():
            if "both" in expected or mode in expected:
                yield pytest.param(case, parity, id=f"{case.relative_to(CORPUS)}[{mode}]")


def test_corpus_is_not_empty():
    assert len(CASES) >= 10  # the glob found the corpus


@pytest.mark.parametrize(("case", "parity"), list(_params()))
def test_verdict(case: Path, parity: bool):
    expected = json.loads((case / "expected.json").read_text())
    assert expected["source"]
    want = expected.get("both") or expected["parity" if parity else "default"]
    scorer = SpecScorer(
        task_from_vector_bench(json.loads((case / "task.json").read_text())), parity=parity
    )
    if (case / "response.txt").exists():
        report = scorer.score_response((case / "response.txt").read_text())
    else:
        report = scorer.score((case / "produced.svg").read_text())
    got = report.to_dict()
    for key, value in want.items():
        if key == "checks":
            assert len(got["checks"]) == len(value)
            for ours, exp in zip(got["checks"], value, strict=True):
                assert {k: ours[k] for k in exp} == exp, ours
        else:
            assert got[key] == value, key
