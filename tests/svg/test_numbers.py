"""Tests for vector_gym.svg.numbers (SVG number grammar; spec-reward.md §4.2, §7)."""

from __future__ import annotations

import math

import pytest

from vector_gym.svg.numbers import (
    SVG_NUMBER_RE,
    is_svg_number,
    parse_svg_number,
    python_float_reference,
    scan_numbers,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [("0", 0.0), ("-0", -0.0), ("+5", 5.0), ("5.", 5.0), (".5", 0.5), ("-.5e1", -5.0), ("1E2", 100.0),
     ("1e-2", 0.01), ("007", 7.0), ("1.000", 1.0), ("0.123456789", 0.123456789)],
)
def test_parse_valid(text, value):
    assert parse_svg_number(text) == value


@pytest.mark.parametrize(
    "text",
    ["", " 1", "1 ", "+", "-", ".", "-.", "e5", "1e", "1e+", "nan", "NaN", "inf", "Infinity", "1_0",
     "0x10", "1px", "1.2.3", "１０", "--1", "1e999", "-1e999"],
)
def test_parse_invalid(text):
    with pytest.raises(ValueError, match="SVG number"):
        parse_svg_number(text)


def test_is_svg_number_grammar_only():
    assert is_svg_number("1e999")  # grammatical, though not finite
    assert not is_svg_number("１")  # ASCII digits only
    assert SVG_NUMBER_RE.fullmatch("12.5e-3")


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("", []),
        ("   ", []),
        ("1", [1.0]),
        ("1 2,3 , 4", [1.0, 2.0, 3.0, 4.0]),
        ("0-1", [0.0, -1.0]),
        ("0.5.5", [0.5, 0.5]),
        ("\t1\n2\r\n", [1.0, 2.0]),
    ],
)
def test_scan_numbers(text, values):
    assert scan_numbers(text) == values


@pytest.mark.parametrize("text", [",1", "1,", "1,,2", "1;2", "1px", "a", "1 nan", "1e999", "1\u00a02"])
def test_scan_numbers_junk(text):
    assert scan_numbers(text) is None


def test_python_float_reference_quirks():
    # spec §7/§15/§16 item 7: the reference's float() accepts these.
    assert python_float_reference("1_0") == 10.0
    assert math.isnan(python_float_reference("nan"))
    assert python_float_reference("-Infinity") == -math.inf
    assert python_float_reference("\u00a0 5 ") == 5.0
    assert python_float_reference("１０") == 10.0
    assert python_float_reference("10px") is None
    assert python_float_reference(None) is None


def test_plain_number_lists_read_as_the_item_reader_reads_them():
    """``scan_numbers``' plain-list fast path returns what ``scan_number_spans`` reads.

    40,000 random lists of plain and non-plain tokens (signs, exponents, bare dots, packed
    numbers, 400-digit overflows) and separators (blanks, commas, doubled or trailing commas,
    other characters): the same verdict and the same doubles (compared by their hex form), and
    the fast path taken for a good share of them.
    """
    import random

    from vector_gym.svg import numbers as N

    rng = random.Random(3)
    toks = ["0", "1", "-1", "10.5", "-0.25", "-0", "007", "1.", ".", ".5", "+1", "1e3", "1E-2", "-"]
    toks += ["--1", "1.2.3", "9" * 400, "-" + "9" * 400, "0.000001"]
    seps = [" ", ",", ", ", " ,", "\t", "\n", "\f", "  ", "", ",,", "\r\n", "\x0b", "a"]
    fast = 0
    for _ in range(40_000):
        parts = [rng.choice(seps) if rng.random() < 0.3 else ""]
        for _j in range(rng.randint(0, 6)):
            parts += [rng.choice(toks), rng.choice(seps)]
        if rng.random() < 0.5:
            parts[-1] = rng.choice(["", " ", "\n"])
        text = "".join(parts)
        spans = N.scan_number_spans(text)
        want = None if spans is None else [v.hex() for _s, _e, v in spans]
        got = N.scan_numbers(text)
        assert (None if got is None else [v.hex() for v in got]) == want, repr(text)
        fast += N._PLAIN_LIST_RE.fullmatch(text) is not None
    assert fast > 5_000


def _short_number_candidates(seed: int = 5, n: int = 60000) -> list[str]:
    """Random number texts around SHORT_NUMBER_PATTERN's edges: up to 9 integer and 9 fraction
    digits, leading and trailing zeros, signs, tiny magnitudes, exponents."""
    import random

    rng = random.Random(seed)
    out = ["0", "-0", "0.0", "00", "1", "-1", "0.0001", "0.00001", "-0.0001", "0.000999999", "999999",
           "1000000", "999999.999999", "0.1", "0.5", "-0.5", ".5", "5.", "1e3", "+1", "10", "100.0"]  # fmt: skip
    digits = "0123456789"
    for _ in range(n):
        ip = "".join(rng.choice(digits) for _ in range(rng.randint(1, 9)))
        if rng.random() < 0.7:
            ip = ip.lstrip("0") or "0"
        fp = "".join(rng.choice(digits) for _ in range(rng.randint(0, 9)))
        if rng.random() < 0.3:
            fp = "0" * rng.randint(1, 5) + fp
        t = ip + ("." + fp if fp else "")
        if rng.random() < 0.4:
            t = "-" + t
        if rng.random() < 0.05:
            t += rng.choice(["e1", "E-2", "0"])
        out.append(t)
    return out


def _short_number_mismatches(pattern) -> tuple[list[str], int]:
    from vector_gym.svg.numbers import format_number

    bad = []
    hits = 0
    for t in _short_number_candidates():
        if pattern.fullmatch(t) is None:
            continue
        hits += 1
        if not SVG_NUMBER_RE.fullmatch(t) or format_number(float(t)) != t:
            bad.append(t)
    return bad, hits


def test_short_numbers_are_their_own_canonical_spelling():
    """Every text SHORT_NUMBER_RE accepts is an SVG number whose format_number spelling is the
    text itself (the fast paths of N in vector_gym.svg.canonical and path_data rely on it)."""
    from vector_gym.svg.numbers import SHORT_NUMBER_RE

    bad, hits = _short_number_mismatches(SHORT_NUMBER_RE)
    assert bad == []
    assert hits > 10000


def test_short_number_check_catches_a_wider_pattern():
    """The check above fails for a pattern that accepts trailing zeros, -0, 1e-5 or 16+ digits."""
    import re

    from vector_gym.svg.numbers import SHORT_NUMBER_PATTERN

    for wider in (
        SHORT_NUMBER_PATTERN.replace("[1-9])?", "[0-9])?"),  # trailing zeros
        SHORT_NUMBER_PATTERN.replace("(?!0000)", ""),  # 0.00001 (repr: 1e-05)
        SHORT_NUMBER_PATTERN.replace("|0)", "|-?0)"),  # -0
        SHORT_NUMBER_PATTERN.replace("{0,5}", "{0,9}"),  # 17+ significant digits
    ):
        bad, _hits = _short_number_mismatches(re.compile(wider))
        assert bad, wider
