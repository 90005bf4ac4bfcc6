"""Transform lists (contract item 7): one ``matrix()``, keeping the transforms before a syntax error."""

from __future__ import annotations

import math
import re

from functools import lru_cache

from vector_gym.svg.normalise.common import IDENTITY, Matrix, _mul
from vector_gym.svg.normalise.paths import _N, _SEP, _W
from vector_gym.svg.numbers import SVG_NUMBER_RE
from vector_gym.svg.transform import TRANSFORM_ARITY


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
