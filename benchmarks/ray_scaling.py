"""Ray scaling: rows/s and CPU per row of ``score_dataset`` against the local process pool.

In one run, on the same rows (the 680 published Vector-Bench outcomes, repeated ``--copies``
times with distinct ``sample_index``, or ``--repairgen N`` generated RepairGen oracle outputs):

- ``score_many(processes=1)`` and ``score_many(processes=2)`` in this process
  (:func:`vector_gym.rewards.spec.score_many`, stored SVGs scored as is);
- ``score_dataset`` on a :class:`~vector_gym.integrations.ray.LocalCluster` whose head has no
  CPU (it holds the driver and the GCS only) and 1, then 2, worker nodes of one CPU each; each
  cluster is started and stopped here. The wall time counts from building the dataset to the
  last row decoded on the driver (actor start-up included).

How CPU is counted (user + system seconds, from start to last row):

- local: this process and its pool children (``getrusage`` of self and of waited-for children);
  the per-task scorer cache is emptied before each run, so every run starts cold, as a fresh
  Ray actor does;
- Ray: the driver (this process: building the dataset, Ray Data's executor, decoding the rows)
  plus every process of the cluster (GCS, raylets, the autoscaler monitor, Ray Data's service
  actors, idle, prestarted and spill workers, the scorer actors), read from ``/proc`` every
  0.2 s, by pid, so processes that exit mid-run are counted up to their last sample. Each
  sample's CPU is charged to the kind the process had then (``ray::NAME`` titles: a worker
  runs a task, then becomes a scorer actor; the driver by thread) and printed per kind. The
  meter's own thread (reading ``/proc``) is the only thing taken out: the local runs have no
  such instrument. Once per cluster, before the timed runs, a 4-row dataset starts Ray Data's
  service actors (stats, autoscaling coordinator, usage collection, actor locations: one per
  cluster, not per run); that warm-up is not counted. The nodes are started as
  :class:`~vector_gym.integrations.ray.LocalCluster` starts them (no dashboard, no log monitor:
  the README's settings for a scoring cluster) with an object store of ``--object-store-mb``
  (512 MiB; a real node's default is 30% of its RAM): at 80 MiB the 6,800-row run filled it,
  and Ray then spilled blocks to disk and ran ``gc.collect`` in every worker.
- RepairGen (``--repairgen``): the Ray workers regenerate each task from its id (the issue's
  design: tasks are not shipped); the local runs get the tasks ready-made, so the CPU of
  generating them (``suite.tasks``, measured here) is added to each local run and shown.

Each configuration runs at two sizes (a quarter of the rows, then all of them): CPU(n) =
fixed + n * per_row gives the per-row CPU (the marginal cost, the overhead the issue bounds)
and the fixed start-up CPU (Ray: worker processes, actor construction and cold per-task scorers
of one dataset execution; local: the pool's fork). ``total`` is all CPU of the full run divided
by its rows. Each size of each configuration runs ``--repeats`` times (2) and the run with the
least CPU counts (other engineers' load on a shared machine only adds CPU: cache and core
contention). Every full run's reports are checked to be identical to ``processes=1``
(``--no-check`` skips it).

Usage::

    python benchmarks/ray_scaling.py [--copies 10] [--repairgen N] [--batch-size 512]
                                     [--repeats 2] [--object-store-mb 512] [--json]

``--repairgen 10000`` is the issue's 10,000-task identity check (every field of every report
identical to ``score_many`` in this process); the tests check 300 tasks.

Prints a table (or one JSON object), then each Ray run's CPU per row by process kind (fitted,
and the full run's total). Ray's CPU per row should stay within 20% of the local pool's
(issue 15).

Where the CPU goes (2 shared cores, load average 4-7 from other engineers, ``--copies 10``)
------------------------------------------------------------------------------------------
CPU ms/row (vs pool(2)), each line one run of this file against the code of its day:

====================================  =============  ============  ============
code                                  pool(2)        Ray 1 node    Ray 2 nodes
====================================  =============  ============  ============
before (c44fdbc, batch 256, 80 MiB)   0.41           0.62 (1.49x)  0.82 (1.99x)
before                                0.44           0.86 (1.96x)  0.78 (1.78x)
after, single runs                    0.43           0.37 (0.87x)  0.55 (1.29x)
after, single runs                    0.50           0.45 (0.92x)  0.39 (0.80x)
after, least CPU of 2 runs            0.61           0.55 (0.90x)  0.61 (1.01x)
after, least CPU of 2 runs            0.48           0.52 (1.09x)  0.81 (1.69x)
after, ``--copies 20``, load 9.7      0.46           0.47 (1.01x)  0.56 (1.20x)
after, defaults, quiet (load 1.4)     0.47           0.44 (0.94x)  0.49 (1.05x)
after, defaults, load 1.3 -> 5.5      0.51           0.55 (1.09x)  0.62 (1.23x)
====================================  =============  ============  ============

Before, quiet (the previous session's run, ``--copies 10``): pool(2) 0.47, Ray 1 node 0.70
(1.50x), 2 nodes 0.91 (1.95x).

The fit divides the run-to-run spread of the fixed CPU (2 nodes: 2.8-6.4 s, two worker
processes started and two actors built per execution, slower under load) by the rows between
the two sizes, so at ``--copies 10`` a 2-node figure moves by up to 0.2 ms/row between runs
(1.69x above: its per-kind fit has 0.04 of ``ray::IDLE`` start-up and 0.06 of Ray Data's
driver threads that other runs put in the fixed part); ``--copies 20`` halves that.

Per row after the changes (fitted, 1 node / 2 nodes): the scorer actor's task 0.33-0.43 /
0.41-0.51, which is the scoring (``processes=1`` 0.26-0.35 in the same runs; two scoring
processes on the two cores cost more each, as in pool(2)) plus the wire inside the actor,
0.05 (measured in one process: decode the row 0.007, ``to_dict`` 0.012, encode the scored row
0.010, Arrow tables and row assembly); the driver 0.04-0.10 (wire rows built: key and JSON per
row; scored rows decoded, 0.018 each, their SVG included); raylets 0.03-0.05 (blocks moved
from the driver's node to the worker and back, 3.5 MB in and 4.5 MB out per 512 rows; task
scheduling); Ray Data's driver threads 0.01-0.02; GCS and the service actors 0.01-0.03 (they
cost per second, 0.5-0.8% of a CPU each, so per row they fall as rows/s rise). Worker
start-up, actor construction and cold scorers are the fixed CPU (2-5 s per execution).

What was cut (before -> after, ms/row): from_arrow's per-block metadata tasks (a task worker
started on a worker node and every block shipped there once more; 0.01-0.1 and about 1 s of
start-up), block spilling and ``gc.collect`` in every worker (80 MiB stores), the log
monitors (1.4% of a CPU while idle), JSON through orjson (0.11 -> 0.04 over the four encodes
and decodes of a row), ``to_dict`` (0.022 -> 0.012), batches of 512 (raylet 0.06 -> 0.04,
Ray Data's driver threads 0.03-0.05 -> 0.01-0.02), the harness's second ``row_key`` per row
and the meter's own thread (0.01-0.03). Tried and left: ``RAY_task_events_report_interval_ms=0``
and ``RAY_enable_metrics_collection=0`` (idle cluster 4.9% of a CPU with them, 4.5% without).

What remains above pool(2) at 2 nodes (the ``--copies 20`` run, 0.56 against 0.46): the wire
in the actor 0.05, the driver 0.05, the raylets 0.04, Ray Data's driver threads 0.01, GCS and
service actors 0.02-0.03, less the pool's own 0.08 above ``processes=1`` (pickled tasks and
reports). The spread between runs (0.39-0.61 for the same
configuration) is the shared machine's load; compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz"
TICK = os.sysconf("SC_CLK_TCK")


def _self_cpu() -> float:
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


#: Names of this process's threads that the OS does not know (the main thread, this meter).
_THREAD_KIND: dict[int, str] = {}


def _proc_cpu(pid: int | str) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def _proc_kind(pid: int) -> str:
    """A process's kind from its command line: ``ray::NAME`` (Ray workers set their title to
    the actor or task they run, ``ray::IDLE`` when idle), else the executable or module."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [a.decode(errors="replace") for a in argv if a]
    if not words:
        return "?"
    if words[0].startswith("ray::"):
        return words[0].split()[0]
    for w in words:
        for name in ("gcs_server", "raylet", "log_monitor", "monitor.py", "dashboard_agent",
                     "runtime_env/agent", "dashboard.py", "default_worker"):
            if name in w:
                return name
    if "-c" in words:
        return "ray start (launcher)"
    return Path(words[0]).name


class _ClusterCPU:
    """CPU seconds used by a cluster's processes (and this process's threads) between start()
    and stop(), sampled every 0.2 s; each sample's CPU is charged to the kind the process had
    then (a Ray worker runs a metadata task, then becomes a scorer actor)."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster
        self.last: dict[int, float] = {}
        self.charged: dict[str, float] = {}
        self._stop = threading.Event()

    def _charge(self, key: int, kind: str, v: float) -> None:
        if key in self.last:
            self.charged[kind] = self.charged.get(kind, 0.0) + v - self.last[key]
        self.last[key] = v

    def _sample(self, first: bool = False) -> None:
        for pid in self.cluster.marked_pids():
            v = _proc_cpu(pid)
            if v is not None:
                if first:
                    self.last[pid] = v
                elif pid not in self.last:
                    self.last[pid] = 0.0  # started since: all its CPU is in the run
                self._charge(pid, _proc_kind(pid), v)
        for d in Path("/proc/self/task").iterdir():  # the driver, by thread
            v = _proc_cpu(f"self/task/{d.name}")
            if v is None:
                continue
            tid = -int(d.name)
            if first:
                self.last[tid] = v
            elif tid not in self.last:
                self.last[tid] = 0.0
            kind = _THREAD_KIND.get(int(d.name))
            if kind is None:
                try:
                    kind = (d / "comm").read_text().strip()
                except OSError:
                    kind = "?"
            self._charge(tid, "driver:" + kind, v)

    def start(self) -> None:
        self._sample(first=True)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        _THREAD_KIND[threading.get_native_id()] = "cpu meter"
        while not self._stop.wait(0.2):
            self._sample()

    def stop(self) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()

    def by_kind(self) -> dict[str, float]:
        """CPU seconds per process kind (:func:`_proc_kind`; ``driver:THREAD``)."""
        return dict(self.charged)


def _rows(copies: int, repairgen: int):
    from vector_gym.cli import load_outcomes
    from vector_gym.suites import get_suite
    from vector_gym.tasks.vector_bench import load_vector_bench

    if repairgen:
        tasks = get_suite("repairgen").tasks("train", n=repairgen)
        rows = [{"task_id": t.task_id, "model": "oracle", "produced_svg": t.target_svg} for t in tasks]
        return "repairgen", rows, tasks
    by_id = {t.task_id: t for t in load_vector_bench()}
    rows = [{**r, "sample_index": k} for k in range(copies) for r in load_outcomes(OUTCOMES)]
    return "vector_bench", rows, [by_id[r["task_id"]] for r in rows]


def _canon(report: dict) -> str:
    return json.dumps(json.loads(json.dumps(report)), sort_keys=True)


def _fit(small: tuple[int, float], full: tuple[int, float]) -> tuple[float, float]:
    """(per-row CPU, fixed CPU) of CPU(n) = fixed + n * per_row through two runs."""
    (n1, c1), (n2, c2) = small, full
    per_row = (c2 - c1) / (n2 - n1)
    return per_row, c1 - n1 * per_row


def _local_run(tasks, outputs, processes: int, extra_cpu: float):
    from vector_gym.rewards import spec

    spec._SCORERS.clear()  # cold, as a fresh scorer actor
    c0, t0 = _self_cpu(), time.perf_counter()
    reports = spec.score_many(tasks, outputs, processes=processes)
    return reports, time.perf_counter() - t0, _self_cpu() - c0 + extra_cpu


def _ray_run(vray, cluster, suite, rows, batch_size: int, workers: int):
    """Scored rows by key, wall seconds, CPU seconds, and CPU seconds per process kind
    (``driver:THREAD`` for this process's threads, ``driver:other`` for exited ones)."""
    _THREAD_KIND[threading.get_native_id()] = "main"
    meter = _ClusterCPU(cluster)
    meter.start()
    c0, t0 = _self_cpu(), time.perf_counter()
    ds = vray.from_rows(rows, rows_per_block=batch_size)
    scored = vray.score_dataset(ds, suite, batch_size=batch_size, concurrency=(workers, workers))
    out = {}
    for block in scored.iter_batches(batch_size=None, batch_format="pyarrow"):  # rows by key
        out.update(zip(block.column("key").to_pylist(), vray.decode_rows([block]), strict=True))
    wall = time.perf_counter() - t0
    driver = _self_cpu() - c0
    meter.stop()
    kinds = meter.by_kind()
    # The meter's own thread (reading /proc for every process, 5 times a second) is the
    # benchmark's instrument, not Ray's work (the local runs have none): taken out.
    driver -= kinds.pop("driver:cpu meter", 0.0)
    kinds["driver:other"] = driver - sum(v for k, v in kinds.items() if k.startswith("driver:"))
    return out, wall, driver + sum(v for k, v in kinds.items() if not k.startswith("driver:")), kinds


def _least_cpu(repeats: int, run, cpu_at: int):
    """The run (of ``repeats``) that used the least CPU: other engineers' load only adds."""
    best = None
    for _ in range(max(1, repeats)):
        got = run()
        if best is None or got[cpu_at] < best[cpu_at]:
            best = got
    return best


def _result(name: str, n: int, wall: float, small: tuple[int, float], full: tuple[int, float],
            identical: bool | None, extra_cpu: float = 0.0) -> dict:
    per_row, fixed = _fit(small, full)
    return {"run": name, "rows": n, "wall_s": wall, "rows_per_s": n / wall,
            "cpu_ms_per_row": 1000 * per_row, "fixed_cpu_s": fixed,
            "total_cpu_ms_per_row": 1000 * full[1] / n, "task_generation_cpu_s": extra_cpu,
            "identical": identical}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=10,
                    help="copies of the 680 published outcomes (20 halves the fit's spread)")
    ap.add_argument("--repairgen", type=int, default=0, metavar="N",
                    help="score N RepairGen oracle outputs instead")
    ap.add_argument("--batch-size", type=int, default=512, help="rows per scorer call (and per block)")
    ap.add_argument("--object-store-mb", type=int, default=512,
                    help="object store per node (MiB; Ray's default is 30%% of the node's RAM)")
    ap.add_argument("--repeats", type=int, default=2,
                    help="runs of each size and configuration; the one with the least CPU counts")
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from vector_gym.integrations import ray as vray

    c0 = _self_cpu()
    suite, rows, tasks = _rows(args.copies, args.repairgen)
    gen_cpu = _self_cpu() - c0 if args.repairgen else 0.0  # RepairGen: generating the tasks
    outputs = [r["produced_svg"] for r in rows]
    n = len(rows)
    m = max(2, n // 4)
    results = []
    reference = None
    for processes in (1, 2):
        small = _least_cpu(args.repeats, lambda p=processes: _local_run(
            tasks[:m], outputs[:m], p, gen_cpu * m / n), cpu_at=2)
        same = True
        full = None
        for _ in range(args.repeats):
            got = _local_run(tasks, outputs, processes, gen_cpu)
            dicts = [_canon(r.to_dict()) for r in got[0]]
            if reference is None:
                reference = dicts
            same = same and dicts == reference
            full = got if full is None or got[2] < full[2] else full
        _, wall, cpu = full
        results.append(_result(f"score_many(processes={processes})", n, wall, (m, small[2]),
                               (n, cpu), same, gen_cpu))
    for workers in (1, 2):
        with vray.LocalCluster(workers=workers, cpus=1, head_cpus=0,
                               object_store_mb=args.object_store_mb) as cluster:
            ray = cluster.connect()
            try:  # Ray Data's service actors (one per cluster), started before the timed runs
                list(vray.decode_rows(vray.score_dataset(vray.from_rows(rows[:4]), suite,
                                                         concurrency=(workers, workers))))
                _, _, cpu_small, kinds_small = _least_cpu(args.repeats, lambda w=workers, c=cluster: (
                    _ray_run(vray, c, suite, rows[:m], args.batch_size, w)), cpu_at=2)
                identical = None if args.no_check else True
                full = None
                for _ in range(args.repeats):
                    got = _ray_run(vray, cluster, suite, rows, args.batch_size, workers)
                    if not args.no_check:
                        out = got[0]
                        identical = identical and len(out) == n and all(
                            _canon(out[vray.row_key(r)]["report"]) == ref
                            for r, ref in zip(rows, reference, strict=True))
                    full = got if full is None or got[2] < full[2] else full
                _, wall, cpu, kinds = full
            finally:
                ray.shutdown()
        results.append(_result(f"score_dataset({workers} worker node{'s' if workers > 1 else ''})",
                               n, wall, (m, cpu_small), (n, cpu), identical))
        results[-1]["cpu_ms_per_row_by_process"] = {
            k: 1000 * _fit((m, kinds_small.get(k, 0.0)), (n, kinds.get(k, 0.0)))[0]
            for k in sorted(set(kinds) | set(kinds_small))}
        results[-1]["total_cpu_ms_per_row_by_process"] = {k: 1000 * v / n for k, v in kinds.items()}
    local2 = results[1]
    for r in results:
        r["cpu_vs_pool2"] = r["cpu_ms_per_row"] / local2["cpu_ms_per_row"]
        r["total_vs_pool2"] = r["total_cpu_ms_per_row"] / local2["total_cpu_ms_per_row"]
    if args.json:
        print(json.dumps({"suite": suite, "rows": n, "small_rows": m, "batch_size": args.batch_size,
                          "repeats": args.repeats,
                          "cpus": os.cpu_count(), "load_avg": os.getloadavg(), "results": results},
                         indent=2))
        return
    print(f"{suite}: {n} rows (fit from {m} and {n}, least CPU of {args.repeats} runs each),"
          f" batch {args.batch_size}, {os.cpu_count()} CPUs,"
          f" load average {os.getloadavg()[0]:.1f}"
          + (f", task generation {gen_cpu:.2f} CPU s (added to local)" if gen_cpu else ""))
    print(f"{'run':34} {'wall s':>7} {'rows/s':>8} {'CPU ms/row':>11} {'vs pool(2)':>10}"
          f" {'fixed CPU s':>11} {'total ms/row':>12} {'vs pool(2)':>10} identical")
    for r in results:
        print(f"{r['run']:34} {r['wall_s']:7.2f} {r['rows_per_s']:8.1f} {r['cpu_ms_per_row']:11.2f}"
              f" {r['cpu_vs_pool2']:10.2f} {r['fixed_cpu_s']:11.2f} {r['total_cpu_ms_per_row']:12.2f}"
              f" {r['total_vs_pool2']:10.2f} {r['identical']}")
    for r in results:
        for label, field in (("per row (fit)", "cpu_ms_per_row_by_process"),
                             ("total", "total_cpu_ms_per_row_by_process")):
            by = r.get(field)
            if by:
                print(f"{r['run']}, CPU ms/row by process, {label}: " + ", ".join(
                    f"{k} {v:.3f}" for k, v in sorted(by.items(), key=lambda kv: -abs(kv[1]))
                    if abs(v) >= 0.002))


if __name__ == "__main__":
    main()
