"""Names shared by the normaliser modules: namespaces, ``url()`` and ``href`` readers, the id map, number formatting and 2-D affine matrices."""

from __future__ import annotations

import logging
import math
import re

from vector_gym.svg.references import effective_href, local_href

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


_log = logging.getLogger(__name__)


def _href(el) -> str | None:
    """The element's link: plain ``href`` wins over ``xlink:href`` (SVG 2 §5.7)."""
    return effective_href(el.attrib)


def _id_map(root) -> dict:
    ids: dict = {}
    for el in root.iter():
        if isinstance(el.tag, str):
            i = el.get("id")
            if i is not None and i not in ids:
                ids[i] = el
    return ids


def _ref_id(value: str | None) -> str | None:
    """The id of a local reference ``#X`` (:func:`vector_gym.svg.references.local_href`)."""
    return (local_href(value) or None) if value else None


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


def _fmt(x: float) -> str:
    if not math.isfinite(x):  # callers filter these; never write inf or nan into a document
        return "0"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    s = format(x, ".10g")
    return s


def _matrix_str(m: Matrix) -> str:
    return "matrix(" + " ".join(_fmt(v) for v in m) + ")"
