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

__all__ = ["build_parser", "check_outcomes", "load_outcomes", "main", "rescore_rows", "rescored_row"]

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
    ev.add_argument("--env", default="vector-bench", help="env alias or id (default: vector-bench)")
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
    md.add_argument("--seed", type=int, help="base sampling seed")

    rs = sub.add_parser(
        "rescore",
        help="re-score stored outputs and print the per-model leaderboard",
        description="Re-score stored outputs without running a policy. PATH is JSON Lines (plain or "
        "gzip) with task_id, model (or policy) and produced_svg or response, or a directory of "
        "data/model-results/*.json files (each a JSON list of such rows).",
    )
    rs.add_argument("path", metavar="PATH")
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


# --------------------------------------------------------------------------- eval
def _make_env(args: argparse.Namespace) -> tuple[Any, str]:
    import gymnasium

    import vector_gym  # noqa: F401  (registers the env ids)
    from vector_gym.envs import ENVS, env_id_for

    env_id = env_id_for(args.env)
    alias = next(e.alias for e in ENVS if e.id == env_id)
    kwargs: dict[str, Any] = {}
    if args.tasks:
        env_cls = gymnasium.spec(env_id).entry_point
        if isinstance(env_cls, str):
            import importlib

            module, _, attr = env_cls.partition(":")
            env_cls = getattr(importlib.import_module(module), attr)
        kwargs["tasks"] = env_cls.load_tasks(args.tasks)
    if args.parity:
        kwargs["parity"] = True
    if getattr(args, "backend", None):
        kwargs["backend"] = args.backend
    if getattr(args, "action_format", "svg") != "svg":
        kwargs["action_format"] = args.action_format
    if getattr(args, "max_turns", 1) != 1:
        kwargs["max_turns"] = args.max_turns
    try:
        return gymnasium.make(env_id, **kwargs), alias
    except TypeError as exc:  # e.g. --parity for an env whose scorer has no parity mode
        from vector_gym.errors import ConfigError

        raise ConfigError(f"{env_id} does not accept {sorted(kwargs)}: {exc}") from exc


def _default_out(
    args: argparse.Namespace, alias: str, tasks: Sequence[Any], policy_name: str
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
        + "-"
        + corpus_hash(tasks)[:8]
    )
    return Path(args.runs_dir) / tag / f"{_slug(policy_name)}.jsonl"


def _cmd_eval(args: argparse.Namespace) -> int:
    from vector_gym.policies import CONTROL_POLICIES, make_policy
    from vector_gym.rollout import rollout
    from vector_gym.summary import format_table, summarize

    env, alias = _make_env(args)
    run_files: list[Path] = []
    try:
        tasks = env.unwrapped.tasks
        task_ids = None
        if args.limit is not None:
            if args.limit < 1:
                from vector_gym.errors import ConfigError

                raise ConfigError(f"--limit: expected N >= 1, got {args.limit}")
            task_ids = [t.task_id for t in tasks[: args.limit]]
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
        specs = args.policy or default_specs
        rows: list[dict[str, Any]] = []
        for spec in specs:
            is_control = spec.partition(":")[0] in (*CONTROL_POLICIES, "patch-oracle")
            if args.ray:  # generation and scoring on a Ray cluster, same run file and rows
                from vector_gym.integrations.ray import policy_name, rollout_to_file

                out = Path(args.out) if args.out else _default_out(args, alias, tasks, policy_name(spec))
                run_files.append(out)
                rows.extend(rollout_to_file(
                    env, spec, out, n=args.n, task_ids=task_ids, address=args.ray,
                    batch_size=args.batch_size, policy_options={} if is_control else options,
                ))
                continue
            policy = make_policy(spec, tasks, **({} if is_control else options))
            out = Path(args.out) if args.out else _default_out(args, alias, tasks, policy.name)
            if out not in run_files:
                run_files.append(out)
            rows.extend(
                rollout(
                    env,
                    policy,
                    out,
                    batch_size=args.batch_size,
                    n=args.n,
                    task_ids=task_ids,
                    progress=not args.no_progress,
                )
            )
            if not args.json:
                print(f"{policy.name}: {out}", file=sys.stderr)
    finally:
        env.close()
    from vector_gym.suites import get_suite

    suite = get_suite(alias)
    if args.json:
        print(json.dumps(suite.summarize(rows, tasks=tasks), indent=2))
    else:
        print(suite.format_summary(rows, tasks=tasks))
    if args.report:
        from vector_gym.report.build import build_report

        result = build_report(run_files, args.report, tasks=tasks)
        print(f"report: {result.index}", file=sys.stderr)
    return 0


# ------------------------------------------------------------------------ rescore
def load_outcomes(path: str | Path) -> list[dict[str, Any]]:
    """Read stored outcomes: JSON Lines (plain or gzip) or a ``data/model-results`` directory.

    Parameters
    ----------
    path : path
        A JSON Lines file, or a directory: the public repository root (files under
        ``data/model-results/``) or the folder of ``*.json`` files itself (each a JSON
        list of outcome objects, read in sorted file order).

    Returns
    -------
    list of dict
        In file order; of rollout rows sharing a key ``(env, task_id, policy,
        sample_index)`` (a failed completion and its retry) only the newest is kept
        (:func:`vector_gym.summary.latest_rows`).

    Raises
    ------
    CorpusError
        A file is not valid JSON or not a list of objects; no ``*.json`` in the directory.
    FileNotFoundError
        ``path`` does not exist.
    """
    from vector_gym.errors import CorpusError
    from vector_gym.tasks.vector_bench import read_jsonl

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such outcome file or directory: {p}")
    if p.is_file():
        rows = read_jsonl(p)
    else:
        folder = p / "data" / "model-results" if (p / "data" / "model-results").is_dir() else p
        files = sorted(folder.glob("*.json"))
        if not files:
            raise CorpusError(f"{folder}: no *.json outcome files found")
        rows = []
        for f in files:
            try:
                data = json.loads(f.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise CorpusError(f"{f}: not valid JSON ({exc})") from exc
            if not isinstance(data, list):
                raise CorpusError(
                    f"{f}: expected a JSON list of outcomes, got {type(data).__name__}"
                )
            rows.extend(data)
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise CorpusError(f"{p}: outcome {i} is not a JSON object")
    from vector_gym.summary import latest_rows

    return [dict(r) for r in latest_rows(rows)]


def rescore_rows(
    rows: Sequence[Mapping[str, Any]],
    tasks: Sequence[Any],
    parity: bool = False,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Re-score stored outcomes with the specification reward.

    Each row needs ``task_id``, ``model`` (or ``policy``), and ``produced_svg`` (the
    extracted SVG, scored as is; null = provider error, spec-reward.md section 12) or
    ``response`` (raw text, extracted first).

    Returns
    -------
    list of dict
        One per row: ``task_id``, ``model``, ``name`` (when the row has one),
        ``finish_reason`` and ``error`` (when the row has them: the ``Err.`` and
        ``Trunc.`` columns) and every field of the report's ``to_dict()``.

    Raises
    ------
    CorpusError
        A row lacks ``task_id``, a model label, or both output fields.
    UnknownTaskError
        Rows name tasks that are not loaded (message lists them; use ``--tasks``).
    """
    from vector_gym.rewards.spec import get_scorer

    by_id = {t.task_id: t for t in tasks}
    check_outcomes(rows, tasks)
    it: Any = rows
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(rows, desc="rescore", unit="row", leave=False)
    out = []
    for r in it:
        scorer = get_scorer(by_id[r["task_id"]], parity=parity)
        if "produced_svg" in r:
            report = scorer.score(r["produced_svg"])
        else:
            report = scorer.score_response(r["response"])
        out.append(rescored_row(r, report.to_dict()))
    return out


def check_outcomes(rows: Sequence[Mapping[str, Any]], tasks: Sequence[Any]) -> None:
    """Check that stored outcomes name loaded tasks and have a model label and an output field.

    Raises
    ------
    UnknownTaskError
        Rows name tasks that are not loaded (message lists them; use ``--tasks``).
    CorpusError
        A row lacks ``model`` (or ``policy``), or both ``produced_svg`` and ``response``.
    """
    from vector_gym.errors import CorpusError, UnknownTaskError

    missing = sorted({str(r.get("task_id")) for r in rows} - {t.task_id for t in tasks})
    if missing:
        raise UnknownTaskError(
            f"outcomes name {len(missing)} task(s) not in the loaded tasks: {', '.join(missing[:10])}"
            f"{' ...' if len(missing) > 10 else ''}; pass --tasks with the matching task files"
        )
    for i, r in enumerate(rows):
        if r.get("model", r.get("policy")) is None:
            raise CorpusError(
                f"outcome {i} (task {r.get('task_id')}): expected a 'model' or 'policy' field"
            )
        if "produced_svg" not in r and "response" not in r:
            raise CorpusError(
                f"outcome {i} (task {r.get('task_id')}): expected 'produced_svg' or 'response'"
            )


def rescored_row(r: Mapping[str, Any], report: Mapping[str, Any]) -> dict[str, Any]:
    """The ``rescore`` row of stored outcome ``r`` and its new report (``to_dict()``)."""
    row: dict[str, Any] = {"task_id": r["task_id"], "model": str(r.get("model", r.get("policy")))}
    if r.get("name"):
        row["name"] = str(r["name"])
    if "finish_reason" in r:  # keeps the Trunc. column (share cut at the token budget)
        row["finish_reason"] = r["finish_reason"]
    if r.get("error"):  # a provider error of the stored run: the Err. column
        row["error"] = r["error"]
    row.update(report)
    return row


def _cmd_rescore(args: argparse.Namespace) -> int:
    from vector_gym.summary import format_table, summarize
    from vector_gym.tasks.vector_bench import load_vector_bench

    rows = load_outcomes(args.path)
    tasks = load_vector_bench(args.tasks)
    if args.ray:  # the same rows and table, scored over a Ray cluster
        from vector_gym.integrations.ray import rescore_outcomes

        scored = rescore_outcomes(rows, tasks, parity=args.parity, address=args.ray)
    else:
        scored = rescore_rows(rows, tasks, parity=args.parity, progress=not args.no_progress)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            for r in scored:
                fh.write(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n")
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
