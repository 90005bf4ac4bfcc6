"""The subset scan's batched value checks: one regex per kind must refuse what a per-value check refuses."""

from __future__ import annotations

import pytest

from vector_gym.render.precheck import check_tree
from vector_gym.svg.normalise import simplify_tree, to_svg_bytes
from vector_gym.svg.normalise.subset import lower_skia_subset, skia_subset
from vector_gym.svg.parse import parse_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


def _svg(body: str) -> str:
    return f'<svg {NS} viewBox="0 0 10 10">{body}</svg>'


@pytest.mark.parametrize(
    "body",
    [
        '<rect x="1&#10;2" width="2" height="2"/>',  # a newline made by a reference
        '<rect x="1" y="" width="2" height="2"/>',  # an empty number among good ones
        '<rect width="2" height="2" fill="#fff&#10;#000"/>',
        '<rect width="2" height="2" fill="#fff" stroke=""/>',
        '<circle cx="1" cy="1 " r="2"/>',
        '<rect width="2px" height="2"/>',
    ],
)
def test_a_bad_value_among_good_ones_leaves_the_subset(body):
    assert not skia_subset(parse_svg(_svg(body)))


def test_a_rect_of_unproven_size_is_not_read_before_its_numbers_are_checked():
    # width is not a number: the scan must refuse it, not fail on float("abc")
    assert not skia_subset(parse_svg(_svg('<rect width="abc" height="2"/><rect width="0" height="1"/>')))


@pytest.mark.parametrize(
    "body",
    [
        '<rect width="0" height="2"/><rect x="1" width="2" height="2" fill="#f00"/>',
        '<line x1="0" y1="0" x2="5" y2="5" stroke="#000" fill-opacity="0.5" fill="#f00"/>',
        '<ellipse cx="5" cy="5" ry="2" fill="#00f"/><circle cx="2.5" cy="1e0" r="1.25"/>',
        '<circle r="0"/><ellipse cx="1" rx="-1" ry="2"/><ellipse cx="1"/>',
    ],
)
def test_the_in_place_rewrites_write_what_the_full_normaliser_writes(body):
    fast = check_tree(_svg(body))
    assert lower_skia_subset(fast, (16, 16))
    full = check_tree(_svg(body))
    simplify_tree(full, size=(16, 16))
    # the same elements and path data (the full normaliser also spells out every paint)
    assert [(e.tag, e.get("d")) for e in fast.iter()] == [(e.tag, e.get("d")) for e in full.iter()]
    for e in fast.iter("{*}line"):
        assert (e.get("fill"), e.get("fill-opacity")) == ("none", None)
        assert list(e.keys()) == ["x1", "y1", "x2", "y2", "stroke", "fill"]
    assert b"<circle" not in to_svg_bytes(fast) and b"<ellipse" not in to_svg_bytes(fast)
