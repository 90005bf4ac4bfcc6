"""Rollout throughput: rows/s of ``rollout`` with the oracle policy, batched against per-completion
scoring, on the same tasks in one run (issue 9).

Measured, for SVGEditBench V2 (raster metrics: MSE and Chamfer at 224 px, rendering through a
warm pool of 2 render processes; the learned metrics are off because their weights are not
bundled) and Vector-Bench (specification reward):

* ``batched``: :func:`vector_gym.rollout.rollout` with ``batch_size`` completions per policy
  call, scored as the suite says (``Suite.concurrent_scoring``): the raster suite overlaps only
  when this process has a core beside the 2 render processes (3 or more cores), else one
  ``suite.score_many`` per batch (one render batch over the pool's processes), inline. A batch's
  fsync runs in a thread while the next batch is generated and scored (its first row waits);
* ``overlapped`` (raster suites, on machines where ``batched`` does not overlap): the overlap
  forced on. A batch is scored in 4 parts, each one ``score_many`` call, 2 parts at a time in
  threads, while this thread steps the episodes of the part before and writes their rows;
* ``per-completion``: the same ``rollout`` with ``batch_size=1`` on an env whose ``score_batch``
  is switched off: per completion one policy call, one ``env.reset`` + ``env.step`` scoring that
  answer alone (its source, target and answer rendered by one pool call of up to 3 documents,
  as the env does outside a batch), one row and one inline fsync: the path of a plain reset/step
  loop that keeps every row durable.

Every path must score the rewards and reports of the per-completion path (asserted). Printed
per row, in ms: the wall time, the CPU time of this process (all its threads) and of the 2
render processes (``/proc/PID/stat``, 10 ms ticks), and ``floor``, the wall time a path cannot
beat on this machine's cores: ``max((parent + render) / cores, parent, render / 2)``.

Where the time goes, and why 3x is out of reach on 2 cores
---------------------------------------------------------
All paths render the same 2.7 distinct documents per row (source, target, answer; 128 tasks, a
fresh suite per pass). Measured CPU per row (this script's columns, and cProfile with a CPU
clock; machine at load 1.5-1.9 unless said):

* render processes: 0.70-0.82 ms batched, 0.94-1.1 ms per-completion (more messages, wake-ups
  and settings per document). The drawing itself is 0.23 ms per document in one process (skia's
  parse and draw 0.19 ms, the RGBA-to-RGB copy 0.04 ms), so 0.62 ms per row is the floor of
  this column; the rest is the pool protocol.
* this process: 0.44 ms batched before the overlap, 0.47-0.55 with it (4 pool calls per batch
  instead of one, thread hand-offs); 0.8-0.9 ms per-completion. Of the batched 0.44 ms: the two
  exact MSEs 0.14 ms (int32 difference, square, int64 sum, one image at a time; float64 dot,
  int16 and histogram variants measured slower, 0.16-0.7 ms a pair), the pool protocol
  0.10 ms (0.036-0.048 ms per document), the render cache's copies and digests 0.03 ms, reports,
  steps, rows and resets the rest.

On 2 cores the batched path cannot beat ``(parent + render) / 2`` = (0.47 + 0.75) / 2 =
0.61 ms per row, about 1,640 rows/s: 2.3x the per-completion path's 726 rows/s (1.38 ms, load
0.6), which is latency-bound (its CPU floor is 0.9 ms: two round trips per row, the second
waiting for the first). 3x (0.46 ms per row) needs at most 0.92 ms of CPU per row in all, i.e.
at most 0.30 ms in this process next to the drawing floor of 0.62 ms, of which the MSEs and
the pool protocol alone take 0.24 ms. With 3 or more free cores the floor is
``max(parent, render / 2)`` = 0.47 ms, about 2.9x, and reaching it needs the overlap: without
it a batch costs ``parent + render / 2`` = 0.82 ms per row (about 1.7x) on any number of cores.

On this 2-core machine, shared with other jobs, the overlap never paid: with every core busy
its 4 smaller pool calls per batch cost the render processes 0.05-0.15 ms more CPU per row
(more wake-ups) than the overlap hides, so ``overlapped`` ran 2-12 % below ``batched`` at load
1.2-2.6, and the raster suites therefore overlap only with a core to spare. (At load 5-6 the
overlapped path ran 1.2-1.4x faster than the code before it, c44fdbc; that is mostly its extra
runnable threads winning a larger share of a contended machine, not a gain to expect.)

Measured (``--limit 128 --batch-size 32 --repeat 3``, 2 cores, best of 3 passes; "before" is
c44fdbc run by this script; the machine was never quiet, load as given):

==========================  ==========  ==============  =====  ====
suite, path                 rows/s      per-completion  ratio  load
==========================  ==========  ==============  =====  ====
v2 batched, before          807-841     496-502         1.65   1.5-1.9
v2 batched, overlap on      719-726     506-522         1.40   1.2-1.7
v2 batched (now: serial)    809         515             1.57   2.4
v2 overlapped (forced)      796         515             1.55   2.4
v2+chamfer, before          125-126     110-111         1.14   1.5-1.9
v2+chamfer, now             121         104             1.16   2.4
vector_bench, before        1137-1191   820-861         1.39   1.5-1.9
vector_bench, now           1375-1507   984-1045        1.42   1.2-1.7
==========================  ==========  ==============  =====  ====

Vector-Bench gained 20-27 % on both paths (a task's integrity hash computed once, not per scored
answer; the batched fsync overlapped), so its ratio stayed. Under load the per-completion path
loses most (each of its round trips waits for a core).

``svgeditbench_v2`` is the raster scorer's pixel metrics (MSE); ``svgeditbench_v2+chamfer`` adds
the Chamfer distance, computed in this process per answer on either path (about 8 ms of CPU per
row, under the GIL: the threads cannot overlap it, so that suite stays near 1.2-1.4x).

Each measurement builds a fresh suite (so no report or render cache of this process carries over
between the two; the render processes keep their prepared documents, as a long run's would),
writes to a fresh run file, and the best of ``--repeat`` passes is kept. Aim (issue 9): the
batched path at least 3x the per-completion path on SVGEditBench V2.

Usage::

    .venv/bin/python benchmarks/rollout_throughput.py [--limit 128] [--batch-size 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from vector_gym.envs.base import EditEnv
from vector_gym.policies import make_policy
from vector_gym.rollout import rollout

PROCESSES = 2  # render processes of the raster suites


def _suite(name: str, overlap: bool = False) -> Any:
    if name.startswith("svgeditbench_v2"):
        from vector_gym.suites.svgeditbench_v2 import SVGEditBenchV2Suite

        class Overlapped(SVGEditBenchV2Suite):
            concurrent_scoring = True  # whatever this machine's cores

        cls = Overlapped if overlap else SVGEditBenchV2Suite
        return cls(processes=PROCESSES, dino_model=None, clip_model=None, chamfer=name.endswith("+chamfer"))
    from vector_gym.suites.vector_bench import VectorBenchSuite

    return VectorBenchSuite()


class _OneAtATime(EditEnv):
    """The per-completion baseline: no batch scoring, each step scores its answer alone."""

    def score_batch(self, tasks: Any, responses: Any) -> None:
        return None


def _worker_cpu_s() -> float | None:
    """CPU seconds (user + system) the shared pool's render processes have used so far (Linux)."""
    from vector_gym.render.batch import get_pool

    total = 0
    try:
        for pid in get_pool(PROCESSES, 2048).worker_pids():
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    except (OSError, IndexError, ValueError):
        return None
    return total / os.sysconf("SC_CLK_TCK")


def _run(env: EditEnv, policy: Any, tasks: list[Any], batch_size: int) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as d:
        return rollout(env, policy, Path(d) / "r.jsonl", batch_size=batch_size,
                       task_ids=[t.task_id for t in tasks], progress=False)


def measure(name: str, limit: int, batch_size: int, repeat: int) -> dict[str, dict[str, float]]:
    """Per path, the pass with the best rows/s over ``repeat`` passes: rows/s, wall, parent
    CPU and render-process CPU per row (ms). Raises AssertionError when the two paths' rows
    carry different rewards or reports."""
    paths = ["batched", "per-completion"]
    if name.startswith("svgeditbench") and not _suite(name).concurrent_scoring:
        paths.insert(1, "overlapped")  # the overlap this machine's cores leave off, forced on
    best: dict[str, dict[str, float]] = {path: {"rows_s": 0.0} for path in paths}
    scored: dict[str, list[Any]] = {}
    for _ in range(repeat):
        for path in best:
            suite = _suite(name, overlap=path == "overlapped")
            tasks = suite.tasks()[:limit]
            env = (_OneAtATime if path == "per-completion" else EditEnv)(suite, tasks=tasks)
            policy = make_policy("oracle", tasks)
            w0, c0, t0 = _worker_cpu_s(), time.process_time(), time.perf_counter()
            rows = _run(env, policy, tasks, 1 if path == "per-completion" else batch_size)
            wall, cpu, w1 = time.perf_counter() - t0, time.process_time() - c0, _worker_cpu_s()
            scored.setdefault(path, [(r["task_id"], r["reward"], r["report"]) for r in rows])
            n = len(rows)
            if n / wall > best[path]["rows_s"]:
                workers = (w1 - w0) / n * 1e3 if name.startswith("svgeditbench") and w0 is not None else 0.0
                best[path] = {"rows_s": n / wall, "wall_ms": wall / n * 1e3, "parent_ms": cpu / n * 1e3,
                              "workers_ms": workers}
    for path in paths:
        assert scored[path] == scored["per-completion"], f"{name}: {path} and per-completion scored different reports"
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=128, help="tasks per suite (default: 128)")
    ap.add_argument("--batch-size", type=int, default=32, help="completions per policy call (default: 32)")
    ap.add_argument("--repeat", type=int, default=3, help="passes per measurement, best kept (default: 3)")
    args = ap.parse_args()
    from vector_gym.render import render_many

    render_many(["<svg xmlns='http://www.w3.org/2000/svg'/>"] * 4, size=(224, 224), processes=PROCESSES)  # warm pool
    import scipy.spatial  # noqa: F401  (Chamfer's import, outside the timings)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores, load {os.getloadavg()[0]:.2f}; per row, ms: wall, CPU of this process, "
          f"CPU of the {PROCESSES} render processes; floor = the CPU-bound wall of that path")
    print(f"{'suite':<24}{'path':<16}{'rows/s':>8}{'wall':>8}{'parent':>8}{'render':>8}{'floor':>8}{'ratio':>8}")
    for name in ("svgeditbench_v2", "svgeditbench_v2+chamfer", "vector_bench"):
        r = measure(name, args.limit, args.batch_size, args.repeat)
        p = r["per-completion"]
        for path, m in r.items():
            # CPU-bound wall per row: all CPU over the cores, but never below one process's share
            floor = max((m["parent_ms"] + m["workers_ms"]) / cores, m["parent_ms"], m["workers_ms"] / PROCESSES)
            extra = f"{m['rows_s'] / p['rows_s']:>8.2f}" if path != "per-completion" else ""
            print(f"{name:<24}{path:<16}{m['rows_s']:>8.0f}{m['wall_ms']:>8.3f}{m['parent_ms']:>8.3f}"
                  f"{m['workers_ms']:>8.3f}{floor:>8.3f}{extra}")
    print(f"load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
