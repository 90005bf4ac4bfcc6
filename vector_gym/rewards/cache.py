"""A report cache bounded in bytes (layer 4).

One :class:`ReportCache` is owned by each response scorer
(:class:`~vector_gym.rewards.spec.SpecRewardScorer`,
:class:`~vector_gym.rewards.raster.RasterScorer`): GRPO scores the same completion for
several reward functions, and a rollout may score the same answer twice (a resumed run, two
samples that agree). The cache is an LRU keyed by ``(task_id, task integrity hash, response)``
and bounded by the total UTF-8 size of the responses it keys (``max_bytes``, default 32 MiB),
not by the number of entries, so a few huge responses cannot hold gigabytes. A response
larger than ``max_item_bytes`` (default 1 MiB) is scored but never cached.

Thread-safe (one lock); picklable (a copy starts empty).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["DEFAULT_CACHE_BYTES", "ReportCache"]

#: Default bound of a :class:`ReportCache`: 32 MiB of keyed responses.
DEFAULT_CACHE_BYTES = 32 << 20


def _size(text: Any) -> int:
    if isinstance(text, str):
        return len(text.encode("utf-8", "surrogatepass"))
    if isinstance(text, bytes | bytearray):
        return len(text)
    return 64


class ReportCache:
    """LRU of reports, bounded in bytes of the keyed responses.

    Parameters
    ----------
    max_bytes : int
        Bound of the sum of the cached responses' UTF-8 sizes (>= 0; 0 disables caching).
    max_item_bytes : int
        Responses larger than this are never cached.

    Examples
    --------
    >>> c = ReportCache(max_bytes=10)
    >>> c.put(("t", "h", "abcdef"), 1); c.put(("t", "h", "ghijkl"), 2)
    >>> c.get(("t", "h", "abcdef")) is None, c.get(("t", "h", "ghijkl")), c.nbytes
    (True, 2, 6)
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES, max_item_bytes: int = 1 << 20) -> None:
        self.max_bytes = int(max_bytes)
        self.max_item_bytes = int(max_item_bytes)
        self._data: OrderedDict[tuple[Any, ...], tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._data)

    def __getstate__(self) -> dict[str, Any]:
        return {"max_bytes": self.max_bytes, "max_item_bytes": self.max_item_bytes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["max_bytes"], state["max_item_bytes"])

    def get(self, key: tuple[Any, ...]) -> Any:
        """Return the cached report of ``key`` (its last element is the response), or None."""
        with self._lock:
            hit = self._data.get(key)
            if hit is None:
                return None
            self._data.move_to_end(key)
            return hit[0]

    def put(self, key: tuple[Any, ...], report: Any) -> None:
        """Cache ``report`` under ``key`` unless its response is over ``max_item_bytes``."""
        size = _size(key[-1])
        if size > self.max_item_bytes or size > self.max_bytes:
            return
        with self._lock:
            if key in self._data:
                return
            self._data[key] = (report, size)
            self.nbytes += size
            while self._data and self.nbytes > self.max_bytes:
                _, (_, old) = self._data.popitem(last=False)
                self.nbytes -= old

    def score_many(self, tasks: Sequence[Any], responses: Sequence[Any], score: Callable[[list, list], list]) -> list:
        """Reports of ``(tasks[i], responses[i])``: cached ones, the rest from one ``score`` call.

        ``score(tasks, responses)`` gets each distinct uncached string response once (non-string
        responses are always scored); its reports are cached under ``(task_id, integrity_hash,
        response)``.
        """
        keys = [
            (t.task_id, t.integrity_hash, r) if isinstance(r, str) else None
            for t, r in zip(tasks, responses, strict=True)
        ]
        out: list[Any] = [None if k is None else self.get(k) for k in keys]
        todo: dict[Any, list[int]] = {}
        for i, k in enumerate(keys):
            if out[i] is None:
                todo.setdefault(k if k is not None else ("#", i), []).append(i)
        if todo:
            first = [idx[0] for idx in todo.values()]
            scored = score([tasks[i] for i in first], [responses[i] for i in first])
            for (k, idx), report in zip(todo.items(), scored, strict=True):
                if k[0] != "#":
                    self.put(k, report)
                for i in idx:
                    out[i] = report
        return out

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._data.clear()
            self.nbytes = 0
