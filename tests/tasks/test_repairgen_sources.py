"""RepairGen source preparation: the fast path-data validity test agrees with the reference."""

from __future__ import annotations

import re

from vector_gym.svg.canonical import is_invalid, normalise_attribute
from vector_gym.tasks.repairgen_paths import path_points, respell_path
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
    # prepare_source's respelling of the paths the check rejects (it then checks the result)
    respelled = [
        respell_path(v)
        for v in values[len(CRAFTED) :]
        if v.strip() and path_points(v) is not None and not _reference_valid_d(v)
    ]
    assert len(respelled) > 100
    values += respelled
    assert len(values) > 2000
    verdicts = [not is_invalid(normalise_attribute("d", v)) for v in values]
    assert [_reference_valid_d(v) for v in values] == verdicts
    assert True in verdicts and False in verdicts  # both outcomes are exercised


def test_ascii_token_stream_fullmatch_equals_the_token_scan() -> None:
    """path_data_reads decides an ASCII value without an exponent with one fullmatch; it gives
    the verdict of the §4.3 token scan (_token_stream) on random token soups (numbers packed,
    signed, dotted; commands; separators; stray characters)."""
    import random

    from vector_gym.svg import reference_dialect as rd

    rng = random.Random(3)
    atoms = "0 1 12 1.5 .5 5. -1 +.5 -. . M l z A c x - + .. 0.5.5 1-2".split()
    atoms += [" ", ",", "  ", ", ", "\t", "\x1c"]
    seen = set()
    for _ in range(20000):
        v = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 9)))
        value = rd.fold_ws(v)
        if not value or rd._NUMBER_RE.fullmatch(value):
            continue
        fast = rd._ASCII_STREAM(value) is not None
        assert fast == (rd._token_stream(value, True, spell=False) is not None), repr(v)
        seen.add(fast)
    assert seen == {True, False}
