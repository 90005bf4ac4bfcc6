"""No network, ever, unless asked (issue 12): a socket guard around every default env's first
reset/step, around ``report``, and around the learned metrics' loaders."""

from __future__ import annotations

import socket

import gymnasium
import pytest

import vector_gym  # noqa: F401  (registers the env ids)
from vector_gym.envs import ENVS


class NetworkAttempt(AssertionError):
    pass


@pytest.fixture
def no_network(monkeypatch):
    """Fail on any connect or name lookup; record what was tried."""
    tried: list[str] = []

    def refuse(what):
        def guard(*args, **kwargs):
            tried.append(f"{what}{args[1:] if what.startswith('socket.') else args}")
            raise NetworkAttempt(f"network access attempted: {what} {args!r}")

        return guard

    monkeypatch.setattr(socket.socket, "connect", refuse("socket.connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "gethostbyname", refuse("gethostbyname"))
    from vector_gym.rewards import embeddings

    monkeypatch.setattr(embeddings, "_CACHE", {})  # every test loads the learned metrics afresh
    return tried


@pytest.mark.parametrize("env_id", [e.id for e in ENVS])
def test_default_envs_first_reset_and_step_attempt_no_connection(no_network, env_id):
    env = gymnasium.make(env_id)
    try:
        obs, _ = env.reset(seed=0)
        _, reward, *_rest, info = env.step(obs["svg"])
        assert 0.0 <= float(reward) <= 1.0 and "report" in info
    finally:
        env.close()
    assert no_network == []


def test_report_attempts_no_connection(no_network, tmp_path, capsys):
    from vector_gym.cli import main

    run = tmp_path / "run.jsonl"
    assert main(["eval", "--env", "svgeditbench-v2", "--policy", "identity", "--limit", "2",
                 "--out", str(run), "--no-progress"]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    assert no_network == []


def test_learned_metrics_with_local_files_only_run_no_hub_code(no_network, tmp_path, monkeypatch):
    """A hub id that is not in the local cache gives None without any hub client call."""
    import huggingface_hub
    import huggingface_hub.file_download as fd

    from vector_gym.rewards import embeddings

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    called = []

    def spy(*args, **kwargs):
        called.append(args)
        raise NetworkAttempt("hub client called")

    import transformers.utils.hub as th

    for mod in (fd, huggingface_hub, th):
        monkeypatch.setattr(mod, "hf_hub_download", spy)
    monkeypatch.setattr(embeddings, "_CACHE", {})
    assert embeddings.load_dino("facebook/dinov2-giant") is None
    assert embeddings.load_clip("openai/clip-vit-base-patch32") is None
    assert called == [] and no_network == []


def test_learned_metrics_load_a_cached_snapshot_offline(no_network, tmp_path, monkeypatch):
    """A model in the local HF cache layout loads from its snapshot folder, with no connection."""
    import torch
    from transformers import Dinov2Config, Dinov2Model

    from vector_gym.rewards import embeddings

    snap = tmp_path / "hub" / "models--org--tiny-dino" / "snapshots" / "abc123"
    torch.manual_seed(0)
    Dinov2Model(Dinov2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                             intermediate_size=64, image_size=28, patch_size=14)).save_pretrained(snap)
    (snap.parents[1] / "refs").mkdir()
    (snap.parents[1] / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert embeddings.local_model_dir("org/tiny-dino") == str(snap)
    emb = embeddings.load_dino("org/tiny-dino")
    assert emb is not None and no_network == []

