"""Compatibility name of :mod:`vector_gym.svg.normalise` (the normaliser, split by concern).

``from vector_gym.svg.simplify import simplify`` keeps working; new code imports from
:mod:`vector_gym.svg.normalise`.
"""

from __future__ import annotations

from vector_gym.svg import normalise as _normalise
from vector_gym.svg.normalise import *  # noqa: F403 - the same public names

__all__ = list(_normalise.__all__)
