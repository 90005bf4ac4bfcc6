"""RepairGen generation speed on one core, against a named baseline measured in the same run.

Configurations (both bundled source sets, ``split="all"``, seed 0):

- ``default``: 1-3 repairs, render visibility rule (the ``RepairGenConfig()`` defaults);
- ``dense``: 1-9 repairs (Vector-Bench's density), render visibility rule;
- ``geometric``: 1-3 repairs with ``visibility="geometric"`` (no rendering).

For each it reports tasks/s *cold* (the first N tasks, including each clean source's one-off
preparation: parsing, id assignment, element analysis and its clean render) and *warm* (the
next N tasks; with 2,148 sources many are still seen for the first time, so this still pays
some preparation). ``default steady`` first prepares every source of the split (its time is
printed) and then times N tasks: the steady state of a long training run.

Baseline: ``lxml parse+serialise`` — for the same N tasks, parse the task's clean source text
with :func:`vector_gym.svg.parse.parse_svg` and serialise it with ``lxml.etree.tostring``: the
least any generator that reads and writes an SVG must do per task.

Times are process CPU seconds (a loaded machine's wall clock mostly measures the neighbours);
pin the process with ``taskset -c 1`` for a strict single-core figure. ``--compare-with DIR``
runs the same measurement on another checkout of vector_gym (for example a worktree of the
previous commit) in alternating fresh processes, and prints both: a before/after in one run.

Usage::

    .venv/bin/python benchmarks/repairgen_speed.py [--n 1000]
    .venv/bin/python benchmarks/repairgen_speed.py --n 500 --compare-with /tmp/vector_gym-before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def measure(n: int) -> dict[str, float]:
    """tasks/s of every configuration (and the baseline), CPU seconds, in this process."""
    from lxml import etree

    from vector_gym.svg.parse import parse_svg
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator
    from vector_gym.tasks.repairgen_sources import load_sources

    clock = time.process_time
    configs = {
        "default": RepairGenConfig(split="all"),
        "dense": RepairGenConfig(split="all", max_repairs=9),
        "geometric": RepairGenConfig(split="all", visibility="geometric", min_visible_fraction=0.01),
    }
    sources = {s.source_id: s.svg for s in load_sources(("vector_bench", "svgeditbench"))}
    out: dict[str, float] = {}
    for name, cfg in configs.items():
        # prepared sources are cached across configurations, so "cold" is cold only for the first
        gen = RepairGenerator(cfg, seed=0)
        t0 = clock()
        tasks = [gen[i] for i in range(n)]
        out[f"{name} cold" + ("" if name == "default" else "*")] = _rate(n, clock() - t0)
        t0 = clock()
        for i in range(n, 2 * n):
            gen[i]
        out[f"{name} warm"] = _rate(n, clock() - t0)
        if name == "default":
            texts = [sources[t.meta()["source_id"]] for t in tasks]
            t0 = clock()
            for text in texts:
                etree.tostring(parse_svg(text), encoding="unicode")
            out["baseline lxml parse+serialise"] = _rate(n, clock() - t0)
            out["repairs per task"] = sum(t.meta()["difficulty"] for t in tasks) / n
            t0 = clock()
            for k in range(len(gen._sources)):
                gen._prepare(k)
            out["prepare every source (s)"] = clock() - t0
            t0 = clock()
            for i in range(2 * n, 3 * n):
                gen[i]
            out["default steady"] = _rate(n, clock() - t0)
    return out


def _print(results: dict[str, list[dict[str, float]]], n: int) -> None:
    labels = list(next(iter(results.values()))[0])
    heads = list(results)
    print(f"RepairGen generation speed, one process, N = {n} tasks per measurement, CPU seconds")
    print(f"{'configuration':<32}" + "".join(f"{h:>20}" for h in heads))
    for label in labels:
        cells = []
        for h in heads:
            v = statistics.median(r[label] for r in results[h])
            cells.append(f"{v:>20.2f}" if "(s)" in label or "per task" in label else f"{v:>20.1f}")
        print(f"{label:<32}" + "".join(cells))
    print("(tasks/s unless named; * = sources already prepared; median of the rounds)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--compare-with", default=None, help="another vector_gym checkout, measured alternately")
    ap.add_argument("--rounds", type=int, default=2, help="rounds per checkout with --compare-with")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.n)))
        return
    if not args.compare_with:
        _print({"this tree": [measure(args.n)]}, args.n)
        return
    trees = {"before": str(Path(args.compare_with).resolve()), "after (this tree)": str(ROOT)}
    results: dict[str, list[dict[str, float]]] = {k: [] for k in trees}
    for r in range(args.rounds):
        for name in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
            env = dict(os.environ, PYTHONPATH=trees[name])
            cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--n", str(args.n)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=trees[name], check=True)
            results[name].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    _print(results, args.n)


if __name__ == "__main__":
    main()
