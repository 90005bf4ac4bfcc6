"""RepairGen task identity across a change: hash every field of 5,700 tasks of eight configurations.

A speed change to the generator must leave every generated task as it was (issue 16 item 5).
This hashes, per task, its id, family, instruction, source and target SVG, requested edits,
protected ids and metadata (SHA-256 of each field in turn), for eight configurations: the
default (2,400 tasks) and another seed of it (400), dense (1-9 repairs, 700), geometric
visibility (1,200), 1-5 repairs (400), a Vector-Bench test split with up to 4 repairs (200), an
operator subset (200) and half magnitude (200). One line per task: ``config seed idx digest``.

Usage (run the tree before the change first, then the one after)::

    PYTHONPATH=/path/to/before .venv/bin/python benchmarks/repairgen_identity.py --out /tmp/before.txt
    PYTHONPATH=$PWD .venv/bin/python benchmarks/repairgen_identity.py --compare /tmp/before.txt

``--compare`` prints ``identical (N tasks)`` and exits 0, or the first differing tasks and exits 1.
``--quick`` hashes a fifth of each configuration (at least 40 tasks).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

CONFIGS = [  # name, RepairGenConfig fields, seed, first idx, tasks
    ("default", {"split": "all"}, 0, 0, 2400),
    ("default-s7", {}, 7, 50, 400),
    ("dense", {"split": "all", "max_repairs": 9}, 0, 0, 700),
    (
        "geometric",
        {"split": "all", "visibility": "geometric", "min_visible_fraction": 0.01},
        0,
        0,
        1200,
    ),
    ("mixed", {"split": "all", "min_repairs": 1, "max_repairs": 5}, 3, 0, 400),
    ("vb-test", {"sources": ("vector_bench",), "split": "test", "max_repairs": 4}, 5, 0, 200),
    ("ops", {"operators": ("displace", "delete"), "max_repairs": 6}, 1, 0, 200),
    ("mag", {"split": "all", "magnitude": 0.5, "max_repairs": 2}, 2, 0, 200),
]


def task_lines(quick: bool = False) -> list[str]:
    """``config seed idx sha256`` of every task of :data:`CONFIGS`."""
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator

    out = []
    for name, kw, seed, start, n in CONFIGS:
        if quick:
            n = max(n // 5, 40)
        gen = RepairGenerator(RepairGenConfig(**kw), seed=seed)
        for i in range(start, start + n):
            t = gen[i]
            h = hashlib.sha256()
            for part in (
                t.task_id,
                t.family,
                t.instruction,
                t.source_svg,
                t.target_svg,
                repr(t.requested_edits),
                repr(t.protected_ids),
                repr(t.metadata),
            ):
                h.update(part.encode("utf-8"))
                h.update(b"\0")
            out.append(f"{name} {seed} {i} {h.hexdigest()}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out", "--write", dest="write", metavar="FILE", help="write the hashes of this tree")
    group.add_argument("--compare", metavar="FILE", help="compare this tree with a written file")
    ap.add_argument("--quick", action="store_true", help="a fifth of each configuration")
    args = ap.parse_args()
    t0 = time.process_time()
    lines = task_lines(args.quick)
    spent = f"{len(lines)} tasks, {time.process_time() - t0:.1f} s CPU"
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {spent}")
        return
    with open(args.compare, encoding="utf-8") as f:
        before = f.read().split("\n")
    if args.quick:
        known = set(before)
        differ = [x for x in lines if x not in known]
    else:
        differ = [x for x, y in zip(lines, before, strict=False) if x != y]
        if len(before) - 1 != len(lines):
            differ.append(f"(task count {len(lines)} against {len(before) - 1})")
    if differ:
        print(f"DIFFER: {len(differ)} of {spent}")
        print("\n".join(differ[:10]))
        sys.exit(1)
    print(f"identical ({spent})")


if __name__ == "__main__":
    main()
