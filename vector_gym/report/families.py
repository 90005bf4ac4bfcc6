"""Operation families of requested edits, for the report's heat map.

A requested edit e in E names one attribute of one part (spec-reward.md §1, ``expected_diff``).
The report groups edits into the operation families of the Vector-Bench paper's Figure 7 ("mean
expected-edit repair progress by operation family"): colour, position, path shape, stroke width,
opacity, insertion and deletion. Edits that fit none of them (a ``width``/``height``/``r``
change, a font attribute, ...) fall into ``size`` (geometric extents) or ``other``.

The attribute lists below are the SVG presentation attributes and geometry properties of each
family; the mapping is ours (the paper does not publish its table).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vector_gym.tasks.task import RequestedEdit, Task

__all__ = [
    "FAMILIES",
    "families_present",
    "operation_family",
    "check_progress",
    "family_progress",
]

COLOUR = "colour"
POSITION = "position"
PATH_SHAPE = "path shape"
STROKE_WIDTH = "stroke width"
OPACITY = "opacity"
INSERTION = "insertion"
DELETION = "deletion"
SIZE = "size"
OTHER = "other"

FAMILIES: tuple[str, ...] = (
    COLOUR,
    POSITION,
    PATH_SHAPE,
    STROKE_WIDTH,
    OPACITY,
    INSERTION,
    DELETION,
    SIZE,
    OTHER,
)
"""Every family in display order (the last two only appear when some edit falls into them)."""

_COLOUR_ATTRS = frozenset(
    {"fill", "stroke", "stop-color", "color", "flood-color", "lighting-color"}
)
_POSITION_ATTRS = frozenset(
    {"x", "y", "cx", "cy", "x1", "y1", "x2", "y2", "dx", "dy", "transform", "fx", "fy"}
)
_PATH_ATTRS = frozenset({"d", "points"})
_STROKE_WIDTH_ATTRS = frozenset({"stroke-width"})
_OPACITY_ATTRS = frozenset({"opacity", "fill-opacity", "stroke-opacity", "stop-opacity"})
_SIZE_ATTRS = frozenset({"width", "height", "r", "rx", "ry"})


def operation_family(edit: RequestedEdit) -> str:
    """Return the operation family of one requested edit.

    Parameters
    ----------
    edit : RequestedEdit
        One item of ``Task.requested_edits``.

    Returns
    -------
    str
        One of :data:`FAMILIES`. ``exists`` edits are ``"insertion"`` (``before`` False,
        ``after`` True) or ``"deletion"`` (``before`` True, ``after`` False).

    Examples
    --------
    >>> operation_family(RequestedEdit("door", "x", 90, 60))
    'position'
    >>> operation_family(RequestedEdit("lamp", "exists", False, True))
    'insertion'
    >>> operation_family(RequestedEdit("sign", "exists", True, False))
    'deletion'
    >>> operation_family(RequestedEdit("cable", "d", "M0 0", "M1 1"))
    'path shape'
    >>> operation_family(RequestedEdit("box", "font-family", "a", "b"))
    'other'
    """
    attr = edit.attribute.strip().lower()
    if attr == "exists":
        return DELETION if edit.before is True or edit.after is False else INSERTION
    if attr in _COLOUR_ATTRS:
        return COLOUR
    if attr in _POSITION_ATTRS:
        return POSITION
    if attr in _PATH_ATTRS:
        return PATH_SHAPE
    if attr in _STROKE_WIDTH_ATTRS:
        return STROKE_WIDTH
    if attr in _OPACITY_ATTRS:
        return OPACITY
    if attr in _SIZE_ATTRS:
        return SIZE
    return OTHER


def check_progress(report: Mapping[str, Any] | None, index: int, edit: RequestedEdit) -> float:
    """Return the repair progress q of requested edit ``index`` in a scored outcome.

    The report's ``checks`` list holds one entry per requested edit, in ``expected_diff`` order
    (spec-reward.md §9, §11). An entry whose ``part``/``attribute`` do not match is looked up by
    name instead. Undefined progress (``None``), a missing check and an outcome without a report
    (a provider error, no SVG) count as 0, as the published study's means do
    (``shared/data/vector_bench/README.md``: "progress (null = undefined, counted as 0)").

    Returns
    -------
    float
        Progress in [0, 1].
    """
    if not report:
        return 0.0
    checks = report.get("checks") or []
    chosen = None
    if index < len(checks):
        c = checks[index]
        if isinstance(c, Mapping) and c.get("part") == edit.part and c.get("attribute") == edit.attribute:
            chosen = c
    if chosen is None:
        for c in checks:
            if isinstance(c, Mapping) and c.get("part") == edit.part and c.get("attribute") == edit.attribute:
                chosen = c
                break
    if chosen is None:
        return 0.0
    q = chosen.get("progress")
    if q is None:
        return 0.0
    try:
        q = float(q)
    except (TypeError, ValueError):
        return 0.0
    return min(1.0, max(0.0, q)) if q == q else 0.0


def family_progress(
    tasks: Mapping[str, Task], rows: Iterable[Mapping[str, Any]]
) -> dict[str, tuple[float, int]]:
    """Mean repair progress per operation family over one run's outcomes.

    Parameters
    ----------
    tasks : mapping of task_id to Task
        The tasks the rows refer to; rows of unknown tasks or tasks without requested edits
        are skipped.
    rows : iterable of mapping
        Run rows with ``task_id`` and ``report`` (``SpecReport.to_dict()``) fields.

    Returns
    -------
    dict of str to (float, int)
        ``family -> (mean progress, number of checks)``, only for families with at least one
        check. Every requested edit of every row counts once (Figure 7 of the Vector-Bench paper
        averages over expected checks).
    """
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for row in rows:
        task = tasks.get(str(row.get("task_id")))
        if task is None or not task.requested_edits:
            continue
        report = row.get("report") if isinstance(row.get("report"), Mapping) else None
        for i, edit in enumerate(task.requested_edits):
            fam = operation_family(edit)
            sums[fam] = sums.get(fam, 0.0) + check_progress(report, i, edit)
            counts[fam] = counts.get(fam, 0) + 1
    return {f: (sums[f] / counts[f], counts[f]) for f in FAMILIES if counts.get(f)}


def families_present(tasks: Sequence[Task]) -> list[str]:
    """Families that at least one requested edit of ``tasks`` falls into, in display order."""
    seen = {operation_family(e) for t in tasks for e in t.requested_edits}
    return [f for f in FAMILIES if f in seen]
