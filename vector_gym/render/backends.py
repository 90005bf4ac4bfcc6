"""Rasterisers: one document, already checked, drawn into one ``(H, W, 3)`` uint8 slot.

Three backends share one entry point, :func:`render_document`, which runs the tree-level
pre-check (:func:`vector_gym.render.precheck.check_tree`), prepares the document and draws it:

``skia`` (default)
    The normalised render form of :func:`vector_gym.svg.normalise.simplify_tree` is drawn by
    ``skia.SVGDOM`` onto a numpy-backed RGBA surface (``kRGBA_8888``, premultiplied; one per
    canvas size and process, so no per-image allocation) cleared to the background colour.
    skia's SVG module cannot draw three things at all: ``<text>`` (skia-python has no font
    manager), ``<image>`` (not even ``data:`` URIs) and ``mix-blend-mode``. A document that uses
    one of them is drawn by resvg instead when resvg-py is installed (the ``[render]`` extra),
    else by skia without them. ``skia-strict`` never falls back.
``resvg``
    The most standards-complete renderer and the conformance reference. The document, with only
    its root fitted to the canvas (:func:`vector_gym.svg.normalise.fit_root`), goes to resvg-py,
    whose PNG is decoded. No maintained binding on PyPI returns raw pixels (``resvg`` 0.2.0 and
    ``resvg-py`` 0.5.0 both return PNG; checked 2026-11), so the PNG round trip stays. Generic
    font families map to the installed DejaVu fonts; system fonts load only for documents that
    contain ``<text>`` (loading them costs about 0.6 ms per call).
``cairosvg``
    The renderer of the SVGEditBench papers (v1: 72 x 72, V2: 224 x 224, white background), fed
    the same root-fitted document, whose PNG is decoded.

Heavy imports (skia, resvg_py, cairosvg) happen on first use inside this module's functions.
"""

from __future__ import annotations

import os

import numpy as np
from lxml import etree

from vector_gym.render import reasons
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderLimits, RenderRejected, check_tree
from vector_gym.svg.normalise import fit_root, simplify_tree, to_svg_bytes

__all__ = ["BACKENDS", "render_document"]

BACKENDS: tuple[str, ...] = ("skia", "skia-strict", "resvg", "cairosvg")
"""Names accepted by ``backend=``."""

_canvases: dict[tuple[int, int], tuple[np.ndarray, object]] = {}


def _skia_canvas(h: int, w: int):
    """Return this process's (rgba array, skia surface) for an H x W canvas, creating it once."""
    entry = _canvases.get((h, w))
    if entry is None:
        import skia

        rgba = np.empty((h, w, 4), dtype=np.uint8)
        surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        if len(_canvases) > 8:  # a long-lived worker that saw many sizes: drop the oldest
            _canvases.pop(next(iter(_canvases)))
        entry = _canvases[(h, w)] = (rgba, surface)
    return entry


def _copy_rgb(rgba: np.ndarray, out: np.ndarray) -> None:
    """Copy RGB out of RGBA: one strided copy per channel is 4x faster than ``copyto`` here."""
    src = rgba.reshape(-1, 4)
    dst = out.reshape(-1, 3)
    dst[:, 0] = src[:, 0]
    dst[:, 1] = src[:, 1]
    dst[:, 2] = src[:, 2]


def _draw_skia(data: bytes, out: np.ndarray, background: tuple[int, int, int]) -> str | None:
    import skia

    h, w = out.shape[:2]
    rgba, surface = _skia_canvas(h, w)
    canvas = surface.getCanvas()
    canvas.clear(skia.Color(*background))
    dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
    if dom is None:
        return reasons.RENDER_FAILED
    dom.setContainerSize(skia.Size(w, h))
    dom.render(canvas)
    _copy_rgb(rgba, out)
    return None


def _draw_png(png: bytes, out: np.ndarray, background: tuple[int, int, int]) -> str | None:
    """Composite a PNG over the background into ``out`` (decoded with skia, no extra dependency)."""
    import skia

    h, w = out.shape[:2]
    image = skia.Image.MakeFromEncoded(skia.Data.MakeWithCopy(png))
    if image is None:
        return reasons.RENDER_FAILED
    rgba, surface = _skia_canvas(h, w)
    canvas = surface.getCanvas()
    canvas.clear(skia.Color(*background))
    canvas.drawImage(image, 0, 0)
    _copy_rgb(rgba, out)
    return None


_FONT_DIR = "/usr/share/fonts/truetype/dejavu"


def _resvg_png(text: str, background: tuple[int, int, int]) -> bytes:
    import resvg_py

    bg = "#{:02x}{:02x}{:02x}".format(*background)
    if "<text" not in text and "<tspan" not in text:
        return bytes(resvg_py.svg_to_bytes(svg_string=text, background=bg, skip_system_fonts=True))
    families = {}
    if os.path.isdir(_FONT_DIR):
        families = dict(
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            serif_family="DejaVu Serif",
            monospace_family="DejaVu Sans Mono",
            cursive_family="DejaVu Sans",
            fantasy_family="DejaVu Sans",
        )
    return bytes(resvg_py.svg_to_bytes(svg_string=text, background=bg, **families))


def _cairosvg_png(data: bytes, background: tuple[int, int, int]) -> bytes:
    import cairosvg

    bg = "#{:02x}{:02x}{:02x}".format(*background)
    return cairosvg.svg2png(bytestring=data, background_color=bg, unsafe=False)


_SKIA_CANNOT_DRAW = etree.XPath(
    "boolean(//*[local-name() = 'image' or local-name() = 'foreignObject']"
    " | //*[local-name() = 'text'][normalize-space(.) != '']"
    " | //@*[contains(., 'mix-blend-mode')] | //@mix-blend-mode"
    " | //*[local-name() = 'style'][contains(., 'mix-blend-mode')])"
)
_resvg_available: bool | None = None


def _have_resvg() -> bool:
    global _resvg_available
    if _resvg_available is None:
        try:
            import resvg_py  # noqa: F401

            _resvg_available = True
        except ImportError:
            _resvg_available = False
    return _resvg_available


def render_document(
    svg: str | bytes,
    out: np.ndarray,
    background: tuple[int, int, int] = (255, 255, 255),
    backend: str = "skia",
    limits: RenderLimits = DEFAULT_LIMITS,
) -> str | None:
    """Check, prepare and draw one document into ``out``, in the calling process.

    Parameters
    ----------
    svg : str or bytes
        The document (UTF-8 when bytes).
    out : numpy.ndarray
        ``(H, W, 3)`` uint8 array (C-contiguous rows) written in place with sRGB pixels composited
        on ``background``. Left untouched when the document fails.
    background : tuple of 3 int
        Background colour, 0-255 sRGB.
    backend : {"skia", "skia-strict", "resvg", "cairosvg"}
        The rasteriser (``skia`` falls back to resvg for text, images and blend modes).
    limits : RenderLimits
        Pre-check bounds.

    Returns
    -------
    str or None
        ``None`` on success, else a name from :data:`vector_gym.render.reasons.REASONS`.

    Raises
    ------
    ValueError
        For an unknown ``backend`` (a programmer error). Nothing the document contains raises:
        a ``MemoryError`` becomes ``out_of_memory`` and any rasteriser error ``render_failed``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    h, w = out.shape[:2]
    try:
        root = check_tree(svg, limits)
        if backend == "skia" and _SKIA_CANNOT_DRAW(root) and _have_resvg():
            backend = "resvg"
        if backend in ("skia", "skia-strict"):
            simplify_tree(root, size=(h, w))
            return _draw_skia(to_svg_bytes(root), out, background)
        fit_root(root, (h, w))
        data = etree.tostring(root, encoding="utf-8")
        if backend == "resvg":
            png = _resvg_png(data.decode("utf-8"), background)
        else:
            png = _cairosvg_png(data, background)
        return _draw_png(png, out, background)
    except RenderRejected as exc:
        return exc.reason
    except MemoryError:
        return reasons.OUT_OF_MEMORY
    except RecursionError:
        return reasons.TOO_DEEP
    except Exception:  # noqa: BLE001 - a rasteriser's own error on a hostile document
        return reasons.RENDER_FAILED
