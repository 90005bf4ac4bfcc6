"""Tests for vector_gym.svg.path_data (spec-reward.md §8.9.1–8.9.2, §10, §16 items 8/22, §18)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import svg.path as svgpath  # the reference reader, svg.path==7.1 (test extra only)

from vector_gym.svg import path_data as PD
from vector_gym.svg.geometry import segment_points
from vector_gym.svg.path_data import (
    ARC,
    CUBIC,
    LINE,
    MOVE,
    POINT,
    QUAD,
    PathSyntaxError,
    parse_path_data,
    parse_path_data_cached,
    path_syntax_ok,
)


def _reason(d, parity=False):
    with pytest.raises(PathSyntaxError) as info:
        parse_path_data(d, parity)
    return info.value.reason


def _ends(p):
    return [tuple(r) for r in p.params[:, 2:4].tolist()]


# ------------------------------------------------------------------------- A/B: reading rules ----


@pytest.mark.parametrize("parity", [False, True])
@pytest.mark.parametrize(
    "d",
    [
        # spec §10 "Fail" list
        "M0 0 L",
        "M0 0 L1",
        "M0 0 Z 10 10",
        "M,0,0",
        "M0\u00a00 L1 1",  # NBSP between numbers (non-ASCII argument text)
        "M0 0 A5 5 0",
        "M0 0 A-5 5 0 0 1 10 10",  # negative radius in the first set
        # spec §8.9.1 error examples
        "C1 2 3 4 5 6 7 8",
        "M0 0 A5 5 0 0 1 10 10 5",
        "M0 0 L10 10 +",
        "LL10 10",
        "M0 0 h",
        "x M0 0",
        "M0 0 L. 1",
        "M0 0 L1 e5",
        # reference crashes, invalid in both modes (spec §10 [bug], §16 item 8, §18)
        "Z",
        "L10 10 Z",
        "M0 0 A5 5 0 2 1 10 10",
        "M0 0 A5 5 0 1",
    ],
)
def test_errors_in_both_modes(d, parity):
    with pytest.raises(PathSyntaxError):
        parse_path_data(d, parity)


def test_error_reasons():
    assert _reason("Z") == "close_before_move"
    assert _reason("L10 10 z") == "close_before_move"
    assert _reason("M0 0 A5 5 0 2 1 10 10") == "bad_arc_flag"
    assert _reason("M0 0 L") == "missing_arguments"
    assert _reason("M0 0 Z 10 10") == "arguments_after_close"
    assert _reason("M0\u00a00") == "non_ascii"
    assert _reason("x M0 0") == "no_command_at_start"
    assert _reason("M0 0 L10 10 +") == "bad_number"
    assert _reason("M0 0 L1") == "read_failure"
    assert _reason("M0 0 1 1 1") == "incomplete_argument_set"
    assert set(PD.REASONS) >= {"close_before_move", "bad_arc_flag", "incomplete_argument_set"}


@pytest.mark.parametrize(
    "d",
    ["", "   ", "L 10 10", "M 10 10", "M0 0-1-1", "M0.5.5 L1 1", "m1,2l3,4", "M0 0 l1e2-1E-2",
     "M0 0 A5 5 0 110 10", "M0 0 A0 5 0 0 1 10 10", "M1 1 A5 5 0 0 1 1 1", "M0 0 Z z", "M0 0 H1 V2 h1 v2"],
)
def test_valid_in_both_modes(d):
    # spec §10 "Pass" list and §18 (`M0 0-1-1`, `L 10 10`). `M0.5.5 L1 1` is read fine here;
    # the validity gate rejects it through the §4.3 token rule, not through this reader.
    parse_path_data(d, False)
    parse_path_data(d, True)
    assert path_syntax_ok(d) and path_syntax_ok(d, True)


@pytest.mark.parametrize(
    ("d", "commands", "ends"),
    [
        # spec §8.9.1 truncation examples (parity mode)
        ("M0 0 1 1 1", "ML", [(0, 0), (1, 1)]),
        ("M10 10 L30 30 5 L90 90", "ML", [(10, 10), (30, 30)]),
        ("C1 2 3 4 5 6 7", "C", [(5, 6)]),
        ("M0 0 A5 5 0 0 1 10 10 -5 5 0 0 1 20 20", "MA", [(0, 0), (10, 10)]),
        ("M0 0 L10 10 x L20 20", "ML", [(0, 0), (10, 10)]),
        ("M0 0 L10 10 x +", "ML", [(0, 0), (10, 10)]),  # the '+' after the stop is never read
        ("M0 0 1 1 1 L", "ML", [(0, 0), (1, 1)]),  # a later bare command is never reached
        ("M0 0 1 1 1 Z 5", "ML", [(0, 0), (1, 1)]),
    ],
)
def test_truncation_rule_parity_only(d, commands, ends):
    p = parse_path_data(d, parity=True)
    assert p.commands == commands
    assert _ends(p) == ends
    assert p.truncated
    # RL mode: not a whole number of argument sets → error (spec §16 item 22)
    with pytest.raises(PathSyntaxError):
        parse_path_data(d, parity=False)


def test_flags_read_as_single_characters():
    # spec §8.9.1 B: `A5 5 0 110 10` reads the flags 1, 1 and then the pair (0, 10)
    p = parse_path_data("M0 0 A5 5 0 110 10")
    assert p.kinds.tolist() == [MOVE, ARC]
    assert _ends(p)[1] == (0.0, 10.0)


def test_number_reading():
    p = parse_path_data("M0.5.5L1-2 3e1,4E-1")
    assert _ends(p) == [(0.5, 0.5), (1.0, -2.0), (30.0, 0.4)]
    assert parse_path_data("M 1\t,\r\n2").params[0, :2].tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------- C: building segments ----


def test_current_point_starts_at_origin_and_relative_commands():
    p = parse_path_data("l10 0 m5 5 l1 1 h2 v-3 z")
    assert p.commands == "lmlhvz"
    assert p.kinds.tolist() == [LINE, MOVE, LINE, LINE, LINE, LINE]
    assert _ends(p) == [(10, 0), (15, 5), (16, 6), (18, 6), (18, 3), (15, 5)]
    assert p.params[0, :2].tolist() == [0.0, 0.0]  # starts at the origin


def test_implicit_moveto_repeats_are_lines():
    p = parse_path_data("m1 1 2 2 3 3")
    assert p.commands == "mll"
    assert _ends(p) == [(1, 1), (3, 3), (6, 6)]


def test_close_appends_line_even_when_zero_length():
    p = parse_path_data("M1 1 L5 1 L1 1 Z")
    assert p.kinds[-1] == LINE
    assert p.params[-1, :4].tolist() == [1.0, 1.0, 1.0, 1.0]


def test_smooth_reflection_rules():
    p = parse_path_data("M0 0 C1 1 2 1 3 0 S5 -1 6 0")
    assert p.kinds.tolist() == [MOVE, CUBIC, CUBIC]
    assert p.params[2, 4:8].tolist() == [4.0, -1.0, 5.0, -1.0]  # c1 = 2·cur − prev c2
    p = parse_path_data("M0 0 L3 0 S5 -1 6 0")  # previous is not C/S → c1 = cur
    assert p.params[2, 4:6].tolist() == [3.0, 0.0]
    p = parse_path_data("M0 0 Q1 1 2 0 T4 0 t2 0")
    assert p.kinds.tolist() == [MOVE, QUAD, QUAD, QUAD]
    assert p.params[2, 4:6].tolist() == [3.0, -1.0]
    assert p.params[3, 4:6].tolist() == [5.0, 1.0]
    p = parse_path_data("M0 0 C1 1 2 1 3 0 T5 0")  # T after C → control = cur
    assert p.params[2, 4:6].tolist() == [3.0, 0.0]
    p = parse_path_data("M0 0 c1 1 2 1 3 0 s2 -1 3 0")  # relative S, reflection in absolute terms
    assert p.params[2, 4:8].tolist() == [4.0, -1.0, 5.0, -1.0]


def test_arc_special_cases():
    p = parse_path_data("M1 1 A5 5 0 0 1 1 1 A0 3 0 0 1 4 5")
    assert p.kinds.tolist() == [MOVE, POINT, LINE]


def test_arc_setup_worked_example():
    # spec §8.9.2: `M10 10 A5 3 30 1 1 60 20` — k, centre, θ, Δ printed by the reference
    r = parse_path_data("M10 10 A5 3 30 1 1 60 20").params[1]
    assert r[14] == 5.544947326643368
    assert (r[4], r[5]) == (34.999999946811904, 14.999999773570517)
    assert r[8] == 150.585107024371
    assert r[9] == 180.00000147877932
    assert (r[12], r[13], r[15]) == (5.0, 3.0, 30.0)


def test_arc_semicircle_setup():
    # spec §8.9.8 arc example: centre (10, 0), θ = 180, Δ = 180
    r = parse_path_data("M0 0 A10 10 0 0 1 20 0").params[1]
    assert (r[4], r[5], r[8], r[9], r[14]) == (10.0, 0.0, 180.0, 180.0, 1.0)
    r = parse_path_data("M0 0 A10 10 0 0 0 20 0").params[1]
    assert r[9] == -180.0  # sweep 0 → Δ − 360


# ------------------------------------------------------------------------------ caching/misc ----


def test_cached_parse_returns_errors_and_readonly_arrays():
    err = parse_path_data_cached("M0 0 L")
    assert isinstance(err, PathSyntaxError) and err.reason == "missing_arguments"
    p = parse_path_data_cached("M0 0 L1 1")
    assert parse_path_data_cached("M0 0 L1 1") is p
    with pytest.raises(ValueError):
        p.params[0, 0] = 5.0
    assert parse_path_data_cached("M0 0 1 1 1", True).commands == "ML"
    assert isinstance(parse_path_data_cached("M0 0 1 1 1", False), PathSyntaxError)


def test_empty_path():
    p = parse_path_data("")
    assert len(p) == 0 and p.params.shape == (0, PD.N_PARAMS)


# ------------------------------------------------------ cross-check against svg.path 7.1 --------



def _svgpath_parse(d):
    """The reference reader; AssertionError (its crash cases) and any exception → None."""
    try:
        return svgpath.parse_path(d)
    except Exception:
        return None


def _random_d(rng: random.Random) -> str:
    letters = "MmLlHhVvCcSsQqTtAaZz"
    out = []
    for _ in range(rng.randint(1, 6)):
        c = rng.choice(letters)
        out.append(c)
        n = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}[c.lower()]
        n = n * rng.choice([1, 1, 1, 2]) + rng.choice([0, 0, 0, 0, 1, -1])
        for k in range(max(n, 0)):
            if c.lower() == "a" and k % 7 in (3, 4):
                out.append(rng.choice(["0", "1", "1", "0", "2"]))
            else:
                out.append(rng.choice(["", "-", "+"]) + rng.choice(["0", "1", "2.5", ".5", "10", "3e1", "7."]))
            out.append(rng.choice([" ", ",", " ", "", "  ", ", "]))
    if rng.random() < 0.1:
        out.insert(rng.randrange(len(out) + 1), rng.choice(["x", ";", "\u00a0", "e", "."]))
    return "".join(out)


def test_matches_svg_path_on_random_strings():
    rng = random.Random(7)
    checked = 0
    for _ in range(3000):
        d = _random_d(rng)
        ref = _svgpath_parse(d)
        try:
            ours = parse_path_data(d, parity=True)
        except PathSyntaxError:
            ours = None
        assert (ref is None) == (ours is None), d
        if ours is None:
            continue
        assert len(ref) == len(ours), d
        for i, seg in enumerate(ref):
            for t in (0.0, 0.3, 1.0):
                q = seg.point(t)
                x, y = segment_points(ours, np.array([i]), np.array([t]))[0]
                assert math.isclose(x, q.real, rel_tol=1e-12, abs_tol=1e-12), (d, i, t)
                assert math.isclose(y, q.imag, rel_tol=1e-12, abs_tol=1e-12), (d, i, t)
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("d", ["L1 1 Z", "l1 1 z l 2 2", "L1 1 z v1", "h5 Z M0 0"])
def test_path_fields_rejects_a_close_before_any_moveto(d):
    """path_fields reads as parse_path_data does: a Z before any moveto (after a lineto, say)
    is an error (close_before_move) in both, and RepairGen's path reading declines it instead
    of closing to a start point that does not exist (a TypeError on "L1 1 z v1")."""
    from vector_gym.tasks.repairgen_paths import path_points, scan_path

    assert _reason(d) == "close_before_move"
    assert PD.path_fields(d) is None
    assert scan_path(d) is None and path_points(d) is None


def test_the_possessive_number_of_sanitize_path_data_matches_the_former_atomic_one():
    """The prefix regex with the former number (an atomic group that backtracked through
    digits) and with the possessive one: the same end on real and on random path data."""
    import re

    from vector_gym.svg.normalise import paths as P

    before = r"(?>[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?)"
    assert P._N != before
    old_prefix = re.compile(P._PATH_PREFIX_RE.pattern.replace(P._N, before))
    old_arc = re.compile(P._ARC_CMD_RE.pattern.replace(P._N, before))
    assert old_prefix.pattern != P._PATH_PREFIX_RE.pattern
    from vector_gym.tasks.repairgen_sources import load_sources

    ds = []
    for s in load_sources(("vector_bench", "svgeditbench")):
        ds += re.findall(r'\sd="([^"]*)"', s.svg)
    assert len(ds) > 1000
    rng = random.Random(5)
    alphabet = "0123456789.-+eE ,\t\nMmLlHhVvCcSsQqTtAaZz01x"
    for _ in range(20000):
        ds.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40))))
        ds.append("M" + "".join(rng.choice("0123456789.-+eE ,") for _ in range(rng.randrange(1, 30))))
    for d in ds:
        assert P._PATH_PREFIX_RE.match(d).end() == old_prefix.match(d).end(), d
        assert [m.span() for m in P._ARC_CMD_RE.finditer(d)] == [m.span() for m in old_arc.finditer(d)], d


# ------------------------------------------------------- normalise_path_data's canonical fast path ----


def _corpus_d_values() -> list[str]:
    """Every ``d`` of the bundled outcomes and task documents, each also respelled: numbers
    perturbed and written in the spellings the fast path must refuse or must agree with."""
    import re

    from bundled_texts import vector_bench_texts

    texts = vector_bench_texts()
    found = sorted({d for s in texts for d in re.findall(r'\sd="([^"]*)"', s)})
    rng = random.Random(11)
    spellings = ["0", "-0", "0.0", "1", "10", "10.0", "010", "0.5", ".5", "-.5", "0.50", "1e1", "1E-2",
                 "0.0001", "0.00001", "0.000123", "123456", "1234567", "123456.123456", "1234567.5",
                 "0.1234567", "-2.25", "+3", "999999.999999", "1e999", "7.", "0.30000000000000004",
                 "1234567890.123456789"]  # fmt: skip
    number = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
    out = list(found)
    for d in found:
        for _ in range(6):
            out.append(number.sub(lambda m: rng.choice(spellings) if rng.random() < 0.3 else m.group(), d))
        out.append(d.replace(" ", ",", 1))
        out.append(d.replace(" ", "  ", 1))
        out.append(d + " ")
        out.append(d[:1] + " " + d[1:])
    return out


def _fast_path_disagreements(pattern) -> tuple[list[str], int]:
    """(d values where ``pattern``'s shortcut would differ from the respelling, shortcut hits)."""
    bad = []
    hits = 0
    for d in _corpus_d_values():
        parsed = parse_path_data_cached(d, False)
        if isinstance(parsed, PathSyntaxError) or pattern.fullmatch(d) is None:
            continue
        hits += 1
        if PD._respell(parsed) != d:
            bad.append(d)
    return bad, hits


def test_canonical_path_data_shortcut_equals_the_respelling():
    """normalise_path_data returns a text that matches _CANONICAL_D as it is: on every corpus
    ``d`` (most of them already canonical) and thousands of respelled variants, the respelling
    of the parsed path is that very text, and the public function agrees with the respelling."""
    bad, hits = _fast_path_disagreements(PD._CANONICAL_D)
    assert bad == []
    assert hits > 500
    for d in _corpus_d_values()[:3000]:
        parsed = parse_path_data_cached(d, False)
        want = None if isinstance(parsed, PathSyntaxError) else PD._respell(parsed)
        assert PD.normalise_path_data(d) == want, d


def test_canonical_path_data_check_catches_a_loose_pattern():
    """The check above fails for a shortcut that accepts non-canonical numbers (trailing zeros,
    leading zeros, ``-0``, exponents, too many digits) or separators."""
    import re

    n = r"[-+]?[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?"
    loose = re.compile(rf"[Mm]{n}[ ,]{n}(?:[ ,]*(?:[A-Za-z][-+0-9., eE]*))*")
    bad, _hits = _fast_path_disagreements(loose)
    assert len(bad) > 100
    too_many_digits = re.compile(PD._CANONICAL_D.pattern.replace("{0,5}", "{0,9}"))
    bad, _hits = _fast_path_disagreements(too_many_digits)
    assert bad, "a 7-digit or 0.00001-style number passes the widened pattern"
