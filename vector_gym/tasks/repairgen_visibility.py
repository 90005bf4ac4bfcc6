"""RepairGen's visibility renders: the clean scene once, each trial corruption incrementally.

The visibility rule (:mod:`vector_gym.tasks.repairgen`) compares a 112 x 112 skia render of
the clean scene with one of the scene carrying a single trial corruption. Both are drawn by the
``skia-strict`` path of :func:`vector_gym.render.render_many`: pre-check
(:func:`vector_gym.render.precheck.check_tree`), normalisation to the render form
(:func:`vector_gym.svg.normalise.simplify_tree`), skia. The normalisation is most of that cost
and a trial differs from the clean scene in one element, so:

- the clean scene's render form is built once per prepared source and kept;
- for a *plain* scene (only ``svg``, ``g``, basic shapes, ``title``/``desc``/``metadata``;
  no ``url(...)`` reference, no ``paint-order``; see :func:`plain_scene`) the normaliser treats
  every element from its own attributes and its ancestors' alone (inherited paint, font size,
  viewport), so a trial's render form is the clean one with the changed element replaced by its
  own normalised form (normalised in a small document holding only it and its ancestors),
  a deleted element removed, an inserted one added after its previous sibling;
- any other scene, or a change this cannot splice, is drawn whole through ``render_many``.

A clean scene in skia's subset (:mod:`vector_gym.svg.normalise.subset`: every Vector-Bench
scene, most emoji) is lowered by :func:`~vector_gym.svg.normalise.subset.lower_skia_subset`,
as ``render_many`` lowers it, instead of the full normaliser, and so is each trial's changed
element (a trial element outside the subset is drawn whole: a form mixing the two lowerings
would not inherit paint the same way); the pixels are the full normaliser's.

Segments: skia draws the children of the root (or of the wrapping group the normaliser puts
the root's paint on, when it has no opacity or other layer) one after another straight onto
the canvas. A form used for a few trials is cut there (:func:`_segments`): one document per
child, holding it under the list's ancestors (attributes only) and the list's ``<defs>``, parsed
by skia once and kept, with the box of every pixel the child's draw can write (its *touch box*,
:func:`_touch_boxes`). A trial that changes a child of the list (or inserts one after a child)
then parses only the changed element, lowered in a document holding it and its ancestors (by
the text lowering :func:`~vector_gym.svg.normalise.subset_text.lower_skia_subset_text` where it
applies), and draws it with the kept documents onto one canvas: skia's parse of the scene is
skipped (:func:`_segmented`). Only the pixels of the changed element's two footprints (below)
can change by more than one level, so only they are counted, and only the children whose touch
box meets their box are drawn: a child whose box misses leaves those pixels as it found them
(a Vector-Bench trial draws 14 of its scene's 63 children on average). A change inside a child
is spliced into the form, and that child is parsed again and the whole list drawn. Drawing the
documents one after another is checked to give exactly the clean picture before they are used.

The splice gives the same document as normalising the whole trial, so the same pixels:
``tests/tasks/test_repairgen_visibility.py`` checks image equality with ``render_many`` over
generated tasks of every operator, and for a trial counted from segments the same changed
share. RepairGen's tasks do not depend on which path drew them.

About half of the trials are invisible, most of them on small elements. A caller that only
compares the share with a threshold passes it (``changed_fraction(..., at_least=...)``), and a
spliced trial is then first bounded without drawing the scene (:func:`_footprint_bound`, which
gives the argument): every pixel the trial changes lies where the changed element paints,
before or after the change, so the union of its two *footprints* (each drawn alone under its
ancestors from the render form on a transparent 112 x 112 canvas, alpha > 0; the clean one kept
per element) bounds the changed share from above. When that union is under the threshold the
trial is invisible and the scene is not drawn: 0.91 of the 1.70 invisible trials per task of
the default configuration (warm). The test above checks every bounded trial's exact share
against ``render_many``; a throwaway check found no changed pixel outside the union in 21,154
drawn trials (1-9 repairs, two seeds).

Batching several trials' scene draws into one skia call was measured and does not pay: the
per-call part of a draw is small (a clear is about 1 us, a one-element document parses and
draws in about 18 us) beside parsing and drawing the scene itself (about 225 us at 5 KB), which
a batch pays once per trial all the same; and the trials of one task are sequential (each
accepted corruption moves the random stream the next trial starts from).
"""

from __future__ import annotations

import copy
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from vector_gym.render.backends import draw_render_form
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderRejected, check_text, check_tree
from vector_gym.svg.normalise import simplify_tree, to_svg_bytes
from vector_gym.svg.normalise.common import SVG_NS, XLINK_NS
from vector_gym.svg.normalise.style import CSSTooComplex
from vector_gym.svg.normalise.subset import lower_skia_subset
from vector_gym.svg.normalise.subset_text import lower_skia_subset_text
from vector_gym.tasks.repairgen_ops import SHAPES

__all__ = [
    "CHANGED_LEVEL",
    "VISIBILITY_SIZE",
    "changed_fraction",
    "clean_image",
    "first_by_id",
    "plain_scene",
    "reduced_copy",
]

VISIBILITY_SIZE = 112  # px, square render used by the visibility rule
CHANGED_LEVEL = 8  # a pixel changes when a channel moves by more than this (0-255)

_SVG = "{http://www.w3.org/2000/svg}"
_PLAIN_TAGS = frozenset(_SVG + t for t in SHAPES | {"svg", "g", "title", "desc", "metadata"})
_SIZE = (VISIBILITY_SIZE, VISIBILITY_SIZE)
_BY_ID = etree.XPath("descendant-or-self::*[@id=$i]")
_WHITE = (255, 255, 255)
# to_svg_bytes's fast-path tests, on one subtree (a spliced element) instead of the document
_PREFIXED_IN = etree.XPath("boolean(descendant-or-self::*[contains(name(), ':')])")
_XLINK_IN = etree.XPath(
    "boolean(descendant-or-self::*/@xlink:href)", namespaces={"xlink": XLINK_NS}
)


@dataclass
class RenderForm:
    """The clean scene's normalised render form (spliced and restored by each trial)."""

    root: Any
    by_id: dict[str, Any]
    #: no element of the clean form has a prefixed name or an ``xlink:href``: then a trial whose
    #: spliced elements have none either serialises as ``to_svg_bytes`` would, by lxml directly
    direct: bool = False
    #: id -> flat indices of the pixels that element paints in the clean form (:func:`_coverage`
    #: of the element alone under its ancestors), None when it paints more than
    #: :data:`_FOOTPRINT_KEPT` pixels (then no bound below a visibility threshold comes from it)
    footprints: dict[str, Any] = field(default_factory=dict)
    #: lowered by :func:`lower_skia_subset` (else by :func:`simplify_tree`); trial elements are
    #: lowered the same way
    subset: bool = False
    #: trials spliced so far (segments are made for a form that is used again and again)
    trials: int = 0
    #: the form cut at its drawing list (:class:`Segments`): None until made, False when not
    segments: Any = None
    #: ancestors of a changed element (tags and attributes, parent first) -> the text of its
    #: small document around it (:func:`_framed_group`), or False where that does not apply
    frames: dict[tuple, Any] = field(default_factory=dict)


def plain_scene(root: Any) -> bool:
    """True when every element is an SVG ``svg``/``g``/basic shape/``title``/``desc``/``metadata``
    (children of ``metadata`` excepted) and no attribute holds a ``url(...)`` reference or
    ``paint-order``: then the normaliser's result for an element depends only on the element
    and its ancestors (no ``<use>``, CSS sheet, gradient, clip, mask, filter or marker)."""
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag not in _PLAIN_TAGS:
            parent = el.getparent()
            if not any(a.tag == _SVG + "metadata" for a in el.iterancestors()) or parent is None:
                return False
            continue
        for k, v in el.attrib.items():
            if "url(" in v or "paint-order" in k or "paint-order" in v or k.endswith("href"):
                return False
    return True


def _well_inside_limits(root: Any, form: Any, form_bytes: bytes | None = None) -> bool:
    """The clean scene is far enough inside :data:`DEFAULT_LIMITS` that no single corruption
    (at most doubling one element, one attribute more) can make its trial fail the pre-check.
    ``form_bytes``: ``to_svg_bytes(form)`` where the caller has it."""
    lim = DEFAULT_LIMITS
    size = len(to_svg_bytes(form) if form_bytes is None else form_bytes)
    text = len(etree.tostring(root))
    counts = [len(el.attrib) for el in root.iter() if isinstance(el.tag, str)]
    return (
        max(size, text) <= lim.max_bytes // 8  # also bounds the path numbers (2 bytes each)
        and len(counts) <= lim.max_elements // 4
        and max(counts) <= lim.max_attributes - 4
    )


def _document(root: Any, prep: Any) -> bytes:
    """The text ``render_many`` gets for ``root`` (a throwaway tree): root fitted to the square."""
    ox, oy = prep.origin
    root.set("viewBox", f"{ox} {oy} {prep.width} {prep.height}")
    root.set("width", str(VISIBILITY_SIZE))
    root.set("height", str(VISIBILITY_SIZE))
    return etree.tostring(root)


def _render_form(data: bytes) -> tuple[Any, bool]:
    """``draw_document``'s skia-strict preparation of ``data``: ``(render form, subset)``, the
    form None where it would fail; ``subset``: lowered by :func:`lower_skia_subset` (the
    document is in skia's subset), else by the full normaliser."""
    try:
        check_text(data, DEFAULT_LIMITS)
        root = check_tree(data, DEFAULT_LIMITS)
        if lower_skia_subset(root, _SIZE):
            return root, True
        return simplify_tree(root, size=_SIZE), False
    except (RenderRejected, CSSTooComplex, MemoryError):
        return None, False


def _direct_root(root: Any) -> bool:
    """The root-level conditions of :func:`to_svg_bytes`'s direct ``etree.tostring`` path."""
    nsmap = root.nsmap
    return (
        root.prefix is None
        and nsmap.get(None) == SVG_NS
        and nsmap.get("xlink", XLINK_NS) == XLINK_NS
    )


def _draw(form_root: Any, direct: bool = False) -> np.ndarray | None:
    """Draw a render form; ``direct``: it is known to take ``to_svg_bytes``'s lxml path."""
    data = etree.tostring(form_root, encoding="utf-8") if direct else to_svg_bytes(form_root)
    return _draw_bytes(data)


def _draw_bytes(data: bytes) -> np.ndarray | None:
    """Draw a render form's text (:func:`_draw`)."""
    img = np.empty((VISIBILITY_SIZE, VISIBILITY_SIZE, 3), dtype=np.uint8)
    return img if draw_render_form(data, img, _WHITE) is None else None


# (rgba array, skia surface) of the footprint and snapshot draws, made once per thread (threads
# sharing one canvas read each other's pixels: tests/test_threads.py)
_canvas = threading.local()


def _canvas_for(start: Any) -> tuple[np.ndarray, Any]:
    """This thread's canvas, cleared to ``start`` (an RGB colour, or None: transparent) or
    holding it (an RGBA array, premultiplied): ``(its 112 x 112 x 4 pixels, skia canvas)``."""
    import skia

    entry = getattr(_canvas, "entry", None)
    if entry is None:
        rgba = np.empty((VISIBILITY_SIZE, VISIBILITY_SIZE, 4), dtype=np.uint8)
        surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        entry = _canvas.entry = (rgba, surface)
    rgba, surface = entry
    canvas = surface.getCanvas()
    if start is None:
        canvas.clear(skia.ColorTRANSPARENT)
    elif isinstance(start, tuple):
        canvas.clear(skia.Color(*start))
    else:
        np.copyto(rgba, start)
    return rgba, canvas


def _draw_rgba(data: bytes, start: Any = _WHITE) -> np.ndarray | None:
    """Draw ``data`` by :func:`vector_gym.render.backends.draw_render_form`'s skia steps onto
    the canvas of :func:`_canvas_for` ``(start)``; the canvas itself (112 x 112 x 4, reused by
    the next call), or None when skia cannot draw ``data``."""
    rgba, canvas = _canvas_for(start)
    dom = _parsed(data)
    if dom is None:
        return None
    try:
        dom.render(canvas)
    except MemoryError:
        return None
    return rgba


#: after how many trials a form is cut into segments (only speed depends on it, never a task)
_SEGMENT_AFTER_TRIALS = 3
#: attributes of a group that draws its children straight onto the canvas (no layer: no
#: opacity, filter, mask, clip or blend), so that its list can be drawn in two parts
_NO_LAYER = frozenset(
    {
        "id", "fill", "stroke", "stroke-width", "fill-opacity", "stroke-opacity", "fill-rule",
        "clip-rule", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
        "stroke-dasharray", "stroke-dashoffset", "transform",
    }
)


def _drawing_list(root: Any) -> Any:
    """The element whose children skia draws one after another straight onto the canvas: the
    root, or the wrapping group(s) the normaliser puts the root's paint on; None if unsure."""
    node = root
    while True:
        kids = list(node)
        if any(not isinstance(k.tag, str) for k in kids):
            return None  # a comment or instruction: keep to the simple case
        if len(kids) == 1 and kids[0].tag == _SVG + "g" and len(kids[0]):
            g = kids[0]
            if any(k not in _NO_LAYER for k in g.attrib):
                return None
            node = g
            continue
        return node


@dataclass
class Segments:
    """A render form cut at its drawing list (module docstring): one parsed skia document per
    child, each holding that child under the list's ancestors (attributes only)."""

    #: the children of the drawing list (``<defs>`` apart: in every document), in order
    children: list[Any]
    #: ``skia.SVGDOM`` of each child
    docs: list[Any]
    #: id of an element inside a child (or of the child) -> the child's position (the first
    #: element of an id only, as :func:`first_by_id`)
    top: dict[str, int]
    #: per child, ``(top, -bottom, left, -right)`` (inclusive) of the box of every pixel its
    #: draw can write (:func:`_touch_boxes`); None when not known (then a trial draws every
    #: child)
    boxes: np.ndarray | None
    #: the text of a document before and after its child
    head: bytes
    tail: bytes
    #: the clean image (112 x 112 RGB, as :func:`clean_image`): what they draw together
    clean: np.ndarray
    #: position p -> the canvas (112 x 112 RGBA) after the children before p, exactly as their
    #: draws leave it (taken while checking the segments, every :data:`_SNAPSHOT_EVERY`
    #: children of a list of at least :data:`_SNAPSHOT_LIST` children): a trial changing
    #: nothing before p starts there instead of drawing them
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)
    #: for the same long lists (where most trials are counted), the clean image as the canvas
    #: holds it (:func:`_clean_words`), kept; else None (widened per trial)
    words: np.ndarray | None = None


def _parsed(data: bytes) -> Any:
    """``data`` parsed by skia as :func:`vector_gym.render.backends.draw_render_form` parses
    it (container 112 x 112), or None when skia cannot."""
    import skia

    try:
        dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
    except MemoryError:
        return None
    if dom is not None:
        dom.setContainerSize(skia.Size(VISIBILITY_SIZE, VISIBILITY_SIZE))
    return dom


_REFERENCES = etree.XPath(
    "descendant-or-self::*/@*[contains(., 'url(') or contains(local-name(), 'href')]"
)
_LOCAL_URL = re.compile(r"url\(\s*#([^)\s]*)\s*\)")


def _frame(root: Any, node: Any, defs: list[Any]) -> tuple[bytes, bytes] | None:
    """The text before and after the children of ``node`` in a copy of ``root`` holding only
    ``node``, its ancestors (attributes only) and ``defs`` (children of ``node``, first),
    serialised as a direct render form is."""
    chain = [node, *node.iterancestors()][::-1]
    top = cur = etree.Element(root.tag, dict(root.attrib), nsmap=root.nsmap)
    for a in chain[1:]:
        cur = etree.SubElement(cur, a.tag, dict(a.attrib))
    for d in defs:
        cur.append(copy.deepcopy(d))
        cur[-1].tail = None
    etree.SubElement(cur, _SVG + "m")
    parts = etree.tostring(top, encoding="utf-8").split(b"<m/>")
    return (parts[0], parts[1]) if len(parts) == 2 else None


def _segments(form: RenderForm, clean: np.ndarray) -> Segments | bool:
    """``form`` cut at its drawing list (:class:`Segments`), or False where it is not cut.

    Drawing the documents one after another onto a white canvas gives the clean picture because
    skia composites each child of a list without a layer onto what is below, pixel by pixel, in
    order (each document applies the same root viewport and group attributes before its child):
    this is checked, exactly, before the segments are used (False when it fails).
    """
    if not form.direct:
        return False
    node = _drawing_list(form.root)
    if node is None:
        return False
    # ``<defs>`` (the clip paths the normaliser makes for nested viewports) go into every
    # document; every reference must be to an element inside them
    defs = [ch for ch in node if ch.tag == _SVG + "defs"]
    drawn = [ch for ch in node if ch.tag != _SVG + "defs"]
    targets = {el.get("id") for d in defs for el in d.iter() if isinstance(el.tag, str)}
    for ch in drawn:
        for value in _REFERENCES(ch):
            if value.attrname.endswith("href") or _LOCAL_URL.sub("", value).find("url(") >= 0:
                return False
            if any(i not in targets for i in _LOCAL_URL.findall(value)):
                return False
    frame = _frame(form.root, node, defs) if drawn else None
    if frame is None:
        return False
    head, tail = frame
    docs = []
    top: dict[str, int] = {}
    for k, ch in enumerate(drawn):
        dom = _parsed(head + _child_text(ch) + tail)
        if dom is None:
            return False
        docs.append(dom)
        for el in ch.iter():
            i = el.get("id") if isinstance(el.tag, str) else None
            if i and i not in top and form.by_id.get(i) is el:
                top[i] = k
    boxes = _touch_boxes(form.root, node, defs, drawn)
    rgba, canvas = _canvas_for(_WHITE)
    snapshots = {}
    keep = len(docs) >= _SNAPSHOT_LIST
    for k, dom in enumerate(docs):
        if keep and k and k % _SNAPSHOT_EVERY == 0:
            snapshots[k] = rgba.copy()
        dom.render(canvas)
    # (as words: the canvas is opaque, the clean words' alpha 255)
    words = _clean_words(clean)
    if not np.array_equal(rgba.view(np.uint32).reshape(-1), words):
        return False
    return Segments(
        drawn, docs, top, boxes, head, tail, clean, snapshots, words if keep else None
    )


#: snapshots of the canvas (:class:`Segments`) every this many children, for drawing lists of
#: at least :data:`_SNAPSHOT_LIST` children (a Vector-Bench scene's 63: 7 snapshots and the
#: clean words, 400 KB; a trial then skips 3.8 of its 10.4 child draws on average; 6 MB more
#: than before after 8,000 default tasks). Only speed depends on them.
_SNAPSHOT_EVERY = 8
_SNAPSHOT_LIST = 32


#: attributes whose effect on which pixels an element writes is its geometry (with its
#: ancestors'), its clip or whether it draws at all: a child of the drawing list holding only
#: these gets a touch box (:func:`_touch_boxes`)
_TOUCH_ATTRIBUTES = frozenset(
    {
        "id", "class", "fill", "stroke", "stroke-width", "fill-opacity", "stroke-opacity",
        "opacity", "fill-rule", "clip-rule", "stroke-linecap", "stroke-linejoin",
        "stroke-miterlimit", "stroke-dasharray", "stroke-dashoffset", "pathLength", "transform",
        "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "x1", "y1", "x2", "y2", "d",
        "points", "clip-path", "clipPathUnits", "viewBox", "preserveAspectRatio", "visibility",
        "display", "color",
    }
)
_OPACITIES = ("opacity", "fill-opacity", "stroke-opacity")


def _opaque(el: Any) -> bool:
    """Make every paint of ``el``'s subtree (a copy) opaque black and every opacity 1, in place;
    False (and nothing reliable) when an attribute outside :data:`_TOUCH_ATTRIBUTES` appears."""
    for e in el.iter():
        if not isinstance(e.tag, str):
            continue
        attrib = e.attrib
        if any(k not in _TOUCH_ATTRIBUTES for k in attrib):
            return False
        for k in _OPACITIES:
            if k in attrib:
                attrib[k] = "1"
        for k in ("fill", "stroke"):
            v = attrib.get(k)
            if v is not None and v.strip() != "none":
                attrib[k] = "#000"
    return True


def _touch_boxes(root: Any, node: Any, defs: list[Any], drawn: list[Any]) -> np.ndarray | None:
    """Per child of the drawing list, the box of every pixel its draw can write: an
    ``(n, 4)`` array of ``(top, -bottom, left, -right)`` (inclusive; an empty box where it
    writes none; the whole canvas for a child with an attribute not understood here), or None
    when the drawing list's ancestors have such an attribute.

    Why it holds: skia writes a pixel only where the rasterised coverage of a shape (or of a
    layer's content) is above zero, and the coverage depends on the geometry, the stroke and the
    clip alone. With every paint made opaque black and every opacity 1 (:func:`_opaque`, on the
    child and on the ancestors its document holds), a pixel of coverage above zero draws alpha
    above zero on a transparent canvas, so the box of those pixels, one pixel wider on every
    side, holds every pixel the real draw writes. A child whose box misses a set of pixels
    leaves those pixels exactly as it found them.
    """
    top = etree.Element(root.tag, dict(root.attrib), nsmap=root.nsmap)
    chain = [node, *node.iterancestors()][::-1]
    cur = top
    for a in chain[1:]:
        cur = etree.SubElement(cur, a.tag, dict(a.attrib))
    if not _opaque(top):
        return None
    for d in defs:
        cur.append(copy.deepcopy(d))
    out = np.empty((len(drawn), 4), dtype=np.int16)
    last = VISIBILITY_SIZE - 1
    for k, ch in enumerate(drawn):
        dup = copy.deepcopy(ch)
        if not _opaque(dup):
            out[k] = (0, -last, 0, -last)
            continue
        cur.append(dup)
        rgba = _draw_rgba(_serialised(top, True), None)
        cur.remove(dup)
        if rgba is None:
            return None
        painted = rgba[..., 3] != 0
        rows = np.flatnonzero(painted.any(axis=1))
        if rows.size:
            cols = np.flatnonzero(painted.any(axis=0))
            y0, y1 = max(rows[0] - 1, 0), min(rows[-1] + 1, last)
            out[k] = (y0, -y1, max(cols[0] - 1, 0), -min(cols[-1] + 1, last))
        else:
            out[k] = (last + 1, 0, last + 1, 0)  # writes nothing: meets no box
    return out


_XMLNS_SVG = b' xmlns="' + SVG_NS.encode() + b'"'


def _child_text(ch: Any) -> bytes:
    """``ch`` serialised (without its tail) as it is inside its direct render form."""
    text = etree.tostring(ch, encoding="utf-8", with_tail=False)
    name = b"<" + ch.tag.rpartition("}")[2].encode()
    if text.startswith(name + _XMLNS_SVG):  # the declaration lxml writes on a subtree's top
        text = name + text[len(name) + len(_XMLNS_SVG) :]
    return text


def _group_document(trial: Any, tops: list[Any], prep: Any, subset: bool) -> bytes | None:
    """The render form of ``tops`` (elements of ``trial``, in document order) under their
    ancestors, lowered as the clean form was: with ``subset``, by the text lowering
    (:func:`lower_skia_subset_text`) where it applies, else the tree lowering (None when they
    are outside skia's subset: the trial is then drawn whole); else by the full normaliser."""
    # Normalised as built, without the pre-check of a whole document: on a plain scene that
    # is well inside the render limits (clean_image) it finds nothing to strip or reject in one
    # element and its ancestors.
    small = reduced_copy(trial, tops)
    data = _document(small, prep)
    if not subset:
        try:
            return to_svg_bytes(simplify_tree(small, size=_SIZE))
        except (CSSTooComplex, MemoryError):
            return None
    # Without "&" the text is the tree (no character or entity reference), as the text
    # lowering requires.
    if b"&" not in data:
        out = lower_skia_subset_text(data.decode("utf-8"), _SIZE)
        if out is not None:
            return out
    if not lower_skia_subset(small, _SIZE):
        return None
    return to_svg_bytes(small)


#: a rect kept apart from a frame's other elements by its numbers (no element of a frame has
#: them: only ancestors and this)
_MARKER = b'<rect x="-0.000717" y="-0.000719" width="0.000711" height="0.000713"/>'


def _framed_group(form: RenderForm, tops: list[Any], prep: Any) -> bytes | None:
    """:func:`_group_document`'s text lowering of ``tops`` (children of one element), the text
    of their ancestors kept per form (:data:`RenderForm.frames`: the small document of
    :func:`_group_document` with a marker element in place of ``tops``, cut at the marker) and
    ``tops``' own text put in it. None where that does not apply (then the whole document is
    built and lowered).

    The lowered text is the whole document's: the text differs from its serialisation only by
    the whitespace after ``tops``, which the text lowering leaves out between tags.
    """
    parent = tops[0].getparent()
    if parent is None or any(x.getparent() is not parent for x in tops):
        return None
    chain = [parent, *parent.iterancestors()]
    key = tuple((a.tag, tuple(a.attrib.items())) for a in chain)
    frame = form.frames.get(key)
    if frame is None:
        frame = form.frames[key] = _frame_text(chain[::-1], prep)
    if not frame:
        return None
    body = b"".join(_child_text(x) for x in tops)
    if b"&" in body or not body.isascii():
        return None  # a character reference: the text is not the tree (the whole decides)
    return lower_skia_subset_text((frame[0] + body + frame[1]).decode("ascii"), _SIZE)


def _frame_text(chain: list[Any], prep: Any) -> tuple[bytes, bytes] | bool:
    """``(before, after)`` the marker in :func:`_document`'s text of ``chain`` (root first,
    attributes only) holding the marker; False when the text holds a reference or the marker is
    not there once."""
    top = cur = etree.Element(chain[0].tag, dict(chain[0].attrib), nsmap=chain[0].nsmap)
    for a in chain[1:]:
        cur = etree.SubElement(cur, a.tag, dict(a.attrib))
    cur.append(etree.fromstring(_MARKER.replace(b"<rect", b"<rect" + _XMLNS_SVG)))
    data = _document(top, prep)
    if b"&" in data or not data.isascii() or data.count(_MARKER) != 1:
        return False
    before, after = data.split(_MARKER)
    return before, after


class Exact(float):
    """A changed-pixel share counted exactly (where a float alone may be a bound)."""


def _segmented(
    prep: Any,
    form: RenderForm,
    seg: Segments,
    trial: Any,
    el: Any,
    part: str,
    new: list[Any],
    at_least: float,
) -> Any:
    """The trial's changed share (:class:`Exact`) drawn from ``seg`` (module docstring); None
    where this does not apply.

    ``trial`` is the corrupted tree (None: ``part`` deleted from the clean scene), ``el`` its
    changed element (None: deleted), ``new`` the inserted elements at the top of what the trial
    inserted. With ``at_least > 0``, the float of :func:`_footprint_bound` instead where that
    bound proves the changed share below ``at_least``.

    Only the pixels of the footprints' union can change by more than one level
    (:func:`_footprint_bound`), so the share is counted there, and a child of the drawing list
    whose touch box misses the union's box is not drawn: those pixels are exactly what the whole
    trial's draw gives them.
    """
    t = seg.top.get(part)
    if t is None or seg.children[t] is not form.by_id[part]:
        return None  # not a child of the drawing list (inside one: _spliced's splice)
    # what the trial draws where: position p -> elements drawn after the clean child p (at t:
    # instead of it)
    placed: dict[int, list[Any]] = {t: [el]} if el is not None else {}
    for x in new:
        pid = _previous_id(x)
        if pid == part:
            if el is None:
                return None
            p = t
        else:
            p = seg.top.get(pid) if pid else None
            if p is None or seg.children[p] is not form.by_id[pid]:
                return None
        placed.setdefault(p, []).append(x)
    groups: dict[int, Any] = {}
    for p, tops in placed.items():
        data = _framed_group(form, tops, prep) if form.subset else None
        if data is None:
            data = _group_document(trial, tops, prep, form.subset)
        dom = _parsed(data) if data is not None else None
        if dom is None:
            return None
        groups[p] = dom
    if part not in form.footprints:  # the child's own document, drawn alone
        rgba, canvas = _canvas_for(None)
        try:
            seg.docs[t].render(canvas)
        except MemoryError:
            return None
        form.footprints[part] = _kept_footprint(rgba[..., 3] != 0)
    old_fp = form.footprints[part]
    union = None
    if old_fp is not None:
        union = _union(old_fp, list(groups.values()))
        if union is None:
            return None
        if union.size < at_least * _PIXELS:
            return union.size / _PIXELS  # the bound of _footprint_bound
        if not union.size:
            return Exact(0.0)
    changed = _draw_segments(seg, t, groups, union)
    return None if changed is None else Exact(changed / _PIXELS)


def _union(old_fp: Any, placed: list[Any]) -> np.ndarray | None:
    """Flat indices (ascending) of the pixels of ``old_fp`` (flat indices) and of those where the
    documents ``placed`` draw alpha above zero on a transparent canvas; None if skia fails."""
    rgba, canvas = _canvas_for(None)
    try:
        for dom in placed:
            dom.render(canvas)
    except MemoryError:
        return None
    # premultiplied: a pixel of alpha 0 is all zero, so the pixel's word is zero; the old
    # footprint's words are set non-zero in the canvas itself (cleared by its next use)
    words = rgba.view(np.uint32).reshape(-1)
    if old_fp.size:
        words[old_fp] = 1
    # (the same indices: numpy finds the non-zero entries of a bool array several times faster
    # than of a uint32 one, 3.5 against 21 us here, even with the compare)
    return np.flatnonzero(words != 0)


def _draw_segments(
    seg: Segments, t: int, groups: dict[int, Any], union: np.ndarray | None = None
) -> int | None:
    """Pixels that change when the clean children are drawn with child ``t`` left out and each
    document of ``groups`` (position -> parsed document) drawn after the child at its position
    (at ``t``: instead of it); None if skia fails.

    ``union``: the only pixels that can change (flat indices, ascending, at least one), or None
    (any). With it, only the children whose touch box meets its box are drawn and only its
    pixels are counted.
    """
    docs = seg.docs
    # Start from the last snapshot at or before the first change (child t, or a document of
    # ``groups`` drawn after the child at its position): the canvas there is exactly what the
    # unchanged children before it draw, so they are not drawn again.
    start = min(t, min(groups, default=t))
    begin = start - start % _SNAPSHOT_EVERY
    snap = seg.snapshots.get(begin)
    if snap is None:
        begin = 0
    rgba, canvas = _canvas_for(_WHITE if snap is None else snap)
    if union is not None and seg.boxes is not None:
        cols = union % VISIBILITY_SIZE
        # (top, -bottom, left, -right) of each child against (bottom, -top, right, -left) of
        # the union's box: every one no greater where the two boxes meet
        bottom, top = union[-1] // VISIBILITY_SIZE, union[0] // VISIBILITY_SIZE
        reach = np.array((bottom, -top, cols.max(), -cols.min()), dtype=seg.boxes.dtype)
        # the four comparisons of a row are four bytes: all true is one word of four ones
        meets = (seg.boxes <= reach).view(np.uint32).reshape(-1) == _ALL_FOUR
        meets[t] = False
        meets[:begin] = False
        drawn: Any = set(np.flatnonzero(meets).tolist())
        order: Any = sorted(drawn | groups.keys())
    else:
        order = drawn = range(begin, len(docs))
    try:
        for i in order:
            if i != t and i in drawn:
                docs[i].render(canvas)
            dom = groups.get(i)
            if dom is not None:
                dom.render(canvas)
    except MemoryError:
        return None
    # Compared a pixel (four bytes, one word) at a time: the canvas is opaque (a white clear,
    # then source-over draws) and the clean pixels are given alpha 255, so the alpha bytes
    # never differ and a word of the per-byte test is non-zero exactly when a colour channel
    # moved by more than a level (the same count as the per-channel test over RGB; fewer numpy
    # passes than an ``any`` over an (n, 3) array, which was a third of this function's time).
    # The clean pixels are kept as words for the long lists only (50 KB per form), else
    # widened per call (about 10 us more).
    got = rgba.view(np.uint32).reshape(-1)
    counted = union is not None and seg.boxes is not None
    if seg.words is not None:
        clean = seg.words[union] if counted else seg.words
    else:
        clean3 = seg.clean.reshape(-1, 3)[union] if counted else seg.clean.reshape(-1, 3)
        clean = np.empty((clean3.shape[0], 4), dtype=np.uint8)
        clean[:, 3] = 255
        clean[:, :3] = clean3
    if counted:
        got = got[union]
    got8, clean8 = got.view(np.uint8), clean.view(np.uint8).reshape(-1)
    moved = np.maximum(got8, clean8)
    moved -= np.minimum(got8, clean8)  # uint8, no overflow
    return int(np.count_nonzero((moved > CHANGED_LEVEL).view(np.uint32)))


_PIXELS = VISIBILITY_SIZE * VISIBILITY_SIZE
_ALL_FOUR = np.array([1, 1, 1, 1], dtype=np.uint8).view(np.uint32)[0]  # four bools, all true


def _clean_words(clean: np.ndarray) -> np.ndarray:
    """The clean image (112 x 112 RGB) as the canvas holds it: one word per pixel (flat), its
    RGBA bytes with alpha 255."""
    rgba = np.full((VISIBILITY_SIZE, VISIBILITY_SIZE, 4), 255, dtype=np.uint8)
    src, dst = clean.reshape(-1, 3), rgba.reshape(-1, 4)
    for c in range(3):  # a copy per channel: 3x faster than one strided copy of all three
        dst[:, c] = src[:, c]
    return rgba.view(np.uint32).reshape(-1)


#: most pixels of an element's clean footprint that are kept (a larger footprint proves nothing
#: below any threshold under a quarter of the picture; only its size matters then)
_FOOTPRINT_KEPT = _PIXELS // 4


def _coverage(data: bytes) -> np.ndarray | None:
    """Which pixels a render form paints: alpha > 0 when drawn by skia on a transparent canvas.

    A ``(112, 112)`` bool array, or None when skia cannot draw ``data``. Drawn by the same
    ``skia.SVGDOM`` steps as :func:`vector_gym.render.backends.draw_render_form`, with a
    transparent clear instead of the white one (:func:`_draw_rgba`).
    """
    rgba = _draw_rgba(data, None)
    return None if rgba is None else rgba[..., 3] != 0


def _serialised(root: Any, direct: bool) -> bytes:
    return etree.tostring(root, encoding="utf-8") if direct else to_svg_bytes(root)


def _footprint_bound(old_fp: Any, placed: list[Any], at_least: float) -> float | None:
    """An upper bound of the trial's changed-pixel share when it is below ``at_least``, else None.

    ``old_fp``: :func:`_old_footprint` of the changed element; ``placed``: parsed skia documents
    (:func:`_parsed`) holding what the trial draws instead (each element under its ancestors).

    Why it bounds (plain scenes only): the trial's document is the clean one with element X
    replaced (or removed, or followed by inserted copies). skia draws the elements one after
    another, each compositing pixel by pixel onto what is below (no filter, mask, clip or
    pattern on a plain scene), so the two pictures agree up to X's draw, and after it they can
    differ only where X's old or new drawing covers a pixel: later draws map equal pixels to
    equal pixels. A pixel that X covers so thinly that it draws alpha 0 on a transparent canvas
    (coverage x opacity < 1/255) moves by less than one level there, far under the 8/255 of
    :data:`CHANGED_LEVEL`. So every changed pixel lies in the union of X's old and new coverage,
    each drawn alone under X's ancestors from the render form (:func:`_coverage`).
    """
    limit = at_least * _PIXELS
    if old_fp is None or old_fp.size >= limit:  # the old coverage alone is too large
        return None
    if placed:
        rgba, canvas = _canvas_for(None)
        try:
            for dom in placed:
                dom.render(canvas)
        except MemoryError:
            return None
        mask = rgba[..., 3] != 0
        if old_fp.size:
            mask.flat[old_fp] = True
        count = int(np.count_nonzero(mask))
    else:  # deleted: only the old coverage changes
        count = int(old_fp.size)
    return count / _PIXELS if count < limit else None


def _old_footprint(form: RenderForm, part: str, old: Any) -> Any:
    """Flat pixel indices the clean element ``old`` paints (cached), None when too many."""
    if part in form.footprints:
        return form.footprints[part]
    mask = _coverage(_serialised(reduced_copy(form.root, [old]), form.direct))
    fp = form.footprints[part] = None if mask is None else _kept_footprint(mask)
    return fp


def _kept_footprint(mask: np.ndarray) -> Any:
    """The flat indices of ``mask`` (uint16), None when more than :data:`_FOOTPRINT_KEPT`."""
    idx = np.flatnonzero(mask)
    return idx.astype(np.uint16) if idx.size <= _FOOTPRINT_KEPT else None


def render_whole(root: Any, prep: Any) -> np.ndarray | None:
    """Draw ``root`` (a throwaway tree) through :func:`vector_gym.render.render_many`.

    In this process (``processes=0``) with the ``skia-strict`` backend (skia only, so the
    decision never depends on which optional renderers are installed). None when it fails.
    """
    from vector_gym.render import render_many

    batch = render_many([_document(root, prep)], size=_SIZE, backend="skia-strict", processes=0)
    return batch.images[0] if batch.ok[0] else None


def clean_image(prep: Any) -> np.ndarray | None:
    """The clean scene's render (cached on ``prep``, with its render form for a plain scene)."""
    if prep.image is None:
        with prep.lock:  # another thread may be building them
            _build_clean(prep)
    return prep.image if prep.image is not False else None


def _build_clean(prep: Any) -> None:
    """:func:`clean_image`'s work, under ``prep.lock``."""
    if prep.image is None:
        form, subset = _render_form(_document(copy.deepcopy(prep.root), prep))
        data = to_svg_bytes(form) if form is not None else None  # drawn, and its size checked
        img = _draw_bytes(data) if data is not None else None
        prep.render_form = False
        if (
            img is not None
            and plain_scene(prep.root)
            and _well_inside_limits(prep.root, form, data)
        ):
            # A prefix bound to SVG's namespace that no name uses (xmlns:s="...svg" on a group)
            # would still be chosen by lxml for an element a trial moves back into its scope
            # (the undo of _spliced), giving an <s:rect> that skia does not draw in a form
            # serialised directly: unused declarations are dropped (the same pixels).
            etree.cleanup_namespaces(form)
            by_id = first_by_id(form)
            direct = _direct_root(form) and not _PREFIXED_IN(form) and not _XLINK_IN(form)
            prep.render_form = RenderForm(form, by_id, direct, subset=subset)
        prep.image = img if img is not None else False  # last: the form is ready when it is set


def first_by_id(root: Any) -> dict[str, Any]:
    """Id -> element of ``root``'s tree, the FIRST in document order where an id repeats (as
    ``getElementById`` and the ``descendant-or-self::*[@id=$i]`` look-ups of a trial take it).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> root = parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><g id="a"/><rect id="a"/></svg>')
    >>> first_by_id(root)["a"].tag.endswith("g")
    True
    """
    out: dict[str, Any] = {}
    for el in root.iter():
        if isinstance(el.tag, str):
            i = el.get("id")
            if i and i not in out:
                out[i] = el
    return out


def reduced_copy(root: Any, tops: list[Any]) -> Any:
    """A copy of ``root`` holding only ``tops`` (whole) and their ancestors (attributes only).

    Elements of ``tops`` keep their document order (one inside another comes with it); an
    element outside ``root``'s tree, or ``root`` itself, adds nothing.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> root = parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><g id="g" fill="red">'
    ...                  '<rect id="a"/><rect id="b"/></g><circle id="c"/></svg>')
    >>> small = reduced_copy(root, [root[1], root[0][1]])
    >>> [(el.get("id"), len(el)) for el in small.iter() if el is not small]
    [('g', 1), ('b', 0), ('c', 0)]
    """
    out = etree.Element(root.tag, dict(root.attrib), nsmap=root.nsmap)
    entries = []  # (position path from root, ancestors below root (top first), element)
    for top in tops:
        path: list[int] = []
        chain: list[Any] = []
        node = top
        parent = node.getparent()
        while parent is not None:
            path.append(parent.index(node))
            if parent is root:
                break
            chain.append(parent)
            node, parent = parent, parent.getparent()
        else:
            continue  # not inside root (or root itself)
        entries.append((path[::-1], chain, top))
    entries.sort(key=lambda e: e[0])
    # lxml proxies live while referenced: hold the elements themselves, never their id()
    made: dict[Any, Any] = {root: out}
    last: list[int] | None = None
    for path, chain, top in entries:
        if last is not None and path[: len(last)] == last:
            continue  # inside the previous top: copied with it
        last = path
        dst = out
        for a in reversed(chain):
            made_a = made.get(a)
            if made_a is None:
                made_a = made[a] = etree.SubElement(dst, a.tag, dict(a.attrib))
            dst = made_a
        dst.append(copy.deepcopy(top))
    return out


def _previous_id(x: Any) -> str | None:
    """The id of the element before ``x`` among its siblings (None: none, or it has no id)."""
    prev = x.getprevious()
    while prev is not None and not isinstance(prev.tag, str):
        prev = prev.getprevious()
    return prev.get("id") if prev is not None else None


def _inside_one_child(form: RenderForm, part: str, inserted: list[Any]) -> int | None:
    """The position of the child of the drawing list (:class:`Segments`) that holds every
    change of a trial on ``part`` inserting ``inserted`` after their previous siblings, when
    all lie strictly inside it; else None."""
    seg = form.segments
    if not seg:
        return None
    t = seg.top.get(part)
    if t is None or seg.children[t] is form.by_id[part]:
        return None
    for x in inserted:
        pid = _previous_id(x)
        if pid != part and (seg.top.get(pid) != t or seg.children[t] is form.by_id[pid]):
            return None
    return t


def _spliced(
    prep: Any, form: RenderForm, trial: Any, part: str, new: list[Any], at_least: float = 0.0
) -> Any:
    """The trial's image through the splice (module docstring), or its changed share counted
    from segments (:class:`Exact`); None where neither applies.

    ``trial`` is the corrupted tree (None: only ``part`` deleted from the clean scene), ``part``
    the id of the element the corruption changed or deleted, ``new`` the elements it inserted.
    With ``at_least > 0``, a plain float instead when :func:`_footprint_bound` proves the
    changed share below ``at_least`` (that bound; nothing is drawn whole).
    """
    el = None
    if trial is not None:
        found = _BY_ID(trial, i=part)
        el = found[0] if found else None
    tops = ([el] if el is not None else []) + [x for x in new if x.getparent() not in new]
    form.trials += 1
    if form.segments is None and form.trials >= _SEGMENT_AFTER_TRIALS:
        form.segments = _segments(form, clean_image(prep))
    if form.segments:
        inserted = tops[1 if el is not None else 0 :]
        img = _segmented(prep, form, form.segments, trial, el, part, inserted, at_least)
        if img is not None:
            return img
    old = form.by_id.get(part)
    if old is None or old.getparent() is None:
        return None
    old_fp = _old_footprint(form, part, old) if at_least > 0 else None
    inside = _inside_one_child(form, part, tops[1 if el is not None else 0 :])
    normal: dict[str, Any] = {}
    if tops:
        # Normalised as built, without the text round trip and pre-check of a whole document:
        # on a plain scene that is well inside the render limits (clean_image) they find
        # nothing to strip or reject in one element and its ancestors.
        small = reduced_copy(trial, tops)
        _document(small, prep)
        if form.subset:
            # the clean form was lowered to skia's subset: so is the changed element, or the
            # trial is drawn whole (a form mixing the two lowerings would not inherit right)
            if not lower_skia_subset(small, _SIZE):
                return None
            nform = small
        else:
            try:
                nform = simplify_tree(small, size=_SIZE)
            except (CSSTooComplex, MemoryError):
                return None
        want = {t.get("id") for t in tops}
        normal = {i: e for i, e in first_by_id(nform).items() if i in want}
    undo: list[tuple] = []
    placed: list[Any] = []  # the elements spliced in
    try:
        parent = old.getparent()
        rep = normal.get(part)
        if rep is None:  # deleted, or dropped by the normaliser
            idx = parent.index(old)
            parent.remove(old)
            undo.append(("insert", parent, idx, old))
        else:
            rep.tail = old.tail
            parent.replace(old, rep)
            undo.append(("replace", parent, rep, old))
            placed.append(rep)
        for x in tops[1 if el is not None else 0 :]:
            pid = _previous_id(x)
            anchor = rep if pid == part else form.by_id.get(pid) if pid else None
            if anchor is None or anchor.getparent() is None:
                return None
            ins = normal.get(x.get("id"))
            if ins is not None:
                anchor.addnext(ins)
                undo.append(("remove", ins))
                placed.append(ins)
        # the clean form had no prefixed name and no xlink:href (``direct``), so the document
        # has one only where a spliced element brought it
        direct = (
            form.direct
            and _direct_root(form.root)
            and not any(_PREFIXED_IN(e) or _XLINK_IN(e) for e in placed)
        )
        if old_fp is not None and old_fp.size < at_least * _PIXELS:
            doms = [_parsed(_serialised(reduced_copy(form.root, placed), direct))] if placed else []
            if None not in doms:
                bound = _footprint_bound(old_fp, doms, at_least)
                if bound is not None:
                    return bound
        if inside is not None and direct:
            # every change is inside one child of the drawing list: only it is parsed again
            seg = form.segments
            dom = _parsed(seg.head + _child_text(seg.children[inside]) + seg.tail)
            changed = _draw_segments(seg, inside, {inside: dom}) if dom is not None else None
            return None if changed is None else Exact(changed / _PIXELS)
        return _draw(form.root, direct)
    finally:
        for step in reversed(undo):
            if step[0] == "insert":
                step[1].insert(step[2], step[3])
            elif step[0] == "replace":
                step[1].replace(step[2], step[3])
            else:
                step[1].getparent().remove(step[1])


def changed_fraction(
    prep: Any,
    trial: Any,
    part: str,
    new: tuple[str, ...] = (),
    index: Any = None,
    whole: Any = None,
    at_least: float = 0.0,
) -> float:
    """Share of the clean render's pixels that ``trial`` changes (0.0 when it does not render).

    With ``at_least > 0`` the exact share is returned when it is at least ``at_least``; below
    it, possibly an upper bound of it instead (still below ``at_least``), proved without drawing
    the whole trial (:func:`_footprint_bound`): a caller that only compares the share with
    ``at_least`` gets the same verdict.

    ``trial`` is the clean scene with one corruption applied to element ``part`` (changed, or
    deleted) that inserted the elements with ids ``new``; ``trial=None`` means ``part`` deleted
    from the clean scene. ``index`` maps ids to ``trial``'s elements (looked up when missing).
    ``trial`` may hold only the branch of ``part`` (:func:`reduced_copy`) when it inserts
    nothing and ``whole``, a callable returning the whole trial scene, is given for a render
    that cannot splice (an inserted element is placed after its previous sibling in ``trial``).

    Thread-safe: a trial edits ``prep``'s render form in place (and restores it), so the trials
    of one prepared source, which every generator of the process shares, run one at a time
    (``prep.lock``).
    """
    with prep.lock:
        return _changed_fraction(prep, trial, part, new, index, whole, at_least)


def _changed_fraction(
    prep: Any, trial: Any, part: str, new: tuple[str, ...], index: Any, whole: Any, at_least: float
) -> float:
    """:func:`changed_fraction`, under ``prep.lock``."""
    clean = clean_image(prep)
    img = None
    form = prep.render_form
    if form:
        inserted = []
        for i in new:
            found = index.get(i) if index is not None else None
            if found is None:
                hits = _BY_ID(trial, i=i)
                found = hits[0] if hits else None
            if found is None:
                inserted = None
                break
            inserted.append(found)
        if inserted is not None:
            img = _spliced(prep, form, trial, part, inserted, at_least)
            if isinstance(img, Exact):  # counted from segments (a numpy float, as counted below)
                return np.float64(img)
            if isinstance(img, float):  # a bound below at_least
                return img
    if img is None:
        if whole is not None:
            trial = whole()
        if trial is None:
            trial = copy.deepcopy(prep.root)
            hit = _BY_ID(trial, i=part)
            if hit and hit[0].getparent() is not None:
                hit[0].getparent().remove(hit[0])
        img = render_whole(trial, prep)
    if img is None or clean is None:
        return 0.0
    moved = (np.maximum(img, clean) - np.minimum(img, clean)) > CHANGED_LEVEL  # uint8, no overflow
    changed = moved[..., 0] | moved[..., 1] | moved[..., 2]
    return np.count_nonzero(changed) / changed.size
