"""``vector_gym/VectorBench-v0``: registration, episodes, reward shaping, vector envs."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from functools import partial
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

import vector_gym
from vector_gym.envs import env_id_for, register_envs
from vector_gym.envs.vector_bench import DEFAULT_PROGRESS_WEIGHT, VectorBenchEnv
from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.policies.baselines import malformed_target, protected_mutation
from vector_gym.tasks.vector_bench import load_vector_bench, read_jsonl

TASKS = load_vector_bench()
BY_ID = {t.task_id: t for t in TASKS}
ENV_ID = "vector_gym/VectorBench-v0"


def test_make_after_import_and_registration_is_idempotent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # re-registering would warn "Overriding environment"
        register_envs()
        register_envs()
    env = gymnasium.make(ENV_ID)
    assert isinstance(env.unwrapped, VectorBenchEnv)
    assert len(env.unwrapped.tasks) == 20
    assert env_id_for("vector-bench") == ENV_ID == env_id_for(ENV_ID)
    with pytest.raises(ConfigError, match="vector-bench"):
        env_id_for("nope")


def test_make_with_module_prefix_without_prior_import():
    code = (
        "import sys, gymnasium\n"
        "assert 'vector_gym' not in sys.modules\n"
        "env = gymnasium.make('vector_gym:vector_gym/VectorBench-v0')\n"
        "obs, info = env.reset(options={'task_id': 'sv_001'})\n"
        "print(type(env.unwrapped).__name__, info['task_id'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["VectorBenchEnv", "sv_001"]


def test_import_vector_gym_stays_light():
    code = "import sys, vector_gym; print(sorted(m for m in ('torch', 'skia', 'transformers', 'vector_gym.rewards.spec') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


def test_reset_observation_hides_target_edits_and_protected_ids():
    env = VectorBenchEnv()
    for t in TASKS:
        obs, info = env.reset(options={"task_id": t.task_id})
        assert obs == {"instruction": t.instruction, "svg": t.source_svg}
        assert obs["svg"] != t.target_svg
        assert set(info) == {"task_id", "family", "metadata"}
        assert info["task_id"] == t.task_id and info["family"] == "vector-bench"
        assert {"expected_diff", "should_preserve", "target_svg", "initial_svg"}.isdisjoint(
            info["metadata"]
        )
        assert info["metadata"]["difficulty"] in (
            "hard",
            "very_hard",
        )  # corpus labels (data README)
        json.dumps(info, allow_nan=False)


def test_every_bundled_observation_is_in_the_observation_space():
    env = VectorBenchEnv()
    for t in TASKS:
        obs, _ = env.reset(options={"task_id": t.task_id})
        assert obs in env.observation_space
        assert t.target_svg in env.action_space
    # Gymnasium's default Text charset is alphanumeric only: it would reject every SVG
    assert TASKS[0].source_svg not in gymnasium.spaces.Text(max_length=100_000)


def test_unknown_task_id_lists_the_valid_ids():
    env = VectorBenchEnv()
    with pytest.raises(UnknownTaskError) as exc:
        env.reset(options={"task_id": "sv_021"})
    assert "sv_021" in str(exc.value) and "sv_001" in str(exc.value) and "sv_020" in str(exc.value)


def test_same_seed_same_task():
    a, b = VectorBenchEnv(), VectorBenchEnv()
    picks = [a.reset(seed=s)[1]["task_id"] for s in range(60)]
    assert picks == [b.reset(seed=s)[1]["task_id"] for s in range(60)]
    assert len(set(picks)) >= 15  # 60 uniform draws over 20 tasks


def test_oracle_step_reward_and_report():
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_005"})
    obs, reward, terminated, truncated, info = env.step(BY_ID["sv_005"].target_svg)
    r = info["report"]
    # spec §17: every target against itself -> reward 1, completion 1.0, UCR 0; progress 1
    assert (r["reward"], r["repair_pass"], r["preservation_pass"], r["validity_pass"]) == (
        1.0,
        True,
        True,
        True,
    )
    assert (
        r["repair_progress"] == 1.0
        and r["unintended_change_rate"] == 0.0
        and r["failure_reasons"] == []
    )
    assert reward == pytest.approx(1.0 + DEFAULT_PROGRESS_WEIGHT)
    assert (terminated, truncated) == (True, False)
    assert obs == {"instruction": BY_ID["sv_005"].instruction, "svg": BY_ID["sv_005"].source_svg}
    json.dumps(info, allow_nan=False)


def test_identity_step_scores_zero_with_named_reason():
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_001"})
    _, reward, _, _, info = env.step(BY_ID["sv_001"].source_svg)
    r = info["report"]
    # spec §17: every corrupted input -> valid, reward 0, progress exactly 0, preservation pass, UCR 0
    assert reward == 0.0
    assert r["validity_pass"] and r["preservation_pass"] and not r["repair_pass"]
    assert r["repair_progress"] == 0.0 and r["unintended_change_rate"] == 0.0
    assert r["failure_reasons"] == ["requested_repairs_incomplete"]


def test_response_in_prose_and_fence_is_extracted():
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_002"})
    _, reward, *_ = env.step(
        "Here is the repaired SVG:\n```svg\n" + BY_ID["sv_002"].target_svg + "\n```\nDone."
    )
    assert reward == pytest.approx(1.2)


def test_random_action_scores_zero_with_named_reason():
    env = gymnasium.make(ENV_ID)
    env.action_space.seed(123)
    env.reset(seed=123)
    action = env.action_space.sample()
    _, reward, terminated, _, info = env.step(action)
    assert reward == 0.0 and terminated
    assert info["report"]["failure_reasons"][0] == "invalid_svg"
    assert info["report"]["detail"] == ["no_svg_found"]


def test_protected_mutation_and_malformed_target_scores():
    env = VectorBenchEnv(progress_weight=0.0)
    t = BY_ID["sv_003"]
    env.reset(options={"task_id": t.task_id})
    _, reward, _, _, info = env.step(protected_mutation(t))
    r = info["report"]
    # Table 2: all repairs pass, preservation fails, reward 0; one of |U| protected ids changed
    assert reward == 0.0 and r["repair_pass"] and not r["preservation_pass"] and r["validity_pass"]
    assert r["unintended_change_rate"] == pytest.approx(1 / len(t.protected_ids))
    assert r["failure_reasons"] == ["unintended_document_changes"]
    env.reset(options={"task_id": t.task_id})
    _, reward, _, _, info = env.step(malformed_target(t))
    assert (
        reward == 0.0
        and not info["report"]["validity_pass"]
        and info["report"]["repair_progress"] == 0.0
    )


def test_progress_weight_shapes_only_the_scalar():
    # a partial repair: the published Claude Sonnet 5 output on sv_001 (spec §14: valid, one of three
    # requested checks passed, repair_progress 1/3 as published)
    rows = read_jsonl(Path(__file__).parents[1] / "data" / "outcomes_sv001_020.jsonl.gz")
    row = next(
        r for r in rows if r["task_id"] == "sv_001" and r["model"] == "anthropic/claude-sonnet-5"
    )
    assert row["repair_progress"] == pytest.approx(1 / 3)
    for w in (0.0, 0.2, 0.5):
        env = VectorBenchEnv(progress_weight=w)
        env.reset(options={"task_id": "sv_001"})
        _, reward, _, _, info = env.step(row["produced_svg"])
        assert info["report"]["reward"] == 0.0
        assert info["report"]["repair_progress"] == pytest.approx(1 / 3)
        assert reward == pytest.approx(w / 3)
    t = BY_ID["sv_005"]
    env = VectorBenchEnv(progress_weight=0.0)
    env.reset(options={"task_id": t.task_id})
    assert env.step(t.target_svg)[1] == 1.0  # the paper's binary reward


@pytest.mark.parametrize("w", [-0.1, float("nan"), float("inf"), "x"])
def test_bad_progress_weight(w):
    with pytest.raises(ConfigError, match="progress_weight"):
        VectorBenchEnv(progress_weight=w)


def test_step_is_deterministic_for_a_seed():
    env = VectorBenchEnv()
    env.action_space.seed(0)
    action = env.action_space.sample()
    outs = []
    for _ in range(2):
        env.reset(seed=42)
        outs.append(env.step(action))
    assert outs[0][1:4] == outs[1][1:4] and outs[0][4] == outs[1][4]


def test_tasks_from_path_and_parity_flag(tmp_path):
    import gzip

    path = tmp_path / "tasks.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for t in TASKS[:2]:
            obj = {
                "task_id": t.task_id,
                "instruction": t.instruction,
                "initial_svg": t.source_svg,
                "target_svg": t.target_svg,
                "expected_diff": [e.to_dict() for e in t.requested_edits],
                "should_preserve": list(t.protected_ids),
            }
            fh.write(json.dumps(obj) + "\n")
    env = VectorBenchEnv(tasks=str(path), parity=True)
    assert env.task_ids == ["sv_001", "sv_002"] and env.parity is True
    env.reset(options={"task_id": "sv_002"})
    _, reward, _, _, info = env.step(TASKS[1].target_svg)
    assert reward == pytest.approx(1.2) and info["report"]["parity"] is True


def test_sync_vector_env_four_copies_step_through_all_twenty_tasks():
    fns = [partial(VectorBenchEnv, tasks=TASKS[i::4], task_order="sequential") for i in range(4)]
    envs = SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)
    obs, infos = envs.reset(seed=0)
    scored = []
    for _ in range(5):
        actions = tuple(BY_ID[tid].target_svg for tid in infos["task_id"])
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert terminated.all() and not truncated.any()
        np.testing.assert_allclose(rewards, 1.2)
        final = infos["final_info"]
        scored += list(final["task_id"])
        np.testing.assert_array_equal(
            final["report"]["reward"], 1.0
        )  # vector infos: dict of arrays
    envs.close()
    assert sorted(scored) == [t.task_id for t in TASKS]  # each task exactly once


def test_async_vector_env_without_shared_memory():
    fns = [partial(VectorBenchEnv, task_order="sequential") for _ in range(2)]
    envs = AsyncVectorEnv(fns, shared_memory=False)
    try:
        obs, infos = envs.reset(seed=1)
        assert obs["svg"] == (TASKS[0].source_svg, TASKS[0].source_svg)
        _, rewards, terminated, _, infos = envs.step((TASKS[0].target_svg, TASKS[0].source_svg))
        np.testing.assert_allclose(rewards, [1.2, 0.0])
        assert terminated.all()
        np.testing.assert_array_equal(infos["report"]["reward"], [1.0, 0.0])
    finally:
        envs.close()


def test_version_is_exposed():
    assert vector_gym.__version__


HOSTILE = {
    "external_entity": '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    '<svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>',
    "entity_bomb": '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><svg xmlns="http://www.w3.org/2000/svg">&c;</svg>',
    "deep_nesting": '<svg xmlns="http://www.w3.org/2000/svg">'
    + "<g>" * 10_000
    + "</g>" * 10_000
    + "</svg>",
    "nan_path": '<svg xmlns="http://www.w3.org/2000/svg"><path d="M NaN 0 L Infinity 1"/></svg>',
    "lone_surrogate": '<svg xmlns="http://www.w3.org/2000/svg"><text>\ud800</text></svg>',
}


@pytest.mark.parametrize("name", sorted(HOSTILE), ids=sorted(HOSTILE))
def test_hostile_responses_score_zero_through_step(name):
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_001"})
    _, reward, terminated, _, info = env.step(HOSTILE[name])
    assert reward == 0.0 and terminated
    assert info["report"]["failure_reasons"][0] == "invalid_svg"
    json.dumps(info, allow_nan=False)


def test_nan_scalar_coordinates_score_zero_with_a_named_reason():
    # sv_001 requests train-door x (spec §14); the target with that x written as NaN fails the
    # default mode's validity with its own reason (issue 10: NaN is not an SVG number in any
    # numeric attribute), so the x check fails with progress 0
    import re

    t = BY_ID["sv_001"]
    assert any(e.part == "train-door" and e.attribute == "x" for e in t.requested_edits)
    bad, k = re.subn(r'(<rect id="train-door"[^>]*?\sx=")[^"]*"', r'\1NaN"', t.target_svg)
    assert k == 1
    env = VectorBenchEnv()
    env.reset(options={"task_id": t.task_id})
    _, reward, _, _, info = env.step(bad)
    r = info["report"]
    assert reward == pytest.approx(0.2 * r["repair_progress"]) and r["reward"] == 0.0
    assert r["failure_reasons"][0] == "invalid_svg" and not r["validity_pass"]
    assert r["detail"] == ["invalid_number"] and r["repair_progress"] == 0.0
    json.dumps(info, allow_nan=False)


def test_fifty_megabyte_response_is_not_scored():
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_001"})
    big = "<svg>" + " " * (50 * 1024 * 1024) + "</svg>"
    _, reward, _, _, info = env.step(big)
    assert reward == 0.0 and info["response_too_long"] is True
    assert info["report"]["failure_reasons"][0] == "invalid_svg"


@pytest.mark.parametrize("action", [None, b"<svg/>", 7])
def test_non_text_response_scores_zero(action):
    # Review R1: env.step(None) used to raise TypeError out of the env.
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_001"})
    _, reward, terminated, _, info = env.step(action)
    assert reward == 0.0 and terminated and info["response_not_text"] == type(action).__name__
    assert info["report"]["failure_reasons"] == ["invalid_svg"]
    assert info["report"]["detail"] == ["no_svg_found"]
    json.dumps(info, allow_nan=False)


def test_render_observation_adds_the_rendered_source():
    # Issue 3, item 5: every env takes render_observation=(H, W); VectorBenchEnv used to drop it.
    from vector_gym.render import render_one

    env = gymnasium.make("vector_gym/VectorBench-v0", render_observation=(20, 30))
    obs, _ = env.reset(options={"task_id": "sv_005"})
    assert obs["image"].shape == (20, 30, 3) and obs["image"].dtype == np.uint8
    assert obs in env.observation_space
    expected, error = render_one(obs["svg"], (20, 30))
    assert error is None and (expected < 255).any()
    np.testing.assert_array_equal(obs["image"], expected)
    env.close()
