"""The SVG ``transform`` attribute: strict parsing and affine matrices (SVG 1.1 §7.6, SVG 2 §8.5).

Grammar (strict): a list of ``name(args)`` items, ``name`` one of (case-sensitive) ``matrix`` (6
numbers), ``translate`` (1 or 2), ``scale`` (1 or 2), ``rotate`` (1 or 3), ``skewX`` (1),
``skewY`` (1); optional whitespace between a name and ``(``; arguments are SVG numbers
(:mod:`vector_gym.svg.numbers`) separated by whitespace and/or one comma (a number may follow with
no separator when it starts with a sign or ``.``, as browsers read it); items are separated by
optional whitespace with at most one comma. Empty parentheses, unknown or wrongly cased names,
wrong arity, non-finite numbers and any other character are errors.

The reference's canonical transform rule (spec §4.4) is a different, string-level check and lives
in ``svg/canonical.py``.
"""

from __future__ import annotations

import math
import re

import numpy as np

from vector_gym.svg.numbers import SVG_NUMBER_PATTERN, format_number, scan_numbers

__all__ = [
    "TRANSFORM_ARITY",
    "parse_transform",
    "normalise_transform_list",
    "parse_css_transform",
    "normalise_css_transform",
    "transform_to_matrix",
    "matrix_string",
]

TRANSFORM_ARITY: dict[str, tuple[int, ...]] = {
    "matrix": (6,),
    "translate": (1, 2),
    "scale": (1, 2),
    "rotate": (1, 3),
    "skewX": (1,),
    "skewY": (1,),
}
"""Allowed argument counts per transform function (SVG 1.1 §7.6)."""

_ITEM_RE = re.compile(r"([A-Za-z]+)[ \t\r\n\f]*\(([^()]*)\)")
_SEP_RE = re.compile(r"[ \t\r\n\f]*(?:,[ \t\r\n\f]*)?")
_WSP_RE = re.compile(r"[ \t\r\n\f]*")


def parse_transform(text: str) -> list[tuple[str, tuple[float, ...]]]:
    """Parse a ``transform`` attribute value strictly.

    Parameters
    ----------
    text : str
        E.g. ``"translate(10,20) rotate(45 5 5)"``. Empty or blank text is the identity ``[]``.

    Returns
    -------
    list of (str, tuple of float)
        The items in document order, with their arguments in user units/degrees.

    Raises
    ------
    ValueError
        On any grammar, name or arity error (the message names the offending item).

    Examples
    --------
    >>> parse_transform("translate(10,20)scale(2)")
    [('translate', (10.0, 20.0)), ('scale', (2.0,))]
    >>> parse_transform("")
    []
    >>> parse_transform("Translate(1)")
    Traceback (most recent call last):
    ...
    ValueError: transform: unknown function 'Translate' in 'Translate(1)'
    """
    if not isinstance(text, str):
        raise ValueError(f"transform: expected str, got {type(text).__name__}")
    out: list[tuple[str, tuple[float, ...]]] = []
    n = len(text)
    pos = _WSP_RE.match(text, 0).end()
    while pos < n:
        m = _ITEM_RE.match(text, pos)
        if m is None:
            raise ValueError(f"transform: expected name(args) at offset {pos} in {text!r}")
        name, body = m.group(1), m.group(2)
        arity = TRANSFORM_ARITY.get(name)
        if arity is None:
            raise ValueError(f"transform: unknown function {name!r} in {text!r}")
        args = scan_numbers(body)
        if args is None:
            raise ValueError(f"transform: bad arguments {body!r} of {name} in {text!r}")
        if len(args) not in arity:
            raise ValueError(
                f"transform: {name} expects {' or '.join(map(str, arity))} numbers, got {len(args)} in {text!r}"
            )
        out.append((name, tuple(args)))
        pos = m.end()
        sep = _SEP_RE.match(text, pos)
        if sep.end() == n and "," in text[pos:n]:
            raise ValueError(f"transform: trailing comma in {text!r}")
        pos = sep.end()
    return out


def _item_matrix(name: str, a: tuple[float, ...]) -> np.ndarray:
    m = np.eye(3)
    if name == "matrix":
        m[0, 0], m[1, 0], m[0, 1], m[1, 1], m[0, 2], m[1, 2] = a
    elif name == "translate":
        m[0, 2] = a[0]
        m[1, 2] = a[1] if len(a) > 1 else 0.0
    elif name == "scale":
        m[0, 0] = a[0]
        m[1, 1] = a[1] if len(a) > 1 else a[0]
    elif name == "rotate":
        r = math.radians(a[0])
        c, s = math.cos(r), math.sin(r)
        cx, cy = (a[1], a[2]) if len(a) == 3 else (0.0, 0.0)
        # translate(cx, cy) rotate(a) translate(-cx, -cy)
        m[0, 0], m[0, 1], m[1, 0], m[1, 1] = c, -s, s, c
        m[0, 2] = cx - c * cx + s * cy
        m[1, 2] = cy - s * cx - c * cy
    elif name == "skewX":
        m[0, 1] = math.tan(math.radians(a[0]))
    elif name == "skewY":
        m[1, 0] = math.tan(math.radians(a[0]))
    else:
        raise ValueError(f"transform: unknown function {name!r}")
    return m


def transform_to_matrix(items: str | list[tuple[str, tuple[float, ...]]]) -> np.ndarray:
    """Compose a transform list into one affine matrix (SVG semantics).

    ``transform="A B"`` maps a point p to ``A·B·p``: the rightmost item applies first.

    Parameters
    ----------
    items : str or list of (str, tuple of float)
        A ``transform`` value (parsed with :func:`parse_transform`) or its parsed items.

    Returns
    -------
    numpy.ndarray, shape (3, 3), float64
        ``[[a, c, e], [b, d, f], [0, 0, 1]]`` acting on column vectors ``(x, y, 1)`` in user units.

    Raises
    ------
    ValueError
        If a string does not parse.

    Examples
    --------
    >>> transform_to_matrix("translate(10 20) scale(2)") @ [1, 1, 1]
    array([12., 22.,  1.])
    >>> transform_to_matrix("").tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    if isinstance(items, str):
        items = parse_transform(items)
    m = np.eye(3)
    for name, args in items:
        m = m @ _item_matrix(name, tuple(args))
    return m


def normalise_transform_list(text: str) -> str | None:
    """Canonical spelling of a ``transform`` list (default mode), or ``None`` when malformed.

    Parsed with :func:`parse_transform`; each item is written ``name(a b …)`` with
    :func:`vector_gym.svg.numbers.format_number` arguments, and the implied arguments are
    written out (``translate(tx)`` = ``translate(tx 0)``, ``scale(s)`` = ``scale(s s)``,
    ``rotate(a 0 0)`` = ``rotate(a)``: SVG 1.1 §7.6), so spellings of the same list compare equal.
    The list itself is kept (``translate(1) translate(1)`` ≠ ``translate(2)``).

    Examples
    --------
    >>> normalise_transform_list("translate(1e1)scale(.5)"), normalise_transform_list("rotate(45,0,0)")
    ('translate(10 0) scale(0.5 0.5)', 'rotate(45)')
    >>> normalise_transform_list("Scale(2)") is None
    True
    """
    try:
        items = parse_transform(text)
    except ValueError:
        return None
    return _format_items(items)


def _format_items(items: list[tuple[str, tuple[float, ...]]]) -> str:
    out = []
    for name, args in items:
        if name == "translate" and len(args) == 1:
            args = (args[0], 0.0)
        elif name == "scale" and len(args) == 1:
            args = (args[0], args[0])
        elif name == "rotate" and len(args) == 3 and args[1] == 0.0 and args[2] == 0.0:
            args = args[:1]
        out.append(name + "(" + " ".join(map(format_number, args)) + ")")
    return " ".join(out)


def matrix_string(m: np.ndarray) -> str:
    """Write a (3, 3) or (2, 3) affine matrix as ``matrix(a b c d e f)``.

    Numbers use Python's shortest round-trip spelling (``1e-07``, ``100``), ``-0`` → ``0``.

    Examples
    --------
    >>> matrix_string(transform_to_matrix("translate(10,20)"))
    'matrix(1 0 0 1 10 20)'
    """
    a = np.asarray(m, dtype=float)
    vals = (a[0, 0], a[1, 0], a[0, 1], a[1, 1], a[0, 2], a[1, 2])
    return "matrix(" + " ".join(format_number(v) for v in vals) + ")"


_CSS_ITEM_RE = re.compile(r"[ \t\r\n\f]*([A-Za-z]+)\(([^()]*)\)[ \t\r\n\f]*")
_CSS_ARG_RE = re.compile("[ \t\r\n\f]*(" + SVG_NUMBER_PATTERN + r")([A-Za-z]*)[ \t\r\n\f]*")
_ANGLE_TO_DEG = {"deg": 1.0, "grad": 0.9, "turn": 360.0}
# CSS name (lower case) -> (SVG name, argument kind, allowed counts)
_CSS_FUNCTIONS = {
    "matrix": ("matrix", "n", (6,)),
    "translate": ("translate", "l", (1, 2)),
    "translatex": ("translate", "l", (1,)),
    "translatey": ("translate", "l", (1,)),
    "scale": ("scale", "n", (1, 2)),
    "scalex": ("scale", "n", (1,)),
    "scaley": ("scale", "n", (1,)),
    "rotate": ("rotate", "a", (1,)),
    "skew": ("skewX", "a", (1, 2)),
    "skewx": ("skewX", "a", (1,)),
    "skewy": ("skewY", "a", (1,)),
}


def _css_arg(text: str, kind: str) -> float | None:
    m = _CSS_ARG_RE.fullmatch(text)
    if m is None:
        return None
    value, unit = float(m.group(1)), m.group(2).lower()
    if not math.isfinite(value):
        return None
    if kind == "n":
        return value if not unit else None
    if not unit:  # CSS Values 4: only a zero length or angle may omit its unit
        return 0.0 if value == 0.0 else None
    if kind == "l":
        return value if unit == "px" else None  # other units are not user units
    factor = 180.0 / math.pi if unit == "rad" else _ANGLE_TO_DEG.get(unit)
    if factor is None:
        return None
    degrees = value * factor
    return degrees if math.isfinite(degrees) else None


def parse_css_transform(text: str) -> list[tuple[str, tuple[float, ...]]] | None:
    """Read the CSS ``transform`` property (in ``style``) as SVG transform items, or ``None``.

    CSS Transforms 1 §9 grammar, which differs from the attribute's (SVG 2 §8.5): function names
    are ASCII case-insensitive, arguments are separated by commas, lengths need ``px`` (only
    ``0`` may omit the unit) and angles need ``deg``, ``grad``, ``rad`` or ``turn``. ``none`` is
    the identity. ``translateX``/``translateY``/``scaleX``/``scaleY``/``skew`` map to the SVG
    items they equal. ``None`` for anything a browser would drop, and for what has no
    user-unit equivalent (``%``, ``em``, ``mm`` lengths; ``skew(a, b)`` with ``b`` ≠ 0; 3-D
    functions).

    Examples
    --------
    >>> parse_css_transform("rotate(0.25turn) translateX(10px)")
    [('rotate', (90.0,)), ('translate', (10.0, 0.0))]
    >>> parse_css_transform("rotate(45)") is None, parse_css_transform("translate(1em)") is None
    (True, True)
    >>> parse_css_transform(" None ")
    []
    """
    if not isinstance(text, str):
        return None
    if text.strip(" \t\r\n\f").lower() == "none":
        return []
    out: list[tuple[str, tuple[float, ...]]] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _CSS_ITEM_RE.match(text, pos)
        if m is None:
            return None
        spec = _CSS_FUNCTIONS.get(m.group(1).lower())
        if spec is None:
            return None
        name, kind, counts = spec
        pieces = m.group(2).split(",")
        if len(pieces) not in counts:
            return None
        args = [_css_arg(p, kind) for p in pieces]
        if any(a is None for a in args):
            return None
        low = m.group(1).lower()
        if low == "translatex":
            args = [args[0], 0.0]
        elif low == "translatey":
            args = [0.0, args[0]]
        elif low == "scalex":
            args = [args[0], 1.0]
        elif low == "scaley":
            args = [1.0, args[0]]
        elif low == "skew" and len(args) == 2:
            if args[1] != 0.0:
                return None
            args = args[:1]
        out.append((name, tuple(args)))
        pos = m.end()
    return out if out else None


def normalise_css_transform(text: str) -> str | None:
    """:func:`normalise_transform_list` spelling of a CSS ``transform`` value, or ``None``.

    So ``style="transform: rotate(45deg)"`` and ``transform="rotate(45)"`` spell the same list.

    Examples
    --------
    >>> normalise_css_transform("scale(2) rotate(90deg)") == normalise_transform_list("scale(2) rotate(90)")
    True
    """
    items = parse_css_transform(text)
    return None if items is None else _format_items(items)
