"""Vector-Bench (Gupta & Hebbar 2026): 20 bundled repair tasks scored by the specification reward.

Scalar reward (``Suite.reward``, the env's step reward)
-------------------------------------------------------
``reward = specification_reward + progress_weight * repair_progress``, with
``specification_reward`` in {0, 1} (spec-reward.md section 11) and ``repair_progress`` in
[0, 1] (mean per-check progress q, section 8.4; 0 for invalid outputs). The default
``progress_weight = 0.2`` keeps the binary contract dominant: every full pass scores at least
1.0 and every failure at most 0.2, so no amount of partial progress outranks a pass, while a
GRPO group in which nothing passes still gets a gradient from partial repairs.
``progress_weight = 0`` gives the paper's binary reward. Non-finite parts count 0.

Extraction: ours (spec-reward.md section 2, "default"), or the published runner's with
``parity=True``. Templates: the Vector-Bench system rules + repair request (protocols.md).
Token budget: ``max(8192, len(source) // 2 + 2048)`` (protocols.md, the public runner's rule).
Summary: Full, Near, Repair, Progress, Clean, UCR, Valid, Wilson CI of Full, Err. (Table 3).
"""

from __future__ import annotations

import math
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.suites import CorpusSuite, Suite, _field, _finite, register_suite
from vector_gym.suites.templates import VECTOR_BENCH, VECTOR_BENCH_PATCH
from vector_gym.tasks.task import Task

__all__ = ["DEFAULT_PROGRESS_WEIGHT", "SpecSuite", "VectorBenchSuite", "spec_reward"]

#: Default weight of the dense repair progress in the scalar reward (module docstring).
DEFAULT_PROGRESS_WEIGHT = 0.2


def spec_reward(report: Any, progress_weight: float = DEFAULT_PROGRESS_WEIGHT) -> float:
    """``report.reward + progress_weight * report.repair_progress`` (non-finite parts count 0).

    Examples
    --------
    >>> spec_reward({"reward": 1.0, "repair_progress": 1.0}), spec_reward({"reward": 0.0, "repair_progress": 0.5}, 0.0)
    (1.2, 0.0)
    """
    return _finite(_field(report, "reward", 0.0)) + progress_weight * _finite(
        _field(report, "repair_progress", 0.0) or 0.0
    )


def _check_weight(progress_weight: Any) -> float:
    try:
        pw = float(progress_weight)
    except (TypeError, ValueError):
        raise ConfigError(f"progress_weight: expected a number >= 0, got {progress_weight!r}") from None
    if not math.isfinite(pw) or pw < 0:
        raise ConfigError(f"progress_weight: expected a finite number >= 0, got {progress_weight!r}")
    return pw


class SpecSuite(Suite):
    """Base of the suites scored by the specification reward (Vector-Bench, RepairGen).

    Options: ``parity`` (bool, reference defects and extraction rule), ``progress_weight``
    (float >= 0, default 0.2), ``processes`` (scoring pool size for batches).
    """

    def __init__(self, name: str, *, parity: bool = False, progress_weight: float = DEFAULT_PROGRESS_WEIGHT,
                 processes: int | None = None, **parts: Any) -> None:
        self.parity = bool(parity)
        self.progress_weight = _check_weight(progress_weight)
        self.processes = processes
        options = {"parity": self.parity, "progress_weight": self.progress_weight, "processes": processes}
        parts.setdefault("templates", {"svg": VECTOR_BENCH, "patch": VECTOR_BENCH_PATCH})
        super().__init__(name, options={**options, **parts.pop("options", {})}, **parts)

    def extract(self, response: Any) -> str | None:
        """The specification reward's rule (``reference`` in parity mode, spec-reward.md §2)."""
        from vector_gym.rewards.spec import MAX_RESPONSE_CHARS
        from vector_gym.svg.extract import extract_svg

        if not isinstance(response, str) or len(response) > MAX_RESPONSE_CHARS:
            return None
        return extract_svg(response, rule="reference" if self.parity else "default")

    def make_scorer(self) -> Any:
        from vector_gym.rewards.spec import SpecRewardScorer

        return SpecRewardScorer(parity=self.parity, processes=self.processes)

    def score_extracted(self, tasks: Any, svgs: Any) -> list[Any]:
        """Score stored SVGs as they are (:meth:`~vector_gym.rewards.spec.SpecScorer.score`)."""
        from vector_gym.rewards.spec import get_scorer

        return [get_scorer(t, parity=self.parity).score(svg) for t, svg in zip(tasks, svgs, strict=True)]

    def reward(self, report: Any) -> float:
        """``specification_reward + progress_weight * repair_progress`` (module docstring)."""
        return spec_reward(report, self.progress_weight)


class VectorBenchSuite(CorpusSuite, SpecSuite):
    """The bundled Vector-Bench tasks sv_001-sv_020 (one split, ``"test"``)."""

    def __init__(self, *, tasks: Any = None, **options: Any) -> None:
        self._source = tasks
        super().__init__(
            "vector_bench",
            aliases=("vector-bench", "vectorbench"),
            env_id="vector_gym/VectorBench-v0",
            family="vector-bench",
            splits=("test",),
            description="Vector-Bench: 20 visual repair tasks, specification reward",
            **options,
        )
        if tasks is not None:
            self.options["tasks"] = tasks

    def _load(self, source: Any) -> list[Task]:
        """Vector-Bench tasks from a folder in the public layout or JSON Lines (None: bundled)."""
        from vector_gym.tasks.vector_bench import load_vector_bench

        return load_vector_bench(source)


register_suite(VectorBenchSuite())
