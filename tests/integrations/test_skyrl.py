"""SkyRL (skyrl-gym 0.4.0): ``skyrl_gym.make`` runs 20 two-turn episodes over our env."""

from __future__ import annotations

import pytest

from vector_gym.suites import get_suite

skyrl_gym = pytest.importorskip("skyrl_gym", reason="skyrl-gym is installed by .ci/run (vector-gym[skyrl])")


def test_twenty_two_turn_episodes():
    from vector_gym.integrations.skyrl import register_env, skyrl_rows

    env_id = register_env()
    assert register_env() == env_id  # idempotent
    suite = get_suite("vector_bench")
    rows = skyrl_rows(suite, max_turns=2)
    assert len(rows) == 20 and rows[0]["env_class"] == "vector_gym"
    for row, task in zip(rows, suite.tasks(), strict=True):
        env = skyrl_gym.make(env_id, extras=row)
        prompt, _ = env.init(row["prompt"])
        assert prompt == row["prompt"] and "may answer again" in prompt[0]["content"]
        first = env.step(task.source_svg)  # the unrepaired source: valid, not a pass
        assert first["done"] is False and first["metadata"]["passed"] is False
        assert first["observations"][0]["role"] == "user"
        assert "Editor feedback" in first["observations"][0]["content"]
        second = env.step(f"Here it is:\n{task.target_svg}")
        assert second["done"] is True and second["observations"] == []
        assert second["metadata"]["passed"] is True and second["metadata"]["report"]["specification_pass"]
        assert first["reward"] + second["reward"] == pytest.approx(1.2)  # the return is the last answer's reward
        assert env.get_metrics() == {"passed": 1.0, "reward": pytest.approx(1.2), "turns": 2}
        env.close()


def test_progress_without_a_pass_is_not_a_pass():
    """A partial repair earns progress reward but its passed flag (the absolute gate) stays False."""
    import json

    from vector_gym.integrations.skyrl import register_env, skyrl_rows
    from vector_gym.svg.patch import apply_patch, diff_patch

    suite = get_suite("vector_bench")
    task = suite.get_task("sv_001")
    edits = diff_patch(task.source_svg, task.target_svg)
    partial = apply_patch(task.source_svg, json.dumps(edits[:1])).svg
    row = skyrl_rows(suite, tasks=[task], max_turns=1)[0]
    out = skyrl_gym.make(register_env(), extras=row).step(partial)
    assert 0.0 < out["reward"] < 1.0 and out["metadata"]["passed"] is False
    binary = skyrl_gym.make(register_env(), extras={**row, "binary_reward": True}).step(partial)
    assert binary["reward"] == 0.0
