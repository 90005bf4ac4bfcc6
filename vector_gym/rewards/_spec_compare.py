"""Requested-edit comparisons: tolerances, progress and the per-kind verdicts (spec-reward.md §8).

Private helper of :mod:`vector_gym.rewards.spec`. Distances are unrounded here; the caller
rounds them for the report (§8.4). Every pass decision is ``d <= t + 1e-9`` on unrounded values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from vector_gym.rewards._spec_lookup import to_float
from vector_gym.svg.canonical import (
    NUMBER_PATTERN,
    REFERENCE,
    SVG2,
    is_invalid,
)
from vector_gym.svg.color import (
    COLOR_ATTRIBUTES,
    canonical_color,
    delta_e76,
    hex_to_lab,
    normalise_color,
)
from vector_gym.svg.geometry import distance_factors, path_distance, samples_for
from vector_gym.svg.path_data import PathSyntaxError, parse_path_data_cached
from vector_gym.svg.viewbox import scan_viewbox_reference

__all__ = ["Match", "Viewport", "Kind", "scalar_kind", "bounded", "progress"]

SLACK = 1e-9
"""Pass slack: a check passes iff d <= t + 1e-9 (spec §8.2, §15)."""

_HORIZONTAL = frozenset({"cx", "rx", "width", "x", "x1", "x2"})
_VERTICAL = frozenset({"cy", "ry", "height", "y", "y1", "y2"})

_NUMBER_FULL = re.compile(NUMBER_PATTERN)
_HEX6 = re.compile(r"#[0-9a-f]{6}")


@dataclass(frozen=True, slots=True)
class Viewport:
    """The target viewport (W, H) in user units (spec §8.3)."""

    width: float
    height: float

    @property
    def small(self) -> float:
        """min(W, H)."""
        return min(self.width, self.height)


class Kind(NamedTuple):
    """One row of the §8.2 tolerance table: report name, ratio r, floor f, cap c."""

    name: str
    ratio: float
    floor: float
    cap: float


class Match(NamedTuple):
    """A kind verdict before validity gating (unrounded numbers, progress already per §8.4).

    A named tuple (built several times per check, so cheaper than a frozen dataclass).
    """

    passed: bool
    comparison: str
    distance: float | None = None
    tolerance: float | None = None
    baseline: float | None = None
    progress: float | None = None


def scalar_kind(attr: str, after: float, vp: Viewport) -> Kind:
    """Tolerance row of a scalar attribute (spec §8.2 table)."""
    if attr in _HORIZONTAL:
        return Kind("numeric-delta", 0.5, 0.75, max(0.75, 0.025 * vp.width))
    if attr in _VERTICAL:
        return Kind("numeric-delta", 0.5, 0.75, max(0.75, 0.025 * vp.height))
    if attr == "opacity":
        return Kind("opacity-delta", 0.5, 0.03, 0.12)
    if attr == "stroke-width":
        return Kind("line-weight-delta", 0.5, 0.25, max(1.0, 0.40 * abs(after)))
    return Kind("numeric-delta", 0.5, 0.75, max(0.75, 0.02 * vp.small))


def list_kind(attr: str, vp: Viewport) -> Kind:
    """Tolerance row of a numeric list (``points-rms`` / ``list-rms``, spec §8.2)."""
    return Kind(
        "points-rms" if attr == "points" else "list-rms", 0.55, 0.75, max(0.75, 0.03 * vp.small)
    )


COLOR_KIND = Kind("color-lab", 0.45, 4.0, 18.0)


def path_kind(vp: Viewport) -> Kind:
    """``path-shape`` row (spec §8.2, §8.9.6)."""
    return Kind("path-shape", 0.70, 0.75, max(0.75, 0.03 * vp.small))


def coord_kind(vp: Viewport) -> Kind:
    """``path-coordinate-rms`` row (spec §8.2, §8.9.7)."""
    return Kind("path-coordinate-rms", 0.70, 0.50, max(0.50, 0.025 * vp.small))


def bounded(delta: float | None, kind: Kind) -> float:
    """Tolerance t from the baseline δ (spec §8.2).

    δ unknown → c; δ ≤ 0 → min(c, f); else min(c, max(f, r·δ), 0.9·δ).

    Examples
    --------
    >>> bounded(20, Kind("numeric-delta", 0.5, 0.75, 5.0))     # §14 synthetic: t = min(5, 10, 18)
    5.0
    >>> bounded(0.5, Kind("numeric-delta", 0.5, 0.75, 5.5))    # §8.2: 0.9·δ overrides the floor
    0.45
    """
    c = kind.cap
    if delta is None:
        return c
    if delta <= 0:
        return min(c, kind.floor)
    return min(c, max(kind.floor, kind.ratio * delta), 0.9 * delta)


def progress(d: float, delta: float | None, parity: bool) -> float | None:
    """Per-check progress q of a distance-based kind (spec §8.4).

    Parity keeps the reference's NaN hazard (a NaN d clips to q = 1, §8.4 [bug]); the default
    maps every non-finite d to q = 0 (§16 item 7).

    Examples
    --------
    >>> progress(3.0, 20.0, False), progress(0.0, None, False), progress(1.0, None, False)
    (0.85, 1.0, None)
    >>> progress(float("nan"), 20.0, True), progress(float("nan"), 20.0, False)
    (1.0, 0.0)
    """
    if not parity and not math.isfinite(d):
        return 0.0
    if delta is None:
        return 1.0 if d <= SLACK else None
    if delta <= SLACK:
        return 1.0 if d <= SLACK else 0.0
    return round(max(0.0, min(1.0, 1.0 - d / delta)), 6)


def _within(name: str, d: float, t: float, delta: float | None, parity: bool) -> Match:
    """The Match of a distance ``d`` against its tolerance ``t`` (pass at ``d <= t + SLACK``)."""
    return Match(d <= t + SLACK, name, d, t, delta, progress(d, delta, parity))


def _distance_match(
    kind: Kind, d: float, delta: float | None, parity: bool, name: str | None = None
) -> Match:
    return _within(name or kind.name, d, bounded(delta, kind), delta, parity)


def as_text(value: Any) -> str:
    """Re-stringify a produced value for a string comparison (Python ``str``, spec Audit note)."""
    return value if isinstance(value, str) else str(value)


def to_number(value: Any, parity: bool) -> float | None:
    """Python ``float()`` (parity) or a strict finite number (default) of a produced value."""
    return to_float(value, parity)


# -- scalars (§8.6) ------------------------------------------------------------------------------


class ScalarCheck(NamedTuple):
    """The task side of a scalar check (spec §8.6): ``after``, its tolerance row, δ and t.

    Built once per requested edit (:meth:`of`); :meth:`compare` reads one produced value.
    """

    after: float
    kind: Kind
    delta: float | None
    tolerance: float

    @classmethod
    def of(cls, before: Any, after: float, attr: str, vp: Viewport) -> ScalarCheck:
        a = float(after)
        kind = scalar_kind(attr, a, vp)
        b = to_number(before, True) if before is not None and not isinstance(before, bool) else None
        delta = abs(b - a) if b is not None else None
        return cls(a, kind, delta, bounded(delta, kind))

    def compare(self, produced: Any, parity: bool) -> Match:
        """d = |produced − after| against t (a missing or unreadable number fails, no progress)."""
        p = to_number(produced, parity)
        if p is None:
            return Match(False, self.kind.name)
        return _within(self.kind.name, abs(p - self.after), self.tolerance, self.delta, parity)


def compare_scalar(
    produced: Any, before: Any, after: float, attr: str, vp: Viewport, parity: bool
) -> Match:
    """Scalar check (spec §8.6): d = |produced − after|, δ = |before − after|."""
    return ScalarCheck.of(before, after, attr, vp).compare(produced, parity)


# -- numeric lists (§8.7) -------------------------------------------------------------------------


def _flatten(value: Any) -> list[float] | None:
    out: list[float] = []

    def walk(v: Any) -> bool:
        if isinstance(v, list | tuple):
            return all(walk(x) for x in v)
        if isinstance(v, bool) or not isinstance(v, int | float):
            return False
        out.append(float(v))
        return True

    if not isinstance(value, list | tuple) or not walk(value):
        return None
    return out


def rms(a: Sequence[float], b: Sequence[float]) -> float:
    """sqrt(mean((a_i − b_i)²)) over paired values; 0 for none (spec §8.7, §8.9.7)."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0
    try:
        return math.sqrt(sum((a[i] - b[i]) ** 2 for i in range(n)) / n)
    except OverflowError:  # a huge produced coordinate (``1e308``): never raise for policy text
        return math.inf


class ListCheck(NamedTuple):
    """The task side of a numeric-list check (spec §8.7): flattened ``after``, δ and t."""

    kind: Kind
    after: list[float] | None
    delta: float | None
    tolerance: float

    @classmethod
    def of(cls, before: Any, after: Any, attr: str, vp: Viewport) -> ListCheck:
        kind = list_kind(attr, vp)
        a = _flatten(after)
        b = _flatten(before)
        delta = rms(b, a) if a is not None and b is not None and len(b) == len(a) else None
        return cls(kind, a, delta, bounded(delta, kind))

    def compare(self, produced: Any, parity: bool) -> Match:
        """RMS of the paired coordinates against t (unequal lengths fail, no progress)."""
        p = _flatten(produced)
        a = self.after
        if p is None or a is None or len(p) != len(a):
            return Match(False, self.kind.name)
        return _within(self.kind.name, rms(p, a), self.tolerance, self.delta, parity)


def compare_list(
    produced: Any, before: Any, after: Any, attr: str, vp: Viewport, parity: bool
) -> Match:
    """Numeric-list check (spec §8.7): RMS over paired coordinates, equal lengths required."""
    return ListCheck.of(before, after, attr, vp).compare(produced, parity)


# -- colours (§8.8) -------------------------------------------------------------------------------


def _hex(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    v = normalise_color(as_text(value))
    return v if _HEX6.fullmatch(v) else None


def color_delta(before: Any, after: Any) -> float | None:
    """δ = ΔE76(before, after) when both are ``#rrggbb`` after §4.6 normalisation."""
    b, a = _hex(before), _hex(after)
    if b is None or a is None:
        return None
    return delta_e76(hex_to_lab(b), hex_to_lab(a))


class ColorCheck(NamedTuple):
    """The task side of a colour check (spec §8.8): normalised ``after``, its Lab, δ and t."""

    after: str
    after_lab: tuple[float, float, float] | None  # None unless ``after`` is #rrggbb
    delta: float | None
    tolerance: float

    @classmethod
    def of(cls, after: Any, delta: float | None, parity: bool) -> ColorCheck:
        a_norm = (normalise_color if parity else canonical_color)(as_text(after))
        lab = hex_to_lab(a_norm) if _HEX6.fullmatch(a_norm) is not None else None
        return cls(a_norm, lab, delta, bounded(delta, COLOR_KIND))

    def compare(self, produced: Any, parity: bool) -> Match:
        """ΔE76 against t when both are #rrggbb, else the canonical spellings' equality."""
        p_norm = (normalise_color if parity else canonical_color)(as_text(produced))
        if _HEX6.fullmatch(p_norm) is None or self.after_lab is None:
            return Match(p_norm == self.after, "canonical-color")
        d = delta_e76(hex_to_lab(p_norm), self.after_lab)
        return _within(COLOR_KIND.name, d, self.tolerance, self.delta, parity)


def compare_color(produced: Any, after: Any, delta: float | None, parity: bool) -> Match:
    """Colour check (spec §8.8): ΔE76 in CIE Lab, or the ``canonical-color`` fallback.

    Parity reads colours with the reference's §4.6 normalisation; default mode with CSS Color 4
    (:func:`vector_gym.svg.color.canonical_color`), so ``hsl(0,100%,50%)`` is ``#ff0000``.
    """
    return ColorCheck.of(after, delta, parity).compare(produced, parity)


# -- paths (§8.9.6, §8.9.7) ------------------------------------------------------------------------


def coord_tokens(
    text: str | None, parity: bool = True
) -> tuple[tuple[str, ...], tuple[float, ...]] | None:
    """Command letters and numbers of N("d", text) (spec §8.9.7 step 1); None if invalid.

    Default mode (``parity=False``) reads them with the path reader: one letter per segment
    (implicit repeats written out) and its arguments, arc flags as 0/1.
    """
    if text is None:
        return None
    if not parity:
        parsed = parse_path_data_cached(text, False)
        if isinstance(parsed, PathSyntaxError):
            return None
        nums: list[float] = []
        for a in parsed.args:
            nums.extend(float(x) for x in a)
        return tuple(parsed.commands), tuple(nums)
    norm = REFERENCE.normalise("d", text)
    if is_invalid(norm):
        return None
    letters: list[str] = []
    numbers: list[float] = []
    for tok in norm.split():
        if _NUMBER_FULL.fullmatch(tok):
            numbers.append(float(tok))
        else:
            letters.append(tok)
    return tuple(letters), tuple(numbers)


@dataclass(frozen=True, slots=True)
class PathSide:
    """Task-side data of one path string: its samples and coordinate tokens (cached per task)."""

    samples: Any  # (129, 2) float64 ndarray or None when unsampleable
    tokens: tuple[tuple[str, ...], tuple[float, ...]] | None
    factors: Any = None  # distance_factors(samples), for D(produced, this side)

    @classmethod
    def of(cls, text: Any, parity: bool) -> PathSide | None:
        if text is None or isinstance(text, bool):
            return None
        s = as_text(text)
        samples = samples_for(s, parity=parity)
        factors = distance_factors(samples) if samples is not None else None
        return cls(samples, coord_tokens(s, parity), factors)


def coord_delta(before: PathSide | None, after: PathSide) -> float | None:
    """δ_c: coordinate RMS between before and after when their streams align (§8.9.7 step 4)."""
    if before is None or before.tokens is None or after.tokens is None:
        return None
    (bl, bn), (al, an) = before.tokens, after.tokens
    if bl != al or len(bn) != len(an):
        return None
    return rms(bn, an)


def compare_path(
    produced: Any,
    after: PathSide,
    delta: float | None,
    delta_c: float | None,
    vp: Viewport,
    parity: bool,
) -> Match:
    """Path check (spec §8.9.6–8.9.7): sampled shape, then the coordinate-RMS fallback.

    ``delta`` is D(before, after) (``None`` = unknown), ``delta_c`` the coordinate δ_c.
    """
    kind = path_kind(vp)
    text = as_text(produced)
    # Produced paths are new on almost every call: in RL mode their lengths come from adaptive
    # Gauss-Legendre (within ~1e-9 of REFINE in D, spec §8.9.3 precision guidance, about 30x
    # faster cold); parity mode keeps the reference's REFINE subdivision bit for bit.
    ps = samples_for(text, parity=parity, method="refine" if parity else "gauss")
    if ps is None or after.samples is None:
        return Match(False, kind.name)
    d = path_distance(ps, after.samples, after.factors)
    shape = _distance_match(kind, d, delta, parity)
    if shape.passed:
        return shape
    ck = coord_kind(vp)
    pt = coord_tokens(text, parity)
    if pt is None or after.tokens is None:
        return shape
    (pl, pn), (al, an) = pt, after.tokens
    if pl != al or len(pn) != len(an):
        return shape
    coord = _distance_match(ck, rms(pn, an), delta_c, parity)
    return coord if coord.passed else shape


# -- canonical and exact (§8.1 rules 4, 7) ---------------------------------------------------------


def compare_canonical(produced: Any, after: Any, attr: str, parity: bool = True) -> Match:
    """Canonical check: N(attr, produced) == N(attr, after); progress 1/0 (spec §8.1 rule 7).

    N is the reference's (parity) or the default mode's SVG 2 normaliser.
    """
    norm = (REFERENCE if parity else SVG2).normalise
    ok = norm(attr, as_text(produced)) == norm(attr, as_text(after))
    return Match(ok, "canonical", progress=1.0 if ok else 0.0)


def compare_exact(after: Any) -> Match:
    """A missing produced value: passes iff ``after`` is null; progress undefined (§8.1 rule 4)."""
    return Match(after is None, "exact")


# -- inserted subtree: VISUAL (§8.5) ---------------------------------------------------------------


def visual(attr: str, produced: str, target: str, vp: Viewport, parity: bool) -> Match:
    """Compare two semantic attribute values of an inserted element with cap tolerances (§8.5)."""
    if attr in COLOR_ATTRIBUTES:
        return compare_color(produced, target, None, parity)
    if attr == "d":
        side = PathSide.of(target, parity)
        assert side is not None
        return compare_path(produced, side, None, None, vp, parity)
    if attr == "points":
        p = scan_viewbox_reference(produced)
        t = scan_viewbox_reference(target)
        kind = list_kind("points", vp)
        if not p or not t:
            return Match(False, kind.name)
        if not parity and len(p) != len(t):
            return Match(False, kind.name)  # RL mode: equal lengths (§16 item 19)
        return _distance_match(kind, rms(p, t), None, parity)
    if _NUMBER_FULL.fullmatch(target):
        a = float(target)
        kind = scalar_kind(attr, a, vp)
        p = to_number(produced, parity)
        if p is None:
            return Match(False, kind.name)
        return _distance_match(kind, abs(p - a), None, parity)
    return compare_canonical(produced, target, attr, parity)
