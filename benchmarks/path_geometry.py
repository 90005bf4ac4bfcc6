"""Path geometry speed: vector_gym.svg (parse + 129 samples + D) against svg.path 7.1.

For every distinct ``d`` pair of the bundled Vector-Bench requested path edits (before, after) it
times, per path, in the same run:

- ``ours/refine``: uncached :func:`parse_path_data` + cold :func:`sample_path` (the REFINE segment
  cache cleared) + one :func:`path_distance`; the parity-exact route;
- ``ours/gauss``: the same with adaptive Gauss–Legendre lengths (``method="gauss"``);
- ``ours/cached``: :func:`samples_for` hit + :func:`path_distance` (the steady state: outputs
  mostly repeat the task's path strings);
- ``svg.path``: ``parse_path`` + ``point(j/128)`` for j = 0…128 (its own length cache, as the
  reference evaluator uses it) + the same distance written in Python, as a reference evaluator
  would compute it.

It also reports the largest |D_ours − D_svg.path| over the pairs. svg.path is a benchmark/test
dependency only (``pip install svg.path==7.1``); the package never imports it.

Usage::

    .venv/bin/python benchmarks/path_geometry.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np


def _ref_samples(svgpath, d: str):
    p = svgpath.parse_path(d)
    return [p.point(j / 128) for j in range(129)]


def _ref_distance(a, b) -> float:
    na = [min(abs(x - y) for y in b) for x in a]
    nb = [min(abs(y - x) for x in a) for y in b]
    v = sorted(na + nb)
    return max(math.sqrt(sum(x * x for x in v) / len(v)), v[245])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best is kept)")
    args = ap.parse_args()

    import svg.path as svgpath

    from vector_gym.svg import geometry as G
    from vector_gym.svg.path_data import parse_path_data
    from vector_gym.tasks.vector_bench import load_vector_bench

    pairs = sorted(
        {(e.before, e.after) for t in load_vector_bench() for e in t.requested_edits if e.attribute == "d"}
    )
    print(f"{len(pairs)} distinct (before, after) path pairs from the bundled Vector-Bench tasks")

    def best(fn) -> float:
        out = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return min(out)

    rows = {"ours/refine": [], "ours/gauss": [], "ours/cached": [], "svg.path": []}
    worst = 0.0
    for before, after in pairs:
        target = G.samples_for(after)

        def ours(method, d=before, target=target):
            G._REFINE_CACHE.clear()
            s = G.sample_path(parse_path_data(d), method)
            return G.path_distance(s, target)

        rows["ours/refine"].append(best(lambda: ours("refine")))
        rows["ours/gauss"].append(best(lambda: ours("gauss")))
        G.samples_for(before)
        rows["ours/cached"].append(best(lambda d=before, t=target: G.path_distance(G.samples_for(d), t)))
        ref_target = _ref_samples(svgpath, after)
        rows["svg.path"].append(best(lambda d=before, t=ref_target: _ref_distance(_ref_samples(svgpath, d), t)))
        d_ours = G.path_distance(G.samples_for(before), target)
        d_ref = _ref_distance(_ref_samples(svgpath, before), ref_target)
        worst = max(worst, abs(d_ours - d_ref))

    ref_med = statistics.median(rows["svg.path"])
    print(f"{'route':<12} {'median ms/path':>15} {'max ms':>9} {'speed-up':>9}")
    for name, ts in rows.items():
        med = statistics.median(ts)
        print(f"{name:<12} {med * 1e3:>15.3f} {max(ts) * 1e3:>9.3f} {ref_med / med:>8.1f}x")
    print(f"max |D_ours(refine) - D_svg.path| = {worst:.3e}")
    n = np.array([len(parse_path_data(b)) for b, _ in pairs])
    print(f"segments per path: median {int(np.median(n))}, max {int(n.max())}")


if __name__ == "__main__":
    main()
