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


def _check_splice(monkeypatch, config, count, prepared=None):
    """Generate ``count`` tasks of ``config`` with every spliced trial checked against a whole
    render (pixel-identical) and every bounded one against its exact share; (seen, operators).

    ``prepared``: a prepared source every task draws from instead of the config's own."""
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
        moved = np.abs(ref.astype(int) - prep.image.astype(int)).max(axis=2) > vis.CHANGED_LEVEL
        exact = np.count_nonzero(moved) / moved.size
        if isinstance(last["img"], vis.Exact):  # counted from segments
            assert frac == exact, (prep.source.source_id, part, exact, frac)
            seen[kind] += 1
            seen[f"part {part}"] += 1
            return frac
        if isinstance(last["img"], float):  # decided by the bound, not drawn
            assert exact <= frac < at_least, (prep.source.source_id, part, exact, frac)
            seen["bounded"] += 1
            return frac
        np.testing.assert_array_equal(last["img"], ref, err_msg=f"{prep.source.source_id} {part}")
        seen[kind] += 1
        seen[f"part {part}"] += 1
        return frac

    draw_segments = vis._draw_segments

    def counted(seg, t, groups, union=None):
        out = draw_segments(seg, t, groups, union)
        if out is not None:
            seen["from segments"] += 1
            if union is not None and seg.boxes is not None:  # children whose touch box misses
                ys, xs = np.divmod(union, vis.VISIBILITY_SIZE)
                b = seg.boxes  # (top, -bottom, left, -right)
                misses = (b[:, 0] > ys.max()) | (-b[:, 1] < ys.min())
                misses |= (b[:, 2] > xs.max()) | (-b[:, 3] < xs.min())
                seen["children not drawn"] += int(misses.sum())
                seen["children"] += len(b)
        return out

    monkeypatch.setattr(vis, "_spliced", spliced)
    monkeypatch.setattr(vis, "_draw_segments", counted)
    monkeypatch.setattr(rg, "changed_fraction", checked)
    gen = RepairGenerator(config, seed=3)
    if prepared is not None:
        monkeypatch.setattr(gen, "_prepare", lambda k: prepared)
    for i in range(count):
        ops.update(gen[i].meta()["operators"])
    return seen, ops


def test_spliced_renders_equal_whole_renders(monkeypatch):
    """Every trial drawn by the splice is pixel-identical to render_many on the whole trial, every
    trial counted from segments (only the children that can reach its footprints drawn) has the
    whole trial's changed share, and every trial decided by the footprint bound instead changes
    fewer pixels than the bound says (so fewer than the visibility threshold)."""
    seen, ops = _check_splice(monkeypatch, RepairGenConfig(split="all"), 120)
    assert seen["changed"] >= 100 and seen["new"] >= 5 and seen["deleted"] >= 5, seen
    assert seen["bounded"] >= 40, seen
    assert seen["from segments"] >= 30, seen
    # most children of a Vector-Bench scene miss a small change: not drawn, yet the same share
    assert seen["children not drawn"] >= seen["children"] // 2 > 1000, seen
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


def test_duplicate_id_splice_equals_whole_rebuild(tmp_path, monkeypatch):
    """With a duplicated id, the trial, its splice into the clean render form and the whole
    rebuilt trial (and the task itself) all take the FIRST element of that id, as
    ``getElementById`` does: every spliced trial draws what a whole rebuild draws.

    ``prepare_source`` rejects duplicate ids, so the prepared source is made by hand: two
    small rects (4% of the picture each: never sure, never bounded, always drawn), the second
    renamed to the first one's id after preparation."""
    from vector_gym.tasks.repairgen_sources import prepare_source

    (tmp_path / "dup.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">'
        '<rect id="bg" x="0" y="0" width="100" height="100" fill="#ffffff"/>'
        '<rect id="a" x="10" y="10" width="20" height="20" fill="#e41a1c"/>'
        '<rect id="b" x="65" y="65" width="20" height="20" fill="#377eb8"/>'
        '<rect id="c" x="40" y="70" width="16" height="16" fill="#4daf4a"/></svg>'
    )
    config = RepairGenConfig(split="all", sources=(str(tmp_path),), max_repairs=1)
    prep = prepare_source(RepairGenerator(config)._sources[0])
    first = vis._BY_ID(prep.root, i="a")[0]
    second = vis._BY_ID(prep.root, i="b")[0]
    second.set("id", "a")
    prep.candidates = [c for c in prep.candidates if c.id != "b"]
    seen, _ops = _check_splice(monkeypatch, config, 40, prepared=prep)
    assert seen["part a"] >= 5, seen
    # the tasks corrupt the first "a" (what the visibility check drew), never the second
    gen = RepairGenerator(config, seed=3)
    monkeypatch.setattr(gen, "_prepare", lambda k: prep)
    on_a = 0
    for i in range(40):
        t = gen[i]
        src = parse_svg(t.source_svg)
        rects = [el for el in src.iter() if isinstance(el.tag, str) and el.get("id") == "a"]
        if t.requested_edits[0].part == "a" and len(rects) == 2:
            assert dict(rects[1].attrib) == dict(second.attrib), t.instruction
            assert dict(rects[0].attrib) != dict(first.attrib), t.instruction
            on_a += 1
    assert on_a >= 3
    assert first.get("id") == "a" and second.get("id") == "a"


@pytest.mark.parametrize(
    ("body", "listed"),
    [
        ('<rect id="a" width="4" height="4"/><rect id="b" width="2" height="2"/>', "svg"),
        ('<g fill="#f00" stroke="#000"><rect id="a" width="4" height="4"/><rect id="b" width="2" height="2"/></g>', "g"),
        ('<g opacity="0.5"><rect id="a" width="4" height="4"/><rect id="b" width="2" height="2"/></g>', None),
        ('<g style="mix-blend-mode:multiply"><rect id="a" width="4" height="4"/></g>', None),
    ],
)
def test_drawing_list_only_without_a_layer(body, listed):
    """Segments split the children of a list skia draws straight onto the canvas: never the
    children of a group that draws into a layer (opacity, blend) composited afterwards."""
    root = parse_svg(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">{body}</svg>')
    node = vis._drawing_list(root)
    assert (None if node is None else node.tag.split("}")[1]) == listed


def _long_flat_scene(rng, root_layer: bool = True) -> str:
    """A plain scene with 16-40 children of the root (so snapshots are made): overlapping
    shapes with partial alpha, groups with opacity, blend modes and filters, nested viewports
    (whose clip paths the normaliser puts in a ``<defs>`` among the children), and a root with
    paint, or (``root_layer``) possibly a layer of its own."""
    from lxml import etree

    items = []
    while len(items) < rng.randint(16, 40):
        for g in parse_svg(_layered_scene(rng)):  # a group whole, or its children one by one
            items.extend([g] if rng.random() < 0.3 else list(g))
    ns = ' xmlns="http://www.w3.org/2000/svg"'
    inner = "".join(etree.tostring(el, encoding="unicode").replace(ns, "") for el in items)
    extra: list[str] = []
    layers = [' opacity="0.5"', ' style="opacity:0.5"', ' style="mix-blend-mode:multiply"',
              ' stroke="#00f" opacity="0.8"']
    root_attr = rng.choice(['', ' fill="#0f0"', ' fill-opacity="0.4"', ' transform="rotate(5 50 50)"',
                            ' stroke="#00f" stroke-width="0.5"'] + (layers if root_layer else []))
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" '
            f'height="100"{root_attr}>{inner}{"".join(extra)}</svg>')


def test_segment_draws_equal_whole_renders_on_layered_scenes(monkeypatch, tmp_path):
    """Trials drawn from segments (one parsed document per child of the drawing list), and from
    a snapshot of the earlier children, give the whole render's pixels also where later children
    overlap earlier ones with partial alpha, under groups with opacity, blend modes, filters and
    nested viewports (clip paths in a ``<defs>``), and with root paint; a root with a layer of
    its own gets no segments (its children are not drawn straight onto the canvas)."""
    import random

    rng = random.Random(5)
    for i in range(16):
        (tmp_path / f"s{i}.svg").write_text(_long_flat_scene(rng, root_layer=i % 4 == 0))
    seen, _ops = _check_splice(monkeypatch, RepairGenConfig(split="all", sources=(str(tmp_path),)), 80)
    assert seen["from segments"] >= 40 and seen["children not drawn"] >= 100, seen
    assert seen["changed"] >= 30 and seen["new"] >= 5 and seen["deleted"] >= 5, seen


def test_framed_group_documents_equal_the_whole_documents_lowering(monkeypatch):
    """A changed element put in its ancestors' text kept per form lowers byte for byte to what
    the whole small document (its ancestors and it, built and serialised) lowers to."""
    framed = vis._framed_group
    seen: Counter = Counter()

    def checked(form, tops, prep):
        out = framed(form, tops, prep)
        if out is not None:
            trial = tops[0].getroottree().getroot()
            assert out == vis._group_document(trial, tops, prep, True)
            seen["framed"] += 1
            seen["with an insertion"] += len(tops) > 1
        return out

    monkeypatch.setattr(vis, "_framed_group", checked)
    gen = RepairGenerator(RepairGenConfig(split="all", max_repairs=5), seed=2)
    for i in range(80):
        gen[i]
    assert seen["framed"] >= 100 and seen["with an insertion"] >= 3, seen


def test_a_prefix_bound_to_svg_in_the_scene_keeps_trials_exact(monkeypatch, tmp_path):
    """A scene that binds a prefix to SVG's namespace (on a group or the root): lxml writes an
    element moved back into such a scope (a trial's undo) with that prefix (``<s:rect>``, which
    skia does not draw), so the render form may not be serialised directly or cut into
    segments. Every trial still has render_many's share."""
    import random

    rng = random.Random(11)
    colours = ["#e41a1c", "#377eb8", "#4daf4a", "#984ea3", "#ff7f00", "#000"]

    def shape():  # elements the lowerings keep as they are (a circle becomes a new path)
        x, y, c = rng.randint(0, 80), rng.randint(0, 80), rng.choice(colours)
        if rng.random() < 0.5:
            return f'<rect x="{x}" y="{y}" width="{rng.randint(4, 30)}" height="{rng.randint(4, 30)}" fill="{c}"/>'
        return f'<polyline points="{x},{y} {x + 20},{y + 5} {x},{y + 12}" fill="{c}" stroke="#000"/>'

    svg_ns = ' xmlns:s="http://www.w3.org/2000/svg"'
    for i in range(6):
        groups = "".join(
            f'<g{svg_ns if i % 2 else ""} fill="#0f0">{"".join(shape() for _ in range(4))}</g>' for _ in range(4)
        )
        root_ns = "" if i % 2 else svg_ns
        (tmp_path / f"s{i}.svg").write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg"{root_ns} viewBox="0 0 100 100" width="100" '
            f'height="100">{"".join(shape() for _ in range(6))}{groups}</svg>'
        )
    seen, _ops = _check_splice(monkeypatch, RepairGenConfig(split="all", sources=(str(tmp_path),)), 60)
    assert seen["changed"] >= 30 and seen["deleted"] >= 3, seen
