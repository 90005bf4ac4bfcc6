"""VLLMPolicy: its logic against a recording fake engine, and vLLM's real signatures when installed.

The contract test needs ``vllm`` (``pip install "vector-gym[vllm]"``, a CUDA
machine); it is skipped with that reason where vLLM is not importable. The
fake-engine tests always run.
"""

from __future__ import annotations

import dataclasses
import inspect
from types import SimpleNamespace

import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Policy
from vector_gym.policies.templates import VECTOR_BENCH
from vector_gym.policies.vllm_policy import VLLMPolicy


@dataclasses.dataclass
class _Params:  # stands in for vllm.SamplingParams
    n: int = 1
    max_tokens: int | None = 16
    seed: int | None = None
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0


class _FakeLLM:
    """Records every chat call; answers n outputs per request, the last one length-limited."""

    def __init__(self):
        self.calls = []

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template=None):
        self.calls.append(
            SimpleNamespace(messages=messages, params=sampling_params, chat_template=chat_template)
        )
        outs = []
        for conv, p in zip(messages, sampling_params, strict=True):
            completions = [
                SimpleNamespace(
                    index=k,
                    text=f"<svg seed='{p.seed}' k='{k}'/>",
                    token_ids=list(range(3 + k)),
                    finish_reason="length" if k == p.n - 1 else "stop",
                )
                for k in range(p.n)
            ]
            outs.append(
                SimpleNamespace(
                    prompt_token_ids=[0] * len(conv[-1]["content"]), outputs=completions[::-1]
                )
            )
        return outs


def _obs(i):
    return {
        "instruction": f"fix {i}",
        "svg": "<svg/>",
        "family": "vector-bench",
        "task_id": f"t{i}",
    }


def test_one_chat_call_per_batch_seeds_spaced_by_n():
    llm = _FakeLLM()
    policy = VLLMPolicy(
        "some/model",
        llm=llm,
        sampling_params_cls=_Params,
        seed=1000,
        max_tokens=4096,
        temperature=0.8,
    )
    assert isinstance(policy, Policy) and policy.name == "vllm:some/model"
    rows = policy.generate([_obs(0), _obs(1), _obs(2)], n=4)
    assert len(llm.calls) == 1
    call = llm.calls[0]
    assert call.messages[0] == VECTOR_BENCH.messages(_obs(0))
    assert [p.seed for p in call.params] == [1000, 1004, 1008]
    assert all(
        p.max_tokens == 4096 and p.n == 4 and p.temperature == 0.8 and p.top_p == 1.0
        for p in call.params
    )
    # Outputs come back in index order; counts and finish reasons are recorded.
    assert [[c.completion_tokens for c in row] for row in rows] == [[3, 4, 5, 6]] * 3
    assert [c.finish_reason for c in rows[0]] == ["stop", "stop", "stop", "length"]
    assert rows[0][3].truncated and not rows[0][0].truncated
    assert rows[1][0].prompt_tokens == len(call.messages[1][-1]["content"])
    # A second call continues the seed sequence: no group ever reuses a seed.
    policy.generate([_obs(3), _obs(4)], n=4)
    assert [p.seed for p in llm.calls[1].params] == [1012, 1016]
    seeds = {p.seed + k for c in llm.calls for p in c.params for k in range(p.n)}
    assert len(seeds) == 5 * 4


def test_seeds_never_repeat_when_n_changes():
    llm = _FakeLLM()
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, seed=0)
    policy.generate([_obs(0), _obs(1)], n=4)  # seeds 0..3 and 4..7
    policy.generate([_obs(2), _obs(3)], n=1)  # seeds 8 and 9
    used = [p.seed + k for c in llm.calls for p in c.params for k in range(p.n)]
    assert sorted(used) == list(range(10))


def test_defaults_always_set_max_tokens_and_leave_sampling_to_vllm():
    llm = _FakeLLM()
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, chat_template="{{ x }}")
    policy.generate([_obs(0)])
    (p,) = llm.calls[0].params
    assert p.max_tokens == 8192  # never vLLM's default of 16
    assert (p.temperature, p.top_p) == (1.0, 1.0)  # untouched defaults of the params class
    assert llm.calls[0].chat_template == "{{ x }}"
    assert policy.generate([]) == []


def test_default_budget_is_per_observation():
    """Without max_tokens each request carries its task's protocol budget (protocols.md)."""
    llm = _FakeLLM()
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params)
    long = {**_obs(1), "svg": "<svg>" + " " * 19_995 + "</svg>"}  # 20,006 characters
    policy.generate([_obs(0), long])
    assert [p.max_tokens for p in llm.calls[0].params] == [8192, 20_006 // 2 + 2048]
    assert (policy.token_budget(_obs(0)), policy.token_budget(long)) == (8192, 12_051)
    fixed = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, max_tokens=100)
    assert fixed.token_budget(long) == 100


class _FakeLLMWithGenerationConfig(_FakeLLM):
    """A model whose generation_config.json sets temperature 0.6, top_p 0.95, top_k 20."""

    def get_default_sampling_params(self):
        return _Params(temperature=0.6, top_p=0.95, top_k=20)


def test_model_generation_config_is_the_default_and_explicit_values_win():
    llm = _FakeLLMWithGenerationConfig()
    VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, max_tokens=100).generate([_obs(0)])
    (p,) = llm.calls[0].params
    assert (p.temperature, p.top_p, p.top_k, p.max_tokens) == (0.6, 0.95, 20, 100)
    VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, temperature=0.0).generate([_obs(0)])
    (p,) = llm.calls[1].params
    assert (p.temperature, p.top_p, p.top_k) == (0.0, 0.95, 20)


def test_bad_arguments():
    with pytest.raises(ConfigError, match="max_tokens"):
        VLLMPolicy("m", llm=_FakeLLM(), sampling_params_cls=_Params, max_tokens=0)
    with pytest.raises(ConfigError, match="engine_kwargs"):
        VLLMPolicy("m", llm=_FakeLLM(), sampling_params_cls=_Params, tensor_parallel_size=2)


def test_vllm_contract():
    """The vLLM signatures VLLMPolicy relies on (vllm/entrypoints/llm.py, vllm/outputs.py)."""
    vllm = pytest.importorskip(
        "vllm", reason='vLLM not installed: pip install "vector-gym[vllm]" on a CUDA machine'
    )
    chat = inspect.signature(vllm.LLM.chat).parameters
    for name in ("messages", "sampling_params", "use_tqdm", "chat_template"):
        assert name in chat, f"LLM.chat lost parameter {name!r}"
    # The model's generation-config defaults, read by VLLMPolicy when temperature/top_p are None.
    assert callable(vllm.LLM.get_default_sampling_params)
    fields = set(inspect.signature(vllm.SamplingParams.from_optional).parameters)
    assert {"temperature", "top_p", "top_k", "min_p", "repetition_penalty"} <= fields
    assert {"presence_penalty", "frequency_penalty"} <= fields
    init = inspect.signature(vllm.LLM.__init__).parameters
    assert "model" in init and "tensor_parallel_size" in init
    assert any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in init.values()
    )  # engine kwargs pass through

    default = vllm.SamplingParams()
    assert default.max_tokens == 16  # why VLLMPolicy always sets max_tokens
    p = vllm.SamplingParams(n=3, temperature=0.7, top_p=0.9, max_tokens=123, seed=42)
    assert (p.n, p.temperature, p.top_p, p.max_tokens, p.seed) == (3, 0.7, 0.9, 123, 42)

    from vllm.outputs import CompletionOutput, RequestOutput

    completion_fields = set(inspect.signature(CompletionOutput).parameters)
    assert {"index", "text", "token_ids", "finish_reason"} <= completion_fields
    request_fields = set(inspect.signature(RequestOutput).parameters)
    assert {"prompt_token_ids", "outputs"} <= request_fields

    # Sample j of a seeded request is drawn with seed + j (vllm/v1/engine/parallel_sampling.py):
    # why VLLMPolicy spaces request seeds n apart.
    from vllm.v1.engine.parallel_sampling import ParentRequest

    parent = ParentRequest(SimpleNamespace(request_id="r", external_req_id="r", params=p))
    assert [parent.get_child_info(j)[1].seed for j in range(3)] == [42, 43, 44]

    # The policy builds real SamplingParams.
    policy = VLLMPolicy("m", llm=_FakeLLM(), seed=7, max_tokens=99)
    sp = policy.sampling_params(2, 7)
    assert isinstance(sp, vllm.SamplingParams) and (sp.n, sp.max_tokens, sp.seed) == (2, 99, 7)
