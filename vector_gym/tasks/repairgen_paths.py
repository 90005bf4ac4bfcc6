"""Locate, move and rewrite the numbers of path data and point lists in place (RepairGen).

RepairGen corrupts geometry by editing numbers inside ``d`` and ``points`` while keeping the
command letters, implicit repeats and separators of the original, so the corrupted path has
the same command stream as the clean one (the coordinate-RMS route of spec-reward.md §8.9.7
then applies to both, with its own δ). Reading follows the ``svg.path`` rules of §8.9.1:
command splitting, greedy number matching with no skipping, single-character arc flags,
implicit repeats (``M`` repeats as ``L``), and a current point that starts at the origin.

:func:`respell_path` rewrites a path with one space between all tokens, which turns legal-SVG
shorthands that the reference's validity gate rejects (``0.5.5``, packed arc flags ``0110``:
spec §4.3) into an equivalent accepted spelling. Clean sources go through it once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from vector_gym.svg.numbers import scan_number_spans
from vector_gym.svg.path_data import _COMMAND_SPLIT as _PD_COMMAND_SPLIT
from vector_gym.svg.path_data import _NUM_SEP as _PD_NUM_SEP
from vector_gym.svg.path_data import _SET_SIZE as _PD_SET_SIZE
from vector_gym.svg.path_data import PathSyntaxError, _read_numbers_fast, path_fields

_PD_SPLIT = _PD_COMMAND_SPLIT.split

__all__ = [
    "PathField",
    "scan_path",
    "path_points",
    "path_reads",
    "respell_path",
    "replace_numbers",
    "format_number",
    "scan_points",
    "read_points",
]

_CMD_CHARS = "MmZzLlHhVvCcSsQqTtAa"
_CMD_SPLIT = re.compile(f"([{_CMD_CHARS}])")

# Field roles per command (upper case), spec §8.9.1 B.
_FIELDS = {
    "M": ("x", "y"),
    "L": ("x", "y"),
    "T": ("x", "y"),
    "H": ("x",),
    "V": ("y",),
    "C": ("cx", "cy", "cx", "cy", "x", "y"),
    "S": ("cx", "cy", "x", "y"),
    "Q": ("cx", "cy", "x", "y"),
    "A": ("rx", "ry", "rot", "flag", "flag", "x", "y"),
}


class PathField(NamedTuple):
    """One number (or arc flag) of a path, with its place in the text (immutable; a named
    tuple: built several thousand times per second of generation, a frozen dataclass costs
    several times as much to make).

    Attributes
    ----------
    start, end : int
        Character span in the ``d`` string.
    value : float
    role : str
        ``x``/``y`` (end point), ``cx``/``cy`` (control point), ``rx``/``ry``/``rot``
        (arc), ``flag``.
    relative : bool
        The command letter is lower case (and the field is not the path's first moveto pair,
        which is relative to the origin and therefore absolute in effect).
    command : str
        The command letter as written (``M`` for the moveto that implicit pairs repeat).
    pair : int
        Index of the coordinate pair this field belongs to (-1 for radii, rotation, flags).
    """

    start: int
    end: int
    value: float
    role: str
    relative: bool
    command: str
    pair: int


def scan_path(d: str) -> tuple[list[PathField], list[tuple[float, float]]] | None:
    """Read every number of ``d`` with its role and span, and the absolute points it visits.

    Parameters
    ----------
    d : str
        Path data.

    Returns
    -------
    (fields, points) or None
        ``fields`` in text order; ``points`` the absolute (x, y) of every end and control point
        (for a bounding box). ``None`` when ``d`` does not read cleanly to its end: a §8.9.1
        parse error, the silent-truncation case, a ``Z`` before any moveto, or a bad arc flag.

    Examples
    --------
    >>> fields, pts = scan_path("M10 10 l5 0")
    >>> [(f.role, f.value, f.relative) for f in fields]
    [('x', 10.0, False), ('y', 10.0, False), ('x', 5.0, True), ('y', 0.0, True)]
    >>> pts
    [(10.0, 10.0), (15.0, 10.0)]
    >>> scan_path("M0 0 L") is None, scan_path("M0 0 1 1 1") is None
    (True, True)
    """
    if not isinstance(d, str):
        return None
    scanned = _scan_cached(d) if len(d) <= _SCAN_CACHE_CHARS else _scan(d)
    return None if scanned is None else (list(scanned[0]), list(scanned[1]))


#: Paths up to this many characters are scanned once and remembered (an LRU of 256 below, at
#: most ~2,000 fields of ~150 bytes each per entry): a clean source's path is read when it is
#: respelled and again when it is analysed, and an operator trial re-reads the clean path.
_SCAN_CACHE_CHARS = 4096


def _scan(d: str) -> tuple[tuple[PathField, ...], tuple[tuple[float, float], ...]] | None:
    """:func:`scan_path` with immutable results (the cached body)."""
    return _read(d, True)


def _read(d: str, keep_fields: bool) -> tuple[tuple[PathField, ...], tuple[tuple[float, float], ...]] | None:
    """The reading of :func:`scan_path`; ``keep_fields=False`` builds no PathField (an empty
    tuple in their place) and returns the same points, or None exactly when it would."""
    if not d.strip():
        return None
    if not d.isascii():
        return None
    sets = path_fields(d)  # the path reader's grammar (vector_gym.svg.path_data)
    if sets is None:
        return None
    fields: list[PathField] = []
    points: list[tuple[float, float]] = []
    n_fields = 0
    cur = (0.0, 0.0)
    start_pt: tuple[float, float] | None = None
    pair_no = 0
    first_command = True
    for letter, set_no, spans in sets:
        up = letter.upper()
        if up == "Z":
            cur = start_pt  # path_fields rejects a Z before any moveto
            first_command = False
            continue
        rel = letter.islower()
        vals = [(s0, e0, v, role) for (s0, e0, v, _flag), role in zip(spans, _FIELDS[up], strict=True)]
        n_fields += len(vals)
        # absolute conversion and bookkeeping
        eff = "L" if (up == "M" and set_no > 0) else up
        is_first_move = first_command and set_no == 0 and up == "M"
        base = (0.0, 0.0) if (not rel or is_first_move) else cur
        pair_of: dict[int, int] = {}
        px: float | None = None
        for s0, _e, v, role in vals:
            if role in ("x", "cx"):
                px = v
                pair_of[s0] = pair_no
                if eff == "H":
                    pair_no += 1
            elif role in ("y", "cy"):
                pair_of[s0] = pair_no
                if eff != "V":
                    points.append(((px if px is not None else 0.0) + base[0], v + base[1]))
                pair_no += 1
                px = None
        if eff == "H":
            cur = (vals[0][2] + (cur[0] if rel else 0.0), cur[1])
            points.append(cur)
        elif eff == "V":
            cur = (cur[0], vals[0][2] + (cur[1] if rel else 0.0))
            points.append(cur)
        else:
            cur = points[-1]
        if up == "M" and set_no == 0:
            start_pt = cur
        first_command = False
        if not keep_fields:
            continue
        relative = rel and not is_first_move
        command = eff.lower() if rel else eff
        get_pair = pair_of.get
        fields.extend(
            PathField(s0, e0, v, role, relative, command, get_pair(s0, -1)) for s0, e0, v, role in vals
        )
    if not n_fields:
        return None
    return tuple(fields), tuple(points)


_PAIR_COMMANDS = frozenset("MLTCSQ")


def _points_fast(d: str) -> tuple[tuple[float, float], ...] | None:
    """``_read(d, False)``'s points for the commonest paths, or None where :func:`_read` must
    decide (an arc, a number the one-pass reading does not take, anything unusual): every
    command's numbers read in one ``findall`` (:func:`vector_gym.svg.path_data._read_numbers_fast`,
    the reading :func:`path_fields` makes one number at a time) and the same sums, in the same
    order, as :func:`_read`. ``tests/tasks/test_repairgen.py`` checks it against :func:`_read`."""
    pieces = _PD_SPLIT(d)
    if pieces[0].strip():
        return None
    points: list[tuple[float, float]] = []
    cur = (0.0, 0.0)
    start_pt: tuple[float, float] | None = None
    first_command = True
    for k in range(1, len(pieces), 2):
        letter = pieces[k]
        up = letter.upper()
        args = pieces[k + 1].strip()
        if up == "Z":
            if args or start_pt is None:
                return None
            cur = start_pt
            first_command = False
            continue
        if up == "A" or not args:
            return None
        try:
            vals = _read_numbers_fast(args)
        except PathSyntaxError:
            return None
        if vals is None:
            return None
        size = _PD_SET_SIZE[up]
        if len(vals) % size:
            return None
        rel = letter.islower()
        for set_start in range(0, len(vals), size):
            if up in _PAIR_COMMANDS:
                is_first_move = first_command and set_start == 0 and up == "M"
                bx, by = (0.0, 0.0) if (not rel or is_first_move) else cur
                for i in range(set_start, set_start + size, 2):
                    points.append((vals[i] + bx, vals[i + 1] + by))
                cur = points[-1]
            elif up == "H":
                cur = (vals[set_start] + (cur[0] if rel else 0.0), cur[1])
                points.append(cur)
            else:  # V
                cur = (cur[0], vals[set_start] + (cur[1] if rel else 0.0))
                points.append(cur)
            if up == "M" and set_start == 0:
                start_pt = cur
            first_command = False
    return tuple(points) if points else None


@lru_cache(maxsize=256)  # like _scan_cached: a source's paths are read twice, close together
def _points_cached(d: str) -> tuple[tuple[float, float], ...] | None:
    if d.isascii() and d.strip():
        fast = _points_fast(d)
        if fast is not None:
            return fast
    read = _read(d, False)
    return None if read is None else read[1]


def path_reads(d: str) -> bool:
    """Whether :func:`scan_path` reads ``d`` (is not None), without building its fields and
    without remembering ``d`` (for a path written once, such as a corrupted one).

    Examples
    --------
    >>> path_reads("M10 10 l5 0"), path_reads("M0 0 L")
    (True, False)
    """
    return isinstance(d, str) and _read(d, False) is not None


def path_points(d: str) -> tuple[tuple[float, float], ...] | None:
    """The ``points`` of :func:`scan_path` (None exactly when it returns None), without
    building its fields: what a clean source's check and analysis need of every path.

    Examples
    --------
    >>> path_points("M10 10 l5 0"), path_points("M0 0 L")
    (((10.0, 10.0), (15.0, 10.0)), None)
    """
    if not isinstance(d, str):
        return None
    return _points_cached(d) if len(d) <= _SCAN_CACHE_CHARS else _points_cached.__wrapped__(d)


_scan_cached = lru_cache(maxsize=256)(_scan)


def format_number(v: float) -> str:
    """Spell a coordinate with at most three decimals, no exponent, no ``-0``.

    Examples
    --------
    >>> format_number(12.0), format_number(-0.0004), format_number(3.14159)
    ('12', '0', '3.142')
    """
    text = f"{round(v, 3):.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "", "-") else text


def replace_numbers(text: str, spans: dict[tuple[int, int], float]) -> str:
    """Replace the numbers at the given spans, keeping every other character.

    A space is added where the new spelling would otherwise merge with a neighbouring number
    (``10-5`` with ``-5`` → ``3`` becomes ``10 3``, not ``103``).
    """
    out = []
    last = 0
    for (s, e), v in sorted(spans.items()):
        new = format_number(v)
        out.append(text[last:s])
        prev = text[s - 1] if s > 0 else ""
        if prev and (prev.isdigit() or prev == ".") and new[0] not in "+-":
            new = " " + new
        if prev in "eE" and s > 1:
            new = " " + new
        nxt = text[e] if e < len(text) else ""
        if nxt and (nxt.isdigit() or nxt == "."):
            new = new + " "
        out.append(new)
        last = e
    out.append(text[last:])
    return "".join(out)


class _Span(NamedTuple):
    start: int
    end: int


def respell_path(d: str) -> str | None:
    """Rewrite ``d`` with single spaces between every command letter, number and flag.

    The geometry and command stream are unchanged; numbers keep their original spelling.
    Returns None when :func:`scan_path` rejects ``d``.

    Examples
    --------
    >>> respell_path("M0 0c0-1.05.672-1.638 1.575-1.638a5 5 0 0110 10z")
    'M 0 0 c 0 -1.05 .672 -1.638 1.575 -1.638 a 5 5 0 0 1 10 10 z'
    """
    # Only the numbers' spans are needed: path_points says whether scan_path reads d (None
    # exactly when scan_path is None; a source's path is already in its cache), and the
    # grammar's sets hold every field's span in text order (a Z set has none), so no PathField
    # is built (half of a respelling's time).
    if not isinstance(d, str) or path_points(d) is None:
        return None
    if "A" not in d and "a" not in d:
        fast = _respell_fast(d)
        if fast is not None:
            return fast
    fields = [_Span(f[0], f[1]) for _c, _k, spans in path_fields(d) for f in spans]
    out: list[str] = []
    fi = 0
    for m in _CMD_SPLIT.finditer(d):
        # emit fields that precede this letter
        while fi < len(fields) and fields[fi].start < m.start():
            f = fields[fi]
            out.append(d[f.start : f.end])
            fi += 1
        out.append(m.group())
    while fi < len(fields):
        f = fields[fi]
        out.append(d[f.start : f.end])
        fi += 1
    return " ".join(out)


def _respell_fast(d: str) -> str | None:
    """:func:`respell_path` of ``d``, a path without arcs that :func:`path_points` reads: each
    command's numbers read by one ``findall`` of the reader's number pattern (the same greedy
    reading, match after match, as :func:`path_fields`'s, so the same texts), joined with the
    letters; None (the caller reads the spans) where a read stops before the end."""
    pieces = _PD_SPLIT(d)
    out: list[str] = []
    for k in range(1, len(pieces), 2):
        out.append(pieces[k])
        args = pieces[k + 1].strip()
        if not args:
            continue  # a Z (path_points read d: no other command is empty)
        toks = _PD_NUM_SEP.findall(args)
        if toks[-1] != "" or "" in toks[:-1]:
            return None
        out += toks[:-1]
    return " ".join(out)


def scan_points(points: str) -> list[tuple[int, int, float]] | None:
    """Return (start, end, value) of every number of a ``points`` value, or None if malformed.

    Read with the number-list grammar (:func:`vector_gym.svg.numbers.scan_number_spans`), with
    an even count. Numbers written with no separator (``0.5.5``, ``0-1``) are refused here:
    RepairGen only edits values whose respelling cannot merge with a neighbour, and that every
    scoring mode reads the same way (the reference's §4.3 token stream rejects ``0.5.5``).
    """
    spans = scan_number_spans(points)
    if not spans or len(spans) % 2:
        return None
    for (_s0, e0, _v0), (s1, _e1, _v1) in zip(spans, spans[1:], strict=False):
        if e0 == s1:
            return None
    return spans


def read_points(points: str) -> list[list[int | float]] | None:
    """Read ``points`` the way the evaluator does (spec-reward.md §7 step 7).

    Split on whitespace; split each piece on commas, drop empty sub-pieces and convert the rest
    with ``float()`` (integral values become ints); pieces without numbers are dropped.

    Examples
    --------
    >>> read_points("82,96 96,66 110,96")
    [[82, 96], [96, 66], [110, 96]]
    >>> read_points("1 2 3 4")
    [[1], [2], [3], [4]]
    """
    out = []
    for piece in points.split():
        nums = []
        for sub in piece.split(","):
            if not sub:
                continue
            try:
                v = float(sub)
            except ValueError:
                return None
            nums.append(int(v) if v.is_integer() else v)
        if nums:
            out.append(nums)
    return out
