"""Report records of the specification reward (spec-reward.md §8, §11, §12).

Field names follow the published Vector-Bench outcome rows (``outcomes_*.jsonl.gz``) so a report
can be compared with a published row directly; the per-check records (published as
``expected_changes``) are :class:`CheckReport` in ``SpecReport.checks``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["CheckReport", "SpecReport", "STATUSES", "json_safe", "from_json_safe"]

STATUSES: tuple[str, ...] = ("PASS", "INVALID", "SIDE_EFFECTS", "NEAR", "PARTIAL", "FAIL", "ERR")
"""Outcome labels (spec §11.2; ``ERR`` for provider errors, §12)."""


def json_safe(value: Any) -> Any:
    """Return ``value`` with tuples as lists and non-finite floats as ``"nan"``/``"inf"``/``"-inf"``.

    Examples
    --------
    >>> json_safe((1.5, float("nan"), [float("-inf")]))
    [1.5, 'nan', ['-inf']]
    """
    t = type(value)
    if t in _PLAIN or (t is float and value - value == 0.0):  # x - x is NaN for NaN and inf
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, list | tuple):  # produced point lists: one pass for plain items
        return [
            v if type(v) in _PLAIN or (type(v) is float and v - v == 0.0) else json_safe(v)
            for v in value
        ]
    return value


#: Types :func:`json_safe` returns as they are (floats are checked for NaN and inf).
_PLAIN = frozenset({str, int, bool, type(None)})


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass field names of ``cls``, in order (``dataclasses.fields`` once per class)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def from_json_safe(value: Any) -> Any:
    """Inverse of :func:`json_safe` for a numeric field (``"nan"`` → ``nan``)."""
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The verdict of one requested edit e in E (spec §8; published ``expected_changes`` item).

    Attributes
    ----------
    part, attribute : str
        The requested edit's part id and attribute (``"exists"`` for insert/delete).
    comparison : str
        Kind: ``existence``, ``inserted-subtree``, ``numeric-delta``, ``opacity-delta``,
        ``line-weight-delta``, ``points-rms``, ``list-rms``, ``color-lab``, ``canonical-color``,
        ``path-shape``, ``path-coordinate-rms``, ``canonical`` or ``exact`` (spec §8.1).
    passed : bool
        ``valid(S)`` and the kind's verdict (spec §8.1).
    distance, tolerance, baseline_distance : float or None
        d, t and δ rounded to 6 decimals (spec §8.4); units per kind: user units, absolute
        opacity, CIE76 ΔE, or tolerance ratios for ``inserted-subtree``. ``None`` when undefined.
    progress : float or None
        q rounded to 6 decimals; ``None`` = undefined (counts as 0 in the mean, §8.4).
    produced : JSON value
        The produced value read per §7 (bool, number, string, list or ``None``); NaN/inf are
        written as strings in :meth:`to_dict`.
    """

    part: str
    attribute: str
    comparison: str
    passed: bool
    distance: float | None = None
    tolerance: float | None = None
    baseline_distance: float | None = None
    progress: float | None = None
    produced: Any = None

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types (no NaN anywhere)."""
        return {name: json_safe(getattr(self, name)) for name in _field_names(type(self))}

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> CheckReport:
        """Inverse of :meth:`to_dict` (also reads a published ``expected_changes`` item)."""
        produced = obj.get("produced")
        return cls(
            part=str(obj["part"]),
            attribute=str(obj["attribute"]),
            comparison=str(obj["comparison"]),
            passed=bool(obj["passed"]),
            distance=from_json_safe(obj.get("distance")),
            tolerance=from_json_safe(obj.get("tolerance")),
            baseline_distance=from_json_safe(obj.get("baseline_distance")),
            progress=from_json_safe(obj.get("progress")),
            produced=_freeze(produced),
        )


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True, slots=True)
class SpecReport:
    """The three-gate specification reward of one produced SVG (spec §11, §12).

    Attributes
    ----------
    reward : float
        1.0 iff ``specification_pass`` (valid ∧ repair ∧ preservation), else 0.0.
    failure_reasons : tuple of str
        Subset of ``("invalid_svg", "requested_repairs_incomplete",
        "unintended_document_changes")`` in that order (spec §11.2).
    detail : tuple of str
        Our own reason codes (:data:`vector_gym.rewards.failures.DETAIL_CODES`).
    validity_pass, repair_pass, preservation_pass, source_preservation_pass, specification_pass,
    near_pass, exact, structural : bool
        Gates and diagnostics of spec §11.
    edit_completion, repair_progress, preservation, source_preservation,
    unintended_change_rate : float
        Unrounded ratios (spec §8.4, §11.1).
    produced_parse_ok, produced_valid_svg : bool
    unexpected_changed_parts : tuple of str
        Sorted unique labels (spec §11.2).
    checks : tuple of CheckReport
        One per requested edit, in E order.
    status : str
        ``PASS``/``INVALID``/``SIDE_EFFECTS``/``NEAR``/``PARTIAL``/``FAIL``/``ERR``.
    parity : bool
        Whether the reference's quirks were reproduced (spec §16), else our RL defaults.
    """

    reward: float
    failure_reasons: tuple[str, ...]
    detail: tuple[str, ...]
    validity_pass: bool
    repair_pass: bool
    preservation_pass: bool
    source_preservation_pass: bool
    specification_pass: bool
    near_pass: bool
    exact: bool
    structural: bool
    edit_completion: float
    repair_progress: float
    preservation: float
    source_preservation: float
    unintended_change_rate: float
    produced_parse_ok: bool
    produced_valid_svg: bool
    unexpected_changed_parts: tuple[str, ...]
    checks: tuple[CheckReport, ...]
    status: str
    parity: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types (lists, no NaN); inverse of :meth:`from_dict`."""
        out: dict[str, Any] = {}
        for name in _field_names(type(self)):
            v = getattr(self, name)
            if name == "checks":
                out[name] = [c.to_dict() for c in v]
            else:
                out[name] = json_safe(v)
        return out

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> SpecReport:
        """Build a report from :meth:`to_dict` output."""
        kw: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in obj:
                continue
            v = obj[f.name]
            if f.name == "checks":
                v = tuple(CheckReport.from_dict(c) for c in v)
            elif f.name in ("failure_reasons", "detail", "unexpected_changed_parts"):
                v = tuple(v)
            elif f.name == "reward":
                v = float(v)
            else:
                v = from_json_safe(v)
            kw[f.name] = v
        return cls(**kw)
