"""Layer 4: scorers. One report type per scorer; batch scoring with ``score_many``.

- :mod:`vector_gym.rewards.spec`: the Vector-Bench three-gate specification reward
  (:class:`~vector_gym.rewards.spec.SpecScorer`, :func:`~vector_gym.rewards.spec.score`,
  :func:`~vector_gym.rewards.spec.score_response`, :func:`~vector_gym.rewards.spec.score_many`)
  returning :class:`~vector_gym.rewards.report.SpecReport`; failure names in
  :mod:`vector_gym.rewards.failures`.
- :mod:`vector_gym.rewards.raster`: raster metrics (SVGEditBench).

Names are imported lazily, so ``import vector_gym.rewards`` stays light.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = [
    "SpecScorer",
    "SpecReport",
    "CheckReport",
    "get_scorer",
    "score",
    "score_response",
    "score_many",
]

_LAZY = {
    "SpecScorer": "vector_gym.rewards.spec",
    "get_scorer": "vector_gym.rewards.spec",
    "score": "vector_gym.rewards.spec",
    "score_response": "vector_gym.rewards.spec",
    "score_many": "vector_gym.rewards.spec",
    "SpecReport": "vector_gym.rewards.report",
    "CheckReport": "vector_gym.rewards.report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vector_gym.rewards' has no attribute {name!r}")
    return getattr(import_module(module), name)
