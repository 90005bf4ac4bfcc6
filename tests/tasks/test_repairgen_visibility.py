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


def _check_splice(monkeypatch, config, count):
    """Generate ``count`` tasks of ``config`` with every spliced trial checked against a whole
    render (pixel-identical) and every bounded one against its exact share; (seen, operators)."""
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
    gen = RepairGenerator(config, seed=3)
    for i in range(count):
        ops.update(gen[i].meta()["operators"])
    return seen, ops


def test_spliced_renders_equal_whole_renders(monkeypatch):
    """Every trial drawn by the splice is pixel-identical to render_many on the whole trial, and
    every trial decided by the footprint bound instead changes fewer pixels than the bound says
    (so fewer than the visibility threshold)."""
    seen, ops = _check_splice(monkeypatch, RepairGenConfig(split="all"), 120)
    assert seen["changed"] >= 100 and seen["new"] >= 5 and seen["deleted"] >= 5, seen
    assert seen["bounded"] >= 40, seen
    assert seen["declined"] <= seen["changed"] // 20, seen
    assert len(ops) == 9, ops  # every operator went through the check


def _layered_scene(rng) -> str:
    """A plain scene of groups with opacity (down to 0.05), blend modes and filter functions skia
    leaves undrawn, nested viewports, and shapes down to opacity 0.004 (alpha under 1/255)."""
    colours = ["#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#000", "#fff"]
    alphas = ["", ' opacity="0.5"', ' fill-opacity="0.3"', ' opacity="0.04"', ' opacity="0.004"']

    def shape():
        x, y, c, a = rng.randint(0, 90), rng.randint(0, 90), rng.choice(colours), rng.choice(alphas)
        kind = rng.randrange(4)
        if kind == 0:
            return f'<rect x="{x}" y="{y}" width="{rng.randint(2, 40)}" height="{rng.randint(2, 40)}" fill="{c}"{a}/>'
        if kind == 1:
            return f'<circle cx="{x}" cy="{y}" r="{rng.randint(1, 20)}" fill="{c}"{a} stroke="#000" stroke-opacity="0.5"/>'
        if kind == 2:
            return f'<line x1="{x}" y1="{y}" x2="{rng.randint(0, 100)}" y2="{y}" stroke="{c}" stroke-width="3"{a}/>'
        return f'<path d="M{x} {y}q10 -20 30 0t20 10" fill="none" stroke="{c}" stroke-width="2"{a}/>'

    groups = []
    for _ in range(rng.randint(2, 4)):
        attr = rng.choice(['', ' opacity="0.6"', ' opacity="0.05"', ' fill-opacity="0.5"',
                           ' transform="rotate(10 50 50)"', ' style="mix-blend-mode:multiply"',
                           ' filter="blur(2px)"', ' style="isolation:isolate;opacity:.5"'])
        inner = "".join(shape() for _ in range(rng.randint(2, 6)))
        if rng.random() < 0.3:
            inner = (f'<g opacity="0.7">{inner}<svg x="10" y="10" width="30" height="30" '
                     f'viewBox="0 0 10 10">{shape()}{shape()}</svg></g>')
        groups.append(f"<g{attr}>{inner}</g>")
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" '
            f'height="100">{"".join(groups)}</svg>')


def test_footprint_bound_holds_under_group_opacity_blend_and_nested_viewports(monkeypatch, tmp_path):
    import random

    rng = random.Random(1)
    for i in range(24):
        (tmp_path / f"s{i}.svg").write_text(_layered_scene(rng))
    seen, _ops = _check_splice(monkeypatch, RepairGenConfig(split="all", sources=(str(tmp_path),)), 120)
    assert seen["bounded"] >= 20 and seen["changed"] >= 50, seen


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
