"""A small in-memory cache of renders that depend only on the task (targets, sources)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from vector_gym.render import reasons
from vector_gym.render.batch import RenderBatch, _background_rgb, _check_size, render_many

__all__ = ["RenderCache"]


# Outcomes that say more about the machine at that moment (load, a killed worker) than about the
# document: returned, never cached, so the next request draws the document again.
_TRANSIENT = frozenset({reasons.TIMEOUT, reasons.WORKER_CRASHED})


def _digest(svg: str | bytes) -> str:
    data = svg.encode("utf-8", "surrogatepass") if isinstance(svg, str) else bytes(svg)
    return hashlib.sha256(data).hexdigest()


class RenderCache:
    """Least-recently-used cache of rendered images, keyed by (SVG hash, size, background, backend).

    Target renders are computed once per task and reused at every step (issue 3). Stored images
    are read-only views; copy before modifying. A render that failed with ``timeout`` or
    ``worker_crashed`` is returned but not stored (the next request draws it again).

    Parameters
    ----------
    max_items : int, default 4096
        Largest number of cached images (224 x 224 x 3 bytes each = 147 KiB; 4096 = 0.6 GiB).
    **render_kwargs
        Passed to :func:`vector_gym.render.render_many` for misses (``processes``,
        ``timeout_s``, ``memory_mb``, ``limits``).

    Examples
    --------
    >>> cache = RenderCache(max_items=2, processes=0)
    >>> svg = "<svg xmlns='http://www.w3.org/2000/svg'/>"
    >>> a = cache.get(svg, (4, 4)); b = cache.get(svg, (4, 4))
    >>> a[0] is b[0], cache.hits, cache.misses
    (True, 1, 1)
    """

    def __init__(self, max_items: int = 4096, **render_kwargs) -> None:
        if not isinstance(max_items, int) or max_items < 1:
            raise ValueError(f"max_items: expected an int >= 1, got {max_items!r}")
        self.max_items = max_items
        self.render_kwargs = render_kwargs
        self._items: OrderedDict[tuple, tuple[np.ndarray, str | None]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        """Drop every cached image."""
        with self._lock:
            self._items.clear()

    def get_many(
        self,
        svgs: Sequence[str | bytes],
        size: tuple[int, int] = (224, 224),
        background: str | tuple[int, int, int] = "white",
        backend: str = "skia",
    ) -> RenderBatch:
        """Return renders of ``svgs``, drawing only the ones not cached yet (in one batch).

        Returns
        -------
        RenderBatch
            As :func:`vector_gym.render.render_many` returns it; ``images`` is a fresh
            ``(N, H, W, 3)`` uint8 array.
        """
        h, w = _check_size(size)
        entries, _ = self.get_with(svgs, (), (h, w), background, backend)
        n = len(svgs)
        images = np.empty((n, h, w, 3), dtype=np.uint8)
        for i, entry in enumerate(entries):
            images[i] = entry[0]
        errors = tuple(e[1] for e in entries)
        ok = np.array([e is None for e in errors], dtype=bool)
        return RenderBatch(images, ok, errors, tuple(e[2] for e in entries))

    def get_with(
        self,
        svgs: Sequence[str | bytes],
        extra: Sequence[str | bytes],
        size: tuple[int, int] = (224, 224),
        background: str | tuple[int, int, int] = "white",
        backend: str = "skia",
    ) -> tuple[list[tuple[np.ndarray, str | None, str | None]], RenderBatch]:
        """Cached renders of ``svgs`` and fresh renders of ``extra``, drawn in one render batch.

        The documents of ``svgs`` not cached yet and every document of ``extra`` go to
        :func:`vector_gym.render.render_many` together (one pool round trip); only the ``svgs``
        are cached (``extra`` is for one-off documents, e.g. a policy's answers, drawn every time).

        Returns
        -------
        entries : list of (image, error, drawn_by)
            One per ``svgs`` item: a read-only ``(H, W, 3)`` uint8 image (no copy), its error
            name or ``None``, and the backend that drew it.
        extra_batch : RenderBatch
            The renders of ``extra``, in order (as :func:`render_many` returns them).
        """
        h, w = _check_size(size)
        bg = _background_rgb(background)
        keys = [
            (_digest(s) if isinstance(s, str | bytes) else None, h, w, bg, backend) for s in svgs
        ]
        found: dict[int, tuple[np.ndarray, str | None, str | None]] = {}
        missing: list[int] = []
        with self._lock:
            for i, key in enumerate(keys):
                entry = self._items.get(key) if key[0] is not None else None
                if entry is not None:
                    self._items.move_to_end(key)
                    found[i] = entry
                    self.hits += 1
                else:
                    missing.append(i)
                    self.misses += 1
        uniq: dict[tuple, int] = {}
        for i in missing:
            uniq.setdefault(keys[i], i)
        order = list(uniq.values())
        extra = list(extra)
        if order or extra:
            batch = render_many(
                [svgs[i] for i in order] + extra, (h, w), bg, backend, **self.render_kwargs
            )
        else:
            batch = RenderBatch(np.zeros((0, h, w, 3), np.uint8), np.zeros(0, bool), (), ())
        m = len(order)
        with self._lock:
            for j, i in enumerate(order):
                img = batch.images[j].copy()
                img.setflags(write=False)
                entry = (img, batch.errors[j], batch.drawn_by[j] if batch.drawn_by else None)
                if keys[i][0] is not None and entry[1] not in _TRANSIENT:
                    self._items[keys[i]] = entry
                    self._items.move_to_end(keys[i])
                found[i] = entry
            for i in missing:
                found.setdefault(i, found[uniq[keys[i]]])
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)
        extra_batch = RenderBatch(
            batch.images[m:], batch.ok[m:], batch.errors[m:], batch.drawn_by[m:]
        )
        return [found[i] for i in range(len(svgs))], extra_batch

    def get(
        self,
        svg: str | bytes,
        size: tuple[int, int] = (224, 224),
        background: str | tuple[int, int, int] = "white",
        backend: str = "skia",
    ) -> tuple[np.ndarray, str | None]:
        """Return ``(image, error)`` for one document: the cached read-only ``(H, W, 3)`` uint8 image."""
        h, w = _check_size(size)
        bg = _background_rgb(background)
        key = (_digest(svg) if isinstance(svg, str | bytes) else None, h, w, bg, backend)
        with self._lock:
            entry = self._items.get(key) if key[0] is not None else None
            if entry is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return entry[0], entry[1]
        batch = self.get_many([svg], (h, w), bg, backend)
        with self._lock:
            entry = self._items.get(key) if key[0] is not None else None
        if entry is None:  # not text (never cached) or already evicted
            return batch.images[0], batch.errors[0]
        return entry[0], entry[1]
