"""The skia-subset lowering of :mod:`.subset` for the commonest documents, done on their text.

For a document of the skia subset, :func:`.subset.lower_skia_subset` reads every attribute
through lxml (``items()`` is most of its time: about 1.5 us per element, in Python), rewrites a
few elements in the tree and serialises the whole tree again, for a text that differs from the
source only where something was rewritten. Most documents the render path sees are flat lists
of rects, circles, lines, polygons and paths with hex colours and plain numbers (every
Vector-Bench and RepairGen scene). For them :func:`lower_skia_subset_text` proves membership of
the subset with one regular expression over the text (:data:`_BODY`: the elements and
attributes of the subset, each value in a syntax that passes the subset's own check,
:func:`.subset._value_ok`), run by the regex engine in C, and rewrites only the circles,
ellipses, lines and paths, each as the tree lowering writes it (circles and ellipses as paths
with :func:`.subset._round_to_path`'s text, ``fill="none"`` on lines, path data cut after its
last valid segment with :func:`.walk._shape_geometry`, zero-size shapes removed; a circle whose
``cx``, ``cy`` and ``r`` follow one another is read by the regex alone, and when no line has a
fill of its own every line gets ``fill="none"`` first in one substitution); the root is
fitted to the canvas (:func:`.root.fit_root`) and its presentation attributes moved onto a
wrapping ``<g>`` as there. Every other tag is written out as it was written; whitespace between
tags, ids (the document refers to nothing), the XML declaration and unused namespace
declarations are left out (skia draws none of them; whitespace costs it a text node each to
parse, an id an entry in its id map). The pixels are those of the tree lowering (and
so of the full normaliser): ``tests/svg/test_normalise_subset_text.py`` checks it on every
bundled document and on hand-written edge cases.

Style attributes (the SVGEditBench V2 emoji exported by Illustrator: ``style="fill:#8CAFBF;"``
on their shapes, a comment before the root): a style of plain declarations on a shape or group
without presentation attributes is kept as it is (skia reads each declaration with the
attribute's own parser, so it draws the tree lowering's attributes); any other style is read by
the tree lowering's reader and applied over its element's attributes, one Python call per
element (:func:`_unstyle`).

The grammar is narrower than the subset (no ``transform``, ``<title>``, exponent, single
quote, carriage return or space around ``=``, and every rect with a positive width and
height): anything else returns ``None``, and the caller runs the tree lowering, which decides
on the tree. It runs only on a text that :func:`vector_gym.render.precheck.check_tree` has
already parsed and accepted (so the text is well-formed XML within every limit) and that refers
to nothing (:func:`vector_gym.render.precheck._may_refer` is false: no ``&``, so no entity or
character reference makes a value differ from its text, and no reference strip rewrote the
tree).
"""

from __future__ import annotations

import re
import threading

from vector_gym.svg.normalise.common import SVG_NS
from vector_gym.svg.normalise.paths import PLAIN_D
from vector_gym.svg.normalise.root import fitted_root_attributes
from vector_gym.svg.normalise.subset import (
    _ATTR_CHECKS,
    _NO_EFFECT_STYLE,
    _ROOT_ATTRS,
    _ROOT_MOVABLE,
    _matrix_attrib,
    _round_d,
    _style_declarations,
    _value_ok,
)
from vector_gym.svg.normalise.walk import _shape_geometry
from vector_gym.svg.viewbox import parse_viewbox

__all__ = ["lower_skia_subset_text", "lower_skia_subset_text_intact"]

# One attribute: name="value" (the grammar admits double quotes only).
_ATTR_DQ = re.compile(r'([^\s=]+)\s*=\s*"([^"]*)"').findall
_NORMALISE_WS = str.maketrans("\t\n", "  ")  # attribute-value normalisation (no \r here)
_ROUND_GEOMETRY = frozenset(("cx", "cy", "r", "rx", "ry"))
_XML_SPACE = "xml:space"


def _start_tag(name: str, attrib: dict, empty: bool) -> str:
    parts = ["<", name]
    for k, v in attrib.items():
        if '"' in v:  # only from a value written in single quotes
            v = v.replace('"', "&quot;")
        parts.append(f' {k}="{v}"')
    parts.append("/>" if empty else ">")
    return "".join(parts)


# -- the grammar --------------------------------------------------------------------------
# XML whitespace (a carriage return is left to the tree: the text would not be what lxml read).
_W = "[ \t\n]"
# Value syntaxes, each a part of the check the subset applies to its attributes
# (:func:`.subset._value_ok`), written so that every value matched passes it, and with
# possessive quantifiers only (no backtracking: the time is linear in the text whatever it is).
_NUM = r"[+-]?+(?:[0-9]++\.?+[0-9]*+|\.[0-9]++)"  # a plain number without exponent
# A plain number > 0 as a float: a non-zero digit before the point, or within 20 places after
# it (so that the float cannot underflow to 0).
_POS = r"0*+(?:[1-9][0-9]*+\.?+[0-9]*+|\.0{0,20}+[1-9][0-9]*+)"
_UNIT_V = r"(?:0*+\.[0-9]++|0++\.?+|0*+1(?:\.0*+)?+)"  # a plain number in [0, 1]
_PAINT_V = r"(?:#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?|none|white|black)"
_ANY = r'[^"<]*+'  # (a "<" is no value's: expat's error; see lower_skia_subset_text_intact)
# A declaration's number: a plain number without a "+" (which .subset._STYLE_VALUE refuses).
_DECL_NUM = r"-?+(?:[0-9]++\.?+[0-9]*+|\.[0-9]++)"
# A style of declarations that skia reads as it reads the same presentation attributes (its
# SVG parser sets each declaration of a style attribute through the attribute's own parser, in
# order): no whitespace, each value in a syntax of its attribute above, keywords for the rest.
_DECL_SHARED = (
    rf"stroke:{_PAINT_V}|stroke-width:{_POS}|stroke-miterlimit:{_DECL_NUM}"
    rf"|(?:stroke-)?+opacity:{_UNIT_V}|fill-rule:(?:nonzero|evenodd)"
    rf"|stroke-linecap:(?:butt|round|square)|stroke-linejoin:(?:miter|round|bevel)"
    r"|enable-background:[a-z0-9. ]*+"  # Illustrator's; skia reads no such property, the tree drops it
)
_DECL = rf"fill:{_PAINT_V}|fill-opacity:{_UNIT_V}|{_DECL_SHARED}"
_PLAIN_STYLE = rf'style="(?:{_DECL})(?:;(?:{_DECL}))*+;?+"'
# A line's: no fill but none (a line gets fill="none", as in the tree lowering, after its style)
_LINE_DECL = rf"fill:none|{_DECL_SHARED}"
_PLAIN_LINE_STYLE = rf'style="(?:{_LINE_DECL})(?:;(?:{_LINE_DECL}))*+;?+"'
# The attributes of an element with such a style, besides it: no presentation attribute, so
# that no declaration and attribute set the same property (where skia and the cascade may
# differ on which one wins).
_GEOMETRY = (
    rf'{_W}++(?:id="{_ANY}"|d="{_ANY}"|points="{_ANY}"|c(?:x|y)="{_NUM}"|r(?:x|y)?="{_NUM}"'
    rf'|x(?:1|2)?="{_NUM}"|y(?:1|2)?="{_NUM}")'
)


def _body_grammar(style: str, plain_style: bool) -> re.Pattern:
    """The grammar of the root's content.

    ``style``: an alternative for a style attribute among the others (or ""); ``plain_style``:
    also a path, circle, ellipse, line, polygon, polyline or group whose attributes are a
    :data:`_PLAIN_STYLE` (a line's: :data:`_PLAIN_LINE_STYLE`) and :data:`_GEOMETRY` (the
    style kept as it is: skia draws it as the tree lowering's attributes; a circle or ellipse
    still becomes a path, with the style, and a line gets ``fill="none"``).
    """
    # One attribute of a drawing element, by name (factored by first letter: the regex engine
    # tries alternatives in turn). Geometry is plain numbers; width and height (of a rect, or
    # ignored on the others) > 0, so that no rect is removed for its size.
    not_size = (
        rf'i(?:d="{_ANY}")'
        rf'|f(?:ill="{_PAINT_V}"|ill-opacity="{_UNIT_V}"|ill-rule="{_ANY}")'
        rf'|s(?:troke="{_PAINT_V}"|troke-width="{_POS}"|troke-opacity="{_UNIT_V}"'
        rf'|troke-(?:linecap|linejoin|miterlimit|dasharray|dashoffset)="{_ANY}"{style})'
        rf'|x(?:1|2)?="{_NUM}"|y(?:1|2)?="{_NUM}"'
        rf'|c(?:x|y)="{_NUM}"|r(?:x|y)?="{_NUM}"'
        rf'|o(?:pacity="{_UNIT_V}")'
        rf'|d="{_ANY}"|points="{_ANY}"|clip-rule="{_ANY}"'
    )
    a = rf'{_W}++(?:{not_size}|(?:width|height)="{_POS}")'
    # A rect: its attributes other than width and height around a width and a height, in
    # either order (every rect has both, so that none is removed for its size; XML allows no
    # second one). One pass over its attributes: two lookaheads for them cost the grammar 40 %
    # of its time.
    a_not_size = rf"(?:{_W}++(?:{not_size}))*+"
    width = rf'{_W}++width="{_POS}"'
    height = rf'{_W}++height="{_POS}"'
    rect = (
        rf"rect{a_not_size}(?:{width}{a_not_size}{height}|{height}{a_not_size}{width})"
        rf"{a_not_size}{_W}*+/>"
    )
    styled = ""
    if plain_style:
        around = rf"(?:{_GEOMETRY})*+{_W}++{_PLAIN_STYLE}(?:{_GEOMETRY})*+{_W}*+"
        line = rf"(?:{_GEOMETRY})*+{_W}++{_PLAIN_LINE_STYLE}(?:{_GEOMETRY})*+{_W}*+"
        styled = rf"|(?:path|circle|ellipse|polygon|polyline){around}/>|line{line}/>|g{around}/?+>"
    # whitespace and elements of the subset with those attributes only (no transform, title or
    # desc: those documents go to the tree), the shapes written as empty elements
    return re.compile(
        rf"(?:{_W}++"
        rf"|<(?:{rect}|(?:circle|ellipse|line|path|polygon|polyline)(?:{a})*+{_W}*+/>{styled})"
        rf"|<g(?:{a})*+{_W}*+/?+>|</g{_W}*+>"
        rf")*+"
    )


# The content of the root: without style attributes (every Vector-Bench and RepairGen
# scene); else with plain styles kept as they are (most of the SVGEditBench V2 emoji that
# carry styles, Illustrator exports: ``<path style="fill:#8CAFBF;" d="..."/>``); else with any
# style without "<", each read by :func:`.subset._style_declarations` in :func:`_unstyle`.
_BODY = _body_grammar("", False).fullmatch
_BODY_PLAIN_STYLES = _body_grammar("", True).fullmatch
_BODY_STYLED = _body_grammar(rf'|tyle="{_ANY}"', False).fullmatch
# A comment holding no "<" (XML allows no "--" in one, nor a "-" before its end; a "<" would
# let a "<svg" inside it be read as the root's start by the search for it).
_COMMENT = r"<!--(?:[^<-]|-[^<-])*+-->"
# XML declaration, instructions, comments (Illustrator writes one before the root)
_PROLOG = re.compile(rf"(?:{_W}++|<\?[^<>]*\?>|{_COMMENT})*+").fullmatch
_ROOT_HEAD = re.compile(rf'svg(?:{_W}++[^\s="<>/]++="[^"<>]*+")*+{_W}*+/?').fullmatch
_ROOT_END = re.compile(rf"</svg{_W}*+>{_W}*+").fullmatch
# Whitespace between two tags.
_BETWEEN_TAGS = re.compile(rf">{_W}++<").sub
# An id after a space (the document refers to nothing, so no id is used; skia files each in its
# id map: about 18 us of its parse of a Vector-Bench scene). A pattern that starts with a
# literal is searched for fast: an id after a tab or a newline stays, which changes nothing.
# The text ' id="' also occurs where a value ends in ' id=' (its closing quote read as the
# id's opening one: removing that would take the next attribute with it), so the space must
# follow a tag name: only an element's first attribute is left out (every id of the bundled
# scenes; one elsewhere stays, which changes nothing drawn), so that no element loses two ids
# (:func:`lower_skia_subset_text_intact` counts them). Commonest tag names first.
_UNUSED_ID = re.compile(
    r' id="(?:(?<=<rect id=")|(?<=<circle id=")|(?<=<line id=")|(?<=<polygon id=")'
    r'|(?<=<path id=")|(?<=<ellipse id=")|(?<=<polyline id=")|(?<=<g id="))[^"]*+"'
).subn
# An attribute other than a circle's geometry (and a d, which the path of a circle replaces).
_NOT_ROUND = r'(?:[ \t\n]++(?!c[xy]=|r[xy]?+=|d=)[^\s=]++="[^"]*+")*+'
# The elements rewritten (all empty, by the grammar), with their attributes (whose values may
# hold a ">"). A circle whose cx, cy and r are written one after another (every circle of the
# bundled corpora) is matched with them apart (groups 1-5: the attributes before, cx, cy, r,
# the attributes after), so that no Python reads its attributes one by one; the same for an
# ellipse whose cx, cy, rx and ry follow one another (groups 6-11; every ellipse of the bundled
# scenes); any other circle, ellipse, line or path is matched whole (groups 12 and 13: its name
# and attributes).
_ROUND_FIRST = (
    rf'<(?:circle({_NOT_ROUND})[ \t\n]++cx="([^"]*+)"[ \t\n]++cy="([^"]*+)"[ \t\n]++r="([^"]*+)"'
    rf'({_NOT_ROUND})[ \t\n]*+/>'
    rf'|ellipse({_NOT_ROUND})[ \t\n]++cx="([^"]*+)"[ \t\n]++cy="([^"]*+)"'
    rf'[ \t\n]++rx="([^"]*+)"[ \t\n]++ry="([^"]*+)"({_NOT_ROUND})[ \t\n]*+/>'
)
# A path whose d is plain (:data:`.paths.PLAIN_D`: what .paths.sanitize_path_data returns
# unchanged) is written as it is: the lookahead keeps it out of the matches, so that it costs
# no Python call (about 3 us a path; a V2 emoji has about five).
_PATH = rf'path(?!(?:[ \t\n]++(?!d=)[^\s=]++="[^"]*+")*+[ \t\n]++d="{PLAIN_D}")'
_REWRITE = re.compile(_ROUND_FIRST + rf'|(circle|ellipse|line|{_PATH})((?:[^>"/]++|"[^"]*+")*+)/>)')
# The same without lines, for a body whose lines have no fill of their own: they get
# fill="none" by a plain substitution (:data:`_LINE_START`) instead.
_REWRITE_NO_LINE = re.compile(_ROUND_FIRST + rf'|(circle|ellipse|{_PATH})((?:[^>"/]++|"[^"]*+")*+)/>)')
_LINE_WITH_FILL = re.compile(r'<line(?:[ \t\n]++(?!fill=)[^\s=]++="[^"]*+")*+[ \t\n]++fill=').search
_LINE_START = re.compile(r"<line(?=[ \t\n/])").sub


# One attribute of a rewritten element, whitespace before it included: a match from the start
# of the attribute text and then each from the end of the one before, so that the text of an
# attribute inside another's value (``id=" r="``) is never read as one.
_ATTR_TEXT = re.compile(rf'({_W}++([^\s=]++)="([^"]*+)")').findall
_LINE_DROPPED = frozenset(("fill", "fill-opacity"))
_CIRCLE_DROPPED = _ROUND_GEOMETRY | {"d"}  # a d on a circle is ignored; the path gets its own


# A start tag with a style attribute (the body is of :data:`_BODY_STYLED`): its name, its
# attributes and its end (``>`` or ``/>``).
_STYLED_TAG = re.compile(
    r'<([a-z]++)(?=(?:[ \t\n]++(?!style=)[^\s=]++="[^"]*+")*+[ \t\n]++style=)'
    r'((?:[ \t\n]++[^\s=]++="[^"]*+")*+)[ \t\n]*+(/?+>)'
).sub


# Whether a rewrite left out text of the document that the output no longer shows (a removed
# element, attributes read into a dict or left out): then the output's well-formedness is no
# proof of the document's (:func:`lower_skia_subset_text_intact`). Per thread: a lowering runs
# in one thread, start to end.
_STATE = threading.local()


def _dropped() -> str:
    _STATE.dropped = True
    return ""


def _unstyle(m: re.Match) -> str:
    """A start tag with its style attribute applied over its attributes, as the tree lowering
    does (:func:`.subset.lower_skia_subset`: the declarations win, the style is removed).

    The value is read as lxml reads it (tabs and newlines as spaces) by the tree lowering's own
    reader, :func:`.subset._style_declarations`; a style it refuses sets ``_STATE.refused``
    (the caller then leaves the document to the tree).
    """
    name, attrs, end = m.group(1, 2, 3)
    attrib = dict(_ATTR_DQ(attrs))
    decls = _style_declarations(attrib.pop("style").translate(_NORMALISE_WS))
    if decls is None:
        _STATE.refused = True
        return m.group(0)
    attrib.update(decls)
    return _start_tag(name, attrib, end == "/>")


def _ellipse_path(pre: str, post: str, cx: int, cy: int, rx: float, ry: float) -> str:
    """The path :func:`.subset._ellipse_d` writes for an ellipse (or a circle, ``rx == ry``)
    with whole-number centre ``(cx, cy)`` and radii ``0 < rx, ry < 1e9`` (float sums, ``.10g``,
    as there), between the element's other attributes ``pre`` and ``post``."""
    x0 = str(cx)
    y0 = str(cy)
    x1 = f"{cx + rx:.10g}"
    arc = f"A{rx:.10g} {ry:.10g} 0 0 1 "
    return (
        f'<path{pre}{post} d="M{x1} {y0}{arc}{x0} {cy + ry:.10g}{arc}{cx - rx:.10g} {y0}'
        f'{arc}{x0} {cy - ry:.10g}{arc}{x1} {y0}Z"/>'
    )


def _rewrite(m: re.Match) -> str:
    """One circle, ellipse, line or path as :func:`.subset.lower_skia_subset` writes it.

    The other attributes keep their text (values of the subset, checked by the grammar);
    attribute order differs from the tree lowering's, which changes nothing drawn.
    """
    pre, cxs, cys, rs, post = m.group(1, 2, 3, 4, 5)
    if cxs is not None:  # a circle with cx, cy and r one after another (_REWRITE)
        if len(cxs) < 10 and len(cys) < 10 and cxs.isdigit() and cys.isdigit():
            # :func:`.subset._round_d` inlined for a centre of digits below 10^9 (every circle
            # of the bundled scenes): no dict, and the centre written as its int (what
            # ``.10g`` writes for such a float); 2.3 us a circle instead of 3.0
            cx = int(cxs)
            cy = int(cys)
            if len(rs) < 10 and rs.isdigit():  # .subset._int_circle_d
                r = int(rs)
                if r <= 0:
                    return _dropped()  # zero radius: removed
                x0 = str(cx)
                y0 = str(cy)
                x1 = str(cx + r)
                arc = f"A{r} {r} 0 0 1 "
                return (
                    f'<path{pre}{post} d="M{x1} {y0}{arc}{x0} {cy + r}{arc}{cx - r} {y0}'
                    f'{arc}{x0} {cy - r}{arc}{x1} {y0}Z"/>'
                )
            r = float(rs)
            if not r > 0:
                return _dropped()  # zero radius: removed
            if r < 1e9:  # .subset._ellipse_d: the sums are floats, as there
                return _ellipse_path(pre, post, cx, cy, r, r)
        d = _round_d("circle", {"cx": cxs, "cy": cys, "r": rs})
        if d is None:
            return _dropped()  # zero or negative radius: removed
        return f'<path{pre}{post} d="{d}"/>'
    cxs = m.group(7)
    if cxs is not None:  # an ellipse with cx, cy, rx and ry one after another
        pre, cys, rxs, rys, post = m.group(6, 8, 9, 10, 11)
        if len(cxs) < 10 and len(cys) < 10 and cxs.isdigit() and cys.isdigit():
            # .subset._round_d and ._ellipse_d inlined, as for circles (2.6-3.0 us instead of 5.9)
            rx = float(rxs)
            ry = float(rys)
            if not (rx > 0 and ry > 0):
                return _dropped()  # zero or negative radius: removed
            if rx < 1e9 and ry < 1e9:
                return _ellipse_path(pre, post, int(cxs), int(cys), rx, ry)
        d = _round_d("ellipse", {"cx": cxs, "cy": cys, "rx": rxs, "ry": rys})
        if d is None:
            return _dropped()  # zero or negative radius: removed
        return f'<path{pre}{post} d="{d}"/>'
    name = m.group(12)
    attrs = m.group(13) or ""
    if name == "path":
        attrib = dict(_ATTR_DQ(attrs))
        d = attrib.get("d")
        if not _shape_geometry(None, "path", attrib):
            return _dropped()  # no valid segment: removed
        if attrib["d"] == d:
            return m.group(0)
        _STATE.dropped = True
        return _start_tag("path", attrib, True)
    _STATE.dropped = True  # attributes left out, or read into a dict
    found = _ATTR_TEXT(attrs)
    if name == "line":  # skia would draw its fill as a hairline
        rest = "".join(t for t, k, _v in found if k not in _LINE_DROPPED)
        return f'<line{rest} fill="none"/>'
    d = _round_d(name, {k: v for _t, k, v in found if k in _ROUND_GEOMETRY})
    if d is None:
        return _dropped()  # zero or negative radius: removed
    rest = "".join(t for t, k, _v in found if k not in _CIRCLE_DROPPED)
    return f'<path{rest} d="{d}"/>'


def lower_skia_subset_text(text: str, size: tuple[int, int]) -> bytes | None:
    """The skia-ready text of a subset document, from its text; None where the tree must decide.

    :func:`lower_skia_subset_text_intact` without its second value.

    Parameters
    ----------
    text : str
        A document that :func:`vector_gym.render.precheck.check_tree` accepted and that refers
        to nothing (module docstring: this function relies on both).
    size : (int, int)
        Canvas (H, W) in pixels the root is fitted to (:func:`.root.fit_root`).

    Returns
    -------
    bytes or None
        UTF-8 text that skia draws exactly as the output of :func:`.subset.lower_skia_subset`
        for the same document, or None when the text is not of the grammar above (the caller
        then runs the tree lowering, which decides on the tree).
    """
    return lower_skia_subset_text_intact(text, size)[0]


def lower_skia_subset_text_intact(text: str, size: tuple[int, int]) -> tuple[bytes | None, bool]:
    """:func:`lower_skia_subset_text`, and whether the output shows every error of the text.

    The second value is True when nothing the lowering leaves out of the text could have made
    it ill-formed XML: no element removed or rewritten from a dict of its attributes, no
    element that lost more than one id (only first attributes are left out, and every ``id="``
    of the text is one of them), no root attribute written twice (the root is written anew),
    no ``<`` in a value (the grammar), and no group wrapped around the body (whose ``</g>``
    would close a stray one of the body). What is kept is the text itself, so expat refuses
    the output where it would refuse the text, if no control character is in the text (the
    caller checks it) and the text has a plain prolog and only the SVG and XLink namespace
    declarations (:func:`vector_gym.render.precheck.may_skip_parse`). skia's parse of the
    output (expat) is then a proof of the text's well-formedness.
    """
    none = (None, False)
    start = text.find("<svg")
    if start < 0 or not _PROLOG(text, 0, start):
        return none
    close = text.find(">", start)
    end = text.rfind("</svg")
    head = text[start + 1 : close]
    if close < 0 or not _ROOT_HEAD(head):
        return none
    root_empty = head[-1] == "/"
    styled = False
    if root_empty:
        if text[close + 1 :].strip(" \t\n"):
            return none
        body = ""
    else:
        if end < close or not _ROOT_END(text, end):
            return none
        if not _BODY(text, close + 1, end) and not _BODY_PLAIN_STYLES(text, close + 1, end):
            if not _BODY_STYLED(text, close + 1, end):
                return none
            styled = True
        body = text[close + 1 : end]
    # The root's attributes: as .subset._scan checks them.
    pairs = _ATTR_DQ(head)
    if "\t" in head or "\n" in head:
        pairs = [(k, v.translate(_NORMALISE_WS)) for k, v in pairs]
    checks = _ATTR_CHECKS
    kept: dict = {}
    moved: dict = {}
    for k, v in pairs:
        if k == "xmlns" or k[:6] == "xmlns:":
            if k == "xmlns" and v != SVG_NS:
                return none
            continue  # namespace declarations: none is used by what is written out
        if k[:5] == "xmlns":
            return none  # an attribute such as "xmlnsx": no declaration (the tree decides)
        if k == "viewBox":
            if parse_viewbox(v) is None:
                return none  # invalid or zero-size: the full normaliser's rules apply
            kept[k] = v
        elif k in _ROOT_ATTRS:
            kept[k] = v
        elif k == "x" or k == "y" or k == _XML_SPACE or (k == "style" and _NO_EFFECT_STYLE(v)):
            continue  # no effect on the outermost <svg>; dropped, as the walk does
        elif k in _ROOT_MOVABLE and _value_ok(checks[k], v):
            moved[k] = v
        else:
            return none
    # Whitespace between tags is no text skia draws (the subset has no text element) but costs
    # it a node each to parse, and ids are unused: both left out (a value holds no "<", so no
    # value is touched).
    body = _BETWEEN_TAGS("><", body.strip(" \t\n"))
    ids = body.count('id="')
    body, removed = _UNUSED_ID("", body)
    intact = removed == ids and len(pairs) == len({k for k, _v in pairs})
    if styled:
        # each style applied over its element's attributes (and removed), as the tree does;
        # not intact: two styles of one element would write an attribute twice, or not
        _STATE.refused = False
        body = _STYLED_TAG(_unstyle, body)
        if _STATE.refused:
            return none
        intact = False
    _STATE.dropped = False
    if _LINE_WITH_FILL(body) is None:
        # no line has a fill of its own (XML allows no second one): each gets fill="none" in
        # one substitution, where the rewrite writes the same after its other attributes
        body = _REWRITE_NO_LINE.sub(_rewrite, _LINE_START('<line fill="none"', body))
    else:
        body = _REWRITE.sub(_rewrite, body)
    intact = intact and not _STATE.dropped
    # The root, fitted to the canvas (.root.fit_root), its presentation attributes and
    # transform moved onto a wrapping <g> (contract item 13).
    view_box, kept["width"], kept["height"] = fitted_root_attributes(
        kept.get("viewBox"), kept.get("width"), kept.get("height"), size
    )
    if view_box is not None:
        kept["viewBox"] = view_box
    root = _start_tag("svg", {"xmlns": SVG_NS, **kept}, False)
    if moved:
        wrap = _matrix_attrib(None, moved)
        if wrap:
            # not intact: the wrapping group would close a stray "</g>" of the body
            return (root + _start_tag("g", wrap, False) + body + "</g></svg>").encode("utf-8"), False
    return (root + body + "</svg>").encode("utf-8"), intact
