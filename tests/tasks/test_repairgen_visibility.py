"""The incremental visibility render draws exactly what a whole render through render_many draws."""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

import vector_gym.tasks.repairgen_visibility as vis
from vector_gym.svg.parse import parse_svg
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator


def test_spliced_renders_equal_whole_renders(monkeypatch):
    """Every trial drawn by the splice is pixel-identical to render_many on the whole trial."""
    original = vis._spliced
    seen: Counter = Counter()
    ops: Counter = Counter()

    def checked(prep, form, trial, part, new):
        whole = copy.deepcopy(trial) if trial is not None else None
        before = vis.to_svg_bytes(form.root)
        img = original(prep, form, trial, part, new)
        assert vis.to_svg_bytes(form.root) == before  # the cached render form is restored
        if img is None:
            seen["declined"] += 1
            return None
        if whole is None:  # part deleted from the clean scene
            whole = copy.deepcopy(prep.root)
            hit = vis._BY_ID(whole, i=part)[0]
            hit.getparent().remove(hit)
        ref = vis.render_whole(whole, prep)
        assert ref is not None
        np.testing.assert_array_equal(img, ref, err_msg=f"{prep.source.source_id} {part}")
        seen["new" if new else ("deleted" if trial is None or not vis._BY_ID(trial, i=part) else "changed")] += 1
        return img

    monkeypatch.setattr(vis, "_spliced", checked)
    gen = RepairGenerator(RepairGenConfig(split="all"), seed=3)
    for i in range(120):
        t = gen[i]
        ops.update(t.meta()["operators"])
    assert seen["changed"] >= 100 and seen["new"] >= 5 and seen["deleted"] >= 5, seen
    assert seen["declined"] <= seen["changed"] // 20, seen
    assert len(ops) == 9, ops  # every operator went through the check


@pytest.mark.parametrize(
    ("body", "plain"),
    [
        ('<g fill="red"><rect id="a" width="4" height="4"/><circle id="b" r="2"/></g>', True),
        ('<title>t</title><path id="p" d="M0 0 L4 4" style="stroke:blue"/>', True),
        ('<defs><linearGradient id="g"/></defs><rect fill="url(#g)" width="4" height="4"/>', False),
        ('<rect id="r" width="4" height="4"/><use href="#r" x="5"/>', False),
        ('<style>rect{fill:red}</style><rect width="4" height="4"/>', False),
        ('<rect width="4" height="4" paint-order="stroke"/>', False),
        ('<text>hi</text>', False),
    ],
)
def test_plain_scene_verdict(body, plain):
    root = parse_svg(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">{body}</svg>')
    assert vis.plain_scene(root) is plain
