"""verifiers: a suite as a ``verifiers.v1`` taskset and multi-turn ``Env``, and a classic
``load_environment`` (``verifiers.legacy``: ``vf-eval``, prime-rl).

Layer 7. ``verifiers`` (0.3.1, which ships both APIs) is imported only when a class is built
(``pip install "vector-gym[verifiers]"``). The environment id, for both APIs, is
``vector-gym-verifiers`` (the top-level module :mod:`vector_gym_verifiers`, because verifiers
imports an id as a top-level module)::

    # v1 (taskset + env by id; config fields suite, split, n, action_format, max_turns)
    from verifiers.v1.utils.loaders import taskset_class, environment_class
    ts = taskset_class("vector-gym-verifiers")
    # classic (vf-eval vector-gym-verifiers, prime-rl)
    import verifiers as vf
    env = vf.load_environment("vector-gym-verifiers", suite="repairgen", max_turns=3)

Rewards. Both APIs record one weighted reward, ``reward`` = ``suite.reward(report)`` of the last
answer (weight 1: a rollout's reward is the suite's scalar reward, Vector-Bench 1.2 for a pass),
and metrics ``passed`` (the absolute gate ``report.reward >= 1``, the success flag) and
``specification_reward`` / ``repair_progress`` or ``raster_reward`` (the report's parts).

Multi-turn (``max_turns > 1``): after an answer that is not a pass, the editor feedback message
is appended to the same conversation (v1: the next ``interaction.turn``; classic:
``env_response``); the episode ends on a pass or after ``max_turns`` answers.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from vector_gym.integrations._episode import (
    EditSession,
    check_action_format,
    first_messages,
    resolve_suite,
)
from vector_gym.integrations.verl import task_from_ground_truth, task_json

# The two classes are defined on first access by ``__getattr__`` below (verifiers is imported lazily).
__all__ = ["VectorGymTaskset", "VectorGymEnv", "load_environment", "score_answer"]  # noqa: F822


def _parts(suite: Any, report: Any, passed: bool) -> dict[str, float]:
    data = report if isinstance(report, Mapping) else report.to_dict()
    out = {"passed": float(passed)}
    if "repair_progress" in data:
        out["specification_reward"] = float(data.get("reward") or 0.0)
        out["repair_progress"] = float(data.get("repair_progress") or 0.0)
    else:
        out["raster_reward"] = float(data.get("reward") or 0.0)
    return out


def score_answer(info: Mapping[str, Any], answer: str) -> dict[str, Any]:
    """Score one answer to the task of ``info`` (``suite``, ``task``, ``action_format``):
    ``{"reward", "report", "passed", ...parts}``."""
    suite = resolve_suite(str(info["suite"]))
    task = task_from_ground_truth(info["task"], info.get("task_hash"))
    session = EditSession(suite, task, action_format=info.get("action_format") or "svg")
    r = session.answer(answer if isinstance(answer, str) else "")
    return {"reward": r.reward, "report": r.report, "turns": 1, **_parts(suite, r.report, r.passed)}


def _infos(suite: Any, split: str | None, n: int | None, action_format: str) -> list[dict[str, Any]]:
    kw = {"n": n} if n is not None else {}
    tasks = suite.tasks(split, **kw)
    return [{"suite": suite.name, "task_id": t.task_id, "task_hash": t.integrity_hash, "task": task_json(t),
             "action_format": action_format} for t in tasks]


# ---------------------------------------------------------------------- v1


@functools.lru_cache(maxsize=1)
def _v1() -> dict[str, type]:
    import verifiers.v1 as vf

    class VectorGymConfig(vf.TasksetConfig):
        suite: str = "vector_bench"
        """Suite name, alias or env id."""
        split: str | None = None
        """Split (default: the suite's)."""
        n: int | None = None
        """Generated suites: tasks per split."""
        action_format: str = "svg"
        """``svg`` (whole document) or ``patch`` (JSON edit script)."""
        max_turns: int = 1
        """Answers per episode (multi-turn editing when > 1)."""

    class VectorGymData(vf.TaskData):
        info: dict
        """Suite, task id and hash, the task as JSON, action format, max turns."""

    class VectorGymTask(vf.Task[VectorGymData, vf.State, vf.TaskConfig]):
        @property
        def key(self) -> str:
            return f"{self.data.info['suite']}/{self.data.info['task_id']}"

        def _result(self, trace: Any) -> dict[str, Any]:
            done = trace.info.get("vector_gym")
            return done if isinstance(done, Mapping) else score_answer(self.data.info, trace.last_reply)

        @vf.reward
        async def reward(self, trace: Any) -> float:
            """``suite.reward`` of the last answer (multi-turn: recorded by the env)."""
            return float(self._result(trace)["reward"])

        @vf.metric
        async def parts(self, trace: Any) -> dict[str, float]:
            """``passed`` (absolute gate) and the report's reward parts."""
            result = self._result(trace)
            return {k: v for k, v in result.items() if k not in ("reward", "report")}

    class VectorGymTaskset(vf.Taskset[VectorGymTask, VectorGymConfig]):
        def load(self):
            c = self.config
            suite = resolve_suite(c.suite)
            check_action_format(c.action_format)
            for i, info in enumerate(_infos(suite, c.split, c.n, c.action_format)):
                task = suite.get_task(info["task_id"])
                messages = first_messages(suite, task, action_format=c.action_format, multi_turn=c.max_turns > 1)
                system = next((m["content"] for m in messages if m["role"] == "system"), None)
                user = [m for m in messages if m["role"] != "system"]
                yield VectorGymTask(
                    VectorGymData(idx=i, name=info["task_id"], prompt=user, system_prompt=system,
                                  info={**info, "max_turns": c.max_turns}),
                    self.config.task,
                )

    class VectorGymEnvConfig(vf.EnvConfig):
        agent: vf.AgentConfig = vf.AgentConfig()

    class VectorGymEnv(vf.Env[VectorGymEnvConfig]):
        """One seat; multi-turn editing with feedback turns appended to one conversation."""

        async def run(self, task: Any, agents: Any) -> None:
            info = task.data.info
            suite = resolve_suite(str(info["suite"]))
            session = EditSession(suite, task_from_ground_truth(info["task"], info.get("task_hash")),
                                  action_format=info.get("action_format") or "svg",
                                  max_turns=int(info.get("max_turns") or 1))
            async with agents.agent.interaction(task) as interaction:
                segment = await interaction.turn()
                while not segment.terminated:
                    r = session.answer(segment.last_reply)
                    if r.done:
                        break
                    segment = await interaction.turn(r.message["content"])
            last = session.last
            if last is not None:
                interaction.trace.info["vector_gym"] = {
                    "reward": last.reward, "report": last.report, "turns": last.turn,
                    **_parts(suite, last.report, last.passed)}

    out = {"VectorGymConfig": VectorGymConfig, "VectorGymData": VectorGymData, "VectorGymTask": VectorGymTask,
           "VectorGymTaskset": VectorGymTaskset, "VectorGymEnvConfig": VectorGymEnvConfig,
           "VectorGymEnv": VectorGymEnv}
    for name, cls in out.items():
        cls.__module__ = __name__
        cls.__qualname__ = name
    return out


def __getattr__(name: str) -> Any:
    if name in ("VectorGymConfig", "VectorGymData", "VectorGymTask", "VectorGymTaskset", "VectorGymEnvConfig",
                "VectorGymEnv"):
        return _v1()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------- classic


async def _legacy_reward(state: Any, info: Any, completion: Any = None, **kwargs: Any) -> float:
    return float(_legacy_result(state, info, completion)["reward"])


async def _legacy_passed(state: Any, info: Any, completion: Any = None, **kwargs: Any) -> float:
    return float(_legacy_result(state, info, completion)["passed"])


def _legacy_result(state: Any, info: Any, completion: Any) -> dict[str, Any]:
    done = state.get("vector_gym") if isinstance(state, Mapping) else None
    if isinstance(done, Mapping):
        return done
    from vector_gym.integrations.trl import completion_text

    messages = completion if isinstance(completion, list) else [{"role": "assistant", "content": completion}]
    last = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "assistant"][-1:]
    return score_answer(info, completion_text(last))


_legacy_reward.__name__ = "reward"
_legacy_passed.__name__ = "passed"


@functools.lru_cache(maxsize=1)
def _legacy_multiturn() -> type:
    import verifiers as vf

    class VectorGymMultiTurnEnv(vf.MultiTurnEnv):
        """Classic multi-turn editing: ``env_response`` appends the editor feedback."""

        def _session(self, state: Any) -> EditSession:
            s = state.get("_vector_gym_session")
            if s is None:
                info = state["info"]
                suite = resolve_suite(str(info["suite"]))
                s = EditSession(suite, task_from_ground_truth(info["task"], info.get("task_hash")),
                                action_format=info.get("action_format") or "svg", max_turns=self.max_turns)
                state["_vector_gym_session"] = s
            return s

        def _catch_up(self, state: Any) -> EditSession:
            """Score every model answer not yet scored (in order); returns the session."""
            s = self._session(state)
            answers = [step["completion"] for step in state.get("trajectory") or []]
            from vector_gym.integrations.trl import completion_text

            while s.turn < len(answers) and not s.done:
                s.answer(completion_text(answers[s.turn]))
            return s

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            s = self._catch_up(state)
            if s.done or s.last is None or s.last.message is None:
                state["final_env_response"] = []
                return []
            return [s.last.message]

        @vf.cleanup(priority=50)
        async def record_result(self, state: Any) -> None:
            s = self._catch_up(state)
            last = s.last
            state.pop("_vector_gym_session", None)
            if last is not None:
                state["vector_gym"] = {"reward": last.reward, "report": last.report, "turns": last.turn,
                                       **_parts(s.suite, last.report, last.passed)}

    VectorGymMultiTurnEnv.__module__ = __name__
    VectorGymMultiTurnEnv.__qualname__ = "VectorGymMultiTurnEnv"
    return VectorGymMultiTurnEnv


def load_environment(suite: str = "vector_bench", split: str | None = None, n: int | None = None,
                     action_format: str = "svg", max_turns: int = 1, **suite_options: Any) -> Any:
    """The classic ``verifiers`` environment of a suite (``vf.load_environment`` calls this).

    Returns a ``vf.SingleTurnEnv`` (``max_turns == 1``) or a multi-turn env, with a dataset of
    ``prompt`` (the suite's messages), ``answer`` (""), ``info`` (the task as JSON, ...) and a
    rubric of ``reward`` (weight 1, ``suite.reward``) and ``passed`` (weight 0).
    """
    import verifiers as vf
    from datasets import Dataset

    s = resolve_suite(suite, **suite_options)
    check_action_format(action_format)
    infos = _infos(s, split, n, action_format)
    prompts = [first_messages(s, s.get_task(i["task_id"]), action_format=action_format, multi_turn=max_turns > 1)
               for i in infos]
    dataset = Dataset.from_dict({"prompt": prompts, "answer": [""] * len(infos), "info": infos,
                                 "task": [s.name] * len(infos)})
    rubric = vf.Rubric(funcs=[_legacy_reward, _legacy_passed], weights=[1.0, 0.0])
    if max_turns <= 1:
        return vf.SingleTurnEnv(dataset=dataset, rubric=rubric)
    return _legacy_multiturn()(dataset=dataset, rubric=rubric, max_turns=max_turns)
