"""Vector-Bench corpus loader.

Loads the bundled tasks sv_001-sv_020 (``vector_gym/tasks/data/vector_bench``), any
directory in the layout of the public ``vector-edit-gym`` repository
(``data/tasks/sv_*.json``, one task object per file, or the ``data/tasks`` folder
itself), or JSON Lines of task objects (plain or gzip-compressed).

Every loaded task is checked: required fields present with the right types (a
missing field raises :class:`~vector_gym.errors.CorpusError` naming the file,
as the reference suite requires: spec section 17), and, for the bundled corpus or
when ``expected_hash`` is given, the corpus hash.

References
----------
Gupta & Hebbar 2026, *Vector-Bench*; repository ``yug-space/vector-edit-gym``
commit 664f0b2. Task fields: ``spec-reward.md`` section 1.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from vector_gym.errors import CorpusError, IntegrityError
from vector_gym.tasks.task import RequestedEdit, Task, corpus_hash, freeze_value

__all__ = [
    "BUNDLED_CORPUS_HASH",
    "load_vector_bench",
    "load_vector_bench_dir",
    "load_vector_bench_jsonl",
    "task_from_vector_bench",
    "read_jsonl",
]

FAMILY = "vector-bench"

#: corpus_hash() of the bundled sv_001-sv_020, recorded when the data was bundled.
BUNDLED_CORPUS_HASH = "868b75145a3f00490cf61a1d5657903a46e0cd259a6614d296a135c558112e38"

_REQUIRED = {
    "task_id": str,
    "instruction": str,
    "initial_svg": str,
    "target_svg": str,
    "expected_diff": list,
    "should_preserve": list,
}
_SCORED = set(_REQUIRED)


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read JSON Lines, plain or gzip-compressed (detected by magic bytes).

    Raises
    ------
    CorpusError
        If a line is not valid JSON; the message names the file and line number.
    """
    path = Path(path)
    with open(path, "rb") as fh:
        magic = fh.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise CorpusError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
    return rows


def task_from_vector_bench(obj: Mapping[str, Any], origin: str = "<memory>") -> Task:
    """Convert one Vector-Bench task object into a :class:`Task`.

    Parameters
    ----------
    obj : mapping
        A task object as published (``task_id``, ``instruction``, ``initial_svg``,
        ``target_svg``, ``expected_diff``, ``should_preserve``, ...).
    origin : str
        File name used in error messages.

    Raises
    ------
    CorpusError
        A required field is missing or has the wrong type; the message names
        ``origin``, the field, the expected and the actual type.
    """
    if not isinstance(obj, Mapping):
        raise CorpusError(f"{origin}: expected a task object, got {type(obj).__name__}")
    for key, typ in _REQUIRED.items():
        if key not in obj:
            raise CorpusError(f"{origin}: task is missing required field {key!r}")
        if not isinstance(obj[key], typ):
            raise CorpusError(
                f"{origin}: field {key!r} expected {typ.__name__}, got {type(obj[key]).__name__}"
            )
    edits = []
    for i, item in enumerate(obj["expected_diff"]):
        if not isinstance(item, Mapping) or "part" not in item or "attribute" not in item:
            raise CorpusError(f"{origin}: expected_diff[{i}] needs 'part' and 'attribute'")
        edits.append(RequestedEdit.from_dict(item))
    metadata = tuple((k, freeze_value(v)) for k, v in obj.items() if k not in _SCORED)
    return Task(
        task_id=obj["task_id"],
        family=FAMILY,
        instruction=obj["instruction"],
        source_svg=obj["initial_svg"],
        target_svg=obj["target_svg"],
        requested_edits=tuple(edits),
        protected_ids=tuple(str(u) for u in obj["should_preserve"]),
        metadata=metadata,
    )


def _check_unique(tasks: list[Task], origin: str) -> None:
    seen: set[str] = set()
    for t in tasks:
        if t.task_id in seen:
            raise CorpusError(f"{origin}: duplicate task_id {t.task_id!r}")
        seen.add(t.task_id)


def _check_hash(tasks: list[Task], expected_hash: str | None, origin: str) -> None:
    if expected_hash is None:
        return
    actual = corpus_hash(tasks)
    if actual != expected_hash:
        raise IntegrityError(
            f"{origin}: corpus hash mismatch, expected {expected_hash}, got {actual}; "
            "the task files were modified or are a different corpus version"
        )


def load_vector_bench_jsonl(path: str | Path, expected_hash: str | None = None) -> list[Task]:
    """Load Vector-Bench tasks from JSON Lines (plain or gzip), in file order.

    Raises
    ------
    CorpusError, IntegrityError
    """
    rows = read_jsonl(path)
    tasks = [task_from_vector_bench(r, f"{path}:{i + 1}") for i, r in enumerate(rows)]
    _check_unique(tasks, str(path))
    _check_hash(tasks, expected_hash, str(path))
    return tasks


def load_vector_bench_dir(path: str | Path, expected_hash: str | None = None) -> list[Task]:
    """Load a directory in the public repository's layout, sorted by file name.

    ``path`` may be the repository root (tasks under ``data/tasks/``) or the
    ``data/tasks`` folder itself; every ``sv_*.json`` file holds one task object.

    Raises
    ------
    CorpusError
        No ``sv_*.json`` file found, or a file is malformed (the message names it).
    IntegrityError
        ``expected_hash`` given and not matched.
    """
    root = Path(path)
    folder = root / "data" / "tasks" if (root / "data" / "tasks").is_dir() else root
    if not any(folder.glob("sv_*.json")) and any((root / "tasks").glob("sv_*.json")):
        folder = root / "tasks"  # OUT/data given for the OUT/data/tasks layout
    files = sorted(folder.glob("sv_*.json"))
    if not files:
        hint = ""
        if any(folder.glob("*.jsonl")) or any(folder.glob("*.jsonl.gz")):
            hint = "; it holds JSON Lines files: pass one of them (--tasks FILE.jsonl)"
        raise CorpusError(
            f"{folder}: no sv_*.json task files found (expected the task folder OUT/ that "
            f"`vector-gym generate --out OUT` writes, or OUT/data/tasks){hint}"
        )
    tasks = []
    for f in files:
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"{f}: not valid JSON ({exc})") from exc
        tasks.append(task_from_vector_bench(obj, str(f)))
    _check_unique(tasks, str(folder))
    _check_hash(tasks, expected_hash, str(folder))
    return tasks


def _bundled_path() -> Path:
    return Path(str(resources.files("vector_gym.tasks") / "data" / "vector_bench" / "tasks_sv001_020.jsonl.gz"))


_BUNDLED_CACHE: list[Task] | None = None


def load_vector_bench(source: str | Path | None = None, expected_hash: str | None = None) -> list[Task]:
    """Load Vector-Bench tasks.

    Parameters
    ----------
    source : path, optional
        ``None`` for the bundled sv_001-sv_020 (integrity-checked against
        :data:`BUNDLED_CORPUS_HASH`); a directory (public-repository layout, or the
        folder ``vector-gym generate`` writes, or its ``data`` folder); a ``.json`` file
        holding one task object (one ``sv_*.json`` of that layout) or a list of them; or a
        JSON Lines file of task objects (plain or gzip).
    expected_hash : str, optional
        Corpus hash to check (:func:`vector_gym.tasks.task.corpus_hash`).

    Returns
    -------
    list of Task
        In corpus order.

    Raises
    ------
    CorpusError, IntegrityError, FileNotFoundError
    """
    global _BUNDLED_CACHE
    if source is None:
        if _BUNDLED_CACHE is None:
            _BUNDLED_CACHE = load_vector_bench_jsonl(_bundled_path(), expected_hash or BUNDLED_CORPUS_HASH)
        return list(_BUNDLED_CACHE)
    p = Path(source)
    if p.is_dir():
        return load_vector_bench_dir(p, expected_hash)
    if not p.exists():
        raise FileNotFoundError(f"no such task directory or file: {p}")
    if p.suffix == ".json":  # one task object per file (the layout `generate` writes)
        try:
            obj = json.loads(p.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise CorpusError(f"{p}: not valid JSON ({exc})") from None
        if isinstance(obj, dict):
            tasks = [task_from_vector_bench(obj, str(p))]
        elif isinstance(obj, list):
            tasks = [task_from_vector_bench(o, f"{p}[{i}]") for i, o in enumerate(obj)]
            _check_unique(tasks, str(p))
        else:
            raise CorpusError(f"{p}: expected a task object or a list of them, got {type(obj).__name__}")
        _check_hash(tasks, expected_hash, str(p))
        return tasks
    return load_vector_bench_jsonl(p, expected_hash)


def iter_task_ids(tasks: Iterable[Task]) -> list[str]:
    """Return the task ids in order."""
    return [t.task_id for t in tasks]
