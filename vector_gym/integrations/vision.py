"""Image observations for vision-language policies: the source SVG rendered on white, as a PIL
image (TRL's ``image`` column) or inside chat messages (OpenAI ``image_url`` parts with a PNG
data URI, which vLLM's multimodal chat accepts too; or ``{"type": "image"}`` parts for a
transformers processor's chat template).

Layer 7. Rendering goes through :func:`vector_gym.render.render_many` (batched, isolated);
a source that does not render gives a white image. Pillow is imported when an image is encoded.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.tasks.task import Task

__all__ = ["multimodal_messages", "png_data_uri", "render_sources", "render_svgs"]


def _size(size: Any) -> tuple[int, int]:
    try:
        h, w = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ConfigError(f"size: expected (H, W) ints, got {size!r}") from None
    if not (1 <= h <= 4096 and 1 <= w <= 4096):
        raise ConfigError(f"size: expected sides in 1..4096, got {size!r}")
    return h, w


def render_svgs(svgs: Sequence[str], size: tuple[int, int] = (224, 224), backend: str = "skia") -> list[Any]:
    """RGB ``uint8`` arrays of shape ``(H, W, 3)``, one per SVG (white where rendering fails)."""
    from vector_gym.render import render_many

    batch = render_many(list(svgs), size=_size(size), background="white", backend=backend)
    return [img.copy() for img in batch.images]


def render_sources(tasks: Sequence[Task], size: tuple[int, int] = (224, 224), backend: str = "skia") -> list[Any]:
    """The tasks' source SVGs rendered on white, as PIL images (the policy's view; never the target)."""
    from PIL import Image

    return [Image.fromarray(a) for a in render_svgs([t.source_svg for t in tasks], size, backend)]


def png_data_uri(image: Any) -> str:
    """``data:image/png;base64,...`` of an RGB array or PIL image."""
    from PIL import Image

    img = image if isinstance(image, Image.Image) else Image.fromarray(image)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def multimodal_messages(messages: Sequence[dict[str, Any]], image: Any, style: str = "openai") -> list[dict[str, Any]]:
    """Put an image into the first user message of a conversation (the others are unchanged).

    Parameters
    ----------
    messages : list of dict
        Text chat messages (a suite template's output).
    image : array or PIL image
        The rendered observation.
    style : {"openai", "processor"}
        ``"openai"``: ``[{"type": "image_url", "image_url": {"url": <PNG data URI>}}, {"type":
        "text", ...}]`` (OpenAI-compatible servers, vLLM ``LLM.chat``). ``"processor"``:
        ``[{"type": "image", "image": <PIL image>}, {"type": "text", ...}]`` for
        ``processor.apply_chat_template``.

    Raises
    ------
    ConfigError
        Unknown style, or no user message.
    """
    if style not in ("openai", "processor"):
        raise ConfigError(f"style: expected 'openai' or 'processor', got {style!r}")
    out = [dict(m) for m in messages]
    first = next((i for i, m in enumerate(out) if m.get("role") == "user"), None)
    if first is None:
        raise ConfigError("messages: expected a user message to attach the image to")
    text = out[first].get("content")
    parts = list(text) if isinstance(text, list) else [{"type": "text", "text": text or ""}]
    if style == "openai":
        picture = {"type": "image_url", "image_url": {"url": png_data_uri(image)}}
    else:
        from PIL import Image

        picture = {"type": "image", "image": image if isinstance(image, Image.Image) else Image.fromarray(image)}
    out[first] = {**out[first], "content": [picture, *parts]}
    return out
