"""Run SkyRL text-env episodes over a suite (the loop a SkyRL generator runs per trajectory).

    pip install "vector-gym[skyrl]"
    python examples/skyrl_episodes.py --suite repairgen --n 8 --max-turns 2

The policy is a stand-in (``identity``: the source SVG, then the target on the last turn, to
show a failing and a passing turn); plug in your model where ``policy`` is called. Rows from
``skyrl_rows`` go into a parquet file for skyrl-train (``env_class: vector_gym``).
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> list[dict]:
    import skyrl_gym

    from vector_gym.integrations.skyrl import register_env, skyrl_rows
    from vector_gym.suites import get_suite

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="vector_bench")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--max-turns", type=int, default=2)
    args = p.parse_args(argv)
    suite = get_suite(args.suite)
    env_id = register_env()
    tasks = suite.tasks()[: args.n] if not callable(getattr(suite, "generate", None)) else suite.tasks(n=args.n)
    out = []
    for row, task in zip(skyrl_rows(suite, tasks=tasks, max_turns=args.max_turns), tasks, strict=True):
        env = skyrl_gym.make(env_id, extras=row)
        conversation, _ = env.init(row["prompt"])
        total, turn, done = 0.0, 0, False
        while not done:
            turn += 1
            text = task.target_svg if turn == args.max_turns else task.source_svg  # stand-in policy
            step = env.step(text)
            conversation = conversation + [{"role": "assistant", "content": text}] + step["observations"]
            total, done = total + step["reward"], step["done"]
        out.append({"task_id": task.task_id, "return": total, **env.get_metrics()})
        print(out[-1])
    return out


if __name__ == "__main__":
    main()
