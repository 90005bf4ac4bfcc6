"""Preservation (V), aliases, masking and the protected ids U (spec-reward.md §5, §9, §11, §17, §18)."""

from __future__ import annotations

import pytest
from spec_docs import TARGET, make_task, sub

from vector_gym.rewards.spec import score

TASK = make_task()
PARITY = [False, True]


@pytest.mark.parametrize("parity", PARITY)
def test_gradient_stop_change(parity):
    # §17: unlisted stop colour #000000 → #010101 → repair pass, preservation fail, reward 0, "stop".
    r = score(TASK, sub(TARGET, 'stop-color="#000000"', 'stop-color="#010101"'), parity)
    assert r.repair_pass and not r.preservation_pass and r.reward == 0.0
    assert "stop" in r.unexpected_changed_parts


def test_unrequested_attribute_of_repaired_object():
    # §17 / §9: changing fill of the repaired object → repair pass, preservation fail, "box" reported.
    r = score(TASK, sub(TARGET, 'fill="#6a1a1a"', 'fill="#6a1a1b"'))
    assert r.repair_pass and not r.preservation_pass and "box" in r.unexpected_changed_parts


def test_swapped_top_level_elements():
    # §17: swapping two top-level scene elements → repair pass, preservation fail, reward 0.
    box = '<rect id="box" x="30" y="10" width="40" height="30" fill="#6a1a1a"/>'
    keep = '<circle id="keep" cx="150" cy="50" r="10" fill="url(#paint)"/>'
    produced = sub(sub(TARGET, box, "@@"), keep, box).replace("@@", keep)
    r = score(TASK, produced)
    assert r.repair_pass and not r.preservation_pass and r.reward == 0.0


def _renamed(ref: str = "url(#p2)") -> str:
    out = TARGET
    for old, new in (
        ('id="paint"', 'id="p2"'),
        ('id="stop"', 'id="s2"'),
        ('id="box"', 'id="b2"'),
        ('id="keep"', 'id="k2"'),
    ):
        out = sub(out, old, new)
    return sub(out, "url(#paint)", ref)


@pytest.mark.parametrize("parity", PARITY)
def test_consistent_id_renaming(parity):
    # §17: renaming every ID consistently → reward 1, preservation pass, source preservation fail,
    # the x check's produced value still 30 (positional lookup, §6).
    r = score(TASK, _renamed(), parity)
    assert r.reward == 1.0 and r.preservation_pass and not r.source_preservation_pass
    assert r.checks[0].produced == 30
    assert r.unintended_change_rate == 0.0  # protected "keep" found positionally, V-equal
    assert r.source_preservation == 0.0  # §11.1: by_id only, no positional fallback


def test_protected_reference_quoted_after_renaming():
    # §17: protected circle fill url(#paint) → url('#gradient') after consistent renaming → reward 1, UCR 0.
    r = score(TASK, _renamed("url('#p2')"))
    assert r.reward == 1.0 and r.preservation_pass and r.unintended_change_rate == 0.0


def test_no_xmlns():
    # §18 / §10 rule 1 (parity): no xmlns → valid, repair pass, preservation fail, UCR 1.0.
    produced = TARGET.replace(' xmlns="http://www.w3.org/2000/svg"', "")
    r = score(TASK, produced, parity=True)
    assert r.validity_pass and r.repair_pass and not r.preservation_pass
    assert r.unintended_change_rate == 1.0
    # Default mode (issue 10): neither a silent pass nor blamed on unintended changes, but its
    # own validity failure.
    r = score(TASK, produced)
    assert not r.validity_pass and r.detail == ("no_svg_namespace",)
    assert r.failure_reasons[0] == "invalid_svg" and r.reward == 0.0


def test_comments_and_indentation():
    # §18: added comments and indentation → reward 1, target match (structural) 1.
    produced = "<!-- hi -->\n" + TARGET.replace("<defs>", "<!-- defs -->\n\n      <defs>")
    r = score(TASK, produced)
    assert r.reward == 1.0 and r.structural and not r.exact


@pytest.mark.parametrize("parity", [False, True])
def test_blank_text_layout_changes_no_field(parity):
    # Texts and tails are compared whitespace-folded (spec §4, §15), so the scorer reads outputs
    # without libxml2's ignorable blanks: an output laid out differently reports as the target.
    import re

    want = score(TASK, TARGET, parity=parity)
    for produced in (
        re.sub(r">\s+<", "><", TARGET),
        re.sub(r">\s+<", ">\r\n\t\t<", TARGET),
        TARGET.replace(">", "> ", 3),
    ):
        got = score(TASK, produced, parity=parity)
        assert got.to_dict() == {**want.to_dict(), "exact": got.exact}
        assert got.reward == 1.0 and got.structural and got.source_preservation_pass


def test_id_added_to_anonymous_element():
    # §18: id added to an anonymous element → reward 1 (V), source preservation fail (C).
    r = score(TASK, sub(TARGET, "<line ", '<line id="ground" '))
    assert r.reward == 1.0 and not r.source_preservation_pass


def test_data_and_aria_attributes_on_protected():
    # §18: data-k added to a protected element → preservation fail, UCR > 0; aria-label → reward 1.
    r = score(TASK, sub(TARGET, '<circle id="keep"', '<circle id="keep" data-k="1"'))
    assert (
        not r.preservation_pass
        and r.unintended_change_rate > 0
        and "keep" in r.unexpected_changed_parts
    )
    r = score(TASK, sub(TARGET, '<circle id="keep"', '<circle id="keep" aria-label="sun"'))
    assert r.reward == 1.0


@pytest.mark.parametrize(
    "produced",
    [
        sub(TARGET, "<defs>", "<title>scene</title><defs>"),
        sub(TARGET, 'viewBox="0 0 200 100"', 'viewBox="0 0 200 100" width="200"'),
    ],
    ids=["title", "root-width"],
)
def test_root_changes(produced):
    # §18: <title> added to the root, or width added to the root → preservation fail (__svg).
    r = score(TASK, produced)
    assert not r.preservation_pass and "__svg" in r.unexpected_changed_parts


def test_unused_xlink_declaration():
    # §18: unused xmlns:xlink declaration → reward 1 and still a target match.
    produced = sub(TARGET, "viewBox=", 'xmlns:xlink="http://www.w3.org/1999/xlink" viewBox=')
    r = score(TASK, produced)
    assert r.reward == 1.0 and r.structural


def test_xlink_href_instead_of_href():
    # §18: xlink:href instead of href → reward 1, source preservation fail.
    target = sub(TARGET, "</svg>", '<use id="echo" href="#keep" x="5"/></svg>')
    task = make_task(
        target=target, source=sub(target, 'x="30"', 'x="10"'), protected=["keep", "echo"]
    )
    produced = sub(
        sub(target, 'href="#keep"', 'xlink:href="#keep"'),
        "viewBox=",
        'xmlns:xlink="http://www.w3.org/1999/xlink" viewBox=',
    )
    r = score(task, produced)
    assert r.reward == 1.0 and not r.source_preservation_pass


def test_requested_field_masked_even_if_wrong():
    # §9: the produced value at a requested field never affects preservation.
    r = score(TASK, sub(TARGET, 'x="30"', 'x="999"'))
    assert not r.repair_pass and r.preservation_pass and r.source_preservation_pass


def test_ucr_counts_protected_failures():
    # §11.1: UCR = failures / |U|; U = [keep, box] with keep changed → 0.5, preservation 0.5.
    task = make_task(protected=["keep", "box"])
    r = score(task, sub(TARGET, 'r="10"', 'r="12"'))
    assert (
        r.unintended_change_rate == 0.5 and r.preservation == 0.5 and r.source_preservation == 0.5
    )


def test_unparseable_output_fails_every_protected_id():
    # §3 / §11.1: unparseable → UCR 1.0, source_preservation 0, "__document__" and every u reported.
    r = score(TASK, "<svg><g></svg>")
    assert r.unintended_change_rate == 1.0 and r.source_preservation == 0.0
    assert r.unexpected_changed_parts == ("__document__", "keep")
