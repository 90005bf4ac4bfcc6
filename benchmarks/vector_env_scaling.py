"""Episodes per second of ``SyncVectorEnv`` against ``AsyncVectorEnv`` with 2 workers (VectorBench).

Two ``VectorBenchEnv`` sub-environments, single-step episodes, each action a published model
output for the sub-environment's current task (``tests/data/outcomes_sv001_020.jsonl.gz``, cycled
in order), made new for every episode by an XML comment before its closing ``</svg>`` (a comment
changes no verdict: checked on all 542 outputs), so every step scores an output it has never seen,
as in RL training where every sampled answer is new. ``--cached`` cycles the outputs unchanged
instead: after the first pass every step is a report-cache hit (about 0.3 ms) and the pipes'
fixed cost per step decides the race. Both vector envs use
``autoreset_mode=SAME_STEP``: a single-step episode then costs one ``step`` call (with the
default ``NEXT_STEP`` every other call is a reset that ignores its action, halving episodes per
call; ``--autoreset next-step`` measures that). The contenders alternate for ``--rounds``
rounds, each in a fresh process (no contender inherits the other's warm caches); each round
builds the vector env (start-up time printed apart, not counted), resets it and
times ``--episodes`` episodes in wall-clock seconds (parallelism is the point here), with the
CPU seconds of this process printed beside.

``AsyncVectorEnv`` runs with ``shared_memory=False`` (Gymnasium 1.4's shared memory does not carry
``Text`` observations) and the default ``fork`` context: the parent warms the per-task scorers
before forking (:func:`vector_gym.envs.vector_bench.VectorBenchEnv` builds them when the env is
constructed, which ``AsyncVectorEnv`` does once in the parent), so the workers inherit them
instead of each building its own.

Each contender also prints how long each of its processes waited for a core (the run-queue
delay of Linux schedstat): on a loaded machine that, not the pipes (about 16 KB pickled per
sub-env step, 13 us a round trip) or the scorers, is what the Async workers wait on, and it
is why the wall-clock ratio there says more about the neighbours than about the env; the
CPU-bound rate is the rate with a core per process.

Where the parent waits (issue 16, session 7). ``--budget`` measures, in one process and in CPU
seconds (so the neighbours do not count), each part of an Async step: the sub-env's episode
(``step`` and the ``SAME_STEP`` reset, what a worker runs), the pickling both ways (what the
pipes carry: the worker's message as Gymnasium 1.4's worker builds it, with ``final_info``,
``final_obs`` and the new episode's observation and info) and the parent's merge of the sub-envs'
infos (the vector env's ``_add_info``). Measured here (2 sub-envs, load 1.6-2.4 on 2 cores)::

    episode (step + reset)                        805 us per sub-env
    worker pickling                                30 us (15.5 KiB back per sub-env)
    parent, serial: unpickling 34, pickling actions 13, info merge 82 = 129 us per step
    sync step 1,693 us; async step with a free core per worker 965 us: at most 1.75x

So neither the pipes nor the pickling of the report dicts hold the parent up: its serial share
is 129 us of a 965 us step, and a whole report round trip costs less than a twentieth of an
episode. What the same run measured instead::

    sync   1,091 episodes/s wall; CPU s parent 0.91 (1,000 episodes); run queue 0.00 s
    async    837 episodes/s wall; CPU s parent 0.17, workers 0.52 + 0.50; run queue
             0.39 + 0.55 + 0.38 s (parent, workers): 0.77x wall, 1.79x CPU-bound

Each Async step is a barrier: the parent waits for the slower worker. Sync got a core of its own
(no run-queue delay), so about one core was free of other work; Async's two workers then share
the other core with the neighbours, the one that does runs at about half speed, and a step costs
about two episodes, as in Sync, plus the parent's part (the workers waited 0.55 and 0.38 s in the
run queue over 500 steps, about 1 ms a step, longer than the episode itself). A pipe round trip
itself is quick at the same load (14-20 us, two processes passing a message back and forth).
Nothing in the env changes this: shrinking the episode only makes the parent's part weigh more
(``--cached``: 0.3 ms episodes). Async is ahead on a 2-core machine when both workers find free
cores (the CPU-bound column, 1.79x, and the budget's 1.75x say by how much); on a 2-core machine
where another process keeps one core busy, SyncVectorEnv is the faster choice.

Usage::

    python benchmarks/vector_env_scaling.py [--episodes 400] [--rounds 3] [--autoreset same-step]
    python benchmarks/vector_env_scaling.py --lazy-scorers   # baseline: every worker builds its own
    python benchmarks/vector_env_scaling.py --budget         # also the CPU budget of an Async step
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from vector_gym.envs.vector_bench import VectorBenchEnv
from vector_gym.tasks.vector_bench import read_jsonl

ROOT = Path(__file__).resolve().parents[1]


def _actions() -> dict[str, list[str]]:
    by_task: dict[str, list[str]] = {}
    for r in read_jsonl(ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz"):
        if r["produced_svg"] is not None:
            by_task.setdefault(r["task_id"], []).append(r["produced_svg"])
    return by_task


def _run(kind: str, n_envs: int, episodes: int, mode: AutoresetMode, outputs: dict[str, list[str]],
         fresh: bool = True) -> dict:
    fns = [partial(VectorBenchEnv, task_order="random") for _ in range(n_envs)]
    t0 = time.perf_counter()
    if kind == "sync":
        env = SyncVectorEnv(fns, autoreset_mode=mode)
    else:
        env = AsyncVectorEnv(fns, shared_memory=False, autoreset_mode=mode)
    _, info = env.reset(seed=20261201)
    startup = time.perf_counter() - t0
    cursor = {t: 0 for t in outputs}
    task_ids = list(info["task_id"])
    serial = iter(range(1 << 62))

    def action_for(task_id: str) -> str:
        pool = outputs[task_id]
        i = cursor[task_id]
        cursor[task_id] = (i + 1) % len(pool)
        if not fresh:
            return pool[i]
        k = pool[i].rfind("</svg>")
        return f"{pool[i][:k]}<!-- episode {next(serial)} -->{pool[i][k:]}"

    done = 0
    rewards = 0.0
    steps = 0
    workers = [p.pid for p in getattr(env, "processes", [])]
    k0 = [_proc_cpu(pid) for pid in workers]
    q0 = [_run_delay(pid) for pid in [os.getpid(), *workers]]
    w0, c0 = time.perf_counter(), time.process_time()
    while done < episodes:
        actions = tuple(action_for(t) for t in task_ids)
        _, reward, terminated, truncated, info = env.step(actions)
        steps += 1
        ended = np.logical_or(terminated, truncated)
        done += int(ended.sum())
        rewards += float(np.asarray(reward)[ended].sum())
        task_ids = list(info["task_id"])
        if mode == AutoresetMode.NEXT_STEP:
            # the next call resets the ended sub-envs; their action is ignored
            task_ids = [t if t is not None else next(iter(outputs)) for t in task_ids]
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    kcpu = [_proc_cpu(pid) - k for pid, k in zip(workers, k0, strict=True)]
    queued = [_run_delay(pid) - q for pid, q in zip([os.getpid(), *workers], q0, strict=True)]
    env.close()
    # CPU-bound rate: episodes per CPU second of the busiest process (the parent or one worker),
    # i.e. the rate when every process has a core of its own; a loaded machine's wall clock
    # mostly measures the neighbours.
    busiest = max([cpu, *kcpu])
    return {"eps": done / wall, "eps_cpu": done / busiest, "wall": wall, "cpu": cpu,
            "worker_cpu": kcpu, "queued": queued, "startup": startup, "steps": steps, "done": done, "rewards": rewards}


def _budget(n_envs: int, episodes: int, outputs: dict[str, list[str]]) -> dict:
    """CPU seconds per step of each part of an Async step, measured in this one process.

    A sub-env's episode (``step`` then the ``SAME_STEP`` reset: what a worker runs), the pipes'
    pickling both ways (``multiprocessing``'s pickler, the worker's message as Gymnasium 1.4's
    worker builds it) and the parent's merge of the sub-envs' infos (the vector env's
    ``_add_info``): the parent's part is serial, between the workers' parallel parts.
    """
    from multiprocessing.reduction import ForkingPickler

    env = VectorBenchEnv(task_order="random")
    _, info = env.reset(seed=20261201)
    serial = iter(range(1 << 62))
    cursor = {t: 0 for t in outputs}

    def action_for(task_id: str) -> str:
        pool = outputs[task_id]
        i = cursor[task_id]
        cursor[task_id] = (i + 1) % len(pool)
        k = pool[i].rfind("</svg>")
        return f"{pool[i][:k]}<!-- episode {next(serial)} -->{pool[i][k:]}"

    clock = time.process_time
    for _ in range(100):  # warm: every task's scorer and caches used once
        env.step(action_for(info["task_id"]))
        _, info = env.reset()
    actions, messages = [], []
    t0 = clock()
    for _ in range(episodes):
        action = action_for(info["task_id"])
        obs, reward, terminated, truncated, step_info = env.step(action)
        reset_obs, info = env.reset()
        actions.append(action)
        messages.append(((reset_obs, reward, terminated, truncated,
                          {"final_info": step_info, "final_obs": obs, **info}), True))
    episode = (clock() - t0) / episodes
    t0 = clock()
    sent = [ForkingPickler.dumps(("step", a)) for a in actions]
    t1 = clock()
    for b in sent:
        ForkingPickler.loads(b)
    t2 = clock()
    back = [ForkingPickler.dumps(m) for m in messages]
    t3 = clock()
    for b in back:
        ForkingPickler.loads(b)
    t4 = clock()
    fns = [partial(VectorBenchEnv) for _ in range(n_envs)]
    vec = SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)
    steps = episodes // n_envs
    t5 = clock()
    for k in range(steps):
        infos: dict = {}
        for j in range(n_envs):
            infos = vec._add_info(infos, messages[k * n_envs + j][0][4], j)
    t6 = clock()
    vec.close()
    per = 1 / episodes
    return {"episode": episode, "action_dumps": (t1 - t0) * per, "action_loads": (t2 - t1) * per,
            "result_dumps": (t3 - t2) * per, "result_loads": (t4 - t3) * per,
            "merge": (t6 - t5) / steps, "bytes": sum(map(len, back)) * per}


def _print_budget(b: dict, n: int) -> None:
    us = 1e6
    worker = b["episode"] + b["action_loads"] + b["result_dumps"]
    parent = n * (b["action_dumps"] + b["result_loads"]) + b["merge"]
    sync = n * b["episode"] + b["merge"]
    pickling = b["action_loads"] + b["result_dumps"]
    print(f"per-step budget, CPU us ({n} sub-envs, measured in one process):")
    print(f"  episode (step + reset) {b['episode'] * us:7.0f}   worker pickling {pickling * us:5.0f}"
          f"   ({b['bytes'] / 1024:.1f} KiB back per sub-env)")
    print(f"  parent, serial: unpickling {n * b['result_loads'] * us:5.0f}, "
          f"pickling actions {n * b['action_dumps'] * us:4.0f}, "
          f"info merge (_add_info) {b['merge'] * us:5.0f}  = {parent * us:5.0f}")
    print(f"  sync step {sync * us:6.0f}; async step with a free core per worker "
          f"{(worker + parent) * us:6.0f}: async / sync at most {sync / (worker + parent):.2f}x "
          "(before pipe wake-ups and the vector envs' own code)")


def _proc_cpu(pid: int) -> float:
    """utime + stime of a process, in seconds (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run_delay(pid: int) -> float:
    """Seconds a process has spent runnable but waiting for a core (Linux schedstat), or NaN."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=400, help="episodes timed per round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (median reported)")
    ap.add_argument("--envs", type=int, default=2, help="sub-environments (= Async workers)")
    ap.add_argument("--autoreset", choices=("same-step", "next-step"), default="same-step")
    ap.add_argument("--lazy-scorers", action="store_true",
                    help="baseline: no scorer preparation at env construction (each worker builds its own)")
    ap.add_argument("--cached", action="store_true",
                    help="cycle the published outputs unchanged (report-cache hits after one pass)")
    ap.add_argument("--budget", action="store_true",
                    help="also print the CPU budget of an Async step (in one process: load-proof)")
    ap.add_argument("--worker", choices=("sync", "async"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    mode = AutoresetMode.SAME_STEP if args.autoreset == "same-step" else AutoresetMode.NEXT_STEP
    if args.worker:
        if args.lazy_scorers:
            from vector_gym.rewards import spec

            spec.PREPARE_MAX_TASKS = 0
        print(json.dumps(_run(args.worker, args.envs, args.episodes, mode, _actions(), fresh=not args.cached)))
        return
    print(f"{args.envs} VectorBench envs, {args.episodes} episodes/round, autoreset {mode.value}, "
          f"scorers {'lazy (per worker)' if args.lazy_scorers else 'prepared before the fork'}, "
          f"outputs {'cycled unchanged (cache hits)' if args.cached else 'new every episode'}, "
          f"{os.cpu_count()} cores, load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    runs: dict[str, list[dict]] = {"sync": [], "async": []}
    for r in range(args.rounds):
        for kind in (("sync", "async") if r % 2 == 0 else ("async", "sync")):
            # a fresh process per round: no contender inherits the other's warm caches
            cmd = [sys.executable, __file__, "--worker", kind, "--episodes", str(args.episodes),
                   "--envs", str(args.envs), "--autoreset", args.autoreset]
            cmd += ["--lazy-scorers"] if args.lazy_scorers else []
            cmd += ["--cached"] if args.cached else []
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            runs[kind].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med, med_cpu = {}, {}
    for kind, rs in runs.items():
        med[kind] = statistics.median(x["eps"] for x in rs)
        med_cpu[kind] = statistics.median(x["eps_cpu"] for x in rs)
        per_round = ", ".join(f"{x['eps']:.0f}" for x in rs)
        wcpu = "+".join(f"{c:.2f}" for c in rs[0]["worker_cpu"]) or "-"
        print(
            f"  {kind:<5}: {med[kind]:7.1f} episodes/s wall (rounds: {per_round}), "
            f"{med_cpu[kind]:7.1f} per CPU-s of the busiest process; {rs[0]['steps']} step calls for "
            f"{rs[0]['done']} episodes; CPU s parent {rs[0]['cpu']:.2f}, workers {wcpu}; "
            f"wall {rs[0]['wall']:.2f} s; start-up {statistics.median(x['startup'] for x in rs) * 1e3:.0f} ms"
        )
        q = "+".join(f"{v:.2f}" for v in rs[0]["queued"])
        print(f"         waiting for a core (run queue, s): {q} (parent first, then the workers)")
    print(f"  async / sync: {med['async'] / med['sync']:.2f}x wall, {med_cpu['async'] / med_cpu['sync']:.2f}x CPU-bound"
          "  (issue 16 asks > 1 with 2 workers)")
    if args.budget:
        _print_budget(_budget(args.envs, args.episodes, _actions()), args.envs)


if __name__ == "__main__":
    main()
