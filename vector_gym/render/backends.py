"""Rasterisers: one document, already checked, drawn into one ``(H, W, 3)`` uint8 slot.

Three backends share one entry point, :func:`render_document`, which runs the tree-level
pre-check (:func:`vector_gym.render.precheck.check_tree`), prepares the document and draws it:

``skia`` (default)
    The normalised render form of :func:`vector_gym.svg.normalise.simplify_tree` is drawn by
    ``skia.SVGDOM`` onto a numpy-backed RGBA surface (``kRGBA_8888``, premultiplied; one per
    canvas size and process, so no per-image allocation) cleared to the background colour.
    Routing by capability: a document using a feature the normaliser cannot lower faithfully
    to skia (:func:`vector_gym.svg.normalise.capability.skia_unsupported`: text, images, blend
    modes, some filter primitives and inputs, CSS filter functions, ``context-fill``, markers
    with ``paint-order``) is drawn by resvg instead; :func:`draw_document` returns which
    backend drew it (``RenderBatch.drawn_by``). resvg-py is a required dependency, so this
    never changes with the installed extras. ``skia-strict`` never routes.
``resvg``
    The most standards-complete renderer and the conformance reference. The document, with only
    its root fitted to the canvas (:func:`vector_gym.svg.normalise.fit_root`), goes to resvg-py,
    drawn on transparent and composited on the background here (so ``mix-blend-mode`` mixes
    with what is below it in the picture, not with the background, as in a browser). No
    maintained binding on PyPI returns raw pixels (``resvg`` 0.2.0 and ``resvg-py`` 0.5.0 both
    return PNG; checked 2026-11), so the PNG round trip stays. Generic font families map to
    the installed DejaVu fonts; system fonts load only for documents that contain ``<text>``
    (loading them costs about 0.6 ms per call). Selector matching is bounded first
    (:func:`vector_gym.svg.normalise.style.check_selectors`).
``cairosvg``
    The renderer of the SVGEditBench papers (v1: 72 x 72, V2: 224 x 224, white background), fed
    the same root-fitted document, whose PNG is decoded.

Fast path and cache (issue 16, item 1). The skia backends first test whether the document is
already in the subset skia draws right: on its text, when the text is of the narrower grammar of
:func:`vector_gym.svg.normalise.subset_text.lower_skia_subset_text` (one regex pass; every
Vector-Bench and RepairGen scene), else on its tree
(:func:`vector_gym.svg.normalise.subset.lower_skia_subset`, one pass); both give the pixels
of the full normaliser, and only documents outside the subset pay for the full normaliser and
the routing test (when the text also bounds every pre-check limit, expat checks it is
well-formed and no tree is built: :func:`vector_gym.render.precheck.may_skip_parse`; when the
lowering left out nothing that could hide an error, skia's own parse of its output, expat too,
is that check, and a document skia refuses goes back to the checked path:
:func:`_prepare_begin`, :func:`end_document`).
:func:`begin_documents` and :func:`end_document` split this work in two
stages for a render worker: the bounded one (the pre-check and the text lowering) for all the
documents of a message first, then, in each document's turn, the rest and the drawing. The outcome of the pre-check and preparation (the
prepared text and the backend that draws it, or the failure reason) is kept per process in a
bounded least-recently-used cache (:data:`PREPARED_CACHE_BYTES`, keyed by the document's
BLAKE2b digest, the canvas size, the backend and the limits), so task sources and targets,
drawn again and again, are parsed and normalised once per worker. Outcomes that depend on the
moment (``out_of_memory``, a rasteriser error) are not kept. :func:`clear_caches` empties it.

Heavy imports (skia, resvg_py, cairosvg) happen on first use inside this module's functions.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict

import numpy as np
from lxml import etree

from vector_gym.render import reasons
from vector_gym.render.precheck import (
    DEFAULT_LIMITS,
    RenderLimits,
    RenderRejected,
    _check_tree,
    expat_well_formed,
    may_skip_parse,
)
from vector_gym.svg.normalise import fit_root, simplify_tree, to_svg_bytes
from vector_gym.svg.normalise.capability import skia_unsupported
from vector_gym.svg.normalise.common import SVG_NS, XLINK_NS
from vector_gym.svg.normalise.style import CSSTooComplex, check_selectors
from vector_gym.svg.normalise.subset import lower_skia_subset
from vector_gym.svg.normalise.subset_text import (
    lower_skia_subset_text,
    lower_skia_subset_text_intact,
)

__all__ = [
    "BACKENDS",
    "PREPARED_CACHE_BYTES",
    "begin_documents",
    "clear_caches",
    "draw_document",
    "draw_render_form",
    "end_document",
    "render_document",
]

BACKENDS: tuple[str, ...] = ("skia", "skia-strict", "resvg", "cairosvg")
"""Names accepted by ``backend=``."""

# One set of canvases per thread: a canvas shared by threads let one thread read back pixels
# another had just drawn over (tests/test_threads.py).
_thread_canvases = threading.local()


def _skia_canvas(h: int, w: int):
    """Return this thread's (rgba array, skia surface) for an H x W canvas, creating it once."""
    canvases = getattr(_thread_canvases, "by_size", None)
    if canvases is None:
        canvases = _thread_canvases.by_size = {}
    entry = canvases.get((h, w))
    if entry is None:
        import skia

        rgba = np.empty((h, w, 4), dtype=np.uint8)
        surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        if len(canvases) > 8:  # a long-lived worker that saw many sizes: drop the oldest
            canvases.pop(next(iter(canvases)))
        entry = canvases[(h, w)] = (rgba, surface)
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


def _resvg_png(text: str) -> bytes:
    """resvg's PNG of a document, on transparent (composited on the background by the caller)."""
    import resvg_py

    if "<text" not in text and "<tspan" not in text:
        return bytes(resvg_py.svg_to_bytes(svg_string=text, skip_system_fonts=True))
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
    return bytes(resvg_py.svg_to_bytes(svg_string=text, **families))


def _cairosvg_png(data: bytes, background: tuple[int, int, int]) -> bytes:
    import cairosvg

    bg = "#{:02x}{:02x}{:02x}".format(*background)
    return cairosvg.svg2png(bytestring=data, background_color=bg, unsafe=False)


def draw_render_form(
    data: bytes, out: np.ndarray, background: tuple[int, int, int] = (255, 255, 255)
) -> str | None:
    """Draw a document already in the normalised render form with skia, into ``out``.

    ``data`` must be :func:`vector_gym.svg.normalise.to_svg_bytes` of a tree that went through
    :func:`~vector_gym.render.precheck.check_tree` and
    :func:`~vector_gym.svg.normalise.simplify_tree` at ``out``'s size: this is the last step of
    :func:`draw_document` with ``backend="skia-strict"``, for callers that build the render form
    themselves (RepairGen splices one changed element into a cached normalised scene). Nothing
    is checked here. Returns ``None`` or ``render_failed`` / ``out_of_memory``.
    """
    try:
        return _draw_skia(data, out, background)
    except MemoryError:
        return reasons.OUT_OF_MEMORY


PREPARED_CACHE_BYTES = 32 << 20
"""Most bytes of prepared documents one process keeps (:func:`draw_document`'s cache)."""
_PREPARED_MAX_ITEMS = 8192
_PREPARED_MAX_ITEM_BYTES = 1 << 20  # a bigger prepared document is not kept

# digest, H, W, backend, limits -> (backend, prepared bytes) or (None, failure reason)
_prepared: OrderedDict[tuple, tuple[str | None, bytes | str]] = OrderedDict()
_prepared_bytes = 0
_prepared_lock = threading.Lock()  # render_many(processes=0) may run in several threads


def clear_caches() -> None:
    """Forget every prepared document kept by :func:`draw_document` in this process."""
    global _prepared_bytes
    with _prepared_lock:
        _prepared.clear()
        _prepared_bytes = 0


def _recall(key: tuple) -> tuple[str | None, bytes | str] | None:
    with _prepared_lock:
        entry = _prepared.get(key)
        if entry is not None:
            _prepared.move_to_end(key)
        return entry


def _remember(key: tuple, entry: tuple[str | None, bytes | str]) -> None:
    global _prepared_bytes
    size = len(entry[1]) + 200
    if size > _PREPARED_MAX_ITEM_BYTES:
        return
    with _prepared_lock:
        old = _prepared.pop(key, None)
        if old is not None:
            _prepared_bytes -= len(old[1]) + 200
        _prepared[key] = entry
        _prepared_bytes += size
        while _prepared_bytes > PREPARED_CACHE_BYTES or len(_prepared) > _PREPARED_MAX_ITEMS:
            _k, old = _prepared.popitem(last=False)
            _prepared_bytes -= len(old[1]) + 200


def _subset_bytes(root) -> bytes:
    """:func:`to_svg_bytes` of a tree lowered by ``lower_skia_subset``, without its tree scans.

    Such a tree has no ``xlink:href`` (the subset has none), so the namespace declarations
    decide whether lxml may serialise it directly: the root's ``xlink`` prefix, and no prefix
    bound to SVG's namespace, on the root or below it (lxml writes the elements the lowering
    renames, such as the path of a circle, with the innermost such prefix, and skia draws no
    ``<svg:path>``). A declaration below the root is written in its element's start tag, so
    the text holds more ``xmlns:`` than the root declares; such a (rare) text, or one with
    ``xmlns:`` inside a value, is serialised by :func:`to_svg_bytes` instead.
    """
    nsmap = root.nsmap
    if nsmap.get("xlink", XLINK_NS) == XLINK_NS and (
        len(nsmap) <= 1 or not any(k is not None and v == SVG_NS for k, v in nsmap.items())
    ):
        data = etree.tostring(root, encoding="utf-8")
        if data.count(b"xmlns:") == sum(k is not None for k in nsmap):
            return data
    return to_svg_bytes(root)


# Characters a text may hold besides the printable ASCII ones (XML 1.0 allows no other control
# character): bytes.translate with these deleted leaves the others, in about 2.5 us a scene.
_XML_ASCII = bytes(range(0x20, 0x80)) + b"\t\n\r"
# The drawn-by of an entry whose text lowering skia's own parse proves well-formed (see
# _prepare_begin); "skia" once drawn.
_SKIA_UNPROVEN = "skia?"
# Whether _prepare_begin may leave well-formedness to skia's parse (tests switch it off to
# compare with the proof by expat).
_SKIA_PROVES = True


def _prepare_begin(
    svg: str | bytes, h: int, w: int, backend: str, limits: RenderLimits, prove: bool = False
):
    """The first stage of :func:`_prepare`: ``(entry, None)`` when done, else ``(None, root)``.

    Bounded work in the document's size, with no step that can take long on a hostile
    document (the pre-check, whose bounds are its purpose, and the text lowering, one
    linear-time regex pass): what :func:`_prepare_end` does (``<use>`` expansion, the CSS
    cascade, the tree lowerings) waits for the document's turn (module docstring).

    When the text lowering left out nothing that could have made the text ill-formed
    (:func:`~vector_gym.svg.normalise.subset_text.lower_skia_subset_text_intact`) and the text
    holds no control character, expat's parse of the text (55 us of a 6 KB scene) is left to
    skia's parse of the output, which is expat's too and refuses what expat refuses in the
    text: the entry is drawn by ``"skia?"``, and a refusal by skia sends the document back here
    with ``prove`` (:func:`end_document`), for the outcome of the checked path.
    """
    try:
        tried = False
        if backend in ("skia", "skia-strict") and type(svg) is str and may_skip_parse(svg, limits):
            # The text proves the parse could only accept the document as it is written: the
            # text lowering first, and expat (a third of lxml's time here) for well-formedness.
            tried = True
            data, intact = lower_skia_subset_text_intact(svg, (h, w))
            if data is not None:
                if (
                    intact
                    and not prove
                    and _SKIA_PROVES
                    and not svg.encode("ascii").translate(None, _XML_ASCII)
                ):
                    return (_SKIA_UNPROVEN, data), None
                if expat_well_formed(svg):
                    return ("skia", data), None
        root, text = _check_tree(svg, limits)
        if backend in ("skia", "skia-strict") and text is not None and not tried:
            # the tree is the text: the subset test and lowering on the text
            if not isinstance(text, str):
                text = text.decode("utf-8")
            data = lower_skia_subset_text(text, (h, w))
            if data is not None:
                return ("skia", data), None
        return None, root
    except RenderRejected as exc:
        return (None, exc.reason), None
    except RecursionError:
        return (None, reasons.TOO_DEEP), None


def _prepare_end(root, h: int, w: int, backend: str):
    """The rest of :func:`_prepare`, on the checked tree of :func:`_prepare_begin`."""
    try:
        if backend in ("skia", "skia-strict") and lower_skia_subset(root, (h, w)):
            return "skia", _subset_bytes(root)  # already in skia's subset: no feature to route
        if backend == "skia" and skia_unsupported(root):
            backend = "resvg"
        if backend in ("skia", "skia-strict"):
            simplify_tree(root, size=(h, w))
            return "skia", to_svg_bytes(root)
        check_selectors(root)
        fit_root(root, (h, w))
        return backend, etree.tostring(root, encoding="utf-8")
    except RenderRejected as exc:
        return None, exc.reason
    except CSSTooComplex:
        return None, reasons.CSS_TOO_COMPLEX
    except RecursionError:
        return None, reasons.TOO_DEEP


def _prepare(
    svg: str | bytes, h: int, w: int, backend: str, limits: RenderLimits, prove: bool = False
):
    """Check and prepare a document for its backend: ``(backend, bytes)`` or ``(None, reason)``.

    Deterministic in its arguments (so it is cached): the pre-check, the routing and the
    prepared text depend only on the document, the canvas size, the backend and the limits.
    """
    entry, root = _prepare_begin(svg, h, w, backend, limits, prove)
    return entry if entry is not None else _prepare_end(root, h, w, backend)


def _draw_entry(entry, out: np.ndarray, background) -> tuple[str | None, str | None]:
    drawn_by, prepared = entry
    if drawn_by is None:
        return prepared, None
    if drawn_by == "skia" or drawn_by == _SKIA_UNPROVEN:
        err = _draw_skia(prepared, out, background)
        if drawn_by == _SKIA_UNPROVEN:
            return err, (None if err else "skia")
    elif drawn_by == "resvg":
        err = _draw_png(_resvg_png(prepared.decode("utf-8")), out, background)
    else:
        err = _draw_png(_cairosvg_png(prepared, background), out, background)
    return err, (None if err else drawn_by)


def begin_documents(
    svgs, size: tuple[int, int], backend: str = "skia", limits: RenderLimits = DEFAULT_LIMITS
) -> list:
    """The bounded first stage of :func:`draw_document` for several documents at once.

    A render worker runs it on all the documents of one message before drawing any of them
    (:mod:`vector_gym.render.pool`): parsing and lowering a few documents, then drawing them
    with skia, keeps each one's code and data in the processor's caches (5-10 % less CPU per
    document at 72 px than alternating). The stage is bounded by the documents' size (the
    pre-check and the text lowering, :func:`_prepare_begin`); what may take long waits for
    the document's turn in :func:`end_document`, so that the watchdog still blames the right
    one.

    Returns
    -------
    list
        One opaque item per document, for :func:`end_document`, in order.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
    h, w = size
    staged = []
    pending = set()  # keys left to finish: a repeat waits for the first (end_document)
    for svg in svgs:
        key = entry = root = None
        try:
            if isinstance(svg, str | bytes):
                data = svg.encode("utf-8", "surrogatepass") if isinstance(svg, str) else svg
                key = (hashlib.blake2b(data, digest_size=16).digest(), h, w, backend, limits)
                entry = _recall(key)
                if entry is None and key in pending:
                    staged.append((svg, key, None, None))
                    continue
            if entry is None:
                entry, root = _prepare_begin(svg, h, w, backend, limits)
                if key is not None:
                    if entry is not None:
                        _remember(key, entry)
                    else:
                        pending.add(key)
        except MemoryError:
            key, entry = None, (None, reasons.OUT_OF_MEMORY)
        except Exception:  # noqa: BLE001 - as draw_document
            key, entry = None, (None, reasons.RENDER_FAILED)
        staged.append((svg, key, entry, root))
    return staged


def end_document(
    item,
    out: np.ndarray,
    background: tuple[int, int, int] = (255, 255, 255),
    backend: str = "skia",
    limits: RenderLimits = DEFAULT_LIMITS,
) -> tuple[str | None, str | None]:
    """Finish one item of :func:`begin_documents` and draw it into ``out``: as :func:`draw_document`."""
    svg, key, entry, root = item
    h, w = out.shape[:2]
    try:
        if entry is None and root is None and key is not None:
            entry = _recall(key)  # a repeat of a document of the same stage, finished first
        if entry is None:
            if root is not None:
                entry = _prepare_end(root, h, w, backend)
            else:
                entry = _prepare(svg, h, w, backend, limits)
            if key is not None:
                _remember(key, entry)
        err, drawn_by = _draw_entry(entry, out, background)
        if err is not None and entry[0] == _SKIA_UNPROVEN:
            # skia refused the output: the checked path decides (an ill-formed text is refused
            # there with its reason; a well-formed one skia refuses fails as before)
            entry = _prepare(svg, h, w, backend, limits, prove=True)
            if key is not None:
                _remember(key, entry)
            err, drawn_by = _draw_entry(entry, out, background)
        return err, drawn_by
    except MemoryError:
        return reasons.OUT_OF_MEMORY, None
    except RecursionError:
        return reasons.TOO_DEEP, None
    except Exception:  # noqa: BLE001 - a rasteriser's own error on a hostile document
        return reasons.RENDER_FAILED, None


def draw_document(
    svg: str | bytes,
    out: np.ndarray,
    background: tuple[int, int, int] = (255, 255, 255),
    backend: str = "skia",
    limits: RenderLimits = DEFAULT_LIMITS,
) -> tuple[str | None, str | None]:
    """Check, prepare and draw one document into ``out``, in the calling process.

    The pre-check and preparation are done once per document, canvas size, backend and limits
    in this process, then served from a bounded cache (module docstring, "Fast path and cache").

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
        The rasteriser (``skia`` routes what it cannot draw to resvg; module docstring).
    limits : RenderLimits
        Pre-check bounds.

    Returns
    -------
    error : str or None
        ``None`` on success, else a name from :data:`vector_gym.render.reasons.REASONS`.
    drawn_by : str or None
        The backend that drew the document (``"skia"``, ``"resvg"`` or ``"cairosvg"``), ``None``
        when it failed.

    Raises
    ------
    ValueError
        For an unknown ``backend`` (a programmer error). Nothing the document contains raises:
        a ``MemoryError`` becomes ``out_of_memory`` and any rasteriser error ``render_failed``.
    """
    h, w = out.shape[:2]
    return end_document(begin_documents([svg], (h, w), backend, limits)[0], out, background, backend, limits)


def render_document(
    svg: str | bytes,
    out: np.ndarray,
    background: tuple[int, int, int] = (255, 255, 255),
    backend: str = "skia",
    limits: RenderLimits = DEFAULT_LIMITS,
) -> str | None:
    """:func:`draw_document` without the routing report: ``None`` or the failure's name."""
    return draw_document(svg, out, background, backend, limits)[0]
