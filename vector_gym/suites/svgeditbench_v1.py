"""SVGEditBench v1 (arXiv:2404.13710): 600 bundled cases in six edit kinds, scored by 72 px MSE.

Scalar reward (``Suite.reward``, the env's step reward)
-------------------------------------------------------
Every kind except Compression: ``max(0, 1 - mse / mse_source)`` (as V2), gated on an extracted
SVG that renders. Compression: ``max(0, 1 - mse / 1e-3) * max(0, 1 - compression_ratio)``
(:class:`~vector_gym.rewards.raster.RasterScorer`).

Extraction: the V2 scripts' rule. Templates: the case's stored prompt as one user message
(protocols.md). Token budget: the input-adaptive rule ``max(8192, len(source) // 2 + 2048)``.
Summary: per policy and edit kind, MSE (and the compression ratio for Compression), extraction
and parsing error rates (v1 Table 2 layout).

Options: ``kinds`` (keep only these edit kinds), ``backend``, ``processes``, ``tasks``.
"""

from __future__ import annotations

from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.suites import register_suite
from vector_gym.suites.svgeditbench_v2 import RasterSuite
from vector_gym.suites.templates import SVGEDITBENCH_V1, SVGEDITBENCH_V1_PATCH
from vector_gym.tasks.task import Task

__all__ = ["SVGEditBenchV1Suite"]


class SVGEditBenchV1Suite(RasterSuite):
    """SVGEditBench v1 cases (module docstring)."""

    benchmark = "v1"

    def __init__(self, *, tasks: Any = None, kinds: tuple[str, ...] | None = None, backend: str = "skia",
                 processes: int | None = None) -> None:
        from vector_gym.tasks.svgeditbench import V1_KINDS

        self.kinds = tuple(kinds) if kinds else None
        bad = sorted(set(self.kinds or ()) - set(V1_KINDS))
        if bad:
            raise ConfigError(f"kinds: expected edit kinds among {V1_KINDS}, got {bad}")
        super().__init__(
            "svgeditbench_v1",
            tasks=tasks,
            backend=backend,
            processes=processes,
            aliases=("svgeditbench-v1",),
            env_id="vector_gym/SVGEditBench-v1",
            family="svgeditbench-v1",
            summary="raster-v1",
            templates={"svg": SVGEDITBENCH_V1, "patch": SVGEDITBENCH_V1_PATCH},
            description="SVGEditBench v1: 600 cases in six edit kinds, 72 px MSE",
        )
        if self.kinds:
            self.options["kinds"] = self.kinds

    def _load(self, source: Any) -> list[Task]:
        from vector_gym.tasks.svgeditbench import load_svgeditbench_v1

        return load_svgeditbench_v1(source, kinds=self.kinds)

    def tasks(self, split: str | None = None, **kw: Any) -> list[Task]:
        tasks = super().tasks(split, **kw)
        if self.kinds and self._source is not None and not isinstance(self._source, str):
            tasks = [t for t in tasks if t.meta().get("edit_kind") in self.kinds]
        return tasks


register_suite(SVGEditBenchV1Suite())
