"""Lossless Hugging Face datasets: every bundled task and 1,000 generated tasks round-trip exactly."""

from __future__ import annotations

import pytest

from vector_gym.errors import ConfigError, CorpusError, IntegrityError
from vector_gym.integrations.datasets import (
    TASK_COLUMNS,
    from_dataset,
    suite_dataset,
    task_from_row,
    task_to_row,
    to_dataset,
)
from vector_gym.suites import get_suite
from vector_gym.tasks.task import RequestedEdit, Task, corpus_hash


def _numbers(value):
    if isinstance(value, tuple):
        return [x for v in value for x in _numbers(v)]
    return [value] if isinstance(value, float) else []


def _assert_same(back, tasks):
    assert len(back) == len(tasks)
    assert [t.integrity_hash for t in back] == [t.integrity_hash for t in tasks]
    assert back == tasks  # equal records, types included (1 vs 1.0 vs True)
    assert corpus_hash(back) == corpus_hash(tasks)


@pytest.mark.parametrize("name", ["vector_bench", "svgeditbench_v1", "svgeditbench_v2"])
def test_bundled_corpora_round_trip(name):
    tasks = get_suite(name).tasks()
    ds = to_dataset(tasks)
    assert ds.column_names == list(TASK_COLUMNS)
    assert ds.num_rows == len(tasks)
    _assert_same(from_dataset(ds), tasks)


def test_float_that_ujson_rounds_survives(tmp_path):
    """The issue's example: datasets' Json feature (pandas ujson, 10 digits) rounds this float."""
    tasks = get_suite("vector_bench").tasks()
    x = 144.66666666666669
    assert any(x in _numbers((e.before, e.after)) for t in tasks for e in t.requested_edits)
    ds = to_dataset(tasks)
    ds.save_to_disk(str(tmp_path / "disk"))
    ds.to_parquet(str(tmp_path / "tasks.parquet"))
    from datasets import Dataset, load_from_disk

    _assert_same(from_dataset(load_from_disk(str(tmp_path / "disk"))), tasks)
    _assert_same(from_dataset(Dataset.from_parquet(str(tmp_path / "tasks.parquet"))), tasks)


def test_thousand_generated_tasks_round_trip_by_split():
    suite = get_suite("repairgen", config={"visibility": "geometric"})
    dd = suite_dataset(suite, splits=("train", "test"), n=500)
    assert sorted(dd) == ["test", "train"]
    assert dd["train"].num_rows == dd["test"].num_rows == 500
    back = from_dataset(dd)
    _assert_same(back["train"], suite.tasks("train", n=500))
    _assert_same(back["test"], suite.tasks("test", n=500))
    assert back["train"][0].task_id.startswith("rg-train-")


def test_odd_value_types_are_kept_exactly():
    task = Task(
        task_id="odd",
        family="custom",
        instruction="é ✓",
        source_svg="<svg/>",
        target_svg="<svg/>",
        requested_edits=(
            RequestedEdit("a", "exists", True, False),
            RequestedEdit("a", "r", 1, 1.0),
            RequestedEdit("a", "points", ((0.1, 2), (3, 1e-300)), None, (("removed", "x"), ("added", (1,)))),
            RequestedEdit("a", "fill", "10", "[1]"),  # strings that look like JSON stay strings
        ),
        protected_ids=("u1", "u2"),
        metadata=(("nested", (("k", 1.5),)), ("n", None), ("s", "null")),
    )
    back = from_dataset(to_dataset([task]))[0]
    assert back == task and back.integrity_hash == task.integrity_hash
    assert type(back.requested_edits[1].before) is int and type(back.requested_edits[1].after) is float
    assert back.requested_edits[3].before == "10" and back.metadata[2] == ("s", "null")


def test_extra_columns_ignored_and_edits_detected():
    tasks = get_suite("vector_bench").tasks()[:3]
    ds = to_dataset(tasks).add_column("prompt", ["p"] * 3)
    assert from_dataset(ds) == tasks
    row = task_to_row(tasks[0])
    row["target_svg"] = row["target_svg"].replace("<svg", "<svg data-x='1'", 1)
    with pytest.raises(IntegrityError, match="does not match"):
        task_from_row(row)
    assert task_from_row(row, check_hash=False).target_svg == row["target_svg"]
    with pytest.raises(CorpusError, match="missing task column"):
        from_dataset(ds.remove_columns(["target_svg"]))
    bad = dict(task_to_row(tasks[0]), metadata="{not json")
    with pytest.raises(CorpusError, match="not JSON"):
        task_from_row(bad)
    with pytest.raises(ConfigError, match="expected a sequence of Task"):
        to_dataset(["sv_001"])
    with pytest.raises(ConfigError, match="split name"):
        to_dataset({"": tasks})
