"""RepairGen source preparation: the fast path-data validity test agrees with the reference."""

from __future__ import annotations

import re

from vector_gym.svg.canonical import is_invalid, normalise_attribute
from vector_gym.tasks.repairgen_sources import _reference_valid_d, load_sources

_D = re.compile(r'\sd="([^"]*)"')

CRAFTED = [
    "",
    "   ",
    "M0 0",
    "M0,0L1,1",
    "M0 0; L1 1",
    "M0.5.5",
    "M0 0-1-1",
    "M0 0 1.5.5",
    "A5 5 0 0110",
    "10",
    " 1e2 ",
    "M1e2 1E-3",
    "M0 0 L",
    "Z",
    "M 0 0 z m 1 1",
    "M0 0 x",
    "M\uff11 0",
    "M0 0,,1 1",
    ",M0 0",
    "M0 0,",
    "M0 0 L1 1e",
    "m.5-.5.5.5",
    "M-0 +0",
]


def test_fast_d_validity_matches_reference_normalisation() -> None:
    values = list(CRAFTED)
    for s in load_sources(("vector_bench", "svgeditbench")):
        values.extend(_D.findall(s.svg))
    # broken variants of real paths: truncated, doubled separators, a stray letter
    for v in values[len(CRAFTED) : len(CRAFTED) + 400]:
        values += [v[: len(v) // 2], v.replace(" ", ",,", 3), v + " q", v.replace(".", "..", 1)]
    assert len(values) > 2000
    verdicts = [not is_invalid(normalise_attribute("d", v)) for v in values]
    assert [_reference_valid_d(v) for v in values] == verdicts
    assert True in verdicts and False in verdicts  # both outcomes are exercised
