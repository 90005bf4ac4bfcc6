"""RepairGen: config validation, purity, provenance, the real scorer, wording, split, output layout."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import pytest

from vector_gym.errors import ConfigError
from vector_gym.rewards.spec import score
from vector_gym.svg.color import delta_e76, hex_to_lab, normalise_color
from vector_gym.svg.parse import parse_svg
from vector_gym.tasks import load_vector_bench
from vector_gym.tasks.repairgen import (
    GENERATOR_VERSION,
    LEVELS,
    RepairGenConfig,
    RepairGenCurriculum,
    RepairGenerator,
    regenerate,
    write_vector_bench_layout,
)
from vector_gym.tasks.repairgen_ops import OPERATORS
from vector_gym.tasks.repairgen_paths import (
    path_points,
    read_points,
    replace_numbers,
    respell_path,
    scan_path,
)
from vector_gym.tasks.repairgen_sources import load_sources, split_of
from vector_gym.tasks.repairgen_words import color_word, instruction_leaks, noun_from_label

MIXED = RepairGenConfig(split="all", min_repairs=1, max_repairs=5)


@pytest.fixture(scope="module")
def mixed_tasks():
    gen = RepairGenerator(MIXED, seed=7)
    return [gen[i] for i in range(200)]


# ----------------------------------------------------------------------------- config
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"min_repairs": 0}, "min_repairs"),
        ({"max_repairs": 10}, "max_repairs"),
        ({"min_repairs": 4, "max_repairs": 3}, "max_repairs"),
        ({"magnitude": 0.1}, "magnitude"),
        ({"operators": ("recolor_fill", "explode")}, "operators"),
        ({"operators": ()}, "operators"),
        ({"split": "validation"}, "split"),
        ({"test_fraction": 1.5}, "test_fraction"),
        ({"sources": ()}, "sources"),
        ({"min_scene_elements": 5, "max_scene_elements": 2}, "max_scene_elements"),
        ({"min_visible_fraction": 1.0}, "min_visible_fraction"),
    ],
)
def test_invalid_config_names_the_field(kwargs, field):
    with pytest.raises(ConfigError, match=f"RepairGenConfig.{field}"):
        RepairGenConfig(**kwargs)


def test_config_round_trips_through_dict():
    cfg = RepairGenConfig(operators=("displace", "delete"), max_repairs=6)
    assert RepairGenConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    with pytest.raises(ConfigError, match="unknown field"):
        RepairGenConfig.from_dict({"bogus": 1})


def test_unknown_source_is_a_config_error():
    with pytest.raises(ConfigError, match="sources"):
        RepairGenerator(RepairGenConfig(sources=("no-such-set-or-folder",)))


# ----------------------------------------------------------------------------- purity
def test_same_seed_and_idx_give_equal_tasks_in_any_order():
    a = RepairGenerator(MIXED, seed=3)
    b = RepairGenerator(MIXED, seed=3)
    first = [a[i] for i in range(12)]
    assert [b[i] for i in reversed(range(12))][::-1] == first
    assert first[5].integrity_hash == b[5].integrity_hash
    # another seed gives another stream (np.random.default_rng([seed, idx]), style.md)
    c = RepairGenerator(MIXED, seed=4)
    assert sum(c[i].source_svg == first[i].source_svg for i in range(12)) < 3


def test_task_regenerates_from_its_provenance(mixed_tasks):
    for t in mixed_tasks[:10]:
        prov = json.loads(t.meta()["provenance"])
        assert prov["generator"] == "repairgen" and prov["version"] == GENERATOR_VERSION == "2"  # issue 9: visibility via render_many
        assert prov["seed"] == 7 and t.task_id.endswith(f"{prov['idx']:07d}")
        assert regenerate(t) == t


# ----------------------------------------------------------------------------- scorer
def _mutate_protected(task):
    """Target plus one protected mutation (the paper's Table 2 control): a data attribute."""
    root = parse_svg(task.target_svg)
    u = task.protected_ids[len(task.protected_ids) // 2]
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id") == u:
            el.set("data-mutated", "yes")
            break
    from lxml import etree

    return etree.tostring(root, encoding="unicode")


def test_oracle_one_identity_zero_mutation_zero_through_the_scorer(mixed_tasks):
    """Spec-reward.md §11: target → reward 1; source → 0 (every corrupted check fails, §8.2);
    target with one protected change → 0 (preservation gate, §9/§11.1)."""
    for t in mixed_tasks:
        oracle = score(t, t.target_svg)
        assert oracle.reward == 1.0, (t.task_id, oracle.failure_reasons, oracle.detail)
        ident = score(t, t.source_svg)
        assert ident.reward == 0.0 and ident.validity_pass, t.task_id
        # the unchanged source changes no protected element (Vector-Bench Table 2: UCR 0)
        assert ident.unintended_change_rate == 0.0, (t.task_id, ident.unexpected_changed_parts)
        # every corrupted value lies outside its tolerance (spec §8.2), not only one of them
        assert not any(c.passed for c in ident.checks), (
            t.task_id,
            [c.part for c in ident.checks if c.passed],
        )
        mutated = score(t, _mutate_protected(t))
        assert mutated.reward == 0.0 and mutated.repair_pass and not mutated.preservation_pass, (
            t.task_id
        )


def test_every_operator_occurs(mixed_tasks):
    ops = {k for t in mixed_tasks for k in t.meta()["operators"]}
    assert ops == set(OPERATORS)
    defects = {k for t in mixed_tasks for k in t.meta()["defects"]}
    assert {
        "insert_duplicate",
        "insert_stray",
        "resize_larger",
        "resize_smaller",
        "stroke_heavier",
    } <= defects


def test_requested_edits_have_vector_bench_shape(mixed_tasks):
    """E items: part, attribute, before (corrupted), after (clean, as read from the target, §7)."""
    for t in mixed_tasks:
        target = parse_svg(t.target_svg)
        ids = {el.get("id"): el for el in target.iter() if isinstance(el.tag, str) and el.get("id")}
        # U = every id'd element whose subtree the repair leaves alone: not a requested part,
        # not an ancestor of one (a group holding it), not inside one (spec §11.1 compares
        # whole subtrees)
        parts = {e.part for e in t.requested_edits}
        source = parse_svg(t.source_svg)
        sites = set()
        for root in (source, target):
            for el in root.iter():
                if isinstance(el.tag, str) and el.get("id") in parts:
                    sites |= {d.get("id") for d in el.iter() if isinstance(d.tag, str)}
                    sites |= {a.get("id") for a in el.iterancestors()}
        if any(e.attribute == "exists" for e in t.requested_edits):
            # an insertion or deletion shifts the position-aligned ID aliases (§5.1): elements
            # holding a local reference, and their ancestors, are not protected either
            for root in (source, target):
                for el in root.iter():
                    if isinstance(el.tag, str) and any(
                        ("url(" in v and "#" in v) or (k.endswith("href") and v.strip().startswith("#"))
                        for k, v in el.attrib.items()
                    ):
                        sites |= {el.get("id")} | {a.get("id") for a in el.iterancestors()}
        assert set(t.protected_ids) == set(ids) - sites
        assert parts.isdisjoint(t.protected_ids)
        for e in t.requested_edits:
            assert e.before != e.after
            if e.attribute == "exists":
                assert (e.before, e.after) in ((False, True), (True, False))
                assert (e.part in ids) == e.after
                continue
            raw = ids[e.part].get(e.attribute)
            if e.attribute in ("fill", "stroke"):
                assert e.after == raw.strip()
                # visible colour change: at least 35 ΔE76 and another colour word
                lab_b, lab_a = hex_to_lab(e.before), hex_to_lab(normalise_color(e.after))
                assert delta_e76(lab_b, lab_a) >= 35
                assert color_word(e.before) != color_word(normalise_color(e.after))
            elif e.attribute == "points":
                assert list(map(list, e.after)) == read_points(raw)
            elif e.attribute == "d":
                assert e.after == " ".join(raw.split())
            else:
                assert float(e.after) == float(raw)
                assert abs(float(e.before) - float(e.after)) >= 0.2


def test_instructions_leak_nothing(mixed_tasks):
    """No digit, hex code, requested attribute name or non-word id (Vector-Bench paper §3)."""
    gen = RepairGenerator(RepairGenConfig(split="all", min_repairs=3, max_repairs=9), seed=11)
    for t in [*mixed_tasks, *(gen[i] for i in range(100))]:
        target = parse_svg(t.target_svg)
        ids = [el.get("id") for el in target.iter() if isinstance(el.tag, str) and el.get("id")]
        ids += [e.part for e in t.requested_edits]
        leaks = instruction_leaks(
            t.instruction, ids, [e.attribute for e in t.requested_edits], t.task_id
        )
        assert leaks == [], (t.task_id, t.instruction, leaks)
        assert t.instruction.endswith(".") and t.instruction[0].isupper()


def test_instruction_phrasings_vary_with_the_seed(mixed_tasks):
    closings = {t.instruction.rsplit(". ", 1)[-1].split(" ")[0] for t in mixed_tasks}
    assert len(closings) >= 4


# ----------------------------------------------------------------------------- difficulty
def test_number_of_repairs_follows_the_config():
    gen = RepairGenerator(
        RepairGenConfig(sources=("vector_bench",), split="all", min_repairs=7, max_repairs=9)
    )
    counts = [gen[i].meta()["difficulty"] for i in range(10)]
    assert all(7 <= c <= 9 for c in counts)


def test_magnitude_scales_displacements():
    def mean_shift(mag):
        cfg = RepairGenConfig(
            sources=("vector_bench",), split="all", operators=("displace",), magnitude=mag
        )
        gen = RepairGenerator(cfg, seed=1)
        shifts = []
        for i in range(30):
            for e in gen[i].requested_edits:
                if e.attribute in ("x", "y", "cx", "cy"):
                    shifts.append(abs(e.before - e.after))
        return sum(shifts) / len(shifts)

    assert mean_shift(2.0) > 1.6 * mean_shift(1.0)


def test_scene_size_filter():
    cfg = RepairGenConfig(split="all", min_scene_elements=40)
    gen = RepairGenerator(cfg)
    assert all(gen[i].meta()["scene_elements"] >= 40 for i in range(10))


def test_curriculum_moves_with_success_rate():
    cur = RepairGenCurriculum(window=4, raise_at=0.75, lower_at=0.25)
    assert cur.config().max_repairs == LEVELS[0][1] == 1
    for _ in range(4):
        cur.update(True)
    assert cur.level == 1
    for _ in range(4):
        cur.update(False)
    assert cur.level == 0
    for _ in range(4 * 20):
        cur.update(True)
    assert cur.level == len(LEVELS) - 1 and cur.config().max_repairs == 9
    with pytest.raises(ConfigError, match="RepairGenCurriculum.window"):
        RepairGenCurriculum(window=0)


# ----------------------------------------------------------------------------- split
def test_train_and_test_share_no_scene():
    train = RepairGenerator(RepairGenConfig(split="train"))
    test = RepairGenerator(RepairGenConfig(split="test"))
    assert train.source_ids and test.source_ids
    assert not set(train.source_ids) & set(test.source_ids)
    keys = {s.source_id: s.split_key for s in load_sources(("vector_bench", "svgeditbench"))}
    assert not {keys[i] for i in train.source_ids} & {keys[i] for i in test.source_ids}
    # Vector-Bench's four scene templates: whole templates are held out
    vb_test = {keys[i] for i in test.source_ids if i.startswith("vector-bench:")}
    vb_train = {keys[i] for i in train.source_ids if i.startswith("vector-bench:")}
    assert vb_test and vb_train and len(vb_test | vb_train) == 4
    t = test[0]
    assert t.meta()["source_id"] in test.source_ids and t.task_id.startswith("rg-test-")
    # a scene's side never depends on which other source sets are configured
    vb_only = RepairGenerator(RepairGenConfig(sources=("vector_bench",), split="test"))
    assert set(vb_only.source_ids) == {i for i in test.source_ids if i.startswith("vector-bench:")}


def test_split_hash_is_deterministic():
    assert split_of("emoji:grinning face", 0.2) == split_of("emoji:grinning face", 0.2)
    frac = sum(split_of(f"k{i}", 0.2) == "test" for i in range(2000)) / 2000
    assert 0.17 < frac < 0.23


def test_one_drawing_never_lands_on_both_sides(tmp_path):
    """SVGEditBench names one Twemoji drawing "angry face" and "pouting face"; keyed by name,
    the same picture was a test scene and a training scene."""
    by_text: dict[str, set[str]] = {}
    for s in load_sources(("vector_bench", "svgeditbench")):
        by_text.setdefault(" ".join(s.svg.split()), set()).add(s.split_key)
    assert all(len(keys) == 1 for keys in by_text.values())
    svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="4"/></svg>'
    for name in ("a.svg", "sub/b.svg"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(svg, encoding="utf-8")
    assert {s.split_key for s in load_sources((str(tmp_path),))} == {"folder:a.svg"}


def test_folder_sources(tmp_path):
    (tmp_path / "kite.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        '<rect width="100" height="100" fill="#ffffff"/>'
        '<circle cx="50" cy="40" r="20" fill="#dc2626" stroke="#000000" stroke-width="2"/>'
        '<rect x="10" y="70" width="40" height="20" fill="#2563eb"/></svg>'
    )
    gen = RepairGenerator(
        RepairGenConfig(sources=(str(tmp_path),), split="all", max_repairs=2), seed=0
    )
    for i in range(20):
        t = gen[i]
        assert t.meta()["source_id"] == "folder:kite.svg"
        assert "circle-1" in t.target_svg  # generated stable ids, same in source and target
        assert score(t, t.target_svg).reward == 1.0 and score(t, t.source_svg).reward == 0.0


# ----------------------------------------------------------------------------- layout
def test_written_layout_loads_with_the_vector_bench_loader(tmp_path, mixed_tasks):
    tasks = mixed_tasks[:5]
    files = write_vector_bench_layout(tasks, tmp_path)
    assert [f.name for f in files] == [f"sv_{t.task_id}.json" for t in tasks]
    loaded = load_vector_bench(tmp_path)
    assert [t.task_id for t in loaded] == sorted(t.task_id for t in tasks)
    by_id = {t.task_id: t for t in tasks}
    for lt in loaded:
        t = by_id[lt.task_id]
        assert (lt.instruction, lt.source_svg, lt.target_svg) == (
            t.instruction,
            t.source_svg,
            t.target_svg,
        )
        assert lt.requested_edits == t.requested_edits and lt.protected_ids == t.protected_ids
        assert regenerate(replace(lt, family="repairgen")) == t
        assert score(lt, lt.target_svg).reward == 1.0


# ----------------------------------------------------------------------------- helpers
def test_nouns_colour_words_and_leak_check():
    assert noun_from_label("pear-2") == "pear"  # issue 5's example: pear-2 -> "one pear"
    assert noun_from_label("signal-amber") == "amber signal"
    assert noun_from_label("variant-05-chip-01") == "chip"
    assert color_word("#dc2626") == "red" and color_word("#0f172a") == "black"
    assert instruction_leaks("Move the door left.", ["train-door"], ["x"]) == []
    assert instruction_leaks("Fix the x of it.", [], ["x"]) == ["attribute:x"]
    assert instruction_leaks("Fix train-door.", ["train-door"], []) == ["id:train-door"]


def test_path_scanning_and_rewriting():
    fields, pts = scan_path("m10 10 c5 0 5 5 10 5 h-3 z")
    assert [f.role for f in fields][:2] == ["x", "y"] and not fields[
        0
    ].relative  # first m is absolute
    assert fields[2].relative and fields[2].role == "cx"
    assert pts[-1] == (17.0, 15.0)
    assert respell_path("M0 0L1-1.5.5 2") == "M 0 0 L 1 -1.5 .5 2"
    assert (
        scan_path("M0 0 L1") is None
        and scan_path("Z") is None
        and scan_path("M0 0 A5 5 0 2 1 1 1") is None
    )
    # a new spelling never merges with its neighbour
    assert replace_numbers("10-5", {(2, 4): 3.0}) == "10 3"
    assert replace_numbers("0.5.5", {(0, 3): 2.0}) == "2 .5"
    assert math.isclose(float(replace_numbers("1e2", {(0, 3): 7.25})), 7.25)



def test_path_points_is_scan_paths_reading_without_fields():
    """path_points (the clean-source check and analysis) reads every path exactly as scan_path:
    the same points, None for the same paths; over every path of the bundled sources and the
    malformed spellings scan_path rejects."""
    from vector_gym.svg.parse import parse_svg
    from vector_gym.tasks.repairgen_sources import load_sources

    paths = ["M0 0 L1", "Z", "M0 0 A5 5 0 2 1 1 1", "", "  ", "M0 0 L1 1 é", "m1 1 z m2 2 h3 v4 z"]
    paths += ["M0 0 h5 v5 H0 V-1 l.5.5 1e2-3", "M1 2 3", "M0,0 Q1 1 2 2 T4 4 S5 5 6 6 a1 1 0 1 0 2 2"]
    for src in load_sources(("vector_bench", "svgeditbench"))[::7]:
        for el in parse_svg(src.svg).iter("{http://www.w3.org/2000/svg}path"):
            paths.append(el.get("d") or "")
    assert len(paths) > 1000
    rejected = 0
    for d in paths:
        scanned = scan_path(d)
        points = path_points(d)
        if scanned is None:
            rejected += 1
            assert points is None, d
        else:
            assert points == tuple(scanned[1]), d
    assert rejected >= 5

def test_path_points_fast_reading_equals_the_field_reading():
    """path_points reads the commonest paths (no arc) with one findall per command; where it
    answers, it gives exactly the points of the field-by-field reading (_read), and it declines
    (None) every path that reading rejects: random strings with bad tokens, missing and extra
    numbers, packed numbers, stray separators, and every path of the bundled sources."""
    import random

    from vector_gym.svg.parse import parse_svg
    from vector_gym.tasks import repairgen_paths as rp
    from vector_gym.tasks.repairgen_sources import load_sources

    rng = random.Random(5)
    paths = []
    for _ in range(6000):
        out = [rng.choice(["", " ", "x"]) if rng.random() < 0.05 else ""]
        for _ in range(rng.randint(1, 7)):
            c = rng.choice("MmLlHhVvCcSsQqTtZzAa")
            out.append(c)
            n = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}[c.lower()]
            n = n * rng.choice([1, 1, 2, 3]) + rng.choice([0, 0, 0, 0, 0, 1, -1])
            for _ in range(max(n, 0)):
                out.append(rng.choice(["", "", "-", "+"]) + rng.choice(["0", "1", "2.5", ".5", "10", "3e1", "7.", "-0", "."]))
                out.append(rng.choice([" ", ",", " ", "", "  ", ", ", "\n", ",,"]))
        if rng.random() < 0.1:
            out.insert(rng.randrange(len(out) + 1), rng.choice(["x", ";", "e", ".", "é"]))
        paths.append("".join(out))
    for src in load_sources(("vector_bench", "svgeditbench"))[::3]:
        for el in parse_svg(src.svg).iter("{http://www.w3.org/2000/svg}path"):
            paths.append(el.get("d") or "")
    answered = 0
    for d in paths:
        slow = rp._read(d, False) if d.strip() and d.isascii() else None
        fast = rp._points_fast(d) if d.strip() and d.isascii() else None
        if fast is not None:
            answered += 1
            assert slow is not None and fast == slow[1], d
        assert rp.path_points(d) == (None if slow is None else slow[1]), d
    assert answered > 3000 and sum(rp._read(d, False) is None for d in paths if d.strip()) > 1000


def test_cli_generate_writes_loadable_tasks(tmp_path, capsys):
    from vector_gym.cli import main

    out = tmp_path / "tasks"
    assert (
        main(
            ["generate", "--n", "3", "--seed", "5", "--out", str(out), "--sources", "vector_bench"]
        )
        == 0
    )
    assert "wrote 3 tasks" in capsys.readouterr().out
    loaded = load_vector_bench(out)
    gen = RepairGenerator(RepairGenConfig(sources=("vector_bench",)), seed=5)
    assert [t.task_id for t in loaded] == [gen[i].task_id for i in range(3)]
    assert main(["generate", "--n", "1", "--out", str(out), "--max-repairs", "12"]) == 1
    assert "RepairGenConfig.max_repairs" in capsys.readouterr().err


@pytest.mark.parametrize("n", ["0", "-1", "x"])
def test_cli_generate_rejects_a_count_below_one(tmp_path, capsys, n):
    from vector_gym.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["generate", "--n", n, "--out", str(tmp_path / "tasks")])
    assert exc.value.code == 2  # argparse usage error, nothing written
    assert "expected an integer >= 1" in capsys.readouterr().err
    assert not (tmp_path / "tasks").exists()


def test_generation_never_writes_the_prepared_clean_tree():
    """Tasks share each prepared source's clean tree (their target until an operator writes it,
    and the target text kept for them): generating tasks with every operator leaves that tree
    exactly as a fresh preparation builds it, and the kept text is its serialisation."""
    from collections import Counter

    from vector_gym.tasks.repairgen_sources import prepare_source, serialise

    gen = RepairGenerator(RepairGenConfig(split="all", max_repairs=6), seed=21)
    ops: Counter = Counter()
    used = set()
    for i in range(120):
        t = gen[i]
        ops.update(t.meta()["operators"])
        used.add(t.meta()["source_id"])
    assert set(ops) == set(OPERATORS), ops
    checked = 0
    for k, src in enumerate(gen._sources):
        if src.source_id not in used:
            continue
        prep = gen._prepare(k)
        fresh = prepare_source.__wrapped__(src)
        assert serialise(prep.root) == serialise(fresh.root), src.source_id
        assert prep.text is None or prep.text == serialise(fresh.root), src.source_id
        checked += 1
    assert checked >= 60


def test_replayed_trials_equal_running_the_operator_again(monkeypatch):
    """An accepted trial of an attribute-only operator is replayed onto the task's source
    (repairgen._replay) instead of running the operator a second time: tasks of every such
    operator are the same, field by field, as with every operator run again."""
    from collections import Counter

    import vector_gym.tasks.repairgen as rg

    cfg = RepairGenConfig(split="all", max_repairs=5)
    fast = [RepairGenerator(cfg, seed=4)[i] for i in range(150)]
    ops = Counter(op for t in fast for op in t.meta()["operators"])
    assert all(ops[op] >= 5 for op in rg._REPLAYED), ops
    monkeypatch.setattr(rg, "_REPLAYED", frozenset())
    slow = [RepairGenerator(cfg, seed=4)[i] for i in range(150)]
    for a, b in zip(fast, slow, strict=True):
        assert a.source_svg == b.source_svg and a.target_svg == b.target_svg, a.task_id
        assert a == b, a.task_id


def test_edit_sites_from_the_id_indexes_equal_a_pass_over_every_element(monkeypatch):
    """A task's protected ids are computed from the id indexes of its trees (repairgen._sites_of)
    instead of a pass over every element (_edit_sites): tasks with deletions, insertions and
    opacity edits (a written target) are the same either way."""
    from collections import Counter

    import vector_gym.tasks.repairgen as rg

    cfg = RepairGenConfig(split="all", max_repairs=6)
    fast = [RepairGenerator(cfg, seed=11)[i] for i in range(120)]
    ops = Counter(op for t in fast for op in t.meta()["operators"])
    assert min(ops[op] for op in ("delete", "insert", "opacity")) >= 5, ops
    monkeypatch.setattr(rg, "_SITES_BY_INDEX", False)
    slow = [RepairGenerator(cfg, seed=11)[i] for i in range(120)]
    for a, b in zip(fast, slow, strict=True):
        assert a.protected_ids == b.protected_ids, a.task_id
        assert a == b, a.task_id


def test_respell_path_equals_the_respelling_by_scan_path_fields():
    """respell_path reads the numbers' spans from the path grammar's sets (no PathField): the
    same text as respelling by scan_path's fields, on every bundled path and broken variants."""
    import re

    from vector_gym.tasks.repairgen_paths import _CMD_SPLIT

    def by_fields(d):
        scanned = scan_path(d)
        if scanned is None:
            return None
        fields, out, fi = scanned[0], [], 0
        for m in _CMD_SPLIT.finditer(d):
            while fi < len(fields) and fields[fi].start < m.start():
                out.append(d[fields[fi].start : fields[fi].end])
                fi += 1
            out.append(m.group())
        out += [d[f.start : f.end] for f in fields[fi:]]
        return " ".join(out)

    values = []
    for s in load_sources(("vector_bench", "svgeditbench")):
        values += re.findall(r'\sd="([^"]*)"', s.svg)
    for v in values[:400]:
        values += [v[: len(v) // 2], v + " q", v.replace(" ", ",,", 3), "Z" + v, v + "z1"]
    values += ["", "  ", "M0 0", "M0.5.5a5 5 0 0110 10z", "m1 1zm2 2", "M0 0 1", "M\uff11 0"]
    got = [respell_path(v) for v in values]
    assert got == [by_fields(v) for v in values]
    assert None in got and sum(g is not None for g in got) > 2000


def test_referencing_takes_local_references_and_their_ancestors():
    """repairgen._referencing finds its elements by one XPath pass (a superset, tested in
    Python): the ids of elements holding ``url(#x)`` or an ``href`` starting with ``#`` (blanks
    around it allowed), and their ancestors; not ``url(x)`` without ``#``, not ``href="x"``,
    not an element without an id; the same sets as a test of every element on bundled sources."""
    import vector_gym.tasks.repairgen as rg
    from vector_gym.tasks.repairgen_sources import prepare_source

    root = parse_svg(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'id="root"><defs id="d"><linearGradient id="lg"/></defs>'
        '<g id="g1"><g><rect id="a" fill="url(#lg)"/></g></g>'
        '<g id="g2"><use id="u" xlink:href=" #a"/><use id="v" href="a"/></g>'
        '<g id="g3"><rect id="b" fill="url(lg)"/><rect clip-path="url( #lg )"/></g>'
        '<rect id="c" data-href="#a"/><rect id="e" style="fill:url(#lg)"/></svg>'
    )
    assert rg._referencing(root) == {"root", "g1", "a", "g2", "u", "g3", "c", "e"}
    assert rg._referencing(parse_svg('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>')) == set()

    def every_element(root):
        out = set()
        for el in root.iter():
            if isinstance(el.tag, str) and any(
                ("url(" in v and "#" in v) or (k.endswith("href") and v.strip().startswith("#"))
                for k, v in el.attrib.items()
            ):
                out.update(a.get("id") for a in el.iterancestors() if a.get("id"))
                if el.get("id"):
                    out.add(el.get("id"))
        return out

    found = 0
    for s in load_sources(("vector_bench", "svgeditbench")):
        prep = prepare_source(s)
        if prep is not None:
            got = rg._referencing(prep.root)
            assert got == every_element(prep.root), s.source_id
            found += bool(got)
    assert found > 100


def test_copy_index_is_the_index_read_on_a_first_miss():
    """repairgen._copy_index reads a whole-scene copy's ids at once (one XPath call, zipped with
    the clean ids): the same map as _IdIndex's pass on its first miss; a tree with a repeated or
    empty id falls back to that pass."""
    import copy

    import vector_gym.tasks.repairgen as rg
    from vector_gym.tasks.repairgen_sources import prepare_source

    for s in load_sources(("vector_bench", "svgeditbench"))[::25]:
        prep = prepare_source(s)
        if prep is None:
            continue
        tree = copy.deepcopy(prep.root)
        fast = rg._copy_index(tree, rg._elements(prep))
        slow = rg._IdIndex(tree)
        slow[next(iter(rg._elements(prep)))]  # the first miss: reads every id
        assert list(fast.items()) == list(slow.items()), s.source_id
        assert all(fast[i].get("id") == i for i in fast)
    root = parse_svg(
        '<svg xmlns="http://www.w3.org/2000/svg"><rect id="a"/><rect id="a" x="1"/>'
        '<rect id=""/><rect id="b"/></svg>'
    )
    index = rg._copy_index(root, rg.first_by_id(root))
    assert index["a"] is root[0] and index["b"] is root[3]


def test_respell_fast_reading_is_used_for_paths_without_arcs():
    """respell_path reads a path without arcs by one findall per command (_respell_fast): it
    takes most bundled paths, and its text is the field-by-field respelling's; a shorthand such
    as 0.5.5 is split, a read that stops early is left to the span reading."""
    import re

    from vector_gym.tasks.repairgen_paths import _respell_fast

    values = []
    for s in load_sources(("vector_bench", "svgeditbench")):
        values += re.findall(r'\sd="([^"]*)"', s.svg)
    arc_free = [v for v in values if "a" not in v.lower() and path_points(v) is not None]
    fast = [v for v in arc_free if _respell_fast(v) is not None]
    assert len(fast) == len(arc_free) > 5000
    assert all(_respell_fast(v) == " ".join(scan_path_texts(v)) for v in fast[::7])
    assert _respell_fast("M0.5.5L-1-2 3e2,4z") == "M 0.5 .5 L -1 -2 3e2 4 z"
    assert respell_path("M0.5.5L-1-2 3e2,4z") == "M 0.5 .5 L -1 -2 3e2 4 z"
    assert _respell_fast("M0 0L1 x") is None


def scan_path_texts(d):
    """Command letters and number texts of ``d`` in text order, from scan_path's fields."""
    fields = scan_path(d)[0]
    letters = [(m.start(), m.group()) for m in re.finditer(r"[MmZzLlHhVvCcSsQqTt]", d)]
    return [t for _s, t in sorted(letters + [(f.start, d[f.start : f.end]) for f in fields])]


def test_insertion_trials_on_a_reduced_copy_equal_trials_on_the_whole_scene(monkeypatch):
    """An insertion's trial runs on a copy holding only its element, the root's last child and
    their ancestors (repairgen._insertion_copy) instead of the whole scene: tasks with
    insertions (duplicates and stray marks, visible and invisible trials) are the same, field
    by field, as with the whole scene copied for every insertion trial."""
    import copy
    from collections import Counter

    import vector_gym.tasks.repairgen as rg

    cfg = RepairGenConfig(split="all", max_repairs=6, operators=("insert", "recolor_fill", "delete"))
    fast = [RepairGenerator(cfg, seed=5)[i] for i in range(100)]
    kinds = Counter(d for t in fast for d in t.meta()["defects"])
    assert kinds["insert_duplicate"] >= 20 and kinds["insert_stray"] >= 20, kinds
    monkeypatch.setattr(rg, "_insertion_copy", lambda prep, part: copy.deepcopy(prep.root))
    slow = [RepairGenerator(cfg, seed=5)[i] for i in range(100)]
    for a, b in zip(fast, slow, strict=True):
        assert a.source_svg == b.source_svg, a.task_id
        assert a.meta()["visible_fraction"] == b.meta()["visible_fraction"], a.task_id
        assert a == b, a.task_id
