"""The unchanged source is not flagged for document changes when a deleted element and a
stray one coexist (issue 12, item 7; RepairGen ``rg-train-s0-0000043``).

With a restoration (``exists`` false -> true) and a stray (true -> false) under one parent the
child counts agree again, so the positional fallback of ``corresponding`` (spec §6) lands on
the sibling that shifted into the missing element's index. That sibling carries its own target
id: it is that other element, not a renamed copy of the missing one, and masking it away
made the untouched source differ from the masked target (``-tent-side``).
"""

from __future__ import annotations

from vector_gym.rewards.spec import get_scorer
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator
from vector_gym.tasks.task import RequestedEdit, Task

NS = 'xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"'
TARGET = f'<svg {NS}><g id="tent"><path id="body" d="M0 0L10 10"/><path id="side" d="M5 5L20 20"/></g></svg>'
SOURCE = f'<svg {NS}><g id="tent"><path id="side" d="M5 5L20 20"/><path id="stray" d="M50 50L60 60"/></g></svg>'


def _task():
    edits = (
        RequestedEdit("body", "exists", False, True),
        RequestedEdit("stray", "exists", True, False),
    )
    return Task("shifted", "toy", "restore the body, delete the stray", SOURCE, TARGET,
                requested_edits=edits, protected_ids=("side",))


def test_unchanged_source_has_no_unintended_document_changes():
    report = get_scorer(_task()).score(SOURCE)
    assert report.unexpected_changed_parts == ()
    assert "unintended_document_changes" not in report.failure_reasons
    assert report.preservation_pass and report.unintended_change_rate == 0.0
    assert get_scorer(_task()).score(TARGET).reward == 1.0


def test_repairgen_task_43_identity_is_clean():
    gen = RepairGenerator(RepairGenConfig(), seed=0)
    (task,) = gen.tasks(1, start=43)
    assert task.task_id == "rg-train-s0-0000043"
    report = get_scorer(task).score(task.source_svg)
    assert report.unexpected_changed_parts == () and report.preservation_pass
    assert get_scorer(task).score(task.target_svg).reward == 1.0


def test_identity_is_never_flagged_for_document_changes_on_generated_tasks():
    gen = RepairGenerator(RepairGenConfig(), seed=0)
    flagged = [
        t.task_id for t in gen.tasks(120)
        if "unintended_document_changes" in get_scorer(t).score(t.source_svg).failure_reasons
    ]
    assert flagged == []
