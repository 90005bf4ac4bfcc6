"""Train a chat model with GRPO (TRL) on Vector-Bench, rewarded by the specification reward.

Command line (CPU works for a smoke run; use a GPU for real training)::

    pip install "vector-gym[trl]"
    python examples/train_grpo.py --model Qwen/Qwen3-0.6B --output-dir runs/grpo \\
        --max-steps 200 --num-generations 8 --max-completion-length 4096

    # generation with vLLM colocated on the training GPU (CUDA; see pyproject's [vllm] extra):
    pip install "vector-gym[trl,vllm]"
    python examples/train_grpo.py --model Qwen/Qwen3-0.6B --use-vllm ...

    # smoke run with a local model directory, 2 steps on CPU:
    python examples/train_grpo.py --model path/to/model --max-steps 2 --num-generations 2 \\
        --batch-size 2 --max-completion-length 16 --cpu

Two reward functions are mixed through ``GRPOConfig.reward_weights``: the binary
specification reward (``spec_reward``, weight 1) and dense repair progress
(``repair_progress``, weight ``--progress-weight``). Both score through
``vector_gym.rewards.spec.score_many`` (``--processes`` worker processes) and log the
gate pass rates (``spec_reward/validity_pass_rate`` ...) next to TRL's metrics. The
prompts follow the Vector-Bench protocol (``vector_gym.suites.templates.VECTOR_BENCH``).
"""

from __future__ import annotations

import argparse

from vector_gym.integrations.trl import build_dataset, repair_progress_reward_func, spec_reward_func
from vector_gym.tasks.vector_bench import load_vector_bench


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--model",
        required=True,
        help="hub id or local directory of a causal LM with a chat template",
    )
    p.add_argument("--output-dir", default="runs/grpo")
    p.add_argument(
        "--tasks", help="Vector-Bench tasks (directory or JSON Lines); default: the bundled 20"
    )
    p.add_argument("--limit", type=int, help="train on the first N tasks only")
    p.add_argument("--max-steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=8, help="completions per device per step")
    p.add_argument("--num-generations", type=int, default=8, help="GRPO group size")
    p.add_argument("--max-completion-length", type=int, default=4096)
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument(
        "--progress-weight",
        type=float,
        default=0.5,
        help="weight of the dense repair-progress reward",
    )
    p.add_argument(
        "--processes", type=int, default=None, help="scoring worker processes (default: in process)"
    )
    p.add_argument(
        "--parity", action="store_true", help="score in parity mode (reference defects reproduced)"
    )
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (colocate mode)")
    p.add_argument("--cpu", action="store_true", help="force CPU (no bf16)")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    from trl import GRPOConfig, GRPOTrainer

    args = parse_args(argv)
    tasks = load_vector_bench(args.tasks)
    if args.limit:
        tasks = tasks[: args.limit]
    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate,
        temperature=args.temperature,
        reward_weights=[1.0, args.progress_weight],
        logging_steps=1,
        save_strategy="steps",
        save_steps=max(1, args.max_steps // 4),
        report_to=[],
        seed=args.seed,
        use_cpu=args.cpu,
        bf16=not args.cpu,
        use_vllm=args.use_vllm,
        vllm_mode="colocate",
    )
    trainer = GRPOTrainer(
        model=args.model,
        reward_funcs=[
            spec_reward_func(tasks, parity=args.parity, processes=args.processes),
            repair_progress_reward_func(tasks, parity=args.parity, processes=args.processes),
        ],
        args=config,
        train_dataset=build_dataset(tasks),
    )
    trainer.train()
    trainer.save_model(args.output_dir)


if __name__ == "__main__":
    main()
