"""Lossless Hugging Face ``datasets`` for tasks: :func:`to_dataset` / :func:`from_dataset`.

Layer 7. ``datasets`` is imported only inside the functions (``pip install "vector-gym[trl]"``
or any install with ``datasets>=4.7``).

Why an explicit schema
----------------------
A task's requested edits hold values of several JSON types in one field (``before`` is a bool
for an insertion, a number for a radius, a nested list for polygon points, a string for a
colour), and its metadata differs from corpus to corpus. Left to inference,
``Dataset.from_list`` raises ``ArrowInvalid: cannot mix list and non-list``, and
``Dataset.from_generator`` (and the ``Json`` feature) go through pandas' ujson with 10
significant digits, so ``144.66666666666669`` comes back as ``144.6666666667`` and the task's
integrity hash changes (5 of the 20 bundled Vector-Bench tasks). Here every value whose JSON
type varies is stored as a JSON text written by Python's :mod:`json` (shortest repr that
round-trips each float exactly) in a plain ``string`` column, which Arrow never reinterprets.

Schema (:data:`TASK_FEATURES`)
------------------------------
============================  ===============================================================
``task_id``                   string
``family``                    string (``Task.family``, e.g. ``"vector-bench"``)
``instruction``               string
``source_svg``                string
``target_svg``                string
``requested_edits``           list of {``part``: string, ``attribute``: string, ``before``:
                              JSON text, ``after``: JSON text, ``extra``: JSON text of an
                              object (the item's other keys, in order)}
``protected_ids``             list of string
``metadata``                  JSON text of an object (``Task.meta()``, keys in order)
``integrity_hash``            string: ``Task.integrity_hash``, checked by :func:`from_dataset`
============================  ===============================================================

Round trip: ``from_dataset(to_dataset(tasks)) == tasks`` (equal records, so equal hashes),
also after ``save_to_disk``/``load_from_disk``, ``to_parquet``/``Dataset.from_parquet`` and a
Hub push (the features travel in the Arrow schema metadata; without them the columns are still
plain strings and lists and read the same). Extra columns (a ``prompt`` column added for a
trainer) are ignored on the way back.

Examples
--------
>>> from vector_gym.tasks.vector_bench import load_vector_bench
>>> tasks = load_vector_bench()
>>> ds = to_dataset(tasks)
>>> ds.num_rows, from_dataset(ds) == tasks
(20, True)
>>> dd = to_dataset({"train": tasks[:15], "test": tasks[15:]})
>>> sorted(dd), len(from_dataset(dd)["test"])
(['test', 'train'], 5)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError, CorpusError, IntegrityError
from vector_gym.tasks.task import RequestedEdit, Task, freeze_value, thaw_value

__all__ = [
    "TASK_COLUMNS",
    "task_features",
    "task_to_row",
    "task_from_row",
    "to_dataset",
    "from_dataset",
    "suite_dataset",
]

#: Column names of a task dataset, in order (see the module docstring for their types).
TASK_COLUMNS: tuple[str, ...] = (
    "task_id",
    "family",
    "instruction",
    "source_svg",
    "target_svg",
    "requested_edits",
    "protected_ids",
    "metadata",
    "integrity_hash",
)

_EDIT_KEYS = ("part", "attribute", "before", "after", "extra")


def task_features() -> Any:
    """The explicit ``datasets.Features`` of a task dataset (module docstring table)."""
    from datasets import Features, List, Value

    text = Value("string")
    return Features(
        {
            "task_id": text,
            "family": text,
            "instruction": text,
            "source_svg": text,
            "target_svg": text,
            "requested_edits": List({k: text for k in _EDIT_KEYS}),
            "protected_ids": List(text),
            "metadata": text,
            "integrity_hash": text,
        }
    )


def _dumps(value: Any, where: str) -> str:
    """JSON text of a thawed value; floats keep their exact repr; NaN/inf allowed (as Python)."""
    try:
        return json.dumps(thaw_value(value), ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: expected a JSON value, got {type(value).__name__} ({exc})") from None


def _loads(text: Any, where: str) -> Any:
    if not isinstance(text, str):
        raise CorpusError(f"{where}: expected a JSON text, got {type(text).__name__}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorpusError(f"{where}: not JSON ({exc})") from None


def task_to_row(task: Task) -> dict[str, Any]:
    """One dataset row (a dict of the :data:`TASK_COLUMNS`) for a task.

    Raises
    ------
    ConfigError
        ``task`` is not a Task, or a value in its edits or metadata is not JSON.
    """
    if not isinstance(task, Task):
        raise ConfigError(f"expected a Task, got {type(task).__name__}")
    where = f"task {task.task_id!r}"
    return {
        "task_id": task.task_id,
        "family": task.family,
        "instruction": task.instruction,
        "source_svg": task.source_svg,
        "target_svg": task.target_svg,
        "requested_edits": [
            {
                "part": e.part,
                "attribute": e.attribute,
                "before": _dumps(e.before, f"{where} edit before"),
                "after": _dumps(e.after, f"{where} edit after"),
                "extra": _dumps({k: thaw_value(v) for k, v in e.extra}, f"{where} edit extra"),
            }
            for e in task.requested_edits
        ],
        "protected_ids": list(task.protected_ids),
        "metadata": _dumps(task.meta(), f"{where} metadata"),
        "integrity_hash": task.integrity_hash,
    }


def _str(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str):
        raise CorpusError(f"{where}: column {key!r} expected str, got {type(value).__name__}")
    return value


def task_from_row(row: Mapping[str, Any], *, check_hash: bool = True) -> Task:
    """The task of one dataset row (inverse of :func:`task_to_row`).

    Parameters
    ----------
    row : mapping
        A row with the :data:`TASK_COLUMNS` (others ignored).
    check_hash : bool
        Compare the rebuilt task's integrity hash with the row's ``integrity_hash``
        (when the row has one).

    Raises
    ------
    CorpusError
        A column is missing or of the wrong type, or a JSON text does not parse.
    IntegrityError
        The rebuilt task's hash differs from the recorded one (the row was edited).
    """
    if not isinstance(row, Mapping):
        raise CorpusError(f"expected a dataset row (mapping), got {type(row).__name__}")
    task_id = _str(row, "task_id", "dataset row")
    where = f"dataset row {task_id!r}"
    edits = []
    for i, item in enumerate(row.get("requested_edits") or ()):
        if not isinstance(item, Mapping):
            raise CorpusError(f"{where}: requested_edits[{i}] expected a struct")
        extra = _loads(item.get("extra", "{}"), f"{where} requested_edits[{i}].extra")
        if not isinstance(extra, dict):
            raise CorpusError(f"{where}: requested_edits[{i}].extra expected a JSON object")
        edits.append(
            RequestedEdit(
                part=_str(item, "part", where),
                attribute=_str(item, "attribute", where),
                before=freeze_value(_loads(item.get("before"), f"{where} requested_edits[{i}].before")),
                after=freeze_value(_loads(item.get("after"), f"{where} requested_edits[{i}].after")),
                extra=tuple((str(k), freeze_value(v)) for k, v in extra.items()),
            )
        )
    meta = _loads(row.get("metadata", "{}"), f"{where} metadata")
    if not isinstance(meta, dict):
        raise CorpusError(f"{where}: metadata expected a JSON object")
    protected = row.get("protected_ids") or ()
    if not all(isinstance(u, str) for u in protected):
        raise CorpusError(f"{where}: protected_ids expected a list of str")
    task = Task(
        task_id=task_id,
        family=_str(row, "family", where),
        instruction=_str(row, "instruction", where),
        source_svg=_str(row, "source_svg", where),
        target_svg=_str(row, "target_svg", where),
        requested_edits=tuple(edits),
        protected_ids=tuple(protected),
        metadata=tuple((str(k), freeze_value(v)) for k, v in meta.items()),
    )
    recorded = row.get("integrity_hash")
    if check_hash and isinstance(recorded, str) and recorded and recorded != task.integrity_hash:
        raise IntegrityError(
            f"{where}: integrity hash {task.integrity_hash} does not match the recorded {recorded}"
        )
    return task


def _task_list(tasks: Any) -> list[Task]:
    if isinstance(tasks, str | bytes) or not isinstance(tasks, Iterable):
        raise ConfigError(f"expected a sequence of Task, got {type(tasks).__name__}")
    out = list(tasks)
    bad = next((t for t in out if not isinstance(t, Task)), None)
    if bad is not None:
        raise ConfigError(f"expected a sequence of Task, found a {type(bad).__name__}")
    return out


def to_dataset(tasks: Sequence[Task] | Mapping[str, Sequence[Task]]) -> Any:
    """Tasks as a ``datasets.Dataset`` with :func:`task_features` (splits: a ``DatasetDict``).

    Parameters
    ----------
    tasks : sequence of Task, or mapping of split name to sequence of Task
        One row per task, in order. A mapping (``{"train": [...], "test": [...]}``) gives a
        ``DatasetDict`` with those split names.

    Returns
    -------
    datasets.Dataset or datasets.DatasetDict

    Raises
    ------
    ConfigError
        Not Task objects, a split name that is not a non-empty str, or a non-JSON value.
    """
    from datasets import Dataset, DatasetDict

    if isinstance(tasks, Mapping):
        out = {}
        for name, split_tasks in tasks.items():
            if not isinstance(name, str) or not name:
                raise ConfigError(f"split name: expected a non-empty str, got {name!r}")
            out[name] = to_dataset(split_tasks)
        return DatasetDict(out)
    rows = [task_to_row(t) for t in _task_list(tasks)]
    columns = {c: [r[c] for r in rows] for c in TASK_COLUMNS}
    return Dataset.from_dict(columns, features=task_features())


def from_dataset(ds: Any, *, check_hash: bool = True) -> list[Task] | dict[str, list[Task]]:
    """Tasks of a dataset written by :func:`to_dataset` (a ``DatasetDict``: per split).

    Parameters
    ----------
    ds : datasets.Dataset, IterableDataset, DatasetDict or iterable of row mappings
    check_hash : bool
        Check each row's recorded integrity hash (:func:`task_from_row`).

    Returns
    -------
    list of Task, or dict of split name to list of Task (for a ``DatasetDict``)

    Raises
    ------
    CorpusError
        A required column is missing or malformed.
    IntegrityError
        A row's rebuilt task does not match its recorded hash.
    """
    from datasets import DatasetDict, IterableDatasetDict

    if isinstance(ds, DatasetDict | IterableDatasetDict):
        return {name: from_dataset(split, check_hash=check_hash) for name, split in ds.items()}
    names = getattr(ds, "column_names", None)
    if isinstance(names, list):
        missing = [c for c in TASK_COLUMNS if c not in names and c != "integrity_hash"]
        if missing:
            raise CorpusError(f"dataset: missing task column(s) {missing}; has {names}")
        if len(names) > len(TASK_COLUMNS):
            ds = ds.select_columns([c for c in TASK_COLUMNS if c in names])
    return [task_from_row(row, check_hash=check_hash) for row in ds]


def suite_dataset(suite: Any, splits: Sequence[str] | None = None, **task_options: Any) -> Any:
    """A ``DatasetDict`` of a suite's splits (``suite.tasks(split, **task_options)`` each).

    Parameters
    ----------
    suite : Suite or str
        A suite or a registered name (``"vector_bench"``, ``"repairgen"`` ...).
    splits : sequence of str, optional
        Default: every split of the suite. RepairGen: ``("train", "test")`` with ``n=1000``
        writes 1,000 generated tasks per split.
    **task_options
        Passed to ``suite.tasks`` (RepairGen: ``n``, ``start``, ``seed``).
    """
    from vector_gym.suites import get_suite

    suite = get_suite(suite)
    names = tuple(splits) if splits is not None else suite.splits
    return to_dataset({s: suite.tasks(s, **task_options) for s in names})
