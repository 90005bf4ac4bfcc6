"""The cheap first test of the render path: is a document already in the subset skia draws right?

Most documents the render path sees (Vector-Bench scenes, SVGEditBench emoji, RepairGen
scenes) are flat lists of basic shapes with hex colours and plain numbers. For them the full
normaliser (:func:`vector_gym.svg.normalise.simplify_tree`: CSS cascade, ``<use>``, paint
servers, units, inherited paint written on every element) changes nothing skia would draw
differently, yet it is most of the render time at small sizes (issue 16, item 1).
:func:`lower_skia_subset` proves that in one pass over the tree and then applies only the
rewrites that matter to skia, the same ones the walk applies (contract items 7, 10, 13):

* the root is fitted to the canvas (:func:`.root.fit_root`);
* ``<circle>`` and ``<ellipse>`` become ``<path>``, path data is cut after its last valid
  segment, and shapes of zero or negative size are removed (:func:`.walk._shape_geometry`);
* ``transform`` becomes one ``matrix(...)`` (identity removed), read as browsers read it
  (:func:`.transforms.read_transform`);
* a ``<line>`` gets ``fill="none"`` (skia would draw its fill as a hairline);
* ``<title>`` and ``<desc>`` are removed.

What it leaves out of the full normaliser is spelling only: fill and stroke are not written on
every element (skia inherits them the same way: no ``currentColor``, no paint server, no
``stroke-width`` of 0), ``#abc`` stays ``#abc``, ``opacity="1"`` stays. The subset, element by
element (anything else, in any namespace, sends the document to the full normaliser):

* elements: the root ``<svg>`` (``viewBox`` valid or absent, ``width``, ``height``,
  ``preserveAspectRatio``, ``id``, ``version``, ``baseProfile``; ``x``, ``y``, ``xml:space``
  and a ``style`` holding only ``enable-background`` (dropped),
  the presentation attributes below and ``transform`` (moved onto a wrapping ``<g>``, as
  contract item 13 does); no prefix), ``g``, ``path``,
  ``rect``, ``circle``, ``ellipse``, ``line``, ``polyline``, ``polygon``, ``title``, ``desc``;
* ``fill`` and ``stroke``: ``#rgb``, ``#rrggbb``, ``white``, ``black`` or ``none``; ``opacity``, ``fill-opacity``,
  ``stroke-opacity``: a plain number in [0, 1]; ``stroke-width``: a plain number > 0;
* geometry (``x y width height rx ry cx cy r x1 y1 x2 y2``): plain numbers (no unit, no
  percentage); ``transform``: any value (read as above);
* ``style``: plain declarations of the presentation properties above (``fill:#98C0D0;``; no
  comment, escape, ``!important`` or function), applied over the attributes and removed, as
  the cascade does (an ``enable-background`` declaration is dropped, as the walk drops it);
* kept verbatim by the normaliser too: ``id``, ``d``, ``points``, ``fill-rule``,
  ``clip-rule``, ``stroke-linecap``, ``stroke-linejoin``, ``stroke-miterlimit``,
  ``stroke-dasharray``, ``stroke-dashoffset``.

Nothing in the subset can reference anything (no ``url()``, no ``href``, no CSS), so it has no
feature :func:`.capability.skia_unsupported` reports: such a document is always drawn by skia.
``tests/svg/test_normalise_subset.py`` checks, on the bundled corpora, that the pixels equal
those of the full normaliser.
"""

from __future__ import annotations

import math
import re

from vector_gym.svg.normalise.common import _S, IDENTITY, _matrix_str
from vector_gym.svg.normalise.context import _store
from vector_gym.svg.normalise.root import fit_root
from vector_gym.svg.normalise.transforms import read_transform
from vector_gym.svg.normalise.units import _PLAIN_NUMBER_RE
from vector_gym.svg.normalise.walk import _shape_geometry
from vector_gym.svg.viewbox import parse_viewbox

__all__ = ["lower_skia_subset", "skia_subset"]

# A style attribute with only Illustrator's enable-background (dropped by the cascade: no
# browser or renderer reads it), as 117 of the 400 sampled SVGEditBench V2 documents carry.
_NO_EFFECT_STYLE = re.compile(r"[ \t\n]*enable-background[ \t\n]*:[ \t\n]*[a-z0-9. \t\n-]*;?[ \t\n]*").fullmatch
_PAINT_RE = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}|none|white|black")
_plain = _PLAIN_NUMBER_RE.fullmatch
_NUMBERS = re.compile(rf"(?:{_PLAIN_NUMBER_RE.pattern})(?:\x00(?:{_PLAIN_NUMBER_RE.pattern}))*").fullmatch
_PAINTS = re.compile(rf"(?:{_PAINT_RE.pattern})(?:\x00(?:{_PAINT_RE.pattern}))*").fullmatch
_paint = _PAINT_RE.fullmatch

# How each attribute of the subset is checked (anything else leaves the subset).
_ANY, _NUMBER, _PAINT, _UNIT, _POSITIVE, _TRANSFORM = range(6)
# Presentation properties of the subset; a style attribute may set these too (not geometry,
# whose CSS form the cascade treats apart, nor transform, whose CSS grammar differs).
_PRESENTATION = {
    "fill": _PAINT,
    "stroke": _PAINT,
    "opacity": _UNIT,
    "fill-opacity": _UNIT,
    "stroke-opacity": _UNIT,
    "stroke-width": _POSITIVE,
    **dict.fromkeys(
        (
            "fill-rule",
            "clip-rule",
            "stroke-linecap",
            "stroke-linejoin",
            "stroke-miterlimit",
            "stroke-dasharray",
            "stroke-dashoffset",
        ),
        _ANY,
    ),
}
_STYLE_PROPS = frozenset(_PRESENTATION)
_ATTR_CHECKS = {
    **_PRESENTATION,
    "transform": _TRANSFORM,
    **dict.fromkeys(
        ("x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "x1", "y1", "x2", "y2"),
        _NUMBER,
    ),
    **dict.fromkeys(("id", "d", "points"), _ANY),
}
_STYLE_VALUE = re.compile(r"[#a-zA-Z0-9., -]*").fullmatch


def _style_declarations(text: str) -> dict | None:
    """The declarations of a plain ``style`` attribute (``fill:#98C0D0;stroke-width:2``), or None.

    Only lower-case property names of :data:`_STYLE_PROPS` and values made of letters, digits,
    ``# . , -`` and spaces that pass the attribute's own check: no comment, escape, string,
    ``!important`` or function, so the cascade would write each value as it is. Illustrator's
    ``enable-background`` (``enable-background:new    ;``, on about 4 % of the SVGEditBench V2
    emoji) is left out, as the full normaliser drops it (no renderer reads it).
    """
    out = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        name = name.strip(" \t\n")
        if not colon:
            if name:
                return None
            continue
        value = value.strip(" \t\n")
        if name == "enable-background" and _STYLE_VALUE(value) is not None:
            continue
        if (
            name not in _STYLE_PROPS
            or _STYLE_VALUE(value) is None
            or not _value_ok(_ATTR_CHECKS[name], value)
        ):
            return None
        out[name] = value
    return out


def _value_ok(kind: int | None, v: str) -> bool:
    if kind == _NUMBER:
        return _plain(v) is not None
    if kind == _PAINT:
        return _paint(v) is not None
    if kind == _UNIT:
        return _plain(v) is not None and 0.0 <= float(v) <= 1.0
    if kind == _POSITIVE:
        return _plain(v) is not None and float(v) > 0.0
    return kind is not None  # _ANY, _TRANSFORM (read later)


_ROOT_ATTRS = frozenset({"width", "height", "preserveAspectRatio", "id", "version", "baseProfile"})
_ROOT_DROPPED = frozenset({"x", "y", "{http://www.w3.org/XML/1998/namespace}space"})
_ROOT_MOVABLE = frozenset(_ATTR_CHECKS) - {
    "id", "d", "points", "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r", "x1", "y1", "x2", "y2"
}
_TAGS = frozenset(
    _S + t for t in ("g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon")
)
_SHAPES = frozenset(_S + t for t in ("path", "rect", "circle", "ellipse"))
_LINE = _S + "line"
_RECT = _S + "rect"
_REWRITTEN = frozenset((_LINE, _S + "path", _S + "circle", _S + "ellipse"))  # rect: only its size
_DROPPED = frozenset((_S + "title", _S + "desc"))


_NOT_DECIMAL = str.maketrans(dict.fromkeys("0123456789.\x00"))
_two_dots = re.compile(r"\.[0-9]*\.").search


def _simple_decimals(joined: str) -> bool:
    """Whether NUL-joined values are all digits with at most one dot (``12``, ``0.5``, ``.5``, ``5.``).

    A quick, sound part of the plain-number check (each such value is a plain number), made
    of string methods instead of the regex's steps per character; False: use the regex.
    """
    padded = "\x00" + joined + "\x00"
    return (
        not joined.translate(_NOT_DECIMAL)
        and "\x00\x00" not in padded  # an empty value
        and "\x00.\x00" not in padded  # a lone dot
        and _two_dots(joined) is None
    )


class _NotInSubset(Exception):
    """Raised inside :func:`_scan` by an attribute outside the subset."""


def _outside(v: str) -> None:
    raise _NotInSubset


def _scan(root) -> tuple[list, dict] | None:
    """``(elements to rewrite, root attributes to move)`` when ``root`` is in the subset, else None.

    Each element to rewrite comes as ``(element, element.items())`` (None for a title or desc).
    """
    if root.tag != _S + "svg" or root.prefix is not None:
        return None
    checks = _ATTR_CHECKS
    moved = {}
    for k, v in root.items():
        if k == "viewBox":
            if parse_viewbox(v) is None:
                return None  # invalid or zero-size: the full normaliser's rules apply
        elif k in _ROOT_ATTRS:
            continue
        elif k in _ROOT_DROPPED or (k == "style" and _NO_EFFECT_STYLE(v)):
            moved[k] = None  # no effect on the outermost <svg>; dropped, as the walk does
        elif k in _ROOT_MOVABLE and _value_ok(checks[k], v):
            moved[k] = v
        else:
            return None
    todo = []
    rects = []
    # Numbers and paints are checked together at the end, each kind by one regex over its
    # values joined by NUL (which no XML 1.0 document can hold, even as a reference); the
    # opacities and widths at the end too, each distinct value once. One dict look-up per
    # attribute says where its value goes (None: kept as it is, unchecked; a transform or a
    # valid style goes to ``marked``, the element is rewritten; anything else raises).
    numbers: list[str] = []
    paints: list[str] = []
    units: list[str] = []
    positives: list[str] = []
    marked: list[str] = []

    def style(v: str) -> None:
        if _style_declarations(v) is None:
            raise _NotInSubset
        marked.append(v)

    route = dict.fromkeys(checks)
    for k, kind in checks.items():
        if kind == _NUMBER:
            route[k] = numbers.append
        elif kind == _PAINT:
            route[k] = paints.append
        elif kind == _UNIT:
            route[k] = units.append
        elif kind == _POSITIVE:
            route[k] = positives.append
        elif kind == _TRANSFORM:
            route[k] = marked.append
    route["style"] = style
    route = route.get
    tags, dropped, rewritten, rect = _TAGS, _DROPPED, _REWRITTEN, _RECT
    it = root.iterdescendants()
    try:
        for el in it:
            tag = el.tag
            if tag not in tags:
                if tag in dropped:
                    todo.append((el, None))
                    for _ in el.iterdescendants():  # skipped with it (it is removed)
                        next(it)
                    continue
                return None
            if el.prefix is not None:
                return None
            items = el.items()
            for k, v in items:
                to = route(k, _outside)
                if to is not None:
                    to(v)
            if marked:
                marked.clear()
                todo.append((el, items))
            elif tag in rewritten:
                todo.append((el, items))
            elif tag == rect:
                rects.append((el, items))
    except _NotInSubset:
        return None
    if numbers:
        joined = "\x00".join(numbers)
        if not _simple_decimals(joined) and _NUMBERS(joined) is None:
            return None
    if paints and _PAINTS("\x00".join(paints)) is None:
        return None
    for kind, values in ((_UNIT, units), (_POSITIVE, positives)):
        for v in set(values):
            if not _value_ok(kind, v):
                return None
    for el, items in rects:
        attrib = dict(items)
        if not (float(attrib.get("width", "0")) > 0 and float(attrib.get("height", "0")) > 0):
            todo.append((el, items))  # removed: a rect of zero or negative size draws nothing
    return todo, moved


_ROUND = frozenset((_S + "circle", _S + "ellipse"))
_ROUND_GEOMETRY = frozenset(("cx", "cy", "r", "rx", "ry"))
_PATH = _S + "path"


def _num(x: float) -> str:
    """:func:`.common._fmt`, inline: the same text for every float."""
    if x.is_integer():
        if abs(x) < 1e15:
            return str(int(x))
    elif not math.isfinite(x):
        return "0"
    return format(x, ".10g")


def _ellipse_d(cx: float, cy: float, rx: float, ry: float) -> str:
    """:func:`.shapes._ellipse_path`, the same text, faster.

    Its numbers are written with ``.10g``, which is :func:`_num` for every finite
    value below 10^10 in magnitude except ``-0.0`` (written ``-0``; ``_num`` writes ``0``):
    the centre is made non-negative zero, and the sums with a radius > 0 cannot be ``-0.0``.
    """
    if abs(cx) < 1e9 and abs(cy) < 1e9 and rx < 1e9 and ry < 1e9:
        cx += 0.0
        cy += 0.0
        x0 = f"{cx:.10g}"
        y0 = f"{cy:.10g}"
        x1 = f"{cx + rx:.10g}"
        arc = f"A{rx:.10g} {ry:.10g} 0 0 1 "
        return f"M{x1} {y0}{arc}{x0} {cy + ry:.10g}{arc}{cx - rx:.10g} {y0}{arc}{x0} {cy - ry:.10g}{arc}{x1} {y0}Z"
    f = _num
    x0, y0, x1, y1 = f(cx), f(cy), f(cx + rx), f(cy + ry)
    arc = f"A{f(rx)} {f(ry)} 0 0 1 "
    return f"M{x1} {y0}{arc}{x0} {y1}{arc}{f(cx - rx)} {y0}{arc}{x0} {f(cy - ry)}{arc}{x1} {y0}Z"


def _int_circle_d(cxs: str, cys: str, rs: str) -> str | None:
    """The ``d`` of a circle whose values are digit strings below 10^15 (exact in floats, so
    :func:`_num` writes them as ``str(int)``), or None if ``r`` is 0."""
    cx, cy, r = int(cxs), int(cys), int(rs)
    if r <= 0:
        return None
    x0, y0, x1, rr = str(cx), str(cy), str(cx + r), str(r)
    arc = f"A{rr} {rr} 0 0 1 "
    return f"M{x1} {y0}{arc}{x0} {cy + r}{arc}{cx - r} {y0}{arc}{x0} {cy - r}{arc}{x1} {y0}Z"


def _round_d(name: str, attrib: dict) -> str | None:
    """The ``d`` of a circle or ellipse as the walk writes it (:func:`.shapes._ellipse_path`), or
    None when it is removed (radius zero or negative). Its values are plain numbers (proven by
    :func:`_scan`, or by the grammar of :mod:`.subset_text`)."""
    if name == "circle":
        cxs, cys, rs = attrib.get("cx", "0"), attrib.get("cy", "0"), attrib.get("r", "0")
        if (
            len(cxs) < 15 and len(cys) < 15 and len(rs) < 15
            and cxs.isdigit() and cys.isdigit() and rs.isdigit()
        ):
            return _int_circle_d(cxs, cys, rs)
        rx = ry = float(rs)
    else:
        rxs, rys = attrib.get("rx"), attrib.get("ry")
        if rxs is None and rys is None:
            return None
        rx = float(rxs if rxs is not None else rys)
        ry = float(rys if rys is not None else rxs)
    if not (rx > 0 and ry > 0):
        return None
    return _ellipse_d(float(attrib.get("cx") or 0), float(attrib.get("cy") or 0), rx, ry)


def _round_to_path(el, tag: str, attrib: dict) -> bool:
    """A ``<circle>``/``<ellipse>`` without style or transform as ``<path>``, as the walk writes it.

    The same text as :func:`.walk._shape_geometry` with :func:`.shapes._ellipse_path` (its
    values are plain numbers, proven by :func:`_scan`), without the generic rewrite's copies.
    False when its radius is zero or negative (the caller removes it).
    """
    d = _round_d(tag[len(_S) :], attrib)
    return False if d is None else _write_path(el, attrib, d)


def _write_path(el, attrib: dict, d: str) -> bool:
    el.tag = _PATH
    src = el.attrib
    for k in _ROUND_GEOMETRY.intersection(attrib):  # the others keep their order; d goes last
        del src[k]
    src["d"] = d
    return True




def _matrix_attrib(el, attrib: dict | None = None) -> dict:
    """``el``'s attributes (or ``attrib``) with ``transform`` as one matrix, identity removed."""
    attrib = dict(el.items()) if attrib is None else attrib
    tf = attrib.get("transform")
    if tf is not None:
        m = read_transform(tf)
        if m == IDENTITY:
            del attrib["transform"]
        else:
            attrib["transform"] = _matrix_str(m)
    return attrib


def skia_subset(root) -> bool:
    """Whether a parsed document is in the subset skia draws right as it is (module docstring).

    Parameters
    ----------
    root : lxml.etree._Element
        A root from :func:`vector_gym.svg.parse.parse_svg` (not modified).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> skia_subset(parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect width="2" height="1" fill="#f00"/></svg>'))
    True
    >>> skia_subset(parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect width="50%" height="1"/></svg>'))
    False
    """
    return _scan(root) is not None


def lower_skia_subset(root, size: tuple[int, int]) -> bool:
    """Rewrite a document of the skia subset for skia, in place; False (untouched) if it is not in it.

    Parameters
    ----------
    root : lxml.etree._Element
        A root from :func:`vector_gym.svg.parse.parse_svg`, modified only when True is returned.
    size : (int, int)
        Canvas (H, W) in pixels the root is fitted to (:func:`.root.fit_root`).

    Returns
    -------
    bool
        True when the document was in the subset and is now ready for skia (serialise it with
        :func:`vector_gym.svg.normalise.to_svg_bytes`).
    """
    found = _scan(root)
    if found is None:
        return False
    todo, moved = found
    for el, items in todo:  # items: el.items() as _scan read them (unchanged since)
        tag = el.tag
        if tag in _DROPPED:
            el.getparent().remove(el)
            continue
        old = dict(items)
        if "style" not in old and "transform" not in old:  # the common cases, in place
            if tag in _ROUND:
                if not _round_to_path(el, tag, old):
                    el.getparent().remove(el)
                continue
            if tag == _LINE:  # as below; set and del keep the order _store would write
                src = el.attrib
                src["fill"] = "none"
                if "fill-opacity" in old:
                    del src["fill-opacity"]
                continue
        attrib = dict(old)
        style = attrib.pop("style", None)
        if style is not None:  # the style attribute wins over the presentation attributes
            attrib.update(_style_declarations(style))
        attrib = _matrix_attrib(el, attrib)
        if tag == _LINE:
            # skia draws a line's fill paint as a hairline (drawLine ignores the paint style)
            attrib["fill"] = "none"
            attrib.pop("fill-opacity", None)
        elif tag in _SHAPES and not _shape_geometry(el, tag[len(_S) :], attrib):
            el.getparent().remove(el)
            continue
        if attrib != old:
            _store(el, attrib)
    fit_root(root, size)
    if moved:
        # The root's presentation attributes and SVG 2 transform go onto a wrapping <g>, as in
        # the full normaliser (contract item 13); x and y are dropped.
        keep = {k: v for k, v in root.items() if k not in moved}
        wrap_attrs = _matrix_attrib(None, {k: v for k, v in moved.items() if v is not None})
        root.attrib.clear()
        root.attrib.update(keep)
        if wrap_attrs:
            wrap = root.makeelement(_S + "g", wrap_attrs)
            for ch in list(root):
                wrap.append(ch)
            root.text = None
            root.append(wrap)
    return True

