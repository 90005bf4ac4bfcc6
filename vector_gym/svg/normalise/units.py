"""Lengths and numbers (contract item 9): units and percentages to user units, clamped fractions."""

from __future__ import annotations

import math
import re

from vector_gym.svg.numbers import parse_length

_UNITS = {
    "": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0,
    "q": 96 / 101.6,
}




def _length(v: str | None, ref: float, font_size: float = 16.0) -> float | None:
    """A length in user units; ``ref`` is what 100 % means. ``None`` when not a length.

    Read with :func:`vector_gym.svg.numbers.parse_length` (SVG 2 / CSS Values 4); the units
    the normaliser cannot resolve here (``ch``, ``vw``, ``vh``, ``vmin``, ``vmax``) count as
    not a length.
    """
    if v is None:
        return None
    parsed = parse_length(v.strip(" \t\r\n\f"))
    if parsed is None:
        return None
    x, unit = parsed
    if unit == "%":
        y = x * ref / 100.0
        # x * ref overflows for a viewport near the largest float although the result fits
        x = y if math.isfinite(y) else x / 100.0 * ref
    elif unit == "em":
        x *= font_size
    elif unit == "ex":
        x *= font_size / 2
    elif unit == "rem":
        x *= 16.0
    elif unit in _UNITS:
        x *= _UNITS[unit]
    else:
        return None
    return x if math.isfinite(x) else None


def viewport_diagonal(vw: float, vh: float) -> float:
    """The normalised diagonal ``sqrt((vw² + vh²) / 2)`` that other percentages resolve against.

    SVG 2 §8.9 (Units). Computed as written (so every ordinary viewport gets the same float as
    before); for a viewport near the largest float, whose squares overflow (``**`` raises
    ``OverflowError``) although the diagonal is finite, scaled by the larger side first.
    """
    try:
        d = math.sqrt((vw**2 + vh**2) / 2)
    except OverflowError:
        d = math.inf
    if math.isfinite(d):
        return d
    s = max(abs(vw), abs(vh))
    if not math.isfinite(s) or s == 0:
        return d
    return s * math.sqrt(((vw / s) ** 2 + (vh / s) ** 2) / 2)


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


_PLAIN_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?")

_LEADING_NUMBER_RE = re.compile(r"[ \t\r\n\f]*[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?")
