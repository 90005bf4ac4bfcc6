"""Run files as the report reads them, and the tasks they refer to.

A run file is what :mod:`vector_gym.rollout` writes: JSON Lines (plain or gzip), one object per
outcome with ``task_id``, ``env``, ``policy``, ``sample_index``, ``response``,
``completion_tokens``, ``finish_reason``, ``truncated``, ``elapsed_s`` and ``report`` (the
scorer's ``to_dict()``). The report needs the tasks as well (source and target SVG,
instruction, requested edits); they come from the env's own loader (``EditEnv.load_tasks``)
unless passed explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vector_gym.errors import ConfigError, CorpusError
from vector_gym.tasks.task import Task

__all__ = ["Run", "load_env_tasks", "load_run", "load_runs", "tasks_for_runs"]


@dataclass(frozen=True)
class Run:
    """One run: a name and its outcome rows.

    Attributes
    ----------
    name : str
        Display name (the rows' ``policy`` field, else the file's stem).
    rows : tuple of dict
        The outcome rows as read from the run file.
    path : str or None
        Where the rows came from.
    """

    name: str
    rows: tuple[dict[str, Any], ...]
    path: str | None = None

    def env_ids(self) -> list[str]:
        """The distinct ``env`` values of the rows, in first-seen order."""
        return list(dict.fromkeys(str(r["env"]) for r in self.rows if r.get("env")))

    def first_outcomes(self) -> dict[str, dict[str, Any]]:
        """Map each task id to its outcome with the smallest ``sample_index`` (the one shown)."""
        best: dict[str, dict[str, Any]] = {}
        for r in self.rows:
            tid = str(r.get("task_id"))
            cur = best.get(tid)
            if cur is None or _sample(r) < _sample(cur):
                best[tid] = r
        return best


def _sample(row: Mapping[str, Any]) -> int:
    try:
        return int(row.get("sample_index") or 0)
    except (TypeError, ValueError):
        return 0


def load_run(path: str | Path, name: str | None = None) -> Run:
    """Read one run file.

    Parameters
    ----------
    path : str or Path
        JSON Lines run file (``.jsonl`` or ``.jsonl.gz``).
    name : str, optional
        Display name; default the rows' ``policy`` field (if they all share one), else the
        file name without its ``.jsonl``/``.gz`` suffixes.

    Raises
    ------
    ConfigError
        The file is missing, unreadable, not JSON Lines, or holds a row without ``task_id``.
    """
    from vector_gym.rollout import read_rows

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"run file {str(p)!r} does not exist")
    try:
        # rollout files are plain JSON Lines (read without repairing a torn last line);
        # published or archived ones may be gzip-compressed (vector_gym.runfile reads both).
        rows = tuple(read_rows(p, repair=False))
    except (OSError, ValueError, CorpusError) as exc:
        raise ConfigError(f"cannot read run file {str(p)!r}: {exc}") from exc
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or "task_id" not in r:
            raise ConfigError(f"run file {str(p)!r} line {i + 1}: expected an object with task_id")
    if name is None:
        policies = {str(r.get("policy")) for r in rows if r.get("policy")}
        name = policies.pop() if len(policies) == 1 else p.name.split(".jsonl")[0]
    return Run(name=name, rows=rows, path=str(p))


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Read run files and split them into one run per ``policy`` (as ``vector-gym eval`` groups).

    A file that holds one policy gives one run named after it; a file with several policies
    (``eval --out`` shared by several ``--policy``) gives one run per policy. When two files
    hold the same policy name, each run's name gets its file name appended.

    Raises
    ------
    ConfigError
        See :func:`load_run`.
    """
    runs: list[Run] = []
    for path in paths:
        whole = load_run(path)
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in whole.rows:
            groups.setdefault(str(r["policy"]) if r.get("policy") else whole.name, []).append(r)
        runs += [Run(name, tuple(rows), whole.path) for name, rows in groups.items()]
    return runs


def _suite(env: str) -> Any:
    from vector_gym.suites import get_suite

    try:
        return get_suite(env)
    except ConfigError as exc:
        raise ConfigError(
            f"unknown environment {env!r} in the run file ({exc}); pass the tasks explicitly (--tasks)"
        ) from None


def load_env_tasks(env: str, source: Any = None) -> list[Task]:
    """Load tasks with the loader of a suite (``Suite.load_tasks``), by env id, alias or suite name.

    Raises
    ------
    ConfigError
        Unknown suite, or the suite has no loader for ``source``.
    """
    return list(_suite(env).load_tasks(source))


def tasks_for_runs(runs: Sequence[Run], tasks: Iterable[Task] | None = None) -> dict[str, Task]:
    """Return ``task_id -> Task`` for every task the runs refer to.

    Parameters
    ----------
    runs : sequence of Run
    tasks : iterable of Task, optional
        Explicit tasks; when given, no env loader is called.

    Raises
    ------
    ConfigError
        A row names an unknown env, or a task id is found in no task source.
    """
    by_id: dict[str, Task] = {}
    if tasks is not None:
        by_id = {t.task_id: t for t in tasks}
    else:
        envs = list(dict.fromkeys(e for r in runs for e in r.env_ids()))
        for env in envs:
            suite = _suite(env)
            for t in suite.load_tasks():
                by_id.setdefault(t.task_id, t)
            if suite.generated:  # generated ids (RepairGen) are regenerated by the suite
                for run in runs:
                    for r in run.rows:
                        tid = r.get("task_id")
                        if r.get("env") == env and isinstance(tid, str) and tid not in by_id:
                            by_id[tid] = suite.get_task(tid)
    missing = sorted({str(r.get("task_id")) for run in runs for r in run.rows} - set(by_id))
    if missing:
        raise ConfigError(
            f"the runs refer to {len(missing)} task(s) that no task source holds "
            f"(first: {missing[:3]}); pass the corpus with --tasks"
        )
    return by_id
