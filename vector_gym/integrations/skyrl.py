"""SkyRL: a ``skyrl_gym`` ``BaseTextEnv`` over any suite, and the dataset rows it reads.

Layer 7. ``skyrl_gym`` (0.4.0) is imported only by :func:`register_env` and the env class
(``pip install "vector-gym[skyrl]"``)::

    from vector_gym.integrations.skyrl import register_env, skyrl_rows
    register_env()                                        # skyrl_gym id "vector_gym"
    rows = skyrl_rows("repairgen", split="train", n=1000, max_turns=3)
    env = skyrl_gym.make("vector_gym", extras=rows[0])
    prompt, _ = env.init(rows[0]["prompt"])
    out = env.step(model_answer)   # observations: the feedback message to append (or [])

Rows (``skyrl_rows``): ``data_source`` (suite name), ``prompt`` (the suite's opening messages),
``env_class`` ("vector_gym"), ``reward_spec`` ``{"method": "rule", "ground_truth": <task
JSON>}``, ``extra_info`` ``{"task_id", "task_hash", "action_format", "max_turns"}`` (SkyRL
passes the row to the env as ``extras``).

Rewards: each step returns the step reward R_t - R_(t-1) (R_t = ``suite.reward``; the sum over
an episode is the last answer's reward); ``metadata`` carries the absolute ``reward``, the
``report`` and ``passed`` (``report.reward >= 1``), and :meth:`get_metrics` reports ``passed``
per episode: success is the absolute gate, never a positive delta. ``binary_reward=True`` (env
config or extras) rewards the pass gate alone (0/1 at the last step), for trainers whose
``pass_at_n`` counts any positive reward as a pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.integrations._episode import (
    EditSession,
    check_action_format,
    first_messages,
    resolve_suite,
)
from vector_gym.integrations.verl import task_from_ground_truth, task_json
from vector_gym.tasks.task import Task

__all__ = ["ENV_ID", "register_env", "skyrl_rows"]

ENV_ID = "vector_gym"


def skyrl_rows(
    suite: Any,
    *,
    split: str | None = None,
    tasks: Sequence[Task] | None = None,
    action_format: str = "svg",
    max_turns: int = 1,
    **task_options: Any,
) -> list[dict[str, Any]]:
    """Dataset rows for SkyRL (module docstring); write them with ``datasets`` to parquet."""
    suite = resolve_suite(suite)
    check_action_format(action_format)
    task_list = list(tasks) if tasks is not None else suite.tasks(split, **task_options)
    return [
        {
            "data_source": suite.name,
            "prompt": first_messages(suite, t, action_format=action_format, multi_turn=max_turns > 1),
            "env_class": ENV_ID,
            "reward_spec": {"method": "rule", "ground_truth": task_json(t)},
            "extra_info": {"task_id": t.task_id, "task_hash": t.integrity_hash, "action_format": action_format,
                           "max_turns": int(max_turns)},
        }
        for t in task_list
    ]


def _env_class() -> type:
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

    class VectorGymTextEnv(BaseTextEnv):
        """An editing episode of one task (module docstring): ``init`` then ``step`` per answer."""

        def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
            super().__init__()
            extras = dict(extras or {})
            config = dict(env_config or {}) if isinstance(env_config, Mapping) else {}
            info = dict(extras.get("extra_info") or {})
            self.suite = resolve_suite(str(extras.get("data_source") or config.get("suite")))
            task = task_from_ground_truth(dict(extras["reward_spec"])["ground_truth"], info.get("task_hash"))
            self.max_turns = int(info.get("max_turns") or config.get("max_turns") or 1)
            self.binary_reward = bool(extras.get("binary_reward", config.get("binary_reward", False)))
            self.session = EditSession(self.suite, task, action_format=info.get("action_format") or "svg",
                                       max_turns=self.max_turns)

        def step(self, action: str) -> BaseTextEnvStepOutput:
            r = self.session.answer(action)
            self.turns = r.turn
            if self.binary_reward:
                reward = float(r.passed) if r.done else 0.0
            else:
                reward = r.step_reward
            return BaseTextEnvStepOutput(observations=[r.message] if r.message else [], reward=reward,
                                         done=r.done, metadata=r.info())

        def get_metrics(self) -> dict[str, Any]:
            s = self.session
            return {"passed": float(s.passed), "reward": float(s.reward), "turns": s.turn}

    VectorGymTextEnv.__module__ = __name__
    VectorGymTextEnv.__qualname__ = "VectorGymTextEnv"
    return VectorGymTextEnv


def register_env(env_id: str = ENV_ID) -> str:
    """Register the env with ``skyrl_gym`` (idempotent); returns the id for ``skyrl_gym.make``."""
    from skyrl_gym.envs.registration import register, registry

    if env_id not in registry:
        register(id=env_id, entry_point="vector_gym.integrations.skyrl:VectorGymTextEnv")
    return env_id


def __getattr__(name: str) -> Any:
    if name == "VectorGymTextEnv":
        cls = _env_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
