"""RepairGen generation speed on one core, against a named baseline measured in the same run.

Configurations (both bundled source sets, ``split="all"``, seed 0):

- ``default``: 1-3 repairs, render visibility rule (the ``RepairGenConfig()`` defaults);
- ``dense``: 1-9 repairs (Vector-Bench's density), render visibility rule;
- ``geometric``: 1-3 repairs with ``visibility="geometric"`` (no rendering).

For each it reports tasks/s *cold* (the first N tasks, including each clean source's one-off
preparation: parsing, id assignment, element analysis and its clean render) and *warm* (the
next N tasks, sources already prepared, the steady state of a long training run).

Baseline: ``lxml parse+serialise`` — for the same N tasks, parse the task's clean source text
with :func:`vector_gym.svg.parse.parse_svg` and serialise it with ``lxml.etree.tostring``: the
least any generator that reads and writes an SVG must do per task.

Usage::

    .venv/bin/python benchmarks/repairgen_speed.py [--n 1000]

Runs in one process (one core); pin it with ``taskset -c 0`` for a strict single-core figure.
"""

from __future__ import annotations

import argparse
import time


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()

    from lxml import etree

    from vector_gym.svg.parse import parse_svg
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator
    from vector_gym.tasks.repairgen_sources import load_sources

    n = args.n
    configs = {
        "default": RepairGenConfig(split="all"),
        "dense": RepairGenConfig(split="all", max_repairs=9),
        "geometric": RepairGenConfig(
            split="all", visibility="geometric", min_visible_fraction=0.01
        ),
    }
    sources = {s.source_id: s.svg for s in load_sources(("vector_bench", "svgeditbench"))}
    print(f"RepairGen generation speed, one process, N = {n} tasks per measurement")
    print(f"{'configuration':<28}{'tasks/s':>10}{'ms/task':>10}")
    for name, cfg in configs.items():
        # a fresh process state per configuration is not possible here; prepared sources are
        # cached across configurations, so "cold" is cold only for the first configuration
        gen = RepairGenerator(cfg, seed=0)
        t0 = time.perf_counter()
        tasks = [gen[i] for i in range(n)]
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(n, 2 * n):
            gen[i]
        warm = time.perf_counter() - t0
        label = "cold" if name == "default" else "cold*"
        print(f"{name + ' ' + label:<28}{_rate(n, cold):>10.1f}{1000 * cold / n:>10.2f}")
        print(f"{name + ' warm':<28}{_rate(n, warm):>10.1f}{1000 * warm / n:>10.2f}")
        if name == "default":
            texts = [sources[t.meta()["source_id"]] for t in tasks]
            t0 = time.perf_counter()
            for text in texts:
                etree.tostring(parse_svg(text), encoding="unicode")
            base = time.perf_counter() - t0
            repairs = sum(t.meta()["difficulty"] for t in tasks) / n
    print(f"{'baseline lxml parse+serialise':<28}{_rate(n, base):>10.1f}{1000 * base / n:>10.2f}")
    print(
        f"(default config: {repairs:.2f} repairs per task on average; * = sources already prepared)"
    )


if __name__ == "__main__":
    main()
