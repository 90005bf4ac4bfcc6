"""A full Vector-Bench rollout with vLLM's offline engine on a GPU machine.

Command line::

    pip install "vector-gym[vllm]"          # CUDA machine; see pyproject's [vllm] extra
    python examples/vllm_rollout.py --model Qwen/Qwen3-8B --out runs/vllm-qwen3-8b.jsonl \\
        --tensor-parallel-size 1 -n 1

All tasks go to vLLM in one ``LLM.chat`` call (``--batch-size`` observations per call,
default the whole corpus), with the Vector-Bench chat template, one seeded
``SamplingParams`` per task and ``max_tokens`` always set (vLLM's default is 16): without
``--max-tokens`` each task gets the Vector-Bench runner's input-adaptive budget,
``max(8192, len(source)/2 + 2048)``, recorded in every row. The
rollout file is resumable; the eval table (with the Trunc. column: the share of
completions cut at ``--max-tokens``) and the throughput are printed at the end:
generated tokens per second of generation time and rollout rows per second overall.
"""

from __future__ import annotations

import argparse
import time

import gymnasium

import vector_gym  # noqa: F401  (registers vector_gym/VectorBench-v0)
from vector_gym.policies.vllm_policy import VLLMPolicy
from vector_gym.rollout import rollout
from vector_gym.summary import format_table, summarize


class _Timed:
    """Wraps a policy and adds up the wall time of its ``generate`` calls."""

    def __init__(self, policy):
        self.policy = policy
        self.name = policy.name
        self.seconds = 0.0

    def generate(self, observations, n=1):
        t0 = time.perf_counter()
        try:
            return self.policy.generate(observations, n)
        finally:
            self.seconds += time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--out", default="runs/vllm.jsonl")
    p.add_argument(
        "--max-tokens", type=int, default=None, help="fixed budget (default: input-adaptive)"
    )
    p.add_argument(
        "--temperature", type=float, default=None, help="default: the model's generation config"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-n", type=int, default=1, help="samples per task")
    p.add_argument(
        "--batch-size", type=int, default=0, help="observations per LLM.chat call (0: all)"
    )
    p.add_argument("--tensor-parallel-size", type=int, default=1)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    p.add_argument("--max-model-len", type=int, default=None)
    args = p.parse_args(argv)

    engine = {
        "tensor_parallel_size": args.tensor_parallel_size,
        "gpu_memory_utilization": args.gpu_memory_utilization,
    }
    if args.max_model_len:
        engine["max_model_len"] = args.max_model_len
    t0 = time.perf_counter()
    policy = _Timed(
        VLLMPolicy(
            args.model,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            seed=args.seed,
            **engine,
        )
    )
    load_s = time.perf_counter() - t0
    env = gymnasium.make("vector_gym/VectorBench-v0")
    tasks = env.unwrapped.tasks
    t0 = time.perf_counter()
    rows = rollout(env, policy, args.out, batch_size=args.batch_size or len(tasks), n=args.n)
    total_s = time.perf_counter() - t0
    env.close()

    print(format_table(summarize(rows, by="policy")))
    tokens = sum(r["completion_tokens"] or 0 for r in rows)
    if policy.seconds > 0:
        print(
            f"engine load {load_s:.1f}s; generation {policy.seconds:.1f}s, {tokens} completion tokens, "
            f"{tokens / policy.seconds:.0f} tokens/s; {len(rows)} rows in {total_s:.1f}s "
            f"({len(rows) / total_s:.2f} rows/s incl. scoring)"
        )
    else:
        print(f"all {len(rows)} rows were already in {args.out} (resumed; nothing generated)")


if __name__ == "__main__":
    main()
