"""Full specification reports of a fixed input set, floats by their hex form: a speed change's proof.

A change meant only to make :mod:`vector_gym.rewards.spec` faster must leave every report field
of every input exactly as it was. This script scores a fixed, seeded input set in both modes
(``parity=False`` and ``parity=True``) and writes one line per (input, mode): the whole report,
every field of every check included, with each float written as ``float.hex`` (so a last-bit
difference shows, and NaN and the infinities are kept apart). Run it once on the old checkout and
once on the new, and compare::

    PYTHONPATH=/path/to/main python benchmarks/spec_report_digest.py --out /tmp/before.jsonl
    PYTHONPATH=$PWD python benchmarks/spec_report_digest.py --compare /tmp/before.jsonl

The input set (the bundled data of *this* checkout, so both runs read the same texts):

- the 659 published outcomes with a produced SVG (``tests/data/outcomes_sv001_020.jsonl.gz``);
- every task's source and target (20 tasks, 40 documents);
- mutants of all of them but the 117 empty outputs (default 4 per outcome, 20 per task
  document, ``--seed``): perturbed
  numbers in attributes and path data, colours swapped, attributes dropped, added or renamed,
  ids changed, elements deleted, duplicated, wrapped in groups or nested past the depth limit,
  references added, whitespace and entity spellings changed, and random byte-level edits (the
  alphabet of ``tests/rewards/test_hostile.py``'s fuzz). 2,968 mutants.

``--compare`` exits 1 and prints the first differing lines when any report differs, else 0.
Scoring is done in one process in the order above (the scorers' memos are exercised as in
``benchmarks/score_throughput.py``), after the per-task scorers are built.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz"

_NUM = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ATTR = re.compile(r'(\s)([A-Za-z_:][-\w:.]*)="([^"]*)"')
_ELEM = re.compile(r"<(path|rect|circle|ellipse|line|polygon|polyline|use|text|g)\b[^<>]*/>")
_OPEN = re.compile(r"<(?!/|!|\?)([A-Za-z_][-\w:.]*)\b")
_COLORS = ["red", "#ff0000", "#F00", "rgb(255,0,0)", "none", "currentColor", "#123456",
           "transparent", "hsl(120,50%,50%)", "url(#g1)", "#abcd", "Blue"]  # fmt: skip
_FUZZ = ['"', "<", ">", "/", "=", " ", "#", "url(#", ")", ";", ":", "nan", "1e999", "-", ".",
         ",", "M", "Z", "A", "0", "1", "\u00a0", "&amp;", 'id="x" ', "<g>", "</g>", 'href="#']  # fmt: skip


def _hexed(value):
    """``value`` with every float as its hex form, dataclasses as dicts, tuples as lists."""
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return {"f": value.hex()}
    if is_dataclass(value):
        return {f.name: _hexed(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, list | tuple):
        return [_hexed(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _hexed(v) for k, v in value.items()}
    return {"repr": repr(value)}


def _perturb_numbers(text: str, rng: random.Random, k: int) -> str:
    spans = [m.span() for m in _NUM.finditer(text)]
    if not spans:
        return text
    for a, b in sorted(rng.sample(spans, min(k, len(spans))), reverse=True):
        old = text[a:b]
        try:
            x = float(old)
        except ValueError:
            continue
        if x - x != 0.0:  # inf or nan: left as written
            continue
        new = rng.choice([x + rng.choice([0.001, 0.5, 1, 3, 40]), x * rng.choice([0.9, 1.01, 2]),
                          -x, 0.0, round(x), x + 1e-7])  # fmt: skip
        text = text[:a] + repr(new) + text[b:]
    return text


def mutate(text: str, rng: random.Random) -> str:
    """One seeded mutation of an SVG text (structural, attribute-level or byte-level)."""
    kind = rng.randrange(14)
    attrs = list(_ATTR.finditer(text))
    elems = list(_ELEM.finditer(text))
    if kind == 0:
        return _perturb_numbers(text, rng, rng.randint(1, 3))
    if kind == 1 and attrs:  # one attribute's value: numbers nudged (path data, coordinates)
        m = rng.choice(attrs)
        a, b = m.span(3)
        return text[:a] + _perturb_numbers(m.group(3), rng, rng.randint(1, 4)) + text[b:]
    if kind == 2 and attrs:  # a colour
        m = rng.choice(attrs)
        a, b = m.span(3)
        return text[:a] + rng.choice(_COLORS) + text[b:]
    if kind == 3 and attrs:  # drop an attribute
        m = rng.choice(attrs)
        return text[: m.start()] + " " + text[m.end() :]
    if kind == 4:  # add an attribute to some start tag
        opens = list(_OPEN.finditer(text))
        if opens:
            m = rng.choice(opens)
            extra = rng.choice(['opacity="0.5"', 'fill="red"', 'transform="translate(1 2)"',
                                'style="stroke:blue;stroke-width:2"', 'data-x="1"', 'id="zz"',
                                'class="c"', 'visibility="hidden"', 'x="nan"', 'clip-path="url(#a)"'])  # fmt: skip
            return text[: m.end()] + " " + extra + text[m.end() :]
    if kind == 5 and elems:  # delete an element
        m = rng.choice(elems)
        return text[: m.start()] + text[m.end() :]
    if kind == 6 and elems:  # duplicate an element
        m = rng.choice(elems)
        return text[: m.end()] + m.group(0) + text[m.end() :]
    if kind == 7 and elems:  # wrap an element in a group (maybe with a transform)
        m = rng.choice(elems)
        g = rng.choice(["<g>", '<g transform="scale(1)">', '<g opacity="1">', '<g id="wrap">'])
        return text[: m.start()] + g + m.group(0) + "</g>" + text[m.end() :]
    if kind == 8 and elems:  # nest deep (around the depth limit)
        m = rng.choice(elems)
        n = rng.choice([3, 60, 126, 127, 128, 129, 200])
        return text[: m.start()] + "<g>" * n + m.group(0) + "</g>" * n + text[m.end() :]
    if kind == 9 and attrs:  # rename an id or an attribute
        m = rng.choice(attrs)
        a, b = m.span(2)
        new = rng.choice(["id", "fill", "stroke", "d", "xlink:href", "href", "points", "r", "cx"])
        return text[:a] + new + text[b:]
    if kind == 10:  # a reference: a <use> of an existing id, or a gradient
        ids = re.findall(r'\bid="([^"]+)"', text)
        add = (f'<use href="#{rng.choice(ids)}" x="1"/>' if ids and rng.random() < 0.7 else
               '<defs><linearGradient id="g1"><stop offset="0" stop-color="red"/></linearGradient></defs>')  # fmt: skip
        i = text.rfind("</svg>")
        return text[:i] + add + text[i:] if i >= 0 else text + add
    if kind == 11:  # whitespace, entity and quote spellings
        choice = rng.randrange(4)
        if choice == 0:
            return text.replace(" ", "  \n", rng.randint(1, 30))
        if choice == 1:
            return text.replace('"', "'")
        if choice == 2:
            return text.replace(",", " , ", rng.randint(1, 30))
        return text.replace(">", ">\n", rng.randint(1, 40))
    if kind == 12 and elems:  # change an element's tag
        m = rng.choice(elems)
        a, b = m.span(1)
        return text[:a] + rng.choice(["rect", "path", "circle", "g", "foo", "svg"]) + text[b:]
    for _ in range(rng.randint(1, 4)):  # byte-level fuzz
        if not text:
            break
        i = rng.randrange(len(text))
        tok = rng.choice(_FUZZ)
        text = rng.choice([text[:i] + tok + text[i:], text[:i] + text[i + rng.randint(1, 20) :]])
    return text


def inputs(seed: int, per_outcome: int, per_task_doc: int):
    """The (task id, produced text, label) triples, in scoring order."""
    from vector_gym.tasks.vector_bench import load_vector_bench

    tasks = load_vector_bench()
    with gzip.open(OUTCOMES, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    base = [(r["task_id"], r["produced_svg"], f"outcome:{i}") for i, r in enumerate(rows)
            if r["produced_svg"] is not None]  # fmt: skip
    for t in tasks:
        base.append((t.task_id, t.source_svg, f"source:{t.task_id}"))
        base.append((t.task_id, t.target_svg, f"target:{t.task_id}"))
    yield from base
    rng = random.Random(seed)
    for tid, text, label in base:
        n = per_outcome if label.startswith("outcome:") else per_task_doc
        if not text.strip():  # 117 published outputs are empty: their mutants would be too
            continue
        for j in range(n):
            yield tid, mutate(text, rng), f"{label}:m{j}"


def digest_lines(seed: int, per_outcome: int, per_task_doc: int):
    from vector_gym.rewards.spec import SpecScorer
    from vector_gym.tasks.vector_bench import load_vector_bench

    tasks = {t.task_id: t for t in load_vector_bench()}
    items = list(inputs(seed, per_outcome, per_task_doc))
    for parity in (False, True):
        scorers = {tid: SpecScorer(t, parity=parity) for tid, t in tasks.items()}
        for tid, text, label in items:
            report = scorers[tid].score(text)
            body = json.dumps(_hexed(report), sort_keys=True, ensure_ascii=True)
            sha = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            yield f"{label} parity={parity} input={sha} {body}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the digest lines here")
    ap.add_argument("--compare", type=Path, help="compare against a digest written by --out")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--per-outcome", type=int, default=4, help="mutants per non-empty published outcome")
    ap.add_argument("--per-task-doc", type=int, default=20, help="mutants per task source/target")
    args = ap.parse_args()
    lines = list(digest_lines(args.seed, args.per_outcome, args.per_task_doc))
    n_mut = sum(":m" in ln.split(" ", 1)[0] for ln in lines)
    print(f"{len(lines)} reports ({len(lines) - n_mut} unmutated, {n_mut} mutated; both modes)")
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.compare:
        old = args.compare.read_text(encoding="utf-8").splitlines()
        if len(old) != len(lines):
            print(f"DIFFERENT: {len(old)} lines before, {len(lines)} now")
            return 1
        bad = [(a, b) for a, b in zip(old, lines, strict=True) if a != b]
        if bad:
            print(f"DIFFERENT: {len(bad)} of {len(lines)} reports differ; first:")
            for a, b in bad[:3]:
                print(" before:", a[:1500], "\n now:   ", b[:1500])
            return 1
        print(f"identical: all {len(lines)} reports byte-identical (floats as hex)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
