"""The incremental visibility render draws exactly what a whole render through render_many draws."""

from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import pytest

import vector_gym.tasks.repairgen as rg
import vector_gym.tasks.repairgen_visibility as vis
from vector_gym.svg.parse import parse_svg
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator


def test_spliced_renders_equal_whole_renders(monkeypatch):
    """Every trial drawn by the splice is pixel-identical to render_many on the whole trial, and
    every trial decided by the footprint bound instead changes fewer pixels than the bound says
    (so fewer than the visibility threshold)."""
    original = vis._spliced
    real_fraction = rg.changed_fraction
    seen: Counter = Counter()
    ops: Counter = Counter()
    last: dict = {}

    def spliced(prep, form, trial, part, new, at_least=0.0):
        before = vis.to_svg_bytes(form.root)
        last["img"] = img = original(prep, form, trial, part, new, at_least)
        assert vis.to_svg_bytes(form.root) == before  # the cached render form is restored
        return img

    def checked(prep, trial, part, new=(), index=None, whole=None, at_least=0.0):
        last.clear()
        frac = real_fraction(prep, trial, part, new, index, whole=whole, at_least=at_least)
        if "img" not in last:
            return frac  # a scene that is not plain: drawn whole
        if last["img"] is None:
            seen["declined"] += 1
            return frac
        if whole is not None:
            full = whole()
            kind = "new" if new else "deleted" if not vis._BY_ID(full, i=part) else "changed"
        else:  # part deleted from the clean scene
            full = copy.deepcopy(prep.root)
            hit = vis._BY_ID(full, i=part)[0]
            hit.getparent().remove(hit)
            kind = "deleted"
        ref = vis.render_whole(full, prep)
        assert ref is not None
        if isinstance(last["img"], float):  # decided by the bound, not drawn
            moved = np.abs(ref.astype(int) - prep.image.astype(int)).max(axis=2) > vis.CHANGED_LEVEL
            exact = np.count_nonzero(moved) / moved.size
            assert exact <= frac < at_least, (prep.source.source_id, part, exact, frac)
            seen["bounded"] += 1
            return frac
        np.testing.assert_array_equal(last["img"], ref, err_msg=f"{prep.source.source_id} {part}")
        seen[kind] += 1
        return frac

    monkeypatch.setattr(vis, "_spliced", spliced)
    monkeypatch.setattr(rg, "changed_fraction", checked)
    gen = RepairGenerator(RepairGenConfig(split="all"), seed=3)
    for i in range(120):
        ops.update(gen[i].meta()["operators"])
    assert seen["changed"] >= 100 and seen["new"] >= 5 and seen["deleted"] >= 5, seen
    assert seen["bounded"] >= 40, seen
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
