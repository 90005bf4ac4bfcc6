"""The canonical form C(S): strict, "source level" equality of SVG trees (spec-reward.md §4).

Normaliser contract
-------------------
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
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from vector_gym.svg.color import COLOR_ATTRIBUTES, normalise_color
from vector_gym.svg.parse import fold_ws, local_name, read_attributes

__all__ = [
    "INVALID_MARKER",
    "NUMBER_PATTERN",
    "Node",
    "to_node",
    "normalise_attribute",
    "normalise_number",
    "is_number",
    "is_invalid",
    "number_tokens",
    "path_tokens",
    "normalise_transform",
    "normalise_style",
    "canonical_attributes",
    "canonical_equal",
    "canonical_form",
    "fold_ws",
    "local_name",
]

INVALID_MARKER = "__invalid_svg_syntax__:"
"""Prefix of a normalised value whose syntax check failed (spec §4.1 "marked invalid")."""

NUMBER_PATTERN = r"[-+]?(?:\d*\.\d+|\d+\.?)(?:[eE][-+]?\d+)?"
"""§4.2 number grammar; ``\\d`` is Python's Unicode decimal digit class (spec §15)."""

_NUMBER_RE = re.compile(NUMBER_PATTERN)
_PATH_TOKEN_RE = re.compile(f"({NUMBER_PATTERN})|([MmLlHhVvCcSsQqTtAaZz])")
_SEP_RE = re.compile(r"[\s,]*")
_TRANSFORM_RE = re.compile(r"([A-Za-z]+)\s*\(([^()]*)\)")
_TRANSFORM_ARITY = {
    "matrix": (6,),
    "rotate": (1, 3),
    "scale": (1, 2),
    "skewX": (1,),
    "skewY": (1,),
    "translate": (1, 2),
}
_MAX_POSITIONAL = 1000
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
        Raw attribute values keyed by expanded name, in document order.
    text, tail : str
        Raw text before the first child / after the end tag (``""`` when absent).
    children : list of Node
    parent : Node or None
    """

    __slots__ = ("tag", "attrib", "text", "tail", "children", "parent", "_c", "_v")

    def __init__(
        self,
        tag: str,
        attrib: dict[str, str],
        text: str = "",
        tail: str = "",
        children: list[Node] | None = None,
        parent: Node | None = None,
    ) -> None:
        self.tag = tag
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

    def copy(self, parent: Node | None = None) -> Node:
        """Deep copy of this subtree (caches are shared; they depend only on attributes)."""
        n = Node(self.tag, dict(self.attrib), self.text, self.tail, None, parent)
        n._c = self._c
        n._v = self._v
        n.children = [c.copy(n) for c in self.children]
        return n

    def __repr__(self) -> str:
        return f"Node({self.tag!r}, {self.attrib!r}, {len(self.children)} children)"


def to_node(element: Any, parent: Node | None = None) -> Node:
    """Convert an lxml (or ElementTree) element and its subtree to :class:`Node`.

    Parameters
    ----------
    element : lxml.etree._Element
        As returned by :func:`vector_gym.svg.parse.parse_svg` (comments and PIs removed).
    parent : Node, optional
        Parent of the new root node.

    Returns
    -------
    Node
        ``text``/``tail`` are ``""`` when absent; only element children are kept. Iterative, so
        nesting depth is bounded by memory, not by the recursion limit.
    """
    attrs = read_attributes  # linear in the attribute count (lxml's items() is quadratic)

    top = Node(element.tag, attrs(element), element.text or "", element.tail or "", None, parent)
    stack = [(element, top)]
    while stack:
        el, node = stack.pop()
        kids = node.children
        for c in el:
            tag = c.tag
            if tag.__class__ is not str:  # comment / PI / entity nodes are not part of the model
                continue
            n = Node(tag, attrs(c), c.text or "", c.tail or "", None, node)
            kids.append(n)
            if len(c):
                stack.append((c, n))
    return top


# --------------------------------------------------------------------------------------------
# Numbers (§4.2) and token streams (§4.3)


def is_number(text: str) -> bool:
    """Return whether ``text`` is exactly one number of the §4.2 grammar (Unicode digits).

    Examples
    --------
    >>> is_number("1e2"), is_number(".5"), is_number("5."), is_number("1_0"), is_number("nan")
    (True, True, True, False, False)
    """
    return _NUMBER_RE.fullmatch(text) is not None


def normalise_number(text: str) -> str:
    """Respell one §4.2 number exactly (no binary floats, no rounding).

    Zero of any spelling → ``0``; otherwise plain positional notation with trailing fractional
    zeros, a trailing ``.`` and a leading ``+`` removed (spec §4.2).

    Parameters
    ----------
    text : str
        A string matching :data:`NUMBER_PATTERN`.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``text`` is not a number.

    Examples
    --------
    >>> [normalise_number(s) for s in ("1.000", "-0", "1e2", ".5", "5.", "+5", "-0.0e5")]
    ['1', '0', '100', '0.5', '5', '5', '0']
    >>> normalise_number("0.123456789") == normalise_number("0.123456788")
    False
    >>> normalise_number("\\uff11\\uff10")
    '10'
    """
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not d.is_finite():
        raise ValueError(f"expected a finite number, got {text!r}")
    if d.is_zero():
        return "0"
    sign, digit_tuple, exp = d.as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    n = len(digits)
    adjusted = n - 1 + exp
    if exp > _MAX_POSITIONAL or adjusted < -_MAX_POSITIONAL:
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + "e" + str(adjusted)
    elif exp >= 0:
        body = digits + "0" * exp
    elif -exp >= n:
        body = "0." + "0" * (-exp - n) + digits
    else:
        body = digits[: n + exp] + "." + digits[n + exp :]
    return "-" + body if sign else body


def _token_stream(value: str, commands: bool) -> list[str] | None:
    """Scan a §4.3 token stream; ``None`` on failure. ``value`` is already folded."""
    tokens: list[str] = []
    pos = 0
    prev_number = False
    sep = _SEP_RE.fullmatch
    for m in _PATH_TOKEN_RE.finditer(value):
        start = m.start()
        num = m.group(1)
        if start != pos:
            if sep(value, pos, start) is None:
                return None
        elif prev_number and num is not None and num[0] not in "+-":
            return None
        if num is None:
            if not commands:
                return None
            tokens.append(m.group(2))
            prev_number = False
        else:
            tokens.append(normalise_number(num))
            prev_number = True
        pos = m.end()
    if not tokens or sep(value, pos) is None:
        return None
    return tokens


def number_tokens(value: str) -> list[str] | None:
    """Normalised numbers of a numeric token stream (``points``, ``viewBox``, lists), §4.3.

    Returns ``[]`` for an empty/blank value and ``None`` when the stream is malformed (any
    other character, or two numbers packed without a separator unless the second is signed).

    Examples
    --------
    >>> number_tokens(" 0,0  1.0 , 2e1 "), number_tokens("0-1"), number_tokens("0.5.5")
    (['0', '0', '1', '20'], ['0', '-1'], None)
    >>> number_tokens("10px"), number_tokens("")
    (None, [])
    """
    value = fold_ws(value)
    if not value:
        return []
    return _token_stream(value, commands=False)


def path_tokens(value: str) -> list[str] | None:
    """Normalised tokens of path data: numbers and single command letters (spec §4.3).

    Examples
    --------
    >>> path_tokens("M0,0L1,1") == path_tokens("M 0 0 L 1.0 1.00") == ["M", "0", "0", "L", "1", "1"]
    True
    >>> path_tokens("M0 0; L1 1"), path_tokens("M0.5.5"), path_tokens("A5 5 0 0110")
    (None, None, ['A', '5', '5', '0', '110'])
    """
    value = fold_ws(value)
    if not value:
        return []
    return _token_stream(value, commands=True)


def normalise_transform(value: str) -> str | None:
    """Normalise a ``transform`` list (spec §4.4); ``None`` when malformed.

    Examples
    --------
    >>> normalise_transform("translate(10,20)  rotate(45)")
    'translate(10 20) rotate(45)'
    >>> normalise_transform("translate(10); scale(2)"), normalise_transform("Scale(2)")
    (None, None)
    >>> normalise_transform("rotate()"), normalise_transform("")
    (None, '')
    """
    value = fold_ws(value)
    if not value:
        return ""
    items: list[str] = []
    pos = 0
    sep = _SEP_RE.fullmatch
    for m in _TRANSFORM_RE.finditer(value):
        if sep(value, pos, m.start()) is None:
            return None
        args = number_tokens(m.group(2))
        if args is None:
            return None
        name = m.group(1)
        if len(args) not in _TRANSFORM_ARITY.get(name, ()):
            return None
        items.append(f"{name}({' '.join(args)})")
        pos = m.end()
    if not items or sep(value, pos) is None:
        return None
    return " ".join(items)


def style_pieces(value: str) -> list[tuple[str, str]] | None:
    """Split a ``style`` value into (lower-cased name, raw value) pairs, §4.5 / §5.2.

    Empty pieces are skipped; a piece without ``:``, or with an empty name or value, makes the
    whole style malformed (``None``). Duplicates are kept in order.

    Examples
    --------
    >>> style_pieces("Fill: red;; stroke:blue;")
    [('fill', 'red'), ('stroke', 'blue')]
    >>> style_pieces("fill red") is None, style_pieces("fill:") is None
    (True, True)
    """
    out: list[tuple[str, str]] = []
    for chunk in value.split(";"):
        chunk = chunk.strip()
        if not chunk:
            continue
        name, colon, raw = chunk.partition(":")
        if not colon:
            return None
        name = name.strip().lower()
        raw = raw.strip()
        if not name or not raw:
            return None
        out.append((name, raw))
    return out


def normalise_style(value: str) -> str | None:
    """Normalise a ``style`` attribute at C level (spec §4.5); ``None`` when malformed.

    Declarations are sorted by name when all names are distinct; otherwise order and
    duplicates are kept. Nested values go through :func:`normalise_attribute` (an invalid nested
    value does not invalidate the style itself, §4.5 [parity]).

    Examples
    --------
    >>> normalise_style("stroke: Blue; fill: White;")
    'fill:#ffffff;stroke:#0000ff'
    >>> normalise_style("fill:red;fill:blue")
    'fill:#ff0000;fill:#0000ff'
    >>> normalise_style("fill") is None
    True
    """
    pieces = style_pieces(fold_ws(value))
    if pieces is None:
        return None
    decls = [(name, normalise_attribute(name, raw)) for name, raw in pieces]
    if len({name for name, _ in decls}) == len(decls):
        decls.sort()
    return ";".join(f"{name}:{v}" for name, v in decls)


# --------------------------------------------------------------------------------------------
# N(name, value), §4.1


def _normalise(name: str, value: str) -> str:
    value = fold_ws(value)
    if name == "style":
        out = normalise_style(value)
        return out if out is not None else INVALID_MARKER + value
    if name in COLOR_ATTRIBUTES and not value[:4].lower() == "url(":
        return normalise_color(value)
    if _NUMBER_RE.fullmatch(value):
        return normalise_number(value)
    if name == "d":
        toks = _token_stream(value, True) if value else []
        return " ".join(toks) if toks is not None else INVALID_MARKER + value
    if name == "points" or name == "viewBox":
        toks = _token_stream(value, False) if value else []
        return " ".join(toks) if toks is not None else INVALID_MARKER + value
    if name == "transform":
        out = normalise_transform(value)
        return out if out is not None else INVALID_MARKER + value
    if value:
        toks = _token_stream(value, False)
        if toks:
            return " ".join(toks)
    return value


_normalise_cached = functools.lru_cache(maxsize=1 << 16)(_normalise)


def normalise_attribute(name: str, value: str) -> str:
    """N(name, value): the canonical spelling of one attribute value (spec §4.1).

    Parameters
    ----------
    name : str
        Local attribute name (a namespace prefix ``{uri}`` is stripped if present).
    value : str
        Raw value.

    Returns
    -------
    str
        The normalised value; starts with :data:`INVALID_MARKER` when the syntax check of
        rules 1, 4, 5 or 6 failed.

    Examples
    --------
    >>> normalise_attribute("x", "10.0"), normalise_attribute("fill", "White")
    ('10', '#ffffff')
    >>> normalise_attribute("viewBox", "0,0,220,140"), normalise_attribute("stroke-dasharray", "4,2")
    ('0 0 220 140', '4 2')
    >>> normalise_attribute("width", "10px"), normalise_attribute("fill", "url(#A)")
    ('10px', 'url(#A)')
    >>> is_invalid(normalise_attribute("d", "M0 0; L1 1"))
    True
    """
    if name[:1] == "{":
        name = local_name(name)
    if len(value) <= _CACHE_MAX_LEN:
        return _normalise_cached(name, value)
    return _normalise(name, value)


def is_invalid(normalised: str) -> bool:
    """Return whether a normalised value is invalid-marked (spec §4.1, §10 rule 3)."""
    return normalised.startswith(INVALID_MARKER)


# --------------------------------------------------------------------------------------------
# C-equality (§4) and a printable canonical form


def canonical_attributes(node: Node) -> dict[str, str]:
    """The C attribute map of ``node``: expanded key → N(local name, value) (cached)."""
    c = node._c
    if c is None:
        c = {k: normalise_attribute(k, v) for k, v in node.attrib.items()}
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
    if a.tag != b.tag:
        return False
    if a.text != b.text and fold_ws(a.text) != fold_ws(b.text):
        return False
    if a.tail != b.tail and fold_ws(a.tail) != fold_ws(b.tail):
        return False
    ac, bc = a.children, b.children
    if len(ac) != len(bc):
        return False
    if a.attrib != b.attrib and canonical_attributes(a) != canonical_attributes(b):
        return False
    for x, y in zip(ac, bc, strict=True):
        if not canonical_equal(x, y):
            return False
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
