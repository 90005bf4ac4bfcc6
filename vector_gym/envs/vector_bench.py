"""``vector_gym/VectorBench-v0``: Vector-Bench repair tasks scored by the specification reward.

One episode = one task: the policy sees the repair instruction and the corrupted
SVG and answers once; :mod:`vector_gym.rewards.spec` extracts and scores the answer
(validity, repair and preservation gates, spec-reward.md sections 10-11).

Scalar reward
-------------
``reward = specification_reward + progress_weight * repair_progress``, with
``specification_reward`` in {0, 1} (spec-reward.md section 11) and
``repair_progress`` in [0, 1] (mean per-check progress q, section 8.4; 0 for invalid
outputs). The default ``progress_weight = 0.2`` keeps the binary contract
dominant: every full pass scores at least 1.0 and every failure at most 0.2, so no
amount of partial progress outranks a pass, while a GRPO group in which nothing
passes still gets a gradient from partial repairs. ``progress_weight = 0`` gives
the paper's binary reward. ``info["report"]`` always carries the unshaped report.

References
----------
Gupta & Hebbar 2026, *Vector-Bench*, section 4 (binary specification reward, repair
progress); ``spec-reward.md`` sections 8.4, 11.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from vector_gym.envs.base import DEFAULT_MAX_RESPONSE_CHARS, EditEnv, Report
from vector_gym.errors import ConfigError
from vector_gym.tasks.task import Task
from vector_gym.tasks.vector_bench import load_vector_bench

__all__ = ["DEFAULT_PROGRESS_WEIGHT", "SpecRewardScorer", "VectorBenchEnv"]

#: Default weight of the dense repair progress in the scalar reward (see module docstring).
DEFAULT_PROGRESS_WEIGHT = 0.2


class SpecRewardScorer:
    """Adapter from :mod:`vector_gym.rewards.spec` to the env scorer protocol.

    Parameters
    ----------
    parity : bool
        Reproduce the reference evaluator's defects (spec-reward.md section 16).

    Notes
    -----
    Picklable (holds only ``parity``); the per-task cache lives in
    ``vector_gym.rewards.spec.get_scorer``.
    """

    def __init__(self, parity: bool = False) -> None:
        self.parity = bool(parity)

    def score_response(self, task: Task, response: str) -> Report:
        """Extract the SVG from ``response`` and score it (never raises for policy output)."""
        from vector_gym.rewards.spec import get_scorer

        return get_scorer(task, parity=self.parity).score_response(response)

    def prepare(self, tasks: Sequence[Task]) -> None:
        """Build the per-task scorers now (:func:`vector_gym.rewards.spec.prepare_scorers`)."""
        from vector_gym.rewards.spec import prepare_scorers

        prepare_scorers(tasks, self.parity)

    def __repr__(self) -> str:
        return f"SpecRewardScorer(parity={self.parity})"


class VectorBenchEnv(EditEnv):
    """Vector-Bench repair episodes with the specification reward.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled sv_001-sv_020; a path (directory in the public
        repository's layout, or JSON Lines of task objects) is loaded with
        :func:`vector_gym.tasks.vector_bench.load_vector_bench`.
    parity : bool
        Score in parity mode (reference defects reproduced, spec-reward.md section 16).
    progress_weight : float
        Weight of ``repair_progress`` in the scalar reward; default 0.2 (module docstring).
    max_response_chars : int
        ``max_length`` of the action space; longer responses are not scored (reward 0).
    task_order : {"random", "sequential"}
        See :class:`~vector_gym.envs.base.EditEnv`.
    render_mode : None
    action_format : {"svg", "patch"}
        Whole-SVG answers or JSON edit scripts (:mod:`vector_gym.envs.patch`).
    max_turns : int
        Answers per episode; > 1 makes the episode multi-turn (:meth:`EditEnv.step`).
    render_observation : (int, int), optional
        Add the rendered current SVG as ``obs["image"]`` (``(H, W, 3)`` uint8), for
        vision-language policies; see :class:`~vector_gym.envs.base.EditEnv`.

    Raises
    ------
    ConfigError
        ``progress_weight`` negative or not finite; see also :class:`EditEnv`.

    Examples
    --------
    >>> import gymnasium, vector_gym
    >>> env = gymnasium.make("vector_gym/VectorBench-v0")
    >>> obs, info = env.reset(options={"task_id": "sv_005"})
    >>> sorted(obs), info["task_id"]
    (['instruction', 'svg'], 'sv_005')
    >>> obs, reward, terminated, truncated, info = env.step(obs["svg"])  # unchanged source
    >>> reward, terminated, info["report"]["repair_pass"], info["report"]["preservation_pass"]
    (0.0, True, False, True)
    """

    env_id = "vector_gym/VectorBench-v0"
    default_family = "vector-bench"

    def __init__(
        self,
        tasks: Sequence[Task] | str | Path | None = None,
        parity: bool = False,
        progress_weight: float = DEFAULT_PROGRESS_WEIGHT,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
        action_format: Literal["svg", "patch"] = "svg",
        max_turns: int = 1,
        render_observation: tuple[int, int] | None = None,
    ) -> None:
        if isinstance(tasks, str | Path) or tasks is None:
            tasks = load_vector_bench(tasks)
        try:
            pw = float(progress_weight)
        except (TypeError, ValueError):
            raise ConfigError(
                f"progress_weight: expected a number >= 0, got {progress_weight!r}"
            ) from None
        if not math.isfinite(pw) or pw < 0:
            raise ConfigError(
                f"progress_weight: expected a finite number >= 0, got {progress_weight!r}"
            )
        self.parity = bool(parity)
        self.progress_weight = pw
        super().__init__(
            tasks,
            SpecRewardScorer(parity=self.parity),
            max_response_chars=max_response_chars,
            task_order=task_order,
            render_mode=render_mode,
            action_format=action_format,
            max_turns=max_turns,
            render_observation=render_observation,
        )

    @staticmethod
    def load_tasks(source: str | Path | None = None) -> list[Task]:
        """Load Vector-Bench tasks (bundled when ``source`` is None); used by the CLI's ``--tasks``."""
        return load_vector_bench(source)

    def reward_from_report(self, report: Any) -> float:
        """Return ``report.reward + progress_weight * report.repair_progress`` (non-finite parts count 0)."""
        reward = float(report.reward)
        progress = float(getattr(report, "repair_progress", 0.0) or 0.0)
        if not math.isfinite(reward):
            reward = 0.0
        if not math.isfinite(progress):
            progress = 0.0
        return reward + self.progress_weight * progress
