"""Path geometry of the reference: segment lengths, the 129 samples, and D(A, B) (spec §8.9.2–8.9.5).

Everything follows spec-reward.md §8.9 (``svg.path`` 7.1 semantics):

- :func:`segment_points` evaluates P(t) of each segment kind (§8.9.2), with the reference's
  operation order (the arc parameter is the angle, not arc length).
- :func:`segment_lengths` uses closed forms for lines, quadratics (with the collinear fallback) and
  circular arcs, and REFINE, the recursive chord subdivision to ``1e-12`` with a minimum depth of
  5, for cubics and elliptical arcs (§8.9.3). REFINE runs **level-synchronously in NumPy**: all
  open intervals of a segment at one depth are processed as arrays and the finished intervals'
  ``two`` values are summed back up the same binary tree, so the leaves and the summation order
  are those of the recursive definition. Distances use ``np.hypot`` (libm ``hypot``, like the
  reference's ``abs(complex)``); Bézier powers are products (``u*u*u``) where the reference calls
  libm ``pow``, a last-bit difference, so results agree with the reference to ~1e-13 (they were
  bit-identical on the worked examples, and D within 6e-14 on 400 random paths).
  :func:`refine_length_reference` is the plain recursive definition, for tests. REFINE lengths are
  memoised per segment, so a produced path that keeps some of the target's curves pays only for
  the new ones. ``method="gauss"`` swaps REFINE for adaptive Gauss–Legendre (~50× faster on new
  curves, D within ~1e-9 of the reference: spec §8.9.3 "precision guidance").
- :func:`sample_path` places the 129 samples by running-sum length fractions with a strict upper
  bound (§8.9.4); :func:`path_distance` is D(A, B) = max(rms, V[245]) over the 258 nearest-sample
  distances (§8.9.5). :func:`samples_for` memoises samples by ``d`` string.

Bounded work: REFINE stops after :data:`MAX_REFINE_NODES` interval evaluations per call,
:data:`MAX_REFINE_LEVEL` intervals at one depth or :data:`MAX_REFINE_DEPTH` levels, and the path
is then unsampleable (its REFINE lengths NaN). The reference would recurse for minutes, or hit
Python's recursion limit, on such curves (coordinates around 1e6 and beyond, where rounding noise
keeps ``two − chord`` above 1e-12).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections.abc import Sequence

import numpy as np

from vector_gym.svg.path_data import (
    ARC,
    CACHE_MAX_CHARS,
    CUBIC,
    LINE,
    MOVE,
    POINT,
    QUAD,
    PathData,
    PathSyntaxError,
    parse_path_data_cached,
)

__all__ = [
    "N_SAMPLES",
    "LENGTH_METHODS",
    "REFINE_ERROR",
    "REFINE_MIN_DEPTH",
    "MAX_REFINE_NODES",
    "MAX_REFINE_DEPTH",
    "MAX_REFINE_LEVEL",
    "segment_points",
    "segment_lengths",
    "refine_length_reference",
    "sample_path",
    "path_distance",
    "distance_factors",
    "samples_for",
]

N_SAMPLES = 129
"""Samples per path: positions j/128, j = 0…128 (spec §8.9.4)."""
REFINE_ERROR = 1e-12
"""REFINE splits an interval while ``two − chord`` exceeds this (svg.path ``ERROR``)."""
REFINE_MIN_DEPTH = 5
"""REFINE always splits down to this depth (svg.path ``MIN_DEPTH``): at least 64 chords."""
MAX_REFINE_NODES = 20_000_000
"""Work bound per :func:`segment_lengths` call, in interval evaluations: about 1 s of CPU. A
corpus cubic needs ~90,000 (so ~200 fresh ones fit), a 6,000-unit cubic ~390,000."""
MAX_REFINE_LEVEL = 1 << 18
"""Most open intervals of one segment at one depth (a memory bound, ~40 MB of temporaries; the
widest level of a corpus cubic holds 32,768, of a 6,000-unit cubic 131,072; a 20,000-unit cubic
still fits, a 1e6-unit one does not). At ``1 << 20`` one hostile cubic (``C1e300 …``) peaked at
~220 MB (review R1)."""
MAX_REFINE_DEPTH = 90
"""Depth bound of REFINE (corpus curves need about 20 levels)."""

_DEG2RAD = math.pi / 180.0
# REFINE length per segment parameter row (kind is implied: a cubic and an arc row never collide
# because arcs store their centre/θ/Δ where cubics store control points). Cleared when full.
_REFINE_CACHE: dict[bytes, float] = {}
_REFINE_CACHE_MAX = 65_536


def segment_points(path: PathData, seg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Evaluate P(t) of the given segments (spec §8.9.2).

    Parameters
    ----------
    path : PathData
    seg : numpy.ndarray, shape (m,), int
        Segment indices into ``path``.
    t : numpy.ndarray, shape (m,), float64
        Segment parameters in [0, 1] (Bézier t, or the arc's angle fraction).

    Returns
    -------
    numpy.ndarray, shape (m, 2), float64
        Points in user units.
    """
    seg = np.asarray(seg, dtype=np.intp)
    t = np.asarray(t, dtype=np.float64)
    kinds = path.kinds[seg]
    prm = path.params
    present = sorted(set(kinds.tolist()))
    if len(present) == 1:
        return _points_of_kind(present[0], prm[seg], t)
    out = np.empty((seg.shape[0], 2))
    for kind in present:
        sel = kinds == kind
        out[sel] = _points_of_kind(kind, prm[seg[sel]], t[sel])
    return out


def _points_of_kind(kind: int, p: np.ndarray, t: np.ndarray) -> np.ndarray:
    """P(t) for rows ``p`` (params) of one kind, in the svg.path operation order.

    x and y are computed together on (m, 2) column pairs: the same operations per coordinate.
    """
    if kind == MOVE or kind == POINT:  # P(t) = the point, whatever t is (even NaN)
        return p[:, 0:2].copy()
    tc = t[:, None]
    if kind == LINE:
        p0 = p[:, 0:2]
        return p0 + (p[:, 2:4] - p0) * tc
    u = 1 - tc
    if kind == QUAD:
        a = u * u
        b = 2 * u * tc
        c = tc * tc
        return a * p[:, 0:2] + b * p[:, 4:6] + c * p[:, 2:4]
    if kind == CUBIC:
        uu = u * u
        tt = tc * tc
        return (uu * u) * p[:, 0:2] + (3 * uu * tc) * p[:, 4:6] + (3 * u * tt) * p[:, 6:8] + (tt * tc) * p[:, 2:4]
    if kind == ARC:
        return _arc_xy(p, t)
    raise ValueError(f"unknown segment kind {kind}")


def _cubic_xy(x0, y0, x1, y1, x2, y2, x3, y3, t):
    u = 1 - t
    uu = u * u
    tt = t * t
    a = uu * u
    b = 3 * uu * t
    c = 3 * u * tt
    d = tt * t
    return np.stack([a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3], axis=1)


def _arc_xy(p: np.ndarray, t: np.ndarray) -> np.ndarray:
    ang = (p[:, 8] + p[:, 9] * t) * _DEG2RAD
    ca = np.cos(ang)
    sa = np.sin(ang)
    cphi = p[:, 10]
    sphi = p[:, 11]
    x = cphi * ca * p[:, 6] - sphi * sa * p[:, 7] + p[:, 4]
    y = sphi * ca * p[:, 6] + cphi * sa * p[:, 7] + p[:, 5]
    return np.stack([x, y], axis=1)


def _line_length(dx: float, dy: float) -> float:
    """√(dx² + dy²) with Python's ``**`` as the reference writes it; ``hypot`` past the float range.

    ``**`` raises OverflowError for a finite square above ~1.8e308 (coordinates near 1e155 and
    beyond); the length itself is then ``math.hypot`` (finite while it fits).
    """
    try:
        return math.sqrt(dx**2 + dy**2)
    except OverflowError:
        return math.hypot(dx, dy)


def _quad_length(x0, y0, qx, qy, x1, y1) -> float:
    """Closed-form quadratic length with the collinear fallback (spec §8.9.3), Python floats.

    A curve whose terms overflow a float (control points near 1e77 and beyond, where Python's
    ``**`` raises OverflowError) has length ``inf``: the path is then unsampleable (§8.9.4).
    """
    try:
        return _quad_length_impl(x0, y0, qx, qy, x1, y1)
    except OverflowError:
        return math.inf


def _quad_length_impl(x0, y0, qx, qy, x1, y1) -> float:
    ax, ay = x0 - 2 * qx + x1, y0 - 2 * qy + y1
    bx, by = 2 * (qx - x0), 2 * (qy - y0)
    try:
        A = 4 * (ax**2 + ay**2)
        B = 4 * (ax * bx + ay * by)
        C = bx**2 + by**2
        Sabc = 2 * math.sqrt(A + B + C)
        A2 = math.sqrt(A)
        A32 = 2 * A * A2
        C2 = 2 * math.sqrt(C)
        BA = B / A2
        return (
            A32 * Sabc + A2 * B * (Sabc - C2) + (4 * C * A - B**2) * math.log((2 * A2 + BA + Sabc) / (BA + C2))
        ) / (4 * A32)
    except (ZeroDivisionError, ValueError):
        na = math.hypot(ax, ay)
        nb = math.hypot(bx, by)
        if na < 1e-10:
            return nb
        k = nb / na
        if k >= 2:
            return nb - na
        return na * (k**2 / 2 - k + 1)


class _RefineBudgetExceeded(Exception):
    """Internal: REFINE needed more work than the bounds allow."""


def _refine_coefs(kind: int, prm: np.ndarray) -> np.ndarray:
    """Per-segment coefficient rows for :func:`_refine_points`, shape (k, m)."""
    if kind == CUBIC:  # x0 y0 c1x c1y c2x c2y x1 y1
        return prm[:, [0, 1, 4, 5, 6, 7, 2, 3]].T.copy()
    # arc: θ Δ cosφ sinφ rx·k ry·k cx cy
    return prm[:, [8, 9, 10, 11, 6, 7, 4, 5]].T.copy()


def _refine_points(kind: int, c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """P(t), shape (2, N), from coefficient columns ``c`` (k, N) already repeated per node."""
    if kind == CUBIC:
        u = 1 - t
        uu = u * u
        tt = t * t
        a = uu * u
        b = 3 * uu * t
        cc = 3 * u * tt
        d = tt * t
        return a * c[0:2] + b * c[2:4] + cc * c[4:6] + d * c[6:8]
    ang = (c[0] + c[1] * t) * _DEG2RAD
    ca = np.cos(ang)
    sa = np.sin(ang)
    x = c[2] * ca * c[4] - c[3] * sa * c[5] + c[6]
    y = c[3] * ca * c[4] + c[2] * sa * c[5] + c[7]
    return np.stack([x, y])


def _refine_length(kind: int, coef: np.ndarray, budget: list[int]) -> float:
    """REFINE of one segment (CUBIC or ARC, coefficients ``coef`` (8, 1)), level-synchronously.

    Nodes of one depth are kept in tree order (children interleaved); interval ends are integers
    j at depth d (t = j / 2^d, exactly the reference's repeated halving). Raises
    _RefineBudgetExceeded past MAX_REFINE_NODES / MAX_REFINE_LEVEL / MAX_REFINE_DEPTH.
    """
    j = np.zeros(1)  # left end index (float: exact integers up to 2^53)
    ends = np.concatenate([_refine_points(kind, coef, np.zeros(1)), _refine_points(kind, coef, np.ones(1))])
    levels: list[tuple[np.ndarray, np.ndarray]] = []  # (two, split) per depth
    depth = 0
    step = 1.0
    # A child's chord is its parent's half (same points, same subtraction): carried, not redone.
    chord = np.hypot(ends[2] - ends[0], ends[3] - ends[1])
    while j.size:
        n = j.size
        budget[0] -= n
        if budget[0] < 0 or depth > MAX_REFINE_DEPTH or n > MAX_REFINE_LEVEL:
            raise _RefineBudgetExceeded
        m = (2 * j + 1) * (step / 2)  # = (a + b) / 2 exactly
        pm = _refine_points(kind, coef, m)
        first = np.hypot(pm[0] - ends[0], pm[1] - ends[1])
        second = np.hypot(ends[2] - pm[0], ends[3] - pm[1])
        two = first + second
        # ``or depth < 5`` as in the reference; a NaN difference compares False, as in Python.
        split = (two - chord > REFINE_ERROR) if depth >= REFINE_MIN_DEPTH else np.ones(n, bool)
        levels.append((two, split))
        k = int(np.count_nonzero(split))
        if k == 0:
            break
        if k < n:
            sj, se, spm = j[split], ends[:, split], pm[:, split]
            sfirst, ssecond = first[split], second[split]
        else:
            sj, se, spm, sfirst, ssecond = j, ends, pm, first, second
        chord = np.empty(2 * k)
        chord[0::2] = sfirst
        chord[1::2] = ssecond
        nj = np.empty(2 * k)
        nj[0::2] = 2 * sj
        nj[1::2] = 2 * sj + 1
        ne = np.empty((4, 2 * k))
        ne[0:2, 0::2] = se[0:2]
        ne[2:4, 0::2] = spm
        ne[0:2, 1::2] = spm
        ne[2:4, 1::2] = se[2:4]
        j, ends = nj, ne
        step /= 2
        depth += 1
    # Sum the tree back up: value = two for a leaf, left + right for a split node.
    vals = None
    for two, split in reversed(levels):
        v = two.copy()
        if vals is not None:
            v[split] = vals[0::2] + vals[1::2]
        vals = v
    return float(vals[0])


_GL_X, _GL_W = np.polynomial.legendre.leggauss(10)
GAUSS_RTOL = 1e-13
"""Adaptive Gauss–Legendre stops splitting an interval when halving changes it by less than this
(relative to the segment scale)."""


_GL_PANELS = 4
_GL_PANEL_A = np.arange(_GL_PANELS) / _GL_PANELS
_GL_PANEL_B = np.arange(1, _GL_PANELS + 1) / _GL_PANELS
_GL_XC = _GL_X[:, None].copy()  # nodes as a column: estimates run on (10, intervals) arrays
_GL_WC = _GL_W[:, None].copy()


def _speed_coefs(kind: int, prm: np.ndarray) -> np.ndarray:
    """Rows of |P'(t)| coefficients per segment, shape (6, m) (CUBIC) or (7, m) (ARC)."""
    if kind == CUBIC:
        # P'(t) = 3[(1−t)² D0 + 2(1−t)t D1 + t² D2] = (α t + β) t + γ with D0 = c1 − p0,
        # D1 = c2 − c1, D2 = p1 − c2: α = 3(D0 − 2 D1 + D2), β = 6(D1 − D0), γ = 3 D0.
        d0x, d0y = prm[:, 4] - prm[:, 0], prm[:, 5] - prm[:, 1]
        d1x, d1y = prm[:, 6] - prm[:, 4], prm[:, 7] - prm[:, 5]
        d2x, d2y = prm[:, 2] - prm[:, 6], prm[:, 3] - prm[:, 7]
        return np.stack(
            [
                3 * (d0x - 2 * d1x + d2x),
                3 * (d0y - 2 * d1y + d2y),
                6 * (d1x - d0x),
                6 * (d1y - d0y),
                3 * d0x,
                3 * d0y,
            ]
        )
    # arc: θ(t) = (θ0 + Δ t)·π/180, P' = w·(−rx sinθ cosφ − ry cosθ sinφ, −rx sinθ sinφ + ry cosθ cosφ)
    return np.stack(
        [prm[:, 8], prm[:, 9], prm[:, 9] * _DEG2RAD, prm[:, 10], prm[:, 11], prm[:, 6], prm[:, 7]]
    )


def _speed(kind: int, c: np.ndarray, t: np.ndarray) -> np.ndarray:
    """|P'(t)| on a (10, k) grid ``t`` for coefficient columns ``c`` (rows of _speed_coefs, k)."""
    if kind == CUBIC:
        dx = (c[0] * t + c[2]) * t + c[4]
        dy = (c[1] * t + c[3]) * t + c[5]
        return np.hypot(dx, dy)
    ang = (c[0] + c[1] * t) * _DEG2RAD
    sa = np.sin(ang)
    ca = np.cos(ang)
    w = c[2]
    dx = w * (-c[3] * sa * c[5] - c[4] * ca * c[6])
    dy = w * (-c[4] * sa * c[5] + c[3] * ca * c[6])
    return np.hypot(dx, dy)


# Cubic fast path (_gauss_cubics_small): the 4 first panels and their 8 halves are fixed intervals
# of [0, 1], so their nodes are computed once here, with the same operations as ``estimate`` below.
_GL_A12 = np.concatenate([_GL_PANEL_A, _GL_PANEL_A, (_GL_PANEL_A + _GL_PANEL_B) / 2])
_GL_B12 = np.concatenate([_GL_PANEL_B, (_GL_PANEL_A + _GL_PANEL_B) / 2, _GL_PANEL_B])
_GL_HALF12 = (_GL_B12 - _GL_A12) / 2
_GL_T12 = ((_GL_A12 + _GL_B12) / 2 + _GL_HALF12 * _GL_XC)[:, None, None, :]  # (10, 1, 1, 12)
_GL_W12 = _GL_WC[:, :, None]  # (10, 1, 1)
GAUSS_FAST_MAX = 64
"""Most cubics of one path measured by the fixed-batch fast path (:func:`_gauss_cubics_small`)."""


GAUSS_FAST_DEPTH = 6
"""Most halvings past the first comparison that :func:`_gauss_cubics_small` follows itself."""
GAUSS_FAST_INTERVALS = 512
"""Most open intervals of one level that :func:`_gauss_cubics_small` follows itself."""


def _gauss_cubics_small(rows: list[list[float]], budget: list[int]) -> list[float] | None:
    """:func:`_gauss_lengths` of at most :data:`GAUSS_FAST_MAX` cubics (param rows), bit for bit.

    The speed coefficients are the Python-float twins of :func:`_speed_coefs` (the same
    operations, so the same values), and the first comparison (4 panels against their 8 halves)
    is one batch of 12 fixed intervals per segment, x and y together: the same node values, the
    same per-interval products and the same node sums down axis 0 as the general loop, in a
    dozen NumPy calls. Panels that need halving are followed level by level as the general loop
    follows them (:func:`_gauss_refine_small`: the same intervals in the same order, the same
    per-interval arithmetic, the finished pieces added per segment in the same order), with
    Python lists for the bookkeeping. Returns ``None`` (nothing charged to ``budget``) past
    :data:`GAUSS_FAST_DEPTH` halvings or :data:`GAUSS_FAST_INTERVALS` open intervals, or when
    the budget would run out: the caller then runs the general loop.
    """
    m = len(rows)
    cost = 2 * (_GL_PANELS * m) * _GL_X.size // 64
    if budget[0] - cost < 0:
        return None  # the general loop raises at its first level, as before
    ax, ay, bx, by, gx, gy = [], [], [], [], [], []
    for r in rows:
        d0x, d0y = r[4] - r[0], r[5] - r[1]
        d1x, d1y = r[6] - r[4], r[7] - r[5]
        d2x, d2y = r[2] - r[6], r[3] - r[7]
        ax.append(3 * (d0x - 2 * d1x + d2x))
        ay.append(3 * (d0y - 2 * d1y + d2y))
        bx.append(6 * (d1x - d0x))
        by.append(6 * (d1y - d0y))
        gx.append(3 * d0x)
        gy.append(3 * d0y)
    c = np.array(ax + ay + bx + by + gx + gy).reshape(3, 2, m, 1)
    t = _GL_T12
    d = c[0] * t  # (10, 2, m, 12): P'(t) = (c0 t + c1) t + c2 per node, interval and axis
    d += c[1]
    d *= t
    d += c[2]
    sp = np.hypot(d[:, 0], d[:, 1])
    sp *= _GL_W12
    est = (_GL_HALF12 * np.add.reduce(sp, axis=0)).tolist()  # (m, 12)
    rtol = GAUSS_RTOL
    isfinite = math.isfinite
    out = []
    lims = []
    # The general loop's first level, per segment and panel in its order: (segment, panel,
    # left half, right half) of the panels that need halving.
    keep: list[tuple[int, int, float, float]] = []
    pieces: list[list[tuple[int, float]]] = [[]]
    for s, e in enumerate(est):
        w0, w1, w2, w3 = e[0], e[1], e[2], e[3]
        sw = abs(((w0 + w1) + w2) + w3)
        scale = sw if (sw > 1e-300 or sw != sw) else 1e-300  # np.maximum keeps a NaN
        lim = rtol * scale
        lims.append(lim)
        total = 0.0
        for j in range(4):
            left, right = e[4 + j], e[8 + j]
            both = left + right
            if not (abs(both - e[j]) <= lim or not isfinite(both)):
                keep.append((s, j, left, right))
            else:
                pieces[0].append((s, both))
                total += both
        out.append(total)
    if keep:
        rest = _gauss_refine_small(keep, (ax, ay, bx, by, gx, gy), lims, budget[0] - cost)
        if rest is None:
            return None
        spent, later = rest
        pieces.extend(later)
        out = [0.0] * m  # added again below, in the general loop's order
        for level in pieces:
            for s, v in level:
                out[s] += v
        cost += spent
    budget[0] -= cost
    return out


def _gauss_refine_small(
    keep: list[tuple[int, int, float, float]],
    coef: tuple[list[float], ...],
    lims: list[float],
    budget: int,
) -> tuple[int, list[list[tuple[int, float]]]] | None:
    """The general loop's levels after the first comparison, with Python bookkeeping.

    ``keep`` holds the panels that need halving (segment, panel, left and right half
    estimates), in the general loop's order. Each level is one batch of estimates (the
    ``estimate`` of :func:`_gauss_lengths`, the same operations per interval); the intervals
    that still need halving are ordered as the general loop orders them (all left halves, then
    all right halves). Returns the budget spent and the finished pieces per level, or ``None``
    past the depth, width or budget bounds.
    """
    own = [s for s, _j, _l, _r in keep]
    a = [float(_GL_PANEL_A[j]) for _s, j, _l, _r in keep]
    b = [float(_GL_PANEL_B[j]) for _s, j, _l, _r in keep]
    mid = [(x + y) / 2 for x, y in zip(a, b, strict=True)]
    # The first level's halves become the second level's intervals.
    own = own + own
    a, b = a + mid, mid + b
    whole = [lft for _s, _j, lft, _r in keep] + [rgt for _s, _j, _l, rgt in keep]
    spent = 0
    levels: list[list[tuple[int, float]]] = []
    rtol_lims = lims
    isfinite = math.isfinite
    depth = 1
    while own:
        k = len(own)
        spent += 2 * k * _GL_X.size // 64
        if budget - spent < 0 or depth > GAUSS_FAST_DEPTH or k > GAUSS_FAST_INTERVALS:
            return None
        mid = [(x + y) / 2 for x, y in zip(a, b, strict=True)]
        aa = np.array(a + mid)
        bb = np.array(mid + b)
        half = (bb - aa) / 2
        t = (aa + bb) / 2 + half * _GL_XC  # (10, 2k)
        idx = own + own
        c = np.array([v[s] for v in coef for s in idx]).reshape(6, 2 * k)  # as coef[:, own]
        dx = c[0] * t  # (c0 t + c2) t + c4, and (c1 t + c3) t + c5
        dx += c[2]
        dx *= t
        dx += c[4]
        dy = c[1] * t
        dy += c[3]
        dy *= t
        dy += c[5]
        sp = np.hypot(dx, dy)
        sp *= _GL_WC
        halves = (half * np.add.reduce(sp, axis=0)).tolist()
        done: list[tuple[int, float]] = []
        k_own: list[int] = []
        k_a: list[float] = []
        k_mid: list[float] = []
        k_b: list[float] = []
        k_left: list[float] = []
        k_right: list[float] = []
        for i in range(k):
            s = own[i]
            left, right = halves[i], halves[k + i]
            both = left + right
            if abs(both - whole[i]) <= rtol_lims[s] or not isfinite(both):
                done.append((s, both))
            else:
                k_own.append(s)
                k_a.append(a[i])
                k_mid.append(mid[i])
                k_b.append(b[i])
                k_left.append(left)
                k_right.append(right)
        levels.append(done)
        own = k_own + k_own
        a, b = k_a + k_mid, k_mid + k_b
        whole = k_left + k_right
        depth += 1
    return spent, levels


def _gauss_lengths(path: PathData, segs: np.ndarray, budget: list[int]) -> np.ndarray:
    """Adaptive 10-point Gauss–Legendre arc length of segments ``segs`` (all CUBIC or all ARC).

    Each interval's estimate is compared with the sum of its two halves' estimates; an interval
    is done when they agree to :data:`GAUSS_RTOL` of its segment's whole-interval estimate (or
    are not finite), and the halves of the others are refined, all segments of one depth in one
    batch. Every reduction has a fixed order (node sums down the 10 nodes, finished pieces added
    in depth order), so a segment's length does not depend on the other segments measured with
    it.
    """
    kind = int(path.kinds[segs[0]])
    coef = _speed_coefs(kind, path.params[segs])
    m_segs = len(segs)
    gl_x, gl_w = _GL_XC, _GL_WC

    def estimate(own: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        half = (b - a) / 2
        t = (a + b) / 2 + half * gl_x  # (10, k)
        sp = _speed(kind, coef[:, own], t)
        sp *= gl_w
        return half * np.add.reduce(sp, axis=0)

    # Start from _GL_PANELS equal panels per segment (one batch), so typical curves finish at
    # the first comparison instead of after several halvings.
    panels = _GL_PANELS
    own = np.repeat(np.arange(m_segs), panels)
    a = np.tile(_GL_PANEL_A, m_segs)
    b = np.tile(_GL_PANEL_B, m_segs)
    whole = estimate(own, a, b)
    w = whole.reshape(m_segs, panels)
    seg_whole = w[:, 0].copy()
    for j in range(1, panels):  # fixed order
        seg_whole += w[:, j]
    scale = np.maximum(np.abs(seg_whole), 1e-300)
    pieces: list[tuple[np.ndarray, np.ndarray]] = []  # (segment, finished value) per depth
    depth = 0
    while own.size:
        k = own.size
        budget[0] -= 2 * k * _GL_X.size // 64  # comparable units to REFINE nodes
        if budget[0] < 0 or depth > MAX_REFINE_DEPTH or k > MAX_REFINE_LEVEL:
            raise _RefineBudgetExceeded
        mid = (a + b) / 2
        halves = estimate(np.concatenate([own, own]), np.concatenate([a, mid]), np.concatenate([mid, b]))
        left, right = halves[:k], halves[k:]
        both = left + right
        done = (np.abs(both - whole) <= GAUSS_RTOL * scale[own]) | ~np.isfinite(both)
        if done.all():
            pieces.append((own, both))
            break
        pieces.append((own[done], both[done]))
        keep = ~done
        own = np.concatenate([own[keep], own[keep]])
        a, b = np.concatenate([a[keep], mid[keep]]), np.concatenate([mid[keep], b[keep]])
        whole = np.concatenate([left[keep], right[keep]])
        depth += 1
    total = np.zeros(m_segs)
    for idx, val in pieces:
        np.add.at(total, idx, val)
    return total


LENGTH_METHODS = ("refine", "gauss")
"""``"refine"``: the reference's chord subdivision (spec §8.9.3, parity); ``"gauss"``: adaptive
Gauss–Legendre (true arc length to ~1e-13; the reference under-estimates by up to ~5e-9 on corpus
cubics, so D moves by ~1e-9; spec §8.9.3 "precision guidance"). ~100× faster on cold cubics."""


def _lengths(path: PathData, method: str = "refine") -> tuple[np.ndarray, bool]:
    """Segment lengths and whether REFINE gave up (then the REFINE lengths are NaN)."""
    if method not in LENGTH_METHODS:
        raise ValueError(f"expected method in {LENGTH_METHODS}, got {method!r}")
    with np.errstate(all="ignore"):  # inf/NaN coordinates (``1e999``) follow IEEE quietly
        return _lengths_impl(path, method)


SMALL_PATH = 64
"""Paths of at most this many segments are measured with Python bookkeeping (:func:`_lengths_small`)."""


def _lengths_impl(path: PathData, method: str) -> tuple[np.ndarray, bool]:
    n = len(path.kind_list)
    if 0 < n <= SMALL_PATH:
        out, gave_up = _lengths_small(path, method)
        return np.array(out), gave_up
    return _lengths_large(path, method)


def _lengths_small(path: PathData, method: str) -> tuple[list[float], bool]:
    """:func:`_lengths_large` of a short path as a list, bit for bit.

    Lines, quadratics and circular arcs are the same Python-float formulas; cubics (Gauss) go to
    :func:`_gauss_cubics_small`; elliptical arcs and REFINE take the array code on the same
    segment groups, in the same order and with the same shared work budget.
    """
    kinds = path.kind_list
    rows = path.rows  # Python floats, the leading columns of ``params``
    out = [0.0] * len(kinds)
    cubics: list[int] = []
    ellipses: list[int] = []
    for i, k in enumerate(kinds):
        if k == LINE:
            r = rows[i]
            out[i] = _line_length(r[2] - r[0], r[3] - r[1])
        elif k == CUBIC:
            cubics.append(i)
        elif k == QUAD:
            r = rows[i]
            out[i] = _quad_length(r[0], r[1], r[4], r[5], r[2], r[3])
        elif k == ARC:
            r = rows[i]
            if r[12] == r[13]:
                out[i] = abs(r[6] * r[9] * math.pi / 180)
            else:
                ellipses.append(i)
    if not cubics and not ellipses:
        return out, False
    budget = [MAX_REFINE_NODES]
    for group, kind in ((cubics, CUBIC), (ellipses, ARC)):
        if not group:
            continue
        vals = None
        if method == "gauss" and kind == CUBIC and len(group) <= GAUSS_FAST_MAX:
            vals = _gauss_cubics_small([rows[i] for i in group], budget)
        if vals is None:
            arr, gave_up = _group_lengths(path, np.array(group, dtype=np.intp), method, budget)
            vals = arr.tolist()
            if gave_up:
                for i, v in zip(group, vals, strict=True):
                    out[i] = v
                return out, True
        for i, v in zip(group, vals, strict=True):
            out[i] = v
    return out, False


def _lengths_large(path: PathData, method: str) -> tuple[np.ndarray, bool]:
    kinds = path.kinds
    prm = path.params
    n = len(kinds)
    out = np.zeros(n)
    if n == 0:
        return out, False
    line = np.flatnonzero(kinds == LINE)
    if line.size:
        # Python's ``**`` (libm pow) as the reference writes it; NumPy's square can differ in
        # the last bit.
        out[line] = [_line_length(r[2] - r[0], r[3] - r[1]) for r in prm[line, :4].tolist()]
    for i in np.flatnonzero(kinds == QUAD):
        r = prm[i].tolist()  # Python floats: the fallback relies on ZeroDivisionError/ValueError
        out[i] = _quad_length(r[0], r[1], r[4], r[5], r[2], r[3])
    arcs = np.flatnonzero(kinds == ARC)
    circ = arcs[prm[arcs, 12] == prm[arcs, 13]]
    if circ.size:
        out[circ] = np.abs(prm[circ, 6] * prm[circ, 9] * math.pi / 180)
    budget = [MAX_REFINE_NODES]
    for group in (np.flatnonzero(kinds == CUBIC), arcs[prm[arcs, 12] != prm[arcs, 13]]):
        if not group.size:
            continue
        vals, gave_up = _group_lengths(path, group, method, budget)
        out[group] = vals
        if gave_up:
            return out, True
    return out, False


def _group_lengths(
    path: PathData, group: np.ndarray, method: str, budget: list[int]
) -> tuple[np.ndarray, bool]:
    """Lengths of one segment group (all CUBIC, or all elliptical ARC) and whether it gave up.

    On giving up the values from the first segment that failed on are NaN (Gauss: all of them).
    """
    kinds = path.kinds
    prm = path.params
    if method == "gauss":
        try:
            return _gauss_lengths(path, group, budget), False
        except _RefineBudgetExceeded:
            return np.full(group.size, np.nan), True
    out = np.zeros(group.size)
    # Segments seen before (outputs mostly repeat the target's curves) come from the cache.
    todo = []
    for pos, i in enumerate(group.tolist()):
        hit = _REFINE_CACHE.get(prm[i].tobytes())
        if hit is None:
            todo.append((pos, i))
        else:
            out[pos] = hit
    for at, (pos, i) in enumerate(todo):
        kind = int(kinds[i])
        try:
            v = _refine_length(kind, _refine_coefs(kind, prm[i : i + 1]), budget)
        except _RefineBudgetExceeded:
            out[[p for p, _ in todo[at:]]] = np.nan
            return out, True
        out[pos] = v
        if len(_REFINE_CACHE) > _REFINE_CACHE_MAX:
            _REFINE_CACHE.clear()
        _REFINE_CACHE[prm[i].tobytes()] = v
    return out, False


def segment_lengths(path: PathData, method: str = "refine") -> np.ndarray:
    """Return the length of every segment, as the reference computes it (spec §8.9.3).

    Parameters
    ----------
    path : PathData
    method : {"refine", "gauss"}, default "refine"
        How cubics and elliptical arcs are measured (:data:`LENGTH_METHODS`).

    Returns
    -------
    numpy.ndarray, shape (n,), float64
        Lengths in user units: Move and degenerate arc 0; line (and zero-radius arc)
        √(dx² + dy²); quadratic closed form (collinear fallback); circular arc (rx = ry as
        written) |rx·k·Δ·π/180|; cubic and elliptical arc by REFINE. NaN where REFINE exceeded
        its work bounds (:data:`MAX_REFINE_NODES`, :data:`MAX_REFINE_LEVEL`).

    Examples
    --------
    >>> from vector_gym.svg.path_data import parse_path_data
    >>> segment_lengths(parse_path_data("M0 0 L3 4 A5 5 0 0 1 13 4 Q13 4 13 4")).tolist()
    [0.0, 5.0, 15.707963267948966, 0.0]
    """
    return _lengths(path, method)[0]


def _point_scalar(kind: int, r: list[float], t: float) -> tuple[float, float]:
    """P(t) of one segment in pure Python, written as svg.path writes it (``**`` powers)."""
    if kind == MOVE or kind == POINT:
        return r[0], r[1]
    if kind == LINE:
        return r[0] + (r[2] - r[0]) * t, r[1] + (r[3] - r[1]) * t
    if kind == QUAD:
        a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t**2
        return a * r[0] + b * r[4] + c * r[2], a * r[1] + b * r[5] + c * r[3]
    if kind == CUBIC:
        a, b, c, d = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
        return (a * r[0] + b * r[4] + c * r[6] + d * r[2], a * r[1] + b * r[5] + c * r[7] + d * r[3])
    ang = math.radians(r[8] + r[9] * t)
    ca, sa = math.cos(ang), math.sin(ang)
    return (r[10] * ca * r[6] - r[11] * sa * r[7] + r[4], r[11] * ca * r[6] + r[10] * sa * r[7] + r[5])


def refine_length_reference(path: PathData, i: int) -> float:
    """Length of segment ``i`` by the plain recursive REFINE of spec §8.9.3 (for tests).

    Pure Python, one point at a time, with the reference's operation order; agrees with
    :func:`segment_lengths` to ~1e-13. Slow (~0.2 s per corpus cubic) and unbounded.
    """
    kind = int(path.kinds[i])
    row = path.params[i].tolist()

    def refine(a, b, pa, pb, depth):
        m = (a + b) / 2
        pm = _point_scalar(kind, row, m)
        # abs(complex) is libm hypot, as in svg.path (math.hypot differs in the last bit)
        chord = abs(complex(pb[0] - pa[0], pb[1] - pa[1]))
        two = abs(complex(pm[0] - pa[0], pm[1] - pa[1])) + abs(complex(pb[0] - pm[0], pb[1] - pm[1]))
        if (two - chord > REFINE_ERROR) or (depth < REFINE_MIN_DEPTH):
            return refine(a, m, pa, pm, depth + 1) + refine(m, b, pm, pb, depth + 1)
        return two

    return refine(0.0, 1.0, _point_scalar(kind, row, 0.0), _point_scalar(kind, row, 1.0), 0)


_POSITIONS = np.arange(N_SAMPLES) / 128.0
_INNER = _POSITIONS[1:-1]


def sample_path(path: PathData, method: str = "refine") -> np.ndarray | None:
    """Return the 129 samples of a path, or ``None`` when it is unsampleable (spec §8.9.4).

    Sample j sits at p = j/128. p = 0: P(0) of the first segment (of the second when the first is
    a Move and there are two or more); p = 1: P(1) of the last segment; otherwise the segment i
    with the smallest running-sum fraction f_i > p (strictly), at local parameter
    ``(p − f_{i−1}) / (f_i − f_{i−1})``. A zero-length path repeats P(0) of its first segment.

    Parameters
    ----------
    path : PathData
    method : {"refine", "gauss"}, default "refine"
        Length method for cubics and elliptical arcs (:data:`LENGTH_METHODS`).

    Returns
    -------
    numpy.ndarray, shape (129, 2), float64, or None
        Points in user units; ``None`` for an empty path, when no segment has a fraction above
        some position (non-finite lengths), or when REFINE exceeded its work bounds.

    Examples
    --------
    >>> from vector_gym.svg.path_data import parse_path_data
    >>> sample_path(parse_path_data("M0 0 L10 0 M0 10 L10 10"))[64].tolist()
    [0.0, 10.0]
    >>> sample_path(parse_path_data("")) is None
    True
    """
    n = len(path.kind_list)
    if n == 0:
        return None
    if method not in LENGTH_METHODS:
        raise ValueError(f"expected method in {LENGTH_METHODS}, got {method!r}")
    if n <= SMALL_PATH and _moderate(path):
        if n == 2 and method == "gauss" and path.kind_list == _MOVE_CUBIC:
            row = path.rows[1]
            if _gauss_length_surely_positive(row):
                # ``M`` + one cubic of finite positive length: every sample is on the cubic at
                # the sample positions, whatever the length is (see _sample_path_impl).
                return _one_segment(CUBIC, row)
        return _sample_path_impl(path, method, n)
    with np.errstate(all="ignore"):  # inf/NaN coordinates (``1e999``) follow IEEE quietly
        return _sample_path_impl(path, method, n)


MODERATE = 1e100
"""A short path of lines and Bézier curves whose coordinates are all within ±``MODERATE`` is
sampled without entering ``np.errstate``: no operation on its values can overflow, divide by
zero or be invalid (lengths and speeds stay below ~1e102, placement divides by positive
fraction gaps only), so NumPy has nothing to report either way."""

_PLAIN_KINDS = frozenset({MOVE, LINE, QUAD, CUBIC})


_MOVE_CUBIC = [MOVE, CUBIC]
_NOT_TINY = 1e-100


def _gauss_length_surely_positive(r: Sequence[float]) -> bool:
    """Whether Gauss measures this cubic (a row of a :func:`_moderate` path) finite and positive.

    Then, in a path ``M`` + this cubic, the running fractions are exactly ``0, 0, 1`` (0/L and
    L/L) and :func:`_sample_path_impl` samples the cubic at the sample positions
    (:func:`_one_segment`): the length itself is not needed, so it is not measured (a cold
    Gauss batch costs ~70 us). Finite: the coordinates are moderate. Positive and never given
    up: the control points are not all equal (the speed is a non-zero quadratic, zero at most
    at two of the 120 nodes) and every coordinate is 0 or at least 1e-100 in magnitude (so
    distinct coordinates differ by ~1e-116 or more: no subnormal speeds, whose rounding could
    keep the relative convergence test from ever passing); the halvings near a cusp converge
    geometrically, far within the depth and work bounds.
    """
    x0, y0 = r[0], r[1]
    if r[2] == x0 and r[3] == y0 and r[4] == x0 and r[5] == y0 and r[6] == x0 and r[7] == y0:
        return False
    tiny = _NOT_TINY
    for v in (x0, y0, r[2], r[3], r[4], r[5], r[6], r[7]):
        if v != 0.0 and not abs(v) >= tiny:
            return False
    return True


def _moderate(path: PathData) -> bool:
    """Whether every segment is a Move, line or Bézier and every coordinate is within ±MODERATE."""
    if not _PLAIN_KINDS.issuperset(path.kind_list):
        return False
    # A NaN or inf makes the sum NaN or inf, which fails the comparison too.
    return sum(map(abs, itertools.chain.from_iterable(path.rows))) <= MODERATE


def _sample_path_impl(path: PathData, method: str, n: int) -> np.ndarray | None:
    if n <= SMALL_PATH:
        lengths, gave_up = _lengths_small(path, method)
    else:
        arr, gave_up = _lengths_large(path, method)
        lengths = arr.tolist()
    if gave_up:
        return None
    total = 0.0
    for v in lengths:  # left to right, as CPython 3.11's sum()
        total += v
    kinds = path.kind_list
    first = 1 if (kinds[0] == MOVE and n >= 2) else 0
    if total == 0:
        seg = np.empty(N_SAMPLES, dtype=np.intp)
        loc = np.empty(N_SAMPLES)
        seg[0] = first
        seg[-1] = n - 1
        loc[0] = 0.0
        loc[-1] = 1.0
        seg[1:-1] = 0
        loc[1:-1] = 0.0
        pts = segment_points(path, seg, loc)
        pts.flags.writeable = False
        return pts
    fr: list[float] = [0.0]  # fr[i + 1] is the running fraction f_i; fr[0] = 0 is f_{-1}
    acc = 0.0
    rising = True
    for v in lengths:
        step = v / total
        if not step >= 0.0:
            rising = False
        acc += step
        fr.append(acc)
    if first == n - 1 and fr[first] == 0.0 and acc == 1.0:
        # One segment holds the whole length (``M`` + one segment): every sample is on it, at
        # local parameter (p − 0) / (1 − 0) = p, the sample positions themselves.
        pts = _one_segment(kinds[first], path.rows[first])
        if pts is not None:
            return pts
    inner = _INNER
    f = np.array(fr)
    f1 = f[1:]
    if all(math.isfinite(x) for x in fr):
        idx = f1.searchsorted(inner, side="right")  # the method: no Python wrapper
        # sorted fractions, sorted positions: the last index is the largest
        last = idx[-1] if rising else idx.max()
    else:
        idx = np.array([bisect.bisect_right(fr, p, 1) - 1 for p in inner.tolist()], dtype=np.intp)
        last = idx.max()
    if last >= n:
        return None
    # Segment idx at (p − f_{idx−1}) / (f_idx − f_{idx−1}), f_{−1} = 0: for idx = 0 this is
    # (p − 0) / (f_0 − 0), exactly p / f_0.
    prev = f[idx]
    loc = np.concatenate((_LOC_FIRST, (inner - prev) / (f1[idx] - prev), _LOC_LAST))
    seg = np.concatenate(((first,), idx, (n - 1,)))
    # Every sample lies on a segment from ``first`` on: with a leading Move, f_0 = 0 <= p for
    # every inner position, so no inner sample picks segment 0. One kind there: one formula.
    one = n <= SMALL_PATH and kinds[first:].count(kinds[-1]) == n - first
    if one and kinds[-1] == CUBIC:
        pts = _cubic_points(path.params, seg, loc)
    elif one:
        pts = _points_of_kind(kinds[-1], path.params[seg], loc)
    else:
        pts = segment_points(path, seg, loc)
    pts.flags.writeable = False
    return pts


_LOC_FIRST = np.zeros(1)
_LOC_LAST = np.ones(1)


def _bases(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bernstein weights at ``t``: (a, b, c, d) of :func:`_cubic_points` and (a, b, c) of the
    quadratic in :func:`_points_of_kind`, with their operations, shapes (4, 1, m), (3, 1, m)."""
    u = 1 - t
    uu = u * u
    tt = t * t
    cubic = np.stack([uu * u, (uu * 3) * t, (u * 3) * tt, tt * t])[:, None, :]
    quad = np.stack([u * u, (2 * u) * t, t * t])[:, None, :]
    return cubic, quad


_CUBIC_BASIS, _QUAD_BASIS = _bases(_POSITIONS)
_CUBIC_BASIS.flags.writeable = False
_QUAD_BASIS.flags.writeable = False


def _one_segment(kind: int, r: tuple[float, ...]) -> np.ndarray | None:
    """The 129 samples of one segment at the sample positions (``None`` for other kinds).

    Bit for bit what the array code computes for a path whose samples all lie on this segment
    at local parameters equal to the positions: the weights of :data:`_CUBIC_BASIS` and
    :data:`_QUAD_BASIS` are its own products on those parameters, and the terms are summed in
    its order, ``((a·P0 + b·C1) + c·C2) + d·P1`` (cubic), ``(a·P0 + b·Q) + c·P1`` (quadratic),
    ``P0 + (P1 − P0)·t`` (line), on (2, 129) coordinate rows. Returns a C-contiguous (129, 2)
    array.
    """
    if kind == CUBIC:
        ctrl = np.array((r[0], r[1], r[4], r[5], r[6], r[7], r[2], r[3])).reshape(4, 2, 1)
        terms = _CUBIC_BASIS * ctrl  # (4, 2, 129)
        xy = terms[0] + terms[1]
        xy += terms[2]
        xy += terms[3]
    elif kind == QUAD:
        ctrl = np.array((r[0], r[1], r[4], r[5], r[2], r[3])).reshape(3, 2, 1)
        terms = _QUAD_BASIS * ctrl  # (3, 2, 129)
        xy = terms[0] + terms[1]
        xy += terms[2]
    elif kind == LINE:
        xy = _POSITIONS * np.array(((r[2] - r[0],), (r[3] - r[1],)))
        xy += np.array(((r[0],), (r[1],)))
    else:
        return None
    pts = xy.T.copy()
    pts.flags.writeable = False
    return pts


def _cubic_points(prm: np.ndarray, seg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """:func:`_points_of_kind` of cubics, bit for bit, on (2, m) coordinate rows (fewer calls).

    The same products and the same left-to-right sums per coordinate:
    ``((a·P0 + b·C1) + c·C2) + d·P1`` with ``a = (u·u)·u``, ``b = (3·(u·u))·t``,
    ``c = (3·u)·(t·t)``, ``d = (t·t)·t``. Returns an (m, 2) C-contiguous array.
    """
    q = prm[seg].T  # (16, m) rows: x0 y0 x1 y1 c1x c1y c2x c2y ...
    out = np.empty((t.shape[0], 2))
    r = out.T
    u = 1 - t
    uu = u * u
    tt = t * t
    np.multiply(uu * u, q[0:2], out=r)
    uu *= 3
    uu *= t
    r += uu * q[4:6]
    u *= 3
    u *= tt
    r += u * q[6:8]
    tt *= t
    r += tt * q[2:4]
    return out


def distance_factors(b: np.ndarray) -> np.ndarray:
    """The ``B`` side of :func:`path_distance`'s grid product, for a ``b`` used many times.

    Parameters
    ----------
    b : numpy.ndarray, shape (m, 2), float64

    Returns
    -------
    numpy.ndarray, shape (2, 2, m), float64
        Per axis the rows ``[1, ..., 1]`` and ``-b[:, axis]``.
    """
    right = np.empty((2, 2, b.shape[0]))
    right[:, 0] = 1.0
    np.negative(b.T, out=right[:, 1])
    return right


def path_distance(a: np.ndarray, b: np.ndarray, b_factors: np.ndarray | None = None) -> float:
    """Return D(A, B) = max(rms, V[245]) of spec §8.9.5.

    V is the 258 nearest-neighbour distances (each sample of A to all of B, and of B to all of A),
    sorted; rms = √(ΣV²/258); V[245] is the 246th smallest.

    Parameters
    ----------
    a, b : numpy.ndarray, shape (129, 2), float64
        Samples from :func:`sample_path`.
    b_factors : numpy.ndarray, optional
        :func:`distance_factors` of ``b`` (computed here when not given).

    Returns
    -------
    float
        Distance in user units; symmetric.

    Examples
    --------
    >>> from vector_gym.svg.path_data import parse_path_data
    >>> A = sample_path(parse_path_data("M0 0 L10 0"))
    >>> path_distance(A, A), path_distance(A, A + [0, 3])
    (0.0, 3.0)
    """
    n = a.shape[0]
    # The grids of differences a_j - b_k, one per axis, as one batched matrix product:
    # [a_j, 1] . [1, -b_k]. Both products are exact (factors +-1) and the two-term sum is rounded
    # once, so every entry is the subtraction's own double (up to the sign of a zero, which the
    # square drops) whatever the BLAS kernel's order or fused multiply-adds; about 3x cheaper
    # than two broadcast subtractions over (129, 129).
    left = np.empty((2, n, 2))
    left[:, :, 0] = a.T
    left[:, :, 1] = 1.0
    # Coordinates past about 1e154 square to inf and inf/NaN samples subtract to NaN: IEEE gives
    # the defined value, so the floating-point warnings are silenced (a caller running with
    # warnings as errors still gets D).
    with np.errstate(over="ignore", invalid="ignore"):
        grid = left @ (distance_factors(b) if b_factors is None else b_factors)
        grid *= grid
        sq = grid[0]
        sq += grid[1]
        # Nearest partners by squared distance (cheap), then the distance itself with hypot, as
        # |A_j − B_k| = abs(complex) in the reference; the partners' differences are recomputed
        # (the same subtractions as in the grid).
        d = np.concatenate([a - b[sq.argmin(axis=1)], a[sq.argmin(axis=0)] - b])
        v = np.hypot(d[:, 0], d[:, 1])
        v.sort()
        # Sorted, summed left to right: a cumulative sum adds in exactly that order.
        total = float((v * v).cumsum()[-1])
    rms = math.sqrt(total / v.size)
    p95 = float(v[245])
    return max(rms, p95)


def samples_for(d: str, parity: bool = False, method: str = "refine") -> np.ndarray | None:
    """Cached 129 samples of a ``d`` string (``None`` when it does not parse or is unsampleable).

    Parameters
    ----------
    d : str
        Path data.
    parity : bool, default False
        Passed to :func:`vector_gym.svg.path_data.parse_path_data` (truncation rule).
    method : {"refine", "gauss"}, default "refine"
        Length method (:data:`LENGTH_METHODS`); ``"gauss"`` is much faster on new curves.

    Returns
    -------
    numpy.ndarray, shape (129, 2), float64 (read-only), or None
        Memoised for strings up to ``CACHE_MAX_CHARS`` characters.

    Examples
    --------
    >>> samples_for("M0 0 L") is None, samples_for("M0 0 L8 0")[64].tolist()
    (True, [4.0, 0.0])
    """
    if not isinstance(d, str) or len(d) > CACHE_MAX_CHARS:
        return _samples_uncached(d, parity, method)
    return _samples_cached(d, bool(parity), method)


def _samples_uncached(d: str, parity: bool, method: str) -> np.ndarray | None:
    p = parse_path_data_cached(d, parity)
    if isinstance(p, PathSyntaxError):
        return None
    return sample_path(p, method)


_samples_cached = functools.lru_cache(maxsize=8192)(_samples_uncached)
