"""RepairGen corruption operators: each one breaks one element and records the repair.

An operator takes a clean element (a :class:`Candidate`, analysed once per source), corrupts
the *source* tree (the target stays the clean tree) and returns a :class:`Corruption`: the
requested edits in Vector-Bench ``expected_diff`` form (``part``, ``attribute``, ``before`` =
corrupted value, ``after`` = clean value), the words for the instruction, and an estimate of
the changed area for the visibility rule.

Every corrupted value differs from the clean one by a distance δ > 0, so by the tolerance
rule of spec-reward.md §8.2 (``t ≤ 0.9·δ``) it can never pass its own check; δ is also kept
large enough to be visible (a displacement of at least 6% of the picture, a colour at least
35 ΔE76 away with a different colour name, a size change of at least 30%, ...).

Operators (``OPERATORS``): ``recolor_fill``, ``recolor_stroke``, ``displace``, ``resize``,
``delete`` (the repair restores the element: ``exists`` False → True), ``insert`` (a stray or
duplicate element; the repair removes it: ``exists`` True → False), ``distort`` (control
points of a path, or vertices of a polygon), ``stroke_width``, ``opacity``.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lxml import etree

from vector_gym.svg.color import delta_e76, hex_to_lab, normalise_color, parse_css_color
from vector_gym.svg.parse import local_name
from vector_gym.tasks.repairgen_paths import (
    format_number,
    path_points,
    path_reads,
    read_points,
    replace_numbers,
    scan_path,
    scan_points,
)
from vector_gym.tasks.repairgen_words import COLOR_WORDS, color_word
from vector_gym.tasks.task import RequestedEdit

__all__ = [
    "OPERATORS",
    "Candidate",
    "Corruption",
    "OpContext",
    "analyse_element",
    "apply_operator",
    "scalar_reading",
]

OPERATORS: tuple[str, ...] = (
    "recolor_fill",
    "recolor_stroke",
    "displace",
    "resize",
    "delete",
    "insert",
    "distort",
    "stroke_width",
    "opacity",
)

SVG_NS = "http://www.w3.org/2000/svg"
SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"})
_HEX6 = re.compile(r"#[0-9a-f]{6}")
_NUMBER = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)\s*")
_MIN_COLOR_DELTA = 35.0  # ΔE76 between a corrupted and a clean colour (visible, > 0)


def local(tag: Any) -> str:
    """Local name of an lxml tag (``{ns}rect`` → ``rect``, :func:`vector_gym.svg.parse.local_name`);
    '' for comments/PIs."""
    return local_name(tag) if isinstance(tag, str) else ""


def scalar_reading(text: str) -> int | float | str:
    """Read an attribute value as the evaluator does (spec §7 scalar reading).

    Whitespace is folded; a value ``float()`` accepts becomes a number (int when integral),
    anything else stays the folded string.
    """
    folded = " ".join(text.split())
    try:
        v = float(folded)
    except ValueError:
        return folded
    return int(v) if v.is_integer() else v


def _num(el: Any, name: str) -> float | None:
    raw = el.get(name)
    if raw is None or not _NUMBER.fullmatch(raw):
        return None
    return float(raw)


def _style_props(el: Any) -> set[str]:
    style = el.get("style")
    if not style:
        return set()
    return {p.split(":", 1)[0].strip().lower() for p in style.split(";") if ":" in p}


@dataclass
class Candidate:
    """A clean element that operators may corrupt, analysed once per source.

    Attributes
    ----------
    id, tag : str
        Element id (given or generated) and local tag name.
    noun : str
        Plain-language noun phrase without article ("pear", "yellow shape").
    bbox : (x0, y0, x1, y1)
        Approximate bounding box in user units (control points included).
    fill_hex, stroke_hex : str or None
        Normalised ``#rrggbb`` of the element's own ``fill``/``stroke`` attribute when it is
        one the evaluator compares in Lab (spec §8.8), else None.
    fill_area, stroke_area : float
        Approximate painted areas (user units²); 0 when not painted.
    stroke_len : float
        Approximate outline length (user units).
    deletable : bool
        A leaf that nothing references and whose tail is whitespace.
    """

    id: str
    tag: str
    noun: str
    bbox: tuple[float, float, float, float]
    fill_hex: str | None = None
    stroke_hex: str | None = None
    fill_area: float = 0.0
    stroke_area: float = 0.0
    stroke_len: float = 0.0
    stroke_width: float | None = None
    styled: frozenset[str] = frozenset()
    deletable: bool = False
    movable: bool = False
    path_ok: bool = False
    points_ok: bool = False
    exposure: float | None = None  # picture share its removal changes (set by the generator)

    @property
    def area(self) -> float:
        return self.fill_area + self.stroke_area

    @property
    def size(self) -> float:
        return max(self.bbox[2] - self.bbox[0], self.bbox[3] - self.bbox[1], 1e-9)


@dataclass
class Corruption:
    """One applied corruption: its requested edits, wording inputs and visible-change estimate."""

    kind: str  # phrasing key (repairgen_words.PHRASINGS)
    part: str
    edits: list[RequestedEdit]
    words: dict[str, str] = field(default_factory=dict)
    changed_area: float = 0.0
    new_ids: tuple[str, ...] = ()
    op: str = ""  # operator name (OPERATORS), set by apply_operator
    visible_fraction: float = 0.0  # measured by the generator (changed pixels or area share)


@dataclass
class OpContext:
    """Everything an operator needs besides the candidate."""

    source: Any  # lxml root of the corrupted copy
    target: Any  # lxml root of the clean copy
    src_ids: dict[str, Any]
    tgt_ids: dict[str, Any]
    width: float  # viewport W (spec §8.3)
    height: float
    origin: tuple[float, float]  # viewBox min-x, min-y
    magnitude: float
    taken_ids: set[str]


# ----------------------------------------------------------------------------- analysis
def _effective(el: Any, name: str, default: str | None) -> str | None:
    node = el
    while node is not None:
        v = node.get(name)
        if v is not None:
            return v.strip()
        node = node.getparent()
    return default


def _poly_area(pts: list[tuple[float, float]]) -> float:
    if len(pts) < 3:
        return 0.0
    a = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
        a += x0 * y1 - x1 * y0
    return abs(a) / 2


def _perimeter(pts: list[tuple[float, float]], closed: bool) -> float:
    seq = pts + pts[:1] if closed else pts
    return sum(map(math.dist, seq, seq[1:]))  # the same distances, summed in the same order


def _hex_of(value: str | None) -> str | None:
    if value is None:
        return None
    n = normalise_color(value)
    return n if _HEX6.fullmatch(n) else None


def analyse_element(el: Any, noun: str, referenced: set[str]) -> Candidate | None:
    """Analyse one shape element of a clean source; None if no operator can use it."""
    tag = local(el.tag)
    if tag not in SHAPES:
        return None
    eid = el.get("id")
    if not eid:
        return None
    g = el.get
    pts: list[tuple[float, float]] = []
    bbox: tuple[float, float, float, float] | None = None  # set by a branch that has it
    area = 0.0
    length = 0.0
    path_ok = points_ok = False
    movable = False
    if tag == "rect":
        x, y, w, h = (_num(el, k) for k in ("x", "y", "width", "height"))
        x = 0.0 if x is None and g("x") is None else x
        y = 0.0 if y is None and g("y") is None else y
        if None in (x, y, w, h) or w <= 0 or h <= 0:
            return None
        pts = [(x, y), (x + w, y + h)]
        area, length = w * h, 2 * (w + h)
        movable = g("x") is not None and g("y") is not None
    elif tag in ("circle", "ellipse"):
        cx, cy = _num(el, "cx"), _num(el, "cy")
        if tag == "circle":
            rx = ry = _num(el, "r")
        else:
            rx, ry = _num(el, "rx"), _num(el, "ry")
        if None in (cx, cy, rx, ry) or rx <= 0 or ry <= 0:
            return None
        pts = [(cx - rx, cy - ry), (cx + rx, cy + ry)]
        area, length = math.pi * rx * ry, 2 * math.pi * math.sqrt((rx * rx + ry * ry) / 2)
        movable = True
    elif tag == "line":
        vals = [_num(el, k) for k in ("x1", "y1", "x2", "y2")]
        if None in vals:
            return None
        pts = [(vals[0], vals[1]), (vals[2], vals[3])]
        length = math.dist(*pts)
        movable = length > 0
    elif tag in ("polygon", "polyline"):
        raw = g("points")
        scanned = scan_points(raw) if raw else None
        if scanned is None:
            return None
        nums = [v for _, _, v in scanned]
        pts = list(zip(nums[0::2], nums[1::2], strict=True))
        area = _poly_area(pts) if tag == "polygon" else 0.0
        length = _perimeter(pts, tag == "polygon")
        points_ok = movable = len(pts) >= 2
    else:  # path
        read = path_points(g("d") or "")  # scan_path's points, without its fields
        if read is None:
            return None
        pts = list(read)
        if len(pts) < 2:
            return None
        xs, ys = zip(*pts, strict=True)
        bbox = (min(xs), min(ys), max(xs), max(ys))
        area = 0.55 * (bbox[2] - bbox[0]) * (bbox[3] - bbox[1])
        length = _perimeter(pts, False)
        path_ok = movable = True
    if bbox is None:
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        bbox = (min(xs), min(ys), max(xs), max(ys))
    fill = _effective(el, "fill", "black")
    stroke = _effective(el, "stroke", "none")
    fill_rgba = parse_css_color(fill) if fill else None
    fill_painted = tag != "line" and (
        (fill_rgba is not None and fill_rgba[3] > 0) or (fill or "").startswith("url(")
    )
    sw = _num(el, "stroke-width")
    eff_sw_raw = _effective(el, "stroke-width", "1")
    try:
        eff_sw = float(eff_sw_raw) if eff_sw_raw is not None else 1.0
    except ValueError:
        eff_sw = 1.0
    stroke_painted = (
        stroke is not None and stroke != "none" and not stroke.startswith("url(") and eff_sw > 0
    )
    stroke_painted = stroke_painted and parse_css_color(stroke) is not None
    styled = frozenset(_style_props(el))
    ids_below = {d.get("id") for d in el.iter() if d.get("id")}
    tail_ok = not (el.tail or "").strip()
    return Candidate(
        id=eid,
        tag=tag,
        noun=noun,
        bbox=bbox,
        fill_hex=_hex_of(g("fill")) if "fill" not in styled else None,
        stroke_hex=_hex_of(g("stroke")) if "stroke" not in styled else None,
        fill_area=area if fill_painted else 0.0,
        stroke_area=length * eff_sw if stroke_painted else 0.0,
        stroke_len=length if stroke_painted else 0.0,
        stroke_width=sw if (stroke_painted and "stroke-width" not in styled) else None,
        styled=styled,
        deletable=len(el) == 0 and tail_ok and not (ids_below & referenced),
        movable=movable and not ({"x", "y", "cx", "cy", "d", "points"} & styled),
        path_ok=path_ok and "d" not in styled,
        points_ok=points_ok,
    )


# ----------------------------------------------------------------------------- helpers
def _uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(lo + (hi - lo) * rng.random())


def _set_num(el: Any, name: str, value: float) -> int | float:
    text = format_number(value)
    el.set(name, text)
    return scalar_reading(text)


def _after(tgt: Any, name: str) -> Any:
    return scalar_reading(tgt.get(name))


def _shift_element(el: Any, tag: str, dx: float, dy: float) -> list[tuple[str, Any, Any]] | None:
    """Shift an element by (dx, dy) in place; return (attribute, before, after) triples."""
    out: list[tuple[str, Any, Any]] = []
    if tag in ("rect",):
        names = [("x", dx), ("y", dy)]
    elif tag in ("circle", "ellipse"):
        names = [("cx", dx), ("cy", dy)]
    elif tag == "line":
        names = [("x1", dx), ("x2", dx), ("y1", dy), ("y2", dy)]
    elif tag in ("polygon", "polyline"):
        raw = el.get("points")
        scanned = scan_points(raw)
        if scanned is None:
            return None
        spans = {}
        for k, (s, e, v) in enumerate(scanned):
            spans[(s, e)] = v + (dx if k % 2 == 0 else dy)
        new = replace_numbers(raw, spans)
        el.set("points", new)
        return [("points", read_points(new), read_points(raw))]
    elif tag == "path":
        raw = el.get("d")
        scanned = scan_path(raw)
        if scanned is None:
            return None
        spans = {}
        for f in scanned[0]:
            if f.relative:
                continue
            if f.role in ("x", "cx"):
                spans[(f.start, f.end)] = f.value + dx
            elif f.role in ("y", "cy"):
                spans[(f.start, f.end)] = f.value + dy
        new = replace_numbers(raw, spans)
        el.set("d", new)
        return [("d", " ".join(new.split()), " ".join(raw.split()))]
    else:
        return None
    for name, delta in names:
        if delta == 0:
            continue
        v = _num(el, name)
        if v is None:
            return None
        before = _set_num(el, name, v + delta)
        out.append((name, before, None))
    return out


def _edits(part: str, triples: list[tuple[str, Any, Any]], tgt: Any) -> list[RequestedEdit]:
    edits = []
    for attr, before, after in triples:
        if after is None:
            after = _after(tgt, attr)
            if attr == "d":
                after = " ".join(tgt.get("d").split())
        edits.append(
            RequestedEdit(part=part, attribute=attr, before=_freeze(before), after=_freeze(after))
        )
    return edits


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


# ----------------------------------------------------------------------------- operators
def _recolor(
    ctx: OpContext, cand: Candidate, rng: np.random.Generator, attr: str
) -> Corruption | None:
    good_hex = cand.fill_hex if attr == "fill" else cand.stroke_hex
    area = cand.fill_area if attr == "fill" else cand.stroke_area
    if good_hex is None or area <= 0:
        return None
    good_word = color_word(good_hex)
    good_lab = hex_to_lab(good_hex)
    options = [
        (name, h)
        for name, h in COLOR_WORDS
        if name != good_word
        and delta_e76(good_lab, hex_to_lab(h)) >= _MIN_COLOR_DELTA * min(ctx.magnitude, 1.5)
    ]
    if not options:
        return None
    bad_word, bad_hex = options[int(rng.integers(len(options)))]
    el = ctx.src_ids[cand.id]
    tgt = ctx.tgt_ids[cand.id]
    el.set(attr, bad_hex)
    edit = RequestedEdit(
        part=cand.id, attribute=attr, before=bad_hex, after=" ".join(tgt.get(attr).split())
    )
    kind = "recolor_fill" if attr == "fill" else "recolor_stroke"
    return Corruption(kind, cand.id, [edit], {"bad": bad_word, "good": good_word}, area)


def op_recolor_fill(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Replace a clean fill colour by a palette colour with another name, ≥ 35 ΔE76 away."""
    return _recolor(ctx, cand, rng, "fill")


def op_recolor_stroke(
    ctx: OpContext, cand: Candidate, rng: np.random.Generator
) -> Corruption | None:
    """Replace a clean stroke colour by a palette colour with another name, ≥ 35 ΔE76 away."""
    return _recolor(ctx, cand, rng, "stroke")


def _pick_offset(
    ctx: OpContext, cand: Candidate, rng: np.random.Generator, lo: float, hi: float
) -> tuple[float, float]:
    dist = ctx.magnitude * _uniform(rng, lo, hi) * min(ctx.width, ctx.height)
    dist = max(dist, 2.0 * 0.75 / 0.9)  # keep δ clear of the scalar floor (spec §8.2)
    mode = int(rng.integers(3))  # 0 horizontal, 1 vertical, 2 diagonal
    x0, y0, x1, y1 = cand.bbox
    ox, oy = ctx.origin
    # move towards the side with more room so the element stays in the picture
    sx = 1.0 if (ox + ctx.width - x1) >= (x0 - ox) else -1.0
    sy = 1.0 if (oy + ctx.height - y1) >= (y0 - oy) else -1.0
    if rng.random() < 0.25:
        sx, sy = -sx, -sy
    if mode == 0:
        return (round(sx * dist), 0.0)
    if mode == 1:
        return (0.0, round(sy * dist))
    d = dist / math.sqrt(2)
    return (round(sx * d), round(sy * d))


def op_displace(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Move an element by 6-14% of the picture (x/y, cx/cy, line ends, path or points)."""
    if not cand.movable:
        return None
    dx, dy = _pick_offset(ctx, cand, rng, 0.06, 0.14)
    if dx == 0 and dy == 0:
        return None
    el = ctx.src_ids[cand.id]
    triples = _shift_element(el, cand.tag, dx, dy)
    if not triples:
        return None
    w = max(cand.bbox[2] - cand.bbox[0], 1e-9)
    h = max(cand.bbox[3] - cand.bbox[1], 1e-9)
    overlap = max(0.0, 1 - abs(dx) / w) * max(0.0, 1 - abs(dy) / h)
    changed = 2 * cand.area * (1 - overlap)
    frac = math.hypot(dx, dy) / min(ctx.width, ctx.height)
    return Corruption(
        "displace",
        cand.id,
        _edits(cand.id, triples, ctx.tgt_ids[cand.id]),
        {"dx": str(dx), "dy": str(dy), "frac": f"{frac:.4f}"},
        changed,
    )


def _scale_path(raw: str, s: float, cx: float, cy: float) -> str | None:
    scanned = scan_path(raw)
    if scanned is None:
        return None
    spans = {}
    for f in scanned[0]:
        if f.role in ("x", "cx"):
            spans[(f.start, f.end)] = f.value * s if f.relative else cx + s * (f.value - cx)
        elif f.role in ("y", "cy"):
            spans[(f.start, f.end)] = f.value * s if f.relative else cy + s * (f.value - cy)
        elif f.role in ("rx", "ry"):
            spans[(f.start, f.end)] = f.value * s
    return replace_numbers(raw, spans)


def op_resize(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Scale an element by 1.35-1.8 (or the inverse): width/height, r, rx/ry, path or points."""
    if cand.area <= 0:
        return None
    grow = bool(rng.random() < 0.5)
    k = 1 + ctx.magnitude * _uniform(rng, 0.35, 0.8)
    s = k if grow else 1 / k
    el = ctx.src_ids[cand.id]
    tgt = ctx.tgt_ids[cand.id]
    triples: list[tuple[str, Any, Any]] = []
    cx = (cand.bbox[0] + cand.bbox[2]) / 2
    cy = (cand.bbox[1] + cand.bbox[3]) / 2
    if cand.tag == "rect":
        for name in ("width", "height"):
            v = _num(el, name)
            triples.append((name, _set_num(el, name, v * s), None))
    elif cand.tag == "circle":
        triples.append(("r", _set_num(el, "r", _num(el, "r") * s), None))
    elif cand.tag == "ellipse":
        for name in ("rx", "ry"):
            triples.append((name, _set_num(el, name, _num(el, name) * s), None))
    elif cand.tag == "path" and cand.path_ok:
        new = _scale_path(el.get("d"), s, cx, cy)
        if new is None:
            return None
        el.set("d", new)
        triples.append(("d", " ".join(new.split()), None))
    elif cand.tag in ("polygon", "polyline") and cand.points_ok:
        raw = el.get("points")
        scanned = scan_points(raw)
        spans = {
            (a, b): (cx if i % 2 == 0 else cy) + s * (v - (cx if i % 2 == 0 else cy))
            for i, (a, b, v) in enumerate(scanned)
        }
        new = replace_numbers(raw, spans)
        el.set("points", new)
        triples.append(("points", read_points(new), read_points(raw)))
    else:
        return None
    # every scalar δ must be clearly above zero after rounding to three decimals
    edits = _edits(cand.id, triples, tgt)
    for e in edits:
        if isinstance(e.after, int | float) and abs(float(e.before) - float(e.after)) < 0.5:
            return None
    return Corruption(
        "resize_larger" if grow else "resize_smaller",
        cand.id,
        edits,
        {},
        cand.area * abs(1 - s * s),
    )


def op_delete(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Remove a leaf element from the source; the repair restores it (``exists`` False → True)."""
    if not cand.deletable or cand.area <= 0:
        return None
    el = ctx.src_ids[cand.id]
    parent = el.getparent()
    if parent is None:
        return None
    parent.remove(el)
    del ctx.src_ids[cand.id]
    edit = RequestedEdit(part=cand.id, attribute="exists", before=False, after=True)
    return Corruption("delete", cand.id, [edit], {}, cand.area)


_STRAY_SHAPES = (("circle", "dot"), ("circle", "blob"), ("rect", "patch"), ("rect", "square"))


def op_insert(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Add a duplicate of an element (shifted) or a stray dot/patch; the repair removes it."""
    if rng.random() < 0.5 and cand.movable and cand.area > 0:
        el = ctx.src_ids[cand.id]
        dup = copy.deepcopy(el)
        new_id = _fresh_id(ctx, f"{cand.id}-dup")
        renamed = {}
        for d in dup.iter():
            old = d.get("id")
            if old:
                nid = new_id if d is dup else _fresh_id(ctx, f"{old}-dup")
                d.set("id", nid)
                renamed[old] = nid
        dx, dy = _pick_offset(ctx, cand, rng, 0.08, 0.16)
        if dx == 0 and dy == 0 or _shift_element(dup, cand.tag, dx, dy) is None:
            return None
        dup.tail = el.tail
        el.addnext(dup)
        ctx.src_ids[new_id] = dup
        w = max(cand.bbox[2] - cand.bbox[0], 1e-9)
        h = max(cand.bbox[3] - cand.bbox[1], 1e-9)
        overlap = max(0.0, 1 - abs(dx) / w) * max(0.0, 1 - abs(dy) / h)
        edit = RequestedEdit(part=new_id, attribute="exists", before=True, after=False)
        return Corruption(
            "insert_duplicate",
            new_id,
            [edit],
            {},
            cand.area * (1 - overlap),
            tuple(renamed.values()),
        )
    # a stray mark on top of everything
    tag, noun = _STRAY_SHAPES[int(rng.integers(len(_STRAY_SHAPES)))]
    word, hexv = COLOR_WORDS[int(rng.integers(len(COLOR_WORDS)))]
    size = max(ctx.magnitude * _uniform(rng, 0.06, 0.1) * min(ctx.width, ctx.height), 1.0)
    ox, oy = ctx.origin
    cx = ox + _uniform(rng, 0.15, 0.85) * ctx.width
    cy = oy + _uniform(rng, 0.15, 0.85) * ctx.height
    ns = ctx.source.nsmap.get(None)
    qn = f"{{{ns}}}{tag}" if ns else tag
    new_id = _fresh_id(ctx, f"stray-{noun}")
    stray = etree.Element(qn)
    stray.set("id", new_id)
    if tag == "circle":
        stray.set("cx", format_number(cx))
        stray.set("cy", format_number(cy))
        stray.set("r", format_number(size))
        area = math.pi * size * size
    else:
        stray.set("x", format_number(cx - size))
        stray.set("y", format_number(cy - size))
        stray.set("width", format_number(2 * size))
        stray.set("height", format_number(2 * size))
        area = 4 * size * size
    stray.set("fill", hexv)
    last = ctx.source[-1] if len(ctx.source) else None
    if last is not None:
        stray.tail = last.tail
    ctx.source.append(stray)
    ctx.src_ids[new_id] = stray
    edit = RequestedEdit(part=new_id, attribute="exists", before=True, after=False)
    return Corruption("insert_stray", new_id, [edit], {"bad": word, "noun": noun}, area, (new_id,))


def _fresh_id(ctx: OpContext, base: str) -> str:
    cand = base
    k = 2
    while cand in ctx.taken_ids:
        cand = f"{base}-{k}"
        k += 1
    ctx.taken_ids.add(cand)
    return cand


def op_distort(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Move one or two control points of a path (or vertices of a polygon) by 25-50% of its size."""
    el = ctx.src_ids[cand.id]
    size = cand.size
    amount = max(ctx.magnitude * _uniform(rng, 0.25, 0.5) * size, 0.06 * min(ctx.width, ctx.height))
    if cand.tag == "path" and cand.path_ok:
        raw = el.get("d")
        fields, _ = scan_path(raw)
        pairs: dict[int, list] = {}
        for f in fields:
            if f.pair >= 0:
                pairs.setdefault(f.pair, []).append(f)
        ctrl = [p for p, fs in pairs.items() if len(fs) == 2 and fs[0].role == "cx"]
        ends = [
            p
            for p, fs in pairs.items()
            if len(fs) == 2 and fs[0].role == "x" and not fs[0].relative and p > 0
        ]
        pool = ctrl or ends
        if not pool:
            return None
        n = 1 + int(rng.random() < 0.5 and len(pool) > 1)
        chosen = rng.choice(len(pool), size=n, replace=False)
        spans = {}
        for c in chosen:
            fx, fy = pairs[pool[int(c)]]
            ang = _uniform(rng, 0, 2 * math.pi)
            spans[(fx.start, fx.end)] = fx.value + amount * math.cos(ang)
            spans[(fy.start, fy.end)] = fy.value + amount * math.sin(ang)
        new = replace_numbers(raw, spans)
        if not path_reads(new):
            return None
        el.set("d", new)
        weight = 0.44 if ctrl else 1.0  # peak Bernstein weight of a cubic control point
        changed = amount * weight * size
        return Corruption(
            "distort",
            cand.id,
            _edits(cand.id, [("d", " ".join(new.split()), None)], ctx.tgt_ids[cand.id]),
            {},
            changed,
        )
    if cand.tag in ("polygon", "polyline") and cand.points_ok:
        raw = el.get("points")
        scanned = scan_points(raw)
        k = int(rng.integers(len(scanned) // 2))
        ang = _uniform(rng, 0, 2 * math.pi)
        (sx, ex, vx), (sy, ey, vy) = scanned[2 * k], scanned[2 * k + 1]
        new = replace_numbers(
            raw, {(sx, ex): vx + amount * math.cos(ang), (sy, ey): vy + amount * math.sin(ang)}
        )
        el.set("points", new)
        return Corruption(
            "distort",
            cand.id,
            _edits(cand.id, [("points", read_points(new), read_points(raw))], ctx.tgt_ids[cand.id]),
            {},
            amount * size * 0.5,
        )
    return None


def op_stroke_width(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Make a line 2.5-4 times heavier or thinner (``stroke-width``)."""
    w = cand.stroke_width
    if w is None or w <= 0 or cand.stroke_len <= 0:
        return None
    heavier = bool(rng.random() < 0.6)
    k = 1 + ctx.magnitude * _uniform(rng, 1.5, 3.0)
    new = w * k if heavier else w / k
    el = ctx.src_ids[cand.id]
    before = _set_num(el, "stroke-width", new)
    if abs(float(before) - w) < 0.2:
        return None
    edit = RequestedEdit(
        part=cand.id,
        attribute="stroke-width",
        before=before,
        after=_after(ctx.tgt_ids[cand.id], "stroke-width"),
    )
    return Corruption(
        "stroke_heavier" if heavier else "stroke_lighter",
        cand.id,
        [edit],
        {},
        cand.stroke_len * abs(new - w),
    )


def op_opacity(ctx: OpContext, cand: Candidate, rng: np.random.Generator) -> Corruption | None:
    """Fade an element to 15-40% of its opacity; the clean target states ``opacity="1"`` if it had none."""
    if cand.area <= 0 or "opacity" in cand.styled:
        return None
    el = ctx.src_ids[cand.id]
    tgt = ctx.tgt_ids[cand.id]
    o = _num(tgt, "opacity")
    if o is None:
        if tgt.get("opacity") is not None:
            return None
        o = 1.0
        tgt.set("opacity", "1")
    if o < 0.5:
        return None
    before = _set_num(el, "opacity", o * _uniform(rng, 0.15, 0.4))
    edit = RequestedEdit(
        part=cand.id, attribute="opacity", before=before, after=_after(tgt, "opacity")
    )
    return Corruption("opacity", cand.id, [edit], {}, cand.area)


_OPS: dict[str, Callable[[OpContext, Candidate, np.random.Generator], Corruption | None]] = {
    "recolor_fill": op_recolor_fill,
    "recolor_stroke": op_recolor_stroke,
    "displace": op_displace,
    "resize": op_resize,
    "delete": op_delete,
    "insert": op_insert,
    "distort": op_distort,
    "stroke_width": op_stroke_width,
    "opacity": op_opacity,
}


def eligible(op: str, cand: Candidate) -> bool:
    """Cheap pre-check: can ``op`` possibly apply to ``cand``?"""
    if op == "recolor_fill":
        return cand.fill_hex is not None and cand.fill_area > 0
    if op == "recolor_stroke":
        return cand.stroke_hex is not None and cand.stroke_area > 0
    if op in ("displace", "insert"):
        return cand.movable or op == "insert"
    if op == "resize":
        return cand.area > 0 and (
            cand.tag in ("rect", "circle", "ellipse") or cand.path_ok or cand.points_ok
        )
    if op == "delete":
        return cand.deletable and cand.area > 0
    if op == "distort":
        return cand.path_ok or cand.points_ok
    if op == "stroke_width":
        return cand.stroke_width is not None and cand.stroke_len > 0
    if op == "opacity":
        return cand.area > 0 and "opacity" not in cand.styled
    return False


def apply_operator(
    op: str, ctx: OpContext, cand: Candidate, rng: np.random.Generator
) -> Corruption | None:
    """Run operator ``op`` on ``cand`` (mutating ``ctx.source``/``ctx.target``); None if it does not apply.

    Raises
    ------
    KeyError
        ``op`` is not one of :data:`OPERATORS`.
    """
    corr = _OPS[op](ctx, cand, rng)
    if corr is not None:
        corr.op = op
    return corr
