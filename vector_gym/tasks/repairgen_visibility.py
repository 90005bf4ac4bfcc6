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

Checkpoints: skia draws the children of the root (or of the wrapping group the normaliser
puts the root's paint on, when it has no opacity or other layer) one after another straight
onto the canvas, so the picture is the canvas after the first k children with the later ones
drawn over it. A form used for a few trials with at least 16 such children gets up to eight
*suffix forms* (:func:`_checkpoints`): a copy holding only the children from k on, with the
canvas after the first k (drawn once); a trial that changes nothing before child k is spliced
into the last suffix form before it and drawn from that canvas (a third of the scene's draw
time on average for Vector-Bench scenes). Each suffix form is checked to redraw exactly the
clean picture before it is used.

The splice gives the same document as normalising the whole trial, so the same pixels:
``tests/tasks/test_repairgen_visibility.py`` checks image equality with ``render_many`` over
generated tasks of every operator. RepairGen's tasks do not depend on which path drew them.

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
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from vector_gym.render.backends import _copy_rgb, draw_render_form
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderRejected, check_text, check_tree
from vector_gym.svg.normalise import simplify_tree, to_svg_bytes
from vector_gym.svg.normalise.common import SVG_NS, XLINK_NS
from vector_gym.svg.normalise.style import CSSTooComplex
from vector_gym.svg.normalise.subset import lower_skia_subset
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
    #: a suffix form (:func:`_checkpoints`): the canvas (112 x 112 RGBA) after drawing the
    #: children of the drawing list before it, which its draws start from instead of white
    start: Any = None
    #: trials spliced so far (checkpoints are made for a form that is used again and again)
    trials: int = 0
    #: suffix forms, one per ``step`` children of the drawing list (the k-th holds children
    #: ``(k + 1) * step`` on); None until made, () when there are none
    checkpoints: Any = None
    step: int = 0
    #: id -> index of its top-level child in the drawing list (with ``checkpoints``)
    top: dict[str, int] = field(default_factory=dict)


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


def _well_inside_limits(root: Any, form: Any) -> bool:
    """The clean scene is far enough inside :data:`DEFAULT_LIMITS` that no single corruption
    (at most doubling one element, one attribute more) can make its trial fail the pre-check."""
    lim = DEFAULT_LIMITS
    size = len(to_svg_bytes(form))
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
    img = np.empty((VISIBILITY_SIZE, VISIBILITY_SIZE, 3), dtype=np.uint8)
    data = etree.tostring(form_root, encoding="utf-8") if direct else to_svg_bytes(form_root)
    return img if draw_render_form(data, img, _WHITE) is None else None


# (rgba array, skia surface) of the footprint and snapshot draws, made once per thread (threads
# sharing one canvas read each other's pixels: tests/test_threads.py)
_canvas = threading.local()


def _draw_rgba(data: bytes, start: Any = _WHITE) -> np.ndarray | None:
    """Draw ``data`` by :func:`vector_gym.render.backends.draw_render_form`'s skia steps onto a
    canvas cleared to ``start`` (an RGB colour, or None: transparent) or holding it (an RGBA
    array, premultiplied); the canvas itself (112 x 112 x 4, reused by the next call), or None
    when skia cannot draw ``data``."""
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
    try:
        dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
        if dom is None:
            return None
        dom.setContainerSize(skia.Size(VISIBILITY_SIZE, VISIBILITY_SIZE))
        dom.render(canvas)
    except MemoryError:
        return None
    return rgba


#: fewest children of the drawing list per checkpoint, most checkpoints per form (each holds a
#: copy of part of the form and a 49 KiB canvas), the fewest children a form needs to get
#: them, and after how many trials (only speed depends on these, never a task)
_CHECKPOINT_STEP = 8
_CHECKPOINT_MAX = 8
_CHECKPOINT_MIN_CHILDREN = 16
_CHECKPOINT_AFTER_TRIALS = 4
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


def _path_to(root: Any, node: Any) -> list[int]:
    out = []
    while node is not root:
        parent = node.getparent()
        out.append(parent.index(node))
        node = parent
    return out[::-1]


def _checkpoints(form: RenderForm, clean: np.ndarray) -> tuple:
    """Suffix forms of ``form`` (module docstring): for every ``step`` children of its drawing
    list (at most :data:`_CHECKPOINT_MAX`), a copy holding only the later children, with the canvas
    after drawing the earlier ones (a copy holding only those, drawn on white) to start from.

    Drawing a suffix form onto its start gives the clean picture because skia composites each
    child of a list without a layer onto what is below, pixel by pixel, in order: each
    checkpoint is checked to give exactly ``clean`` (RGB) before it is used; () if one does not.
    """
    node = _drawing_list(form.root)
    if node is None or len(node) < _CHECKPOINT_MIN_CHILDREN:
        return ()
    where = _path_to(form.root, node)
    form.step = step = max(_CHECKPOINT_STEP, -(-len(node) // (_CHECKPOINT_MAX + 1)))
    out = []
    for j in range(step, len(node), step):
        prefix, suffix = copy.deepcopy(form.root), copy.deepcopy(form.root)
        for tree, keep in ((prefix, slice(j, None)), (suffix, slice(0, j))):
            lst = tree
            for i in where:
                lst = lst[i]
            for ch in list(lst)[keep]:
                lst.remove(ch)
        snap = _draw_rgba(_serialised(prefix, form.direct))
        if snap is None:
            return ()
        snap = snap.copy()
        drawn = _draw_rgba(_serialised(suffix, form.direct), snap)
        if drawn is None or not np.array_equal(drawn[..., :3], clean):
            return ()
        out.append(
            RenderForm(
                suffix, first_by_id(suffix), form.direct, form.footprints, form.subset, snap,
                checkpoints=(),
            )
        )
    for k, ch in enumerate(node):
        for el in ch.iter():
            i = el.get("id") if isinstance(el.tag, str) else None
            if i and i not in form.top:
                form.top[i] = k
    return tuple(out)


def _suffix_form(form: RenderForm, prep: Any, part: str, anchors: list[str | None]) -> RenderForm:
    """The suffix form (:func:`_checkpoints`) a trial on ``part`` (inserting after the elements
    with ids ``anchors``) can be spliced into and drawn from; ``form`` itself when none."""
    form.trials += 1
    if form.checkpoints is None:
        if form.trials < _CHECKPOINT_AFTER_TRIALS:
            return form
        form.checkpoints = _checkpoints(form, clean_image(prep))
    if not form.checkpoints:
        return form
    first = len(form.top)
    for i in (part, *anchors):
        k = form.top.get(i) if i else None
        if k is None:
            return form
        first = min(first, k)
    n = first // form.step
    return form.checkpoints[min(n, len(form.checkpoints)) - 1] if n else form


_PIXELS = VISIBILITY_SIZE * VISIBILITY_SIZE
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


def _footprint_bound(
    form: RenderForm, old_fp: Any, placed: list[Any], direct: bool, at_least: float
) -> float | None:
    """An upper bound of the trial's changed-pixel share when it is below ``at_least``, else None.

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
        mask = _coverage(_serialised(reduced_copy(form.root, placed), direct))
        if mask is None:
            return None
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
    fp = None
    mask = _coverage(_serialised(reduced_copy(form.root, [old]), form.direct))
    if mask is not None:
        idx = np.flatnonzero(mask)
        fp = idx.astype(np.uint16) if idx.size <= _FOOTPRINT_KEPT else None
    form.footprints[part] = fp
    return fp


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
        form, subset = _render_form(_document(copy.deepcopy(prep.root), prep))
        img = _draw(form) if form is not None else None
        prep.image = img if img is not None else False
        prep.render_form = False
        if img is not None and plain_scene(prep.root) and _well_inside_limits(prep.root, form):
            by_id = first_by_id(form)
            direct = _direct_root(form) and not _PREFIXED_IN(form) and not _XLINK_IN(form)
            prep.render_form = RenderForm(form, by_id, direct, subset=subset)
    return prep.image if prep.image is not False else None


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
    """A copy of ``root`` holding only ``tops`` (whole) and their ancestors (attributes only)."""
    # lxml proxies live while referenced: hold the elements themselves, never their id()
    keep = {a for t in tops for a in t.iterancestors()}
    top_set = set(tops)

    def fill(src: Any, dst: Any) -> None:
        for ch in src:
            if ch in top_set:
                dst.append(copy.deepcopy(ch))
            elif ch in keep:
                fill(ch, etree.SubElement(dst, ch.tag, dict(ch.attrib)))

    out = etree.Element(root.tag, dict(root.attrib), nsmap=root.nsmap)
    fill(root, out)
    return out


def _previous_id(x: Any) -> str | None:
    """The id of the element before ``x`` among its siblings (None: none, or it has no id)."""
    prev = x.getprevious()
    while prev is not None and not isinstance(prev.tag, str):
        prev = prev.getprevious()
    return prev.get("id") if prev is not None else None


def _spliced(
    prep: Any, form: RenderForm, trial: Any, part: str, new: list[Any], at_least: float = 0.0
) -> Any:
    """The trial's image through the splice (module docstring); None where it does not apply.

    ``trial`` is the corrupted tree (None: only ``part`` deleted from the clean scene), ``part``
    the id of the element the corruption changed or deleted, ``new`` the elements it inserted.
    With ``at_least > 0``, a float instead of the image when :func:`_footprint_bound` proves
    the changed share below ``at_least`` (that bound; nothing is drawn whole).
    """
    el = None
    if trial is not None:
        found = _BY_ID(trial, i=part)
        el = found[0] if found else None
    tops = ([el] if el is not None else []) + [x for x in new if x.getparent() not in new]
    if form.start is None:
        form = _suffix_form(form, prep, part, [_previous_id(x) for x in tops[1 if el is not None else 0 :]])
    old = form.by_id.get(part)
    if old is None or old.getparent() is None:
        return None
    old_fp = _old_footprint(form, part, old) if at_least > 0 else None
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
        if at_least > 0:
            bound = _footprint_bound(form, old_fp, placed, direct, at_least)
            if bound is not None:
                return bound
        if form.start is not None:
            drawn = _draw_rgba(_serialised(form.root, direct), form.start)
            if drawn is None:
                return None
            img = np.empty((VISIBILITY_SIZE, VISIBILITY_SIZE, 3), dtype=np.uint8)
            _copy_rgb(drawn, img)
            return img
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
    """
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
            if isinstance(img, float):
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
