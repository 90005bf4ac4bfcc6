"""Rollouts of suites that score concurrently: a turn's batch is scored in parts, the next parts
in threads while the rows of the part before are written (vector_gym.rollout._TurnScorer)."""

from __future__ import annotations

import threading

import pytest
from test_rollout import CountingPolicy, SecondTimeLucky, ToyReport

import vector_gym.runfile as runfile
from vector_gym.envs.base import EditEnv
from vector_gym.envs.wrappers import wrap
from vector_gym.errors import ScorerError
from vector_gym.rollout import read_rows, rollout
from vector_gym.suites import Suite
from vector_gym.tasks.task import Task

TASKS = [Task(f"t{i}", "toy", f"make it {i}", f"<svg>{i}</svg>", f"<svg>{i + 1}</svg>") for i in range(13)]


class RecordingScorer:
    """Exact-match scorer that records each call's size and thread; fails on ``fail_on``."""

    def __init__(self, fail_on: str | None = None):
        self.calls: list[tuple[int, str]] = []
        self.fail_on = fail_on

    def score_many(self, tasks, responses):
        self.calls.append((len(tasks), threading.current_thread().name))
        out = []
        for t, r in zip(tasks, responses, strict=True):
            if t.task_id == self.fail_on:
                raise RuntimeError("scorer broke")
            ok = r == t.target_svg
            out.append(ToyReport(1.0 if ok else 0.0, () if ok else ("mismatch",)))
        return out


def make_env(concurrent: bool, scorer=None, tasks=TASKS):
    suite = Suite("toy", tasks=tasks, scorer=scorer or RecordingScorer())
    suite.concurrent_scoring = concurrent
    return EditEnv(suite)


def _scored(rows):
    return [(r["task_id"], r["reward"], r["report"]) for r in rows]


def test_a_batch_is_scored_in_parts_in_threads_with_the_rows_of_one_call(tmp_path, monkeypatch):
    synced: list[int] = []
    real = runfile.os.fsync
    out = tmp_path / "r.jsonl"

    def counting_fsync(fd):
        synced.append(out.read_bytes().count(b"\n"))
        real(fd)

    monkeypatch.setattr(runfile.os, "fsync", counting_fsync)
    env = make_env(True)
    rows = rollout(env, CountingPolicy(), out, batch_size=13, progress=False)
    calls = env.suite.scorer.calls
    assert [n for n, _ in calls] == [5, 5, 3]  # 13 rows: 3 parts, the last one smaller
    assert all(name.startswith("vector-gym-score") for _, name in calls)
    assert synced == [13]  # still one fsync per batch, after its rows
    serial = make_env(False)
    expected = rollout(serial, CountingPolicy(), tmp_path / "s.jsonl", batch_size=13, progress=False)
    assert serial.suite.scorer.calls == [(13, threading.current_thread().name)]  # one call, inline
    assert _scored(rows) == _scored(expected)
    assert [r["reward"] for r in rows] == [1.0 if i % 2 == 0 else 0.0 for i in range(13)]
    assert [r["task_id"] for r in read_rows(out)] == [t.task_id for t in TASKS]  # file in task order
    assert all(r["elapsed_s"] >= 0 for r in rows)


def test_small_batches_and_batch_size_one_score_inline(tmp_path):
    env = make_env(True)
    rollout(env, CountingPolicy(), tmp_path / "r.jsonl", batch_size=7, progress=False)
    # 7 rows make one part (fewer than 2 x 4), the last 6 too: no thread
    assert env.suite.scorer.calls == [(7, threading.current_thread().name), (6, threading.current_thread().name)]
    env = make_env(True)
    rollout(env, CountingPolicy(), tmp_path / "one.jsonl", batch_size=1, progress=False)
    assert {name for _, name in env.suite.scorer.calls} == {threading.current_thread().name}


def test_a_scorer_error_in_a_thread_stops_the_run_and_the_written_rows_resume(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ScorerError, match="scorer broke"):
        rollout(make_env(True, RecordingScorer(fail_on="t6")), CountingPolicy(), out,
                batch_size=13, progress=False)
    assert [r["task_id"] for r in read_rows(out)] == ["t0", "t1", "t2", "t3", "t4"]  # the first part
    assert not [t for t in threading.enumerate() if t.name.startswith("vector-gym-score")]
    pol = CountingPolicy()
    rows = rollout(make_env(True), pol, out, batch_size=13, progress=False)
    assert pol.seen == [t.task_id for t in TASKS[5:]]  # the written rows are not redone
    assert [r["task_id"] for r in rows] == [t.task_id for t in TASKS]


def test_multi_turn_episodes_score_each_turn_in_parts(tmp_path):
    env = wrap(make_env(True), max_turns=3)
    rows = rollout(env, SecondTimeLucky(), tmp_path / "r.jsonl", batch_size=13, progress=False)
    serial = wrap(make_env(False), max_turns=3)
    expected = rollout(serial, SecondTimeLucky(), tmp_path / "s.jsonl", batch_size=13, progress=False)
    assert [n for n, _ in env.unwrapped.suite.scorer.calls] == [5, 5, 3, 5, 5, 3]  # two turns
    for key in ("task_id", "reward", "report", "turns", "responses", "answer_rewards", "terminated"):
        assert [r[key] for r in rows] == [r[key] for r in expected]
    assert rows[0]["turns"] == 2 and rows[0]["reward"] == 1.0


def test_raster_suite_rows_equal_those_of_one_step_per_completion(tmp_path):
    """SVGEditBench V2 over 2 render processes: the parts scored in threads give the reports of
    a reset/step per completion."""
    from vector_gym.policies import make_policy
    from vector_gym.suites.svgeditbench_v2 import SVGEditBenchV2Suite

    class OneAtATime(EditEnv):
        def score_batch(self, tasks, responses):
            return None

    class Overlapped(SVGEditBenchV2Suite):
        concurrent_scoring = True  # whatever this machine's cores

    def suite(cls=SVGEditBenchV2Suite):
        return cls(processes=2, dino_model=None, clip_model=None, chamfer=False)

    assert SVGEditBenchV2Suite(processes=0, dino_model=None, clip_model=None).concurrent_scoring is False
    tasks = suite().tasks()[:12]
    ids = [t.task_id for t in tasks]
    env = EditEnv(suite(Overlapped), tasks=tasks)
    batched = rollout(env, make_policy("oracle", tasks), tmp_path / "b.jsonl",
                      batch_size=12, task_ids=ids, progress=False)
    single = rollout(OneAtATime(suite(), tasks=tasks), make_policy("oracle", tasks), tmp_path / "s.jsonl",
                     batch_size=1, task_ids=ids, progress=False)
    assert _scored(batched) == _scored(single)
    assert all(r["reward"] == 1.0 and r["report"]["mse"] == 0.0 for r in batched)  # the oracle's


def test_raster_suites_overlap_only_with_a_core_beside_the_render_processes(monkeypatch):
    import os

    from vector_gym.suites.svgeditbench_v2 import SVGEditBenchV2Suite

    for cores, processes, expected in ((2, 2, False), (3, 2, True), (16, 2, True), (16, None, False), (16, 0, False)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        suite = SVGEditBenchV2Suite(processes=processes, dino_model=None, clip_model=None)
        assert suite.concurrent_scoring is expected, (cores, processes)


def test_a_failed_background_fsync_ends_the_run_as_interrupted_and_resumes(tmp_path, monkeypatch):
    from vector_gym.runfile import RunInterrupted

    real = runfile.os.fsync
    threads: list[str] = []

    def full_disk(fd):
        threads.append(threading.current_thread().name)
        if len(threads) == 1:
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(runfile.os, "fsync", full_disk)
    out = tmp_path / "r.jsonl"
    with pytest.raises(RunInterrupted, match="No space left"):
        rollout(make_env(False), CountingPolicy(), out, batch_size=5, progress=False)
    assert threads[0].startswith("vector-gym-fsync")  # the first batch's fsync, in its thread
    assert [r["task_id"] for r in read_rows(out)] == ["t0", "t1", "t2", "t3", "t4"]  # no row after it
    monkeypatch.setattr(runfile.os, "fsync", real)
    pol = CountingPolicy()
    rows = rollout(make_env(False), pol, out, batch_size=5, progress=False)
    assert pol.seen == [t.task_id for t in TASKS[5:]]
    assert len(rows) == 13
