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
