"""Reproduce the "Original" and "Ground Truth" rows of SVGEditBench V2 Table 1.

Runs the identity policy (output = before SVG) and the oracle (output = after SVG) over
all 1,683 bundled triplets and prints MSE, DINO, CLIPScore, Chamfer and the two error
rates per renderer. Paper values (SVGEditBench V2, arXiv:2502.19453, Table 1):
Original MSE 0.061, DINO 0.897, CLIPScore 26.882, Chamfer 2.584e3; Ground Truth 0, 1,
27.492, 0. DINO and CLIPScore need the weights in the local cache (or a local directory
given with --dino/--clip); otherwise they print as None.

Usage::

    python benchmarks/svgeditbench_v2_rows.py [--backends cairosvg skia] [--limit N] [--json]

Rendering 2 x 1,683 images with cairosvg takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import time

from vector_gym.rewards.raster import RasterScorer, summarize_reports
from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

PAPER = {
    "identity": {"mse": 0.061, "dino": 0.897, "clipscore": 26.882, "chamfer": 2.584e3},
    "oracle": {"mse": 0.0, "dino": 1.0, "clipscore": 27.492, "chamfer": 0.0},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", nargs="+", default=["cairosvg", "skia"])
    ap.add_argument("--limit", type=int, default=None, help="first N triplets only")
    ap.add_argument("--dino", default="facebook/dinov2-giant")
    ap.add_argument("--clip", default="openai/clip-vit-base-patch32")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--processes", type=int, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tasks = load_svgeditbench_v2()[: args.limit]
    rows = []
    for backend in args.backends:
        scorer = RasterScorer(
            "v2", backend=backend, dino_model=args.dino, clip_model=args.clip, device=args.device, processes=args.processes
        )
        for policy in ("identity", "oracle"):
            outputs = [t.source_svg if policy == "identity" else t.target_svg for t in tasks]
            t0 = time.perf_counter()
            reports = []
            for i in range(0, len(tasks), 128):
                reports += scorer.score_many(tasks[i : i + 128], outputs[i : i + 128], extracted=True)
            summary = summarize_reports(reports)
            summary.update(backend=backend, policy=policy, seconds=round(time.perf_counter() - t0, 1))
            rows.append(summary)
            if not args.json:
                paper = PAPER[policy]
                print(
                    f"{policy:8s} {backend:8s} n={summary['n']}  MSE {summary['mse']:.4f} (paper {paper['mse']})  "
                    f"DINO {summary['dino']}  CLIPScore {summary['clipscore']}  "
                    f"Chamfer {summary['chamfer']:.1f} over {summary['n_chamfer']} (paper {paper['chamfer']})  "
                    f"extraction {summary['extraction_error']:.3f} parsing {summary['parsing_error']:.3f}  "
                    f"[{summary['seconds']} s]",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
