"""Locating a requested part and reading its produced value (spec-reward.md §6, §7).

Private helper of :mod:`vector_gym.rewards.spec`.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from vector_gym.svg.canonical import Node, fold_ascii_ws
from vector_gym.svg.numbers import is_svg_number, parse_length, scan_numbers
from vector_gym.svg.parse import fold_ws
from vector_gym.svg.style import style_declarations
from vector_gym.svg.transform import parse_transform

ROOT_PART = "__svg"
"""The part id that always denotes the document root (spec §1)."""

# §7 step 5/6 number: no spaces, no exponent.
_SIMPLE_NUMBER = r"[-+]?[0-9]*\.?[0-9]+"
_TRANSLATE_RE = re.compile(rf"translate\(\s*({_SIMPLE_NUMBER})(?:[\s,]+({_SIMPLE_NUMBER}))?\s*\)")
_SIZE_RE = re.compile(rf"scale\(({_SIMPLE_NUMBER})\)")
_LIST_SPLIT_RE = re.compile(r"[\s,]+")


class IdIndex:
    """First-match ``id`` lookup over a (possibly masked) tree (spec §6 ``by_id``).

    Holds every node per id in document order; a lookup returns the first one that is still
    attached to ``root`` and still carries the id, so masking removals are honoured.

    ``pristine`` (True on construction) promises that the tree has not been changed since the
    index was built, so the first node of each id is the answer; code that removes nodes or
    changes ids under an index (masking, :func:`vector_gym.rewards._spec_mask.mask_produced`)
    sets it to False first.
    """

    __slots__ = ("root", "_by_id", "pristine")

    def __init__(self, root: Node, by_id: dict[str, list[Node]] | None = None) -> None:
        self.root = root
        self.pristine = True
        if by_id is not None:
            self._by_id = by_id
            return
        by_id = {}
        for node in root.iter():
            i = node.attrib.get("id")
            if i is not None:
                lst = by_id.get(i)
                if lst is None:
                    by_id[i] = [node]
                else:
                    lst.append(node)
        self._by_id = by_id

    def find(self, part: str) -> Node | None:
        """``by_id(root, part)``: ``__svg`` → root, else the first attached node with that id."""
        if part == ROOT_PART:
            return self.root
        lst = self._by_id.get(part)
        if not lst:
            return None
        if self.pristine:
            return lst[0]
        root = self.root
        for node in lst:
            if node.attrib.get("id") != part:
                continue
            top = node
            while top.parent is not None:
                top = top.parent
            if top is root:  # masking detaches removed subtrees (parent = None)
                return node
        return None

    def first_by_id(self) -> Any:
        """``get`` of id -> nodes in document order, for a caller's own loop of :meth:`find`.

        Only valid while :attr:`pristine` (then ``find(part)`` is the first node of that list,
        for any part other than ``__svg``).
        """
        if not self.pristine:
            raise RuntimeError("first_by_id needs a pristine index (the tree has changed)")
        return self._by_id.get

    def duplicates(self) -> bool:
        """Whether any id occurs more than once."""
        return any(len(v) > 1 for v in self._by_id.values())


def child_path(node: Node) -> list[int]:
    """Child-index path from the root down to ``node``."""
    path: list[int] = []
    while node.parent is not None:
        siblings = node.parent.children
        for k, c in enumerate(siblings):
            if c is node:
                path.append(k)
                break
        node = node.parent
    path.reverse()
    return path


def corresponding(
    p_index: IdIndex | None, t_index: IdIndex | None, part: str, *, strict: bool = True
) -> Node | None:
    """``corresponding(P, T, part)``: by id, else the same child-index path (spec §6).

    The positional fallback requires equal child counts at every step and equal expanded tags
    of the stepped-to children; any failure, or a part the target lacks, gives ``None``.

    ``strict`` (our default mode; parity mode passes False for the reference's §6 as written):
    the positional candidate is also rejected when its own ``id`` names *another* element of
    the target. Such a node is that other element (a sibling shifted into the index by a
    deletion plus an insertion under one parent), not a renamed copy of ``part``; taking it
    made masking remove an untouched element, so the unchanged source was flagged with
    ``unintended_document_changes`` (RepairGen ``rg-train-s0-0000043``).
    """
    if p_index is None:
        return None
    direct = p_index.find(part)
    if direct is not None or t_index is None:
        return direct
    t_node = t_index.find(part)
    if t_node is None:
        return None
    cur_p, cur_t = p_index.root, t_index.root
    if cur_p.tag != cur_t.tag and t_node is cur_t:
        return None
    for k in child_path(t_node):
        pc, tc = cur_p.children, cur_t.children
        if len(pc) != len(tc):
            return None
        cur_p, cur_t = pc[k], tc[k]
        if cur_p.tag != cur_t.tag:
            return None
    if strict:
        own = cur_p.attrib.get("id")
        if own and own != part and t_index.find(own) is not None:
            return None
    return cur_p


def to_float(value: Any, parity: bool) -> float | None:
    """Convert a produced value to a float, or ``None`` (spec §7 scalar reading, §8.6).

    Parity mode is Python ``float()`` (``nan``, ``inf``, ``1_0``, Unicode digits and surrounding
    whitespace accepted, spec §7 [bug]). Default mode accepts ints, finite floats and strings
    that are one §4.2 number (surrounding whitespace allowed); ``nan``, ``inf``, ``1_0`` and
    ``True`` are not numbers, so such outputs fail their check without progress (§16 item 7).
    """
    if parity:
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip(" \t\r\n\f")
        if is_svg_number(text):
            v = float(text)
            return v if math.isfinite(v) else None
    return None


def scalar_reading(text: str, parity: bool) -> Any:
    """Fold whitespace, then the number if it converts (integral → int), else the text (§7)."""
    if parity:
        folded = fold_ws(text)
        try:
            number = float(folded)
        except ValueError:
            return folded
    else:
        folded = fold_ascii_ws(text)
        length = parse_length(folded)
        if length is None or length[1]:  # not a number, or a length in other units than px
            return folded
        number = length[0]
    if number.is_integer():
        return int(number)
    return number


def style_first(style: str | None, key: str) -> str | None:
    """The first declaration named exactly ``key`` (case-sensitive, trimmed), §7 step 9.

    Also the target-side lookup of masking (§9), which uses the same first-match rule.
    """
    if not style or ":" not in style:
        return None
    for chunk in style.split(";"):
        name, colon, value = chunk.partition(":")
        if colon and name.strip() == key:
            return value.strip()
    return None


@functools.lru_cache(maxsize=1024)
def camel(key: str) -> str:
    """``stroke-width`` → ``strokeWidth`` (spec §7 step 11); memoised (attribute names)."""
    parts = key.split("-")
    return "".join([parts[0], *(p.title() for p in parts[1:])])


def _floats(pieces: list[str], parity: bool) -> list[float] | None:
    out: list[float] = []
    for piece in pieces:
        v = to_float(piece, parity)
        if v is None:
            return None
        out.append(v)
    return out


def _first_item(transform: str | None, name: str) -> tuple[float, ...] | None:
    """Arguments of the first ``name(...)`` item of a transform list (default mode), else None."""
    if not transform:
        return None
    try:
        items = parse_transform(transform)
    except ValueError:
        return None
    for item, args in items:
        if item == name:
            return args
    return None


def _read_value_svg2(node: Node, attr: str) -> Any:
    """Default mode §7: the same lookup order, read with the SVG 2 / CSS grammars of svg/."""
    attrib = node.attrib
    if attr == "viewBox":
        raw = attrib.get("viewBox")
        return None if raw is None else scan_numbers(raw)
    if attr == "size":
        args = _first_item(attrib.get("transform"), "scale")
        return round(24 * args[0], 4) if args else None
    if (attr == "x" or attr == "y") and attr not in attrib:
        args = _first_item(attrib.get("transform"), "translate")
        if args is not None:
            v = args[0] if attr == "x" else (args[1] if len(args) > 1 else 0.0)
            return int(v) if v.is_integer() else v
    if attr == "points":
        raw = attrib.get("points")
        if raw is None:
            return None
        nums = scan_numbers(raw)
        if nums is None:
            return None
        return [nums[i : i + 2] for i in range(0, len(nums), 2)]
    style = attrib.get("style")
    if style:
        decls = style_declarations(style)
        v = decls.get(attr) if decls else None
        if v is not None:
            return v if attr == "color" else scalar_reading(v, False)
    return _attribute_reading(attrib, attr, False)


def _attribute_reading(attrib: dict[str, str], attr: str, parity: bool) -> Any:
    """§7 steps 10–11: the attribute itself, else its camelCase spelling; None if neither."""
    raw = attrib.get(attr)
    if raw is None:
        raw = attrib.get(camel(attr))
    return None if raw is None else scalar_reading(raw, parity)


def read_value(node: Node | None, attr: str, parity: bool) -> Any:
    """Read the produced value of a requested field from an element (spec §7 steps 3–12).

    Parameters
    ----------
    node : Node or None
        The element found in step 1 (``None`` → missing).
    attr : str
        The requested attribute (not ``exists``).
    parity : bool
        The reference's readings (parity: Python ``float()``, first ``style`` match, §7's
        ``translate(``/``scale(`` regexes) or default mode's SVG 2 / CSS grammars (numbers,
        lengths in user units, number lists, transform lists, CSS declaration cascade).

    Returns
    -------
    int, float, str, list or None
        ``None`` = missing.
    """
    if node is None:
        return None
    if not parity:
        return _read_value_svg2(node, attr)
    attrib = node.attrib
    if attr == "viewBox":
        raw = attrib.get("viewBox")
        if raw is None:
            return None
        return _floats([x for x in _LIST_SPLIT_RE.split(raw.strip()) if x], parity)
    if attr == "size":
        m = _SIZE_RE.search(attrib.get("transform") or "")
        return round(24 * float(m.group(1)), 4) if m else None
    if (attr == "x" or attr == "y") and attr not in attrib:
        m = _TRANSLATE_RE.search(attrib.get("transform") or "")
        if m is not None:
            if attr == "x":
                v = float(m.group(1))
            else:
                v = float(m.group(2)) if m.group(2) is not None else 0.0
            return int(v) if v.is_integer() else v
    if attr == "points":
        raw = attrib.get("points")
        if raw is None:
            return None
        points: list[list[float]] = []
        for piece in raw.split():
            coords = _floats([x for x in piece.split(",") if x], parity)
            if coords is None:
                return None
            if coords:
                points.append(coords)
        return points
    style = attrib.get("style")
    if attr == "color" and style:
        v = style_first(style, "color")
        if v is not None:
            return v
    if style:
        v = style_first(style, attr)
        if v is not None:
            return scalar_reading(v, parity)
    return _attribute_reading(attrib, attr, parity)
