"""SVGEditBench V2 (arXiv:2502.19453): 1,683 bundled triplets scored by raster metrics.

Scalar reward (``Suite.reward``, the env's step reward)
-------------------------------------------------------
``max(0, 1 - mse / mse_source)``: the fraction of the unedited source's pixel MSE (against the
target) that the edit removed, gated on an extracted SVG that renders (0 otherwise); the
unchanged source scores 0, the exact target 1 (:class:`~vector_gym.rewards.raster.RasterScorer`).

Extraction: the V2 scripts' rule (one ```` ```svg ```` block, else one bare ``<svg>...</svg>``;
metrics-svgeditbench.md). Templates: the paper's single user message (protocols.md). Token
budget: 8,192 (the paper's vLLM setting). Summary: MSE, DINO, CLIPScore, Chamfer, extraction and
parsing error rates (V2 Table 1).

Options: ``backend`` (``"skia"``, ``"resvg"``, ``"cairosvg"`` = the paper's), ``dino_model``,
``clip_model`` (None disables), ``chamfer``, ``local_files_only``, ``device``, ``processes``
(render processes; 0 renders in this process), ``tasks`` (a path or task list).
"""

from __future__ import annotations

import os
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.rewards.embeddings import DEFAULT_CLIP_MODEL, DEFAULT_DINO_MODEL
from vector_gym.suites import CorpusSuite, register_suite
from vector_gym.suites.templates import SVGEDITBENCH_V2, SVGEDITBENCH_V2_PATCH
from vector_gym.tasks.task import Task

__all__ = ["RasterSuite", "SVGEditBenchV2Suite", "V2_TOKEN_BUDGET"]

#: Output tokens per completion: SVGEditBench V2 ran open models with vLLM at 8,192 (protocols.md).
V2_TOKEN_BUDGET = 8192


class RasterSuite(CorpusSuite):
    """Base of the SVGEditBench suites: a bundled corpus and a :class:`RasterScorer`."""

    benchmark = "v2"

    def __init__(self, name: str, *, tasks: Any = None, backend: str = "skia", processes: int | None = None,
                 scorer_options: dict[str, Any] | None = None, **parts: Any) -> None:
        if backend not in ("skia", "resvg", "cairosvg"):
            raise ConfigError(f"backend: expected 'skia', 'resvg' or 'cairosvg', got {backend!r}")
        self._source = tasks
        self.backend = backend
        self.processes = processes
        self._scorer_options = dict(scorer_options or {})
        options = {"backend": backend, "processes": processes, **self._scorer_options}
        if tasks is not None:
            options["tasks"] = tasks
        super().__init__(name, options=options, splits=("test",), **parts)

    @property
    def concurrent_scoring(self) -> bool:  # type: ignore[override]
        """Overlap scoring with the rollout when this process has a core beside the render pool's.

        True when rendering runs in a pool (``processes != 0``) whose processes leave at least
        one of this process's cores free. On 2 cores with 2 render processes every core is
        already busy, and the 4 smaller pool calls of an overlapped batch cost more than they
        hide (``benchmarks/rollout_throughput.py``: 4-12 % fewer rows/s at load 1.2-2.5).
        """
        if self.processes == 0:
            return False
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return cores > (self.processes if self.processes is not None else cores)

    def extract(self, response: Any) -> str | None:
        """The SVGEditBench V2 scripts' rule (:func:`vector_gym.svg.extract.extract_svg_v2`)."""
        from vector_gym.svg.extract import extract_svg_v2

        return extract_svg_v2(response)[0] if isinstance(response, str) else None

    def score_extracted(self, tasks: Any, svgs: Any) -> list[Any]:
        """Score stored SVGs as they are (one render batch)."""
        self.check_tasks(list(tasks))
        return self.scorer.score_many(list(tasks), list(svgs), extracted=True)

    def make_scorer(self) -> Any:
        from vector_gym.rewards.raster import RasterScorer

        return RasterScorer(self.benchmark, backend=self.backend, processes=self.processes, **self._scorer_options)


class SVGEditBenchV2Suite(RasterSuite):
    """SVGEditBench V2 triplets (module docstring)."""

    benchmark = "v2"

    def __init__(self, *, tasks: Any = None, backend: str = "skia", processes: int | None = None,
                 dino_model: str | None = DEFAULT_DINO_MODEL, clip_model: str | None = DEFAULT_CLIP_MODEL,
                 chamfer: bool = True,
                 local_files_only: bool = True, device: str = "cpu", **rest: Any) -> None:
        if rest:
            raise ConfigError(f"svgeditbench_v2: unknown option(s) {sorted(rest)}")
        scorer_options = {
            "dino_model": dino_model,
            "clip_model": clip_model,
            "chamfer": bool(chamfer),
            "local_files_only": bool(local_files_only),
            "device": device,
        }
        super().__init__(
            "svgeditbench_v2",
            tasks=tasks,
            backend=backend,
            processes=processes,
            scorer_options=scorer_options,
            aliases=("svgeditbench-v2",),
            env_id="vector_gym/SVGEditBenchV2-v0",
            family="svgeditbench-v2",
            summary="raster-v2",
            templates={"svg": SVGEDITBENCH_V2, "patch": SVGEDITBENCH_V2_PATCH},
            token_budget=V2_TOKEN_BUDGET,
            description="SVGEditBench V2: 1,683 editing triplets, raster metrics",
        )

    def _load(self, source: Any) -> list[Task]:
        from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

        return load_svgeditbench_v2(source)


register_suite(SVGEditBenchV2Suite())
