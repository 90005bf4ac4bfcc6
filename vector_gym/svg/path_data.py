"""SVG path data (``d``) parsed into segments exactly as the reference reads it (spec §8.9.1–8.9.2).

The reference evaluator reads ``d`` with ``svg.path`` 7.1; spec-reward.md §8.9.1 describes that
reader completely and this module reproduces it:

A. **Commands.** Cut before and after every letter of ``MmZzLlHhVvCcSsQqTtAa``; trim each piece
   (Unicode whitespace) and drop empty pieces. Text before the first command, a non-``Z`` command
   with no argument text, and ``Z`` followed by argument text are errors.
B. **Arguments.** Argument text must be ASCII. A number is the longest match of
   ``[+-]? digit* "."? digit* ([eE] [+-]? digit+)?`` at the current position (an empty match is a
   *read failure*; a non-empty match that is not a number, such as ``+`` or ``.``, is an error),
   followed by any run of space, tab, CR, LF and commas. Arc radii must be non-negative (else a
   read failure); flags are the single next character ``0`` or ``1``. Several argument sets may
   follow one command; after the first set of ``M``/``m`` the rest are ``L``/``l``.
   **Truncation:** a read failure on the *first field* of a repeated set (the whole first pair,
   or ``rx``) silently ends the whole path (later commands included) when ``parity=True``; when
   ``parity=False`` (RL mode, spec §16 item 22) it is an error: the numbers must form whole
   argument sets. Every other read failure is an error in both modes.
C. **Segments.** The current point starts at (0, 0); lower-case commands are relative; ``S``/``T``
   reflect the previous control point when the previous command was ``C``/``S`` or ``Q``/``T``;
   ``Z`` appends a line to the subpath start (even when zero-length). Arcs are set up by the
   endpoint-to-centre conversion in the exact operation order of spec §8.9.2 (in Python floats,
   so bit-identical to the reference).

Two reference crashes are errors in **both** modes (spec §10, §16 item 8): a ``Z`` before any
moveto and an arc flag other than ``0``/``1``.

Segments are stored compactly for NumPy (see :class:`PathData`). :func:`parse_path_data_cached`
memoises by ``(d, parity)``: outputs mostly repeat the same path strings.
"""

from __future__ import annotations

import functools
import itertools
import math
import re

import numpy as np

from vector_gym.svg.numbers import SHORT_NUMBER_PATTERN, format_number

__all__ = [
    "PathSyntaxError",
    "PathData",
    "parse_path_data",
    "parse_path_data_cached",
    "path_syntax_ok",
    "normalise_path_data",
    "path_fields",
    "MOVE",
    "LINE",
    "QUAD",
    "CUBIC",
    "ARC",
    "POINT",
    "KIND_NAMES",
    "N_PARAMS",
    "CACHE_MAX_CHARS",
]

# Segment kinds.
MOVE = 0
"""Zero-length Move; P(t) = its point."""
LINE = 1
"""Straight line (``L``, ``H``, ``V``, ``Z`` and an arc with a zero radius)."""
QUAD = 2
"""Quadratic Bézier."""
CUBIC = 3
"""Cubic Bézier."""
ARC = 4
"""Elliptical arc in centre parameterisation (spec §8.9.2)."""
POINT = 5
"""Degenerate arc (start = end): P(t) = start, length 0; unlike MOVE it never counts as a Move."""
KIND_NAMES = ("move", "line", "quad", "cubic", "arc", "point")

N_PARAMS = 16
"""Columns of :attr:`PathData.params`.

Every kind: 0 x0, 1 y0 (start), 2 x1, 3 y1 (end). QUAD: 4, 5 control point. CUBIC: 4, 5 first and
6, 7 second control point. ARC: 4, 5 centre; 6 rx·k, 7 ry·k (scaled radii); 8 θ, 9 Δ (degrees);
10 cos φ, 11 sin φ (rotation); 12 rx, 13 ry (as written); 14 k (radius scale); 15 φ (degrees).
"""

# Reasons carried by PathSyntaxError.reason.
R_NO_COMMAND = "no_command_at_start"
R_MISSING_ARGS = "missing_arguments"
R_ARGS_AFTER_CLOSE = "arguments_after_close"
R_NON_ASCII = "non_ascii"
R_BAD_NUMBER = "bad_number"
R_READ_FAILURE = "read_failure"
R_BAD_FLAG = "bad_arc_flag"
R_CLOSE_BEFORE_MOVE = "close_before_move"
R_ARC_SETUP = "arc_setup"
R_INCOMPLETE_SET = "incomplete_argument_set"
REASONS = (
    R_NO_COMMAND, R_MISSING_ARGS, R_ARGS_AFTER_CLOSE, R_NON_ASCII, R_BAD_NUMBER, R_READ_FAILURE,
    R_BAD_FLAG, R_CLOSE_BEFORE_MOVE, R_ARC_SETUP, R_INCOMPLETE_SET,
)


class PathSyntaxError(ValueError):
    """A ``d`` value that the reader rejects; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class PathData:
    """Parsed path segments; read-only (the arrays are flagged so).

    Attributes
    ----------
    kinds : numpy.ndarray, shape (n,), int8
        Segment kind codes (:data:`MOVE`, :data:`LINE`, :data:`QUAD`, :data:`CUBIC`, :data:`ARC`,
        :data:`POINT`).
    params : numpy.ndarray, shape (n, 16), float64
        Per-segment parameters in user units (layout: :data:`N_PARAMS`); unused columns are 0.
    commands : str
        The command letter behind each segment (``len == n``), after the M→L conversion of
        implicit repeats (``"MLLZ"``).
    truncated : bool
        True when the parity-mode truncation rule dropped the rest of the string.
    args : tuple
        Per segment, the arguments as written (relative ones stay relative; arc flags as bools).
    kind_list : list of int
        ``kinds.tolist()``.
    rows : list of tuple of float
        Per segment its parameters as Python floats, without the unused trailing columns (4, 6,
        8 or 16 values: the leading columns of ``params``).

    ``kinds`` and ``params`` are built on first use from ``kind_list`` and ``rows`` (code that
    reads a short path in Python, and the validity gate's reading of ``d``, never needs them).
    """

    __slots__ = ("kind_list", "rows", "commands", "truncated", "args", "_kinds", "_params")

    def __init__(
        self,
        kind_list: list[int],
        rows: list[tuple[float, ...]],
        commands: str,
        truncated: bool = False,
        args: tuple = (),
    ) -> None:
        self.kind_list = kind_list
        self.rows = rows
        self.commands = commands
        self.truncated = truncated
        self.args = args
        self._kinds: np.ndarray | None = None
        self._params: np.ndarray | None = None

    @property
    def kinds(self) -> np.ndarray:
        """Segment kind codes, shape (n,), int8 (read-only)."""
        k = self._kinds
        if k is None:
            k = np.array(self.kind_list, dtype=np.int8)
            k.flags.writeable = False
            self._kinds = k
        return k

    @property
    def params(self) -> np.ndarray:
        """Segment parameters, shape (n, 16), float64 (read-only; layout :data:`N_PARAMS`)."""
        prm = self._params
        if prm is None:
            rows = self.rows
            n = len(rows)
            prm = np.fromiter(
                itertools.chain.from_iterable([row + _PAD[len(row)] for row in rows]),
                np.float64,
                n * N_PARAMS,
            ).reshape(n, N_PARAMS)
            prm.flags.writeable = False
            self._params = prm
        return prm

    def __len__(self) -> int:
        return len(self.commands)

    def __repr__(self) -> str:
        return f"PathData(commands={self.commands!r}, truncated={self.truncated})"


_COMMAND_SPLIT = re.compile(r"([MmZzLlHhVvCcSsQqTtAa])")
# The svg.path number reader (ASCII digits: arguments are checked to be ASCII first), with the
# separator run it skips after each number.
_NUM_SEP = re.compile(r"([-+]?[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?)[ \t\r\n,]*")
_SEP = re.compile(r"[ \t\r\n,]*")
_SET_SIZE = {"M": 2, "L": 2, "T": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4}

_PAD = tuple((0.0,) * (N_PARAMS - i) for i in range(N_PARAMS + 1))
_DEG2RAD = math.pi / 180.0  # CPython math.radians multiplies by this one double
_RAD2DEG = 180.0 / math.pi  # CPython math.degrees


class _Truncate(Exception):
    """Internal: the truncation rule fired."""


class _ReadFailure(Exception):
    """Internal: an empty number match (or a negative radius)."""


def _read_numbers_fast(args: str) -> list[float] | None:
    """All numbers of an argument string when every greedy read succeeds, else None."""
    toks = _NUM_SEP.findall(args)
    # findall ends with one empty match at the end of the string; any other empty token means a
    # read failure in the middle, which the slow reader must judge.
    if not toks or toks[-1] != "" or "" in toks[:-1]:
        return None
    try:
        return [float(t) for t in toks[:-1]]
    except ValueError:
        raise PathSyntaxError(R_BAD_NUMBER, f"not a number in {args!r}") from None


class _Reader:
    __slots__ = ("s", "pos")

    def __init__(self, s: str) -> None:
        self.s = s
        self.pos = 0

    def number_span(self) -> tuple[int, int, float]:
        """Read one number: (start, end of its text, value); the separator run is skipped."""
        m = _NUM_SEP.match(self.s, self.pos)
        tok = m.group(1)
        if not tok:
            raise _ReadFailure
        try:
            v = float(tok)
        except ValueError:
            raise PathSyntaxError(R_BAD_NUMBER, f"not a number: {tok!r} in {self.s!r}") from None
        start = self.pos
        self.pos = m.end()
        return start, m.end(1), v

    def number(self) -> float:
        return self.number_span()[2]

    def flag(self) -> bool:
        if self.pos >= len(self.s):
            raise PathSyntaxError(R_BAD_FLAG, f"missing arc flag in {self.s!r}")
        ch = self.s[self.pos]
        self.pos = _SEP.match(self.s, self.pos + 1).end()
        if ch == "0":
            return False
        if ch == "1":
            return True
        raise PathSyntaxError(R_BAD_FLAG, f"arc flag must be 0 or 1, got {ch!r} in {self.s!r}")


def _read_sets_slow(cmd: str, args: str, parity: bool) -> tuple[list[tuple], bool]:
    """Read argument sets one field at a time (svg.path semantics). Returns (sets, truncated)."""
    up = cmd.upper()
    r = _Reader(args)
    sets: list[tuple] = []
    n = len(args)
    while r.pos < n:
        implicit = bool(sets)
        field = 0
        try:
            if up == "A":
                rx = r.number()
                if rx < 0:
                    raise _ReadFailure
                field = 1
                ry = r.number()
                if ry < 0:
                    raise _ReadFailure
                field = 2
                rot = r.number()
                field = 3
                large = r.flag()
                sweep = r.flag()
                field = 5
                sets.append((rx, ry, rot, large, sweep, r.number(), r.number()))
            else:
                k = _SET_SIZE[up]
                vals = []
                for i in range(k):
                    field = i // 2 if up not in ("H", "V") else i
                    vals.append(r.number())
                sets.append(tuple(vals))
        except _ReadFailure:
            if field == 0 and implicit:
                if not parity:
                    raise PathSyntaxError(
                        R_INCOMPLETE_SET, f"the text after {cmd} is not whole argument sets: {args!r}"
                    ) from None
                return sets, True
            raise PathSyntaxError(R_READ_FAILURE, f"expected a number in {cmd} {args!r}") from None
    return sets, False


def _read_sets(cmd: str, args: str, parity: bool) -> tuple[list[tuple], bool]:
    up = cmd.upper()
    if up != "A":
        nums = _read_numbers_fast(args)
        if nums is not None:
            k = _SET_SIZE[up]
            q, rem = divmod(len(nums), k)
            if rem == 0:
                return [tuple(nums[i : i + k]) for i in range(0, len(nums), k)], False
            field = rem if k == 1 else rem // 2
            if field == 0 and q >= 1:
                if not parity:
                    raise PathSyntaxError(
                        R_INCOMPLETE_SET, f"{len(nums)} numbers after {cmd} are not whole sets of {k}: {args!r}"
                    )
                return [tuple(nums[i : i + k]) for i in range(0, q * k, k)], True
            raise PathSyntaxError(R_READ_FAILURE, f"expected a number in {cmd} {args!r}")
    return _read_sets_slow(cmd, args, parity)


def _arc_row(x0, y0, rx, ry, rot, large, sweep, x1, y1):
    """Kind and parameter row of an arc, spec §8.9.2 in the svg.path operation order."""
    if x0 == x1 and y0 == y1:
        return POINT, (x0, y0, x1, y1)
    if rx == 0 or ry == 0:
        return LINE, (x0, y0, x1, y1)
    cosr = math.cos(rot * _DEG2RAD)
    sinr = math.sin(rot * _DEG2RAD)
    dx = (x0 - x1) / 2
    dy = (y0 - y1) / 2
    x1p = cosr * dx + sinr * dy
    x1p_sq = x1p * x1p
    y1p = -sinr * dx + cosr * dy
    y1p_sq = y1p * y1p
    rx_raw, ry_raw = rx, ry
    rx_sq = rx * rx
    ry_sq = ry * ry
    scale = (x1p_sq / rx_sq) + (y1p_sq / ry_sq)
    if scale > 1:
        scale = math.sqrt(scale)
        rx *= scale
        ry *= scale
        rx_sq = rx * rx
        ry_sq = ry * ry
    else:
        scale = 1
    t1 = rx_sq * y1p_sq
    t2 = ry_sq * x1p_sq
    c = math.sqrt(abs((rx_sq * ry_sq - t1 - t2) / (t1 + t2)))
    if large == sweep:
        c = -c
    cxp = c * rx * y1p / ry
    cyp = -c * ry * x1p / rx
    cx = (cosr * cxp - sinr * cyp) + ((x0 + x1) / 2)
    cy = (sinr * cxp + cosr * cyp) + ((y0 + y1) / 2)
    ux = (x1p - cxp) / rx
    uy = (y1p - cyp) / ry
    vx = (-x1p - cxp) / rx
    vy = (-y1p - cyp) / ry
    n = math.sqrt(ux * ux + uy * uy)
    theta = math.acos(ux / n) * _RAD2DEG
    if uy < 0:
        theta = -theta
    theta = theta % 360
    n = math.sqrt((ux * ux + uy * uy) * (vx * vx + vy * vy))
    d = (ux * vx + uy * vy) / n
    if d > 1.0:
        d = 1.0
    elif d < -1.0:
        d = -1.0
    delta = math.acos(d) * _RAD2DEG
    if (ux * vy - uy * vx) < 0:
        delta = -delta
    delta = delta % 360
    if not sweep:
        delta -= 360
    # P(t) uses radius·scale, computed in the reference as complex(rx, ry) * scale.
    rxs = rx_raw * scale
    rys = ry_raw * scale
    return ARC, (x0, y0, x1, y1, cx, cy, rxs, rys, theta, delta, cosr, sinr, rx_raw, ry_raw, float(scale), rot)


def parse_path_data(d: str, parity: bool = False) -> PathData:
    """Parse SVG path data into segments exactly as spec §8.9.1 (svg.path 7.1) reads it.

    Parameters
    ----------
    d : str
        The path data (the raw attribute value, or the folded string of spec §7).
    parity : bool, default False
        ``True``: the reference's silent truncation rule (spec §8.9.1 B) applies. ``False`` (RL
        mode): a truncated implicit repeat is an error (spec §16 item 22).

    Returns
    -------
    PathData
        The segments; empty for an empty or blank ``d`` (valid but unsampleable, spec §10).

    Raises
    ------
    PathSyntaxError
        With a ``reason`` from :data:`REASONS`.

    Examples
    --------
    >>> p = parse_path_data("M0 0 L10 0 h5 z")
    >>> p.commands, p.kinds.tolist(), p.params[3, :4].tolist()
    ('MLhz', [0, 1, 1, 1], [15.0, 0.0, 0.0, 0.0])
    >>> len(parse_path_data("M0 0 1 1 1", parity=True))
    2
    >>> parse_path_data("M0 0 1 1 1")
    Traceback (most recent call last):
    ...
    vector_gym.svg.path_data.PathSyntaxError: incomplete_argument_set: 5 numbers after M are not whole sets of 2: '0 0 1 1 1'
    >>> parse_path_data("Z")
    Traceback (most recent call last):
    ...
    vector_gym.svg.path_data.PathSyntaxError: close_before_move: Z before any moveto
    """
    if not isinstance(d, str):
        raise PathSyntaxError(R_BAD_NUMBER, f"expected str, got {type(d).__name__}")
    pieces = _COMMAND_SPLIT.split(d)
    if pieces[0].strip():
        raise PathSyntaxError(R_NO_COMMAND, f"text before the first command in {d[:40]!r}")
    kinds: list[int] = []
    rows: list[tuple] = []
    cmds: list[str] = []
    written: list[tuple] = []
    cx = cy = 0.0  # current point
    sx = sy = None  # subpath start
    last = ""  # previous command (upper case, after M→L)
    truncated = False
    for idx in range(1, len(pieces), 2):
        cmd = pieces[idx]
        args = pieces[idx + 1].strip()
        up = cmd.upper()
        rel = cmd != up
        if up == "Z":
            if args:
                raise PathSyntaxError(R_ARGS_AFTER_CLOSE, f"text after {cmd}: {args[:40]!r}")
            if sx is None:
                raise PathSyntaxError(R_CLOSE_BEFORE_MOVE, "Z before any moveto")
            kinds.append(LINE)
            rows.append((cx, cy, sx, sy))
            cmds.append(cmd)
            written.append(())
            cx, cy = sx, sy
            last = "Z"
            continue
        if not args:
            raise PathSyntaxError(R_MISSING_ARGS, f"{cmd} without arguments")
        if not args.isascii():
            raise PathSyntaxError(R_NON_ASCII, f"non-ASCII character in arguments of {cmd}")
        sets, trunc = _read_sets(cmd, args, parity)
        for a in sets:
            if up == "M":
                if rel:
                    x, y = cx + a[0], cy + a[1]
                else:
                    x, y = a[0], a[1]
                kinds.append(MOVE)
                rows.append((x, y, x, y))
                cmds.append(cmd)
                written.append(a)
                cx, cy = x, y
                sx, sy = x, y
                last = "M"
                # implicit repeats of M are L
                cmd = "l" if rel else "L"
                up = "L"
                continue
            if up == "L":
                x, y = (a[0] + cx, a[1] + cy) if rel else (a[0], a[1])
                kinds.append(LINE)
                rows.append((cx, cy, x, y))
            elif up == "H":
                x, y = (a[0] + cx if rel else a[0]), cy
                kinds.append(LINE)
                rows.append((cx, cy, x, y))
            elif up == "V":
                x, y = cx, (a[0] + cy if rel else a[0])
                kinds.append(LINE)
                rows.append((cx, cy, x, y))
            elif up == "C":
                if rel:
                    c1x, c1y, c2x, c2y = a[0] + cx, a[1] + cy, a[2] + cx, a[3] + cy
                    x, y = a[4] + cx, a[5] + cy
                else:
                    c1x, c1y, c2x, c2y, x, y = a
                kinds.append(CUBIC)
                rows.append((cx, cy, x, y, c1x, c1y, c2x, c2y))
            elif up == "S":
                if rel:
                    c2x, c2y, x, y = a[0] + cx, a[1] + cy, a[2] + cx, a[3] + cy
                else:
                    c2x, c2y, x, y = a
                if last in ("C", "S"):
                    prev = rows[-1]
                    c1x, c1y = cx + cx - prev[6], cy + cy - prev[7]
                else:
                    c1x, c1y = cx, cy
                kinds.append(CUBIC)
                rows.append((cx, cy, x, y, c1x, c1y, c2x, c2y))
            elif up == "Q":
                if rel:
                    qx, qy, x, y = a[0] + cx, a[1] + cy, a[2] + cx, a[3] + cy
                else:
                    qx, qy, x, y = a
                kinds.append(QUAD)
                rows.append((cx, cy, x, y, qx, qy))
            elif up == "T":
                x, y = (a[0] + cx, a[1] + cy) if rel else (a[0], a[1])
                if last in ("Q", "T"):
                    prev = rows[-1]
                    qx, qy = cx + cx - prev[4], cy + cy - prev[5]
                else:
                    qx, qy = cx, cy
                kinds.append(QUAD)
                rows.append((cx, cy, x, y, qx, qy))
            else:  # A
                rx, ry, rot, large, sweep, ex, ey = a
                x, y = (ex + cx, ey + cy) if rel else (ex, ey)
                try:
                    kind, row = _arc_row(cx, cy, rx, ry, rot, large, sweep, x, y)
                except (ZeroDivisionError, ValueError, OverflowError) as exc:
                    raise PathSyntaxError(R_ARC_SETUP, f"arc set-up failed ({exc}) in {cmd}") from None
                kinds.append(kind)
                rows.append(row)
            cmds.append(cmd)
            written.append(a)
            cx, cy = x, y
            last = up
        if trunc:
            truncated = True
            break
    # SVG 2 §4.2 numbers are finite: ``1e999`` (or a relative sum past the float range) is not
    # a coordinate. The reference reads it as inf (parity keeps that, spec §16 item 7). x - x is
    # 0.0 for every finite x and NaN (true) for inf and NaN.
    if not parity and any([v - v for row in rows for v in row]):
        raise PathSyntaxError(R_BAD_NUMBER, f"non-finite number or coordinate in {d[:40]!r}")
    return PathData(kinds, rows, "".join(cmds), truncated, tuple(written))


CACHE_MAX_CHARS = 8192
"""Longer ``d`` strings are parsed without memoisation (the cache must not pin huge texts)."""


@functools.lru_cache(maxsize=8192)
def _parse_or_error(d: str, parity: bool) -> PathData | PathSyntaxError:
    try:
        return parse_path_data(d, parity)
    except PathSyntaxError as exc:
        return exc


def parse_path_data_cached(d: str, parity: bool = False) -> PathData | PathSyntaxError:
    """Memoised :func:`parse_path_data`; returns (not raises) the :class:`PathSyntaxError`.

    Returning the error keeps failed parses cached too. Strings longer than
    :data:`CACHE_MAX_CHARS` are parsed afresh each time. The result's arrays are read-only.

    Examples
    --------
    >>> parse_path_data_cached("M0 0 L").reason
    'missing_arguments'
    >>> parse_path_data_cached("M0 0 L1 1").commands
    'ML'
    """
    if not isinstance(d, str) or len(d) > CACHE_MAX_CHARS:
        return _parse_or_error.__wrapped__(d, parity)
    return _parse_or_error(d, bool(parity))


def path_syntax_ok(d: str, parity: bool = False) -> bool:
    """Return whether ``d`` passes the §8.9.1 reader (the validity gate's ``d`` check, spec §10).

    Examples
    --------
    >>> path_syntax_ok(""), path_syntax_ok("L 10 10"), path_syntax_ok("M0 0 L")
    (True, True, False)
    """
    return not isinstance(parse_path_data_cached(d, parity), PathSyntaxError)


# Short numbers as format_number writes them (SHORT_NUMBER_PATTERN); radii are not negative.
_PLAIN_NUM = SHORT_NUMBER_PATTERN
_PLAIN_RADIUS = r"(?:[1-9][0-9]{0,5}(?:\.[0-9]{0,5}[1-9])?|0\.(?!0000)[0-9]{0,5}[1-9]|0)"
_CANONICAL_D = re.compile(
    "[Mm]N N(?: (?:[MmLlTt]N N|[HhVv]N|[Cc]N N N N N N|[SsQq]N N N N|[Aa]R R N [01] [01] N N|[Zz]))*"
    .replace("N", _PLAIN_NUM)  # no "N" or "R" in either pattern
    .replace("R", _PLAIN_RADIUS)
)
"""Path data already in :func:`normalise_path_data`'s spelling: a moveto first, then segments
separated by one space, each its letter and exactly one argument set of plain numbers (above)
separated by one space, arc flags ``0``/``1``. The reader splits it into these very segments and
numbers, so when it accepts the text (arc set-up and all) the respelling is the text itself."""


def normalise_path_data(d: str) -> str | None:
    """Canonical spelling of path data in default mode, or ``None`` when the reader rejects it.

    The path reader (:func:`parse_path_data`, ``parity=False``) decides the syntax, so validity,
    C(S), V(S) and geometry agree on every ``d``. The spelling is each segment's command letter
    (implicit repeats written out; the implicit repeats of ``M``/``m`` are ``L``/``l``) followed by
    its arguments as written, numbers in :func:`vector_gym.svg.numbers.format_number` spelling and
    arc flags as ``0``/``1``. Packed numbers (``M1.5.5``), exponents (``2e1.5``), compact arc flags
    (``a20 20 0 0130 0``) and any separators therefore spell the same path as their spaced form.
    Relative vs absolute commands, ``H``/``V`` vs ``L`` and ``Z`` vs a closing line stay distinct.

    Examples
    --------
    >>> normalise_path_data("M1.5.5l2e1.5") == normalise_path_data("M 1.5,0.5 l 20,0.5")
    True
    >>> normalise_path_data("a20 20 0 0130 0") == normalise_path_data("a20,20 0 0,1 30,0")
    True
    >>> normalise_path_data("M0 0 1 1"), normalise_path_data("M0 0 L"), normalise_path_data("")
    ('M0 0 L1 1', None, '')
    """
    parsed = parse_path_data_cached(d, False)
    if isinstance(parsed, PathSyntaxError):
        return None
    if _CANONICAL_D.fullmatch(d) is not None:
        return d  # already the spelling below (see _CANONICAL_D): no per-number respelling
    return _respell(parsed)


def _respell(parsed: PathData) -> str:
    """The spelling of :func:`normalise_path_data` of a parsed path (letters, numbers, flags)."""
    out = []
    for cmd, a in zip(parsed.commands, parsed.args, strict=True):
        if not a:
            out.append(cmd)
        elif cmd in "Aa":
            rx, ry, rot, large, sweep, x, y = a
            out.append(
                f"{cmd}{format_number(rx)} {format_number(ry)} {format_number(rot)} "
                f"{int(large)} {int(sweep)} {format_number(x)} {format_number(y)}"
            )
        else:
            out.append(cmd + " ".join(map(format_number, a)))
    return " ".join(out)


def path_fields(d: str) -> list[tuple[str, int, tuple[tuple[int, int, float, bool], ...]]] | None:
    """Every argument of ``d`` with its character span, read by the path reader's grammar.

    The same reading as :func:`parse_path_data` with ``parity=False`` (command splitting,
    greedy numbers followed by a separator run, one-character arc flags, non-negative radii, a
    truncated implicit repeat is an error), for code that edits numbers in place (RepairGen).

    Returns
    -------
    list of (command, set index, fields) or None
        One entry per argument set in text order; ``command`` is the letter as written (implicit
        repeats keep the letter that introduced them, so the repeats of ``M`` say ``M``), ``set
        index`` counts the sets after that letter from 0, and each field is ``(start, end,
        value, is_flag)`` with ``d[start:end]`` the number's text. ``Z`` gives an entry with no
        fields. ``None`` when the reader rejects ``d`` (:class:`PathSyntaxError`).

    Examples
    --------
    >>> [(c, k, [(d0, d1, v) for d0, d1, v, _f in f]) for c, k, f in path_fields("M1.5.5 2 3z")]
    [('M', 0, [(1, 4, 1.5), (4, 6, 0.5)]), ('M', 1, [(7, 8, 2.0), (9, 10, 3.0)]), ('z', 0, [])]
    >>> path_fields("M0 0 1"), path_fields("Z")
    (None, None)
    """
    if not isinstance(d, str):
        return None
    pieces = _COMMAND_SPLIT.split(d)
    if pieces[0].strip():
        return None
    out: list[tuple[str, int, tuple[tuple[int, int, float, bool], ...]]] = []
    pos = len(pieces[0])
    moved = False
    for k in range(1, len(pieces), 2):
        cmd = pieces[k]
        raw = pieces[k + 1]
        base = pos + 1
        pos = base + len(raw)
        up = cmd.upper()
        args = raw.strip()
        if up == "Z":
            if args or not moved:
                return None
            out.append((cmd, 0, ()))
            continue
        if not args or not args.isascii():
            return None
        moved = moved or up == "M"  # a Z before any moveto is an error, as in parse_path_data
        offset = base + len(raw) - len(raw.lstrip())
        r = _Reader(args)
        n_fields = _SET_SIZE.get(up, 7)  # A: rx ry rotation flag flag x y
        set_no = 0
        while r.pos < len(args):
            fields: list[tuple[int, int, float, bool]] = []
            try:
                for f in range(n_fields):
                    if up == "A" and f in (3, 4):
                        at = r.pos
                        fields.append((offset + at, offset + at + 1, float(r.flag()), True))
                        continue
                    s0, e0, v = r.number_span()
                    if up == "A" and f < 2 and v < 0:
                        return None
                    fields.append((offset + s0, offset + e0, v, False))
            except (_ReadFailure, PathSyntaxError):
                return None
            out.append((cmd, set_no, tuple(fields)))
            set_no += 1
    return out
