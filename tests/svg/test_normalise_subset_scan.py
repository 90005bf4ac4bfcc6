"""The subset scan's quick checks agree with the per-value rules they stand in for."""

import pytest

from vector_gym.svg.normalise.subset import _plain, _simple_decimals, skia_subset
from vector_gym.svg.parse import parse_svg

VALUES = [
    "",
    ".",
    "..",
    "0",
    "7",
    "00",
    "1.",
    ".5",
    "5.",
    "12.75",
    "1.2.3",
    "1..2",
    "1e3",
    "+1",
    "-1",
    " 1",
    "1 ",
    "\u0661",
    "1x",
]


@pytest.mark.parametrize("value", VALUES)
def test_simple_decimals_only_accepts_plain_numbers(value):
    # Sound: a value it accepts is a plain number; the regex decides the rest.
    if _simple_decimals(value):
        assert _plain(value) is not None
    assert _simple_decimals("\x00".join(["3", value, "4.5"])) == _simple_decimals(value)


def test_simple_decimals_values():
    assert [v for v in VALUES if _simple_decimals(v)] == ["0", "7", "00", "1.", ".5", "5.", "12.75"]


def _doc(attrs: str) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg"><rect width="2" height="1" {attrs}/></svg>'


@pytest.mark.parametrize(
    "attrs, inside",
    [
        ('x="1.5" y="2"', True),
        ('x="1e3"', True),  # a plain number the quick check leaves to the regex
        ('x="1.2.3"', False),
        ('x="."', False),
        ('x=""', False),
        ('x="5px"', False),
        ('opacity="1.0" fill-opacity=".25"', True),
        ('opacity="1.01"', False),
        ('stroke-width="0.5"', True),
        ('stroke-width="0.0"', False),
        ('style="fill:#fff"', True),
        ('style="fill:url(#a)"', False),
        ('transform="rotate(5)"', True),
        ('foo="1"', False),
    ],
)
def test_scan_decisions(attrs, inside):
    assert skia_subset(parse_svg(_doc(attrs))) is inside
