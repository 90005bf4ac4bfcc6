"""The cheap pre-check run on every document before any rasteriser sees it.

Isolation has two layers (issue 3, item 1). This module is the first: pure Python and lxml work,
bounded by the document's size, that rejects every input known to crash, hang or read files in
skia, resvg or CairoSVG:

* text level (run in the calling process, before anything is sent to a worker): type, UTF-8 size,
  valid UTF-8, no ``<!ENTITY`` declaration (:func:`check_text`);
* tree level (run inside the worker, before the rasteriser): the safe parse of
  :func:`vector_gym.svg.parse.parse_svg` (nesting depth, element count, no entity expansion, no
  DTD loading), an ``<svg>`` root, attributes per element, only ``#id`` and ``data:``
  references, the number of elements after expanding every ``<use>`` (with cycle detection),
  and the amount of path data (:func:`check_tree`). For a document of the skia-subset text
  grammar (:mod:`vector_gym.svg.normalise.subset_text`) whose text alone bounds every one of
  these limits (:func:`may_skip_parse`), expat's parse (:func:`expat_well_formed`, no tree, a
  third of lxml's time) proves it well-formed instead, and no tree is built.

External references. An ``<image>``, ``<feImage>`` or ``<use>`` whose ``href``/``xlink:href``
(or own ``xml:base``) names anything but ``#id`` or a raster ``data:`` URI (``https:``,
``file:``, a path, an SVG ``data:`` document) is replaced in the tree by what it draws when the
resource cannot be fetched: nothing (an empty ``<g>``; a transparent ``<feFlood>`` for
``<feImage>``), by :func:`vector_gym.svg.normalise.strip_external_resources`. The rest of the
document renders, as with the SVGEditBench papers' CairoSVG offline, and the reference is never
fetched, opened or handed to any backend (skia, resvg or CairoSVG). Every other reference that
is not ``#id`` or ``data:`` (a ``url()`` paint, clip, mask, filter or marker, whose fallback
would change what is drawn; ``xml:base`` elsewhere; CSS ``@import``; the ``href`` of a gradient,
pattern, filter or ``textPath`` template) still fails the document as ``external_reference``.

The second layer (a worker process with a memory limit, a per-document watchdog and an empty
working directory) is :mod:`vector_gym.render.pool`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.parsers import expat as _expat

from lxml import etree

from vector_gym.errors import SVGParseError
from vector_gym.render import reasons
from vector_gym.svg.normalise import (
    external_references,
    path_numbers_over,
    strip_external_resources,
    use_expansion_count,
)
from vector_gym.svg.normalise.bounds import strip_cyclic_uses
from vector_gym.svg.normalise.common import SVG_NS
from vector_gym.svg.normalise.data_uri import raster_size
from vector_gym.svg.normalise.style import strip_css_hrefs
from vector_gym.svg.parse import (
    MAX_DEPTH,
    MAX_USE_EXPANSION,
    ParseLimits,
    check_shape,
    local_name,
    namespace_uri,
    parse_svg_unprobed,
)

__all__ = ["RenderLimits", "RenderRejected", "check_text", "check_tree"]

_DATA_HREF_XPATH = etree.XPath(
    "//@*[local-name() = 'href'][starts-with(normalize-space(translate(., 'DATA', 'data')), 'data:')]",
    smart_strings=False,
)


class RenderRejected(Exception):
    """A document refused by the pre-check; ``reason`` is one of :data:`reasons.REASONS`."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(f"{reason}: {message}" if message else reason)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class RenderLimits:
    """Bounds on a document accepted for rendering.

    Attributes
    ----------
    max_bytes : int
        Largest UTF-8 size, in bytes (every corpus SVG is below 0.2 MB).
    max_depth : int
        Deepest element nesting (root = 1). 10,000 nested groups crash skia and resvg (issue 3).
    max_elements : int
        Largest number of elements in the document as written.
    max_use_expansion : int
        Largest number of elements after expanding every ``<use>`` (a fan-out to 10^9 hangs skia);
        default :data:`vector_gym.svg.parse.MAX_USE_EXPANSION`, shared with the spec reward.
    max_path_numbers : int
        Largest number of numbers in all ``d`` and ``points`` attributes together (a path of a
        million segments takes 5.4 s in skia, issue 3).
    max_attributes : int
        Most attributes on one element. Attribute lookups in lxml, resvg and skia search the
        element's list, so work grows with the square of this count (20,000 attributes on one
        element: 4.3 s in the skia path and 1.3 s in resvg before the linear reads of
        :func:`vector_gym.svg.parse.read_attributes`; resvg's own cost remains). The bundled
        corpora have at most 10 (measured over the 2,797 distinct documents).
    max_image_pixels : int
        Most pixels (width x height, read from the PNG or JPEG header before any decoder runs)
        of one raster ``data:`` image (default 4096 x 4096: 64 MiB decoded).
    use_cycles : {"skip", "fail"}
        A ``<use>`` that refers to itself or an ancestor. ``"skip"`` (default) skips that
        ``<use>`` alone and draws the rest, as browsers and resvg do (SVG 2 §5.6.1: such a
        ``<use>`` is in error and draws nothing; issue 11, checked against headless Chromium in
        ``tests/data/render/use-cycle-skipped-alone.svg``). At most 64 cyclic uses are skipped;
        more fail the document as ``use_cycle``. ``"fail"`` fails the document as ``use_cycle``
        (what the SVGEditBench papers' CairoSVG does: it recurses until Python's limit, so the
        published V2 scorer counts such an output as a parsing error; the raster reward selects
        it with ``backend="cairosvg"``).
    """

    max_bytes: int = 4_000_000
    max_depth: int = MAX_DEPTH
    max_elements: int = 100_000
    max_use_expansion: int = MAX_USE_EXPANSION
    max_path_numbers: int = 1_000_000
    max_attributes: int = 256
    max_image_pixels: int = 16_777_216
    use_cycles: str = "skip"

    def __post_init__(self) -> None:
        if self.use_cycles not in ("fail", "skip"):
            raise ValueError(f"RenderLimits.use_cycles: expected 'skip' or 'fail', got {self.use_cycles!r}")
        for name in self.__slots__:
            if name == "use_cycles":
                continue
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"RenderLimits.{name}: expected a positive int, got {value!r}")

    def parse_limits(self) -> ParseLimits:
        """Return the :class:`~vector_gym.svg.parse.ParseLimits` these limits imply."""
        return ParseLimits(
            max_bytes=self.max_bytes, max_depth=self.max_depth, max_elements=self.max_elements
        )


DEFAULT_LIMITS = RenderLimits()


def check_text(svg: object, limits: RenderLimits = DEFAULT_LIMITS) -> str | bytes:
    """Check a document's type, size, encoding and entity declarations without parsing it.

    Parameters
    ----------
    svg : object
        The document as ``str`` or UTF-8 ``bytes``.
    limits : RenderLimits
        Bounds; only ``max_bytes`` is used here.

    Returns
    -------
    str or bytes
        ``svg`` itself, for chaining.

    Raises
    ------
    RenderRejected
        ``not_text``, ``too_large``, ``invalid_utf8`` or ``entity_declaration``.
    """
    if isinstance(svg, str):
        if len(svg) > limits.max_bytes:
            raise RenderRejected(reasons.TOO_LARGE, f"expected at most {limits.max_bytes} bytes")
        if 4 * len(svg) <= limits.max_bytes:
            n = 0  # UTF-8 needs at most 4 bytes a character; lone surrogates are parse_svg's
        else:
            try:
                n = len(svg.encode("utf-8"))
            except UnicodeEncodeError:
                raise RenderRejected(reasons.INVALID_UTF8, "lone surrogate in str") from None
        probe = svg
        entity = "<!ENTITY"
    elif isinstance(svg, bytes | bytearray | memoryview):
        svg = bytes(svg)
        n = len(svg)
        if n <= limits.max_bytes:
            try:
                svg.decode("utf-8")
            except UnicodeDecodeError:
                raise RenderRejected(reasons.INVALID_UTF8, "bytes are not valid UTF-8") from None
        probe = svg
        entity = b"<!ENTITY"
    else:
        raise RenderRejected(reasons.NOT_TEXT, f"expected str or bytes, got {type(svg).__name__}")
    if n > limits.max_bytes:
        raise RenderRejected(
            reasons.TOO_LARGE, f"expected at most {limits.max_bytes} bytes, got {n}"
        )
    if entity in probe:
        raise RenderRejected(reasons.ENTITY_DECLARATION, "entity declarations are never expanded")
    return svg


_REFERENCE_MARKERS = ("&", "\\", "url(", "href", ":base", "@")  # ":base": xml:base, any prefix


def _may_refer(svg: str | bytes) -> bool:
    """False when the text proves the document refers to nothing (a cheap test, on the text).

    Every reference the reference checks read (``href`` and ``xlink:href`` attributes,
    ``xml:base`` (an attribute ``base`` under a prefix), ``url(``, CSS ``href`` declarations and
    ``@import``) needs one of
    :data:`_REFERENCE_MARKERS` in the text, in any letter case: an attribute value or style
    sheet is its text verbatim unless it holds a character reference (``&``), a CSS escape
    needs a backslash, and :func:`~vector_gym.svg.parse.parse_svg` reads the bytes as UTF-8
    whatever encoding they declare. The documents of the bundled corpora mostly have none,
    and then the attribute-wide XPath scans are skipped (issue 16, item 1).
    """
    if isinstance(svg, str):
        # One-character markers first, and "url(" only where a "(" is: a search for one
        # character is about 40 times faster than for several (issue 16).
        if "&" in svg or "\\" in svg or "@" in svg:
            return True
        low = svg.lower()
        return ("(" in svg and "url(" in low) or "href" in low or ":base" in low
    if b"&" in svg or b"\\" in svg or b"@" in svg:
        return True
    low = svg.lower()
    return (b"(" in svg and b"url(" in low) or b"href" in low or b":base" in low


def _may_use(svg: str | bytes) -> bool:
    """False when the text proves the document has no ``<use>`` element (``<use`` or a prefixed
    ``<p:use`` is in the text of every one; ids such as ``house`` do not count)."""
    if isinstance(svg, str):
        return "<use" in svg or ":use" in svg
    return b"<use" in svg or b":use" in svg


def _may_have_many_attributes(svg: str | bytes, limit: int) -> bool:
    """False when the text proves that no element has more than ``limit`` attributes.

    An element's attributes all lie in its start tag, which holds no ``<`` (a value cannot),
    so within one piece of the text between two ``<``; each takes at least five characters
    (a space, a name, ``=`` and two quotes) and one ``=`` that is not in a value. A text with
    at most ``limit`` ``=``, or whose pieces are all shorter than ``5 * (limit + 1)``
    characters, cannot hold such an element.
    """
    eq, lt = ("=", "<") if isinstance(svg, str) else (b"=", b"<")
    if svg.count(eq) <= limit:
        return False
    pieces = svg.split(lt)
    bound = 5 * (limit + 1)
    if max(map(len, pieces)) < bound:
        return False
    return any(len(p) >= bound and p.count(eq) > limit for p in pieces)


# The XML declaration the parse-free acceptance admits (what libxml2 and expat both accept), and
# comments without "<" after it (XML allows no "--" in a comment, nor a "-" before its end).
_PLAIN_PROLOG = re.compile(
    r'(?:<\?xml[ \t\n]+version="1\.0"(?:[ \t\n]+encoding="(?:utf|UTF)-8")?'
    r'(?:[ \t\n]+standalone="(?:yes|no)")?[ \t\n]*\?>)?'
    r"(?:[ \t\n]*+<!--(?:[^<-]|-[^<-])*+-->)*+[ \t\n]*<svg[ \t\n/>]"
).match
# The only attributes of a root the parse-free acceptance admits with a prefix or an xmlns.
_PLAIN_ROOT_NS = (
    'xmlns="http://www.w3.org/2000/svg"',
    'xmlns:xlink="http://www.w3.org/1999/xlink"',
)


def may_skip_parse(svg: str, limits: RenderLimits) -> bool:
    """Whether the text shows that :func:`check_tree` could only accept ``svg`` as it is, when the
    text is of the text lowering's grammar.

    For :func:`vector_gym.render.backends._prepare_begin`: a text of the grammar of
    :func:`vector_gym.svg.normalise.subset_text.lower_skia_subset_text` that passes this test
    and that expat parses without error is well-formed for libxml2 too and within every limit,
    so the lxml parse is skipped (issue 16: about 66 us of a Vector-Bench scene's 600 at 72
    px). The test: ASCII (no encoding question, no surrogate), the text checks
    (:func:`check_text`), no reference marker (:func:`_may_refer`), a plain XML declaration or
    none and comments without ``<`` before the root, SVG's namespace declared on the root (and
    no other declaration but XLink's), at most ``xml:space="preserve"`` or ``"default"`` on
    it, no more ``<`` than the element and
    ``<use>`` limits, a depth bound (two plus the number of ``<g``, the only element of the
    grammar with children) within the depth limit and libxml2's 256, a text shorter than the
    path-number limit, and at least 32 attributes allowed per element (the grammar's elements
    have fewer; a root is checked by the lowering). Below the root the grammar admits no
    ``<!`` (no DOCTYPE, comment or CDATA), no ``<use>``, no namespace declaration and no
    ``xml:`` attribute (its elements and attribute names are fixed, and a ``<`` in a value is
    expat's error), so the text is not searched for them (each search of a 6 KB text costs
    3-5 us: one for a single character, about 0.1).
    """
    if not svg.isascii():
        return False
    check_text(svg, limits)
    if _may_refer(svg) or not _PLAIN_PROLOG(svg):
        return False
    tags = svg.count("<")
    if tags > limits.max_elements or tags > limits.max_use_expansion or len(svg) > limits.max_path_numbers:
        return False
    depth = min(limits.max_depth, 256)
    if limits.max_attributes < 32 or (2 + tags > depth and 2 + svg.count("<g") > depth):
        return False
    head = svg[: svg.find(">", svg.find("<svg"))]  # the root's start tag (or less: then the
    # text lowering refuses the document, whose root tag it reads to the same ">")
    if _PLAIN_ROOT_NS[0] not in head:
        return False  # an SVG root
    if "xmlns:" in head:
        rest = head
        for ok in _PLAIN_ROOT_NS:
            rest = rest.replace(ok, "", 1)
        if "xmlns" in rest:
            return False
    return "xml:" not in head or _PLAIN_XML_SPACE(head) is not None


_PLAIN_XML_SPACE = re.compile(r'(?:[^x]|x(?!ml:))*+(?:xml:space="(?:preserve|default)"(?:[^x]|x(?!ml:))*+)?\Z').match


def expat_well_formed(svg: str) -> bool:
    """Whether expat, with namespace processing, parses ``svg`` without error."""
    parser = _expat.ParserCreate(namespace_separator=" ")
    try:
        parser.Parse(svg, True)
    except (_expat.ExpatError, ValueError):
        return False
    return True


def _check_references(root, limits: RenderLimits) -> None:
    strip_css_hrefs(root)  # a CSS href is stripped like every external reference (issue 11)
    strip_external_resources(root)  # before any backend sees the tree (module docstring)
    bad = external_references(root)
    if bad:
        raise RenderRejected(
            reasons.EXTERNAL_REFERENCE, f"only #id and data: references, got {bad[0][:80]!r}"
        )
    for uri in _DATA_HREF_XPATH(root):
        size = raster_size(uri)
        if size is not None and size[1] * size[2] > limits.max_image_pixels:
            raise RenderRejected(
                reasons.IMAGE_TOO_LARGE,
                f"expected at most {limits.max_image_pixels} pixels, got {size[1]} x {size[2]}",
            )


def check_tree(svg: str | bytes, limits: RenderLimits = DEFAULT_LIMITS) -> etree._Element:
    """Parse a document safely and check it is fit to hand to a rasteriser.

    Parameters
    ----------
    svg : str or bytes
        The document (already passed by :func:`check_text`, or not: this repeats its checks).
    limits : RenderLimits
        Bounds on size, depth, element count, ``<use>`` expansion and path data.

    Returns
    -------
    lxml.etree._Element
        The parsed root element (owned by the caller; the normaliser may modify it), with every
        external ``<image>``, ``<feImage>`` and ``<use>`` already replaced by what it draws
        offline: nothing (module docstring, "External references").

    Raises
    ------
    RenderRejected
        With ``reason`` one of the parse reasons, ``not_svg``, ``too_many_attributes``,
        ``external_reference``, ``use_cycle``, ``use_expansion`` or ``too_many_path_segments``.
    """
    return _check_tree(svg, limits)[0]


def _check_tree(svg, limits: RenderLimits) -> tuple[etree._Element, str | bytes | None]:
    """:func:`check_tree`, and the checked text when the text alone proves the tree is it.

    The second item is the text (``str`` or ``bytes``) when it refers to nothing
    (:func:`_may_refer` is false), so that no reference strip rewrote the tree, else None. A
    ``<use>`` strip may still have run: a text that names no ``<use>`` element (as every
    skia-subset document) was not changed by it either.
    """
    svg = check_text(svg, limits)
    try:
        lim = limits.parse_limits()
        root, _data = parse_svg_unprobed(svg, lim)
        # Every element starts with a "<" in the text, so a text with fewer of them than the
        # element and depth limits cannot exceed either: parse_svg's two tree probes are skipped.
        tags = svg.count("<" if isinstance(svg, str) else b"<")
        if tags > lim.max_elements or tags > lim.max_depth:
            check_shape(root, lim)
    except SVGParseError as exc:
        raise RenderRejected(exc.reason, exc.message) from None
    if not isinstance(root.tag, str) or local_name(root.tag) != "svg":
        raise RenderRejected(reasons.NOT_SVG, f"expected an <svg> root, got {root.tag!r}")
    if namespace_uri(root.tag) != SVG_NS:
        raise RenderRejected(
            reasons.NO_SVG_NAMESPACE, f"expected the namespace {SVG_NS}, got {root.tag!r}"
        )
    if _may_have_many_attributes(svg, limits.max_attributes) and root.xpath(
        f"boolean(//*[count(@*) > {limits.max_attributes}])"
    ):
        raise RenderRejected(
            reasons.TOO_MANY_ATTRIBUTES,
            f"expected at most {limits.max_attributes} attributes on one element",
        )
    refers = _may_refer(svg)
    if refers:
        _check_references(root, limits)
    if limits.max_use_expansion >= limits.max_elements and not _may_use(svg):
        return _check_path_numbers(root, limits, svg), svg if not refers else None  # no <use>
    if limits.use_cycles == "skip":
        n = strip_cyclic_uses(root, limits.max_use_expansion)
    else:
        n = use_expansion_count(root, limits.max_use_expansion)
    if n < 0:
        raise RenderRejected(reasons.USE_CYCLE, "a <use> refers to itself or an ancestor")
    if n > limits.max_use_expansion:
        raise RenderRejected(
            reasons.USE_EXPANSION,
            f"expected at most {limits.max_use_expansion} elements after <use>, got more",
        )
    return _check_path_numbers(root, limits, svg), svg if not refers else None


def _check_path_numbers(root, limits: RenderLimits, svg: str | bytes):
    # A number takes at least one character of path data, and attribute values are no longer
    # than the text that writes them (references only shorten them).
    if len(svg) > limits.max_path_numbers and path_numbers_over(root, limits.max_path_numbers):
        raise RenderRejected(
            reasons.TOO_MANY_PATH_SEGMENTS,
            f"expected at most {limits.max_path_numbers} path numbers",
        )
    return root
