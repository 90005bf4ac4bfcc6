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
    "REFERENCE_NUMBER_PATTERN",
    "parse_svg_number",
    "is_svg_number",
    "scan_numbers",
    "scan_number_spans",
    "python_float_reference",
    "format_number",
    "normalise_svg_number",
    "LENGTH_UNITS",
    "parse_length",
    "normalise_length",
    "parse_points",
]

SVG_NUMBER_PATTERN = r"[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?"
"""Regular-expression source of one SVG number (ASCII digits only)."""

SVG_NUMBER_RE = re.compile(SVG_NUMBER_PATTERN)
"""Compiled :data:`SVG_NUMBER_PATTERN`; use ``fullmatch`` for a whole-string test."""

REFERENCE_NUMBER_PATTERN = r"[-+]?(?:\d*\.\d+|\d+\.?)(?:[eE][-+]?\d+)?"
"""The reference evaluator's number regex (spec §4.2): ``\\d`` is any Unicode decimal digit
(spec §15). Parity readings only (:mod:`vector_gym.svg.reference_dialect`, the §8.3 viewport)."""

SHORT_NUMBER_PATTERN = r"(?:-?(?:[1-9][0-9]{0,5}(?:\.[0-9]{0,5}[1-9])?|0\.(?!0000)[0-9]{0,5}[1-9])|0)"
"""Regular-expression source of a number written as :func:`format_number` writes it, for the
common short numbers: at most 6 integer and 6 fraction digits (so at most 12 significant
digits, and the nearest double's shortest round-trip ``repr`` has exactly these digits), no
leading zeros, no trailing fraction zeros, no ``-0``, no exponent, not below 1e-4 (where
``repr`` switches to exponent form). Such a text is its own canonical spelling:
``format_number(float(t)) == t`` (``tests/svg/test_numbers.py``)."""

SHORT_NUMBER_RE = re.compile(SHORT_NUMBER_PATTERN)
"""Compiled :data:`SHORT_NUMBER_PATTERN`; use ``fullmatch``."""

SHORT_NUMBER_LIST_RE = re.compile(SHORT_NUMBER_PATTERN + "(?:[ ,]" + SHORT_NUMBER_PATTERN + ")*")
"""Short numbers (:data:`SHORT_NUMBER_PATTERN`) each separated by one space or one comma: their
:func:`scan_numbers` values spelled by :func:`format_number` and joined by spaces are the text
with its commas made spaces."""

# One number, then an optional separator: a run of whitespace with at most one comma.
_LIST_ITEM_RE = re.compile(r"(" + SVG_NUMBER_PATTERN + r")(?:[ \t\r\n\f]*,[ \t\r\n\f]*|[ \t\r\n\f]+)?")
_WSP = " \t\r\n\f"
# A list of plain numbers (optional "-", digits, optional fraction: no "+", exponent or bare
# ".") with a separator between every two: the common spelling of points and viewBox values.
_PLAIN_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?"
_PLAIN_LIST_RE = re.compile(
    r"[ \t\r\n\f]*(?:" + _PLAIN_NUMBER + r"(?:(?:[ \t\r\n\f]*,[ \t\r\n\f]*|[ \t\r\n\f]+)"
    + _PLAIN_NUMBER + r")*)?[ \t\r\n\f]*"
)
_PLAIN_NUMBER_RE = re.compile(_PLAIN_NUMBER)


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
    if _PLAIN_LIST_RE.fullmatch(text) is not None:
        # Every number is plain and followed by a separator or the end, so the item reader of
        # scan_number_spans stops each at the same place: the numbers are the plain matches.
        values = [float(t) for t in _PLAIN_NUMBER_RE.findall(text)]
        return values if all(map(math.isfinite, values)) else None
    spans = scan_number_spans(text)
    return None if spans is None else [v for _s, _e, v in spans]


def scan_number_spans(text: str) -> list[tuple[int, int, float]] | None:
    """:func:`scan_numbers` with each number's character span: ``(start, end, value)``.

    For code that edits numbers in place. Same grammar and failures as :func:`scan_numbers`.

    Examples
    --------
    >>> scan_number_spans("1,2 3.5.5")
    [(0, 1, 1.0), (2, 3, 2.0), (4, 7, 3.5), (7, 9, 0.5)]
    """
    pos = 0
    n = len(text)
    while pos < n and text[pos] in _WSP:
        pos += 1
    out: list[tuple[int, int, float]] = []
    match = _LIST_ITEM_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        value = float(m.group(1))
        if not math.isfinite(value):
            return None
        out.append((m.start(1), m.end(1), value))
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


def format_number(x: float) -> str:
    """Write a finite float in its shortest round-trip spelling; ``-0`` → ``0``, ``10.0`` → ``10``.

    The default-mode canonical spelling of every number (SVG 2 §4.2 numbers are IEEE doubles
    once read, so two spellings of the same double are the same number).

    Examples
    --------
    >>> format_number(10.0), format_number(-0.0), format_number(0.5), format_number(1e-07)
    ('10', '0', '0.5', '1e-07')
    """
    x = float(x)
    if x == 0.0:
        return "0"
    s = repr(x)
    return s[:-2] if s.endswith(".0") else s


def normalise_svg_number(text: str) -> str | None:
    """Canonical spelling of one SVG number (:func:`format_number` of its value), or ``None``.

    ``None`` when ``text`` (already trimmed) is not one finite number of the SVG grammar.

    Examples
    --------
    >>> normalise_svg_number("1e1"), normalise_svg_number("+.50"), normalise_svg_number("nan")
    ('10', '0.5', None)
    """
    if SVG_NUMBER_RE.fullmatch(text) is None:
        return None
    value = float(text)
    if not math.isfinite(value):
        return None
    return format_number(value)


LENGTH_UNITS: frozenset[str] = frozenset(
    {"px", "pt", "pc", "cm", "mm", "in", "q", "em", "ex", "ch", "rem", "vw", "vh", "vmin", "vmax", "%"}
)
"""Units of the CSS ``<length>``/``<percentage>`` grammar SVG 2 accepts (lower case)."""

_LENGTH_RE = re.compile("(" + SVG_NUMBER_PATTERN + r")([A-Za-z]+|%)?")


def parse_length(text: str) -> tuple[float, str] | None:
    """Read one SVG length: a number with an optional unit or ``%`` (SVG 2 §4.3, CSS Values 4).

    Parameters
    ----------
    text : str
        Trimmed value such as ``"10"``, ``"2.5mm"``, ``"50%"``; units are case-insensitive.

    Returns
    -------
    (float, str) or None
        The value and the lower-cased unit (``""`` for user units; ``px`` is user units, so it is
        returned as ``""``); ``None`` when the text is not a length (``nan``, ``1_0``, ``0x10``,
        ``10 px``, an unknown unit) or the value is not finite.

    Examples
    --------
    >>> parse_length("10px"), parse_length("50%"), parse_length("2E1MM")
    ((10.0, ''), (50.0, '%'), (20.0, 'mm'))
    >>> parse_length("Infinity"), parse_length("1_0"), parse_length("0x1A")
    (None, None, None)
    """
    m = _LENGTH_RE.fullmatch(text)
    if m is None:
        return None
    value = float(m.group(1))
    if not math.isfinite(value):
        return None
    unit = (m.group(2) or "").lower()
    if unit == "px":
        unit = ""
    elif unit and unit not in LENGTH_UNITS:
        return None
    return value, unit


def normalise_length(text: str) -> str | None:
    """Canonical spelling of one length (``"10.0px"`` → ``"10"``, ``"5E1%"`` → ``"50%"``), or None.

    Examples
    --------
    >>> normalise_length("10.0px"), normalise_length("5E1%"), normalise_length("10 px")
    ('10', '50%', None)
    """
    parsed = parse_length(text)
    if parsed is None:
        return None
    return format_number(parsed[0]) + parsed[1]


def parse_points(text: str) -> list[tuple[float, float]] | None:
    """Read a ``points`` value (SVG 2 §10.5): a number list (:func:`scan_numbers`) taken in pairs.

    Returns ``None`` when the text is not a number list or holds an odd count of numbers (SVG 2:
    an odd count is an error).

    Examples
    --------
    >>> parse_points("0,0 10.5.5"), parse_points("1 2 3")
    ([(0.0, 0.0), (10.5, 0.5)], None)
    """
    nums = scan_numbers(text)
    if nums is None or len(nums) % 2:
        return None
    return [(nums[i], nums[i + 1]) for i in range(0, len(nums), 2)]
