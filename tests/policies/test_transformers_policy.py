"""TransformersPolicy on a tiny random Llama with a tokenizer trained in the test (no downloads)."""

from __future__ import annotations

import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion, Policy
from vector_gym.policies.templates import SVGEDITBENCH_V2, VECTOR_BENCH
from vector_gym.policies.transformers_policy import TransformersPolicy
from vector_gym.tasks.vector_bench import load_vector_bench


@pytest.fixture(scope="module")
def observations():
    return [
        {
            "instruction": t.instruction,
            "svg": t.source_svg,
            "family": t.family,
            "task_id": t.task_id,
        }
        for t in load_vector_bench()[:3]
    ]


def test_batched_left_padded_generation_matches_one_by_one(tiny_lm_dir, observations):
    """Left padding must not change greedy output: batch of 3 == three batches of 1."""
    batched = TransformersPolicy(tiny_lm_dir, max_new_tokens=6, batch_size=3)
    single = TransformersPolicy(tiny_lm_dir, max_new_tokens=6, batch_size=1)
    assert isinstance(batched, Policy)
    assert batched.tokenizer.padding_side == "left"
    a = batched.generate(observations, n=2)
    b = single.generate(observations, n=2)
    assert [[c.text for c in row] for row in a] == [[c.text for c in row] for row in b]
    assert [len(row) for row in a] == [2, 2, 2]
    # Prompts differ in length, so the batch really was padded.
    assert len({row[0].prompt_tokens for row in a}) == 3
    for row in a:
        for c in row:
            assert isinstance(c, Completion)
            # This random model does not emit <|eos|> within 6 tokens for these prompts.
            assert c.completion_tokens == 6 and c.finish_reason == "length" and c.truncated


def test_budget_per_observation_in_one_batch(tiny_lm_dir, observations):
    """Each answer is cut at its own budget; the default budget is the protocol's."""

    class PerTask(TransformersPolicy):
        def token_budget(self, observation):
            return {"sv_001": 2, "sv_002": 5, "sv_003": 3}[observation["task_id"]]

    mixed = PerTask(tiny_lm_dir, batch_size=3).generate(observations)
    assert [row[0].completion_tokens for row in mixed] == [2, 5, 3]
    assert all(row[0].finish_reason == "length" for row in mixed)
    # the same as generating each alone with that budget (greedy)
    alone = [
        TransformersPolicy(tiny_lm_dir, max_new_tokens=k).generate([o])[0][0].text
        for k, o in zip((2, 5, 3), observations, strict=True)
    ]
    assert [row[0].text for row in mixed] == alone
    default = TransformersPolicy(tiny_lm_dir)
    assert default.max_new_tokens is None
    assert [default.token_budget(o) for o in observations] == [8192] * 3  # protocols.md
    assert TransformersPolicy(tiny_lm_dir, max_new_tokens=7).token_budget(observations[0]) == 7


def test_prompt_tokens_count_the_rendered_chat(tiny_lm_dir, observations):
    policy = TransformersPolicy(tiny_lm_dir, max_new_tokens=1)
    (row,) = policy.generate(observations[:1])
    text = policy.tokenizer.apply_chat_template(
        VECTOR_BENCH.messages(observations[0]), add_generation_prompt=True, tokenize=False
    )
    assert text.startswith("<|system|>You are repairing") and text.endswith("<|assistant|>")
    assert row[0].prompt_tokens == len(
        policy.tokenizer(text, add_special_tokens=False)["input_ids"]
    )


def test_eos_gives_stop_and_counts_it(tiny_lm_dir, observations):
    """A model that always emits <|eos|> stops after one token, finish_reason 'stop'."""
    import torch

    policy = TransformersPolicy(tiny_lm_dir, max_new_tokens=5, template=SVGEDITBENCH_V2)
    head = torch.nn.Linear(16, len(policy.tokenizer), bias=True)
    with torch.no_grad():
        head.weight.zero_()
        head.bias.zero_()
        head.bias[policy.tokenizer.eos_token_id] = 10.0
    policy.model.lm_head = head
    policy.model.config.tie_word_embeddings = False
    rows = policy.generate(observations[:2], n=3)
    for row in rows:
        assert [(c.text, c.completion_tokens, c.finish_reason) for c in row] == [
            ("", 1, "stop")
        ] * 3


def test_sampling_is_seeded(tiny_lm_dir, observations):
    a = TransformersPolicy(tiny_lm_dir, max_new_tokens=5, temperature=1.0, seed=7).generate(
        observations[:1], n=4
    )
    b = TransformersPolicy(tiny_lm_dir, max_new_tokens=5, temperature=1.0, seed=7).generate(
        observations[:1], n=4
    )
    assert [c.text for c in a[0]] == [c.text for c in b[0]]
    assert len({c.text for c in a[0]}) > 1  # n samples of a group differ


def test_bad_arguments(tiny_lm_dir):
    with pytest.raises(ConfigError, match="max_new_tokens"):
        TransformersPolicy(tiny_lm_dir, max_new_tokens=0)
    with pytest.raises(ConfigError, match="top_p"):
        TransformersPolicy(tiny_lm_dir, top_p=0)


def test_load_failures_and_server_options_are_config_errors(tmp_path):
    from vector_gym.policies import make_policy

    with pytest.raises(ConfigError, match="cannot load AutoModelForCausalLM"):
        TransformersPolicy(tmp_path / "no-model-here")
    with pytest.raises(ConfigError, match="openai:MODEL --base-url"):
        make_policy("hf:some/dir", base_url="http://127.0.0.1:8000/v1")


def test_cli_eval_end_to_end_with_hf_policy(tiny_lm_dir, tmp_path, capsys):
    """`vector-gym eval --policy hf:PATH` generates, scores and reports truncation."""
    import json
    import re

    from vector_gym.cli import main

    out = tmp_path / "run.jsonl"
    argv = [
        "eval",
        "--policy",
        f"hf:{tiny_lm_dir}",
        "--limit",
        "2",
        "--max-tokens",
        "4",
        "--out",
        str(out),
    ]
    assert main([*argv, "--json"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] for r in rows] == ["sv_001", "sv_002"]
    for r in rows:
        assert (r["completion_tokens"], r["finish_reason"], r["truncated"]) == (4, "length", True)
        assert r["max_tokens"] == 4  # the budget is recorded with every row
        assert r["prompt_tokens"] > 1000  # the whole source SVG is in the prompt
        assert r["reward"] == 0.0 and r["report"]["failure_reasons"]  # 4 random tokens are no SVG
    captured = capsys.readouterr()
    (summary,) = json.loads(captured.out)
    # the progress bar on stderr: description, rows done of 2, elapsed<time left
    assert f"hf:{tiny_lm_dir} on vector_gym/VectorBench-v0" in captured.err
    assert re.search(r"\b2/2 \[\d\d:\d\d<\d\d:\d\d", captured.err)
    assert (summary["policy"], summary["n"], summary["full"], summary["trunc"]) == (
        f"hf:{tiny_lm_dir}",
        2,
        0.0,
        100.0,
    )

    # Re-running resumes from the file (nothing regenerated) and prints the table with Trunc.
    assert main([*argv, "--no-progress"]) == 0
    header, line = capsys.readouterr().out.splitlines()[:2]
    assert header.split()[-1] == "Trunc." and line.split()[-1] == "100.0"
    assert len(out.read_text().splitlines()) == 2
