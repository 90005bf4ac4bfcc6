"""Requested-edit checks, insertion and deletion (spec-reward.md §8, §17, §18).

Synthetic documents are 200×100 (``spec_docs``), as in the reference suite, so the caps are:
horizontal 5, vertical 2.5, points/path 3 (spec §8.2 with W = 200, H = 100).
"""

from __future__ import annotations

import pytest
from spec_docs import SOURCE, TARGET, X_EDIT, make_task, sub

from vector_gym.rewards.spec import score

PARITY = [False, True]


# -- requested-edit tolerance (§17) -----------------------------------------------------------------


@pytest.mark.parametrize("parity", PARITY)
def test_x_within_tolerance(parity):
    # §17/§14 synthetic: x 10→30, produced 33 → reward 1, not a target match,
    # distance 3, tolerance 5 = min(5, 10, 18), baseline 20, progress 1 − 3/20 = 0.85.
    r = score(make_task(), sub(TARGET, 'x="30"', 'x="33"'), parity)
    assert r.reward == 1.0 and not r.structural
    c = r.checks[0]
    assert (c.comparison, c.passed, c.distance, c.tolerance, c.baseline_distance, c.progress) == (
        "numeric-delta",
        True,
        3.0,
        5.0,
        20.0,
        0.85,
    )


@pytest.mark.parametrize("parity", PARITY)
def test_x_outside_tolerance(parity):
    # §17: produced 36 → d 6 > t 5: reward 0, repair fail, preservation pass; q = 1 − 6/20 = 0.7.
    r = score(make_task(), sub(TARGET, 'x="30"', 'x="36"'), parity)
    assert (r.reward, r.repair_pass, r.preservation_pass) == (0.0, False, True)
    assert r.checks[0].progress == 0.7
    assert r.status == "FAIL"


FILL_EDIT = {"part": "box", "attribute": "fill", "before": "#000000", "after": "#6a1a1a"}


def test_fill_repaired_to_close_colour():
    # §17: fill repaired to #6b1a1a instead of #6a1a1a → reward 1 via color-lab;
    # §8.8: ΔE76(#6a1a1a, #6b1a1a) = 0.504482.
    task = make_task(source=sub(TARGET, 'fill="#6a1a1a"', 'fill="#000000"'), edits=[FILL_EDIT])
    r = score(task, sub(TARGET, 'fill="#6a1a1a"', 'fill="#6b1a1a"'))
    assert r.reward == 1.0
    assert (r.checks[0].comparison, r.checks[0].distance, r.checks[0].tolerance) == (
        "color-lab",
        0.504482,
        18.0,
    )


def test_fill_moved_to_style():
    # §17: moving a requested fill into style="fill: …" → reward 1, preservation pass, not a target match.
    task = make_task(source=sub(TARGET, 'fill="#6a1a1a"', 'fill="#000000"'), edits=[FILL_EDIT])
    r = score(task, sub(TARGET, 'fill="#6a1a1a"', 'style="fill: #6a1a1a"'))
    assert (r.reward, r.preservation_pass, r.structural) == (1.0, True, False)


def _path_task(before, after, produced_d, parity=False):
    target = sub(TARGET, "</svg>", f'<path id="p" d="{after}" stroke="#000"/></svg>')
    source = sub(target, f'd="{after}"', f'd="{before}"')
    task = make_task(
        target=target,
        source=source,
        edits=[{"part": "p", "attribute": "d", "before": before, "after": after}],
    )
    return score(task, sub(target, f'd="{after}"', f'd="{produced_d}"'), parity)


@pytest.mark.parametrize("parity", PARITY)
def test_path_shape_near_target(parity):
    # §17: M10 10 L30 30 → M20 20 L40 40, produced M21 19 L41 39 → reward 1, path-shape.
    r = _path_task("M10 10 L30 30", "M20 20 L40 40", "M21 19 L41 39", parity)
    assert r.reward == 1.0 and r.checks[0].comparison == "path-shape"


@pytest.mark.parametrize("parity", PARITY)
def test_straight_cubic_vs_line(parity):
    # §17: target a straight cubic, produced a line → reward 1, path-shape, distance < 0.001.
    # (Control points at thirds, so both parametrisations sample the same points.)
    r = _path_task("M0 40 L90 40", "M0 20 C30 20 60 20 90 20", "M0 20 L90 20", parity)
    assert (
        r.reward == 1.0 and r.checks[0].comparison == "path-shape" and r.checks[0].distance < 0.001
    )


def test_requested_d_written_empty():
    # §18 / §8.9.6: d="" is valid, but the check fails with null distance and no coordinate route.
    r = _path_task("M10 10 L30 30", "M20 20 L40 40", "")
    c = r.checks[0]
    assert r.validity_pass and not c.passed
    assert (c.comparison, c.distance, c.tolerance, c.progress) == ("path-shape", None, None, None)


def test_truncated_repeat_path_parity_vs_default():
    # §18 / §8.9.1: "M20 20 L40 40 5 L90 90" is valid in parity mode and compared as its first
    # line only (so it passes); our default rejects it as invalid path syntax (§16 item 22).
    produced = "M20 20 L40 40 5 L90 90"
    p = _path_task("M10 10 L30 30", "M20 20 L40 40", produced, parity=True)
    assert p.validity_pass and p.checks[0].passed and p.checks[0].distance == 0.0
    d = _path_task("M10 10 L30 30", "M20 20 L40 40", produced, parity=False)
    assert not d.validity_pass and "invalid_path_syntax" in d.detail


def test_invalid_requested_viewbox():
    # §17: invalid requested viewBox → a report (no exception); reward 0, invalid, repair fail.
    edits = [
        {
            "part": "__svg",
            "attribute": "viewBox",
            "before": [0, 0, 100, 100],
            "after": [0, 0, 200, 100],
        }
    ]
    task = make_task(
        source=sub(TARGET, 'viewBox="0 0 200 100"', 'viewBox="0 0 100 100"'), edits=edits
    )
    r = score(task, sub(TARGET, 'viewBox="0 0 200 100"', 'viewBox="not-a-viewbox"'))
    assert (r.reward, r.validity_pass, r.repair_pass) == (0.0, False, False)
    assert "invalid_viewbox" in r.detail


# -- two checks, near pass (§18), labels (§17) ---------------------------------------------------------


def _two_check_task():
    # y before 30 after 10: δ = 20, t = min(cap 2.5, max(0.75, 10), 18) = 2.5 (§8.2, H = 100).
    edits = [X_EDIT, {"part": "box", "attribute": "y", "before": 30, "after": 10}]
    return make_task(source=sub(SOURCE, 'y="10"', 'y="30"'), edits=edits)


def test_near_pass():
    # §18: one exact check and one 3 units off with t = 2.5 → near pass, repair_progress
    # (1 + 0.85)/2 = 0.925; §17: labelled NEAR, not PARTIAL.
    r = score(_two_check_task(), sub(TARGET, 'y="10"', 'y="13"'))
    assert r.near_pass and r.reward == 0.0 and r.repair_progress == 0.925
    assert r.status == "NEAR"


def test_near_pass_needs_preservation():
    # §18: same plus an unrequested change → no near pass.
    produced = sub(sub(TARGET, 'y="10"', 'y="13"'), 'r="10"', 'r="11"')
    r = score(_two_check_task(), produced)
    assert not r.near_pass and r.status == "PARTIAL"


# -- scalar readings: nan / inf / 1_0 (§18, §16 item 7) -------------------------------------------------


def test_nan_parity_reproduces_reference_bug():
    # §18: scalar nan → check fails, progress 1, near pass true [bug] (parity mode).
    r = score(make_task(), sub(TARGET, 'x="30"', 'x="nan"'), parity=True)
    c = r.checks[0]
    assert not c.passed and c.progress == 1.0 and r.near_pass
    assert r.to_dict()["checks"][0]["distance"] == "nan"  # to_dict never holds a NaN


def test_nan_default_fails_without_progress():
    # §16 item 7, our default: 'nan' is not a number in a numeric attribute → the document is
    # invalid with a named reason (issue 10), the check fails, progress 0.
    r = score(make_task(), sub(TARGET, 'x="30"', 'x="nan"'))
    c = r.checks[0]
    assert not c.passed and c.progress == 0.0 and r.repair_progress == 0.0 and not r.near_pass
    assert not r.validity_pass and r.detail == ("invalid_number",)


@pytest.mark.parametrize("parity", PARITY)
def test_inf_fails_with_zero_progress(parity):
    # §18: inf → fails, progress 0 (parity); default: not a number, progress undefined → 0.
    r = score(make_task(), sub(TARGET, 'x="30"', 'x="inf"'), parity)
    assert not r.checks[0].passed and r.repair_progress == 0.0


def test_underscore_digits():
    # §7 [bug]: Python float() reads "3_0" as 30 → passes in parity mode; our default rejects it.
    produced = sub(TARGET, 'x="30"', 'x="3_0"')
    assert score(make_task(), produced, parity=True).checks[0].passed
    assert not score(make_task(), produced).checks[0].passed


@pytest.mark.parametrize("parity", PARITY)
def test_x_via_style_and_translate(parity):
    # §18: requested x written as style="x:30" → reward 1 (§7 step 9).
    r = score(make_task(), sub(TARGET, 'x="30"', 'style="x:30"'), parity)
    assert r.reward == 1.0
    # §18: written via translate(30 0) → repair pass, preservation fail (transform not masked, §9).
    r = score(make_task(), sub(TARGET, 'x="30"', 'transform="translate(30 0)"'), parity)
    assert r.repair_pass and not r.preservation_pass and r.checks[0].produced == 30


# -- fill none (§18) ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["none", "NONE", "None"])
def test_fill_none_passes_with_zero_progress(spelling):
    # §18 / §8.8: canonical-color fallback passes, progress undefined (counts 0).
    edit = {"part": "box", "attribute": "fill", "before": "#6a1a1a", "after": "none"}
    target = sub(TARGET, 'fill="#6a1a1a"', 'fill="none"')
    task = make_task(
        target=target, source=sub(target, 'fill="none"', 'fill="#6a1a1a"'), edits=[edit]
    )
    r = score(task, sub(target, 'fill="none"', f'fill="{spelling}"'))
    c = r.checks[0]
    assert r.reward == 1.0 and c.comparison == "canonical-color" and c.progress is None
    assert r.repair_progress == 0.0
    r = score(task, sub(target, 'fill="none"', 'fill="transparent"'))
    assert not r.checks[0].passed


# -- insertion and deletion (§8.5, §17, §18) ----------------------------------------------------------------

NEW = '<rect id="new" x="100" y="60" width="20" height="20" fill="#336699"/>'
INSERT_TARGET = sub(TARGET, '<circle id="keep"', NEW + '\n  <circle id="keep"')
INSERT_TASK = make_task(
    target=INSERT_TARGET,
    source=TARGET,
    edits=[{"part": "new", "attribute": "exists", "before": False, "after": True}],
)


@pytest.mark.parametrize("parity", PARITY)
def test_insertion_with_other_id_tolerances_and_style(parity):
    # §17: insertion satisfied by a different ID, x off by 3 and fill moved to style with a
    # ΔE-close colour → reward 1, comparison inserted-subtree; ratio 3/5 = 0.6 (cap 5, §8.5).
    produced = sub(
        INSERT_TARGET,
        NEW,
        '<rect id="added" x="103" y="60" width="20" height="20" style="fill:#336698"/>',
    )
    r = score(INSERT_TASK, produced, parity)
    c = r.checks[0]
    assert r.reward == 1.0 and c.comparison == "inserted-subtree"
    assert (c.distance, c.tolerance, c.progress) == (0.6, 1.0, 1.0)


def test_insertion_absent():
    # §17: requested insertion absent → produced value false, check fails.
    r = score(INSERT_TASK, TARGET)
    c = r.checks[0]
    assert c.produced is False and not c.passed and c.comparison == "existence"


def test_insertion_absent_with_shifted_same_tag_sibling():
    # §17 / §6: the target's <rect id="new"> sits at index 2; the produced document lacks it but
    # has another rect shifted into index 2 and the same child count, so only the positional
    # fallback could find it; the ID lookup of existence fails and no aliasing happens.
    shifted = sub(
        TARGET,
        '<circle id="keep"',
        '<rect id="other" x="1" y="1" width="2" height="2"/>\n  <circle id="keep"',
    )
    shifted = sub(shifted, '<line x1="0" y1="95" x2="200" y2="95" stroke="#333333"/>', "")
    shifted = sub(
        shifted, "</svg>", '<line x1="0" y1="95" x2="200" y2="95" stroke="#333333"/></svg>'
    )
    r = score(INSERT_TASK, shifted)
    c = r.checks[0]
    assert not c.passed and c.produced is False


@pytest.mark.parametrize("parity", PARITY)
def test_insertion_placed_before_sibling(parity):
    # §18: insertion placed before instead of after a sibling → reward 1 (placement unchecked).
    produced = sub(TARGET, '<rect id="box"', NEW + '\n  <rect id="box"')
    assert score(INSERT_TASK, produced, parity).reward == 1.0


@pytest.mark.parametrize(
    "variant",
    [
        '<rect id="new" x="100" y="60" width="20" height="20" fill="#336699" opacity="0.5"/>',  # extra attribute
        '<rect id="new" x="100" y="60" width="20" height="20"/>',  # missing attribute
        '<rect id="new" x="100" y="60" width="20" height="20" fill="#336699"><title>t</title></rect>',  # extra child
        '<circle id="new" x="100" y="60" width="20" height="20" fill="#336699"/>',  # wrong tag
    ],
    ids=["extra-attribute", "missing-attribute", "extra-child", "wrong-tag"],
)
def test_insertion_mismatch_fails(variant):
    # §18: extra attribute, missing attribute, extra child or wrong tag → check fails (q 0),
    # an outright failure with null distance and tolerance (§8.5).
    r = score(INSERT_TASK, sub(INSERT_TARGET, NEW, variant))
    c = r.checks[0]
    assert not c.passed and c.progress == 0.0 and c.distance is None and c.tolerance is None


POLY = '<polygon id="tri" points="0,0 10,0 10,10" fill="#000"/>'
POLY_TARGET = sub(TARGET, "</svg>", POLY + "</svg>")
POLY_TASK = make_task(
    target=POLY_TARGET,
    source=TARGET,
    edits=[{"part": "tri", "attribute": "exists", "before": False, "after": True}],
)


@pytest.mark.parametrize(
    "points", ["0,0 10,0 10,10 20,20 30,30", "0,0 10,0"], ids=["two-extra", "last-missing"]
)
def test_inserted_polygon_pairwise_truncation(points):
    # §18 [bug] / §16 item 19: parity passes extra or missing trailing vertices; default fails.
    produced = sub(POLY_TARGET, 'points="0,0 10,0 10,10"', f'points="{points}"')
    assert score(POLY_TASK, produced, parity=True).checks[0].passed
    assert not score(POLY_TASK, produced).checks[0].passed


@pytest.mark.parametrize("parity", PARITY)
def test_inserted_polygon_reversed(parity):
    # §18: vertices reversed → fails, distance = RMS 8.164966 / cap 3 = 2.721655 > 1.
    produced = sub(POLY_TARGET, 'points="0,0 10,0 10,10"', 'points="10,10 10,0 0,0"')
    c = score(POLY_TASK, produced, parity).checks[0]
    assert not c.passed and c.distance == pytest.approx(2.72, abs=0.005) and c.tolerance == 1.0


STRAY = '<circle id="stray" cx="20" cy="80" r="3" fill="#f00"/>'
DELETE_TASK = make_task(
    target=TARGET,
    source=sub(TARGET, "</svg>", STRAY + "</svg>"),
    edits=[{"part": "stray", "attribute": "exists", "before": True, "after": False}],
)


def test_deletion_malformed_output():
    # §17: malformed <svg><g></svg> on a deletion task → reward 0, completion 0, progress 0.
    r = score(DELETE_TASK, "<svg><g></svg>")
    assert (r.reward, r.edit_completion, r.repair_progress, r.produced_parse_ok) == (
        0.0,
        0.0,
        0.0,
        False,
    )


def test_deleted_stray_kept_under_new_id():
    # §18 / §9: repair pass (ID-only lookup), preservation fail (+newid).
    r = score(DELETE_TASK, sub(TARGET, "</svg>", STRAY.replace("stray", "newid") + "</svg>"))
    assert r.repair_pass and not r.preservation_pass and "+newid" in r.unexpected_changed_parts


def test_failed_deletion_costs_only_repair():
    # §9 consequences: a kept node with the same ID is masked away: repair fails, preservation passes.
    r = score(DELETE_TASK, DELETE_TASK.source_svg)
    assert not r.repair_pass and r.preservation_pass


def test_empty_e_and_u():
    # §18: E and U both empty, target copy → reward 1.
    r = score(make_task(edits=[], protected=[]), TARGET)
    assert r.reward == 1.0 and r.edit_completion == 1.0 and r.repair_progress == 1.0


def test_subpath_jump_sample_goes_to_following_segment():
    # §18 / §8.9.4: in "M0 0 L10 0 M0 10 L10 10" the fractions are [0, 0.5, 0.5, 1], so sample 64
    # lies on the following subpath, at (0, 10) — the geometry the path-shape check consumes.
    from vector_gym.svg.geometry import samples_for

    assert tuple(samples_for("M0 0 L10 0 M0 10 L10 10")[64]) == (0.0, 10.0)
