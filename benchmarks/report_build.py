"""Benchmark: build the HTML report of a 40-task x 34-run set.

The set comes from the 680 published Vector-Bench outcomes bundled for tests
(``tests/data/outcomes_sv001_020.jsonl.gz``: 20 tasks x 34 model endpoints, one response each).
Tasks sv_021-sv_040 are not redistributable, so the 20 bundled tasks are used twice: the second
copy of each task gets the id ``<id>-b`` and an XML comment inside the root of its source,
target and every output, so every document of the copy is a distinct text (rendered, not served from the
first copy). That gives 40 tasks x 34 runs = 1,360 outcomes.

Each published row becomes a rollout-style row (``response`` = the published SVG, ``report`` =
the published verdicts and per-check numbers). With ``--rescore`` (default when the scorer is
importable) the 680 published SVGs are re-scored first with ``vector_gym.rewards.spec.score_many``,
which also yields the changed protected elements that the task pages box; scoring time is not
part of the build time.

Usage::

    .venv/bin/python benchmarks/report_build.py [--out DIR] [--no-rescore] [--repeat 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz"
ENV_ID = "vector_gym/VectorBench-v0"
COPY_MARK = "<!-- vector_gym benchmark copy -->"


def mark(svg: str | None) -> str | None:
    """Put the copy mark inside the root element (before the last ``</svg>``), so that the
    extracted document differs from the original; text without ``</svg>`` gets it appended."""
    if svg is None:
        return None
    i = svg.rfind("</svg>")
    return svg + COPY_MARK if i < 0 else svg[:i] + COPY_MARK + svg[i:]


def published_report(o: dict) -> dict:
    """The published verdicts of one outcome row as a ``SpecReport.to_dict()``-like mapping."""
    keys = (
        "reward", "near_pass", "repair_pass", "preservation_pass", "source_preservation_pass",
        "validity_pass", "exact", "structural", "edit_completion", "repair_progress",
        "preservation", "source_preservation", "unintended_change_rate", "produced_parse_ok",
        "produced_valid_svg", "status",
    )
    rep = {k: o.get(k) for k in keys}
    rep["checks"] = [dict(c, produced=None) for c in o.get("expected_changes") or []]
    rep["failure_reasons"] = []
    rep["detail"] = "provider_error" if o.get("error") else None
    rep["unexpected_changed_parts"] = []
    return rep


def build_set(tmp: Path, rescore: bool) -> tuple[list[Path], list, float]:
    from vector_gym.tasks.vector_bench import load_vector_bench

    tasks = load_vector_bench()
    by_id = {t.task_id: t for t in tasks}
    outcomes = [json.loads(line) for line in gzip.open(OUTCOMES, "rt", encoding="utf-8")]
    reports = [published_report(o) for o in outcomes]
    score_s = 0.0
    if rescore:
        from vector_gym.rewards.spec import score_many

        t0 = time.perf_counter()
        scored = score_many([by_id[o["task_id"]] for o in outcomes],
                            [o["produced_svg"] for o in outcomes])
        score_s = time.perf_counter() - t0
        reports = [
            dict(s.to_dict(), status=o["status"]) if not o.get("error") else r
            for o, s, r in zip(outcomes, scored, reports, strict=True)
        ]
    copies = [
        dataclasses.replace(
            t, task_id=t.task_id + "-b",
            source_svg=mark(t.source_svg), target_svg=mark(t.target_svg),
        )
        for t in tasks
    ]
    runs: dict[str, list[dict]] = {}
    for o, rep in zip(outcomes, reports, strict=True):
        for suffix, copy in (("", False), ("-b", True)):
            svg = mark(o["produced_svg"]) if copy else o["produced_svg"]
            runs.setdefault(o["name"], []).append({
                "task_id": o["task_id"] + suffix, "env": ENV_ID, "policy": o["name"],
                "sample_index": 0, "response": svg,
                "completion_tokens": None, "finish_reason": o["finish_reason"],
                "truncated": o["finish_reason"] == "length", "elapsed_s": 0.0,
                "reward": rep.get("reward"), "report": rep,
                **({"error": o["error"]} if o.get("error") else {}),
            })
    paths = []
    for i, rows in enumerate(runs.values()):
        p = tmp / f"run_{i:02d}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(p)
    return paths, tasks + copies, score_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="report folder (default: a temporary folder, removed)")
    ap.add_argument("--no-rescore", action="store_true", help="use the published verdicts only")
    ap.add_argument("--repeat", type=int, default=1, help="builds to time (default 1)")
    args = ap.parse_args(argv)
    from vector_gym.report.build import build_report

    with tempfile.TemporaryDirectory() as tmpd:
        tmp = Path(tmpd)
        rescore = not args.no_rescore
        if rescore:
            try:
                from vector_gym.rewards.spec import score_many  # noqa: F401
            except ImportError:
                rescore = False
        paths, tasks, score_s = build_set(tmp, rescore)
        n_rows = sum(1 for p in paths for _ in p.open())
        print(f"set: {len(tasks)} tasks x {len(paths)} runs = {n_rows} outcomes"
              f" (rescored: {rescore}, scoring {score_s:.1f} s, not counted)")
        for k in range(args.repeat):
            out = Path(args.out) if args.out else tmp / f"report{k}"
            t0 = time.perf_counter()
            res = build_report(paths, out, tasks=tasks, title="Vector-Bench published outcomes x2")
            wall = time.perf_counter() - t0
            files = [p for p in out.rglob("*") if p.is_file()]
            mb = sum(p.stat().st_size for p in files) / 1e6
            stages = ", ".join(f"{k}={v:.2f}s" for k, v in res.timings.items())
            print(f"build {k + 1}: {wall:.1f} s wall; {res.renders} documents rendered; "
                  f"{len(files)} files, {mb:.1f} MB; {stages}")
        print(f"cpus: {os.cpu_count()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
