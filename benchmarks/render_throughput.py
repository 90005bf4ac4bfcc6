"""Render throughput: images/s at 72, 224 and 512 px on the same corpus, in one run (issue 3).

Measured, on an evenly spaced sample of the bundled corpora (Vector-Bench, SVGEditBench V2 and
v1; see ``render_conformance.load_corpus``):

* ``pipeline x1`` / ``pipeline x2``: :func:`vector_gym.render.render_many` through a warm
  :class:`~vector_gym.render.RenderPool` of 1 or 2 worker processes (text pre-check, parse,
  normalise, skia, shared-memory RGB batch);
* ``pipeline in-proc``: the same work in this process (``processes=0``);
* ``raw skia``: ``skia.SVGDOM`` on the unmodified text onto a numpy-backed surface, in this
  process (no pre-check, no normaliser, no isolation);
* ``resvg``: resvg-py ``svg_to_bytes`` (PNG) + PNG decode, in this process (no maintained
  raw-pixel binding exists on PyPI);
* ``cairosvg``: ``svg2png`` + PNG decode, in this process.

Aims (issues 3 and 11): pipeline per core (``pipeline x1``: one worker) >= 2x resvg and >= 4x
cairosvg at 72, 224 and 512 px; >= 1.8x from 1 to 2 processes (the machine's core count bounds
the last one). The contenders run round-robin, best of ``--repeat``, so a loaded machine slows
them alike. The share of sampled documents that ``backend="skia"`` routes to resvg is printed.

Usage::

    .venv/bin/python benchmarks/render_throughput.py [--limit 300] [--sizes 72 224 512] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_conformance import load_corpus  # noqa: E402


def _raw_skia(svgs: list[bytes], size: int) -> None:
    import skia

    rgba = np.empty((size, size, 4), np.uint8)
    surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
    canvas = surface.getCanvas()
    out = np.empty((len(svgs), size, size, 3), np.uint8)
    for i, data in enumerate(svgs):
        canvas.clear(skia.ColorWHITE)
        dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
        if dom is not None:
            dom.setContainerSize(skia.Size(size, size))
            dom.render(canvas)
        out[i] = rgba[:, :, :3]


def _decode(png: bytes) -> np.ndarray:
    import skia

    image = skia.Image.MakeFromEncoded(skia.Data.MakeWithCopy(png))
    return image.toarray(colorType=skia.kRGBA_8888_ColorType)[:, :, :3]


def _resvg(svgs: list[str], size: int) -> None:
    import resvg_py

    for s in svgs:
        png = resvg_py.svg_to_bytes(
            svg_string=s, width=size, height=size, background="#ffffff", skip_system_fonts=True
        )
        _decode(bytes(png))


def _cairosvg(svgs: list[bytes], size: int) -> None:
    import cairosvg

    for s in svgs:
        png = cairosvg.svg2png(
            bytestring=s, output_width=size, output_height=size, background_color="white"
        )
        _decode(png)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=300, help="number of corpus SVGs (evenly spaced)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[72, 224, 512])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per measurement")
    ap.add_argument("--no-cairosvg", action="store_true")
    args = ap.parse_args(argv)

    from vector_gym.render import RenderPool, render_many

    corpus = [s for _, s in load_corpus()]
    step = max(1, len(corpus) // args.limit)
    svgs = corpus[::step][: args.limit]
    data = [s.encode("utf-8") for s in svgs]
    n = len(svgs)
    print(
        f"{n} SVGs (every {step}th of {len(corpus)}), {os.cpu_count()} CPUs, best of {args.repeat}"
    )
    routed = render_many(svgs, (16, 16), processes=0).drawn_by
    share = 100 * sum(d == "resvg" for d in routed) / max(1, n)
    print(f"routed to resvg by backend='skia': {share:.1f}% of the sample ({sum(d == 'resvg' for d in routed)} of {n})")
    pools = {k: RenderPool(k, memory_mb=2048) for k in (1, 2)}
    try:
        for pool in pools.values():  # warm: workers started and imports done
            pool.render(svgs[:4], (16, 16))
        for size in args.sizes:
            shape = (size, size)
            for pool in pools.values():
                pool.render(svgs, shape)  # grow the shared segment to this size first
            jobs = {
                f"pipeline x{k}": partial(pool.render, svgs, shape) for k, pool in pools.items()
            }
            jobs["pipeline in-proc"] = partial(render_many, svgs, shape, processes=0)
            jobs["raw skia"] = partial(_raw_skia, data, size)
            jobs["resvg"] = partial(_resvg, svgs, size)
            if not args.no_cairosvg:
                jobs["cairosvg"] = partial(_cairosvg, data, size)
            # Round-robin repeats, best per job: a slow spell on a shared machine then hurts
            # every job alike instead of one.
            best = dict.fromkeys(jobs, float("inf"))
            for _ in range(args.repeat):
                for key, fn in jobs.items():
                    t0 = time.perf_counter()
                    fn()
                    best[key] = min(best[key], time.perf_counter() - t0)
            r = {key: n / t for key, t in best.items()}
            print(f"\n{size} px (images/s)")
            for name, v in r.items():
                print(f"  {name:18s} {v:8.1f}")
            print(
                f"  ratio pipeline x1 / resvg     {r['pipeline x1'] / r['resvg']:.2f}  (aim >= 2)"
            )
            if "cairosvg" in r:
                print(
                    f"  ratio pipeline x1 / cairosvg  {r['pipeline x1'] / r['cairosvg']:.2f}  (aim >= 4)"
                )
            print(
                f"  ratio pipeline x2 / x1        {r['pipeline x2'] / r['pipeline x1']:.2f}  (aim >= 1.8 on >= 2 free cores)"
            )
            print(
                f"  ratio in-proc / raw skia      {r['pipeline in-proc'] / r['raw skia']:.2f}  (cost of check + normalise)"
            )
    finally:
        for pool in pools.values():
            pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
