"""The report's leaderboard: :mod:`vector_gym.summary`'s eval table, one row per run.

Every number comes from :func:`vector_gym.summary.summarize` (the function behind ``vector-gym
eval``'s table) through ``GroupSummary.to_dict()``, so the page shows exactly the eval table's
values (percentages). Columns that a later summary adds (e.g. a truncation rate) appear
automatically; for runs without specification verdicts (raster-scored SVGEditBench outcomes)
the specification-only columns (Near, Repair, Progress, Clean, UCR, Valid) are left out. The
error rate ``err`` (rows whose response produced no scorable outcome: a failed completion, a
provider error, or a row without a report) is the summary's too
(:func:`vector_gym.summary.is_error_row`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vector_gym.report.runs import Run
from vector_gym.summary import is_error_row

__all__ = ["Column", "BoardRow", "Leaderboard", "leaderboard", "is_error_row"]

# Known eval-table keys: label and tooltip (summary.py module docstring).
_KNOWN: dict[str, tuple[str, str]] = {
    "n": ("N", "outcomes (rows) in the run"),
    "full": ("Full", "specification pass rate (mean reward), %"),
    "full_ci": ("Full 95% CI", "Wilson score interval of Full, %"),
    "near": ("Near", "near-pass rate, %"),
    "repair": ("Repair", "repair-gate pass rate, %"),
    "progress": ("Progress", "mean repair progress, %"),
    "clean": ("Clean", "preservation-gate pass rate, %"),
    "ucr": ("UCR", "mean unintended change rate over valid outputs, % (lower is better)"),
    "valid": ("Valid", "validity-gate pass rate, %"),
    "trunc": ("Trunc.", "length-truncated responses, %"),
    "truncated": ("Trunc.", "length-truncated responses, %"),
    "err": ("Err.", "outcomes without a scorable response (provider error or no report), %"),
}
_ORDER = ("n", "full", "full_ci", "near", "repair", "progress", "clean", "ucr", "valid")


@dataclass(frozen=True)
class Column:
    """One leaderboard column: ``key`` of ``GroupSummary.to_dict()``, header ``label``, tooltip."""

    key: str
    label: str
    help: str


@dataclass(frozen=True)
class BoardRow:
    """One run's row.

    Attributes
    ----------
    name : str
        Run name.
    values : dict of str to float or None
        Sort value per column key (percentages; ``full_ci`` holds the lower bound and
        ``full_ci_high`` the upper bound).
    text : dict of str to str
        Displayed text per column key.
    summary : dict
        ``GroupSummary.to_dict()`` as returned by the summary.
    """

    name: str
    values: dict[str, float | None]
    text: dict[str, str]
    summary: dict[str, Any]


@dataclass(frozen=True)
class Leaderboard:
    """The eval table of the runs, in leaderboard order (``vector_gym.summary.leaderboard``)."""

    columns: tuple[Column, ...]
    rows: tuple[BoardRow, ...]

    @property
    def order(self) -> list[str]:
        """Run names, best first."""
        return [r.name for r in self.rows]


_SPEC_ONLY = frozenset({"near", "repair", "progress", "clean", "ucr", "valid"})


def _has_spec_verdicts(row: dict[str, Any]) -> bool:
    src = row.get("report") if isinstance(row.get("report"), dict) else row
    return "validity_pass" in src or "repair_progress" in src


def _pct(v: Any) -> str:
    return "-" if v is None else f"{float(v):.1f}"


def leaderboard(runs: Sequence[Run]) -> Leaderboard:
    """Summarise each run with :func:`vector_gym.summary.summarize` and order the runs.

    Parameters
    ----------
    runs : sequence of Run
        Run names must be distinct (each run is one group).

    Returns
    -------
    Leaderboard
    """
    from vector_gym.summary import leaderboard as order_summaries
    from vector_gym.summary import summarize

    summaries = []
    for run in runs:
        summaries += summarize(({**r, "policy": run.name} for r in run.rows), by="policy")
    ordered = order_summaries(summaries)
    dicts = [s.to_dict("policy") for s in ordered]
    keys = [k for k in _ORDER if any(k in d for d in dicts)]
    keys += [k for d in dicts for k in d if k not in keys and k != "policy"]
    keys = list(dict.fromkeys(keys))
    if not any(_has_spec_verdicts(r) for run in runs for r in run.rows):
        # raster-scored corpora (SVGEditBench): the specification columns are all 0 by
        # construction; show N, Full and its interval and the other columns only
        keys = [k for k in keys if k not in _SPEC_ONLY]
    columns = tuple(Column(k, *_KNOWN.get(k, (k, k))) for k in keys)
    rows = []
    for d in dicts:
        name = str(d["policy"])
        values: dict[str, float | None] = {}
        text: dict[str, str] = {}
        for k in keys:
            v = d.get(k)
            if k == "full_ci" and isinstance(v, list | tuple) and len(v) == 2:
                values["full_ci"], values["full_ci_high"] = float(v[0]), float(v[1])
                text[k] = f"[{v[0]:.1f}, {v[1]:.1f}]"
            elif k == "n":
                values[k] = None if v is None else float(v)
                text[k] = "-" if v is None else str(v)
            elif isinstance(v, bool) or not isinstance(v, int | float):
                values[k] = None
                text[k] = "-" if v is None else str(v)
            else:
                values[k] = float(v)
                text[k] = _pct(v)
        rows.append(BoardRow(name, values, text, d))
    return Leaderboard(columns, tuple(rows))
