"""The ``vector-gym`` command (layer 7): argument handling only.

``vector-gym eval``
    Run policies on an environment's tasks (resumable JSON Lines runs) and print the
    table Full, Near, Repair, Progress, Clean, UCR, Valid and the 95% Wilson interval
    of Full (percentages, as in Vector-Bench Table 3). With no arguments it runs the
    four evaluator controls (Vector-Bench Table 2) on the bundled tasks.
    ``--action-format patch`` scores JSON edit scripts (default policy ``patch-oracle``) and
    ``--max-turns K`` plays multi-turn episodes (one row per episode); both are passed to the
    env constructor.
``vector-gym rescore PATH``
    Re-score stored outputs (JSON Lines, plain or gzip, or a directory of
    ``data/model-results/*.json``) without running any policy, and print the
    per-model leaderboard in the paper's order.
``vector-gym report RUN.jsonl [RUN2.jsonl ...] --out DIR``
    Write a static HTML report of runs (leaderboard, operation-family heat map, progress
    against UCR plot, one page per task with renders); ``eval --report DIR`` does the same
    after a run.
``vector-gym generate --n 1000 --seed 0 --out tasks/``
    Write RepairGen tasks in the Vector-Bench task layout (``tasks/data/tasks/sv_*.json``),
    loadable with ``load_vector_bench("tasks/")`` or ``eval --tasks tasks/``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vector_gym.rescore import load_outcomes, rescore_rows

__all__ = ["build_parser", "load_outcomes", "main", "rescore_rows"]

DEFAULT_RUNS_DIR = "runs"


def _slug(text: str) -> str:
    """File-name-safe form of a policy name (``hf:org/model`` -> ``hf-org-model``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "policy"


#: ``--ray [ADDRESS]`` of eval and rescore (vector_gym.integrations.ray; pip install "vector-gym[ray]").
_RAY_FLAG: tuple[tuple[str, ...], dict[str, Any]] = (
    ("--ray",),
    {"nargs": "?", "const": "auto", "metavar": "ADDRESS",
     "help": "run on a Ray cluster: ADDRESS is the head's HOST:PORT (default auto: the cluster "
     "started on this machine with ray start); same rows and tables as without it"},
)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``vector-gym``."""
    from vector_gym import __version__

    parser = argparse.ArgumentParser(
        prog="vector-gym",
        description="Instruction-based SVG editing environments: evaluate policies, re-score outputs.",
    )
    parser.add_argument("--version", action="version", version=f"vector-gym {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ev = sub.add_parser(
        "eval",
        help="run policies on an env's tasks and print the eval table",
        description="Run policies on an environment's tasks, append one JSON line per outcome "
        "(resumable), and print Full, Near, Repair, Progress, Clean, UCR, Valid (percent) and the "
        "95% Wilson interval of Full. Without --policy, runs the four evaluator controls "
        "(identity, oracle, protected-mutation, malformed-target).",
    )
    ev.add_argument(
        "--env", default="vector-bench", help="suite name, env alias or id (default: vector-bench)"
    )
    ev.add_argument(
        "--suite",
        metavar="NAME",
        help="suite name or alias (as --env), or 'all': every registered suite on its test split, "
        "one table per suite and one summary line each",
    )
    ev.add_argument(
        "--n",
        type=_positive_int,
        dest="n_tasks",
        metavar="N",
        help="generated suites (repairgen): number of held-out test tasks (default: 20); "
        "--seed is then the dataset seed",
    )
    ev.add_argument(
        "--policy",
        action="append",
        metavar="SPEC",
        help="policy spec (repeatable): identity, oracle, protected-mutation, malformed-target, patch-oracle (oracle for --action-format patch), scripted (SVGEditBench v1 baseline), KIND:ARG (hf:PATH, openai:MODEL, vllm:MODEL)",
    )
    ev.add_argument(
        "--out",
        metavar="FILE",
        help="JSON Lines output for every policy (default: one file per policy under --runs-dir)",
    )
    ev.add_argument(
        "--runs-dir", default=DEFAULT_RUNS_DIR, help="folder of default run files (default: runs)"
    )
    ev.add_argument(
        "--new-run",
        action="store_true",
        help="write to a new run file named after this run's fingerprint (FILE-<id>.jsonl) "
        "instead of resuming a file of another run",
    )
    ev.add_argument(
        "--force",
        action="store_true",
        help="resume a run file even though its rows were written with other settings "
        "(model, sampling, token budget, template, ...)",
    )
    ev.add_argument(
        "--tasks", metavar="PATH", help="task directory or JSON Lines (default: bundled tasks)"
    )
    ev.add_argument(
        "--parity", action="store_true", help="score in parity mode (reference defects reproduced)"
    )
    ev.add_argument(
        "--batch-size", type=int, default=8, help="observations per policy call (default: 8)"
    )
    ev.add_argument(
        "-n", "--samples", type=int, default=1, dest="n", help="samples per task (default: 1)"
    )
    ev.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    ev.add_argument(*_RAY_FLAG[0], **_RAY_FLAG[1])
    ev.add_argument(
        "--report", metavar="DIR", help="also write the HTML report of the runs into DIR"
    )
    ev.add_argument("--limit", type=int, metavar="N", help="only the first N tasks of the env")
    ev.add_argument(
        "--action-format",
        choices=("svg", "patch"),
        default="svg",
        help="answer format the env scores: a whole SVG, or a JSON edit script applied to the "
        "source (default: svg; with patch and no --policy, runs patch-oracle)",
    )
    ev.add_argument(
        "--max-turns",
        type=int,
        default=1,
        metavar="K",
        help="answers per episode: after one that is not a full pass the policy sees the current "
        "SVG and editor feedback and answers again, up to K (default: 1)",
    )
    ev.add_argument(
        "--observation",
        choices=("text", "image"),
        default="text",
        help="what the policy sees: the instruction and SVG text, or also the current document "
        "rendered on white as an image for vision-language policies (hf:PATH loads a "
        "vision-language model with its processor; openai:MODEL sends a PNG data URI; vllm:MODEL "
        "passes the image to the engine) (default: text)",
    )
    ev.add_argument(
        "--image-size",
        type=_image_size,
        metavar="H[xW]",
        help="with --observation image: rendered image size in pixels (default: 224x224)",
    )
    ev.add_argument(
        "--backend",
        choices=("skia", "resvg", "cairosvg"),
        help="renderer of the SVGEditBench raster metrics (default: skia; cairosvg = the papers')",
    )
    md = ev.add_argument_group("model policies (hf:PATH, openai:MODEL, vllm:MODEL)")
    md.add_argument(
        "--base-url",
        metavar="URL",
        help="openai:MODEL server root with /v1 (default: http://127.0.0.1:8000/v1)",
    )
    md.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="output token budget per completion (default: the protocol's, recorded in each row: "
        "Vector-Bench max(8192, len(source)/2 + 2048), SVGEditBench V2 8192)",
    )
    md.add_argument("--temperature", type=float, help="sampling temperature (default: the backend's)")
    md.add_argument(
        "--seed", type=int, help="base sampling seed; also the dataset seed of generated suites"
    )
    _add_engine_arguments(ev)

    rs = sub.add_parser(
        "rescore",
        help="re-score stored outputs and print the per-model leaderboard",
        description="Re-score stored outputs without running a policy. PATH is JSON Lines (plain or "
        "gzip) with task_id, model (or policy) and produced_svg or response, or a directory of "
        "data/model-results/*.json files (each a JSON list of such rows).",
    )
    rs.add_argument("path", metavar="PATH")
    rs.add_argument(
        "--suite",
        default=None,
        metavar="NAME",
        help="suite whose scorer and tasks re-score the outcomes (default: the suite of the env "
        "the rows name, else vector_bench)",
    )
    rs.add_argument(
        "--tasks", metavar="PATH", help="task directory or JSON Lines (default: bundled tasks)"
    )
    rs.add_argument("--out", metavar="FILE", help="also write one JSON line per re-scored outcome")
    rs.add_argument(
        "--parity", action="store_true", help="score in parity mode (reference defects reproduced)"
    )
    rs.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    rs.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    rs.add_argument(*_RAY_FLAG[0], **_RAY_FLAG[1])

    rp = sub.add_parser(
        "report",
        help="write a static HTML report of run files",
        description="Write a self-contained HTML report (one folder, no network) of run files "
        "written by eval: the eval table as a sortable leaderboard, repair progress by operation "
        "family, progress against UCR, and one page per task with the source, each run's output "
        "and the target rendered side by side.",
    )
    rp.add_argument("runs", nargs="+", metavar="RUN", help="run file (JSON Lines, plain or gzip)")
    rp.add_argument("--out", required=True, metavar="DIR", help="output folder")
    rp.add_argument(
        "--tasks", metavar="PATH", help="task directory or JSON Lines (default: the env's tasks)"
    )
    rp.add_argument(
        "--env", help="env alias or id whose loader reads --tasks (default: the runs' env)"
    )
    rp.add_argument("--title", default="vector_gym report", help="page title")

    gn = sub.add_parser(
        "generate",
        help="write RepairGen tasks in the Vector-Bench task layout",
        description="Generate seeded RepairGen repair tasks and write them as OUT/data/tasks/sv_*.json "
        "(one Vector-Bench task object per file; load them with --tasks OUT).",
    )
    gn.add_argument("--n", type=_positive_int, default=1000, help="number of tasks (default: 1000)")
    gn.add_argument("--seed", type=int, default=0, help="dataset seed (default: 0)")
    gn.add_argument("--start", type=int, default=0, help="first task index (default: 0)")
    gn.add_argument("--out", required=True, metavar="DIR", help="output folder")
    gn.add_argument("--split", default="train", choices=("train", "test", "all"), help="scene split")
    gn.add_argument("--min-repairs", type=int, default=1, help="fewest repairs per task (1-9)")
    gn.add_argument("--max-repairs", type=int, default=3, help="most repairs per task (1-9)")
    gn.add_argument("--magnitude", type=float, default=1.0, help="corruption size scale (0.5-2)")
    gn.add_argument(
        "--sources",
        action="append",
        metavar="NAME_OR_DIR",
        help="vector_bench, svgeditbench or a folder of SVGs (repeatable; default: both bundled sets)",
    )
    return parser


# ------------------------------------------------- eval: vLLM engine and client options
#: Named engine flags: argparse dest -> ``vllm.LLM`` keyword (all also via --engine-arg).
_ENGINE_FLAGS = (
    "max_model_len",
    "gpu_memory_utilization",
    "tensor_parallel_size",
    "max_num_batched_tokens",
    "dtype",
    "enforce_eager",
)
#: Client flags of openai:MODEL: argparse dest -> OpenAICompatiblePolicy keyword.
_CLIENT_FLAGS = {"native_n": "native_n", "concurrency": "max_concurrency", "timeout": "timeout_s"}


def _engine_arg(text: str) -> tuple[str, Any]:
    """argparse type of ``--engine-arg KEY=VALUE``: VALUE as JSON when it parses (numbers,
    true/false, null, objects), else as a string; dashes in KEY become underscores."""
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value


def _add_engine_arguments(ev: argparse.ArgumentParser) -> None:
    vl = ev.add_argument_group(
        "vLLM engine (vllm:MODEL) and server client (openai:MODEL)",
        "Engine sizing: max_model_len >= prompt + token budget (budgets are clamped to "
        "max_model_len - prompt tokens and the row records the budget used).",
    )
    vl.add_argument(
        "--engine-arg",
        action="append",
        type=_engine_arg,
        default=[],
        metavar="KEY=VALUE",
        help="vllm.LLM option (repeatable; VALUE parsed as JSON where it parses), e.g. "
        "--engine-arg enable_prefix_caching=true --engine-arg swap_space=4",
    )
    vl.add_argument(
        "--max-model-len",
        type=_positive_int,
        metavar="N",
        help="context window (openai:MODEL: the server's, where GET /v1/models does not say)",
    )
    vl.add_argument(
        "--gpu-memory-utilization", type=float, metavar="F", help="GPU memory fraction (0, 1]"
    )
    vl.add_argument(
        "--tensor-parallel-size", type=_positive_int, metavar="N", help="GPUs per model"
    )
    vl.add_argument(
        "--max-num-batched-tokens", type=_positive_int, metavar="N", help="tokens per engine step"
    )
    vl.add_argument("--dtype", help="weights and activations dtype (auto, bfloat16, float32 ...)")
    vl.add_argument(
        "--enforce-eager",
        action="store_const",
        const=True,
        help="no CUDA graphs or torch.compile (faster start-up, slower steps)",
    )
    vl.add_argument(
        "--native-n",
        action="store_const",
        const=True,
        help="openai:MODEL: one request with n choices per task (prompt sent once)",
    )
    vl.add_argument(
        "--concurrency", type=_positive_int, metavar="N", help="openai:MODEL: requests in flight"
    )
    vl.add_argument(
        "--timeout", type=float, metavar="S", help="openai:MODEL: seconds per request attempt"
    )


def _engine_options(args: argparse.Namespace, spec: str) -> dict[str, Any]:
    """The engine options (for ``vllm:``) or client options (for ``openai:``) of a spec."""
    kind = spec.partition(":")[0]
    if kind == "vllm":
        engine = dict(args.engine_arg)
        engine.update({k: getattr(args, k) for k in _ENGINE_FLAGS if getattr(args, k) is not None})
        return {"engine_args": engine} if engine else {}
    if kind == "openai":
        out = {v: getattr(args, k) for k, v in _CLIENT_FLAGS.items() if getattr(args, k) is not None}
        if args.max_model_len is not None:  # the server's context, when /v1/models omits it
            out["max_model_len"] = args.max_model_len
        return out
    return {}


def _check_engine_options(args: argparse.Namespace, specs: Sequence[str]) -> None:
    """Engine or client flags with no policy of their kind are an error, not ignored."""
    from vector_gym.errors import ConfigError

    kinds = {s.partition(":")[0] for s in specs}
    engine = [k for k in _ENGINE_FLAGS if getattr(args, k) is not None] + [
        k for k, _ in args.engine_arg
    ]
    if "openai" in kinds and "vllm" not in kinds:
        engine = [k for k in engine if k != "max_model_len"]  # also the server's context
    if engine and "vllm" not in kinds:
        raise ConfigError(f"engine options {engine} need a vllm:MODEL policy")
    client = [f"--{k.replace('_', '-')}" for k in _CLIENT_FLAGS if getattr(args, k) is not None]
    if client and "openai" not in kinds:
        raise ConfigError(f"{client} apply to openai:MODEL policies only")
    if args.timeout is not None and args.timeout <= 0:
        raise ConfigError(f"--timeout: expected seconds > 0, got {args.timeout}")


# --------------------------------------------------------------------------- eval
_MODEL_KINDS = ("hf", "openai", "vllm")


def _suite_options(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if args.parity:
        out["parity"] = True
    if getattr(args, "backend", None):
        out["backend"] = args.backend
    return out


def _suite_tasks(args: argparse.Namespace, suite: Any) -> list[Any]:
    """The tasks ``eval`` runs: ``--tasks``, or the suite's test split (RepairGen: ``--n``, ``--seed``)."""
    from vector_gym.errors import ConfigError

    if args.tasks:
        return suite.load_tasks(args.tasks)
    if getattr(suite, "generated", False):
        n = args.n_tasks
        if args.limit is not None and args.limit >= 1:  # generate no more tasks than --limit runs
            n = min(n if n is not None else getattr(suite, "n", args.limit), args.limit)
        return suite.tasks("test", n=n, seed=args.seed if args.seed is not None else 0)
    if args.n_tasks is not None:
        raise ConfigError(f"--n: suite {suite.name!r} has a fixed corpus; use --limit N")
    return suite.tasks()


def _make_env(args: argparse.Namespace, suite: Any, tasks: Sequence[Any]) -> Any:
    """The suite's env: its registered id (with ``make``'s kwargs) or ``make_env`` for a user suite."""
    import gymnasium

    import vector_gym  # noqa: F401  (registers the env ids)
    from vector_gym.envs import ENVS, make_env
    from vector_gym.errors import ConfigError

    variants: dict[str, Any] = {"action_format": args.action_format, "max_turns": args.max_turns}
    if _render_observation(args) is not None:
        variants["render_observation"] = _render_observation(args)
    entry = next((e for e in ENVS if e.suite == suite.name), None)
    if entry is None:
        return make_env(suite, tasks=tasks, **variants)
    kwargs: dict[str, Any] = {**_suite_options(args), **variants}
    if getattr(suite, "generated", False):
        kwargs.update(split="test", dataset_seed=args.seed if args.seed is not None else 0)
    elif args.tasks:
        kwargs["tasks"] = list(tasks)
    try:
        return gymnasium.make(entry.id, **kwargs)
    except TypeError as exc:  # e.g. --parity for an env whose scorer has no parity mode
        raise ConfigError(f"{entry.id} does not accept {sorted(kwargs)}: {exc}") from exc


def _alias(suite: Any) -> str:
    from vector_gym.envs import ENVS

    return next((e.alias for e in ENVS if e.suite == suite.name), suite.name)


def _default_out(
    args: argparse.Namespace,
    alias: str,
    tasks: Sequence[Any],
    policy_name: str,
    fingerprint: Mapping[str, Any] | None = None,
) -> Path:
    from vector_gym.tasks.task import corpus_hash

    backend = getattr(args, "backend", None)
    fmt = getattr(args, "action_format", "svg")
    turns = getattr(args, "max_turns", 1)
    tag = (
        alias
        + ("-parity" if args.parity else "")
        + (f"-{backend}" if backend else "")
        + (f"-{fmt}" if fmt != "svg" else "")
        + (f"-turns{turns}" if turns != 1 else "")
        + ("-image{}x{}".format(*image) if (image := _render_observation(args)) else "")
        + "-"
        + corpus_hash(tasks)[:8]
    )
    if fingerprint is not None:  # another model, budget, sampling, ... -> another file
        from vector_gym.runfile import fingerprint_id

        return Path(args.runs_dir) / tag / f"{_slug(policy_name)}-{fingerprint_id(fingerprint)[:8]}.jsonl"
    return Path(args.runs_dir) / tag / f"{_slug(policy_name)}.jsonl"


def _eval_suite(args: argparse.Namespace, suite: Any, many: bool) -> tuple[list[dict[str, Any]], list[Path], list[Any]]:
    """Run every policy on one suite; return its rows, run files and tasks."""
    from vector_gym.errors import ConfigError
    from vector_gym.policies import (
        CONTROL_POLICIES,
        check_action_format,
        check_observation,
        make_policy,
    )
    from vector_gym.rollout import rollout
    from vector_gym.runfile import new_run_path, run_fingerprint

    tasks = _suite_tasks(args, suite)
    if args.limit is not None:
        if args.limit < 1:
            raise ConfigError(f"--limit: expected N >= 1, got {args.limit}")
        tasks = tasks[: args.limit]
    options = {
        k: v
        for k, v in (
            ("base_url", args.base_url),
            ("max_tokens", args.max_tokens),
            ("temperature", args.temperature),
            ("seed", args.seed),
        )
        if v is not None
    }
    default_specs = ["patch-oracle"] if args.action_format == "patch" else list(CONTROL_POLICIES)
    env = _make_env(args, suite, tasks)
    rows: list[dict[str, Any]] = []
    run_files: list[Path] = []
    try:
        policies = []
        specs = args.policy or default_specs
        _check_engine_options(args, specs)
        for spec in specs:  # all built and checked before any task runs
            kind = spec.partition(":")[0]
            # model policies get the suite's prompt templates (policies never import suites)
            extra = (
                {**options, **_engine_options(args, spec), "templates": suite.template_table()}
                if kind in _MODEL_KINDS
                else {}
            )
            if args.ray:  # generation and scoring on a Ray cluster: same run file, rows, resume
                from vector_gym.integrations.ray import (
                    policy_name,
                    rollout_to_file,
                    run_fingerprint_for,
                )

                if args.action_format != "svg" or args.max_turns != 1:
                    raise ConfigError("--ray runs single-turn SVG answers; run --action-format "
                                      "patch or --max-turns K evals without --ray")
                if _render_observation(args) is not None:
                    raise ConfigError("--ray runs text observations; run --observation image "
                                      "evals without --ray")
                fp = run_fingerprint_for(suite, tasks, spec, env=env, policy_options=extra)
                out = _default_out(args, _alias(suite), tasks, policy_name(spec), fp)
                if args.out:
                    out = Path(args.out) if not many else Path(args.out).with_suffix(f".{suite.name}.jsonl")
                if args.new_run:
                    out = new_run_path(out, fp)
                run_files.append(out)
                rows.extend(rollout_to_file(env, suite, spec, out, tasks=tasks, n=args.n,
                                            address=args.ray, batch_size=args.batch_size,
                                            policy_options=extra, force=args.force))
                continue
            policy = make_policy(spec, tasks, **extra)
            check_action_format(policy, args.action_format)
            check_observation(policy, args.observation)
            policies.append((spec, policy))
        for spec, policy in policies:
            fp = run_fingerprint(env, policy, spec=spec)  # parity, backend: the suite's options
            out = _default_out(args, _alias(suite), tasks, policy.name, fp)
            if args.out:
                out = Path(args.out) if not many else Path(args.out).with_suffix(f".{suite.name}.jsonl")
            if args.new_run:
                out = new_run_path(out, fp)
            if out not in run_files:
                run_files.append(out)
            rows.extend(
                rollout(
                    env,
                    policy,
                    out,
                    batch_size=args.batch_size,
                    n=args.n,
                    task_ids=[t.task_id for t in tasks],
                    progress=not args.no_progress,
                    fingerprint=fp,
                    force=args.force,
                )
            )
            if not args.json:
                print(f"{policy.name}: {out}", file=sys.stderr)
    finally:
        env.close()
    return rows, run_files, tasks


def _summary_line(suite: Any, rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per policy: suite, policy, rows and the mean of the suite's scalar reward."""
    from vector_gym.summary import latest_rows

    by: dict[str, list[float]] = {}
    for r in latest_rows(rows):
        by.setdefault(str(r.get("policy")), []).append(suite.reward(r.get("report") or {}))
    return [f"{suite.name}: {p} n={len(v)} mean reward {sum(v) / len(v):.4f}" for p, v in by.items()]


def _cmd_eval(args: argparse.Namespace) -> int:
    from vector_gym.suites import get_suite, list_suites

    name = args.suite or args.env
    opts = _suite_options(args)
    suites = [s.configure(**opts) if opts else s for s in list_suites()] if name == "all" else [get_suite(name, **opts)]
    results = [(s, *_eval_suite(args, s, len(suites) > 1)) for s in suites]
    payload: dict[str, Any] = {}
    for suite, rows, _, tasks in results:
        if args.json:
            payload[suite.name] = suite.summarize(rows, tasks=tasks)
            continue
        if len(suites) > 1:
            print(f"== {suite.name} ({suite.description or suite.env_id}) ==")
        print(suite.format_summary(rows, tasks=tasks))
    if args.json:
        print(json.dumps(payload if len(suites) > 1 else payload[suites[0].name], indent=2))
    elif len(suites) > 1:
        for suite, rows, _, _ in results:
            print("\n".join(_summary_line(suite, rows)))
    if args.report:
        from vector_gym.report.build import build_report

        run_files = [f for _, _, files, _ in results for f in files]
        all_tasks = [t for _, _, _, tasks in results for t in tasks]
        result = build_report(run_files, args.report, tasks=all_tasks)
        print(f"report: {result.index}", file=sys.stderr)
    return 0


# ------------------------------------------------------------------------ rescore
def _suite_of_rows(rows: Sequence[dict[str, Any]]) -> str:
    """The suite of the one env the rows name (our run files' ``env``), else ``vector_bench``."""
    from vector_gym.errors import ConfigError
    from vector_gym.suites import resolve_suite_name

    envs = {r.get("env") for r in rows if isinstance(r.get("env"), str)}
    if len(envs) == 1:
        try:
            return resolve_suite_name(envs.pop())
        except ConfigError:
            pass
    return "vector_bench"


def _cmd_rescore(args: argparse.Namespace) -> int:
    from vector_gym.suites import get_suite
    from vector_gym.summary import format_table, summarize

    rows = load_outcomes(args.path)
    suite = get_suite(args.suite or _suite_of_rows(rows))
    tasks = suite.load_tasks(args.tasks) if args.tasks else suite.tasks()
    if getattr(suite, "generated", False):  # generated ids are regenerated by the suite
        known = {t.task_id for t in tasks}
        ids = dict.fromkeys(str(r.get("task_id")) for r in rows if str(r.get("task_id")) not in known)
        tasks = [*tasks, *(suite.get_task(i) for i in ids)]
    if args.ray:  # the same rows and table, scored over a Ray cluster
        from vector_gym.integrations.ray import rescore_outcomes

        scored = rescore_outcomes(rows, tasks, parity=args.parity, suite=suite, address=args.ray)
    else:
        scored = rescore_rows(rows, tasks, parity=args.parity, progress=not args.no_progress, suite=suite)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            for r in scored:
                fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
    if suite.summary != "spec":
        table = suite.summarize(scored, by="model", tasks=tasks)
        print(json.dumps(table, indent=2) if args.json else suite.format_summary(scored, by="model", tasks=tasks))
        return 0
    summaries = summarize(scored, by="model", order="leaderboard")
    if args.json:
        payload = []
        for s in summaries:
            d = s.to_dict("model")
            payload.append({"policy": s.label, "name": s.name, **d})
        print(json.dumps(payload, indent=2))
    else:
        print(format_table(summaries, label_header="Model"))
    return 0


def _image_size(text: str) -> tuple[int, int]:
    """argparse type of ``--image-size``: ``H`` (square) or ``HxW``, sides in 1..4096."""
    parts = text.lower().split("x")
    try:
        sides = tuple(int(p) for p in parts)
    except ValueError:
        sides = ()
    if len(sides) == 1:
        sides = sides * 2
    if len(sides) != 2 or not all(1 <= v <= 4096 for v in sides):
        raise argparse.ArgumentTypeError(f"expected H or HxW with sides in 1..4096, got {text!r}")
    return sides  # type: ignore[return-value]


def _render_observation(args: argparse.Namespace) -> tuple[int, int] | None:
    """The ``render_observation`` size of ``--observation image`` (None: text observations)."""
    from vector_gym.errors import ConfigError

    size = getattr(args, "image_size", None)
    if getattr(args, "observation", "text") != "image":
        if size is not None:
            raise ConfigError("--image-size needs --observation image")
        return None
    return size or (224, 224)


def _positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (``--n 0`` or ``-1`` is an error, not an empty run)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


# ----------------------------------------------------------------------- generate
def _cmd_generate(args: argparse.Namespace) -> int:
    from vector_gym.tasks.repairgen import (
        RepairGenConfig,
        RepairGenerator,
        write_vector_bench_layout,
    )

    kw: dict[str, Any] = {
        "split": args.split,
        "min_repairs": args.min_repairs,
        "max_repairs": args.max_repairs,
        "magnitude": args.magnitude,
    }
    if args.sources:
        kw["sources"] = tuple(args.sources)
    gen = RepairGenerator(RepairGenConfig(**kw), seed=args.seed)
    files = write_vector_bench_layout(gen.tasks(args.n, start=args.start), args.out)
    print(f"generate: wrote {len(files)} tasks to {Path(args.out) / 'data' / 'tasks'}")
    return 0


# ------------------------------------------------------------------------- report
def _cmd_report(args: argparse.Namespace) -> int:
    from vector_gym.report.build import build_report
    from vector_gym.report.runs import load_env_tasks, load_runs

    runs = load_runs(args.runs)
    tasks = None
    if args.tasks:
        env = args.env or next((e for r in runs for e in r.env_ids()), "vector-bench")
        tasks = load_env_tasks(env, args.tasks)
    result = build_report(runs, args.out, tasks=tasks, title=args.title)
    print(f"report: {result.index} ({len(result.task_pages)} task pages, {len(runs)} runs)")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``vector-gym``; return the exit status (0 ok, 1 error, 2 usage)."""
    from vector_gym.errors import VectorGymError
    from vector_gym.runfile import RunInterrupted

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "eval":
            rc = _cmd_eval(args)
        elif args.command == "report":
            rc = _cmd_report(args)
        elif args.command == "generate":
            rc = _cmd_generate(args)
        else:
            rc = _cmd_rescore(args)
        sys.stdout.flush()  # a closed pipe surfaces here, not in the interpreter's final flush
        return rc
    except RunInterrupted as exc:  # one line, no traceback; the saved rows resume
        print(f"vector-gym {args.command}: {exc}", file=sys.stderr)
        return 130 if exc.cause == "interrupt" else 1
    except KeyboardInterrupt:
        print(f"vector-gym {args.command}: interrupted, re-run to resume", file=sys.stderr)
        return 130
    except (VectorGymError, FileNotFoundError) as exc:
        print(f"vector-gym {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # stdout closed early (``vector-gym rescore ... | head``): no traceback; point stdout at
        # devnull so the interpreter's final flush does not raise again (Python docs, signal).
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 1
    except OSError as exc:  # a full disk, a permission error outside a run: one line
        print(f"vector-gym {args.command}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
