"""Tests for vector_gym.svg.transform (SVG 1.1 §7.6 transform lists)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vector_gym.svg.transform import matrix_string, parse_transform, transform_to_matrix


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("", []),
        ("  ", []),
        ("translate(10)", [("translate", (10.0,))]),
        ("translate(10,20)", [("translate", (10.0, 20.0))]),
        ("translate( 10 , 20 )", [("translate", (10.0, 20.0))]),
        ("translate (10 20)", [("translate", (10.0, 20.0))]),
        ("translate(10-20)", [("translate", (10.0, -20.0))]),
        ("scale(2) rotate(45 5 5)", [("scale", (2.0,)), ("rotate", (45.0, 5.0, 5.0))]),
        ("scale(2),skewX(10) ,skewY(-1e1)", [("scale", (2.0,)), ("skewX", (10.0,)), ("skewY", (-10.0,))]),
        ("matrix(1 0 0 1 .5 -.5)", [("matrix", (1.0, 0.0, 0.0, 1.0, 0.5, -0.5))]),
        ("rotate(1)scale(2)", [("rotate", (1.0,)), ("scale", (2.0,))]),
    ],
)
def test_parse_ok(text, items):
    assert parse_transform(text) == items


@pytest.mark.parametrize(
    "text",
    ["translate()", "Translate(1)", "translate(1 2 3)", "rotate(1 2)", "matrix(1 2 3 4 5)", "skewX(1 2)",
     "translate(1);scale(2)", "translate(1px)", "translate(nan)", "translate(1e999)", "scale(2),,scale(3)",
     "scale(2),", ",scale(2)", "foo(1)", "translate(1", "translate(1,)"],
)
def test_parse_errors(text):
    with pytest.raises(ValueError, match="transform"):
        parse_transform(text)


def _apply(m, x, y):
    return tuple(m @ np.array([x, y, 1.0]))[:2]


def test_matrices():
    assert np.allclose(_apply(transform_to_matrix("translate(3)"), 1, 1), (4, 1))
    assert np.allclose(_apply(transform_to_matrix("scale(2 3)"), 1, 1), (2, 3))
    assert np.allclose(_apply(transform_to_matrix("rotate(90)"), 1, 0), (0, 1))
    # rotate about a centre keeps the centre fixed
    assert np.allclose(_apply(transform_to_matrix("rotate(90 5 5)"), 5, 5), (5, 5))
    assert np.allclose(_apply(transform_to_matrix("rotate(90 5 5)"), 6, 5), (5, 6))
    assert np.allclose(_apply(transform_to_matrix("skewX(45)"), 0, 1), (1, 1))
    assert np.allclose(_apply(transform_to_matrix("skewY(45)"), 1, 0), (1, 1))
    assert np.allclose(_apply(transform_to_matrix("matrix(1 2 3 4 5 6)"), 1, 1), (9, 12))


def test_composition_order_rightmost_first():
    # SVG: "translate(10) scale(2)" scales first, then translates.
    assert np.allclose(_apply(transform_to_matrix("translate(10) scale(2)"), 1, 0), (12, 0))
    assert np.allclose(_apply(transform_to_matrix("scale(2) translate(10)"), 1, 0), (22, 0))


def test_items_input_and_string_roundtrip():
    m = transform_to_matrix([("rotate", (30.0,)), ("translate", (1.0, 2.0))])
    again = transform_to_matrix(matrix_string(m))
    assert np.allclose(m, again, atol=0, rtol=0)
    assert matrix_string(np.eye(3)) == "matrix(1 0 0 1 0 0)"
    assert matrix_string(transform_to_matrix("scale(-0.0)"))[:9] == "matrix(0 "
    assert math.isclose(transform_to_matrix("rotate(30)")[1, 0], 0.5)


@pytest.mark.parametrize(
    "text, items",
    [
        ("rotate(0.5turn) translateY(2px)", [("rotate", (180.0,)), ("translate", (0.0, 2.0))]),
        ("SCALE(2, 3) skew(10deg, 0) rotate(100grad)", [("scale", (2.0, 3.0)), ("skewX", (10.0,)), ("rotate", (90.0,))]),
        ("translate(0, 5px) rotate(0)", [("translate", (0.0, 5.0)), ("rotate", (0.0,))]),
        ("none", []),
    ],
)
def test_css_transform_reads_css_units(text, items):
    from vector_gym.svg.transform import parse_css_transform

    assert parse_css_transform(text) == items


@pytest.mark.parametrize(
    "text",
    ["rotate(45)", "translate(10, 20)", "translate(1px 2px)", "translate(1em)", "rotate(1e308turn)",
     "rotate(1e999deg)", "skew(1deg, 2deg)", "rotate3d(1, 0, 0, 1deg)", "", "rotate(1deg),"],
)  # fmt: skip
def test_css_transform_rejects_what_browsers_drop(text):
    from vector_gym.svg.transform import parse_css_transform

    assert parse_css_transform(text) is None
