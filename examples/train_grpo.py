"""Train a chat model with GRPO (TRL) on any suite, rewarded by the suite's scalar reward.

Command lines (CPU works for a smoke run; use a GPU for real training)::

    pip install "vector-gym[trl]"
    # RepairGen: a stream of generated tasks (no generate step), curriculum from the rewards,
    # held-out evaluation (Full, Progress, Valid, UCR) every 50 steps:
    python examples/train_grpo.py --suite repairgen --model Qwen/Qwen3-0.6B --output-dir runs/grpo \\
        --max-steps 500 --num-generations 8 --eval-every 50

    # GPU: vLLM colocated on the training GPU, LoRA, lengths from the suite's token budget
    pip install "vector-gym[trl,vllm]" peft
    python examples/train_grpo.py --suite repairgen --model Qwen/Qwen3-0.6B --use-vllm --lora-r 16

    # smoke run with a local model directory, 2 steps on CPU:
    python examples/train_grpo.py --suite repairgen --model path/to/model --max-steps 2 \\
        --num-generations 2 --batch-size 2 --max-completion-length 16 --eval-every 2 --eval-tasks 2 --cpu

The reward functions are ``vector_gym.integrations.trl.reward_funcs(suite)`` with their
weights (spec suites: ``spec_reward`` 1 + ``repair_progress`` 0.2 = ``suite.reward``; raster
suites: ``raster_reward``). ``--max-completion-length`` defaults to the suite's token budget of
the training tasks (a shorter limit cuts answers, which then score 0: a warning says so).
``--dry-run`` builds the dataset, reward functions and config, prints them, and stops.
"""

from __future__ import annotations

import argparse
import json

from vector_gym.integrations.trl import (
    CurriculumReward,
    HeldOutEvaluation,
    build_dataset,
    check_completion_length,
    reward_funcs,
    reward_weights,
    task_stream,
    tool_environment,
)
from vector_gym.suites import get_suite


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="hub id or local directory of a causal LM with a chat template")
    p.add_argument("--suite", default="vector_bench", help="suite name (vector_bench, repairgen, svgeditbench_v2 ...)")
    p.add_argument("--output-dir", default="runs/grpo")
    p.add_argument("--tasks", help="corpus suites: tasks file or directory (default: the bundled corpus)")
    p.add_argument("--limit", type=int, help="corpus suites: train on the first N tasks only")
    p.add_argument("--action-format", choices=("svg", "patch"), default="svg")
    p.add_argument("--max-steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=8, help="completions per device per step")
    p.add_argument("--num-generations", type=int, default=8, help="GRPO group size")
    p.add_argument("--max-completion-length", type=int, default=None,
                   help="tokens per completion (default: the suite's token budget)")
    p.add_argument("--learning-rate", type=float, default=1e-6)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--progress-weight", type=float, default=None,
                   help="spec suites: weight of repair progress in suite.reward (default 0.2)")
    p.add_argument("--processes", type=int, default=None, help="scoring worker processes (default: in process)")
    p.add_argument("--parity", action="store_true", help="spec suites: parity mode (reference defects)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-curriculum", action="store_true", help="RepairGen: fixed difficulty")
    p.add_argument("--curriculum-window", type=int, default=64, help="RepairGen: completions per curriculum decision")
    p.add_argument("--eval-every", type=int, default=50, help="held-out evaluation every K steps (0: never)")
    p.add_argument("--eval-tasks", type=int, default=20, help="held-out tasks (test split)")
    p.add_argument("--eval-max-tokens", type=int, default=None, help="held-out answer budget (default: the suite's)")
    p.add_argument("--tool-env", type=int, default=0, metavar="MAX_TURNS",
                   help="answer through a tool (submit_svg / apply_patch) with editor feedback, up to "
                        "MAX_TURNS answers per episode (TRL environment_factory; 0: plain completions)")
    p.add_argument("--lora-r", type=int, default=0, help="LoRA rank (0: full fine-tuning; needs peft)")
    p.add_argument("--use-vllm", action="store_true", help="generate with vLLM (colocate mode)")
    p.add_argument("--cpu", action="store_true", help="force CPU (no bf16)")
    p.add_argument("--dry-run", action="store_true", help="build everything, print the plan, do not train")
    return p.parse_args(argv)


def _suite(args: argparse.Namespace):
    options = {}
    if args.progress_weight is not None:
        options["progress_weight"] = args.progress_weight
    if args.parity:
        options["parity"] = True
    if args.processes is not None:
        options["processes"] = args.processes
    return get_suite(args.suite, **options)


def main(argv: list[str] | None = None):
    """Train (or, with ``--dry-run``, print the plan); returns the trainer (None for a dry run)."""
    args = parse_args(argv)
    suite = _suite(args)
    funcs = reward_funcs(suite, action_format=args.action_format)
    generated = callable(getattr(suite, "generate", None))
    curriculum = None
    if generated:
        if not args.no_curriculum:
            from vector_gym.tasks.repairgen import RepairGenCurriculum

            curriculum = RepairGenCurriculum(base=suite.config, window=args.curriculum_window)
            funcs.append(CurriculumReward(suite, curriculum, action_format=args.action_format))
        train_dataset = task_stream(suite, split="train", seed=args.seed, curriculum=curriculum,
                                    action_format=args.action_format, multi_turn=args.tool_env > 0)
        sample = suite.tasks("train", n=32, seed=args.seed)
    else:
        tasks = suite.load_tasks(args.tasks) if args.tasks else suite.tasks()
        if args.limit:
            tasks = tasks[: args.limit]
        train_dataset = build_dataset(suite, tasks=tasks, action_format=args.action_format,
                                      multi_turn=args.tool_env > 0)
        sample = tasks
    env_factory = None
    if args.tool_env:
        # the environment owns the reward (get_reward = suite.reward of the last answer, weight 1)
        env_factory = tool_environment(suite, action_format=args.action_format, max_turns=args.tool_env)
        funcs = [f for f in funcs if isinstance(f, CurriculumReward)]
    budget = max(suite.token_budget(suite.observation(t)) for t in sample)
    max_len = args.max_completion_length or budget
    plan = {"suite": suite.name, "reward_funcs": [f.__name__ for f in funcs] + (
                [env_factory.__name__ + ".get_reward"] if env_factory else []), "reward_weights": reward_weights(funcs),
            "max_completion_length": max_len, "token_budget": budget, "stream": generated,
            "curriculum": curriculum is not None, "eval_every": args.eval_every}
    print(json.dumps(plan))
    if args.action_format == "svg":
        check_completion_length(suite, max_len, sample)
    if args.dry_run:
        return None

    from trl import GRPOConfig, GRPOTrainer

    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        num_generations=args.num_generations,
        max_completion_length=max_len,
        learning_rate=args.learning_rate,
        temperature=args.temperature,
        reward_weights=reward_weights(funcs) or None,
        logging_steps=1,
        save_strategy="steps",
        save_steps=max(1, args.max_steps // 4),
        report_to=[],
        seed=args.seed,
        use_cpu=args.cpu,
        bf16=not args.cpu,
        use_vllm=args.use_vllm,
        vllm_mode="colocate",
        shuffle_dataset=not generated,  # a shuffle buffer would generate ahead of the curriculum
        dataloader_num_workers=0,
    )
    peft_config = None
    if args.lora_r:
        from peft import LoraConfig

        peft_config = LoraConfig(r=args.lora_r, lora_alpha=2 * args.lora_r, target_modules="all-linear",
                                 task_type="CAUSAL_LM")
    trainer = GRPOTrainer(model=args.model, reward_funcs=funcs or None, args=config, train_dataset=train_dataset,
                          peft_config=peft_config, environment_factory=env_factory)
    if args.eval_every:
        HeldOutEvaluation(suite, every=args.eval_every, n=args.eval_tasks,
                          max_new_tokens=args.eval_max_tokens).attach(trainer)
    trainer.train()
    trainer.save_model(args.output_dir)
    return trainer


if __name__ == "__main__":
    main()
