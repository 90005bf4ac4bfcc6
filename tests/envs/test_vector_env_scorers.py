"""Vector envs build each task's scorer once, before AsyncVectorEnv forks its workers (issue 16)."""

from __future__ import annotations

import os
from functools import partial

import pytest
from gymnasium.vector import AsyncVectorEnv, AutoresetMode

from vector_gym.envs.vector_bench import VectorBenchEnv
from vector_gym.rewards import spec
from vector_gym.tasks.vector_bench import load_vector_bench


@pytest.fixture
def builds(tmp_path, monkeypatch):
    """Record the pid of every SpecScorer construction (in this process and forked children)."""
    log = tmp_path / "builds.txt"
    original = spec.SpecScorer.__init__

    def recording(self, task, parity=False):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()} {task.task_id}\n")
        original(self, task, parity)

    monkeypatch.setattr(spec.SpecScorer, "__init__", recording)
    monkeypatch.setattr(spec, "_SCORERS", type(spec._SCORERS)())  # start from an empty cache

    def read() -> list[tuple[int, str]]:
        if not log.exists():
            return []
        return [(int(p), t) for p, t in (line.split() for line in log.read_text().splitlines())]

    return read


def test_async_workers_inherit_the_scorers_built_before_the_fork(builds):
    tasks = load_vector_bench()[:4]
    fns = [partial(VectorBenchEnv, tasks=tasks, task_order="sequential") for _ in range(2)]
    env = AsyncVectorEnv(fns, shared_memory=False, context="fork", autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        env.reset(seed=0)
        for _ in range(4):  # every task scored in both workers
            _, reward, terminated, _, info = env.step((tasks[0].target_svg, tasks[0].target_svg))
            assert terminated.all()
        workers = {p.pid for p in env.processes}
    finally:
        env.close()
    built = builds()
    # each task's scorer was built exactly once, in this (the parent) process, none in a worker
    assert sorted(t for _, t in built) == sorted(t.task_id for t in tasks)
    assert {pid for pid, _ in built} == {os.getpid()}
    assert not workers & {pid for pid, _ in built}


def test_env_construction_builds_the_scorers_once(builds):
    tasks = load_vector_bench()[:3]
    VectorBenchEnv(tasks=tasks)
    VectorBenchEnv(tasks=tasks)  # a second env over the same tasks reuses them
    assert sorted(t for _, t in builds()) == sorted(t.task_id for t in tasks)
    VectorBenchEnv(tasks=tasks, parity=True)  # parity scorers are distinct
    assert len(builds()) == 2 * len(tasks)
