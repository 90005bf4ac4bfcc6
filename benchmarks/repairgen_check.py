"""RepairGen at scale: the issue-5 guarantees checked over N seeded tasks (default 10,000).

For every task ``idx`` in ``0..N-1`` of ``seed`` (config: both bundled source sets, 1-9 repairs,
``split="all"``) it checks, with the real specification reward (:mod:`vector_gym.rewards.spec`):

- the oracle (the target) scores 1;
- identity (the unchanged source) scores 0, and no single corrupted check passes (spec §8.2);
- the target plus one protected mutation (a ``data-`` attribute on a member of U) scores 0;
- the instruction holds no digit, hex code, requested attribute name, non-word id or task id
  (:func:`vector_gym.tasks.repairgen_words.instruction_leaks`);
- visibility: each corruption on its own (the source with every other corruption repaired by a
  patch, :mod:`vector_gym.svg.patch`) against the target, both rendered at 224×224 with
  :func:`vector_gym.render.render_many`; a pixel counts as changed when a channel moves by more
  than 8/255; the corruption is visible when at least 0.5% of pixels changed.

Usage::

    .venv/bin/python benchmarks/repairgen_check.py [--n 10000] [--seed 0] [--processes 2]
        [--visibility render|geometric]

Prints one JSON object with the counts (and the first few failing task ids per check).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import groupby

import numpy as np

CONFIG = {"split": "all", "min_repairs": 1, "max_repairs": 9}
CHANGED_LEVEL = 8  # 0-255 channel difference that counts as a changed pixel
VISIBLE_FRACTION = 0.005  # issue 5: >= 0.5% of pixels at 224 px


def _mutate(task) -> str:
    from lxml import etree

    from vector_gym.svg.parse import parse_svg

    root = parse_svg(task.target_svg)
    u = task.protected_ids[len(task.protected_ids) // 2]
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id") == u:
            el.set("data-mutated", "yes")
            break
    return etree.tostring(root, encoding="unicode")


def _single_corruptions(task) -> list[str]:
    """Per corruption: the source with every *other* corruption repaired (a patch by id)."""
    from vector_gym.svg.patch import apply_patch, diff_patch

    fix = diff_patch(task.source_svg, task.target_svg)  # source -> target, by id

    def concerns(e, part):
        return (
            e.get("set") == part or e.get("delete") == part or f'id="{part}"' in e.get("insert", "")
        )

    out = []
    for part, edits in groupby(task.requested_edits, key=lambda e: e.part):
        edits = list(edits)
        if edits[0].attribute == "exists" and edits[0].after is True:
            # a deleted element: restore everything, then delete it again (anchors stay valid)
            script = [*fix, {"delete": part}]
        else:
            script = [e for e in fix if not concerns(e, part)]
        res = apply_patch(task.source_svg, script)
        out.append(res.svg if res.ok else task.target_svg)
    return out


def _check_chunk(args):
    seed, start, stop, visibility = args
    from vector_gym.rewards.spec import score
    from vector_gym.svg.parse import parse_svg
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator
    from vector_gym.tasks.repairgen_words import instruction_leaks

    gen = RepairGenerator(RepairGenConfig(**CONFIG, visibility=visibility), seed=seed)
    rows = []
    for idx in range(start, stop):
        t = gen[idx]
        oracle = score(t, t.target_svg).reward
        ident = score(t, t.source_svg)
        mutated = score(t, _mutate(t)).reward
        ids = [
            el.get("id")
            for el in parse_svg(t.target_svg).iter()
            if isinstance(el.tag, str) and el.get("id")
        ]
        ids += [e.part for e in t.requested_edits]
        leaks = instruction_leaks(
            t.instruction, ids, [e.attribute for e in t.requested_edits], t.task_id
        )
        rows.append(
            {
                "task_id": t.task_id,
                "oracle": oracle,
                "identity": ident.reward,
                "identity_any_check_passed": any(c.passed for c in ident.checks),
                "identity_ucr": ident.unintended_change_rate,
                "mutation": mutated,
                "leaks": leaks,
                "repairs": t.meta()["difficulty"],
                "ops": t.meta()["operators"],
                "singles": _single_corruptions(t),
                "target": t.target_svg,
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=250)
    ap.add_argument("--visibility", default="render", choices=("render", "geometric"))
    args = ap.parse_args()

    from vector_gym.render import render_many

    t0 = time.perf_counter()
    chunks = [
        (args.seed, s, min(s + args.chunk, args.n), args.visibility)
        for s in range(0, args.n, args.chunk)
    ]
    totals = {
        "tasks": 0,
        "oracle_one": 0,
        "identity_zero": 0,
        "identity_no_check_passed": 0,
        "identity_ucr_zero": 0,
        "mutation_zero": 0,
        "instruction_clean": 0,
        "corruptions": 0,
        "visible": 0,
        "render_failures": 0,
    }
    failing: dict[str, list[str]] = {
        k: [] for k in ("oracle", "identity", "mutation", "leak", "invisible")
    }
    by_op: dict[str, list[int]] = {}
    fractions = []
    with ProcessPoolExecutor(args.processes) as pool:
        for rows in pool.map(_check_chunk, chunks):
            targets = [r["target"] for r in rows]
            singles = [s for r in rows for s in r["singles"]]
            batch = render_many(targets + singles, size=(224, 224), processes=args.processes)
            totals["render_failures"] += int((~batch.ok).sum())
            imgs = batch.images.astype(np.int16)
            k = len(targets)
            for i, r in enumerate(rows):
                totals["tasks"] += 1
                totals["oracle_one"] += r["oracle"] == 1.0
                totals["identity_zero"] += r["identity"] == 0.0
                totals["identity_no_check_passed"] += not r["identity_any_check_passed"]
                totals["identity_ucr_zero"] += r["identity_ucr"] == 0.0
                totals["mutation_zero"] += r["mutation"] == 0.0
                totals["instruction_clean"] += not r["leaks"]
                for name, bad in (
                    ("oracle", r["oracle"] != 1.0),
                    (
                        "identity",
                        r["identity"] != 0.0
                        or r["identity_any_check_passed"]
                        or r["identity_ucr"] != 0.0,
                    ),
                    ("mutation", r["mutation"] != 0.0),
                    ("leak", bool(r["leaks"])),
                ):
                    if bad and len(failing[name]) < 10:
                        failing[name].append(r["task_id"])
                for j, op in enumerate(r["ops"]):
                    diff = np.abs(imgs[k] - imgs[i]).max(axis=-1) > CHANGED_LEVEL
                    frac = float(diff.mean())
                    k += 1
                    vis = frac >= VISIBLE_FRACTION
                    fractions.append(frac)
                    totals["corruptions"] += 1
                    totals["visible"] += vis
                    by_op.setdefault(op, [0, 0])
                    by_op[op][0] += vis
                    by_op[op][1] += 1
                    if not vis and len(failing["invisible"]) < 10:
                        failing["invisible"].append(f"{r['task_id']}#{j}:{op}:{frac:.4f}")
    elapsed = time.perf_counter() - t0
    out = {
        **totals,
        "visible_rate": round(totals["visible"] / max(totals["corruptions"], 1), 4),
        "visible_rate_by_operator": {op: round(v / n, 4) for op, (v, n) in sorted(by_op.items())},
        "median_changed_fraction": round(float(np.median(fractions)), 4) if fractions else None,
        "failing_examples": failing,
        "seconds": round(elapsed, 1),
        "processes": args.processes,
        "config": {**CONFIG, "visibility": args.visibility},
        "seed": args.seed,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
