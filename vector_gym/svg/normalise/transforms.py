"""Transform lists (contract item 7): one ``matrix()``, keeping the transforms before a syntax error."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from vector_gym.svg.normalise.common import IDENTITY, Matrix, _mul
from vector_gym.svg.normalise.paths import _N, _SEP, _W
from vector_gym.svg.numbers import SVG_NUMBER_RE
from vector_gym.svg.transform import TRANSFORM_ARITY, parse_transform

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


# CSS Transforms 1 §7 (the ``transform`` property, as in a ``style`` attribute or sheet): function
# names are case-insensitive, arguments are comma-separated, lengths carry units (``px``...; a
# bare number is accepted, as in SVG presentation attributes), angles carry ``deg``, ``rad``,
# ``grad`` or ``turn`` (a bare ``0`` is accepted).
_CSS_TF_RE = re.compile(r"[ \t\r\n\f]*([A-Za-z]+)\(([^()]*)\)")
_CSS_ARG_RE = re.compile(
    r"[ \t\r\n\f]*(" + _N + r")(px|deg|rad|grad|turn|%)?[ \t\r\n\f]*$", re.I
)
_ANGLE = {"deg": 1.0, "rad": 180 / math.pi, "grad": 0.9, "turn": 360.0}
_CSS_ARITY = {
    "matrix": (6, 6, ""),
    "translate": (1, 2, "px"),
    "translatex": (1, 1, "px"),
    "translatey": (1, 1, "px"),
    "scale": (1, 2, ""),
    "scalex": (1, 1, ""),
    "scaley": (1, 1, ""),
    "rotate": (1, 1, "deg"),
    "skew": (1, 2, "deg"),
    "skewx": (1, 1, "deg"),
    "skewy": (1, 1, "deg"),
}


def _css_args(text: str, kind: str) -> list[float] | None:
    out = []
    for part in text.split(","):
        m = _CSS_ARG_RE.match(part)
        if m is None:
            return None
        x = float(m.group(1))
        unit = (m.group(2) or "").lower()
        if kind == "deg":
            if unit in _ANGLE:
                x *= _ANGLE[unit]
            elif unit or x != 0:
                return None
        elif kind == "px":
            if unit not in ("", "px"):
                return None
        elif unit:
            return None
        if not math.isfinite(x):
            return None
        out.append(x)
    return out


@lru_cache(maxsize=1024)
def css_transform(text: str) -> Matrix | None:
    """Read a CSS ``transform`` property value (CSS Transforms 1 §7) into one affine matrix.

    Parameters
    ----------
    text : str
        E.g. ``"translate(10px, 5px) rotate(90deg)"``; ``"none"`` is the identity.

    Returns
    -------
    tuple of 6 float or None
        ``(a, b, c, d, e, f)``; ``None`` when the value is invalid (CSS then ignores the
        declaration: the element keeps its ``transform`` attribute). Percentages (relative to
        the reference box) and 3-D functions are treated as invalid.

    Examples
    --------
    >>> css_transform("translate(10px, 5px) scale(2)")
    (2.0, 0.0, 0.0, 2.0, 10.0, 5.0)
    >>> css_transform("rotate(45)") is None  # an angle needs its unit
    True
    """
    v = text.strip()
    if v.lower() == "none":
        return IDENTITY
    m = IDENTITY
    pos = 0
    while pos < len(v):
        t = _CSS_TF_RE.match(v, pos)
        if t is None:
            return None if v[pos:].strip() else m
        name = t.group(1).lower()
        spec = _CSS_ARITY.get(name)
        if spec is None:
            return None
        args = _css_args(t.group(2), spec[2])
        if args is None or not (spec[0] <= len(args) <= spec[1]):
            return None
        if name == "translatex":
            n = (1.0, 0.0, 0.0, 1.0, args[0], 0.0)
        elif name == "translatey":
            n = (1.0, 0.0, 0.0, 1.0, 0.0, args[0])
        elif name == "scalex":
            n = (args[0], 0.0, 0.0, 1.0, 0.0, 0.0)
        elif name == "scaley":
            n = (1.0, 0.0, 0.0, args[0], 0.0, 0.0)
        elif name == "skew":
            ay = args[1] if len(args) > 1 else 0.0
            n = (1.0, math.tan(math.radians(ay)), math.tan(math.radians(args[0])), 1.0, 0.0, 0.0)
        elif name == "skewx":
            n = _tf_matrix("skewX", args)
        elif name == "skewy":
            n = _tf_matrix("skewY", args)
        else:
            n = _tf_matrix(name, args)
        m = _mul(m, n)
        if not all(math.isfinite(x) for x in m):
            return None
        pos = t.end()
    return m


_ORIGIN_X = {"left": 0.0, "center": 50.0, "right": 100.0}
_ORIGIN_Y = {"top": 0.0, "center": 50.0, "bottom": 100.0}


def transform_origin(text: str, vw: float, vh: float, font_size: float = 16.0):
    """Read ``transform-origin`` (CSS Transforms 1 §6; attribute or property) as a user-space point.

    For SVG elements the reference box is the nearest viewport (``transform-box: view-box``, the
    initial value), so percentages and keywords resolve against its width ``vw`` and height
    ``vh``. Only the first two values count (a third, the z offset, is 2-D-irrelevant).

    Returns
    -------
    (float, float) or None
        ``None`` when the value is invalid (the origin stays ``0 0``).

    Examples
    --------
    >>> transform_origin("center", 100, 50), transform_origin("10px bottom", 100, 50)
    ((50.0, 25.0), (10.0, 50.0))
    """
    from vector_gym.svg.normalise.units import _length

    parts = text.split()
    if not parts or len(parts) > 3:
        return None
    low = [p.lower() for p in parts[:2]]
    if len(low) == 2 and (low[0] in ("top", "bottom") or low[1] in ("left", "right")):
        low.reverse()  # "top left" means x = left, y = top
    if len(low) == 1:
        if low[0] in ("top", "bottom"):
            low = ["center", low[0]]
        else:
            low.append("center")
    out = []
    for token, keys, ref in ((low[0], _ORIGIN_X, vw), (low[1], _ORIGIN_Y, vh)):
        if token in keys:
            out.append(keys[token] * ref / 100.0)
            continue
        x = _length(token, ref, font_size)
        if x is None:
            return None
        out.append(x)
    return (out[0], out[1])


@lru_cache(maxsize=4096)
def read_transform(text: str) -> Matrix:
    """Read a ``transform`` attribute as browsers do: the whole list, or nothing when invalid.

    The grammar is :func:`vector_gym.svg.transform.parse_transform` (SVG 2 §8.5). A list with
    a syntax error is ignored entirely (CSS Transforms 1 §7; Chromium and resvg draw the
    element untransformed), unlike :func:`parse_transform_lenient`, which keeps the prefix.

    Examples
    --------
    >>> read_transform("translate(10 5) scale(2)"), read_transform("translate(1,2) foo(3)")
    ((2.0, 0.0, 0.0, 2.0, 10.0, 5.0), (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))
    """
    try:
        items = parse_transform(text)
    except ValueError:
        return IDENTITY
    m = IDENTITY
    for name, args in items:
        m = _mul(m, _tf_matrix(name, list(args)))
    return m if all(math.isfinite(v) for v in m) else IDENTITY
