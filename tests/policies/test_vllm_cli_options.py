"""``vector-gym eval`` engine and client flags reach the vLLM and OpenAI policies."""

from __future__ import annotations

import pytest

from vector_gym import cli
from vector_gym.policies import vllm_policy


def _args(*argv):
    return cli.build_parser().parse_args(["eval", *argv])


def test_engine_flags_and_engine_args_reach_vllm():
    args = _args(
        "--policy", "vllm:m", "--max-model-len", "4096", "--enforce-eager", "--dtype", "bfloat16",
        "--gpu-memory-utilization", "0.5", "--tensor-parallel-size", "2",
        "--max-num-batched-tokens", "8192", "--engine-arg", "enable-prefix-caching=true",
        "--engine-arg", "swap_space=4", "--engine-arg", "kv_cache_dtype=fp8",
    )
    assert cli._engine_options(args, "vllm:m") == {
        "engine_args": {
            "max_model_len": 4096, "enforce_eager": True, "dtype": "bfloat16",
            "gpu_memory_utilization": 0.5, "tensor_parallel_size": 2,
            "max_num_batched_tokens": 8192, "enable_prefix_caching": True, "swap_space": 4,
            "kv_cache_dtype": "fp8",
        }
    }
    assert cli._engine_options(args, "hf:x") == {}
    assert cli._engine_options(args, "openai:m") == {"max_model_len": 4096}  # the server's
    # Named flags win over --engine-arg for the same key.
    args = _args("--policy", "vllm:m", "--engine-arg", "max_model_len=1", "--max-model-len", "9")
    assert cli._engine_options(args, "vllm:m")["engine_args"]["max_model_len"] == 9


def test_client_flags_reach_openai():
    args = _args("--policy", "openai:m", "--native-n", "--concurrency", "16", "--timeout", "30")
    assert cli._engine_options(args, "openai:m") == {
        "native_n": True, "max_concurrency": 16, "timeout_s": 30.0,
    }
    assert cli._engine_options(args, "vllm:m") == {}
    # --max-model-len also tells openai: the server's context.
    args = _args("--policy", "openai:m", "--max-model-len", "4096")
    assert cli._engine_options(args, "openai:m") == {"max_model_len": 4096}
    cli._check_engine_options(args, ["openai:m"])  # no error


def test_factory_merges_engine_args(monkeypatch):
    seen = {}

    class _Policy:
        def __init__(self, model, **kw):
            seen.update(model=model, **kw)

    monkeypatch.setattr(vllm_policy, "VLLMPolicy", _Policy)
    vllm_policy.make_vllm_policy("m", seed=3, engine_args={"max_model_len": 64})
    assert seen == {"model": "m", "seed": 3, "max_model_len": 64}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--native-n"], "openai:MODEL policies only"),
        (["--max-model-len", "64"], "need a vllm:MODEL policy"),
        (["--engine-arg", "dtype=half"], "need a vllm:MODEL policy"),
        (["--policy", "openai:m", "--timeout", "0"], "--timeout"),
    ],
)
def test_flags_without_their_policy_are_errors(argv, message, capsys):
    assert cli.main(["eval", "--limit", "1", "--no-progress", *argv]) == 1
    assert message in capsys.readouterr().err


def test_bad_engine_arg_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        _args("--engine-arg", "novalue")
    assert exc.value.code == 2 and "KEY=VALUE" in capsys.readouterr().err
