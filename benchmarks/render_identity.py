"""Pixel identity of the skia backends across a code change, on every bundled document.

A speed change to the render pipeline (the text lowering, the tree lowering, the prepared
text) must leave every pixel as it was. This script draws every distinct bundled document (the
corpora of :func:`render_conformance.load_corpus`: Vector-Bench sources and targets, the
SVGEditBench V2 emoji, the v1 answers; the published Vector-Bench outputs of
``tests/data/outcomes_sv001_020.jsonl.gz``; every ``.svg`` under ``tests/data/render`` and
``tests/data/normalise``) at each size with each skia backend, in this process, and writes one
BLAKE2b digest of the pixels (and the failure name, if any) per document, size and backend.

Run it once on the old tree with ``--out``, once on the new one with ``--compare``; the second
prints how many comparisons differ and lists the first of them (exit status 1 if any)::

    PYTHONPATH=/path/to/old python benchmarks/render_identity.py --out /tmp/old.json
    PYTHONPATH=$PWD python benchmarks/render_identity.py --compare /tmp/old.json

(Both runs read the documents from the tree this script is in, so they draw the same set.)
"""

from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from render_conformance import load_corpus  # noqa: E402


def bundled_documents() -> list[str]:
    """Every distinct bundled document, in a fixed order."""
    docs = [s for _label, s in load_corpus()]
    with gzip.open(ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                s = json.loads(line).get("produced_svg")
                if s:
                    docs.append(s)
    for pattern in ("tests/data/render/**/*.svg", "tests/data/normalise/**/*.svg"):
        for name in sorted(glob.glob(str(ROOT / pattern), recursive=True)):
            docs.append(Path(name).read_text(encoding="utf-8", errors="replace"))
    return list(dict.fromkeys(docs))


def digests(docs: list[str], sizes, backends) -> dict[str, str]:
    """``{"<doc index>/<size>/<backend>": "<error or ok>:<pixel digest>"}``, drawn in this process."""
    from vector_gym.render import backends as be

    out: dict[str, str] = {}
    for size in sizes:
        img = np.empty((size, size, 3), np.uint8)
        for backend in backends:
            be.clear_caches()
            for i, svg in enumerate(docs):
                img[...] = 0
                err, _drawn_by = be.draw_document(svg, img, backend=backend)
                h = hashlib.blake2b(img.tobytes(), digest_size=12).hexdigest()
                out[f"{i}/{size}/{backend}"] = f"{err or 'ok'}:{h}"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[72, 224, 512])
    ap.add_argument("--backends", nargs="+", default=["skia", "skia-strict"])
    ap.add_argument("--limit", type=int, default=0, help="only the first N documents (0: all)")
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", help="write the digests to this JSON file")
    group.add_argument("--compare", help="compare with the digests of this JSON file")
    args = ap.parse_args(argv)
    docs = bundled_documents()
    if args.limit:
        docs = docs[: args.limit]
    t0 = time.perf_counter()
    got = digests(docs, args.sizes, args.backends)
    print(f"{len(docs)} documents x {len(args.sizes)} sizes x {len(args.backends)} backends = "
          f"{len(got)} images in {time.perf_counter() - t0:.1f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(got, sort_keys=True))
        return 0
    old = json.loads(Path(args.compare).read_text())
    keys = sorted(set(got) & set(old), key=lambda k: tuple(int(p) if p.isdigit() else p for p in k.split("/")))
    diff = [k for k in keys if got[k] != old[k]]
    print(f"compared {len(keys)}: {len(keys) - len(diff)} identical, {len(diff)} differ "
          f"({len(set(got) ^ set(old))} keys in only one file)")
    for k in diff[:20]:
        i = int(k.split("/")[0])
        print(f"  {k}: {old[k]} -> {got[k]}  {docs[i][:100]!r}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
