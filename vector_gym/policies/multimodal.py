"""Image observations in chat messages: what a vision-language policy reads.

Layer 5. An observation may carry ``"image"``: the current document rendered on white, an
``(H, W, 3)`` ``uint8`` array (:class:`vector_gym.envs.wrappers.ImageObservation`, ``vector-gym
eval --observation image``) or a PIL image. The model policies then put the image into the first
user message of the template's conversation, before its text, in their backend's style:

- ``"openai"``: ``{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}``
  (OpenAI-compatible servers: ``vllm serve``, SGLang, hosted APIs);
- ``"processor"``: ``{"type": "image", "image": <PIL image>}`` for a transformers processor's
  ``apply_chat_template`` (:class:`~vector_gym.policies.transformers_policy.TransformersPolicy`);
- ``"vllm"``: ``{"type": "image_pil", "image_pil": <PIL image>}`` for ``vllm.LLM.chat``
  (:class:`~vector_gym.policies.vllm_policy.VLLMPolicy`; no PNG round trip).

Observations without an image give the text messages unchanged. Pillow is imported when an
image is converted.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.templates import ChatTemplate, build_messages, content_text

__all__ = [
    "IMAGE_STYLES",
    "build_chat",
    "has_images",
    "multimodal_messages",
    "observation_image",
    "png_data_uri",
    "text_only",
    "to_pil",
]

#: Content-part styles of :func:`multimodal_messages` (module docstring).
IMAGE_STYLES: tuple[str, ...] = ("openai", "processor", "vllm")


def observation_image(observation: Mapping[str, Any]) -> Any | None:
    """The observation's ``"image"`` (array or PIL image), or None when it has none."""
    return observation.get("image") if isinstance(observation, Mapping) else None


def has_images(observations: Sequence[Mapping[str, Any]]) -> bool:
    """True when any observation carries an image."""
    return any(observation_image(o) is not None for o in observations)


def to_pil(image: Any) -> Any:
    """An RGB PIL image of an ``(H, W, 3)`` ``uint8`` array or a PIL image.

    Raises
    ------
    ConfigError
        Anything else (another dtype or shape, not an image).
    """
    from PIL import Image

    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    import numpy as np

    arr = np.asarray(image) if hasattr(image, "__array__") else None
    if arr is None or arr.dtype != np.uint8 or arr.ndim != 3 or arr.shape[2] != 3:
        got = f"array {arr.dtype} {arr.shape}" if arr is not None else type(image).__name__
        raise ConfigError(f"observation image: expected an (H, W, 3) uint8 array or a PIL image, got {got}")
    return Image.fromarray(np.ascontiguousarray(arr))


def png_data_uri(image: Any) -> str:
    """``data:image/png;base64,...`` of an RGB array or PIL image (lossless)."""
    buf = io.BytesIO()
    to_pil(image).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _part(image: Any, style: str) -> dict[str, Any]:
    if style == "openai":
        return {"type": "image_url", "image_url": {"url": png_data_uri(image)}}
    if style == "processor":
        return {"type": "image", "image": to_pil(image)}
    return {"type": "image_pil", "image_pil": to_pil(image)}


def multimodal_messages(
    messages: Sequence[dict[str, Any]], image: Any, style: str = "openai"
) -> list[dict[str, Any]]:
    """Put an image into the first user message of a conversation (the others are unchanged).

    Parameters
    ----------
    messages : list of dict
        Text chat messages (a template's output).
    image : array or PIL image
        The rendered observation, ``(H, W, 3)`` ``uint8``.
    style : {"openai", "processor", "vllm"}
        The content-part format (module docstring); the user message becomes ``[<image part>,
        {"type": "text", "text": <its text>}]``.

    Raises
    ------
    ConfigError
        Unknown style, no user message, or an image that is not an RGB array / PIL image.
    """
    if style not in IMAGE_STYLES:
        raise ConfigError(f"style: expected one of {IMAGE_STYLES}, got {style!r}")
    out = [dict(m) for m in messages]
    first = next((i for i, m in enumerate(out) if m.get("role") == "user"), None)
    if first is None:
        raise ConfigError("messages: expected a user message to attach the image to")
    text = out[first].get("content")
    parts = list(text) if isinstance(text, list) else [{"type": "text", "text": text or ""}]
    out[first] = {**out[first], "content": [_part(image, style), *parts]}
    return out


def build_chat(
    observations: Sequence[Mapping[str, Any]],
    template: ChatTemplate | None = None,
    templates: Mapping[str, ChatTemplate] | None = None,
    style: str = "openai",
) -> list[list[dict[str, Any]]]:
    """:func:`~vector_gym.policies.templates.build_messages`, with each observation's image
    (when it carries one) put into its conversation in ``style`` (:func:`multimodal_messages`).

    Returns
    -------
    list of list of dict
        Length B, input order.
    """
    conversations = build_messages(observations, template, templates)
    return [
        c if observation_image(o) is None else multimodal_messages(c, observation_image(o), style)
        for o, c in zip(observations, conversations, strict=True)
    ]


def text_only(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The conversation with every content as plain text (image parts dropped): what a text
    tokenizer's chat template can count."""
    return [{**m, "content": content_text(m.get("content"))} for m in messages]
