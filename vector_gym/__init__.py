"""vector_gym: instruction-based SVG editing as reinforcement-learning environments.

Light on import: heavy dependencies (skia, torch, transformers, vllm) are imported
lazily by the modules that need them. Importing ``vector_gym`` registers the
Gymnasium environment ids (``vector_gym/VectorBench-v0`` and friends) and the built-in suites
(``vector_gym.suites``).
"""

from __future__ import annotations

__version__ = "0.1.0"

from vector_gym.errors import VectorGymError  # noqa: E402

__all__ = ["__version__", "VectorGymError"]

try:  # registration is cheap: entry points are "module:Class" strings
    from vector_gym.envs import register_envs as _register_envs

    _register_envs()
except ImportError:  # pragma: no cover - envs layer not built yet / gymnasium missing
    pass

# The built-in suites register their chat templates and token budgets as the policies' defaults.
from vector_gym.suites import _load_builtins as _load_suites  # noqa: E402

_load_suites()
