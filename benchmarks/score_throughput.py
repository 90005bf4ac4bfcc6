"""Cold specification-reward throughput against the reference evaluator and the lxml parse floor.

Scores the 680 bundled published outcomes (``tests/data/outcomes_sv001_020.jsonl.gz``, the 659
rows with a produced SVG) **cold**: every round is a fresh process, so no output, path sample or
normalised attribute has been seen before (the RL case of novel outputs). Per-task scorers are
built before the clock starts (build time is printed apart); building one reads the task's own
source and target (their elements' validity verdicts, the before/after path comparisons), as an
RL loop does once per task before any output arrives. Three contenders run in every round,
interleaved (the order rotates from round to round):

``ours``
    ``vector_gym.rewards.spec`` (default mode, or ``--parity``).
``reference``
    The public Vector-Bench evaluator, ``vector_edit_gym.diffing.diff_report`` (the
    ``vector-edit-gym`` SDK at the snapshot named in ``docs/spec-reward.md``, from
    ``../shared/reference/vector-edit-gym-sdk``), re-run in the same rounds rather than a
    hard-coded figure. It runs in **the benchmark's own environment**, never in vector_gym's:
    vector_gym never imports it. Set it up once::

        python3 -m venv benchmarks/.venv-reference
        benchmarks/.venv-reference/bin/pip install "svg.path==7.1" ../shared/reference/vector-edit-gym-sdk

    (or pass ``--reference-python`` / set ``VECTOR_GYM_REFERENCE_PYTHON``). Without it the
    benchmark says so and stops (exit status 2).
``floor``
    Bare ``lxml.etree.fromstring`` of the same outputs: the parse floor.

Every worker is pinned to one core (``--cpu``, default the highest allowed core) and timed in
process CPU seconds, so neighbours on a shared machine distort the figures less. The whole set of
rounds runs twice: quiet, and under a deliberate load of one busy core (a cache-churning Python
loop pinned to the same core, so the contenders share it with the load; ``--load-cpu`` moves the
load to another core). Each phase prints outcomes/s (median of ``--rounds``) and the ratios
ours/reference and ours/floor.

Usage::

    python benchmarks/score_throughput.py [--rounds 3] [--limit N] [--parity] [--no-load]
    python benchmarks/score_throughput.py --profile      # cProfile of one cold pass of ours
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz"
TASKS = ROOT / "vector_gym" / "tasks" / "data" / "vector_bench" / "tasks_sv001_020.jsonl.gz"
DEFAULT_REFERENCE_PYTHON = ROOT / "benchmarks" / ".venv-reference" / "bin" / "python"
CONTENDERS = ("ours", "reference", "floor")


def _jsonl(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _outcomes(limit: int | None) -> list[tuple[str, str]]:
    pairs = [(r["task_id"], r["produced_svg"]) for r in _jsonl(OUTCOMES) if r["produced_svg"] is not None]
    return pairs[:limit] if limit else pairs


def _cpu() -> float:
    return time.process_time()


# -- workers (each runs in its own fresh process; only the reference worker's imports are its own) --


def _worker_ours(limit: int | None, parity: bool, profile: bool) -> dict:
    from vector_gym.rewards import spec
    from vector_gym.tasks.vector_bench import load_vector_bench

    tasks = {t.task_id: t for t in load_vector_bench()}
    pairs = _outcomes(limit)
    t0 = _cpu()
    scorers = {tid: spec.SpecScorer(tasks[tid], parity=parity) for tid in dict.fromkeys(t for t, _ in pairs)}
    build = _cpu() - t0
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile(time.process_time)  # CPU time: wall time on a loaded machine misleads
        prof.enable()
    t0 = _cpu()
    rewards = sum(scorers[tid].score(svg).reward for tid, svg in pairs)
    cpu = _cpu() - t0
    if prof is not None:
        import pstats

        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    return {"n": len(pairs), "cpu_s": cpu, "build_s": build, "rewards": rewards}


def _worker_reference(limit: int | None) -> dict:
    # Runs under the reference's own interpreter: stdlib + vector_edit_gym only.
    from vector_edit_gym.diffing import diff_report
    from vector_edit_gym.tasks import Task

    tasks = {raw["task_id"]: Task.from_json(raw) for raw in _jsonl(TASKS)}
    pairs = _outcomes(limit)
    t0 = _cpu()
    rewards = 0
    for tid, svg in pairs:
        rewards += int(diff_report(tasks[tid], svg).reward)
    cpu = _cpu() - t0
    return {"n": len(pairs), "cpu_s": cpu, "build_s": 0.0, "rewards": rewards}


def _worker_floor(limit: int | None) -> dict:
    from lxml import etree

    texts = [svg.encode("utf-8") for _, svg in _outcomes(limit)]
    parser = etree.XMLParser(remove_comments=True, remove_pis=True, resolve_entities=False)
    t0 = _cpu()
    for data in texts:
        try:
            etree.fromstring(data, parser)
        except etree.XMLSyntaxError:
            pass
    cpu = _cpu() - t0
    return {"n": len(texts), "cpu_s": cpu, "build_s": 0.0, "rewards": None}


_LOAD_LOOP = """
import os, sys
os.sched_setaffinity(0, {int(sys.argv[1])})
buf = bytearray(32 << 20)  # larger than the last-level cache: every sweep evicts its neighbours
while True:
    for i in range(0, len(buf), 64):
        buf[i] = (buf[i] + 1) & 255
    d = {}
    for i in range(20000):
        d[str(i)] = [i]
"""


# -- driver --------------------------------------------------------------------------------------


def _run_worker(kind: str, args: argparse.Namespace, ref_python: str) -> dict:
    exe = ref_python if kind == "reference" else sys.executable
    cmd = [exe, str(Path(__file__).resolve()), "--worker", kind, "--cpu", str(args.cpu)]
    if args.limit:
        cmd += ["--limit", str(args.limit)]
    if args.parity:
        cmd.append("--parity")
    env = dict(os.environ)
    if kind == "reference":
        env.pop("PYTHONPATH", None)  # the reference environment sees nothing of vector_gym
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{kind} worker failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _phase(label: str, args: argparse.Namespace, ref_python: str) -> dict[str, float]:
    runs: dict[str, list[dict]] = {k: [] for k in CONTENDERS}
    for r in range(args.rounds):
        order = CONTENDERS[r % 3 :] + CONTENDERS[: r % 3]
        for kind in order:
            runs[kind].append(_run_worker(kind, args, ref_python))
    rate = {k: statistics.median(x["n"] / x["cpu_s"] for x in v) for k, v in runs.items()}
    n = runs["ours"][0]["n"]
    print(f"\n[{label}] {n} outcomes with an SVG, {args.rounds} rounds, pinned to CPU {args.cpu}, CPU seconds")
    for k in CONTENDERS:
        rates = ", ".join(f"{x['n'] / x['cpu_s']:.0f}" for x in runs[k])
        extra = ""
        if k == "ours":
            extra = f"  (scorer build {statistics.median(x['build_s'] for x in runs[k]) * 1e3:.0f} ms, untimed)"
        if runs[k][0]["rewards"] is not None:
            extra += f"  reward=1 on {runs[k][0]['rewards']:.0f}"
        print(f"  {k:<10}: {rate[k]:8.1f} outcomes/s  (rounds: {rates}){extra}")
    print(f"  ours / reference : {rate['ours'] / rate['reference']:.1f}x  (issue 16 asks >= 50x)")
    print(f"  floor / ours     : {rate['floor'] / rate['ours']:.1f}x  (issue 16 asks <= 6x)")
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="fresh-process rounds per phase (median reported)")
    ap.add_argument("--limit", type=int, default=None, help="first N outcomes only (a shorter run)")
    ap.add_argument("--parity", action="store_true", help="score ours with parity=True")
    ap.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)), help="core every worker is pinned to")
    ap.add_argument("--load-cpu", type=int, default=None, help="core of the deliberate load (default: --cpu)")
    ap.add_argument("--no-load", action="store_true", help="skip the phase under load")
    ap.add_argument("--reference-python", default=os.environ.get("VECTOR_GYM_REFERENCE_PYTHON", str(DEFAULT_REFERENCE_PYTHON)))
    ap.add_argument("--profile", action="store_true", help="cProfile one cold pass of ours and stop")
    ap.add_argument("--worker", choices=CONTENDERS, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        os.sched_setaffinity(0, {args.cpu})
        if args.worker == "ours":
            result = _worker_ours(args.limit, args.parity, args.profile)
        elif args.worker == "reference":
            result = _worker_reference(args.limit)
        else:
            result = _worker_floor(args.limit)
        print(json.dumps(result))
        return
    if args.profile:
        os.sched_setaffinity(0, {args.cpu})
        r = _worker_ours(args.limit, args.parity, True)
        print(f"ours cold: {r['n'] / r['cpu_s']:.0f} outcomes/s ({r['cpu_s']:.2f} CPU s), build {r['build_s']:.2f} s")
        return

    ref = args.reference_python
    probe = subprocess.run([ref, "-c", "import vector_edit_gym.diffing"], capture_output=True, text=True, check=False) if Path(ref).exists() else None
    if probe is None or probe.returncode != 0:
        print(
            f"The reference evaluator is not installed at {ref}.\n"
            "This benchmark re-runs it in its own environment (vector_gym never imports it):\n"
            "  python3 -m venv benchmarks/.venv-reference\n"
            '  benchmarks/.venv-reference/bin/pip install "svg.path==7.1" ../shared/reference/vector-edit-gym-sdk\n'
            "or pass --reference-python / set VECTOR_GYM_REFERENCE_PYTHON.",
            file=sys.stderr,
        )
        raise SystemExit(2)

    print(f"reference: {ref} (vector_edit_gym.diffing.diff_report); ours: parity={args.parity}")
    print(f"load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    quiet = _phase("quiet", args, ref)
    if args.no_load:
        return
    load_cpu = args.cpu if args.load_cpu is None else args.load_cpu
    busy = subprocess.Popen([sys.executable, "-c", _LOAD_LOOP, str(load_cpu)])
    try:
        time.sleep(0.5)
        loaded = _phase(f"one busy core (load on CPU {load_cpu})", args, ref)
    finally:
        busy.kill()
        busy.wait()
    print("\nunder load / quiet: " + ", ".join(f"{k} {loaded[k] / quiet[k]:.2f}" for k in CONTENDERS))


if __name__ == "__main__":
    main()
