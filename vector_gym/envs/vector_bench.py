"""``vector_gym/VectorBench-v0``: :class:`EditEnv` on the ``vector_bench`` suite.

The scalar reward is the suite's (:mod:`vector_gym.suites.vector_bench`):
``specification_reward + progress_weight * repair_progress`` with ``progress_weight = 0.2``;
``info["report"]`` always carries the unshaped report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from vector_gym.envs.base import DEFAULT_MAX_RESPONSE_CHARS, EditEnv
from vector_gym.envs.wrappers import env_factory
from vector_gym.rewards.spec import SpecRewardScorer
from vector_gym.suites import get_suite
from vector_gym.suites.vector_bench import DEFAULT_PROGRESS_WEIGHT
from vector_gym.tasks.task import Task

__all__ = ["DEFAULT_PROGRESS_WEIGHT", "SpecRewardScorer", "VectorBenchEnv", "make_vector_bench_env"]


class VectorBenchEnv(EditEnv):
    """Vector-Bench repair episodes with the specification reward.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled sv_001-sv_020; a path (public repository layout, or JSON Lines
        of task objects) is loaded with the suite's loader.
    parity : bool
        Score in parity mode (reference defects and extraction rule, spec-reward.md section 16).
    progress_weight : float
        Weight of ``repair_progress`` in the scalar reward; default 0.2.
    max_response_chars, task_order, render_mode
        See :class:`~vector_gym.envs.base.EditEnv`.

    Raises
    ------
    ConfigError
        ``progress_weight`` negative or not finite; see also :class:`EditEnv`.

    Examples
    --------
    >>> env = VectorBenchEnv()
    >>> obs, info = env.reset(options={"task_id": "sv_005"})
    >>> sorted(obs), info["task_id"]
    (['instruction', 'svg'], 'sv_005')
    >>> obs, reward, terminated, truncated, info = env.step(obs["svg"])  # unchanged source
    >>> reward, terminated, info["report"]["repair_pass"], info["report"]["preservation_pass"]
    (0.0, True, False, True)
    """

    env_id = "vector_gym/VectorBench-v0"

    def __init__(
        self,
        tasks: Sequence[Task] | str | Path | None = None,
        parity: bool = False,
        progress_weight: float = DEFAULT_PROGRESS_WEIGHT,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
    ) -> None:
        suite = get_suite("vector_bench", parity=bool(parity), progress_weight=progress_weight)
        if isinstance(tasks, str | Path):
            tasks = suite.load_tasks(tasks)
        self.parity = suite.parity
        self.progress_weight = suite.progress_weight
        super().__init__(
            suite, tasks=tasks, max_response_chars=max_response_chars, task_order=task_order, render_mode=render_mode
        )


make_vector_bench_env = env_factory(VectorBenchEnv)
