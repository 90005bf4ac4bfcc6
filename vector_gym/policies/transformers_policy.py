"""A policy backed by a Hugging Face ``transformers`` causal or vision-language model.

Layer 5. Runs anywhere torch runs (CPU included): batched ``generate`` with
left padding, ``num_return_sequences=n``, one chat template per observation
(:mod:`vector_gym.policies.templates`) rendered through the tokenizer's own
chat template. torch and transformers are imported when the policy is built,
never at module import.

Vision-language models. A model directory whose config has a ``vision_config``
(LLaVA, Qwen2-VL, Idefics3, SmolVLM, Gemma 3, ...) is loaded with
``AutoModelForImageTextToText`` and ``AutoProcessor``; observations that carry an
``"image"`` (``vector-gym eval --observation image``) then get the image in their
first user message (:mod:`vector_gym.policies.multimodal`, ``"processor"`` style),
rendered by the processor's chat template and passed to the processor as
``images`` (one per image observation, in batch order). A text-only model refuses
image observations with a ConfigError instead of ignoring the image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion
from vector_gym.policies.multimodal import build_chat, has_images, to_pil
from vector_gym.policies.templates import ChatTemplate, default_max_tokens

__all__ = ["TransformersPolicy", "make_transformers_policy"]


class TransformersPolicy:
    """Generate answers with a local ``transformers`` causal LM or vision-language model.

    Parameters
    ----------
    model : str or os.PathLike or transformers.PreTrainedModel
        A local directory (or hub id, when the caller has network) loaded with
        ``AutoModelForCausalLM.from_pretrained`` (``AutoModelForImageTextToText`` when its
        config has a ``vision_config``), or a loaded model.
    tokenizer : str or PreTrainedTokenizerBase, optional
        Defaults to ``model`` when that is a path. Must have a chat template. With a
        ``processor``, its tokenizer is used.
    processor : str or os.PathLike or transformers.ProcessorMixin, optional
        The processor of a vision-language model (``AutoProcessor``); defaults to
        ``model``'s directory when that holds a vision-language model. Its chat template
        renders the conversations and it turns each observation's ``"image"`` into the
        model's inputs (``pixel_values``, ...).
    max_new_tokens : int, optional
        Token budget per completion (>= 1). None (default): the protocol's
        budget of each observation,
        :func:`~vector_gym.policies.templates.default_max_tokens` (Vector-Bench:
        ``max(8192, len(source) // 2 + 2048)``). A completion that reaches its
        budget without an end-of-sequence token is recorded as ``finish_reason
        "length"`` (truncated).
    temperature : float
        0 means greedy decoding (the ``n`` completions are then identical
        and decoded once); > 0 samples with this temperature.
    top_p : float
        Nucleus-sampling mass in (0, 1] (ignored when greedy).
    batch_size : int
        Observations per ``generate`` call (each yields ``n`` sequences).
    seed : int
        Base seed; call k of :meth:`generate` seeds torch with ``seed + k``.
    template, templates
        Chat template choice, see :func:`vector_gym.policies.templates.select_template`.
    device : str
        torch device for the model, default ``"cpu"``.
    name : str, optional
        Label for rollouts; default ``"hf:<model path or class>"``.
    model_kwargs : mapping, optional
        Extra keyword arguments for ``from_pretrained`` (``dtype``, ...).

    Raises
    ------
    ConfigError
        For out-of-range arguments, a model or tokenizer that cannot be loaded
        from ``model`` / ``tokenizer`` (no such directory, no network for a hub
        id, ...) or a tokenizer without a chat template.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        max_new_tokens: int | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        batch_size: int = 4,
        seed: int = 0,
        template: ChatTemplate | None = None,
        templates: Mapping[str, ChatTemplate] | None = None,
        device: str = "cpu",
        name: str | None = None,
        model_kwargs: Mapping[str, Any] | None = None,
        processor: Any = None,
    ) -> None:
        if max_new_tokens is not None and int(max_new_tokens) < 1:
            raise ConfigError(f"max_new_tokens: expected >= 1 or None, got {max_new_tokens}")
        if temperature < 0:
            raise ConfigError(f"temperature: expected >= 0, got {temperature}")
        if not 0 < top_p <= 1:
            raise ConfigError(f"top_p: expected in (0, 1], got {top_p}")
        if int(batch_size) < 1:
            raise ConfigError(f"batch_size: expected >= 1, got {batch_size}")
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoProcessor, AutoTokenizer

        self._torch = torch
        if isinstance(model, str) or hasattr(model, "__fspath__"):
            label = str(model)
            try:  # a vision-language model's config holds its vision tower's
                vision = getattr(AutoConfig.from_pretrained(model), "vision_config", None) is not None
            except (OSError, ValueError):  # no config: the model load below names the error
                vision = False
            if vision and processor is None:
                processor = model
            if tokenizer is None:
                tokenizer = model
            if vision:
                from transformers import AutoModelForImageTextToText

                model = _load(AutoModelForImageTextToText, model, dict(model_kwargs or {}))
            else:
                model = _load(AutoModelForCausalLM, model, dict(model_kwargs or {}))
        else:
            label = type(model).__name__
            if tokenizer is None:
                raise ConfigError(
                    "tokenizer: expected a tokenizer or path when model is an object, got None"
                )
        if isinstance(processor, str) or hasattr(processor, "__fspath__"):
            processor = _load(AutoProcessor, processor, {})
        if processor is not None:
            if getattr(processor, "tokenizer", None) is None or not callable(processor):
                raise ConfigError(
                    f"processor: expected a transformers processor with a tokenizer, got "
                    f"{type(processor).__name__}"
                )
            tokenizer = processor.tokenizer
            if not getattr(processor, "chat_template", None):
                if not getattr(tokenizer, "chat_template", None):
                    raise ConfigError(
                        "processor has no chat_template; set processor.chat_template first"
                    )
                processor.chat_template = tokenizer.chat_template
        if isinstance(tokenizer, str) or hasattr(tokenizer, "__fspath__"):
            tokenizer = _load(AutoTokenizer, tokenizer, {})
        if not getattr(tokenizer, "chat_template", None) and processor is None:
            raise ConfigError("tokenizer has no chat_template; set tokenizer.chat_template first")
        tokenizer.padding_side = "left"
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.processor = processor
        #: True when the model reads image observations (a vision-language model's processor).
        self.accepts_images = processor is not None
        self.max_new_tokens = None if max_new_tokens is None else int(max_new_tokens)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.batch_size = int(batch_size)
        self.seed = int(seed)
        self.template = template
        self.templates = templates
        self.device = device
        self.name = name or f"hf:{label}"
        self._calls = 0
        eos = self.model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        self._eos_ids = set(eos if isinstance(eos, list) else [eos]) - {None}
        if not self._eos_ids:
            raise ConfigError("no eos_token_id on the model's generation config or the tokenizer")

    def token_budget(self, observation: Mapping[str, Any]) -> int:
        """Output token budget for ``observation``: ``max_new_tokens``, else the protocol's."""
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        return default_max_tokens(observation)

    def generate(
        self, observations: Sequence[Mapping[str, Any]], n: int = 1
    ) -> list[list[Completion]]:
        """Answer each observation with ``n`` completions.

        Parameters
        ----------
        observations : sequence of mapping
            Length B; see :mod:`vector_gym.policies.templates` for the keys.
        n : int
            Completions per observation (>= 1).

        Returns
        -------
        list of list of Completion
            Shape (B, n), input order. ``prompt_tokens`` counts the rendered
            chat prompt; ``completion_tokens`` counts generated tokens up to
            and including the first end-of-sequence token; ``finish_reason`` is
            ``"stop"`` (end-of-sequence) or ``"length"`` (the observation's
            :meth:`token_budget` reached).
        """
        if n < 1:
            raise ConfigError(f"n: expected >= 1, got {n}")
        if not self.accepts_images and has_images(observations):
            raise ConfigError(
                f"{self.name}: the observations carry images but this is a text-only model "
                "(no vision_config / processor); use a vision-language model or text observations"
            )
        torch = self._torch
        self._calls += 1
        torch.manual_seed(self.seed + self._calls - 1)
        conversations = build_chat(observations, self.template, self.templates, style="processor")
        budgets = [self.token_budget(o) for o in observations]
        out: list[list[Completion]] = []
        for start in range(0, len(conversations), self.batch_size):
            stop = start + self.batch_size
            out.extend(self._generate_batch(conversations[start:stop], budgets[start:stop], n))
        return out

    def _generate_batch(
        self, conversations: list[list[dict[str, Any]]], budgets: list[int], n: int
    ) -> list[list[Completion]]:
        """Generate up to the batch's largest budget; each answer is cut at its own budget
        (decoding is per sequence, so that equals generating with that budget alone)."""
        torch = self._torch
        renderer = self.processor if self.processor is not None else self.tokenizer
        texts = [
            renderer.apply_chat_template(c, add_generation_prompt=True, tokenize=False)
            for c in conversations
        ]
        if self.processor is not None:
            images = [to_pil(p["image"]) for c in conversations for p in _image_parts(c)]
            enc = self.processor(
                text=texts,
                images=images or None,
                return_tensors="pt",
                padding=True,
                add_special_tokens=False,
            )
        else:
            enc = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        dtype = getattr(self.model, "dtype", None)
        enc = {
            k: v.to(self.device, dtype=dtype) if v.is_floating_point() and dtype else v.to(self.device)
            for k, v in enc.items()
        }
        prompt_lengths = enc["attention_mask"].sum(dim=1).tolist()
        sampling = self.temperature > 0
        # Greedy decoding is deterministic: decode once, repeat the answer n times.
        per_prompt = n if sampling else 1
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": max(budgets),
            "num_return_sequences": per_prompt,
            "do_sample": sampling,
            "pad_token_id": self.tokenizer.pad_token_id,
            "eos_token_id": sorted(self._eos_ids),
        }
        if sampling:
            gen_kwargs.update(temperature=self.temperature, top_p=self.top_p, top_k=0)
        with torch.inference_mode():
            sequences = self.model.generate(**enc, **gen_kwargs)
        new_tokens = sequences[:, enc["input_ids"].shape[1] :].tolist()
        result: list[list[Completion]] = []
        for i, prompt_len in enumerate(prompt_lengths):
            row: list[Completion] = []
            budget = budgets[i]
            group = new_tokens[i * per_prompt : (i + 1) * per_prompt]
            for ids in group if sampling else group * n:
                ids = ids[:budget]
                stop_at = next((j for j, t in enumerate(ids) if t in self._eos_ids), None)
                if stop_at is None:
                    kept = ids
                    reason = "length" if len(ids) >= budget else "stop"
                else:
                    kept = ids[: stop_at + 1]
                    reason = "stop"
                text = self.tokenizer.decode(kept, skip_special_tokens=True)
                row.append(
                    Completion(
                        text=text,
                        prompt_tokens=int(prompt_len),
                        completion_tokens=len(kept),
                        finish_reason=reason,
                    )
                )
            result.append(row)
        return result


def _image_parts(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``{"type": "image"}`` content parts of a conversation, in order."""
    return [
        part
        for m in conversation
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if isinstance(part, Mapping) and part.get("type") == "image"
    ]


def _load(auto_class: Any, path: Any, kwargs: dict[str, Any]) -> Any:
    """``auto_class.from_pretrained(path, **kwargs)``; a load failure becomes a ConfigError."""
    try:
        return auto_class.from_pretrained(path, **kwargs)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot load {auto_class.__name__} from {str(path)!r} "
            f"(expected a local model directory or a reachable hub id): {exc}"
        ) from exc


def make_transformers_policy(
    arg: str | None, tasks: Sequence[Any] = (), **options: Any
) -> TransformersPolicy:
    """Registry factory for ``--policy hf:PATH`` (see :func:`vector_gym.policies.make_policy`).

    ``options`` are :class:`TransformersPolicy` keyword arguments (``max_tokens`` is
    accepted as an alias of ``max_new_tokens``); ``tasks`` is ignored.
    """
    if not arg:
        raise ConfigError("policy 'hf' expects a model directory: hf:PATH")
    if "base_url" in options:
        raise ConfigError(
            "hf:PATH runs the model in this process; for a server use openai:MODEL --base-url URL"
        )
    if "max_tokens" in options:
        options["max_new_tokens"] = options.pop("max_tokens")
    return TransformersPolicy(arg, **options)
