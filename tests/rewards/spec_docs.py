"""Synthetic documents for the specification-reward tests (spec-reward.md §17, §18).

The reference suite builds small 200×100 documents; these follow the same pattern: one
gradient with a stop, a requested box, a protected circle that references the gradient and an
anonymous line. The target has ``box.x = 30``; the source (corrupted input) has ``x = 10``.
"""

from __future__ import annotations

from typing import Any

from vector_gym.tasks.vector_bench import task_from_vector_bench

TARGET = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">
  <defs>
    <linearGradient id="paint">
      <stop id="stop" offset="0" stop-color="#000000"/>
    </linearGradient>
  </defs>
  <rect id="box" x="30" y="10" width="40" height="30" fill="#6a1a1a"/>
  <circle id="keep" cx="150" cy="50" r="10" fill="url(#paint)"/>
  <line x1="0" y1="95" x2="200" y2="95" stroke="#333333"/>
</svg>"""

SOURCE = TARGET.replace('x="30"', 'x="10"')

X_EDIT = {"part": "box", "attribute": "x", "before": 10, "after": 30}


def sub(text: str, old: str, new: str) -> str:
    """Replace the single occurrence of ``old`` (fails loudly if it is not unique)."""
    assert text.count(old) == 1, (old, text.count(old))
    return text.replace(old, new)


def make_task(
    target: str = TARGET,
    source: str = SOURCE,
    edits: list[dict[str, Any]] | None = None,
    protected: list[str] | None = None,
    task_id: str = "synthetic",
):
    """Build a Vector-Bench task object (defaults: the x 10→30 edit, U = [keep])."""
    return task_from_vector_bench(
        {
            "task_id": task_id,
            "instruction": "Move the box back to where it belongs.",
            "initial_svg": source,
            "target_svg": target,
            "expected_diff": [X_EDIT] if edits is None else edits,
            "should_preserve": ["keep"] if protected is None else protected,
        }
    )
