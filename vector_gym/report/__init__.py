"""Static HTML reports of runs: leaderboard, operation-family heat map, plots, task pages.

``vector-gym report RUN.jsonl [...] --out DIR`` and ``vector-gym eval ... --report DIR`` call
:func:`build_report`. Layer 6: reads run files written by :mod:`vector_gym.rollout`, numbers
from :mod:`vector_gym.summary`, pictures from :func:`vector_gym.render.render_many`; no scoring
logic of its own.
"""

from __future__ import annotations

__all__ = ["build_report", "ReportResult", "Run", "load_runs"]


def __getattr__(name: str):
    # Lazy: importing vector_gym.report must not pull in lxml/numpy/matplotlib eagerly.
    if name in ("build_report", "ReportResult"):
        from vector_gym.report import build

        return getattr(build, name)
    if name in ("Run", "load_runs"):
        from vector_gym.report import runs

        return getattr(runs, name)
    raise AttributeError(f"module 'vector_gym.report' has no attribute {name!r}")
