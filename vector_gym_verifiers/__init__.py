"""The verifiers environment id ``vector-gym-verifiers`` (``vector_gym_verifiers``).

verifiers loads an environment by id from a top-level module: the v1 API takes the one
``Taskset`` and the one ``Env`` subclass this module exports in ``__all__``; the classic API
calls its ``load_environment``. Everything lives in :mod:`vector_gym.integrations.verifiers`
(``verifiers`` imported only when a name is read)::

    vf-eval vector-gym-verifiers -a '{"suite": "repairgen", "max_turns": 3}'
"""

from __future__ import annotations

from typing import Any

__all__ = ["VectorGymTaskset", "VectorGymEnv", "load_environment"]


def load_environment(**kwargs: Any) -> Any:
    """Classic verifiers environment (:func:`vector_gym.integrations.verifiers.load_environment`)."""
    from vector_gym.integrations.verifiers import load_environment as load

    return load(**kwargs)


def __getattr__(name: str) -> Any:
    if name in ("VectorGymTaskset", "VectorGymEnv", "VectorGymConfig", "VectorGymTask"):
        from vector_gym.integrations import verifiers

        return getattr(verifiers, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
