"""A policy backed by vLLM's offline engine (``vllm.LLM``): the fast path on a GPU.

Layer 5. Install with ``pip install "vector-gym[vllm]"`` on a CUDA machine;
``vllm`` is imported when the policy is built, never at module import. One
:meth:`VLLMPolicy.generate` call is one ``LLM.chat`` call over the whole batch,
with one ``SamplingParams`` per conversation: ``n`` completions (a whole GRPO
group) come from the same request and share its prefix cache.

vLLM API relied on (checked by ``tests/policies/test_vllm_contract.py``):
``LLM(model, **engine_kwargs)``; ``LLM.chat(messages: list[list[dict]],
sampling_params: SamplingParams | list[SamplingParams], use_tqdm=...,
chat_template=...)`` returning ``list[RequestOutput]`` in input order, a list of
sampling params being paired one by one with the conversations;
``SamplingParams(n, temperature, top_p, max_tokens, seed)``;
``LLM.get_default_sampling_params()`` (the model's generation-config sampling settings);
``RequestOutput.prompt_token_ids`` and ``.outputs: list[CompletionOutput]``;
``CompletionOutput.text``, ``.token_ids`` and ``.finish_reason`` (``"stop"`` or
``"length"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion
from vector_gym.policies.templates import ChatTemplate, build_messages, default_max_tokens

__all__ = ["VLLMPolicy", "make_vllm_policy"]


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
        sent: vLLM's own default is 16 tokens, far too short for an SVG. A
        completion that reaches it has ``finish_reason "length"`` (truncated).
    temperature, top_p : float, optional
        Sampling settings; None keeps the model's defaults. Those are read
        once from ``LLM.get_default_sampling_params()`` (the model's
        ``generation_config.json``, as ``vllm serve`` applies it; vLLM uses
        it only when no ``SamplingParams`` are passed, and this policy always
        passes some): ``temperature``, ``top_p``, ``top_k``, ``min_p`` and the
        repetition, presence and frequency penalties are copied into every
        request. Without a generation config: temperature 1, top_p 1.
    seed : int
        Base seed. Request i of a call gets seed ``seed + offset + i * n``,
        where ``offset`` counts the completions of earlier calls. vLLM seeds
        sample j of a request with ``seed + j`` (``vllm/v1/engine/parallel_sampling.py``),
        so seeds are ``n`` apart: the n-sample groups of different requests
        never share random streams, and no seed repeats within a policy's
        life, even when ``n`` changes between calls.
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
    **engine_kwargs
        Passed through to ``vllm.LLM``: ``tensor_parallel_size``,
        ``gpu_memory_utilization``, ``max_model_len``, ``dtype``,
        ``enable_prefix_caching`` ...

    Raises
    ------
    ConfigError
        For out-of-range arguments, or when vLLM is not installed.
    """

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int = 0,
        template: ChatTemplate | None = None,
        templates: Mapping[str, ChatTemplate] | None = None,
        chat_template: str | None = None,
        use_tqdm: bool = False,
        llm: Any = None,
        sampling_params_cls: type | None = None,
        name: str | None = None,
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
            try:
                import vllm
            except ImportError as exc:
                raise ConfigError(
                    'VLLMPolicy needs vLLM: pip install "vector-gym[vllm]" (CUDA machine)'
                ) from exc
            if sampling_params_cls is None:
                sampling_params_cls = vllm.SamplingParams
            if llm is None:
                llm = vllm.LLM(model=model, **engine_kwargs)
        self.llm = llm
        self.model = model
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.temperature = temperature
        self.top_p = top_p
        self.seed = int(seed)
        self.template = template
        self.templates = templates
        self.chat_template = chat_template
        self.use_tqdm = bool(use_tqdm)
        self.name = name or f"vllm:{model}"
        self._sampling_params_cls = sampling_params_cls
        self.model_defaults = _model_defaults(llm)
        self._seed_offset = 0

    def token_budget(self, observation: Mapping[str, Any]) -> int:
        """Output token budget for ``observation``: ``max_tokens``, else the protocol's."""
        if self.max_tokens is not None:
            return self.max_tokens
        return default_max_tokens(observation)

    def sampling_params(self, n: int, seed: int, max_tokens: int | None = None) -> Any:
        """Build the ``SamplingParams`` of one request (``max_tokens`` always set).

        ``max_tokens`` None means ``self.max_tokens``, else the protocol floor of 8,192
        (:data:`~vector_gym.policies.templates.BUDGET_FLOOR_TOKENS`); :meth:`generate`
        passes each observation's :meth:`token_budget`.
        """
        if max_tokens is None:
            max_tokens = self.token_budget({})
        kwargs: dict[str, Any] = {
            **self.model_defaults,
            "n": n,
            "max_tokens": int(max_tokens),
            "seed": seed,
        }
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
            ``len(CompletionOutput.token_ids)`` and ``finish_reason`` is vLLM's
            (``"length"`` means truncated at ``max_tokens``).
        """
        if n < 1:
            raise ConfigError(f"n: expected >= 1, got {n}")
        conversations = build_messages(observations, self.template, self.templates)
        if not conversations:
            return []
        base = self._seed_offset
        self._seed_offset += len(conversations) * n
        params = [
            self.sampling_params(n, self.seed + base + i * n, self.token_budget(o))
            for i, o in enumerate(observations)
        ]
        kwargs: dict[str, Any] = {"sampling_params": params, "use_tqdm": self.use_tqdm}
        if self.chat_template is not None:
            kwargs["chat_template"] = self.chat_template
        outputs = self.llm.chat(conversations, **kwargs)
        if len(outputs) != len(conversations):
            raise RuntimeError(
                f"LLM.chat returned {len(outputs)} outputs for {len(conversations)} conversations"
            )
        result: list[list[Completion]] = []
        for request in outputs:
            prompt_ids = getattr(request, "prompt_token_ids", None)
            prompt_tokens = len(prompt_ids) if prompt_ids is not None else None
            row = [
                Completion(
                    text=c.text,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=len(c.token_ids),
                    finish_reason=None if c.finish_reason is None else str(c.finish_reason),
                )
                for c in sorted(request.outputs, key=lambda c: getattr(c, "index", 0))
            ]
            result.append(row)
        return result


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


def make_vllm_policy(arg: str | None, tasks: Sequence[Any] = (), **options: Any) -> VLLMPolicy:
    """Registry factory for ``--policy vllm:MODEL``.

    ``options`` are :class:`VLLMPolicy` keyword arguments and engine options
    (``max_tokens``, ``temperature``, ``seed``, ``tensor_parallel_size`` ...);
    ``base_url`` is rejected (that is ``openai:MODEL``); ``tasks`` is ignored.
    """
    if not arg:
        raise ConfigError("policy 'vllm' expects a model id or path: vllm:MODEL")
    if "base_url" in options:
        raise ConfigError(
            "vllm:MODEL runs the model in this process; for a server use openai:MODEL --base-url URL"
        )
    return VLLMPolicy(arg, **options)
