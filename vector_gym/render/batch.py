"""Batched rasterisation: :func:`render_many`, :func:`render_one` and :class:`RenderBatch`."""

from __future__ import annotations

import numbers
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vector_gym.errors import ConfigError
from vector_gym.render.backends import BACKENDS, begin_documents, end_document
from vector_gym.render.pool import RenderPool
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderLimits, RenderRejected, check_text
from vector_gym.svg.color import parse_css_color

__all__ = ["RenderBatch", "render_many", "render_one", "shutdown_pools", "get_pool", "MAX_SIDE"]

MAX_SIDE = 8192
"""Largest accepted canvas side, in pixels."""


@dataclass(frozen=True, eq=False)
class RenderBatch:
    """The pixels of a batch of documents and the outcome of each.

    Attributes
    ----------
    images : numpy.ndarray
        ``(N, H, W, 3)`` uint8, sRGB (gamma-encoded) composited on the background; a failed item
        is a plain background image.
    ok : numpy.ndarray
        ``(N,)`` bool, True where the document rendered.
    errors : tuple of (str or None)
        ``None`` for a rendered item, else one name from
        :data:`vector_gym.render.reasons.REASONS`.
    drawn_by : tuple of (str or None)
        The backend that drew each item: ``"skia"``, ``"resvg"`` (also for a document that
        backend ``"skia"`` routed to resvg because the skia path cannot draw one of its
        features, :func:`vector_gym.svg.normalise.capability.skia_unsupported`) or
        ``"cairosvg"``; ``None`` for a failed item. Empty when the batch was not drawn here
        (an older cache entry).
    """

    images: np.ndarray
    ok: np.ndarray
    errors: tuple[str | None, ...]
    drawn_by: tuple[str | None, ...] = ()

    def __len__(self) -> int:
        return len(self.errors)


_pools: dict[tuple[int, int, int | None], RenderPool] = {}
_pools_lock = threading.Lock()


_STAGE_DOCS = 16  # documents staged together with processes=0 (a worker's message holds 16)


def get_pool(processes: int | None = None, memory_mb: int | None = 2048) -> RenderPool:
    """Return the shared persistent pool for these settings, starting it on first use.

    Parameters
    ----------
    processes : int, optional
        Worker count; ``None`` for ``os.cpu_count()``.
    memory_mb : int or None
        Per-worker address-space limit in MiB.

    Returns
    -------
    RenderPool
        Closed by :func:`shutdown_pools` or at interpreter exit.
    """
    n = (os.cpu_count() or 1) if processes is None else processes
    key = (os.getpid(), n, memory_mb)  # a forked child starts its own pool
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None or pool.closed:
            pool = _pools[key] = RenderPool(n, memory_mb=memory_mb)
        return pool


def shutdown_pools() -> None:
    """Close every shared pool started by :func:`render_many` (workers and shared memory)."""
    with _pools_lock:
        for pool in _pools.values():
            pool.close()
        _pools.clear()


def _background_rgb(background) -> tuple[int, int, int]:
    if isinstance(background, str):
        rgba = parse_css_color(background)
        if rgba is None or rgba[3] < 1.0:
            raise ConfigError(f"background: expected an opaque CSS colour, got {background!r}")
        return tuple(int(round(c * 255)) for c in rgba[:3])  # type: ignore[return-value]
    try:
        r, g, b = (int(c) for c in background)
    except (TypeError, ValueError):
        raise ConfigError(
            f"background: expected a CSS colour or an (r, g, b) tuple, got {background!r}"
        ) from None
    if not all(0 <= c <= 255 for c in (r, g, b)):
        raise ConfigError(f"background: expected components in 0..255, got {background!r}")
    return (r, g, b)


def _check_size(size, name: str = "size", max_side: int = MAX_SIDE) -> tuple[int, int]:
    """``(H, W)`` of two ints (Python or NumPy, not bool) in ``1..max_side``; a float or a
    string is refused, not truncated or parsed. Raises ConfigError naming ``name``."""
    try:
        h, w = size
    except (TypeError, ValueError):
        raise ConfigError(f"{name}: expected (H, W) ints, got {size!r}") from None
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in (h, w)):
        raise ConfigError(f"{name}: expected (H, W) ints, got {size!r}")
    h, w = int(h), int(w)
    if not (1 <= h <= max_side and 1 <= w <= max_side):
        raise ConfigError(f"{name}: expected sides in 1..{max_side}, got {size!r}")
    return (h, w)


def render_many(
    svgs: Sequence[str | bytes],
    size: tuple[int, int] = (224, 224),
    background: str | tuple[int, int, int] = "white",
    backend: str = "skia",
    processes: int | None = None,
    timeout_s: float = 10.0,
    memory_mb: int | None = 2048,
    limits: RenderLimits | None = None,
) -> RenderBatch:
    """Rasterise a batch of SVG documents to RGB arrays, isolating hostile ones.

    Each document is fitted to the canvas as a browser fits an outermost ``<svg>`` (its
    ``viewBox`` and ``preserveAspectRatio``; absolute ``width``/``height`` without a ``viewBox``
    become one, so the drawing still fills the canvas), drawn on an opaque background and read
    back as RGB. With the default ``skia`` backend the document is first normalised
    (:func:`vector_gym.svg.normalise.simplify`), which fixes what skia's SVG module draws wrongly.

    Parameters
    ----------
    svgs : sequence of str or bytes
        The documents (bytes must be UTF-8). Anything else fails as ``not_text``.
    size : (int, int), default (224, 224)
        Canvas height and width in pixels (1 to :data:`MAX_SIDE`).
    background : str or (int, int, int), default "white"
        Opaque CSS colour or 0-255 sRGB triple.
    backend : {"skia", "skia-strict", "resvg", "cairosvg"}, default "skia"
        The rasteriser. ``skia`` hands the documents the skia path cannot draw faithfully
        (:func:`vector_gym.svg.normalise.capability.skia_unsupported`: text, images, blend
        modes, some filter primitives and inputs, CSS filter functions, ``context-fill``,
        markers with ``paint-order``) to resvg, a required dependency, and records it in
        ``drawn_by``; ``skia-strict`` never does. cairosvg needs the ``[render]`` extra.
    processes : int, optional
        ``None``: the shared persistent pool with ``os.cpu_count()`` workers; ``k >= 1``: the
        shared pool with ``k`` workers; ``0``: render in this process, without the memory limit
        and watchdog (for debugging). The pre-check is the same: every bound that can be checked
        before drawing (depth, ``<use>`` fan-out, ``data:`` documents, raster ``data:`` image
        sizes from their headers, selector matching work) holds in this process too.
    timeout_s : float, default 10.0
        Per-document watchdog, in seconds (pool only).
    memory_mb : int or None, default 2048
        Per-worker address-space limit, in MiB (pool only).
    limits : RenderLimits, optional
        Pre-check bounds (size, depth, element count, ``<use>`` expansion, path data).

    Returns
    -------
    RenderBatch
        ``images`` ``(N, H, W, 3)`` uint8 sRGB on the background, ``ok`` ``(N,)`` bool and
        ``errors`` (a name from :data:`vector_gym.render.reasons.REASONS` per failed item) and
        ``drawn_by`` (the backend that drew each item).

    Raises
    ------
    vector_gym.errors.ConfigError
        For a bad ``size``, ``background``, ``backend`` or ``processes`` (never for a document).

    Examples
    --------
    >>> batch = render_many(['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2">'
    ...                      '<rect width="1" height="2" fill="red"/></svg>', "<svg"],
    ...                     size=(2, 2), processes=0)
    >>> batch.images.shape, batch.images.dtype, batch.ok.tolist(), batch.errors
    ((2, 2, 2, 3), dtype('uint8'), [True, False], (None, 'not_well_formed'))
    >>> batch.images[0, 0].tolist()
    [[255, 0, 0], [255, 255, 255]]
    """
    h, w = _check_size(size)
    bg = _background_rgb(background)
    if backend not in BACKENDS:
        raise ConfigError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    if processes is not None and (not isinstance(processes, int) or processes < 0):
        raise ConfigError(f"processes: expected None or an int >= 0, got {processes!r}")
    if not (timeout_s > 0):
        raise ConfigError(f"timeout_s: expected > 0, got {timeout_s!r}")
    lim = DEFAULT_LIMITS if limits is None else limits
    svgs = list(svgs)
    if processes == 0:
        images = np.empty((len(svgs), h, w, 3), dtype=np.uint8)
        errors: list[str | None] = []
        drawn: list[str | None] = []
        # As a render worker does with a message: the bounded first stage of a few documents,
        # then each drawn (backends.begin_documents: better use of the processor's caches).
        for a in range(0, len(svgs), _STAGE_DOCS):
            texts: dict[int, str | bytes] = {}
            for i in range(a, min(a + _STAGE_DOCS, len(svgs))):
                try:
                    texts[i] = check_text(svgs[i], lim)
                except RenderRejected as exc:
                    images[i] = bg
                    errors.append(exc.reason)
                    drawn.append(None)
                    continue
                errors.append(None)
                drawn.append(None)
            staged = begin_documents(list(texts.values()), (h, w), backend, lim)
            for i, item in zip(texts, staged, strict=True):
                err, by = end_document(item, images[i], bg, backend, lim)
                if err is not None:
                    images[i] = bg
                errors[i] = err
                drawn[i] = by
        ok = np.array([e is None for e in errors], dtype=bool)
        return RenderBatch(images, ok, tuple(errors), tuple(drawn))
    pool = get_pool(processes, memory_mb)
    images, ok, errs, drawn_by = pool.render(
        svgs, (h, w), bg, backend, timeout_s, lim, with_drawn_by=True
    )
    return RenderBatch(images, ok, errs, drawn_by)


def render_one(
    svg: str | bytes,
    size: tuple[int, int] = (224, 224),
    background: str | tuple[int, int, int] = "white",
    backend: str = "skia",
    processes: int | None = None,
    timeout_s: float = 10.0,
    memory_mb: int | None = 2048,
    limits: RenderLimits | None = None,
) -> tuple[np.ndarray, str | None]:
    """Rasterise one document; see :func:`render_many` for the parameters.

    Returns
    -------
    image : numpy.ndarray
        ``(H, W, 3)`` uint8 sRGB on the background (plain background on failure).
    error : str or None
        ``None``, or the failure's name from :data:`vector_gym.render.reasons.REASONS`.

    Examples
    --------
    >>> image, error = render_one("<svg xmlns='http://www.w3.org/2000/svg'/>", (4, 4), processes=0)
    >>> image.shape, int(image.min()), error
    ((4, 4, 3), 255, None)
    """
    batch = render_many([svg], size, background, backend, processes, timeout_s, memory_mb, limits)
    return batch.images[0], batch.errors[0]
