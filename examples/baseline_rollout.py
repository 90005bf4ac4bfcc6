"""Run the four Vector-Bench evaluator controls through ``rollout`` and print their table.

Usage: ``python examples/baseline_rollout.py [OUT_DIR]`` (default ``runs/examples``). Re-running
resumes from the JSON Lines files in OUT_DIR. Expected: Vector-Bench Table 2 on the 20 bundled
tasks (identity 0 full / 100 clean; oracle 100 full; protected mutation 0 full, 100 repair,
0 clean; malformed target 0 valid).
"""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium

import vector_gym  # noqa: F401  (registers vector_gym/VectorBench-v0)
from vector_gym.policies import CONTROL_POLICIES, make_policy
from vector_gym.rollout import rollout
from vector_gym.summary import format_table, summarize


def main(out_dir: str = "runs/examples") -> None:
    env = gymnasium.make("vector_gym/VectorBench-v0")
    tasks = env.unwrapped.tasks
    rows = []
    for spec in CONTROL_POLICIES:
        policy = make_policy(spec, tasks)
        rows += rollout(env, policy, Path(out_dir) / f"{policy.name}.jsonl", batch_size=8)
    env.close()
    print(format_table(summarize(rows, by="policy")))


if __name__ == "__main__":
    main(*sys.argv[1:2])
