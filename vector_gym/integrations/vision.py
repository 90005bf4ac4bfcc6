"""Image observations for vision-language policies: the source SVG rendered on white, as a PIL
image (TRL's ``image`` column) or inside chat messages (OpenAI ``image_url`` parts with a PNG
data URI, which vLLM's multimodal chat accepts too; or ``{"type": "image"}`` parts for a
transformers processor's chat template). The message builders live with the policies
(:mod:`vector_gym.policies.multimodal`, which the model policies use) and are re-exported here.

Layer 7. Rendering goes through :func:`vector_gym.render.render_many` (batched, isolated);
a source that does not render gives a white image. Pillow is imported when an image is encoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vector_gym.policies.multimodal import multimodal_messages, png_data_uri
from vector_gym.tasks.task import Task

__all__ = ["multimodal_messages", "png_data_uri", "render_sources", "render_svgs"]


def _size(size: Any) -> tuple[int, int]:
    from vector_gym.render.batch import _check_size

    return _check_size(size, "size", 4096)


def render_svgs(svgs: Sequence[str], size: tuple[int, int] = (224, 224), backend: str = "skia") -> list[Any]:
    """RGB ``uint8`` arrays of shape ``(H, W, 3)``, one per SVG (white where rendering fails)."""
    from vector_gym.render import render_many

    batch = render_many(list(svgs), size=_size(size), background="white", backend=backend)
    return [img.copy() for img in batch.images]


def render_sources(tasks: Sequence[Task], size: tuple[int, int] = (224, 224), backend: str = "skia") -> list[Any]:
    """The tasks' source SVGs rendered on white, as PIL images (the policy's view; never the target)."""
    from PIL import Image

    return [Image.fromarray(a) for a in render_svgs([t.source_svg for t in tasks], size, backend)]
