"""Reward gates on the bundled corpus (spec-reward.md §17 "Reward gates on the corpus")."""

from __future__ import annotations

import re

import pytest

from vector_gym.rewards.spec import SpecScorer, score
from vector_gym.tasks.vector_bench import load_vector_bench

TASKS = load_vector_bench()
SV001 = TASKS[0]


def test_sv001_target_against_itself():
    # §17: reward 1, repair pass, preservation pass, valid, completion 1.0, UCR 0.
    r = score(SV001, SV001.target_svg)
    assert (r.reward, r.repair_pass, r.preservation_pass, r.validity_pass) == (
        1.0,
        True,
        True,
        True,
    )
    assert r.edit_completion == 1.0 and r.unintended_change_rate == 0.0
    assert r.status == "PASS" and r.failure_reasons == () and r.exact and r.structural


def test_sv001_source_unchanged():
    # §17: reward 0, edit completion < 1.
    r = score(SV001, SV001.source_svg)
    assert r.reward == 0.0 and r.edit_completion < 1.0
    assert r.failure_reasons == ("requested_repairs_incomplete",)


@pytest.mark.parametrize("parity", [False, True], ids=["default", "parity"])
@pytest.mark.parametrize("task", TASKS, ids=[t.task_id for t in TASKS])
def test_every_target_and_source(task, parity):
    scorer = SpecScorer(task, parity=parity)
    # §17: every target against itself → reward 1, completion 1.0, UCR 0.
    r = scorer.score(task.target_svg)
    assert (r.reward, r.edit_completion, r.unintended_change_rate) == (1.0, 1.0, 0.0)
    # §17: every corrupted input → valid, reward 0, repair progress exactly 0, preservation pass,
    # UCR 0, and each check's produced value equals that item's `before` value.
    s = scorer.score(task.source_svg)
    assert s.validity_pass and s.reward == 0.0 and s.repair_progress == 0.0
    assert s.preservation_pass and s.unintended_change_rate == 0.0
    for check, edit in zip(s.checks, task.requested_edits, strict=True):
        assert check.produced == edit.before, (check.part, check.attribute)


def test_deleted_protected_object():
    # §17: sv_001 target with its first protected object deleted → reward 0, completion 1.0,
    # UCR > 0, and that ID listed in unexpected changes.
    u = SV001.protected_ids[0]
    produced = re.sub(rf'<[^<>]*\bid="{re.escape(u)}"[^<>]*/>', "", SV001.target_svg, count=1)
    assert produced != SV001.target_svg
    r = score(SV001, produced)
    assert r.reward == 0.0 and r.edit_completion == 1.0 and r.unintended_change_rate > 0
    assert u in r.unexpected_changed_parts


def test_added_circle_with_new_id():
    # §17: target plus an unrequested circle with a new ID → reward 0, "+<id>" reported.
    produced = SV001.target_svg.replace(
        "</svg>", '<circle id="extra-dot" cx="5" cy="5" r="2"/></svg>'
    )
    r = score(SV001, produced)
    assert r.reward == 0.0 and "+extra-dot" in r.unexpected_changed_parts


def test_added_anonymous_circle():
    # §17: an anonymous circle → repair pass, preservation fail, reward 0, "__svg" reported.
    produced = SV001.target_svg.replace("</svg>", '<circle cx="5" cy="5" r="2"/></svg>')
    r = score(SV001, produced)
    assert r.repair_pass and not r.preservation_pass and r.reward == 0.0
    assert "__svg" in r.unexpected_changed_parts
    assert r.status == "SIDE_EFFECTS"


@pytest.mark.parametrize("parity", [False, True], ids=["default", "parity"])
def test_cut_outputs_score_as_when_parsed(parity, monkeypatch):
    """Truncated outputs skip the failing parse (``surely_not_well_formed``): same full report.

    Each task's target and source, cut at a dozen points, scored with the shortcut and with it
    switched off (every text parsed by libxml2): the reports are equal field for field.
    """
    import vector_gym.rewards.spec as spec_mod

    texts = []
    for task in TASKS[:10]:
        for doc in (task.target_svg, task.source_svg):
            texts += [(task, doc[: len(doc) * k // 12]) for k in range(1, 12)]
            texts.append((task, doc + "<"))
    fast = {}
    for task, text in texts:
        fast[task.task_id, text] = SpecScorer(task, parity=parity).score(text)
    assert sum("not_well_formed" in r.detail for r in fast.values()) >= 200
    monkeypatch.setattr(spec_mod, "surely_not_well_formed", lambda text, lim: False)
    for task, text in texts:
        slow = SpecScorer(task, parity=parity).score(text)
        assert slow.to_dict() == fast[task.task_id, text].to_dict()


def test_compact_equal_is_the_whole_translation():
    """``compact_equal`` (piecewise, early exit) agrees with compacting the whole text.

    Each task's target against re-spaced copies of itself (equal), every source and target of
    the other tasks (unequal), truncations and extensions (one a prefix of the other), and
    texts whose difference is at the start, the middle or the very end.
    """
    import random

    from vector_gym.rewards.spec import _ASCII_WS, compact_equal

    rng = random.Random(7)
    ws = [b" ", b"\n", b"\t", b"\r\n", b"  ", b"\x0b", b"\x1c", b""]
    docs = [d.encode() for t in TASKS for d in (t.source_svg, t.target_svg) if d.isascii()]
    answers = set()
    for target in docs[:20]:
        compact = target.translate(None, _ASCII_WS)
        respaced = b"".join(c + rng.choice(ws) for c in (bytes([x]) for x in target))
        cases = [target, respaced, respaced + b" ", target[:-1], target + b"x", b"", b" "]
        for k in (0, len(target) // 2, len(target) - 1):
            cases.append(target[:k] + b"#" + target[k + 1 :])
        cases += docs[:6]
        for data in cases:
            want = data.translate(None, _ASCII_WS) == compact
            assert compact_equal(data, compact) is want
            answers.add(want)
    assert answers == {True, False}


@pytest.mark.parametrize("parity", [False, True], ids=["default", "parity"])
def test_path_checks_remember_produced_texts(parity, monkeypatch):
    """A path check keeps the Match of each produced text (``_CheckPlan.seen``): every bundled
    output of a task with a ``d`` edit, with its paths respelled and shifted, scored by one
    scorer twice over, gives the reports a fresh scorer gives each text alone, and the second
    pass compares no path again."""
    import gzip
    import json
    from pathlib import Path

    import vector_gym.rewards.spec as spec_mod

    path = Path(__file__).resolve().parents[1] / "data" / "outcomes_sv001_020.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    by_id = {t.task_id: t for t in TASKS}
    path_tasks = {t.task_id for t in TASKS if any(e.attribute == "d" for e in t.requested_edits)}
    texts: dict[str, list[str]] = {}
    for r in rows:
        if r["task_id"] in path_tasks and r["produced_svg"]:
            s = r["produced_svg"]
            texts.setdefault(r["task_id"], []).extend(
                [s, re.sub(r'(\sd="M\s*)(\d)', r"\g<1>1\2", s), s.replace(" C", ",C")]
            )
    texts = {tid: ss[:30] for tid, ss in texts.items()}
    assert sum(map(len, texts.values())) > 200
    fresh = {
        (tid, s): SpecScorer(by_id[tid], parity=parity).score(s).to_dict()
        for tid, ss in texts.items()
        for s in ss
    }
    calls = []
    real = spec_mod.compare_path
    monkeypatch.setattr(spec_mod, "compare_path", lambda *a: calls.append(a) or real(*a))
    for tid, ss in texts.items():
        scorer = SpecScorer(by_id[tid], parity=parity)
        for n_pass in range(2):
            calls.clear()
            for s in ss:
                assert scorer.score(s).to_dict() == fresh[tid, s]
            if n_pass:
                assert calls == []
            else:
                assert calls
