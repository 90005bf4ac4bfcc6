"""Tests for vector_gym.svg.viewbox (spec-reward.md §8.3, §10)."""

from __future__ import annotations

import math

import pytest

from vector_gym.svg.parse import parse_svg
from vector_gym.svg.viewbox import parse_viewbox, scan_viewbox_reference, viewport_size


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        # Every example of spec §8.3.
        ('viewBox="0 0 220 140" width="10"', (220, 140)),
        ('viewBox="0,0,220,140"', (220, 140)),
        ('viewBox="0 0 0 10" width="50" height="20"', (50, 20)),
        ('width="300" height="50"', (300, 50)),
        ('width=" 1e2 " height="30"', (100, 30)),
        ('width="0.5" height="30"', (1, 30)),
        ('width="300px" height="50"', (100, 100)),
        ("", (100, 100)),
        # More consequences of the §8.3 steps.
        ('viewBox="" width="40" height="30"', (40, 30)),
        ('viewBox="0 0 220" width="40"', (40, 100)),
        ('viewBox="0 0 2.5.5"', (2.5, 0.5)),  # lenient scan: 0, 0, 2.5, .5
        ('viewBox="0 0 220 140px" width="7" height="8"', (7, 8)),
        ('viewBox="0 0 -5 10" width="50%"', (100, 100)),
        ('width="1_0" height="inf"', (10, math.inf)),
        ('width="-3" height="0"', (1, 1)),
        ('viewBox="0,0 ,220, 140"', (220, 140)),
    ],
)
def test_viewport_size(attrs, expected):
    assert viewport_size(parse_svg(f"<svg {attrs}/>")) == expected


def test_viewport_nan_stays_nan():
    w, h = viewport_size(parse_svg('<svg width="nan" height="5"/>'))
    assert math.isnan(w) and h == 5  # Python max(nan, 1) is nan (spec §8.3 step 3)


def test_viewport_none_root():
    assert viewport_size(None) == (100.0, 100.0)


def test_viewport_ignores_namespaced_attributes():
    root = parse_svg('<svg xmlns:e="urn:e" e:width="5" e:viewBox="0 0 1 1"/>')
    assert viewport_size(root) == (100, 100)


def test_scan_viewbox_reference():
    assert scan_viewbox_reference("0 0-1-1") == [0, 0, -1, -1]
    assert scan_viewbox_reference(",,1,,2,,") == [1, 2]
    assert scan_viewbox_reference("1;2") is None
    assert scan_viewbox_reference("") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0 0 220 140", (0, 0, 220, 140)),
        ("0,0,220,140", (0, 0, 220, 140)),
        (" -10 -5.5 1e2 .5 ", (-10, -5.5, 100, 0.5)),
        ("0 0 0 10", None),  # width must be > 0 (spec §10)
        ("0 0 10 -1", None),
        ("0 0 10", None),
        ("0 0 10 10 10", None),
        ("", None),  # empty viewBox fails validity (spec §10)
        ("not-a-viewbox", None),  # spec §17
        ("0 0 10px 10", None),
        ("0,,0,10,10", None),
        ("0 0 nan 10", None),
    ],
)
def test_parse_viewbox(text, expected):
    assert parse_viewbox(text) == expected


def test_parse_viewbox_allow_zero():
    assert parse_viewbox("0 0 0 10", require_positive=False) == (0, 0, 0, 10)
