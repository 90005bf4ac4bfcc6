"""The bundled Vector-Bench documents the corpus-wide equivalence tests read (test helper)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def vector_bench_texts() -> list[str]:
    """Every published output (``""`` for a missing one) of ``tests/data/outcomes_sv001_020``,
    then each bundled task's source and target, in file order."""
    texts = []
    with gzip.open(ROOT / "tests" / "data" / "outcomes_sv001_020.jsonl.gz", "rt", encoding="utf-8") as fh:
        texts += [json.loads(line)["produced_svg"] or "" for line in fh if line.strip()]
    tasks = ROOT / "vector_gym" / "tasks" / "data" / "vector_bench" / "tasks_sv001_020.jsonl.gz"
    with gzip.open(tasks, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                t = json.loads(line)
                texts += [t["initial_svg"], t["target_svg"]]
    return texts
