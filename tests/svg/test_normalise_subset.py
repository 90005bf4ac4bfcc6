"""The skia-subset fast path of the render path: the same pixels as the full normaliser, less work."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from vector_gym.render.backends import _draw_skia
from vector_gym.render.precheck import check_tree
from vector_gym.svg.normalise import simplify_tree, to_svg_bytes
from vector_gym.svg.normalise.subset import lower_skia_subset, skia_subset
from vector_gym.svg.parse import parse_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


def _svg(body: str, root: str = 'viewBox="0 0 10 10"') -> str:
    return f"<svg {NS} {root}>{body}</svg>"


def _pixels(data: bytes, size: int) -> np.ndarray:
    out = np.zeros((size, size, 3), np.uint8)
    assert _draw_skia(data, out, (255, 255, 255)) is None
    return out


def _both(text: str, size: int) -> tuple[bool, np.ndarray, np.ndarray]:
    """(in the subset, pixels of the fast path, pixels of the full normaliser)."""
    full = check_tree(text)
    fast = copy.deepcopy(full)
    hit = lower_skia_subset(fast, (size, size))
    simplify_tree(full, size=(size, size))
    return hit, _pixels(to_svg_bytes(fast), size), _pixels(to_svg_bytes(full), size)


def _corpus_sample() -> list[str]:
    from vector_gym.tasks.repairgen_sources import load_sources

    docs = [s.svg for s in load_sources(("vector_bench", "svgeditbench"))]
    return docs[::7]


@pytest.mark.parametrize("size", [64, 224])
def test_corpus_documents_in_the_subset_draw_exactly_as_with_the_full_normaliser(size):
    docs = _corpus_sample()
    hits = 0
    for text in docs:
        hit, fast, full = _both(text, size)
        if hit:
            hits += 1
            np.testing.assert_array_equal(fast, full, err_msg=text[:200])
    # most bundled documents are in the subset (Vector-Bench scenes all, emoji about 85%)
    assert hits >= 0.75 * len(docs), (hits, len(docs))


@pytest.mark.parametrize(
    "body, root",
    [
        ('<rect width="4" height="4" fill="#f00"/>', 'viewBox="0 0 10 10"'),
        ('<g fill="#0f0" opacity="0.5"><circle cx="5" cy="5" r="3"/></g>', 'viewBox="0 0 10 10"'),
        ('<line x1="0" y1="0" x2="10" y2="10" stroke="#00f" stroke-width="2" stroke-opacity="0.5"/>', 'viewBox="0 0 10 10"'),
        ('<path d="M1 1L9 1L5 9z" transform="rotate(10 5 5)" fill-rule="evenodd"/>', 'viewBox="0 0 10 10"'),
        ('<ellipse cx="5" cy="5" rx="4" ry="2" fill="white" stroke="black"/>', 'width="20" height="10"'),
        ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" fill="#f0f" x="3px" transform="scale(2)"'),
        ('<title>t</title><polygon points="1,1 9,1 5,9" fill="#abc"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="0" height="4" stroke="#000"/><circle r="0" stroke="#000"/>', 'viewBox="0 0 10 10"'),
        (
            '<circle cx="5" cy="5" r="4" fill="#000" style="fill:#98C0D0;stroke:#000; stroke-width:1"/>',
            'viewBox="0 0 10 10" style="enable-background:new 0 0 10 10;" xml:space="preserve"',
        ),
        # Illustrator's enable-background in a shape's or group's style: dropped, as the walk does
        (
            '<g style="enable-background:new    ;"><path style="opacity:0.5;fill:#B4E1ED;enable-background:new    ;"'
            ' d="M1 1L9 1L5 9z"/><rect style="enable-background:new;fill:#f00" width="3" height="3"/></g>',
            'viewBox="0 0 10 10"',
        ),
    ],
)
def test_subset_cases_draw_exactly_as_with_the_full_normaliser(body, root):
    text = _svg(body, root)
    for size in (16, 48):
        hit, fast, full = _both(text, size)
        assert hit
        np.testing.assert_array_equal(fast, full)


@pytest.mark.parametrize(
    "body, root",
    [
        ('<rect width="50%" height="4"/>', 'viewBox="0 0 10 10"'),  # units
        ('<rect width="4" height="4" style="fill:red"/>', 'viewBox="0 0 10 10"'),  # named colour
        ('<rect width="4" height="4" style="fill:#f00 !important"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" style="stroke-width:2px"/>', 'viewBox="0 0 10 10"'),  # unit
        ('<rect width="4" height="4" style="transform:scale(2)"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" style="width:2"/>', 'viewBox="0 0 10 10"'),  # geometry
        ('<rect width="4" height="4" style="fill:/**/#f00"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" style="fill:#f00"'),
        ('<rect class="a" width="4" height="4"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" fill="red"/>', 'viewBox="0 0 10 10"'),  # named colour
        ('<rect width="4" height="4" fill="currentColor"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" fill="url(#g)"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" stroke="#000" stroke-width="0"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" opacity="50%"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" transform-origin="2 2"/>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4" visibility="hidden"/>', 'viewBox="0 0 10 10"'),
        ('<defs><rect id="r" width="4" height="4"/></defs>', 'viewBox="0 0 10 10"'),
        ('<svg width="4" height="4"/>', 'viewBox="0 0 10 10"'),
        ('<text>a</text>', 'viewBox="0 0 10 10"'),
        ('<rect width="4" height="4"/>', 'viewBox="0 0 0 10"'),  # zero-size viewBox
        ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" style="fill:red"'),
        ('<rect width="4" height="4" onclick="x()"/>', 'viewBox="0 0 10 10"'),
    ],
)
def test_what_the_full_normaliser_must_handle_is_not_in_the_subset(body, root):
    root_el = parse_svg(_svg(body, root))
    before = copy.deepcopy(root_el)
    assert not skia_subset(root_el)
    assert not lower_skia_subset(root_el, (8, 8))
    assert to_svg_bytes(root_el) == to_svg_bytes(before)  # untouched when not in the subset


def test_lowering_applies_the_walks_rewrites():
    root = parse_svg(
        _svg(
            '<title>x</title><line x1="0" y1="0" x2="9" y2="9" stroke="#000"/>'
            '<circle cx="5" cy="5" r="2"/><rect width="0" height="3"/>'
            '<path d="M0 0L5 5L" transform="translate(1 1)"/>',
            'viewBox="0 0 10 10" width="10" fill="#f00" x="1"',
        )
    )
    assert lower_skia_subset(root, (20, 30))
    out = to_svg_bytes(root).decode()
    assert 'width="30" height="20"' in out and 'x="1"' not in out
    assert '<g fill="#f00">' in out  # the root's paint moved onto a wrapping group
    assert "<title" not in out and "<circle" not in out and "<rect" not in out
    assert 'fill="none"' in out  # the line's fill (skia would draw it as a hairline)
    assert 'd="M7 5A2 2 0 0 1 5 7A2 2 0 0 1 3 5A2 2 0 0 1 5 3A2 2 0 0 1 7 5Z"' in out
    assert 'd="M0 0L5 5" transform="matrix(1 0 0 1 1 1)"' in out


@pytest.mark.parametrize(
    "body",
    [
        '<g xmlns:s="http://www.w3.org/2000/svg"><circle cx="5" cy="5" r="4" fill="#f00"/></g>',
        '<circle xmlns:svg="http://www.w3.org/2000/svg" cx="5" cy="5" r="4" fill="#f00"/>',
        '<g xmlns:s="http://www.w3.org/2000/svg"><ellipse cx="5" cy="5" rx="4" ry="2" fill="#f00"/></g>',
    ],
)
def test_a_prefix_bound_to_svg_below_the_root_does_not_hide_a_rewritten_circle(body):
    # The lowering rewrites a circle as a path in place (el.tag = path); lxml then writes it with
    # the innermost prefix bound to SVG's namespace (<s:path>), which skia does not draw: the
    # serialiser of the render path (_subset_bytes) must still write a plain <path>.
    from vector_gym.render import render_many
    from vector_gym.render.backends import _subset_bytes

    text = _svg(body)
    size = 16
    hit, _fast, full = _both(text, size)
    assert hit and (full != 255).any()  # the red shape is drawn by the full normaliser
    root = check_tree(text)
    assert lower_skia_subset(root, (size, size))
    np.testing.assert_array_equal(_pixels(_subset_bytes(root), size), full)
    batch = render_many([text], size=(size, size), processes=0)
    assert batch.errors == (None,)
    np.testing.assert_array_equal(batch.images[0], full)
