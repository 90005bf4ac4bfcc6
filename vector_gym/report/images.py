"""Pictures for the HTML report: batched renders, difference overlays, changed-part boxes.

Every picture starts from :func:`vector_gym.render.render_many` (white background, aspect-ratio
fit into one fixed ``(H, W)``), called in batches with each distinct SVG text rendered once.
PNG files are written with Pillow (a dependency of matplotlib).

Three kinds of picture are derived here:

- the render of a document (source, target, each run's output);
- a difference overlay of an output against the target: the target in light grey, with the
  pixels where the two renders differ by more than :data:`DIFF_THRESHOLD` in any sRGB channel
  painted red;
- the boxes of the protected elements that changed: a *mask document* keeps only the changed
  parts of the output (every other drawn element is removed), paints each in its own flat
  colour, and is rendered like any other document; each part's box is the bounding box of the
  pixels of its colour. The boxes are drawn by the page over the output's render.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "DIFF_THRESHOLD",
    "MAX_BOXED_PARTS",
    "RenderedImage",
    "render_distinct",
    "diff_overlay",
    "mask_document",
    "part_boxes",
    "write_png",
    "svg_key",
]

DIFF_THRESHOLD = 24
"""A pixel differs when some sRGB channel differs by more than this (0..255); it keeps
anti-aliasing noise at shared edges out of the overlay."""

# Flat, well separated colours for the mask document (one per changed part).
_PALETTE: tuple[tuple[int, int, int], ...] = (
    (255, 0, 0),
    (0, 160, 0),
    (0, 0, 255),
    (255, 0, 255),
    (0, 200, 200),
    (255, 140, 0),
    (128, 0, 128),
    (0, 0, 0),
    (128, 128, 0),
    (0, 128, 128),
    (128, 0, 0),
    (0, 0, 128),
)
MAX_BOXED_PARTS = len(_PALETTE)
"""Changed parts boxed per output (one flat colour each in the mask document)."""
_MATCH_TOL = 40  # max per-channel distance of a pixel to its part's colour (anti-aliased edges)

# Elements that draw something by themselves (SVG 1.1 graphics elements and text content).
_DRAWN = frozenset(
    {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "image", "use"}
)
# Containers whose content is never drawn in place.
_NOT_RENDERED = frozenset(
    {"defs", "clipPath", "mask", "marker", "pattern", "symbol", "linearGradient",
     "radialGradient", "filter", "style", "title", "desc", "metadata", "script"}
)


@dataclass(frozen=True, slots=True)
class RenderedImage:
    """One rendered document.

    Attributes
    ----------
    image : ndarray, shape (H, W, 3), uint8
        sRGB on white (a blank white image when rendering failed).
    ok : bool
        Whether the renderer drew the document.
    error : str or None
        The renderer's failure reason (:mod:`vector_gym.render.reasons`) when ``ok`` is False.
    """

    image: np.ndarray
    ok: bool
    error: str | None


def svg_key(svg: str) -> str:
    """Return a short stable file-name key for an SVG text (SHA-1 of its UTF-8 bytes, 16 hex)."""
    return hashlib.sha1(svg.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def render_distinct(
    svgs: Iterable[str], size: tuple[int, int], *, batch_size: int = 256
) -> dict[str, RenderedImage]:
    """Render each distinct SVG text once, in batches, through ``render_many``.

    Parameters
    ----------
    svgs : iterable of str
        Documents; duplicates are rendered once.
    size : (int, int)
        ``(H, W)`` in pixels of every image (aspect-ratio fit, white background).
    batch_size : int
        Documents per ``render_many`` call.

    Returns
    -------
    dict of str to RenderedImage
        Keyed by the SVG text.
    """
    from vector_gym.render import render_many

    distinct = list(dict.fromkeys(s for s in svgs if isinstance(s, str)))
    out: dict[str, RenderedImage] = {}
    for start in range(0, len(distinct), batch_size):
        chunk = distinct[start : start + batch_size]
        batch = render_many(chunk, size=size, background="white")
        for i, svg in enumerate(chunk):
            ok = bool(batch.ok[i])
            err = None if ok else (batch.errors[i] or "render_failed")
            out[svg] = RenderedImage(np.asarray(batch.images[i], dtype=np.uint8), ok, err)
    return out


def diff_overlay(output: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, float]:
    """Build the difference overlay of an output render against the target render.

    Parameters
    ----------
    output, target : ndarray, shape (H, W, 3), uint8
        Renders at the same size.

    Returns
    -------
    overlay : ndarray, shape (H, W, 3), uint8
        The target as light grey, with differing pixels red (220, 38, 38).
    fraction : float
        Fraction of pixels that differ, in [0, 1].

    Examples
    --------
    >>> a = np.full((2, 2, 3), 255, np.uint8); b = a.copy(); b[0, 0] = 0
    >>> img, frac = diff_overlay(a, b)
    >>> frac, img[0, 0].tolist()
    (0.25, [220, 38, 38])
    """
    diff = np.abs(output.astype(np.int16) - target.astype(np.int16)).max(axis=2) > DIFF_THRESHOLD
    grey = target.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    light = (255.0 - (255.0 - grey) * 0.3).astype(np.uint8)
    overlay = np.repeat(light[:, :, None], 3, axis=2)
    overlay[diff] = (220, 38, 38)
    return overlay, float(diff.mean()) if diff.size else 0.0


def mask_document(svg: str, part_ids: Sequence[str]) -> tuple[str, dict[str, tuple[int, int, int]]] | None:
    """Build the mask document that paints each changed part in its own flat colour.

    Every drawn element outside the changed parts is removed; each changed part (and its
    descendants) is painted with one colour of a fixed palette, without opacity, filter or mask.
    Only the first :data:`MAX_BOXED_PARTS` parts are painted (one palette colour each); the
    others are left out of the mask.

    Parameters
    ----------
    svg : str
        The output document (already extracted from the response).
    part_ids : sequence of str
        Ids of the protected elements that changed.

    Returns
    -------
    (str, dict) or None
        The mask document and ``part id -> colour`` for the parts found in it; ``None`` when
        the document does not parse (:func:`vector_gym.svg.parse.parse_svg`) or holds none of
        the parts.
    """
    from lxml import etree

    from vector_gym.errors import SVGParseError
    from vector_gym.svg.parse import local_name, parse_svg

    try:
        root = parse_svg(svg)
    except SVGParseError:
        return None
    wanted = {pid: _PALETTE[i] for i, pid in enumerate(list(dict.fromkeys(part_ids))[:MAX_BOXED_PARTS])}
    colours: dict[str, tuple[int, int, int]] = {}
    keep = "data-vector-gym-keep"  # marker attribute (lxml proxies have no stable identity)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        pid = el.get("id")
        if pid in wanted and pid not in colours:
            colour = wanted[pid]
            colours[pid] = colour
            paint = "#{:02x}{:02x}{:02x}".format(*colour)
            for sub in el.iter():
                if not isinstance(sub.tag, str):
                    continue
                sub.set(keep, "1")
                for attr in ("opacity", "filter", "mask", "fill-opacity", "stroke-opacity"):
                    sub.attrib.pop(attr, None)
                sub.set("fill", paint)
                sub.set("stroke", paint)
                sub.set("style", f"fill:{paint};stroke:{paint};opacity:1")
            for anc in el.iterancestors():
                anc.set(keep, "1")
                for attr in ("opacity", "filter", "mask"):
                    anc.attrib.pop(attr, None)
    if not colours:
        return None
    doomed = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get(keep) is not None:
            del el.attrib[keep]
            continue
        name = local_name(el.tag)
        if name in _DRAWN and not any(local_name(a.tag) in _NOT_RENDERED for a in el.iterancestors()):
            doomed.append(el)
    for el in doomed:
        parent = el.getparent()
        if parent is not None:
            parent.remove(el)
    return etree.tostring(root, encoding="unicode"), colours


def part_boxes(
    mask_image: np.ndarray, colours: Mapping[str, tuple[int, int, int]]
) -> dict[str, tuple[float, float, float, float]]:
    """Find each changed part's bounding box in a rendered mask document.

    Parameters
    ----------
    mask_image : ndarray, shape (H, W, 3), uint8
        Render of :func:`mask_document`'s document.
    colours : mapping of str to (int, int, int)
        ``part id -> colour`` from :func:`mask_document`.

    Returns
    -------
    dict of str to (float, float, float, float)
        ``part id -> (left, top, width, height)`` as fractions of the image's width and height;
        parts that drew no pixel are left out.
    """
    h, w = mask_image.shape[:2]
    img = mask_image.astype(np.int16)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    for pid, colour in colours.items():
        hit = (np.abs(img - np.array(colour, np.int16)).max(axis=2) <= _MATCH_TOL)
        ys, xs = np.nonzero(hit)
        if ys.size == 0:
            continue
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        boxes[pid] = (x0 / w, y0 / h, (x1 - x0) / w, (y1 - y0) / h)
    return boxes


def write_png(path: Path, image: np.ndarray) -> None:
    """Write an ``(H, W, 3) uint8`` image as PNG with Pillow."""
    from PIL import Image

    Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8)).save(path, format="PNG")
