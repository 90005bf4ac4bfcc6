"""Layer 2: batched rasterisation of SVG documents to numpy arrays.

``render_many(svgs, size=(H, W)) -> RenderBatch`` draws a batch in a persistent pool of isolated
worker processes (skia by default; resvg and cairosvg as alternatives), writing straight into a
shared-memory ``(N, H, W, 3)`` uint8 array. A hostile document fails alone with a named error
(:mod:`vector_gym.render.reasons`). ``RenderCache`` keeps renders that depend only on the task
(targets) so they are drawn once. skia and the other rasterisers are imported by the worker
functions that need them, not here.
"""

from __future__ import annotations

from vector_gym.render.batch import (
    MAX_SIDE,
    RenderBatch,
    get_pool,
    render_many,
    render_one,
    shutdown_pools,
)
from vector_gym.render.cache import RenderCache
from vector_gym.render.pool import RenderPool
from vector_gym.render.precheck import RenderLimits

__all__ = [
    "MAX_SIDE",
    "RenderBatch",
    "RenderCache",
    "RenderLimits",
    "RenderPool",
    "get_pool",
    "render_many",
    "render_one",
    "shutdown_pools",
]
