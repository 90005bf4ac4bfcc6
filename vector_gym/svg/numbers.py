"""The SVG number grammar, strict (ours) and as the reference reads numbers (spec §4.2, §7).

SVG 1.1/2 ``number``: ``[+-]? (digits? "." digits | digits "."?) ([eE] [+-]? digits)?`` with ASCII
digits only. No units, no ``NaN``/``Infinity``, no digit-group underscores, no hex. This is the
grammar our RL-mode checks use. The reference evaluator instead converts many values with Python
``float()``, which also accepts ``nan``, ``inf``, ``infinity`` (any case, signed), underscores
between digits (``1_0`` = 10), surrounding Unicode whitespace and non-ASCII decimal digits; that
reading is exposed as :func:`python_float_reference` for parity code only (spec §7, §15, §16 item 7).
"""

from __future__ import annotations

import math
import re

__all__ = [
    "SVG_NUMBER_RE",
    "SVG_NUMBER_PATTERN",
    "parse_svg_number",
    "is_svg_number",
    "scan_numbers",
    "python_float_reference",
]

SVG_NUMBER_PATTERN = r"[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?"
"""Regular-expression source of one SVG number (ASCII digits only)."""

SVG_NUMBER_RE = re.compile(SVG_NUMBER_PATTERN)
"""Compiled :data:`SVG_NUMBER_PATTERN`; use ``fullmatch`` for a whole-string test."""

# One number, then an optional separator: a run of whitespace with at most one comma.
_LIST_ITEM_RE = re.compile(r"(" + SVG_NUMBER_PATTERN + r")(?:[ \t\r\n\f]*,[ \t\r\n\f]*|[ \t\r\n\f]+)?")
_WSP = " \t\r\n\f"


def parse_svg_number(text: str) -> float:
    """Convert one SVG number to a finite float, strictly.

    Parameters
    ----------
    text : str
        The whole text must be one number; no surrounding whitespace, units or keywords.

    Returns
    -------
    float
        The value (IEEE double, correctly rounded).

    Raises
    ------
    ValueError
        If ``text`` is not a number in the SVG grammar, or its value overflows to infinity.

    Examples
    --------
    >>> parse_svg_number("-.5e1"), parse_svg_number("5."), parse_svg_number("+0")
    (-5.0, 5.0, 0.0)
    >>> parse_svg_number("nan")
    Traceback (most recent call last):
    ...
    ValueError: expected an SVG number, got 'nan'
    >>> parse_svg_number("1e999")
    Traceback (most recent call last):
    ...
    ValueError: expected a finite SVG number, got '1e999'
    """
    if not isinstance(text, str) or SVG_NUMBER_RE.fullmatch(text) is None:
        raise ValueError(f"expected an SVG number, got {text!r}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"expected a finite SVG number, got {text!r}")
    return value


def is_svg_number(text: str) -> bool:
    """Return whether ``text`` is exactly one SVG number (finite or not).

    Examples
    --------
    >>> is_svg_number("1e2"), is_svg_number("1_0"), is_svg_number(" 1")
    (True, False, False)
    """
    return SVG_NUMBER_RE.fullmatch(text) is not None


def scan_numbers(text: str) -> list[float] | None:
    """Read a list of SVG numbers separated by whitespace and/or one comma.

    Reading follows the SVG 2 number-list microsyntax as browsers apply it: each number is the
    longest match of the grammar, and the next number may follow with no separator when it starts
    with a sign or a ``.`` (``"0-1"`` → [0, -1], ``"0.5.5"`` → [0.5, 0.5]). A leading or trailing
    comma, two commas in a row, any other character, or a non-finite value gives ``None``.
    Surrounding whitespace is allowed; an empty or blank text gives ``[]``.

    Parameters
    ----------
    text : str
        E.g. a ``points``, ``viewBox`` or ``stroke-dasharray`` value.

    Returns
    -------
    list of float or None

    Examples
    --------
    >>> scan_numbers(" 0,0 10 -5e-1,.5 ")
    [0.0, 0.0, 10.0, -0.5, 0.5]
    >>> scan_numbers("1,,2") is None, scan_numbers("1 2,") is None, scan_numbers("10px") is None
    (True, True, True)
    >>> scan_numbers("")
    []
    """
    pos = 0
    n = len(text)
    while pos < n and text[pos] in _WSP:
        pos += 1
    out: list[float] = []
    match = _LIST_ITEM_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        value = float(m.group(1))
        if not math.isfinite(value):
            return None
        out.append(value)
        end = m.end()
        if end == n and end > m.end(1) and "," in text[m.end(1) : end]:
            return None  # trailing comma
        pos = end
    return out


def python_float_reference(text: str) -> float | None:
    """Convert ``text`` the way the reference evaluator does: Python ``float()`` (spec §7).

    For parity code only. Accepts surrounding Unicode whitespace, ``nan``/``inf``/``infinity``
    (any case, signed), underscores between digits and non-ASCII decimal digits
    (spec §7, §15; §16 item 7 lists this as a reference defect). Returns ``None`` where
    ``float()`` raises.

    Examples
    --------
    >>> python_float_reference(" 1_0 "), python_float_reference("-Infinity")
    (10.0, -inf)
    >>> python_float_reference("10px") is None
    True
    """
    try:
        return float(text)
    except (ValueError, TypeError):
        return None
