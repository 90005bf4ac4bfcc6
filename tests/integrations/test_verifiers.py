"""verifiers 0.3.1: the environment loads by id and scores a constructed rollout 1 / 0 with the
v1 API (taskset, @vf.reward / @vf.metric on the task) and the classic API (load_environment,
Rubric); the classic multi-turn env appends feedback and ends on a pass."""

from __future__ import annotations

import asyncio

import pytest

from vector_gym.suites import get_suite

pytest.importorskip("verifiers", reason="verifiers is installed by .ci/run (vector-gym[verifiers])")

ENV_ID = "vector-gym-verifiers"


def _trace(task, answer):
    import verifiers.v1 as vf
    from verifiers.v1.graph import MessageNode
    from verifiers.v1.trace import Trace, TraceTask
    from verifiers.v1.types import AssistantMessage, UserMessage

    return Trace(
        task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig(), name="agent", trainable=False),
        nodes=[MessageNode(message=UserMessage(content=task.data.prompt_text)),
               MessageNode(parent=0, message=AssistantMessage(content=answer), sampled=True)],
    )


def test_v1_taskset_loads_by_id_and_scores_a_rollout():
    from verifiers.v1.utils.loaders import environment_class, taskset_class, taskset_config_type

    cls = taskset_class(ENV_ID)
    assert cls.__name__ == "VectorGymTaskset" and environment_class(ENV_ID).__name__ == "VectorGymEnv"
    config = taskset_config_type(ENV_ID)(id=ENV_ID, suite="vector_bench")
    tasks = list(cls(config))
    assert len(tasks) == 20 and tasks[0].key == "vector_bench/sv_001"
    suite = get_suite("vector_bench")
    target = suite.get_task("sv_001").target_svg
    assert target not in str(tasks[0].data.prompt)

    async def score(answer):
        trace = _trace(tasks[0], answer)
        await tasks[0].score(trace)
        return trace

    good, bad = asyncio.run(score(target)), asyncio.run(score("no svg"))
    assert good.metrics["passed"] == 1.0 and bad.metrics["passed"] == 0.0
    assert good.metrics["specification_reward"] == 1.0 and bad.metrics["specification_reward"] == 0.0
    assert good.reward == pytest.approx(1.2) and bad.reward == 0.0  # weighted reward = suite.reward


def test_classic_load_environment_by_id_scores_a_rollout():
    import verifiers as vf

    env = vf.load_environment(ENV_ID, suite="vector_bench")
    assert isinstance(env, vf.SingleTurnEnv) and len(env.dataset) == 20
    row = env.dataset[0]
    target = get_suite("vector_bench").get_task(row["info"]["task_id"]).target_svg

    def reward_of(answer):
        state = vf.State(prompt=row["prompt"], completion=[{"role": "assistant", "content": answer}],
                         answer=row["answer"], info=row["info"], task=row["task"])
        asyncio.run(env.rubric.score_rollout(state))
        return state

    good, bad = reward_of(target), reward_of("no svg here")
    assert good["metrics"]["passed"] == 1.0 and bad["metrics"]["passed"] == 0.0
    assert good["reward"] == pytest.approx(1.2) and bad["reward"] == 0.0


def test_classic_multi_turn_appends_feedback_and_ends_on_a_pass():
    import verifiers as vf

    env = vf.load_environment(ENV_ID, suite="vector_bench", max_turns=3)
    assert isinstance(env, vf.MultiTurnEnv)
    row = env.dataset[2]
    assert "may answer again" in str(row["prompt"])
    target = get_suite("vector_bench").get_task(row["info"]["task_id"]).target_svg
    state = vf.State(prompt=row["prompt"], info=row["info"], answer="", task=row["task"], trajectory=[])

    async def episode():
        state["trajectory"].append({"prompt": row["prompt"], "completion": [{"role": "assistant",
                                                                             "content": "<svg><g></svg>"}]})
        reply = await env.env_response([], state)
        state["trajectory"].append({"prompt": [], "completion": [{"role": "assistant", "content": target}]})
        final = await env.env_response([], state)
        await env.record_result(state)
        return reply, final

    reply, final = asyncio.run(episode())
    assert reply[0]["role"] == "user" and "not well-formed" in reply[0]["content"]
    assert final == [] and state["final_env_response"] == []
    assert state["vector_gym"]["passed"] == 1.0 and state["vector_gym"]["turns"] == 2
    assert state["vector_gym"]["reward"] == pytest.approx(1.2)
