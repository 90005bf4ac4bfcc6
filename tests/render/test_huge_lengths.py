"""Huge finite lengths (``1e308``) under percentages: drawn, never a crash or a generic failure.

A percentage length resolves against the viewport (SVG 2 §8.9: width, height, or the
normalised diagonal ``sqrt((w² + h²) / 2)`` for other lengths). With a viewport near the
largest float, ``w**2`` overflows (Python raises ``OverflowError``) although the diagonal
itself is finite. These documents are valid SVG: every skia backend must prepare and draw them
(in this process and in a pool, and the raster scorer must score them), never report the
generic ``render_failed`` of an uncaught error.
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import NS

from vector_gym.render import reasons as R
from vector_gym.render import render_many
from vector_gym.render.backends import _prepare, clear_caches, draw_document
from vector_gym.render.precheck import DEFAULT_LIMITS

HUGE_DOCS = {
    # the brief's case: a root viewBox 1e308 wide, percentage width/height and stroke-width
    "root_viewbox_stroke_pct": f'<svg {NS} viewBox="0 0 1e308 1e308" width="50%" height="50%">'
    '<rect width="50%" height="50%" fill="red" stroke="blue" stroke-width="4%"/></svg>',
    # r="25%" resolves against the diagonal
    "circle_r_pct": f'<svg {NS} viewBox="0 0 1e308 1e308"><circle cx="50%" cy="50%" r="25%" fill="red"/></svg>',
    # a negative origin and a size of 1.7e308: w² + h² overflows even as a product
    "negative_origin": f'<svg {NS} viewBox="-1e308 -1e308 1.7e308 1.7e308">'
    '<rect x="-1e308" y="-1e308" width="50%" height="50%" fill="red" stroke="blue" stroke-width="4%"/></svg>',
    # a nested viewport of 1e308 inside a small root
    "nested_viewport": f'<svg {NS} viewBox="0 0 10 10"><svg width="10" height="10" viewBox="0 0 1e308 1e308">'
    '<rect width="50%" height="50%" fill="red" stroke="blue" stroke-width="4%"/>'
    '<ellipse cx="75%" cy="75%" rx="10%" ry="10%" fill="green"/></svg></svg>',
    # the root's own absolute size is 1e308 (percentages of children resolve against the viewBox)
    "root_size_1e308": f'<svg {NS} width="1e308" height="1e308" viewBox="0 0 1e308 1e308">'
    '<rect width="50%" height="50%" fill="red" stroke="blue" stroke-width="4%"/></svg>',
}


PREPARED = {  # the resolved lengths (SVG 2 §8.9), in the prepared text
    "root_viewbox_stroke_pct": ('width="5e+307"', 'stroke-width="4e+306"'),
    "circle_r_pct": ("A2.5e+307 2.5e+307 0 0 1 5e+307 7.5e+307",),
    "negative_origin": ('width="8.5e+307"', 'stroke-width="6.8e+306"'),
    "nested_viewport": ('stroke-width="4e+306"', "A1e+307 1e+307"),
    "root_size_1e308": ('width="5e+307"', 'stroke-width="4e+306"'),
}


@pytest.mark.parametrize("name", sorted(HUGE_DOCS))
@pytest.mark.parametrize("backend", ["skia", "skia-strict"])
def test_huge_percentage_lengths_resolve_and_draw(name, backend):
    doc = HUGE_DOCS[name]
    drawn, prepared = _prepare(doc, 72, 72, backend, DEFAULT_LIMITS)  # raised OverflowError
    assert drawn == "skia", prepared
    for part in PREPARED[name]:
        assert part.encode() in prepared, prepared
    clear_caches()
    out = np.zeros((72, 72, 3), np.uint8)
    assert draw_document(doc, out, backend=backend) == (None, "skia")
    # skia works in 32-bit floats: coordinates near 1e308 are out of its range and it draws
    # nothing, as it does for the unmodified document (resvg, in 64-bit, draws the shapes)
    assert (out == 255).all()


@pytest.mark.parametrize("processes", [0, 1])
def test_huge_percentage_lengths_in_render_many(processes):
    docs = [HUGE_DOCS[k] for k in sorted(HUGE_DOCS)]
    clear_caches()
    batch = render_many(docs, (72, 72), processes=processes)
    assert list(batch.errors) == [None] * len(docs)
    assert list(batch.drawn_by) == ["skia"] * len(docs)
    assert (batch.images == 255).all()


def test_huge_percentage_lengths_in_the_raster_scorer():
    from vector_gym.rewards.raster import RasterScorer
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

    task = load_svgeditbench_v2()[0]
    sc = RasterScorer("v2", dino_model=None, clip_model=None, processes=0)
    for doc in HUGE_DOCS.values():
        r = sc.score(task, doc)
        assert r.failure_reasons == () and R.RENDER_FAILED not in r.detail, r
        assert r.mse is not None and r.mse > 0
