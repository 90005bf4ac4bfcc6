"""Aggregate metrics per policy or model: rates, Wilson interval, leaderboard order.

Layer 6; no scoring logic. Works on rollout rows (verdicts under ``row["report"]``),
re-scored rows and the published Vector-Bench outcome rows (verdicts at top level).

Per group of rows (one policy or model, all its scheduled rows, errors counted as
failures; spec-reward.md section 13):

======== ===================================================================
Full     mean ``reward`` (specification pass rate)
Near     mean ``near_pass``
Repair   mean ``repair_pass``
Progress mean ``repair_progress``
Clean    mean ``preservation_pass`` (whole-document semantic preservation)
UCR      mean ``unintended_change_rate`` over rows with ``validity_pass`` only;
         None (undefined) when no row is valid
Valid    mean ``validity_pass``
full_ci  95% Wilson score interval of Full
Err.     share of rows without a scorable outcome (:func:`is_error_row`: the
         completion failed, ``finish_reason == "error"``; a published ``error``
         object; a provider-error report, status ``ERR``; or no report at all);
         such rows also count as failures in every other column
Trunc.   share of rows with ``finish_reason == "length"`` (the output hit its
         token budget); None, and no column, when no row records a
         ``finish_reason`` (protocols.md: report the budget with every result)
======== ===================================================================

The leaderboard order is spec pass rate descending, then repair progress
descending, then valid-output UCR ascending (None last), then validity descending,
then display name ascending by code point (spec-reward.md section 13; Vector-Bench
section 5.2 and Appendix B).

Retried rows: a resumed rollout appends a new row for an outcome whose completion
failed (``vector_gym.rollout``), so a run file can hold several rows of one key
``(env, task_id, policy, sample_index)``. :func:`summarize` counts only the newest
(last) row of each key (:func:`latest_rows`); rows without the full key are all kept.

References
----------
Gupta & Hebbar 2026, *Vector-Bench*, Tables 2-3, Appendix B, section 5.2 (Wilson
intervals); ``spec-reward.md`` section 13.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "V2_COLUMNS",
    "Z95",
    "format_raster_table",
    "summarize_raster_rows",
    "GroupSummary",
    "ROLLOUT_KEY_FIELDS",
    "format_table",
    "is_error_row",
    "latest_rows",
    "leaderboard",
    "leaderboard_key",
    "outcome_fields",
    "summarize",
    "wilson_interval",
]

#: Fields that identify one outcome in a rollout file (``vector_gym.rollout.ROW_KEY_FIELDS``).
ROLLOUT_KEY_FIELDS = ("env", "task_id", "policy", "sample_index")

#: Two-sided 95% normal quantile used by the reference analysis (spec-reward.md section 13).
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion.

    Parameters
    ----------
    successes : int
        Number of successes k, ``0 <= k <= n``.
    n : int
        Number of trials (> 0).
    z : float
        Normal quantile (default two-sided 95%).

    Returns
    -------
    (low, high) : tuple of float
        Fractions in [0, 1].

    Raises
    ------
    ValueError
        ``n <= 0`` or ``k`` outside ``[0, n]``.

    Notes
    -----
    With p = k/n: centre = (p + z²/2n) / (1 + z²/n), half-width =
    z·sqrt(p(1−p)/n + z²/4n²) / (1 + z²/n), clipped to [0, 1] (spec-reward.md section 13).

    Examples
    --------
    >>> [round(x, 4) for x in wilson_interval(6, 40)]
    [0.0706, 0.2907]
    >>> wilson_interval(0, 40)[0]
    0.0
    """
    if n <= 0:
        raise ValueError(f"n: expected a positive number of trials, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes: expected 0 <= k <= n = {n}, got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def latest_rows(
    rows: Iterable[Mapping[str, Any]], key_fields: Sequence[str] = ROLLOUT_KEY_FIELDS
) -> list[Mapping[str, Any]]:
    """Keep the newest row of each key: the last one in input order wins.

    A resumed rollout appends a retry row for an outcome whose completion failed, so
    the last row of a key is its current state (append-only files stay crash-safe).

    Parameters
    ----------
    rows : iterable of mapping
        Rows in file (append) order.
    key_fields : sequence of str
        Fields of the key; a row missing any of them (or holding None) has no key and
        is always kept.

    Returns
    -------
    list of mapping
        One row per key, at the position of the key's first row (so task order is
        kept), and every keyless row in place.

    Examples
    --------
    >>> rows = [{"task_id": "a", "v": 1}, {"task_id": "b", "v": 2}, {"task_id": "a", "v": 3}]
    >>> latest_rows(rows, key_fields=("task_id",))
    [{'task_id': 'a', 'v': 3}, {'task_id': 'b', 'v': 2}]
    """
    out: list[Mapping[str, Any]] = []
    slot: dict[tuple[Any, ...], int] = {}
    for r in rows:
        key = tuple(r.get(k) for k in key_fields)
        if any(v is None for v in key):
            out.append(r)
        elif key in slot:
            out[slot[key]] = r
        else:
            slot[key] = len(out)
            out.append(r)
    return out


def is_error_row(row: Mapping[str, Any]) -> bool:
    """Whether a row holds no scorable outcome (its completion failed or is missing).

    True when the row has ``finish_reason == "error"`` (the policy's request failed
    after its retries: connection refused, HTTP 429 forever, ...), a truthy ``error``
    (a provider error in the published Vector-Bench outcomes, kept by ``rescore``),
    a report with status ``ERR`` (no produced SVG at all, spec-reward.md section 12),
    a ``report`` that is not a non-empty mapping, or, for a flat row without a
    ``report`` key, no ``reward``.

    Examples
    --------
    >>> is_error_row({"finish_reason": "error", "report": {"reward": 0.0}})
    True
    >>> is_error_row({"finish_reason": "length", "report": {"reward": 0.0}})
    False
    >>> is_error_row({"model": "m", "error": {"code": "request_error"}, "status": "ERR"})
    True
    """
    if row.get("error") or row.get("finish_reason") == "error":
        return True
    if "report" in row:
        src = row["report"]
        if not isinstance(src, Mapping) or not src:
            return True
    else:
        src = row
        if "reward" not in src:
            return True
    return src.get("status") == "ERR"


def outcome_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """Return the verdict fields of one row (from ``row["report"]`` when present).

    Missing flags count as False and missing numbers as 0 (a provider error with no
    report scores as a failure, spec-reward.md section 12).

    Returns
    -------
    dict
        ``reward`` (float), ``near_pass``, ``repair_pass``, ``preservation_pass``,
        ``validity_pass`` (bool), ``repair_progress`` (float) and
        ``unintended_change_rate`` (float or None).
    """
    src = row.get("report") if isinstance(row.get("report"), Mapping) else row

    def num(key: str) -> float:
        v = src.get(key)
        try:
            v = float(v)
        except (TypeError, ValueError):
            return 0.0
        return v if math.isfinite(v) else 0.0

    ucr = src.get("unintended_change_rate")
    return {
        "reward": num("reward"),
        "near_pass": bool(src.get("near_pass")),
        "repair_pass": bool(src.get("repair_pass")),
        "preservation_pass": bool(src.get("preservation_pass")),
        "validity_pass": bool(src.get("validity_pass")),
        "repair_progress": num("repair_progress"),
        "unintended_change_rate": None if ucr is None else num("unintended_change_rate"),
    }


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """Aggregates of one policy's (or model's) rows. Rates are fractions in [0, 1].

    Parameters
    ----------
    label : str
        The grouping value (policy name or model id).
    name : str
        Display name (last leaderboard tie-break); the label unless rows carry ``name``.
    n : int
        Number of rows.
    full, near, repair, progress, clean, valid : float
        Means over all rows (see the module docstring).
    ucr : float or None
        Mean UCR over valid rows; None when no row is valid.
    full_ci : (float, float)
        95% Wilson interval of ``full``.
    trunc : float or None
        Share of rows truncated at the token budget; None when no row records a
        ``finish_reason``.
    err : float
        Share of rows without a scorable outcome (:func:`is_error_row`).
    """

    label: str
    name: str
    n: int
    full: float
    near: float
    repair: float
    progress: float
    clean: float
    ucr: float | None
    valid: float
    full_ci: tuple[float, float]
    trunc: float | None = None
    err: float = 0.0

    def to_dict(self, label_key: str = "policy") -> dict[str, Any]:
        """Return the JSON form: percentages, ``ucr`` None when undefined, ``full_ci`` [low, high] in percent.

        Keys: ``label_key`` (default ``policy``), ``n``, ``full``, ``near``,
        ``repair``, ``progress``, ``clean``, ``ucr``, ``valid``, ``full_ci``, ``err``
        (percent of rows without a scorable outcome), and ``trunc`` (percent) when
        the rows record finish reasons.
        """
        out = {
            label_key: self.label,
            "n": self.n,
            "full": 100.0 * self.full,
            "near": 100.0 * self.near,
            "repair": 100.0 * self.repair,
            "progress": 100.0 * self.progress,
            "clean": 100.0 * self.clean,
            "ucr": None if self.ucr is None else 100.0 * self.ucr,
            "valid": 100.0 * self.valid,
            "full_ci": [100.0 * self.full_ci[0], 100.0 * self.full_ci[1]],
            "err": 100.0 * self.err,
        }
        if self.trunc is not None:
            out["trunc"] = 100.0 * self.trunc
        return out


def _summarize_group(label: str, name: str, rows: Sequence[Mapping[str, Any]]) -> GroupSummary:
    fields = [outcome_fields(r) for r in rows]
    n = len(fields)
    passes = sum(1 for f in fields if f["reward"] >= 1.0)
    valid_ucr = [f["unintended_change_rate"] for f in fields if f["validity_pass"]]
    valid_ucr = [u if u is not None else 0.0 for u in valid_ucr]
    recorded = [r for r in rows if "finish_reason" in r]
    return GroupSummary(
        label=label,
        name=name,
        n=n,
        full=passes / n,
        near=sum(f["near_pass"] for f in fields) / n,
        repair=sum(f["repair_pass"] for f in fields) / n,
        progress=sum(f["repair_progress"] for f in fields) / n,
        clean=sum(f["preservation_pass"] for f in fields) / n,
        ucr=sum(valid_ucr) / len(valid_ucr) if valid_ucr else None,
        valid=sum(f["validity_pass"] for f in fields) / n,
        full_ci=wilson_interval(passes, n),
        trunc=sum(r["finish_reason"] == "length" for r in recorded) / n if recorded else None,
        err=sum(is_error_row(r) for r in rows) / n,
    )


def summarize(
    rows: Iterable[Mapping[str, Any]], by: str = "policy", order: str = "given"
) -> list[GroupSummary]:
    """Aggregate rows per value of ``row[by]``.

    Parameters
    ----------
    rows : iterable of mapping
        Rollout rows, re-scored rows or published outcome rows. Of several rows with
        the same rollout key only the last counts (:func:`latest_rows`).
    by : str
        Grouping field (``"policy"`` for rollouts, ``"model"`` for outcome files).
    order : {"given", "leaderboard"}
        First-appearance order of the groups, or :func:`leaderboard` order.

    Returns
    -------
    list of GroupSummary

    Raises
    ------
    KeyError
        A row has no ``by`` field.
    ValueError
        Unknown ``order``.
    """
    if order not in ("given", "leaderboard"):
        raise ValueError(f"order: expected 'given' or 'leaderboard', got {order!r}")
    groups: dict[str, list[Mapping[str, Any]]] = {}
    names: dict[str, str] = {}
    for r in latest_rows(rows):
        if by not in r:
            raise KeyError(f"row has no {by!r} field (keys: {sorted(r)})")
        label = str(r[by])
        groups.setdefault(label, []).append(r)
        if label not in names:
            names[label] = str(r.get("name") or label)
    out = [_summarize_group(label, names[label], g) for label, g in groups.items()]
    return leaderboard(out) if order == "leaderboard" else out


def leaderboard_key(s: GroupSummary) -> tuple[Any, ...]:
    """Sort key of the leaderboard order (spec-reward.md section 13)."""
    return (
        -s.full,
        -s.progress,
        s.ucr is None,
        s.ucr if s.ucr is not None else 0.0,
        -s.valid,
        s.name,
    )


def leaderboard(summaries: Iterable[GroupSummary]) -> list[GroupSummary]:
    """Return the summaries in leaderboard order (spec pass, progress, UCR, validity, name)."""
    return sorted(summaries, key=leaderboard_key)


_COLUMNS = ("Full", "Near", "Repair", "Progress", "Clean", "UCR", "Valid", "Full 95% CI", "Err.")


def format_table(summaries: Sequence[GroupSummary], label_header: str = "Policy") -> str:
    """Render summaries as a plain-text table (percentages, one decimal; UCR "-" when undefined).

    ``Err.`` is the share of rows without a scorable outcome (:func:`is_error_row`).
    A ``Trunc.`` column (share of rows cut at the token budget) is added when any
    summary has one; "-" for the others.

    Examples
    --------
    >>> s = GroupSummary("identity", "identity", 20, 0, 0, 0, 0, 1, 0.0, 1, (0.0, 0.161))
    >>> print(format_table([s]))  # doctest: +NORMALIZE_WHITESPACE
    Policy     N  Full  Near  Repair  Progress  Clean  UCR  Valid  Full 95% CI  Err.
    identity  20   0.0   0.0     0.0       0.0  100.0  0.0  100.0  [0.0, 16.1]   0.0
    """

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100.0 * x:.1f}"

    with_trunc = any(s.trunc is not None for s in summaries)
    header = [label_header, "N", *_COLUMNS] + (["Trunc."] if with_trunc else [])
    body = [
        [
            s.label,
            str(s.n),
            pct(s.full),
            pct(s.near),
            pct(s.repair),
            pct(s.progress),
            pct(s.clean),
            pct(s.ucr),
            pct(s.valid),
            f"[{100 * s.full_ci[0]:.1f}, {100 * s.full_ci[1]:.1f}]",
            pct(s.err),
        ]
        + ([pct(s.trunc)] if with_trunc else [])
        for s in summaries
    ]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = []
    for r in [header, *body]:
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# --------------------------------------------------------------- SVGEditBench tables
#: Columns of the V2 eval table (SVGEditBench V2 Table 1) and the v1 per-kind table.
V2_COLUMNS = ("mse", "dino", "clipscore", "chamfer", "extraction_error", "parsing_error")


def summarize_raster_rows(
    rows: Sequence[Mapping[str, Any]], tasks: Sequence[Any], benchmark: str, by: str = "policy"
) -> list[dict[str, Any]]:
    """Summarise rollout rows (``policy``, ``task_id``, ``report``) of an SVGEditBench env.

    Parameters
    ----------
    rows : sequence of dict
        Rows as :func:`vector_gym.rollout.rollout` writes them.
    tasks : sequence of Task
        The env's tasks (v1 rows are grouped by ``metadata["edit_kind"]``).
    benchmark : {"v2", "v1"}
    by : str
        Grouping field (``"policy"`` for rollouts, ``"model"`` for re-scored rows).

    Returns
    -------
    list of dict
        V2: one object per policy (first-seen order) with ``policy``, ``n`` and
        :data:`V2_COLUMNS` (means over the rows where each metric was computed; error
        columns are fractions of all rows). v1: one object per policy and edit kind with
        ``policy``, ``edit_kind``, ``n``, ``mse``, ``extraction_error``,
        ``parsing_error`` and, for Compression, ``compression_ratio``.
    """
    from vector_gym.rewards.raster import summarize_reports

    kinds = {t.task_id: t.meta().get("edit_kind") for t in tasks}
    rows = latest_rows(rows)
    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
    for r in rows:
        kind = kinds.get(r.get("task_id")) if benchmark == "v1" else None
        groups.setdefault((str(r.get(by)), kind), []).append(r.get("report") or r)
    if benchmark == "v1":
        from vector_gym.tasks.svgeditbench import V1_KINDS

        order = {k: i for i, k in enumerate(V1_KINDS)}
        policies = list(dict.fromkeys(p for p, _ in groups))
        keys = sorted(groups, key=lambda pk: (policies.index(pk[0]), order.get(pk[1], 99)))
    else:
        keys = list(groups)
    out = []
    for policy, kind in keys:
        s = summarize_reports(groups[(policy, kind)])
        if benchmark == "v2":
            out.append({by: policy, "n": s["n"], **{k: s[k] for k in V2_COLUMNS}})
        else:
            obj = {by: policy, "edit_kind": kind, "n": s["n"], "mse": s["mse"]}
            if kind == "Compression":
                obj["compression_ratio"] = s["compression_ratio"]
            obj["extraction_error"] = s["extraction_error"]
            obj["parsing_error"] = s["parsing_error"]
            out.append(obj)
    return out


def format_raster_table(summaries: Sequence[dict[str, Any]], label: str = "policy") -> str:
    """Format :func:`summarize_raster_rows` output as a plain-text table (``-`` for missing).

    ``label`` is the grouping key of the summaries (its column is headed ``Policy`` or ``Model``).
    """
    if not summaries:
        return "(no rows)"
    cols = [c for c in summaries[0] if c != label]
    for s in summaries:
        cols += [c for c in s if c not in cols and c != label]

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.4g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.3e}"
        return str(v)

    header = [label.capitalize()] + [c.replace("_", " ") for c in cols]
    body = [[str(s[label])] + [cell(s.get(c)) for c in cols] for s in summaries]
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in body]
    return "\n".join(lines)
