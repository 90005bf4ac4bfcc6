"""``vector_gym/RepairGen-v0``: seeding, splits, scoring, curriculum, patch actions."""

from __future__ import annotations

import gymnasium
import pytest

import vector_gym  # noqa: F401  (registers the env ids)
from vector_gym.envs.repairgen import RepairGenEnv, make_repairgen_env
from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.svg.patch import diff_patch, patch_to_text
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenCurriculum, RepairGenerator

VB = RepairGenConfig(sources=("vector_bench",), max_repairs=4)


def test_registered_and_made_by_id():
    env = gymnasium.make("vector_gym/RepairGen-v0", config={"sources": ["vector_bench"]})
    obs, info = env.reset(seed=0)
    assert sorted(obs) == ["instruction", "svg"] and info["family"] == "repairgen"
    assert info["metadata"]["split"] == "train"


def test_same_seed_same_task_unbounded_stream():
    env = RepairGenEnv(VB)
    a = env.reset(seed=42)
    b = env.reset(seed=42)
    assert a == b
    ids = {env.reset(seed=s)[1]["task_id"] for s in range(30)}
    assert len(ids) == 30  # a fresh task for every seed (indices drawn from 2**31 - 1)
    # and the same seed in a second env instance
    assert RepairGenEnv(VB).reset(seed=42) == a


def test_options_idx_matches_the_generator():
    env = RepairGenEnv(VB, dataset_seed=3)
    obs, info = env.reset(options={"idx": 17})
    task = RepairGenerator(
        RepairGenConfig(sources=("vector_bench",), max_repairs=4, split="train"), seed=3
    )[17]
    assert info["task_id"] == task.task_id and obs == {
        "instruction": task.instruction,
        "svg": task.source_svg,
    }
    with pytest.raises(ConfigError, match="idx"):
        env.reset(options={"idx": -1})
    # issue 9: options={"task_id": ...} works for every suite, generated ids included
    assert env.reset(options={"task_id": task.task_id}) == (obs, info)
    with pytest.raises(UnknownTaskError, match="rg-SPLIT"):
        env.reset(options={"task_id": "x"})
    with pytest.raises(ConfigError, match="unknown key"):
        env.reset(options={"seed": 1})


def test_splits_draw_from_disjoint_scenes():
    train = RepairGenEnv(VB, split="train")
    test = RepairGenEnv(VB, split="test")
    tr = {train.reset(seed=s)[1]["metadata"]["scene"] for s in range(25)}
    te = {test.reset(seed=s)[1]["metadata"]["scene"] for s in range(25)}
    assert tr and te and not tr & te
    with pytest.raises(ConfigError, match="split"):
        RepairGenEnv(VB, split="validation")


def test_oracle_scores_and_identity_fails():
    """Reward = spec reward + 0.2 * repair_progress (VectorBenchEnv's default shaping)."""
    env = RepairGenEnv(VB)
    for s in range(5):
        obs, info = env.reset(seed=s)
        task = env.task
        _, r, term, trunc, step_info = env.step(f"```svg\n{task.target_svg}\n```")
        assert (r, term, trunc) == (pytest.approx(1.2), True, False)
        assert step_info["report"]["reward"] == 1.0
        env.reset(seed=s)
        _, r, term, _, step_info = env.step(obs["svg"])
        assert r == 0.0 and term and step_info["report"]["repair_progress"] == 0.0


def test_observations_stay_in_the_space():
    env = RepairGenEnv(RepairGenConfig(max_repairs=6))
    for s in range(40):
        obs, _ = env.reset(seed=s)
        assert obs in env.observation_space
        assert env.task.target_svg in env.action_space


def test_curriculum_raises_level_on_success():
    cur = RepairGenCurriculum(window=2)
    env = RepairGenEnv(VB, curriculum=cur)
    assert env.reset(seed=0)[1]["metadata"]["difficulty"] == 1  # level 0: one repair
    for s in range(2):
        env.reset(seed=s)
        env.step(env.task.target_svg)
    assert cur.level == 1
    counts = {env.reset(seed=s)[1]["metadata"]["difficulty"] for s in range(20)}
    assert counts <= {1, 2} and 2 in counts


def test_patch_actions_on_generated_tasks():
    env = make_repairgen_env(config=VB, action_format="patch")
    for s in range(8):
        obs, _ = env.reset(seed=s)
        patch = patch_to_text(diff_patch(obs["svg"], env.task.target_svg))
        _, r, term, _, info = env.step(patch)
        assert r == pytest.approx(1.2) and term and info["action_error"] is None
    env.reset(seed=0)
    _, r, _, _, info = env.step('[{"delete": "no-such-id"}]')
    assert r == 0.0 and info["action_error"]["reason"] == "patch_unknown_id"
