"""The canonical form C(S): strict, "source level" equality of SVG trees (spec-reward.md §4).

Two dialects
------------
Every :class:`Node` tree carries a :class:`Dialect` that decides how its attribute values are
read. :data:`SVG2` (the default mode, and the default of :func:`to_node`) reads every value with
the SVG 2 / CSS grammars of ``vector_gym.svg`` (:func:`normalise_attribute_svg`): two spellings
are equal exactly when SVG says they denote the same value (packed numbers, compact arc flags,
CSS Color 4 colours, CSS declarations, ``px`` lengths, implied transform arguments, SVG 2 ``href``
rules). :data:`REFERENCE` (parity mode) is the reference evaluator's N of spec §4.1, implemented
in :mod:`vector_gym.svg.reference_dialect`; the contract below is that dialect's.

Normaliser contract (REFERENCE dialect)
---------------------------------------
What is resolved (two spellings that C treats as the same):

- attribute order; namespace prefixes (tags and attribute keys compare in expanded
  ``{uri}local`` form), comments, processing instructions and CDATA (dropped or merged by
  :func:`vector_gym.svg.parse.parse_svg`) — §3, §4 items 1–2;
- whitespace runs in text, tails and attribute values (strip, collapse to one space) — §4 items
  3–4, §4.1;
- number spellings, with exact decimal arithmetic: ``1.000``→``1``, ``-0``→``0``, ``1e2``→``100``,
  ``.5``→``0.5``, ``+5``→``5``; ``\\d`` is any Unicode decimal digit, so ``１０``→``10`` — §4.2, §15;
- colour spellings of the six colour attributes (``white`` ≡ ``#FFF`` ≡ ``rgb(255,255,255)``) —
  §4.1 rule 2, §4.6 (:func:`vector_gym.svg.color.normalise_color`);
- separators in path data, ``points``, ``viewBox`` and any numeric list (``4,2`` ≡ ``4 2``) — §4.3;
- separators inside ``transform`` (``translate(10,20)`` ≡ ``translate(10 20)``) — §4.4;
- declaration order, spacing and name case inside ``style`` when no name repeats — §4.5.

What is kept verbatim (two spellings that C treats as different):

- relative vs absolute path commands, implicit repeats, ``H``/``V`` vs ``L``, ``Z`` vs a closing
  line (no geometric canonicalisation) — §4.3;
- ``translate(10)`` vs ``translate(10 0)``, ``scale(2)`` vs ``scale(2 2)`` — §4.4;
- numbers that differ in any digit (no rounding ever: ``0.123456789`` ≠ ``0.123456788``) — §4.2;
- case of every non-colour value (``class``, ``font-family``, ``url(#…)``), unit-bearing lengths
  (``10px``), percentages and keywords — §4.1 rule 8;
- ``xlink:href`` vs ``href``, ``id``/``aria-*``/``data-*``/``style`` as ordinary attributes;
  presentation attributes are never merged with ``style`` (that is V, §5) — §4;
- element order, nesting and child counts, text and tail text — §4 items 3–5.

What marks a value invalid (the attribute then fails the validity gate, §10):

- ``style`` with a piece lacking ``:`` or with an empty name or value — §4.5;
- ``d`` that is not a token stream of numbers and command letters, e.g. ``;``, units or packed
  numbers such as ``0.5.5`` — §4.3;
- ``points``/``viewBox`` that is not a numeric token stream — §4.3;
- ``transform`` that is not a sequence of known functions with the right arity — §4.4.

An invalid value normalises to :data:`INVALID_MARKER` + the folded original, so two invalid
values compare equal only if their text is identical (§4.1).

Bounded-cost deviation: a number whose exact decimal expansion would need more than
:data:`_MAX_POSITIONAL` digits (e.g. ``1e999999999``) is written in scientific notation instead of
positional notation. The spelling is still a function of the exact value, so equality is as in
§4.2, and a hostile exponent cannot allocate gigabytes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from lxml import etree

from vector_gym.svg.color import COLOR_ATTRIBUTES, canonical_color
from vector_gym.svg.numbers import (
    SHORT_NUMBER_LIST_RE,
    SHORT_NUMBER_RE,
    format_number,
    normalise_length,
    normalise_svg_number,
    scan_numbers,
)
from vector_gym.svg.parse import (
    ParseLimits,
    fold_ws,
    local_name,
    parse_svg_unprobed,
    read_attributes,
    too_deep,
    too_many_elements,
    ws_equal,
)
from vector_gym.svg.path_data import normalise_path_data
from vector_gym.svg.reference_dialect import (  # re-exported: the names predate the dialect split
    INVALID_MARKER,
    NUMBER_PATTERN,
    is_number,
    normalise_attribute_reference,
    normalise_number,
    normalise_style,
    normalise_transform,
    number_tokens,
    path_tokens,
    style_pieces,
)
from vector_gym.svg.references import XLINK_HREF
from vector_gym.svg.style import style_declarations
from vector_gym.svg.transform import normalise_css_transform, normalise_transform_list

__all__ = [
    "Dialect",
    "REFERENCE",
    "SVG2",
    "INVALID_MARKER",
    "INVALID_NUMBER_MARKER",
    "normalise_attribute_svg",
    "normalise_declaration_svg",
    "normalise_attribute_reference",
    "NUMBER_PATTERN",
    "Node",
    "to_node",
    "parse_node",
    "release",
    "normalise_attribute",
    "normalise_number",
    "is_number",
    "is_invalid",
    "number_tokens",
    "path_tokens",
    "normalise_transform",
    "normalise_style",
    "style_pieces",
    "fold_ascii_ws",
    "NUMBER_ATTRIBUTES",
    "LENGTH_ATTRIBUTES",
    "LENGTH_LIST_ATTRIBUTES",
    "TRANSFORM_ATTRIBUTES",
    "LENGTH_OR_KEYWORD_ATTRIBUTES",
    "LENGTH_LIST_OR_KEYWORD_ATTRIBUTES",
    "KEYWORD_ATTRIBUTES",
    "canonical_attributes",
    "canonical_equal",
    "canonical_form",
    "fold_ws",
    "local_name",
]

INVALID_NUMBER_MARKER = INVALID_MARKER + "number:"
"""Prefix of a default-mode value that is not a number/length where one is required."""

_CACHE_MAX_LEN = 2048  # longer values are normalised without caching (bounded memory)


# --------------------------------------------------------------------------------------------
# The tree model (spec §3): a light, mutable copy of the lxml tree that every gate walks.


class Node:
    """One element of the §3 tree model.

    Attributes
    ----------
    tag : str
        Expanded tag, ``{uri}local`` or bare ``local``.
    attrib : dict of str to str
        Raw attribute values keyed by expanded name, in document order. Trees read by
        :func:`parse_node` share one dict among elements with the same start tag: assign a
        copy before editing one.
    text, tail : str
        Raw text before the first child / after the end tag (``""`` when absent).
    children : list of Node
    parent : Node or None
    dialect : Dialect
        How attribute values are read: :data:`SVG2` (default mode) or :data:`REFERENCE` (parity).
    """

    __slots__ = ("tag", "attrib", "text", "tail", "children", "parent", "dialect", "_c", "_v")

    def __init__(
        self,
        tag: str,
        attrib: dict[str, str],
        text: str = "",
        tail: str = "",
        children: list[Node] | None = None,
        parent: Node | None = None,
        dialect: Dialect | None = None,
    ) -> None:
        self.tag = tag
        self.dialect = dialect if dialect is not None else SVG2
        self.attrib = attrib
        self.text = text
        self.tail = tail
        self.children = children if children is not None else []
        self.parent = parent
        self._c: dict[str, str] | None = None
        self._v: Any = None

    @property
    def local(self) -> str:
        """Local name of the tag."""
        return local_name(self.tag)

    def get(self, key: str, default: Any = None) -> Any:
        """Return the raw attribute ``key`` (expanded name) or ``default``."""
        return self.attrib.get(key, default)

    def iter(self) -> Iterator[Node]:
        """Yield this node and every descendant in document (pre-)order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def invalidate(self) -> None:
        """Drop cached normalisations after an attribute change (masking, §9)."""
        self._c = None
        self._v = None

    def copy(self, parent: Node | None = None, *, share_attributes: bool = False) -> Node:
        """Deep copy of this subtree (caches are shared; they depend only on attributes).

        With ``share_attributes`` the copies use these nodes' ``attrib`` dicts (for read-only
        copies: equal attribute maps are then found by identity).
        """
        attrib = self.attrib if share_attributes else dict(self.attrib)
        n = Node(self.tag, attrib, self.text, self.tail, None, parent, self.dialect)
        n._c = self._c
        n._v = self._v
        n.children = [c.copy(n, share_attributes=share_attributes) for c in self.children]
        return n

    def __repr__(self) -> str:
        return f"Node({self.tag!r}, {self.attrib!r}, {len(self.children)} children)"


def to_node(element: Any, parent: Node | None = None, dialect: Dialect | None = None) -> Node:
    """Convert an lxml (or ElementTree) element and its subtree to :class:`Node`.

    Parameters
    ----------
    element : lxml.etree._Element
        As returned by :func:`vector_gym.svg.parse.parse_svg` (comments and PIs removed).
    parent : Node, optional
        Parent of the new root node.
    dialect : Dialect, optional
        :data:`SVG2` (default) or :data:`REFERENCE` (parity mode); every node of the tree gets it.

    Returns
    -------
    Node
        ``text``/``tail`` are ``""`` when absent; only element children are kept. Iterative, so
        nesting depth is bounded by memory, not by the recursion limit.
    """
    attrs = read_attributes  # linear in the attribute count (lxml's items() is quadratic)

    if dialect is None:
        dialect = SVG2
    top = Node(element.tag, attrs(element), element.text or "", element.tail or "", None, parent, dialect)
    stack = [(element, top)]
    while stack:
        el, node = stack.pop()
        kids = node.children
        for c in el:
            tag = c.tag
            if tag.__class__ is not str:  # comment / PI / entity nodes are not part of the model
                continue
            n = Node(tag, attrs(c), c.text or "", c.tail or "", None, node, dialect)
            kids.append(n)
            if len(c):
                stack.append((c, n))
    return top


_FEW_ATTRIBUTES_TOTAL = 1024
"""A start tag (or, when :func:`parse_node` has no start-tag texts, a whole document) with at most
this many ``=`` characters has no more attributes, so lxml's quadratic ``items()`` costs at most
~0.5 M name comparisons: :func:`parse_node` then reads it with ``items()`` and skips
:func:`read_attributes`' per-element count."""

_new_node = object.__new__
_ELEMENTS = etree.Element  # ``iter(etree.Element)`` yields elements only
_PARSE_DEFAULTS = ParseLimits()


def parse_node(
    text: str | bytes,
    limits: ParseLimits | None = None,
    dialect: Dialect | None = None,
    *,
    blank_text: bool = True,
) -> tuple[Node, list[Node], list[tuple[tuple[str, str], ...]]]:
    """:func:`vector_gym.svg.parse.parse_svg` then :func:`to_node`, in one walk (spec §3).

    The verdicts and error reasons are those of ``to_node(parse_svg(text, limits), ...)``; the
    element-count and depth limits are applied while the tree is converted instead of by two
    extra XPath probes (an element count above ``max_elements`` is reported first, as
    :func:`~vector_gym.svg.parse.parse_svg` does).

    Parameters
    ----------
    text : str or bytes
    limits : ParseLimits, optional
    dialect : Dialect, optional
        :data:`SVG2` (default) or :data:`REFERENCE`.
    blank_text : bool, default True
        False: whitespace-only texts and tails that libxml2 finds ignorable read ``""``
        (:func:`~vector_gym.svg.parse.parse_svg_unprobed`); for callers that compare texts
        and tails whitespace-folded only (the specification reward, spec §4, §15), which then
        parse, read and compare less.

    Returns
    -------
    (Node, list of Node, list of tuple)
        The root; every node of the tree in document (pre-)order, root first; and per node its
        attributes as parsed, ``tuple(node.attrib.items())`` (a hashable key, built from lxml's
        list without a second pass over the dict). The tree holds parent links (reference
        cycles): a caller done with it can call :func:`release` to free it at once instead of
        leaving it to the cyclic garbage collector. Elements whose start tag repeats one read
        before share one ``attrib`` dict (the attribute memo's): treat ``attrib`` as read-only
        and assign a copy before editing one (as masking does, spec §9).

    Raises
    ------
    vector_gym.errors.SVGParseError
        As :func:`~vector_gym.svg.parse.parse_svg`.
    """
    lim = limits if limits is not None else _PARSE_DEFAULTS
    element, data = parse_svg_unprobed(text, lim, blank_text=blank_text)
    if dialect is None:
        dialect = SVG2
    starts = _start_tags(text)
    # Without the start-tag texts (bytes, CDATA, DOCTYPE) every element is read through lxml:
    # items() when the whole document is small enough, else read_attributes.
    few = starts is not None or data.count(b"=") <= _FEW_ATTRIBUTES_TOTAL
    n_starts = len(starts) if starts is not None else 0
    memo = _ATTRIBUTES_MEMO
    tags = _TAG_NAMES
    max_elements = lim.max_elements
    max_depth = lim.max_depth if lim.max_depth < 256 else 1 << 30  # libxml2 enforced 256
    new = _new_node
    order: list[Node] = []
    add = order.append
    keys: list[tuple[tuple[str, str], ...]] = []
    addkey = keys.append
    # lxml's own pre-order iterator over elements. The parser leaves no other nodes in the tree
    # (comments and PIs are removed, CDATA merged, entity references rejected), so an element's
    # ``len`` is its element-child count and the open ancestors with children still to come, on
    # a stack, give each element's parent and depth without asking lxml (a miscount would leave
    # an entry behind: checked at the end).
    stack: list[list[Any]] = []  # [node, element children still to come, depth]
    pop = stack.pop
    push = stack.append
    count = 0
    # Every namespace declaration of the document on its root start tag (no other "xmlns"):
    # every element then has the root's in-scope namespaces, and a start tag read before in the
    # same context gives the same expanded tag (stored with it in the memo).
    ctx = (
        _namespace_context(element)
        if n_starts and text.count("xmlns") == starts[0].count("xmlns")
        else None
    )
    for el in element.iter(_ELEMENTS):
        if stack:
            top = stack[-1]
            parent = top[0]
            depth = top[2] + 1
            left = top[1] - 1
            if left:
                top[1] = left
            else:
                pop()
        else:
            parent = None
            depth = 1
        if depth > max_depth or count == max_elements:
            n_all = int(element.xpath("count(//*)"))
            if n_all > max_elements:  # counted first, as parse_svg does
                raise too_many_elements(lim, n_all)
            raise too_deep(lim)
        n = new(Node)
        empty = False  # an empty-element tag, known from the memo: no text, no children to read
        if starts is not None:
            raw = starts[count] if count < n_starts else None
            hit = memo.get(raw)
            if hit is not None:
                key, n.attrib, tag, known_ctx = hit  # the stored dict itself, shared (read-only)
                if known_ctx is not ctx or ctx is None:
                    tag = _tag(el, tags)
                n.tag = tag
                addkey(key)
                count += 1
                empty = raw[-1] == "/"
            else:
                tag = n.tag = _tag(el, tags)
                if raw is not None and _whole_start_tag(raw):
                    # items() is quadratic in the attribute count, which the '=' count of the
                    # whole start tag bounds
                    key = tuple(el.items()) if raw.count("=") <= _FEW_ATTRIBUTES_TOTAL else None
                    attrib = dict(key) if key is not None else read_attributes(el)
                    key = key if key is not None else tuple(attrib.items())
                    _remember(raw, key, attrib, tag, ctx)
                else:
                    attrib = read_attributes(el)
                    key = tuple(attrib.items())
                n.attrib = attrib
                addkey(key)
                count += 1
        else:
            n.tag = _tag(el, tags)
            count += 1
            if few:
                items = el.items()
                n.attrib = dict(items)
                addkey(tuple(items))
            else:
                n.attrib = read_attributes(el)
                addkey(tuple(n.attrib.items()))
        n.text = "" if empty else el.text or ""
        n.tail = el.tail or ""
        n.children = []
        n.parent = parent
        n.dialect = dialect
        n._c = None
        n._v = None
        add(n)
        if parent is not None:
            parent.children.append(n)
        if not empty:
            k = len(el)
            if k:
                push([n, k, depth])
    if stack:  # defensive: a child that is not an element; read the tree through lxml instead
        return _parse_node_by_parents(element, lim, dialect)
    if starts is not None and len(starts) != count:  # defensive: the scan missed a start tag
        _ATTRIBUTES_MEMO.clear()
        return parse_node(text.encode("utf-8"), limits, dialect, blank_text=blank_text)
    return order[0], order, keys


def _tag(el: Any, tags: dict[str, str]) -> str:
    """``el.tag``, one string object per tag name (tag comparisons meet identical objects)."""
    tag = el.tag
    known = tags.get(tag)
    if known is not None:
        return known
    if len(tags) >= _TAG_NAMES_MAX:
        tags.clear()
    tags[tag] = tag
    return tag


def _namespace_context(root: Any) -> tuple[tuple[str, str], ...]:
    """The root's in-scope namespaces as one interned tuple ((prefix or "", uri), ...)."""
    ctx = tuple(sorted((p or "", u) for p, u in root.nsmap.items()))
    known = _NS_CONTEXTS.get(ctx)
    if known is not None:
        return known
    if len(_NS_CONTEXTS) >= _TAG_NAMES_MAX:
        _NS_CONTEXTS.clear()
    _NS_CONTEXTS[ctx] = ctx
    return ctx


def _parse_node_by_parents(
    element: Any, lim: ParseLimits, dialect: Dialect
) -> tuple[Node, list[Node], list[tuple[tuple[str, str], ...]]]:
    """:func:`parse_node`'s walk of a parsed tree, each parent found through lxml (no memo)."""
    made: dict[Any, tuple[Node, int]] = {}
    order: list[Node] = []
    keys: list[tuple[tuple[str, str], ...]] = []
    max_depth = lim.max_depth if lim.max_depth < 256 else 1 << 30
    for el in element.iter(_ELEMENTS):
        up = el.getparent()
        parent, depth = (None, 1) if up is None else made[up]
        depth += up is not None
        if depth > max_depth or len(order) == lim.max_elements:
            n_all = int(element.xpath("count(//*)"))
            if n_all > lim.max_elements:
                raise too_many_elements(lim, n_all)
            raise too_deep(lim)
        n = Node(el.tag, read_attributes(el), el.text or "", el.tail or "", None, parent, dialect)
        order.append(n)
        keys.append(tuple(n.attrib.items()))
        if parent is not None:
            parent.children.append(n)
        if len(el):
            made[el] = (n, depth)
    return order[0], order, keys


# Attribute lists by the raw text of their start tag (``<`` to ``>``, exclusive). lxml's items()
# costs ~0.2 us per attribute (a name search and a copy per value), while produced SVGs repeat
# most start tags of their task's source and target verbatim. A start tag's attributes are a
# function of its text alone when no attribute name has a namespace prefix (unprefixed names are
# in no namespace, whatever the xmlns declarations in scope; values are unescaped and
# whitespace-normalised the same way everywhere) and the document has no DTD (no defaulted
# attributes, no external entities): only such lists are stored. The expanded tag is stored too,
# with the namespace context it was read in (the root's declarations, when the document declares
# namespaces on its root start tag only; else none): an element of a document with the same
# context reuses it instead of asking lxml, and an empty-element tag (``.../>``) has no text and
# no children to ask for either.
_START_TAG_RE = re.compile(r"<(?:!--.*?-->|\?.*?\?>|/[^>]*>|([^>]*)>)", re.DOTALL)
_PLAIN_START_TAG_RE = re.compile(r"<([^/>][^>]*)>")  # documents without "<!" and "<?"
_ATTRIBUTES_MEMO: dict[str, tuple[tuple[tuple[str, str], ...], dict[str, str], str, Any]] = {}
_TAG_NAMES: dict[str, str] = {}  # expanded tag names read so far, each kept as one object
_NS_CONTEXTS: dict[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]] = {}
_TAG_NAMES_MAX = 4096
_ATTRIBUTES_MEMO_MAX = 1 << 15
_ATTRIBUTES_MEMO_CHARS = 2048  # longest stored start tag (characters)
_ATTRIBUTES_MEMO_BUDGET = 1 << 22  # characters of stored start tags before the memo is emptied
_ATTRIBUTES_MEMO_TOTAL = [0]


def _start_tags(text: Any) -> list[str] | None:
    """The text inside every start tag of a well-formed document, in document order, or None.

    In a well-formed document without CDATA sections or a DOCTYPE, every ``<`` opens exactly one
    of: a comment, a processing instruction, an end tag or a start tag (text and attribute values
    cannot hold a raw ``<``), so the k-th start tag found is the k-th element in pre-order. A
    capture that ends at a ``>`` inside a quoted value is cut short; such captures are never
    stored (:func:`_remember`), so they only miss.
    """
    if text.__class__ is not str:
        return None
    if "<!" not in text and "<?" not in text:
        # No comment, PI, CDATA or DOCTYPE: every "<" opens a start or an end tag, so a start
        # tag is a "<" not followed by "/" (about 40% cheaper than the alternation below).
        return _PLAIN_START_TAG_RE.findall(text)
    if "<![CDATA[" in text or "<!DOCTYPE" in text:
        return None
    return list(filter(None, _START_TAG_RE.findall(text)))


def _whole_start_tag(raw: str) -> bool:
    """Whether a capture of :func:`_start_tags` is certainly a whole start tag.

    No single quote (a '>' or '"' could hide inside '...') and balanced double quotes (a '>'
    inside a "..." value would have cut the capture inside that value, leaving an odd count).
    """
    return "'" not in raw and not raw.count('"') % 2


def _remember(
    raw: str, key: tuple[tuple[str, str], ...], attrib: dict[str, str], tag: str, ctx: Any
) -> None:
    # Whole start tags only (the caller checks _whole_start_tag), no namespaced name. ``tag`` is
    # the element's expanded tag, valid wherever the namespace context is ``ctx`` (None: never).
    if len(raw) > _ATTRIBUTES_MEMO_CHARS:
        return
    for k, _v in key:
        if k[:1] == "{":
            return
    memo = _ATTRIBUTES_MEMO
    if len(memo) >= _ATTRIBUTES_MEMO_MAX or _ATTRIBUTES_MEMO_TOTAL[0] > _ATTRIBUTES_MEMO_BUDGET:
        memo.clear()
        _ATTRIBUTES_MEMO_TOTAL[0] = 0
    memo[raw] = (key, attrib, tag, ctx)  # shared with the node: attribute dicts are read-only
    _ATTRIBUTES_MEMO_TOTAL[0] += len(raw)


def release(nodes: list[Node]) -> None:
    """Break the parent links of ``nodes`` (all of one tree) so reference counting frees it.

    The nodes stay readable (children, attributes) but no longer know their parents; call this
    only when the tree is no longer used.
    """
    for n in nodes:
        n.parent = None


# --------------------------------------------------------------------------------------------
# The two dialects of N(name, value)


class Dialect:
    """How a tree's attribute values are read: the normaliser N and the ``href`` keying of V.

    Attributes
    ----------
    name : str
        ``"svg2"`` or ``"reference"``.
    normalise : callable (key, value) -> str
        N of this dialect; ``key`` may be an expanded ``{uri}local`` name.
    svg2_links : bool
        True: SVG 2 ``href`` rules (:mod:`vector_gym.svg.references`); False: the reference's
        local-name keying (spec §5.2).
    """

    __slots__ = ("name", "normalise", "svg2_links")

    def __init__(self, name: str, normalise: Callable[[str, str], str], svg2_links: bool) -> None:
        self.name = name
        self.normalise = normalise
        self.svg2_links = svg2_links

    def __repr__(self) -> str:
        return f"Dialect({self.name!r})"


NUMBER_ATTRIBUTES: frozenset[str] = frozenset(
    {"opacity", "fill-opacity", "stroke-opacity", "stop-opacity", "flood-opacity", "offset",
     "stroke-miterlimit", "pathLength"}
)
"""Attributes whose value is one number (or a percentage, for opacities and ``offset``)."""

LENGTH_ATTRIBUTES: frozenset[str] = frozenset(
    {"width", "height", "r", "rx", "ry", "cx", "cy", "x1", "y1", "x2", "y2", "fx", "fy", "fr",
     "stroke-width", "stroke-dashoffset", "refX", "refY", "markerWidth", "markerHeight"}
)
"""Attributes whose value is one length (SVG 2 §4.3: number, optional unit or ``%``)."""

LENGTH_LIST_ATTRIBUTES: frozenset[str] = frozenset({"x", "y", "dx", "dy"})
"""Attributes whose value is a list of lengths (on ``<text>``/``<tspan>``; one on shapes)."""

TRANSFORM_ATTRIBUTES: frozenset[str] = frozenset({"transform", "gradientTransform", "patternTransform"})
"""Attributes whose value is a ``<transform-list>`` (SVG 2 §8.5, §14.2.2, §14.4)."""

LENGTH_OR_KEYWORD_ATTRIBUTES: frozenset[str] = frozenset({"font-size", "letter-spacing", "word-spacing"})
"""One length, or a keyword (``small``, ``normal``; ASCII case-insensitive, CSS Values 4 §6.1)."""

LENGTH_LIST_OR_KEYWORD_ATTRIBUTES: frozenset[str] = frozenset({"stroke-dasharray"})
"""A comma/space separated list of lengths, or a keyword (``none``) (SVG 2 §13.5.3)."""

KEYWORD_ATTRIBUTES: frozenset[str] = frozenset(
    {"stroke-linecap", "stroke-linejoin", "fill-rule", "clip-rule", "display", "visibility",
     "overflow", "text-anchor", "dominant-baseline", "alignment-baseline", "font-style",
     "font-weight", "font-variant", "font-stretch", "vector-effect", "shape-rendering",
     "text-rendering", "image-rendering", "color-interpolation", "color-interpolation-filters",
     "mix-blend-mode", "isolation", "pointer-events", "writing-mode", "direction", "unicode-bidi",
     "paint-order", "white-space", "mask-type"}
)
"""Properties whose values are CSS keywords, ASCII case-insensitive (CSS Values 4 §6.1)."""

_CSS_WIDE = frozenset({"inherit", "initial", "unset", "revert"})
_AUTO_OK = frozenset({"width", "height", "rx", "ry"})


def _svg_number_value(name: str, value: str) -> str:
    if value[-1:] == "%" and name != "stroke-miterlimit" and name != "pathLength":
        n = normalise_svg_number(value[:-1])
        if n is not None:
            return format_number(float(n) / 100.0)
    n = normalise_svg_number(value)
    return n if n is not None else INVALID_NUMBER_MARKER + value


def _svg_length_list(value: str) -> str | None:
    out = []
    for piece in value.replace(",", " ").split():
        n = normalise_length(piece)
        if n is None:
            return None
        out.append(n)
    return " ".join(out) if out and value.count(",") < len(out) else None


_ASCII_WSP_RE = re.compile(r"[ \t\r\n\f]+")
_PAINT_URL_RE = re.compile(r"(url\([^()]*\))[ \t\r\n\f]*(.*)", re.IGNORECASE | re.DOTALL)


def fold_ascii_ws(value: str) -> str:
    """Strip and collapse XML/SVG whitespace (space, tab, CR, LF, FF) only; NBSP is a character.

    Examples
    --------
    >>> fold_ascii_ws(" a \t b\u00a0c ")
    'a b\xa0c'
    """
    if value.isascii():
        return " ".join(value.split())
    return _ASCII_WSP_RE.sub(" ", value).strip(" ")


def _normalise_svg(key: str, value: str) -> str:
    if key[:1] == "{":
        if key != XLINK_HREF:
            return fold_ascii_ws(value)  # a foreign attribute: opaque text
        key = "href"
    value = fold_ascii_ws(value)
    name = key
    if name == "style":
        decls = style_declarations(value)
        if decls is None:
            return INVALID_MARKER + value
        return ";".join(f"{k}:{normalise_declaration_svg(k, decls[k])}" for k in sorted(decls))
    if not value:
        return value
    low = value.lower()
    if low in _CSS_WIDE:
        return low
    if name in COLOR_ATTRIBUTES:
        if low[:4] != "url(":
            return canonical_color(value)
        m = _PAINT_URL_RE.fullmatch(value)  # <paint>: url(…) then an optional fallback colour
        if m is not None and m.group(2):
            return m.group(1) + " " + canonical_color(m.group(2))
        return value
    # A short number already in format_number's spelling (SHORT_NUMBER_RE) is its own N as a
    # number, a length and a one-item length list; a list of them, its own with spaces.
    if name in NUMBER_ATTRIBUTES:
        if SHORT_NUMBER_RE.fullmatch(value) is not None:
            return value
        return _svg_number_value(name, value)
    if name in LENGTH_ATTRIBUTES:
        if SHORT_NUMBER_RE.fullmatch(value) is not None:
            return value
        if low == "auto" and name in _AUTO_OK:
            return low
        n = normalise_length(value)
        return n if n is not None else INVALID_NUMBER_MARKER + value
    if name in LENGTH_LIST_ATTRIBUTES:
        if SHORT_NUMBER_RE.fullmatch(value) is not None:
            return value
        n = _svg_length_list(value)
        return n if n is not None else INVALID_NUMBER_MARKER + value
    if name in KEYWORD_ATTRIBUTES:
        n = normalise_svg_number(value)  # font-weight: 700 = 700.0
        return n if n is not None else low
    if name in LENGTH_OR_KEYWORD_ATTRIBUTES:
        n = normalise_length(value)
        return n if n is not None else low
    if name in LENGTH_LIST_OR_KEYWORD_ATTRIBUTES:
        n = _svg_length_list(value)
        return n if n is not None else low
    if name == "d":
        out = normalise_path_data(value)
        return out if out is not None else INVALID_MARKER + value
    if name == "points" or name == "viewBox":
        if SHORT_NUMBER_LIST_RE.fullmatch(value) is not None:
            return value.replace(",", " ")
        nums = scan_numbers(value)
        return " ".join(map(format_number, nums)) if nums is not None else INVALID_MARKER + value
    if name in TRANSFORM_ATTRIBUTES:
        out = normalise_transform_list(value)
        return out if out is not None else INVALID_MARKER + value
    n = normalise_svg_number(value)
    if n is not None:
        return n
    nums = scan_numbers(value)
    if nums:
        return " ".join(map(format_number, nums))
    return value


_normalise_svg_cached = functools.lru_cache(maxsize=1 << 16)(_normalise_svg)


def normalise_attribute_svg(key: str, value: str) -> str:
    """Default-mode N(name, value): equal outputs iff SVG 2 / CSS read the same value.

    Grammars (each defined once in ``vector_gym.svg``): numbers and lengths
    (:mod:`vector_gym.svg.numbers`; ``px`` = user units, opacities and ``offset`` percentages as
    fractions), path data (:func:`vector_gym.svg.path_data.normalise_path_data`: the path
    reader's grammar, packed numbers and compact arc flags included), ``points``/``viewBox``
    number lists, ``transform``/``gradientTransform``/``patternTransform`` lists
    (:func:`vector_gym.svg.transform.normalise_transform_list`), ``font-size``-like lengths and
    ``stroke-dasharray`` length lists (else a lower-cased keyword), keyword properties
    (:data:`KEYWORD_ATTRIBUTES`, lower-cased),
    colours (:func:`vector_gym.svg.color.canonical_color`, CSS Color 4), ``style`` declaration
    lists (:func:`vector_gym.svg.style.style_declarations`: comments and ``!important`` are
    not part of a value, last declaration wins). CSS-wide keywords are lower-cased. A value that
    is not a number or length where one is required (``NaN``, ``Infinity``, ``1_0``, ``0x10``,
    ``10 px``) normalises to :data:`INVALID_NUMBER_MARKER` + the text; malformed path data,
    ``points``, ``viewBox``, ``transform`` or ``style`` to :data:`INVALID_MARKER` + the text.
    A namespaced key other than ``xlink:href`` is a foreign attribute: its value is only
    whitespace-folded.

    Parameters
    ----------
    key : str
        Attribute name, bare or expanded (``{uri}local``).
    value : str

    Returns
    -------
    str

    Examples
    --------
    >>> normalise_attribute_svg("d", "M1.5.5") == normalise_attribute_svg("d", "M 1.5 0.5")
    True
    >>> normalise_attribute_svg("fill", "hsl(0,100%,50%)"), normalise_attribute_svg("width", "1e1px")
    ('#ff0000', '10')
    >>> normalise_attribute_svg("style", "fill: Red !important; opacity: 50%")
    'fill:#ff0000;opacity:0.5'
    >>> normalise_attribute_svg("x", "NaN").startswith(INVALID_NUMBER_MARKER)
    True
    """
    if len(value) <= _CACHE_MAX_LEN:
        return _normalise_svg_cached(key, value)
    return _normalise_svg(key, value)


def normalise_declaration_svg(name: str, value: str) -> str:
    """Default-mode N of one ``style`` declaration: as the attribute, except ``transform``.

    The CSS ``transform`` property has its own grammar (CSS units, commas, case-insensitive
    names: :func:`vector_gym.svg.transform.normalise_css_transform`), so ``transform:
    rotate(45deg)`` equals the attribute ``rotate(45)`` and ``transform: rotate(45)``, which
    browsers drop, is marked invalid.

    Examples
    --------
    >>> normalise_declaration_svg("transform", "rotate(45deg)") == normalise_attribute_svg("transform", "rotate(45)")
    True
    >>> normalise_declaration_svg("transform", "rotate(45)").startswith(INVALID_MARKER)
    True
    """
    if name == "transform":
        out = normalise_css_transform(value)
        return out if out is not None else INVALID_MARKER + value
    return normalise_attribute_svg(name, value)


SVG2 = Dialect("svg2", normalise_attribute_svg, True)
"""Default mode: the SVG 2 / CSS grammars and equivalences."""

REFERENCE = Dialect("reference", normalise_attribute_reference, False)
"""Parity mode: the reference evaluator's readings (:mod:`vector_gym.svg.reference_dialect`)."""


def normalise_attribute(name: str, value: str) -> str:
    """The reference's N(name, value) (spec §4.1), kept under its old name for existing callers.

    Same as :func:`vector_gym.svg.reference_dialect.normalise_attribute_reference`; default-mode
    code uses :func:`normalise_attribute_svg` (or a tree's ``dialect.normalise``).

    Examples
    --------
    >>> normalise_attribute("x", "10.0"), normalise_attribute("fill", "White")
    ('10', '#ffffff')
    """
    return normalise_attribute_reference(name, value)


def is_invalid(normalised: str) -> bool:
    """Return whether a normalised value is invalid-marked (spec §4.1, §10 rule 3)."""
    return normalised.startswith(INVALID_MARKER)


# --------------------------------------------------------------------------------------------
# C-equality (§4) and a printable canonical form


def canonical_attributes(node: Node) -> dict[str, str]:
    """The C attribute map of ``node``: expanded key → N(local name, value) (cached)."""
    c = node._c
    if c is None:
        norm = node.dialect.normalise
        c = {k: norm(k, v) for k, v in node.attrib.items()}
        node._c = c
    return c


def canonical_equal(a: Node, b: Node) -> bool:
    """C-equality of two subtrees (spec §4 items 1–5).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> p = to_node(parse_svg('<svg><rect x="10.0" fill="white" y="1"/></svg>'))
    >>> t = to_node(parse_svg('<svg><rect y="1.000" x="10" fill="#FFF"/></svg>'))
    >>> canonical_equal(p, t)
    True
    """
    stack = [(a, b)]  # iterative: nesting depth is bounded by memory, not the recursion limit
    pop, extend = stack.pop, stack.extend
    while stack:
        a, b = pop()
        if a.tag != b.tag:
            return False
        if a.text != b.text and not ws_equal(a.text, b.text):
            return False
        if a.tail != b.tail and not ws_equal(a.tail, b.tail):
            return False
        ac, bc = a.children, b.children
        if len(ac) != len(bc):
            return False
        if (
            a.attrib is not b.attrib
            and a.attrib != b.attrib
            and canonical_attributes(a) != canonical_attributes(b)
        ):
            return False
        if ac:
            extend(zip(ac, bc, strict=True))
    return True


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def canonical_form(root: Node | Any, indent: str = "  ") -> str:
    """Serialise C(S) for humans and golden files.

    One element per line, attributes sorted by expanded key with normalised values, folded text
    and tails on their own ``#text``/``#tail`` lines. Two subtrees are C-equal iff their
    canonical forms are equal.

    Parameters
    ----------
    root : Node or lxml element

    Returns
    -------
    str

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> print(canonical_form(parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect y="1.0" x="+2"/> t </svg>')))
    <{http://www.w3.org/2000/svg}svg>
      <{http://www.w3.org/2000/svg}rect x="2" y="1">
      #tail t
    """
    node = root if isinstance(root, Node) else to_node(root)
    lines: list[str] = []

    def walk(n: Node, depth: int) -> None:
        pad = indent * depth
        attrs = canonical_attributes(n)
        body = "".join(f' {k}="{_escape(attrs[k])}"' for k in sorted(attrs))
        lines.append(f"{pad}<{n.tag}{body}>")
        text = fold_ws(n.text)
        if text:
            lines.append(f"{pad}{indent}#text {text}")
        for child in n.children:
            walk(child, depth + 1)
        tail = fold_ws(n.tail)
        if tail and depth > 0:
            lines.append(f"{pad}#tail {tail}")
        elif tail:
            lines.append(f"#tail {tail}")

    walk(node, 0)
    return "\n".join(lines)
