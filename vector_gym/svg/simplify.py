"""Simplify an SVG into the normalised render form, as usvg does for resvg.

skia's SVG module silently ignores or mangles much of what real SVGs use (issue 3, item 1). This
module rewrites a parsed document into a smaller dialect that skia draws the way resvg and the
browsers do. It is also offered to users as "simplify": a document with the same pixels and
fewer spellings.

Contract
--------
Resolved (the output never contains these spellings):

1. **Namespaces and prologue.** Any prefix for the SVG namespace (``svg:svg``); DOCTYPE, comments
   and processing instructions are gone (the tree comes from :func:`vector_gym.svg.parse.parse_svg`);
   elements and attributes in other namespaces (editor metadata) are dropped, except
   ``xlink:href``. The output uses the default SVG namespace and ``xmlns:xlink``.
2. **CSS cascade.** ``<style>`` sheets (tinycss2 + cssselect2 selector matching, specificity,
   source order, ``!important``) and ``style`` attributes are applied over the presentation
   attributes; the result is plain attributes, and ``<style>``/``style`` are removed. At-rules
   (``@media``, ``@font-face``) are ignored.
3. **Colours.** ``fill``, ``stroke``, ``stop-color``, ``flood-color``, ``lighting-color`` in every
   CSS spelling (named, ``#rgb``, ``#rgba``, ``#rrggbbaa``, ``rgb[a]()``, ``hsl[a]()``, ``hwb()``,
   ``transparent``, ``currentColor`` in any case) become ``#rrggbb``; alpha goes into the
   matching opacity (``fill-opacity``, ``stroke-opacity``, ``stop-opacity``, ``flood-opacity``).
   Fill and stroke are written explicitly on every drawing element (inheritance of colour,
   alpha and ``currentColor`` is computed here), and removed from containers.
4. **References.** ``href`` and ``xlink:href`` become ``xlink:href`` (skia reads only that);
   ``url('#x')`` and ``url("#x")`` become ``url(#x)``; a paint that names a missing or
   stop-less paint server becomes its fallback colour or ``none``; a one-stop gradient becomes
   that solid colour. An ``<image>``, ``<feImage>`` or ``<use>`` that names an external resource
   (anything but ``#id`` or a raster ``data:`` URI: ``https:``, ``file:``, a path, an SVG
   ``data:`` document, also through its own ``xml:base``) becomes what it draws when the
   resource cannot be fetched, as CairoSVG offline: nothing (an empty ``<g>``; a transparent
   ``<feFlood>`` for ``<feImage>``), :func:`strip_external_resources`. It is never fetched or
   opened; the render pre-check applies the same rule before any backend sees the document.
5. **``<use>``** is replaced by a ``<g>`` (the use's transform, then ``translate(x, y)``) holding a
   copy of its target; a ``<symbol>`` target becomes a nested viewport (point 8). Expansion is
   bounded by ``max_use_expansion`` elements; uses that are cyclic, dangling or over the budget
   are dropped. Unreferenced ``<symbol>`` elements become ``<defs>``.
6. **``<switch>``** keeps only its first child whose ``requiredExtensions``/``systemLanguage``
   (``en``) tests pass; it becomes a ``<g>``.
7. **Transforms.** ``transform``, ``gradientTransform`` and ``patternTransform`` become one
   ``matrix(a,b,c,d,e,f)`` (identity removed). Any separator variant is accepted; on a syntax
   error the transforms before it are kept.
8. **Nested ``<svg>``** (and instantiated symbols) become a ``<g>`` clipped to its viewport
   (unless ``overflow`` is visible) holding a ``<g>`` with the viewBox/preserveAspectRatio
   transform; zero-size viewports are removed.
9. **Lengths.** Units (``px pt pc mm cm in em ex``) and percentages of geometry attributes,
   ``stroke-width`` and gradient/clip/mask/pattern coordinates become user-unit numbers
   (percentages against the nearest viewport; fractions in ``objectBoundingBox`` units).
10. **Shapes and paths.** ``<ellipse>`` and ``<circle>`` become ``<path>`` (skia draws a gradient
    on an ellipse black); path data is cut after its last valid segment (the SVG error rule)
    and arc flags are separated (``a1 1 0 00 1 1``). Shapes with a zero or negative radius or
    size are removed.
11. **Gradients.** ``href`` templates are flattened: stops, units, transform, spread and
    coordinates are inherited; stop offsets become numbers clamped to [0, 1] and non-decreasing.
12. **``paint-order``** with the stroke first is drawn as two copies (stroke, then fill).
13. **Root.** ``width``/``height`` are set to the canvas when ``size`` is given (a missing
    ``viewBox`` is made from absolute ``width``/``height`` first, :func:`fit_root`); the root's
    presentation attributes and SVG 2 ``transform`` move onto a wrapping ``<g>``.

Kept verbatim: every other element and attribute skia reads (``clipPath``, ``mask``,
``pattern``, ``marker``, ``filter`` primitives, ``fill-rule``, dashes, ``opacity``...).

Dropped: ``<title>``, ``<desc>``, ``<metadata>``, ``<script>``, ``<foreignObject>``,
``mix-blend-mode`` and ``isolation`` (skia's SVG module has no blend modes), event attributes.

Not drawn by skia (kept, documented): ``<text>`` (skia-python has no font manager, so glyphs
never draw), ``<image>`` (skia's SVG module draws no image, not even a ``data:`` URI) and
``mix-blend-mode``. :func:`vector_gym.render.render_many` therefore hands documents that use
them to resvg (backend ``"skia"``; ``"skia-strict"`` never does).

Malformed parts degrade, they do not raise: a bad transform keeps its valid prefix, a bad
path its valid segments, a bad colour is ignored (the property inherits), a bad length drops
the element that needs it.
"""

from __future__ import annotations

import copy
import logging
import math
import re
from functools import lru_cache

from lxml import etree

from vector_gym.svg.color import parse_css_color
from vector_gym.svg.numbers import SVG_NUMBER_RE
from vector_gym.svg.parse import MANY_ATTRIBUTES, local_name, parse_svg, read_attributes
from vector_gym.svg.transform import TRANSFORM_ARITY
from vector_gym.svg.viewbox import parse_viewbox

__all__ = [
    "simplify",
    "simplify_tree",
    "fit_root",
    "to_svg_bytes",
    "sanitize_path_data",
    "parse_transform_lenient",
    "external_references",
    "strip_external_resources",
    "use_expansion_count",
    "path_numbers_over",
]

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
_XLINK_HREF = f"{{{XLINK_NS}}}href"
_S = f"{{{SVG_NS}}}"

# Bounded so that a value such as "url(url(url(..." is scanned in linear time; a url() paint,
# clip, mask, filter or marker reference is a short fragment (file reads come only from href
# and @import, which are checked without this pattern).
_URL_RE = re.compile(r"url\(\s*(?:\"([^\"]{0,2048})\"|'([^']{0,2048})'|([^)'\"(\s]*))\s*\)")


def _url(m: re.Match) -> str:
    """The reference inside a ``url(...)`` match (quoted or not)."""
    a, b, c = m.groups()
    return a if a is not None else b if b is not None else c


_IMPORT_RE = re.compile(r"@import", re.I)

DEFAULT_MAX_USE_EXPANSION = 200_000

_log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Pre-check helpers (used by vector_gym.render.precheck before any rasteriser runs)
# --------------------------------------------------------------------------------------------


def _href(el) -> str | None:
    v = el.get(_XLINK_HREF)
    if v is None:
        v = el.get("href")
    return v


def _is_local(v: str) -> bool:
    """``#id``, empty, or a ``data:`` URI that is not itself an SVG document.

    An SVG inside a ``data:`` URI is refused: resvg and CairoSVG would parse it with their own
    resolvers, outside the pre-check, and it could name local files.
    """
    v = v.strip()
    if not v or v.startswith("#"):
        return True
    if v[:5].lower() == "data:":
        return "svg" not in v[5 : v.find(",")].lower()
    return False


# xml:base counts as a reference: CairoSVG resolves even "#id" against it and stats the file it
# names (an existence oracle on the host). The href of an <a> is a hyperlink, which no
# rasteriser fetches: it does not count (browsers, resvg and CairoSVG draw the link's content).
_REFS_XPATH = etree.XPath(
    "//@*[contains(., 'url(') or (local-name() = 'href' and local-name(..) != 'a')"
    " or (local-name() = 'base' and namespace-uri() = 'http://www.w3.org/XML/1998/namespace')]",
    smart_strings=False,
)
_STYLE_TEXT_XPATH = etree.XPath("//*[local-name() = 'style']/text()", smart_strings=False)

_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_EXTERNAL_DRAWERS_XPATH = etree.XPath(
    "//*[local-name() = 'image' or local-name() = 'feImage' or local-name() = 'use']"
    "[@*[local-name() = 'href'] or @xml:base]",
    namespaces={"xml": "http://www.w3.org/XML/1998/namespace"},
)
# What an <feImage> becomes when its image is stripped: transparent black over its subregion.
_FE_KEEP = ("id", "x", "y", "width", "height", "result")


def strip_external_resources(root) -> list[str]:
    """Replace every ``<image>``, ``<feImage>`` and ``<use>`` that names an external resource.

    An external resource is any reference that is not ``#id`` or a raster ``data:`` URI
    (``https:``, ``file:``, a path, an SVG ``data:`` document), in ``href``/``xlink:href`` or
    the element's own ``xml:base``. Such an element draws nothing when the resource cannot be
    fetched, which is what the SVGEditBench papers' CairoSVG does offline: it draws the rest of
    the image. So instead of failing the document the element is replaced, in place, by what
    it draws then: ``<image>`` and ``<use>`` by an empty ``<g>`` (keeping ``id``), ``<feImage>``
    by a transparent ``<feFlood>`` (keeping ``id``, ``x``, ``y``, ``width``, ``height`` and
    ``result``). The reference is never fetched or opened, and never reaches a rasteriser.

    Other external references still fail the pre-check (:func:`external_references`): a
    ``url()`` paint, clip, mask, filter or marker falls back to something else when missing, and
    an ``xml:base`` or ``@import`` changes how everything below it resolves.

    Parameters
    ----------
    root : lxml.etree._Element
        Modified in place.

    Returns
    -------
    list of str
        The stripped references, in document order.

    Examples
    --------
    >>> r = parse_svg('<svg><image id="i" href="https://a/b.png"/><use href="o.svg#x"/></svg>')
    >>> strip_external_resources(r), [(e.tag, dict(e.attrib)) for e in r]
    (['https://a/b.png', 'o.svg#x'], [('g', {'id': 'i'}), ('g', {})])
    """
    stripped: list[str] = []
    for el in _EXTERNAL_DRAWERS_XPATH(root):
        refs = [
            v for k, v in read_attributes(el).items() if local_name(k) == "href" or k == _XML_BASE
        ]
        bad = [v.strip() for v in refs if not _is_local(v)]
        if not bad:
            continue
        stripped.extend(bad)
        ns = el.tag[: el.tag.index("}") + 1] if el.tag[:1] == "{" else ""
        if local_name(el.tag) == "feImage":
            new = etree.Element(ns + "feFlood")
            for k in _FE_KEEP:
                if el.get(k) is not None:
                    new.set(k, el.get(k))
            new.set("flood-opacity", "0")
        else:
            new = etree.Element(ns + "g")
            if el.get("id") is not None:
                new.set("id", el.get("id"))
        new.tail = el.tail
        el.getparent().replace(el, new)
    return stripped


def external_references(root) -> list[str]:
    """List every reference in a document that is not ``#id`` or a ``data:`` URI.

    Reads ``href``/``xlink:href`` (any namespace; not the hyperlink of an ``<a>``), ``xml:base``,
    every ``url(...)`` in attribute values and ``<style>`` text, and CSS ``@import``. A ``data:`` URI holding an SVG document counts as
    external (its own references would escape this check).

    Parameters
    ----------
    root : lxml.etree._Element

    Returns
    -------
    list of str
        The offending references, in document order (empty when the document is self-contained).

    Examples
    --------
    >>> r = parse_svg('<svg><image href="x.png"/><rect fill="url(#g)"/></svg>')
    >>> external_references(r)
    ['x.png']
    """
    bad: list[str] = []
    for value in _REFS_XPATH(root):
        if "url(" in value:
            bad.extend(_url(m).strip() for m in _URL_RE.finditer(value) if not _is_local(_url(m)))
        elif not _is_local(value):
            bad.append(value.strip())
    for text in _STYLE_TEXT_XPATH(root):
        if _IMPORT_RE.search(text):
            bad.append("@import")
        bad.extend(_url(m).strip() for m in _URL_RE.finditer(text) if not _is_local(_url(m)))
    return bad


def _id_map(root) -> dict:
    ids: dict = {}
    for el in root.iter():
        if isinstance(el.tag, str):
            i = el.get("id")
            if i is not None and i not in ids:
                ids[i] = el
    return ids


def _ref_id(value: str | None) -> str | None:
    if not value:
        return None
    v = value.strip()
    return v[1:] if v.startswith("#") and len(v) > 1 else None


_HAS_USE_XPATH = etree.XPath("boolean(//*[local-name() = 'use'])")
_COUNT_XPATH = etree.XPath("count(//*)")


def use_expansion_count(root, budget: int) -> int:
    """Count the elements a document would have after expanding every ``<use>``.

    Parameters
    ----------
    root : lxml.etree._Element
    budget : int
        Stop counting once the count exceeds this (the work is bounded by it).

    Returns
    -------
    int
        ``-1`` when a ``<use>`` refers to itself or an ancestor (a cycle); a value above
        ``budget`` when over budget; else the count, root included.

    Examples
    --------
    >>> r = parse_svg('<svg><rect id="a"/><use href="#a"/><use href="#a"/></svg>')
    >>> use_expansion_count(r, 100)
    6
    >>> use_expansion_count(parse_svg('<svg><use id="u" href="#u"/></svg>'), 100)
    -1
    """
    if not _HAS_USE_XPATH(root):
        n = int(_COUNT_XPATH(root))
        return n if n <= budget else budget + 1
    ids = _id_map(root)
    memo: dict = {}
    active: set = set()  # lxml proxies kept alive by memo/active, so identity is stable

    class _Over(Exception):
        pass

    class _Cycle(Exception):
        pass

    def cost(el) -> int:
        if el in memo:
            return memo[el]
        if el in active:
            raise _Cycle
        active.add(el)
        total = 1
        for ch in el:
            if isinstance(ch.tag, str):
                total += cost(ch)
        if local_name(el.tag) == "use":
            target = ids.get(_ref_id(_href(el)))
            if target is not None:
                total += cost(target)
        active.discard(el)
        if total > budget:
            raise _Over
        memo[el] = total
        return total

    try:
        return cost(root)
    except _Cycle:
        return -1
    except (_Over, RecursionError):
        return budget + 1


_PATHDATA_XPATH = etree.XPath("//@d | //@points", smart_strings=False)


def path_numbers_over(root, budget: int) -> bool:
    """Tell whether all ``d`` and ``points`` attributes together hold more than ``budget`` numbers.

    A number needs at least one character, so documents with fewer characters of path data
    than ``budget`` are accepted without counting.

    Examples
    --------
    >>> r = parse_svg('<svg><path d="M0 0h1v2"/><polygon points="0,0 1,1"/></svg>')
    >>> path_numbers_over(r, 8), path_numbers_over(r, 7)
    (False, True)
    """
    values = _PATHDATA_XPATH(root)
    if sum(map(len, values)) <= budget:
        return False
    total = 0
    for v in values:
        total += len(SVG_NUMBER_RE.findall(v))
        if total > budget:
            return True
    return False


# --------------------------------------------------------------------------------------------
# Grammars: numbers, lengths, transforms, path data
# --------------------------------------------------------------------------------------------

_N = r"(?>[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?)"
_W = r"[ \t\r\n\f]*+"
_SEP = r"(?:[ \t\r\n\f]*+,?+[ \t\r\n\f]*+)"
_P = _N + _SEP + _N
_ARC = _N + _SEP + _N + _SEP + _N + _SEP + "[01]" + _SEP + "[01]" + _SEP + _P
_CMD = (
    r"(?>[MmLlTt]" + _W + _P + "(?:" + _SEP + _P + ")*+"
    r"|[HhVv]" + _W + _N + "(?:" + _SEP + _N + ")*+"
    r"|[Cc]" + _W + _P + _SEP + _P + _SEP + _P + "(?:" + _SEP + _P + _SEP + _P + _SEP + _P + ")*+"
    r"|[SsQq]" + _W + _P + _SEP + _P + "(?:" + _SEP + _P + _SEP + _P + ")*+"
    r"|[Aa]" + _W + _ARC + "(?:" + _SEP + _ARC + ")*+"
    r"|[Zz])"
)
_PATH_PREFIX_RE = re.compile(
    _W + r"(?:[Mm]" + _W + _P + "(?:" + _SEP + _P + ")*+" + _W + "(?:" + _CMD + _W + ")*+)?"
)
_ARC_CMD_RE = re.compile(r"[Aa]" + _W + _ARC + "(?:" + _SEP + _ARC + ")*+")
_ARC_ONE_RE = re.compile(
    "("
    + _N
    + ")"
    + _SEP
    + "("
    + _N
    + ")"
    + _SEP
    + "("
    + _N
    + ")"
    + _SEP
    + "([01])"
    + _SEP
    + "([01])"
    + _SEP
    + "("
    + _N
    + ")"
    + _SEP
    + "("
    + _N
    + ")"
)


def _fix_arc(m: re.Match) -> str:
    s = m.group(0)
    return s[0] + " ".join(" ".join(a.groups()) for a in _ARC_ONE_RE.finditer(s, 1))


def sanitize_path_data(d: str) -> str:
    """Return the valid prefix of path data, with arc flags written apart.

    SVG 1.1 §8.3.9 (error handling): a path is rendered up to the last segment before the first
    error. skia instead drops the whole path, and it misreads arc flags written without a
    separator, so both are rewritten here.

    Parameters
    ----------
    d : str
        A ``d`` attribute value.

    Returns
    -------
    str
        ``d`` unchanged when it is valid and has no arc, else its longest valid prefix of
        complete segments (``""`` when it does not start with a moveto).

    Examples
    --------
    >>> sanitize_path_data("M0 0h10v10h-10z L5")
    'M0 0h10v10h-10z'
    >>> sanitize_path_data("M0 0a5 5 0 015 5")
    'M0 0a5 5 0 0 1 5 5'
    >>> sanitize_path_data("L1 1")
    ''
    """
    m = _PATH_PREFIX_RE.match(d)
    end = m.end() if m else 0
    if end < len(d):
        d = d[:end]
    if "a" in d or "A" in d:
        d = _ARC_CMD_RE.sub(_fix_arc, d)
    return d.strip()


_TF_RE = re.compile(
    r"[ \t\r\n\f,]*(matrix|translate|scale|rotate|skewX|skewY)"
    + _W
    + r"\("
    + _W
    + "((?:"
    + _N
    + _SEP
    + ")*+)"
    + r"\)"
)

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _mul(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (
        a * A + c * B,
        b * A + d * B,
        a * C + c * D,
        b * C + d * D,
        a * E + c * F + e,
        b * E + d * F + f,
    )


def _tf_matrix(name: str, v: list[float]) -> Matrix:
    if name == "matrix":
        return (v[0], v[1], v[2], v[3], v[4], v[5])
    if name == "translate":
        return (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) > 1 else 0.0)
    if name == "scale":
        return (v[0], 0.0, 0.0, v[1] if len(v) > 1 else v[0], 0.0, 0.0)
    if name == "rotate":
        t = math.radians(v[0])
        cs, sn = math.cos(t), math.sin(t)
        r = (cs, sn, -sn, cs, 0.0, 0.0)
        if len(v) == 3:
            r = _mul(_mul((1.0, 0.0, 0.0, 1.0, v[1], v[2]), r), (1.0, 0.0, 0.0, 1.0, -v[1], -v[2]))
        return r
    if name == "skewX":
        return (1.0, 0.0, math.tan(math.radians(v[0])), 1.0, 0.0, 0.0)
    return (1.0, math.tan(math.radians(v[0])), 0.0, 1.0, 0.0, 0.0)


@lru_cache(maxsize=4096)
def parse_transform_lenient(text: str) -> Matrix:
    """Read a transform list into one affine matrix, keeping the transforms before any error.

    Parameters
    ----------
    text : str
        A ``transform`` value, e.g. ``"translate(10,10),scale(2)"``.

    Returns
    -------
    tuple of 6 float
        ``(a, b, c, d, e, f)`` of ``matrix(a,b,c,d,e,f)``; identity when nothing parses.

    Examples
    --------
    >>> parse_transform_lenient("translate(10 5) scale(2)")
    (2.0, 0.0, 0.0, 2.0, 10.0, 5.0)
    >>> parse_transform_lenient("translate(1,2) foo(3)")
    (1.0, 0.0, 0.0, 1.0, 1.0, 2.0)
    """
    m = IDENTITY
    pos = 0
    while True:
        t = _TF_RE.match(text, pos)
        if t is None:
            break
        args = [float(x) for x in SVG_NUMBER_RE.findall(t.group(2))]
        if len(args) not in TRANSFORM_ARITY[t.group(1)] or not all(math.isfinite(x) for x in args):
            break
        n = _mul(m, _tf_matrix(t.group(1), args))
        if not all(math.isfinite(v) for v in n):
            break
        m = n
        pos = t.end()
    return m


def _fmt(x: float) -> str:
    if not math.isfinite(x):  # callers filter these; never write inf or nan into a document
        return "0"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    s = format(x, ".10g")
    return s


def _matrix_str(m: Matrix) -> str:
    return "matrix(" + " ".join(_fmt(v) for v in m) + ")"


_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_LEN_RE = re.compile(
    r"[ \t\r\n\f]*(" + SVG_NUMBER_RE.pattern + r")(px|pt|pc|mm|cm|in|em|ex|%)?[ \t\r\n\f]*$", re.I
)


def _length(v: str | None, ref: float, font_size: float = 16.0) -> float | None:
    """A length in user units; ``ref`` is what 100 % means. ``None`` when not a length."""
    if v is None:
        return None
    m = _LEN_RE.match(v)
    if m is None:
        return None
    x = float(m.group(1))
    unit = (m.group(2) or "").lower()
    if unit == "%":
        x = x * ref / 100.0
    elif unit == "em":
        x *= font_size
    elif unit == "ex":
        x *= font_size / 2
    else:
        x *= _UNITS[unit]
    return x if math.isfinite(x) else None


def _abs_length(v: str | None) -> float | None:
    if not v or "%" in v:
        return None
    return _length(v, 0.0)


def _number_or_pct(v: str | None, default: float) -> float:
    if v is None:
        return default
    s = v.strip()
    try:
        x = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        return default
    if not math.isfinite(x):
        return default
    return min(1.0, max(0.0, x))


# --------------------------------------------------------------------------------------------
# Root fitting
# --------------------------------------------------------------------------------------------


def fit_root(root, size: tuple[int, int]) -> None:
    """Make the outermost ``<svg>`` fill a canvas of ``size`` pixels, as a browser fits it.

    A root without a valid ``viewBox`` but with absolute ``width`` and ``height`` gets
    ``viewBox="0 0 width height"`` (so the drawing scales to the canvas instead of being cut or
    left small); then ``width``/``height`` are set to the canvas. ``preserveAspectRatio`` is
    kept, so a non-square viewBox is centred and letterboxed (``xMidYMid meet``), as the
    SVGEditBench v1 CropToHalf answers expect (see its data README).

    Parameters
    ----------
    root : lxml.etree._Element
        Modified in place.
    size : (int, int)
        Canvas (H, W) in pixels.

    Examples
    --------
    >>> r = parse_svg('<svg width="10mm" height="20"/>'); fit_root(r, (4, 8))
    >>> r.get("viewBox"), r.get("width"), r.get("height")
    ('0 0 37.79527559 20', '8', '4')
    """
    h, w = size
    if parse_viewbox(root.get("viewBox") or "") is None:
        root.attrib.pop("viewBox", None)  # an invalid viewBox is ignored (SVG 1.1 §7.7)
        vw = _abs_length(root.get("width"))
        vh = _abs_length(root.get("height"))
        if vw and vh and vw > 0 and vh > 0:
            root.set("viewBox", f"0 0 {_fmt(vw)} {_fmt(vh)}")
    root.set("width", str(int(w)))
    root.set("height", str(int(h)))


# --------------------------------------------------------------------------------------------
# CSS cascade
# --------------------------------------------------------------------------------------------

_SIMPLE_STYLE_RE = re.compile(r"[()\"'\\/!{}@]")


def _parse_declarations(text: str) -> list[tuple[str, str, bool]]:
    """``style`` attribute or rule body → [(property, value, important)]."""
    if not _SIMPLE_STYLE_RE.search(text):
        out = []
        for part in text.split(";"):
            name, sep, value = part.partition(":")
            if sep:
                name = name.strip().lower()
                value = value.strip()
                if name and value:
                    out.append((name, value, False))
        return out
    import tinycss2

    out = []
    for decl in tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append(
                (decl.lower_name, tinycss2.serialize(decl.value).strip(), bool(decl.important))
            )
    return out


def _rule_declarations(content) -> list[tuple[str, str, bool]]:
    import tinycss2

    out = []
    for decl in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append(
                (decl.lower_name, tinycss2.serialize(decl.value).strip(), bool(decl.important))
            )
    return out


# Presentation attributes that may not be set from CSS here (their CSS syntax differs).
_CSS_SKIP = frozenset({"transform", "d"})


def _apply_css(root) -> None:
    sheets = [
        el
        for el in root.iter(_S + "style", "style")
        if (el.get("type") or "text/css").strip().lower() == "text/css"
    ]
    has_style_attr = root.xpath("boolean(//@style)")
    if not sheets and not has_style_attr:
        return
    matcher = None
    if sheets:
        import cssselect2
        import tinycss2

        matcher = cssselect2.Matcher()
        order = 0
        for sheet in sheets:
            rules = tinycss2.parse_stylesheet(
                sheet.text or "", skip_comments=True, skip_whitespace=True
            )
            for rule in rules:
                if rule.type != "qualified-rule":
                    continue
                decls = _rule_declarations(rule.content)
                try:
                    selectors = cssselect2.compile_selector_list(rule.prelude)
                except Exception:  # noqa: BLE001 - an unsupported selector skips its rule
                    continue
                for sel in selectors:
                    if sel.pseudo_element is None:
                        matcher.add_selector(sel, (order, decls))
                        order += 1
    wrapped = None
    if matcher is not None:
        import cssselect2

        wrapped = cssselect2.ElementWrapper.from_xml_root(root)
        elements = ((w.etree_element, w) for w in wrapped.iter_subtree())
    else:
        elements = ((el, None) for el in root.iter() if isinstance(el.tag, str))
    for el, w in elements:
        normal: list[tuple[str, str]] = []
        important: list[tuple[str, str]] = []
        if w is not None:
            for _spec, _order, _pseudo, payload in matcher.match(w):
                for name, value, imp in payload[1]:
                    (important if imp else normal).append((name, value))
        style = el.get("style")
        if style is not None:
            for name, value, imp in _parse_declarations(style):
                (important if imp else normal).append((name, value))
            del el.attrib["style"]
        for name, value in normal + important:
            if name not in _CSS_SKIP and not name.startswith("-"):
                el.set(name, value)
    for sheet in sheets:
        parent = sheet.getparent()
        if parent is not None:
            parent.remove(sheet)


# --------------------------------------------------------------------------------------------
# <use> expansion
# --------------------------------------------------------------------------------------------

_USE_SKIP = frozenset({"x", "y", "width", "height", "href", _XLINK_HREF})
_CLIP_CONTENT = frozenset(
    {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text"}
)


def _strip_ids(el) -> None:
    for e in el.iter():
        if isinstance(e.tag, str) and "id" in e.attrib:
            del e.attrib["id"]


def _expand_uses(root, ids: dict, budget: int) -> None:
    count = [0]

    def expand(use, chain: tuple) -> None:
        parent = use.getparent()
        if parent is None:
            return
        target = ids.get(_ref_id(_href(use)))
        anc = set()
        a = use
        while a is not None:
            anc.add(a)
            a = a.getparent()
        if target is None or target in chain or target in anc or count[0] > budget:
            _log.debug(
                "dropped <use id=%r href=%r>: dangling, cyclic or over budget",
                use.get("id"),
                _href(use),
            )
            parent.remove(use)
            return
        x = _length(use.get("x"), 0.0) or 0.0
        y = _length(use.get("y"), 0.0) or 0.0
        tname = local_name(target.tag)
        if isinstance(parent.tag, str) and local_name(parent.tag) == "clipPath":
            # A clipPath may hold shapes, text and uses of them, not <g> (SVG 1.1 §14.3.5):
            # put the copy itself in place, the use's transform and translation merged.
            if tname not in _CLIP_CONTENT or count[0] > budget:
                parent.remove(use)
                return
            clone = copy.deepcopy(target)
            _strip_ids(clone)
            m = _mul(parse_transform_lenient(use.get("transform", "")), (1.0, 0.0, 0.0, 1.0, x, y))
            m = _mul(m, parse_transform_lenient(clone.get("transform", "")))
            for k, v in read_attributes(use).items():
                if k not in _USE_SKIP and k not in ("id", "transform") and k not in clone.attrib:
                    clone.set(k, v)
            if m != IDENTITY:
                clone.set("transform", _matrix_str(m))
            elif "transform" in clone.attrib:
                del clone.attrib["transform"]
            clone.tail = use.tail
            count[0] += 1
            parent.replace(use, clone)
            return
        g = etree.Element(_S + "g")
        for k, v in read_attributes(use).items():
            if k not in _USE_SKIP:
                g.set(k, v)
        if x or y:
            base = parse_transform_lenient(use.get("transform", ""))
            g.set("transform", _matrix_str(_mul(base, (1.0, 0.0, 0.0, 1.0, x, y))))
        if tname == "symbol":
            inner = etree.SubElement(g, _S + "svg")
            for k in ("viewBox", "preserveAspectRatio", "overflow"):
                if target.get(k) is not None:
                    inner.set(k, target.get(k))
            inner.set("width", use.get("width") or target.get("width") or "100%")
            inner.set("height", use.get("height") or target.get("height") or "100%")
            for k, v in read_attributes(target).items():
                if k not in (
                    "viewBox",
                    "preserveAspectRatio",
                    "overflow",
                    "width",
                    "height",
                    "x",
                    "y",
                    "id",
                ):
                    inner.set(k, v)
            for ch in target:
                inner.append(copy.deepcopy(ch))
        else:
            inner = copy.deepcopy(target)
            inner.tail = None
            if tname == "svg":
                for k in ("width", "height"):
                    if use.get(k) is not None:
                        inner.set(k, use.get(k))
            g.append(inner)
        _strip_ids(inner)
        count[0] += sum(1 for _ in inner.iter())
        g.tail = use.tail
        parent.replace(use, g)
        for u in list(inner.iter(_S + "use", "use")):
            expand(u, chain + (target,))

    for use in list(root.iter(_S + "use", "use")):
        expand(use, ())


# --------------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------------

_GRAD_COMMON = ("gradientUnits", "gradientTransform", "spreadMethod")
_GRAD_OWN = {
    "linearGradient": ("x1", "y1", "x2", "y2"),
    "radialGradient": ("cx", "cy", "r", "fx", "fy", "fr"),
}


def _flatten_gradients(root, ids: dict) -> None:
    grads = [
        el
        for el in root.iter(
            _S + "linearGradient", _S + "radialGradient", "linearGradient", "radialGradient"
        )
    ]
    for el in grads:
        kind = local_name(el.tag)
        href = _href(el)
        has_stops = any(isinstance(c.tag, str) and local_name(c.tag) == "stop" for c in el)
        seen = {el}
        t = ids.get(_ref_id(href))
        while t is not None and t not in seen and len(seen) < 32:
            seen.add(t)
            tkind = local_name(t.tag)
            if tkind not in _GRAD_OWN:
                break
            names = _GRAD_COMMON + (_GRAD_OWN[kind] if tkind == kind else ())
            for k in names:
                if el.get(k) is None and t.get(k) is not None:
                    el.set(k, t.get(k))
            if not has_stops:
                stops = [c for c in t if isinstance(c.tag, str) and local_name(c.tag) == "stop"]
                if stops:
                    for s in stops:
                        el.append(copy.deepcopy(s))
                    has_stops = True
            t = ids.get(_ref_id(_href(t)))
        for k in ("href", _XLINK_HREF):
            if k in el.attrib:
                del el.attrib[k]
        last = 0.0
        for c in el:
            if isinstance(c.tag, str) and local_name(c.tag) == "stop":
                off = _number_or_pct(c.get("offset"), 0.0)
                last = max(last, off)
                c.set("offset", _fmt(last))


# --------------------------------------------------------------------------------------------
# The walk: colours, lengths, transforms, shapes, nested viewports
# --------------------------------------------------------------------------------------------

_DRAWING = frozenset(
    {
        "path",
        "rect",
        "circle",
        "ellipse",
        "line",
        "polyline",
        "polygon",
        "text",
        "tspan",
        "textPath",
    }
)
_DROP = frozenset(
    {
        "title",
        "desc",
        "metadata",
        "script",
        "foreignObject",
        "style",
        "cursor",
        "view",
        "animate",
        "animateTransform",
        "animateMotion",
        "set",
        "discard",
    }
)
_DROP_ATTRS = frozenset(
    {
        "mix-blend-mode",
        "isolation",
        "paint-order",
        "color-interpolation",
        "color-rendering",
        "enable-background",
        "overflow",
        "style",
        "class",
        "version",
        "baseProfile",
    }
)
_PAINT_ATTRS = ("fill", "stroke")
_INHERITED_OPACITY = ("fill-opacity", "stroke-opacity")
_LEN_X = ("x", "x1", "x2", "cx", "fx", "dx")
_LEN_Y = ("y", "y1", "y2", "cy", "fy", "dy")
_GEOMETRY = {
    "rect": ("x", "y", "width", "height", "rx", "ry"),
    "circle": ("cx", "cy", "r"),
    "ellipse": ("cx", "cy", "rx", "ry"),
    "line": ("x1", "y1", "x2", "y2"),
    "image": ("x", "y", "width", "height"),
    "pattern": ("x", "y", "width", "height"),
    "mask": ("x", "y", "width", "height"),
    "filter": ("x", "y", "width", "height"),
    "linearGradient": ("x1", "y1", "x2", "y2"),
    "radialGradient": ("cx", "cy", "r", "fx", "fy", "fr"),
    "text": (),
}
_UNITS_ATTR = {
    "linearGradient": "gradientUnits",
    "radialGradient": "gradientUnits",
    "pattern": "patternUnits",
    "mask": "maskUnits",
    "filter": "filterUnits",
    "clipPath": "clipPathUnits",
}
_OBB_DEFAULT = {
    "linearGradient": True,
    "radialGradient": True,
    "pattern": True,
    "mask": True,
    "filter": True,
}

_TEXTUAL = frozenset({"text", "tspan", "textPath"})
_NONE = ("none",)
_BLACK = ("color", "#000000", 1.0)
_CURRENT = ("current",)


@lru_cache(maxsize=8192)
def _color(value: str) -> tuple[str, float] | None:
    rgba = parse_css_color(value)
    if rgba is None:
        return None
    r, g, b, a = rgba
    return (f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}", a)


def _paint(value: str):
    """Parse a paint value: ('none',) | ('color', hex, a) | ('url', id, fallback) | ('current',) | 'inherit' | None."""
    v = value.strip()
    low = v.lower()
    if low == "none":
        return _NONE
    if low == "currentcolor":
        return _CURRENT
    if low == "inherit":
        return "inherit"
    if low.startswith("url("):
        m = _URL_RE.match(v)
        if m is None:
            return None
        rid = _ref_id(_url(m))
        rest = v[m.end() :].strip()
        fb = _paint(rest) if rest else None
        if fb is not None and (fb == "inherit" or fb[0] == "url"):
            fb = None
        return ("url", rid, fb)
    c = _color(v)
    if c is None:
        return None
    return ("color", c[0], c[1])


class _Ctx:
    __slots__ = ("vw", "vh", "color", "fill", "stroke", "fo", "so", "fs")

    def __init__(self, vw, vh, color, fill, stroke, fo, so, fs):
        self.vw = vw
        self.vh = vh
        self.color = color
        self.fill = fill
        self.stroke = stroke
        self.fo = fo
        self.so = so
        self.fs = fs

    def child(self):
        return _Ctx(self.vw, self.vh, self.color, self.fill, self.stroke, self.fo, self.so, self.fs)


class _State:
    def __init__(self, root, ids):
        self.root = root
        self.ids = ids
        self.defs = None
        self.n = 0

    def new_id(self) -> str:
        self.n += 1
        while f"__vg{self.n}" in self.ids:
            self.n += 1
        return f"__vg{self.n}"

    def add_def(self, el) -> None:
        if self.defs is None:
            self.defs = etree.Element(_S + "defs")
            self.root.insert(0, self.defs)
        self.defs.append(el)


def _resolve_paint(p, ctx: _Ctx, state: _State):
    """Resolve currentColor and url() into ('none',) | ('color', hex, a) | ('url', id, None)."""
    if p is _CURRENT or p == _CURRENT:
        return ctx.color
    if p[0] == "url":
        target = state.ids.get(p[1])
        if target is not None and local_name(target.tag) in (
            "linearGradient",
            "radialGradient",
            "pattern",
        ):
            if local_name(target.tag) != "pattern":
                stops = [
                    c for c in target if isinstance(c.tag, str) and local_name(c.tag) == "stop"
                ]
                if not stops:
                    return _NONE
                if len(stops) == 1:
                    s = stops[0]
                    sc = _paint(s.get("stop-color", "black")) or _BLACK
                    if sc == _CURRENT or sc == "inherit" or sc[0] != "color":
                        sc = ctx.color if sc == _CURRENT else _BLACK
                    return ("color", sc[1], sc[2] * _number_or_pct(s.get("stop-opacity"), 1.0))
            return ("url", p[1], None)
        fb = p[2]
        if fb is None:
            return _NONE
        return _resolve_paint(fb, ctx, state)
    return p


def _drop(el, name: str) -> None:
    _log.debug(
        "dropped <%s id=%r>: nothing to render (bad size, radius or path data)", name, el.get("id")
    )
    el.getparent().remove(el)


def _store(el, attrib: dict) -> None:
    """Make ``el``'s attributes equal to ``attrib`` (order aside).

    Each lxml ``set``/``del`` searches the element's attribute list, so rewriting every attribute
    is quadratic in their number. An element with many attributes gets only the difference
    written when that is the smaller job (the common case: many attributes kept verbatim).
    """
    src = el.attrib
    if len(src) > MANY_ATTRIBUTES:
        old = read_attributes(el)
        gone = [k for k in old if k not in attrib]
        new = [(k, v) for k, v in attrib.items() if old.get(k) != v]
        if (len(gone) + len(new)) * len(old) < len(attrib) ** 2 // 2:
            for k in gone:
                del src[k]
            for k, v in new:
                src[k] = v
            return
    src.clear()
    src.update(attrib)


def _set_paint(attrib: dict, name: str, p, opacity: float) -> None:
    if p[0] == "none":
        attrib[name] = "none"
        return
    if p[0] == "url":
        attrib[name] = f"url(#{p[1]})"
        a = 1.0
    else:
        attrib[name] = p[1]
        a = p[2]
    op = opacity * a
    if op < 1.0:
        attrib[name + "-opacity"] = _fmt(round(op, 6))
    else:
        attrib.pop(name + "-opacity", None)


def _switch_ok(el) -> bool:
    if el.get("requiredExtensions") is not None and el.get("requiredExtensions").strip():
        return False
    lang = el.get("systemLanguage")
    if lang is not None:
        langs = [x.strip().lower() for x in lang.split(",")]
        if not any(x == "en" or x.startswith("en-") for x in langs):
            return False
    return True


def _viewbox_matrix(vb, par: str | None, w: float, h: float) -> Matrix:
    """The viewBox-to-viewport transform of SVG 1.1 §7.8 (preserveAspectRatio)."""
    vx, vy, vw, vh = vb
    sx, sy = w / vw, h / vh
    parts = (par or "xMidYMid meet").split()
    align = parts[0] if parts else "xMidYMid"
    if align == "defer" and len(parts) > 1:
        parts = parts[1:]
        align = parts[0]
    slice_ = len(parts) > 1 and parts[1] == "slice"
    if align == "none":
        return (sx, 0.0, 0.0, sy, -vx * sx, -vy * sy)
    s = max(sx, sy) if slice_ else min(sx, sy)
    tx = -vx * s
    ty = -vy * s
    ax = align[1:4] if len(align) >= 8 else "Mid"
    ay = align[5:8] if len(align) >= 8 else "Mid"
    if ax == "Mid":
        tx += (w - vw * s) / 2
    elif ax == "Max":
        tx += w - vw * s
    if ay == "Mid":
        ty += (h - vh * s) / 2
    elif ay == "Max":
        ty += h - vh * s
    return (s, 0.0, 0.0, s, tx, ty)


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    f = _fmt
    return (
        f"M{f(cx + rx)} {f(cy)}A{f(rx)} {f(ry)} 0 0 1 {f(cx)} {f(cy + ry)}"
        f"A{f(rx)} {f(ry)} 0 0 1 {f(cx - rx)} {f(cy)}A{f(rx)} {f(ry)} 0 0 1 {f(cx)} {f(cy - ry)}"
        f"A{f(rx)} {f(ry)} 0 0 1 {f(cx + rx)} {f(cy)}Z"
    )


def _nested_viewport(el, ctx: _Ctx, state: _State) -> tuple[object, tuple[float, float]] | None:
    """Turn a nested <svg> into <g clip><g transform>…; return (container for children, ctx)."""
    x = _length(el.get("x"), ctx.vw, ctx.fs) or 0.0
    y = _length(el.get("y"), ctx.vh, ctx.fs) or 0.0
    w = _length(el.get("width") or "100%", ctx.vw, ctx.fs)
    h = _length(el.get("height") or "100%", ctx.vh, ctx.fs)
    if w is None:
        w = ctx.vw
    if h is None:
        h = ctx.vh
    if w <= 0 or h <= 0:
        return None
    vb = parse_viewbox(el.get("viewBox") or "")
    m = (1.0, 0.0, 0.0, 1.0, x, y)
    if vb is not None:
        m = _mul(m, _viewbox_matrix(vb, el.get("preserveAspectRatio"), w, h))
    overflow = (el.get("overflow") or "hidden").strip().lower()
    for k in ("x", "y", "width", "height", "viewBox", "preserveAspectRatio", "overflow"):
        if k in el.attrib:
            del el.attrib[k]
    el.tag = _S + "g"
    inner = etree.Element(_S + "g")
    if m != IDENTITY:
        inner.set("transform", _matrix_str(m))
    for ch in list(el):
        inner.append(ch)
    el.append(inner)
    if overflow not in ("visible", "auto"):
        cid = state.new_id()
        cp = etree.Element(_S + "clipPath", id=cid)
        state.ids[cid] = cp
        cp.set("clipPathUnits", "userSpaceOnUse")
        etree.SubElement(cp, _S + "rect", x=_fmt(x), y=_fmt(y), width=_fmt(w), height=_fmt(h))
        state.add_def(cp)
        if el.get("clip-path") is not None:  # keep the element's own clip on an extra wrapper
            outer = etree.Element(_S + "g")
            outer.set("clip-path", f"url(#{cid})")
            for ch in list(el):
                outer.append(ch)
            el.append(outer)
        else:
            el.set("clip-path", f"url(#{cid})")
    return inner, ((vb[2], vb[3]) if vb is not None else (w, h))


(
    _K_DROP,
    _K_HREF,
    _K_FS,
    _K_COLOR,
    _K_FILL,
    _K_STROKE,
    _K_FO,
    _K_SO,
    _K_OPACITY,
    _K_CCOLOR,
    _K_URL,
    _K_TF,
    _K_SW,
    _K_PO,
) = range(14)
_KIND = {k: _K_DROP for k in _DROP_ATTRS}
_KIND.update(
    {
        "href": _K_HREF,
        _XLINK_HREF: _K_HREF,
        "font-size": _K_FS,
        "color": _K_COLOR,
        "fill": _K_FILL,
        "stroke": _K_STROKE,
        "fill-opacity": _K_FO,
        "stroke-opacity": _K_SO,
        "opacity": _K_OPACITY,
        "stop-opacity": _K_OPACITY,
        "flood-opacity": _K_OPACITY,
        "stop-color": _K_CCOLOR,
        "flood-color": _K_CCOLOR,
        "lighting-color": _K_CCOLOR,
        "clip-path": _K_URL,
        "mask": _K_URL,
        "filter": _K_URL,
        "marker-start": _K_URL,
        "marker-mid": _K_URL,
        "marker-end": _K_URL,
        "marker": _K_URL,
        "transform": _K_TF,
        "gradientTransform": _K_TF,
        "patternTransform": _K_TF,
        "stroke-width": _K_SW,
        "paint-order": _K_PO,
    }
)
_CCOLOR_OPACITY = {
    "stop-color": "stop-opacity",
    "flood-color": "flood-opacity",
    "lighting-color": None,
}
_PLAIN_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?")


def _attrs(el, name: str, ctx: _Ctx, state: _State) -> _Ctx | None:
    """Normalise ``el``'s own attributes; return the context its children inherit.

    One pass over the attributes dispatches on their names (:data:`_KIND`); the result is
    written back at once. Returns ``None`` when the element was removed (a shape that cannot
    render).
    """
    c = ctx.child()
    attrib: dict = {}
    paint_order = None
    ccolors = None
    color_v = fill_v = stroke_v = None
    for k, v in read_attributes(el).items():
        kind = _KIND.get(k)
        if kind is None:
            if k[0] == "{" or k[:2] == "on":
                continue  # foreign namespace (editor data), event handlers
            attrib[k] = v
        elif kind == _K_FILL:
            fill_v = v
        elif kind == _K_STROKE:
            stroke_v = v
        elif kind == _K_TF:
            m = parse_transform_lenient(v)
            if m != IDENTITY:
                attrib[k] = _matrix_str(m)
        elif kind == _K_OPACITY:
            val = _number_or_pct(v, 1.0)
            if val < 1.0:
                attrib[k] = _fmt(val)
        elif kind == _K_FO:
            c.fo = _number_or_pct(v, 1.0)
        elif kind == _K_SO:
            c.so = _number_or_pct(v, 1.0)
        elif kind == _K_HREF:
            if k == _XLINK_HREF or _XLINK_HREF not in attrib:
                attrib[_XLINK_HREF] = v
        elif kind == _K_URL:
            if "url(" in v:
                m = _URL_RE.search(v)
                rid = _ref_id(_url(m)) if m is not None else None
                if (rid is None or rid not in state.ids) and k in ("clip-path", "mask"):
                    continue  # a dangling clip or mask is ignored by browsers and resvg
                attrib[k] = f"url(#{rid})"
            else:
                attrib[k] = v
        elif kind == _K_SW:
            x = _length(v, math.sqrt((ctx.vw**2 + ctx.vh**2) / 2), ctx.fs)
            if x is not None and x >= 0:
                attrib[k] = v if _PLAIN_NUMBER_RE.fullmatch(v) else _fmt(x)
        elif kind == _K_COLOR:
            color_v = v
        elif kind == _K_CCOLOR:
            if ccolors is None:
                ccolors = []
            ccolors.append((k, v))
        elif kind == _K_FS:
            attrib[k] = v
            x = _length(v, ctx.fs, ctx.fs)
            if x is not None:
                c.fs = x
        elif kind == _K_PO:
            paint_order = v
        # _K_DROP: dropped
    if color_v is not None:
        p = _paint(color_v)
        if p is not None and p != "inherit" and p[0] == "color":
            c.color = p
    if fill_v is not None:
        p = _paint(fill_v)
        if p is not None and p != "inherit":
            c.fill = c.color if p == _CURRENT else p
    if stroke_v is not None:
        p = _paint(stroke_v)
        if p is not None and p != "inherit":
            c.stroke = c.color if p == _CURRENT else p
    if ccolors is not None:
        for k, v in ccolors:
            p = _paint(v)
            if p == _CURRENT:
                p = c.color
            if p is None or p == "inherit" or p[0] != "color":
                continue
            attrib[k] = p[1]
            oname = _CCOLOR_OPACITY[k]
            if oname is not None and p[2] < 1.0:
                base = _number_or_pct(attrib.get(oname), 1.0)
                attrib[oname] = _fmt(round(base * p[2], 6))
    geo = _GEOMETRY.get(name)
    if geo:
        units_attr = _UNITS_ATTR.get(name)
        obb = False
        if units_attr is not None:
            u = attrib.get(units_attr)
            obb = (u is None and _OBB_DEFAULT.get(name, False)) or (
                u is not None and u.strip() == "objectBoundingBox"
            )
        diag = None
        for k in geo:
            v = attrib.get(k)
            if v is None or _PLAIN_NUMBER_RE.fullmatch(v):
                continue
            if obb:
                s = v.strip()
                if s.endswith("%"):
                    try:
                        attrib[k] = _fmt(float(s[:-1]) / 100)
                    except ValueError:
                        del attrib[k]
                continue
            if k in _LEN_X or k in ("width", "rx"):
                ref = c.vw
            elif k in _LEN_Y or k in ("height", "ry"):
                ref = c.vh
            else:
                if diag is None:
                    diag = math.sqrt((c.vw**2 + c.vh**2) / 2)
                ref = diag
            x = _length(v, ref, c.fs)
            if x is None:
                if v.strip() != "auto":
                    del attrib[k]
            else:
                attrib[k] = _fmt(x)
    if name not in _DRAWING:
        _store(el, attrib)
        return c
    # Drawing elements: shapes to paths, then explicit paint.
    if name in ("circle", "ellipse"):
        try:
            cx = float(attrib.get("cx", 0) or 0)
            cy = float(attrib.get("cy", 0) or 0)
            if name == "circle":
                rx = ry = float(attrib.get("r", 0))
            else:
                rxs, rys = attrib.get("rx", "auto"), attrib.get("ry", "auto")
                rx = float(rxs) if rxs != "auto" else None
                ry = float(rys) if rys != "auto" else None
                rx = ry if rx is None else rx
                ry = rx if ry is None else ry
        except ValueError:
            rx = ry = None
        if not (rx is not None and ry is not None and rx > 0 and ry > 0):
            _drop(el, name)
            return None
        for k in ("cx", "cy", "r", "rx", "ry"):
            attrib.pop(k, None)
        el.tag = _S + "path"
        attrib["d"] = _ellipse_path(cx, cy, rx, ry)
    elif name == "path":
        d = attrib.get("d")
        d2 = sanitize_path_data(d) if d is not None else ""
        if not d2:
            _drop(el, name)
            return None
        if d2 != d:
            attrib["d"] = d2
    elif name == "rect":
        try:
            ok = float(attrib.get("width", 0)) > 0 and float(attrib.get("height", 0)) > 0
        except ValueError:
            ok = False
        if not ok:
            _drop(el, name)
            return None
    fill = _resolve_paint(c.fill, c, state)
    stroke = _resolve_paint(c.stroke, c, state)
    _set_paint(attrib, "fill", fill, c.fo)
    _set_paint(attrib, "stroke", stroke, c.so)
    _store(el, attrib)
    if (
        paint_order is not None
        and paint_order.split()[:1] == ["stroke"]
        and fill[0] != "none"
        and stroke[0] != "none"
        and name not in _TEXTUAL
    ):
        _split_paint_order(el, state)
    return c


def _children(el, ctx: _Ctx, state: _State) -> None:
    clip = el.tag == _S + "clipPath"
    for ch in list(el):
        if not isinstance(ch.tag, str) or not ch.tag.startswith(_S):
            el.remove(ch)
            continue
        name = ch.tag[len(_S) :]
        if name in _DROP or name == "use":  # a use left here is dangling, cyclic or over budget
            el.remove(ch)
            continue
        if clip and name not in _CLIP_CONTENT:  # browsers and resvg ignore other clipPath children
            el.remove(ch)
            continue
        if name == "a":
            ch.tag = _S + "g"
            name = "g"
        elif name == "switch":
            ch.tag = _S + "g"
            name = "g"
            chosen = None
            for gc in list(ch):
                if (
                    chosen is None
                    and isinstance(gc.tag, str)
                    and gc.tag.startswith(_S)
                    and _switch_ok(gc)
                ):
                    chosen = gc
                else:
                    ch.remove(gc)
        elif name == "symbol":
            ch.tag = _S + "defs"
            name = "defs"
            for k in list(ch.attrib):
                if k != "id":
                    del ch.attrib[k]
        elif name == "svg":
            res = _nested_viewport(ch, ctx, state)
            if res is None:
                el.remove(ch)
                continue
            inner, (vw, vh) = res
            c = _attrs(ch, "g", ctx, state)
            c.vw, c.vh = vw, vh
            _children(inner, c, state)
            continue
        c = _attrs(ch, name, ctx, state)
        if c is not None and len(ch):
            _children(ch, c, state)


def _split_paint_order(el, state: _State) -> None:
    """paint-order: stroke first → <g (el's transform, opacity...)> stroke copy, fill copy </g>."""
    parent = el.getparent()
    g = etree.Element(_S + "g")
    for k in ("transform", "opacity", "clip-path", "mask", "filter", "id"):
        v = el.get(k)
        if v is not None:
            g.set(k, v)
            del el.attrib[k]
    stroke_copy = copy.deepcopy(el)
    stroke_copy.set("fill", "none")
    stroke_copy.attrib.pop("fill-opacity", None)
    el.set("stroke", "none")
    el.attrib.pop("stroke-opacity", None)
    g.tail = el.tail
    el.tail = None
    parent.replace(el, g)
    g.append(stroke_copy)
    g.append(el)


# --------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------

_ROOT_KEEP = frozenset({"width", "height", "viewBox", "preserveAspectRatio", "id"})


def simplify_tree(
    root, size: tuple[int, int] | None = None, *, max_use_expansion: int = DEFAULT_MAX_USE_EXPANSION
):
    """Rewrite a parsed document into the normalised render form, in place.

    Parameters
    ----------
    root : lxml.etree._Element
        An ``<svg>`` root from :func:`vector_gym.svg.parse.parse_svg` (it is modified).
    size : (int, int), optional
        Canvas (H, W) in pixels; when given the root is fitted to it (:func:`fit_root`).
    max_use_expansion : int
        Most elements created by expanding ``<use>``; further uses are dropped.

    Returns
    -------
    lxml.etree._Element
        ``root`` itself, normalised per the module contract.
    """
    root.tag = _S + "svg"
    strip_external_resources(root)
    ids = _id_map(root)
    _apply_css(root)
    if root.find(".//" + _S + "use") is not None or root.find(".//use") is not None:
        _expand_uses(root, ids, max_use_expansion)
        ids = _id_map(root)
    if (
        root.find(".//" + _S + "linearGradient") is not None
        or root.find(".//" + _S + "radialGradient") is not None
    ):
        _flatten_gradients(root, ids)
    if size is not None:
        fit_root(root, size)
    vb = parse_viewbox(root.get("viewBox") or "")
    if vb is not None:
        vw, vh = vb[2], vb[3]
    else:
        vw = _abs_length(root.get("width")) or (size[1] if size else 100.0)
        vh = _abs_length(root.get("height")) or (size[0] if size else 100.0)
    # Move the root's presentation attributes and transform onto a wrapping <g>.
    # (one linear read and one rewrite: a delete or pop per attribute is quadratic in lxml)
    attrs = read_attributes(root)
    moved = [k for k in attrs if k not in _ROOT_KEEP and k[0] != "{"]
    if len(moved) + sum(1 for k in attrs if k[0] == "{"):
        root.attrib.clear()
        for k, v in attrs.items():
            if k in _ROOT_KEEP:
                root.set(k, v)
    if moved:
        wrap = etree.Element(_S + "g", {k: attrs[k] for k in moved})
        for ch in list(root):
            wrap.append(ch)
        root.text = None
        root.append(wrap)
    state = _State(root, ids)
    ctx = _Ctx(vw, vh, _BLACK, _BLACK, _NONE, 1.0, 1.0, 16.0)
    _children(root, ctx, state)
    if state.defs is not None and state.defs.getparent() is None:
        root.insert(0, state.defs)
    return root


def _esc(v: str) -> str:
    if "&" in v:
        v = v.replace("&", "&amp;")
    if "<" in v:
        v = v.replace("<", "&lt;")
    if '"' in v:
        v = v.replace('"', "&quot;")
    if "\n" in v or "\r" in v or "\t" in v:
        v = v.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return v


def _esc_text(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _emit(el, out: list, in_text: bool) -> None:
    name = el.tag[len(_S) :] if el.tag.startswith(_S) else local_name(el.tag)
    out.append("<" + name)
    for k, v in read_attributes(el).items():
        if k[0] == "{":
            if k != _XLINK_HREF:
                continue
            k = "xlink:href"
        out.append(f' {k}="{_esc(v)}"')
    textual = in_text or name in _TEXTUAL
    if len(el) == 0 and not (textual and el.text):
        out.append("/>")
        return
    out.append(">")
    if textual and el.text:
        out.append(_esc_text(el.text))
    for ch in el:
        if isinstance(ch.tag, str):
            _emit(ch, out, textual)
        if textual and ch.tail:
            out.append(_esc_text(ch.tail))
    out.append(f"</{name}>")


_PREFIXED_XPATH = etree.XPath("boolean(//*[contains(name(), ':')])")
_XLINK_USED_XPATH = etree.XPath("boolean(//@xlink:href)", namespaces={"xlink": XLINK_NS})


def to_svg_bytes(root) -> bytes:
    """Serialise a normalised tree: default SVG namespace, ``xlink:href``, no whitespace text.

    Returns
    -------
    bytes
        UTF-8 SVG text, without an XML declaration. Whitespace text may remain when the
        document already used the default SVG namespace (then lxml serialises it directly).
    """
    nsmap = root.nsmap
    if (
        root.prefix is None
        and nsmap.get(None) == SVG_NS
        and nsmap.get("xlink", XLINK_NS) == XLINK_NS
        and not _PREFIXED_XPATH(root)
        and ("xlink" in nsmap or not _XLINK_USED_XPATH(root))
    ):
        return etree.tostring(root, encoding="utf-8")  # C speed; the common case
    out: list[str] = []
    _emit(root, out, False)
    out[0] = f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}"'
    return "".join(out).encode("utf-8")


def simplify(
    svg, size: tuple[int, int] | None = None, *, max_use_expansion: int = DEFAULT_MAX_USE_EXPANSION
) -> str:
    """Return the normalised render form of an SVG document (see the module contract).

    Parameters
    ----------
    svg : str, bytes or lxml.etree._Element
        The document (text is parsed with :func:`vector_gym.svg.parse.parse_svg`; an element is
        copied, not modified).
    size : (int, int), optional
        Canvas (H, W) in pixels to fit the root to (:func:`fit_root`).
    max_use_expansion : int
        Most elements created by expanding ``<use>``.

    Returns
    -------
    str
        The simplified document.

    Raises
    ------
    vector_gym.errors.SVGParseError
        When ``svg`` is text that does not parse (see :mod:`vector_gym.svg.parse`).

    Examples
    --------
    >>> print(simplify('<svg xmlns="http://www.w3.org/2000/svg"><style>.a{fill:#f008}</style>'
    ...                '<ellipse class="a" rx="2" ry="1" transform="translate(1,1),scale(2)"/></svg>'))
    <svg xmlns="http://www.w3.org/2000/svg"><path transform="matrix(2 0 0 2 1 1)" d="M2 0A2 1 0 0 1 0 1A2 1 0 0 1 -2 0A2 1 0 0 1 0 -1A2 1 0 0 1 2 0Z" fill="#ff0000" fill-opacity="0.533333" stroke="none"/></svg>
    """
    if isinstance(svg, etree._Element):
        root = copy.deepcopy(svg)
    else:
        root = parse_svg(svg)
    simplify_tree(root, size, max_use_expansion=max_use_expansion)
    return to_svg_bytes(root).decode("utf-8")
