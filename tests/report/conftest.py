"""Fixtures of the report tests: identity and oracle runs over the 20 bundled tasks, built once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def control_runs(tmp_path_factory):
    """Run files of the identity and oracle controls on every bundled Vector-Bench task.

    Produced by :func:`vector_gym.rollout.rollout` on ``VectorBenchEnv`` (the real scorer).
    """
    from vector_gym.envs.vector_bench import VectorBenchEnv
    from vector_gym.policies import make_policy
    from vector_gym.rollout import rollout

    d = tmp_path_factory.mktemp("runs")
    env = VectorBenchEnv()
    paths = []
    for spec in ("identity", "oracle"):
        policy = make_policy(spec, env.tasks)
        path = d / f"{spec}.jsonl"
        rollout(env, policy, path, batch_size=20, progress=False)
        paths.append(path)
    env.close()
    return paths


@pytest.fixture(scope="session")
def control_report(control_runs, tmp_path_factory):
    """The report of the two control runs (``ReportResult``)."""
    from vector_gym.report.build import build_report

    out = tmp_path_factory.mktemp("report")
    return build_report(control_runs, out, title="controls")
