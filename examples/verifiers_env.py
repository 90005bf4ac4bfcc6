"""Load the verifiers environment by id (classic and v1 APIs) and score stand-in answers.

    pip install "vector-gym[verifiers]"
    vf-eval vector-gym-verifiers -a '{"suite": "repairgen", "n": 50, "max_turns": 3}'   # classic
    python examples/verifiers_env.py --suite vector_bench

prime-rl and vf-eval load the same id (``vector-gym-verifiers``, the module
``vector_gym_verifiers``). This script scores the source (0) and the target (1) of the first
tasks through the classic rubric, with no model.
"""

from __future__ import annotations

import argparse
import asyncio


def main(argv: list[str] | None = None) -> list[tuple[str, float, float]]:
    import verifiers as vf
    from verifiers.v1.utils.loaders import taskset_class

    from vector_gym.suites import get_suite

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", default="vector_bench")
    p.add_argument("--n", type=int, default=3)
    args = p.parse_args(argv)
    env = vf.load_environment("vector-gym-verifiers", suite=args.suite)
    print(f"classic: {type(env).__name__} with {len(env.dataset)} rows; v1 taskset: "
          f"{taskset_class('vector-gym-verifiers').__name__}")
    suite = get_suite(args.suite)
    out = []
    for row in env.dataset.select(range(min(args.n, len(env.dataset)))):
        task = suite.get_task(row["info"]["task_id"])
        scores = []
        for text in (task.source_svg, task.target_svg):
            state = vf.State(prompt=row["prompt"], completion=[{"role": "assistant", "content": text}],
                             answer=row["answer"], info=row["info"], task=row["task"])
            asyncio.run(env.rubric.score_rollout(state))
            scores.append(state["reward"])
        out.append((task.task_id, scores[0], scores[1]))
        print(f"{task.task_id}: source {scores[0]:.3f}  target {scores[1]:.3f}")
    return out


if __name__ == "__main__":
    main()
