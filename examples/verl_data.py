"""Write a suite's tasks as verl parquet files (+ the agent-loop YAML) and print the verl command.

    pip install "vector-gym[verl]"
    python examples/verl_data.py --suite repairgen --n 10000 --out data/verl --max-turns 3
    # then, on the training machine (see the printed overrides):
    python -m verl.trainer.main_ppo data.train_files=data/verl/train.parquet ...

Rows carry the whole task as ``reward_model.ground_truth`` (lossless JSON), so
``reward.custom_reward_function.path=pkg://vector_gym.integrations.verl`` scores any task
without a lookup; ``--max-turns > 1`` writes ``agent_name=vector_gym_agent`` rows for the
multi-turn agent loop.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vector_gym.integrations.verl import write_agent_loop_yaml, write_parquet
from vector_gym.suites import get_suite


def main(argv: list[str] | None = None) -> list[str]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="vector_bench")
    p.add_argument("--out", default="data/verl")
    p.add_argument("--n", type=int, default=None, help="generated suites: tasks per split")
    p.add_argument("--action-format", choices=("svg", "patch"), default="svg")
    p.add_argument("--max-turns", type=int, default=1)
    args = p.parse_args(argv)
    suite = get_suite(args.suite)
    out = Path(args.out)
    kw = {"n": args.n} if args.n else {}
    multi = args.max_turns > 1
    splits = [s for s in ("train", "test") if s in suite.splits] or [suite.default_split]
    paths = {s: write_parquet(suite, out / f"{s}.parquet", split=s, action_format=args.action_format,
                              multi_turn=multi, max_turns=args.max_turns, **kw) for s in splits}
    overrides = [
        f"data.train_files={paths[splits[0]]}",
        f"data.val_files={paths[splits[-1]]}",
        "reward.custom_reward_function.path=pkg://vector_gym.integrations.verl",
        "reward.custom_reward_function.name=compute_score",
    ]
    if multi:
        yaml = write_agent_loop_yaml(out / "vector_gym_agent.yaml")
        overrides += ["actor_rollout_ref.rollout.mode=async",
                      f"actor_rollout_ref.rollout.agent.agent_loop_config_path={yaml}"]
    print("python -m verl.trainer.main_ppo " + " ".join(overrides))
    return overrides


if __name__ == "__main__":
    main()
