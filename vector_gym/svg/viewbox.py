"""The ``viewBox`` grammar and the reference's viewport size (spec §8.3, §10).

:func:`parse_viewbox` is the strict SVG reading of a ``viewBox`` value. :func:`viewport_size` is
exactly the reference's (W, H), which sets the caps of every distance tolerance (spec §8.2):
a lenient scan of the root's ``viewBox``, else Python ``float()`` of ``width``/``height``, with
the fallbacks of spec §8.3.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from vector_gym.svg.numbers import REFERENCE_NUMBER_PATTERN, scan_numbers

__all__ = ["parse_viewbox", "viewport_size", "scan_viewbox_reference"]

# §4.2 grammar as the reference's regex writes it: ``\d`` is any Unicode decimal digit (§15).
_REF_NUMBER_RE = re.compile(REFERENCE_NUMBER_PATTERN)
_REF_SEPARATORS = re.compile(r"[\s,]*")


def parse_viewbox(text: str, *, require_positive: bool = True) -> tuple[float, float, float, float] | None:
    """Read a ``viewBox`` value strictly: four SVG numbers (spec §10 rule 3).

    Parameters
    ----------
    text : str
        The attribute value, e.g. ``"0 0 220 140"`` or ``"0,0,220,140"``.
    require_positive : bool, default True
        Also require width > 0 and height > 0 (the validity rule of spec §10).

    Returns
    -------
    tuple of 4 float or None
        ``(min_x, min_y, width, height)`` in user units, or ``None`` when the value is not four
        numbers (see :func:`vector_gym.svg.numbers.scan_numbers`) or fails ``require_positive``.

    Examples
    --------
    >>> parse_viewbox("0,0,220,140")
    (0.0, 0.0, 220.0, 140.0)
    >>> parse_viewbox("0 0 0 10") is None, parse_viewbox("0 0 10") is None, parse_viewbox("") is None
    (True, True, True)
    """
    if not isinstance(text, str):
        return None
    if len(text) <= _CACHED_CHARS:  # the same few values are read again and again
        return _parse_viewbox_cached(str(text), require_positive)
    return _parse_viewbox(text, require_positive)


_CACHED_CHARS = 80


def _parse_viewbox(text: str, require_positive: bool) -> tuple[float, float, float, float] | None:
    nums = scan_numbers(text)
    if nums is None or len(nums) != 4:
        return None
    if require_positive and not (nums[2] > 0 and nums[3] > 0):
        return None
    return (nums[0], nums[1], nums[2], nums[3])


_parse_viewbox_cached = lru_cache(maxsize=1024)(_parse_viewbox)


def scan_viewbox_reference(text: str) -> list[float] | None:
    r"""Scan numbers the lenient reference way of spec §8.3 step 1.

    Numbers are found left to right with the §4.2 grammar; adjacent numbers need no separator,
    so ``"0 0 2.5.5"`` reads 0, 0, 2.5, .5 (four numbers: spec §8.3's prose says "five", but its
    own grammar, and the reference's regex ``[-+]?(?:\d*\.\d+|\d+\.?)(?:[eE][-+]?\d+)?``,
    give four). Everything between the numbers must be whitespace or commas.

    Returns
    -------
    list of float or None
        ``None`` if any other character is present.

    Examples
    --------
    >>> scan_viewbox_reference("0 0 2.5.5")
    [0.0, 0.0, 2.5, 0.5]
    >>> scan_viewbox_reference("0 0 1 1px") is None
    True
    """
    out: list[float] = []
    pos = 0
    for m in _REF_NUMBER_RE.finditer(text):
        if _REF_SEPARATORS.fullmatch(text, pos, m.start()) is None:
            return None
        out.append(float(m.group()))
        pos = m.end()
    if _REF_SEPARATORS.fullmatch(text, pos) is None:
        return None
    return out


def viewport_size(root: Any) -> tuple[float, float]:
    """Return the reference's viewport (W, H) of a (target) root element (spec §8.3).

    1. A non-empty root ``viewBox`` whose lenient scan (:func:`scan_viewbox_reference`) gives
       exactly four numbers with the third and fourth > 0 → (third, fourth).
    2. Else ``width`` and ``height`` via Python ``float()`` (absent = 100; accepts whitespace,
       exponents, ``inf``/``nan``, underscores); if either conversion fails → (100, 100).
    3. Then (max(W, 1), max(H, 1)) with Python ``max`` (so a NaN stays NaN).

    Parameters
    ----------
    root : lxml or ElementTree element, or None
        The target document's root; ``None`` gives (100, 100). Only un-namespaced ``viewBox``,
        ``width`` and ``height`` attributes are read.

    Returns
    -------
    tuple of 2 float
        (W, H) in user units.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> viewport_size(parse_svg('<svg viewBox="0 0 0 10" width="50" height="20"/>'))
    (50.0, 20.0)
    >>> viewport_size(parse_svg('<svg width="300px" height="50"/>'))
    (100.0, 100.0)
    >>> viewport_size(None)
    (100.0, 100.0)
    """
    if root is None:
        return (100.0, 100.0)
    get = root.attrib.get
    vb = get("viewBox")
    if vb:
        nums = scan_viewbox_reference(vb)
        if nums is not None and len(nums) == 4 and nums[2] > 0 and nums[3] > 0:
            return (nums[2], nums[3])
    try:
        w = float(get("width", 100))
        h = float(get("height", 100))
    except (ValueError, TypeError):
        return (100.0, 100.0)
    return (float(max(w, 1)), float(max(h, 1)))
