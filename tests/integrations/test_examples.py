"""Every integration example runs on CPU (no network, no model weights): verl data, Hugging Face
datasets, OpenEnv client against a local server, SkyRL episodes, verifiers by id, and
train_grpo.py with the tool environment (--dry-run)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_verl_data_writes_parquet_and_yaml(tmp_path):
    import pandas as pd

    overrides = _load("verl_data").main(["--suite", "repairgen", "--n", "3", "--out", str(tmp_path),
                                         "--max-turns", "3"])
    train = pd.read_parquet(tmp_path / "train.parquet")
    assert list(train.columns) == ["data_source", "prompt", "ability", "reward_model", "extra_info", "agent_name"]
    assert len(train) == 3 and set(train["agent_name"]) == {"vector_gym_agent"}
    assert "reward.custom_reward_function.path=pkg://vector_gym.integrations.verl" in overrides
    assert (tmp_path / "vector_gym_agent.yaml").read_text().startswith("- name: vector_gym_agent")


def test_hf_datasets_round_trip(tmp_path, capsys):
    sizes = _load("hf_datasets").main(["--suite", "repairgen", "--n", "5", "--out", str(tmp_path / "ds")])
    assert sizes == {"test": 5, "train": 5}
    assert capsys.readouterr().out.count("corpus hash equal") == 2


def test_skyrl_episodes():
    pytest.importorskip("skyrl_gym", reason="skyrl-gym is installed by .ci/run (vector-gym[skyrl])")
    out = _load("skyrl_episodes").main(["--n", "3", "--max-turns", "2"])
    assert [r["passed"] for r in out] == [1.0, 1.0, 1.0]
    assert all(r["return"] == pytest.approx(1.2) and r["turns"] == 2 for r in out)


def test_verifiers_env_by_id():
    pytest.importorskip("verifiers", reason="verifiers is installed by .ci/run (vector-gym[verifiers])")
    out = _load("verifiers_env").main(["--n", "2"])
    assert [(s, t) for _, s, t in out] == [(0.0, pytest.approx(1.2))] * 2


def test_openenv_client_against_a_local_server():
    pytest.importorskip("openenv", reason="openenv-core is installed by .ci/run (vector-gym[openenv])")
    from test_openenv import serve

    with serve("vector_bench", max_turns=2) as url:
        identity = _load("openenv_client").main(["--url", url, "--episodes", "2"])
        oracle = _load("openenv_client").main(["--url", url, "--episodes", "2", "--policy", "oracle"])
    # system, user, answer, feedback, answer: no feedback after the last answer
    assert [(r["passed"], r["turns"], r["messages"]) for r in identity] == [(False, 2, 5)] * 2
    assert [(r["passed"], r["reward"], r["turns"]) for r in oracle] == [(True, pytest.approx(1.2), 1)] * 2


def test_train_grpo_tool_environment_dry_run(capsys):
    example = _load("train_grpo")
    assert example.main(["--suite", "vector_bench", "--model", "none", "--tool-env", "3", "--dry-run"]) is None
    plan = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert plan["reward_funcs"] == ["VectorBenchEditToolEnv.get_reward"] and plan["reward_weights"] == []
