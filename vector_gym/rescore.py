"""Stored outcomes: read them and re-score them with a suite (``vector-gym rescore``).

Layer 7, no scoring logic: :func:`load_outcomes` reads JSON Lines (plain or gzip) or a
``data/model-results`` directory; :func:`rescore_rows` scores every outcome with the suite's
scorer in batches (``Suite.score_many`` for raw responses, ``Suite.score_extracted`` for stored
SVGs, which are scored as they are: spec-reward.md section 12).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["load_outcomes", "rescore_rows"]


def load_outcomes(path: str | Path) -> list[dict[str, Any]]:
    """Read stored outcomes: JSON Lines (plain or gzip) or a ``data/model-results`` directory.

    Parameters
    ----------
    path : path
        A JSON Lines file, or a directory: the public repository root (files under
        ``data/model-results/``) or the folder of ``*.json`` files itself (each a JSON
        list of outcome objects, read in sorted file order).

    Returns
    -------
    list of dict
        In file order; of rollout rows sharing a key ``(env, task_id, policy,
        sample_index)`` (a failed completion and its retry) only the newest is kept
        (:func:`vector_gym.summary.latest_rows`).

    Raises
    ------
    CorpusError
        A file is not valid JSON or not a list of objects; no ``*.json`` in the directory
        (a folder of run files names one to pass); a corrupt run file
        (:class:`vector_gym.runfile.RunFileError`).
    FileNotFoundError
        ``path`` does not exist.
    """
    from vector_gym.errors import CorpusError
    from vector_gym.runfile import read_rows

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such outcome file or directory: {p}")
    if p.is_file():
        rows = read_rows(p, repair=False, latest=False)  # named errors for corrupt files
    else:
        folder = p / "data" / "model-results" if (p / "data" / "model-results").is_dir() else p
        files = sorted(folder.glob("*.json"))
        if not files:
            runs = sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.jsonl.gz"))
            if runs:
                raise CorpusError(
                    f"{folder}: a folder of run files; rescore takes one run file at a time, "
                    f"e.g. vector-gym rescore {runs[0]}"
                )
            raise CorpusError(
                f"{folder}: no *.json outcome files found (expected a run file FILE.jsonl, or a "
                "folder of data/model-results/*.json)"
            )
        rows = []
        for f in files:
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise CorpusError(f"{f}: not valid JSON ({exc})") from exc
            if not isinstance(data, list):
                raise CorpusError(
                    f"{f}: expected a JSON list of outcomes, got {type(data).__name__}"
                )
            rows.extend(data)
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise CorpusError(f"{p}: outcome {i} is not a JSON object")
    from vector_gym.summary import latest_rows

    return [dict(r) for r in latest_rows(rows)]


def rescore_rows(
    rows: Sequence[Mapping[str, Any]],
    tasks: Sequence[Any],
    parity: bool = False,
    progress: bool = False,
    suite: Any = "vector_bench",
    batch_size: int = 64,
) -> list[dict[str, Any]]:
    """Re-score stored outcomes with a suite's scorer (default the specification reward).

    ``suite`` is a :class:`~vector_gym.suites.Suite` or a registered name (``parity`` configures
    a suite that has the option). Outcomes are scored ``batch_size`` at a time with one
    ``score_many`` (raw responses) or ``score_extracted`` (stored SVGs) call per batch.

    Each row needs ``task_id``, ``model`` (or ``policy``), and ``produced_svg`` (the
    extracted SVG, scored as is; null = provider error, spec-reward.md section 12) or
    ``response`` (raw text, extracted first). A run row whose fingerprint names the patch
    action format is re-scored as a patch (its scripts replayed on the source).

    Returns
    -------
    list of dict
        One per row: ``task_id``, ``model``, ``name`` (when the row has one),
        ``finish_reason`` and ``error`` (when the row has them: the ``Err.`` and
        ``Trunc.`` columns) and every field of the report's ``to_dict()``.

    Raises
    ------
    CorpusError
        A row lacks ``task_id``, a model label, or both output fields.
    UnknownTaskError
        Rows name tasks that are not loaded (message lists them; use ``--tasks``).
    """
    from vector_gym.errors import CorpusError, UnknownTaskError
    from vector_gym.suites import get_suite

    s = get_suite(suite, parity=True) if parity else get_suite(suite)
    by_id = {t.task_id: t for t in tasks}
    missing = sorted({str(r.get("task_id")) for r in rows} - set(by_id))
    if missing:
        raise UnknownTaskError(
            f"outcomes name {len(missing)} task(s) not in the loaded tasks: {', '.join(missing[:10])}"
            f"{' ...' if len(missing) > 10 else ''}; pass --tasks with the matching task files"
        )
    for i, r in enumerate(rows):
        if r.get("model", r.get("policy")) is None:
            raise CorpusError(
                f"outcome {i} (task {r.get('task_id')}): expected a 'model' or 'policy' field"
            )
        if "produced_svg" not in r and "response" not in r:
            raise CorpusError(
                f"outcome {i} (task {r['task_id']}): expected 'produced_svg' or 'response'"
            )
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(rows), desc="rescore", unit="row", leave=False)
    reports: list[Any] = [None] * len(rows)
    inputs = [_scored_input(r, by_id[r["task_id"]]) for r in rows]
    try:
        for lo in range(0, len(rows), batch_size):
            part = range(lo, min(lo + batch_size, len(rows)))
            for field, score in (("produced_svg", s.score_extracted), ("response", s.score_many)):
                idx = [i for i in part if inputs[i][0] == field]
                if idx:
                    got = score([by_id[rows[i]["task_id"]] for i in idx], [inputs[i][1] for i in idx])
                    for i, rep in zip(idx, got, strict=True):
                        reports[i] = rep
            if bar is not None:
                bar.update(len(part))
    finally:
        if bar is not None:
            bar.close()
    return [_rescored_row(r, rep) for r, rep in zip(rows, reports, strict=True)]


def _scored_input(r: Mapping[str, Any], task: Any) -> tuple[str, Any]:
    """``("produced_svg", svg)`` or ``("response", text)``: what to score for a stored row.

    A run row whose fingerprint names the patch action format is scored as the env scored it:
    its edit scripts are replayed on the source (:func:`vector_gym.runfile.replay_patches`), and
    the patched document is scored, or an empty answer when the last script failed.
    """
    from vector_gym.runfile import action_format, replay_patches

    if action_format(r) == "patch":
        doc, last_ok, _ = replay_patches(r, task.source_svg)
        return ("produced_svg", doc) if last_ok else ("response", "")
    if "produced_svg" in r:
        return "produced_svg", r["produced_svg"]
    return "response", r["response"]


def _rescored_row(r: Mapping[str, Any], report: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": r["task_id"], "model": str(r.get("model", r.get("policy")))}
    if r.get("name"):
        row["name"] = str(r["name"])
    if "finish_reason" in r:  # keeps the Trunc. column (share cut at the token budget)
        row["finish_reason"] = r["finish_reason"]
    if r.get("error"):  # a provider error of the stored run: the Err. column
        row["error"] = r["error"]
    row.update(report.to_dict())
    return row
