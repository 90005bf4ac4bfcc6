"""examples/train_grpo.py: --suite repairgen trains 2 steps on CPU on a stream of generated tasks
(curriculum fed by the rewards) with one held-out evaluation; --dry-run for a corpus suite."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train_grpo.py"


def _load():
    spec = importlib.util.spec_from_file_location("train_grpo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_repairgen_two_steps_with_a_heldout_evaluation(tiny_lm_dir, tmp_path, capsys):
    example = _load()
    with pytest.warns(UserWarning, match="max_completion_length=16 is below suite 'repairgen'"):
        trainer = example.main([
            "--suite", "repairgen", "--model", str(tiny_lm_dir), "--output-dir", str(tmp_path),
            "--max-steps", "2", "--num-generations", "2", "--batch-size", "2", "--max-completion-length", "16",
            "--eval-every", "2", "--eval-tasks", "2", "--eval-max-tokens", "8", "--curriculum-window", "2",
            "--cpu", "--learning-rate", "1e-3",
        ])
    plan = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert plan["reward_funcs"] == ["spec_reward", "repair_progress", "curriculum_level"]
    assert plan["reward_weights"] == [1.0, 0.2, 0.0] and plan["stream"] is True
    assert trainer.state.global_step == 2
    logged = [e for e in trainer.state.log_history if "heldout/full" in e]
    assert len(logged) == 1 and logged[0]["step"] == 2  # one held-out evaluation, at step 2
    for key in ("heldout/full", "heldout/progress", "heldout/valid"):
        assert 0.0 <= logged[0][key] <= 100.0
    keys = {k for e in trainer.state.log_history for k in e}
    assert {"rewards/spec_reward/mean", "rewards/curriculum_level/mean"} <= keys
    assert (tmp_path / "model.safetensors").exists()


def test_dry_run_for_a_corpus_suite(capsys):
    example = _load()
    assert example.main(["--suite", "svgeditbench_v1", "--model", "none", "--dry-run"]) is None
    plan = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert plan["suite"] == "svgeditbench_v1" and plan["reward_funcs"] == ["raster_reward"]
    assert plan["max_completion_length"] == plan["token_budget"] >= 8192
