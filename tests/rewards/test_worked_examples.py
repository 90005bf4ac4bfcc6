"""The worked examples of spec-reward.md §14 (sv_001–020, viewport 220×140) with the printed numbers.

sv_005 and sv_001 re-score the published Claude Sonnet 5 outputs
(``tests/data/outcomes_sv001_020.jsonl.gz``); the others edit the target in one field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vector_gym.rewards.spec import score
from vector_gym.tasks.vector_bench import load_vector_bench, read_jsonl

TASKS = {t.task_id: t for t in load_vector_bench()}
ROWS = read_jsonl(Path(__file__).parents[1] / "data" / "outcomes_sv001_020.jsonl.gz")
PARITY = [False, True]


def published(task_id: str, model: str) -> str:
    return next(r["produced_svg"] for r in ROWS if r["task_id"] == task_id and r["model"] == model)


def edited(task_id: str, old: str, new: str) -> str:
    target = TASKS[task_id].target_svg
    assert target.count(old) == 1, old
    return target.replace(old, new)


def numbers(check):
    return (
        check.comparison,
        check.passed,
        check.distance,
        check.tolerance,
        check.baseline_distance,
        check.progress,
    )


@pytest.mark.parametrize("parity", PARITY)
def test_sv005_full_pass(parity):
    # §14 sv_005, Claude Sonnet 5: full pass.
    r = score(TASKS["sv_005"], published("sv_005", "anthropic/claude-sonnet-5"), parity)
    handlebar, pear, sticker = r.checks
    # δ = 4.230509, t = min(4.2, 2.961356, 3.807458) = 2.961356, d = 1.882512, q = 0.555015
    assert numbers(handlebar) == ("path-shape", True, 1.882512, 2.961356, 4.230509, 0.555015)
    # δ = 120.950239 ΔE, t = 18, d = 0, q = 1
    assert numbers(pear) == ("color-lab", True, 0.0, 18.0, 120.950239, 1.0)
    # deletion: produced absent → pass, q = 1
    assert (sticker.comparison, sticker.passed, sticker.produced, sticker.progress) == (
        "existence",
        True,
        False,
        1.0,
    )
    # repair_progress = (0.555015 + 1 + 1)/3 = 0.8516716666666667 (unrounded, §8.4)
    assert r.repair_progress == (0.555015 + 1 + 1) / 3
    assert len(TASKS["sv_005"].protected_ids) == 63 and r.unintended_change_rate == 0.0
    assert r.reward == 1.0 and r.status == "PASS"


@pytest.mark.parametrize("parity", PARITY)
def test_sv001_partial_with_side_effect(parity):
    # §14 sv_001, Claude Sonnet 5: valid, incomplete repair with a side effect.
    r = score(TASKS["sv_001"], published("sv_001", "anthropic/claude-sonnet-5"), parity)
    wire, door, amber = r.checks
    # overhead-wire: δ = 6.0, t = min(4.2, 4.2, 5.4) = 4.2, d = 8.964999 → fail, q = 0
    assert numbers(wire) == ("path-shape", False, 8.964999, 4.2, 6.0, 0.0)
    # train-door.x: before 139, after 128, δ = 11, t = 5.5; produced 104, d = 24 → fail, q = 0
    assert numbers(door) == ("numeric-delta", False, 24.0, 5.5, 11.0, 0.0) and door.produced == 104
    # signal-amber.fill: δ = 106.852806, t = 18, exact colour → pass, q = 1
    assert numbers(amber) == ("color-lab", True, 0.0, 18.0, 106.852806, 1.0)
    assert r.edit_completion == r.repair_progress == 1 / 3
    # door-handle moved: UCR = 1/62 = 0.016129
    assert r.unintended_change_rate == 1 / 62 and "door-handle" in r.unexpected_changed_parts
    assert (r.reward, r.status, r.preservation_pass) == (0.0, "PARTIAL", False)


@pytest.mark.parametrize(
    ("produced", "expected"), [("1.5", (False, 1.5, 0.5)), ("3", (True, 0.0, 1.0))]
)
def test_sv002_line_weight(produced, expected):
    # §14 sv_002 mast.stroke-width: before 6, after 3, δ = 3, cap max(1, 1.2) = 1.2,
    # t = min(1.2, 1.5, 2.7) = 1.2; produced 1.5 → d 1.5 fail, q 0.5; produced 3 → pass.
    r = score(
        TASKS["sv_002"],
        edited("sv_002", 'stroke-width="3" x1="126"', f'stroke-width="{produced}" x1="126"'),
    )
    c = r.checks[1]
    assert c.comparison == "line-weight-delta" and c.tolerance == 1.2 and c.baseline_distance == 3.0
    assert (c.passed, c.distance, c.progress) == expected


@pytest.mark.parametrize("parity", PARITY)
def test_sv002_coordinate_rms_route(parity):
    # §14 sv_002 rope-coil.d (Tencent HY 3): shape d = 4.646 > t = 4.2 fails; same command
    # stream (M C C C, 20 numbers) → coordinate route: δ_c = 3.49285, t_c = 2.444995,
    # d_c = 2.32379 → pass as path-coordinate-rms, q = 0.334701.
    r = score(TASKS["sv_002"], published("sv_002", "tencent/hy3"), parity)
    c = r.checks[0]
    assert c.produced == "M48 82 C58 72 72 74 74 86 C76 98 54 98 50 88 C46 78 62 78 66 88"
    assert (c.comparison, c.passed, c.tolerance, c.progress) == (
        "path-coordinate-rms",
        True,
        2.444995,
        0.334701,
    )
    assert c.distance == pytest.approx(2.32379, abs=1e-5) and c.baseline_distance == pytest.approx(
        3.49285, abs=1e-5
    )


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ("80,96 92,71 104,96", (True, 3.674235, 0.495305)),
        ("78,101 92,71 106,101", (False, 4.527693, 0.378074)),
    ],
)
def test_sv004_points(points, expected):
    # §14 sv_004 tent-flap.points: δ = 7.28011 → t = min(4.2, 4.00406, 6.552) = 4.00406.
    r = score(
        TASKS["sv_004"], edited("sv_004", 'points="82,96 96,66 110,96"', f'points="{points}"')
    )
    c = r.checks[3]
    assert (
        c.comparison == "points-rms" and c.tolerance == 4.00406 and c.baseline_distance == 7.28011
    )
    assert (c.passed, c.distance, c.progress) == expected


def test_sv008_caps_vs_ratios():
    # §14 sv_008: moon.cx δ = 12 → t = min(5.5, 6, 10.8) = 5.5 (cap binds); moon.cy δ = 6 →
    # t = min(3.5, 3, 5.4) = 3 (ratio binds). Produced cx 182 / cy 22 → both pass (q 0.833333, 0.666667).
    r = score(TASKS["sv_008"], edited("sv_008", 'cx="184" cy="24"', 'cx="182" cy="22"'))
    cx, cy = r.checks[1], r.checks[2]
    assert (cx.tolerance, cx.passed, cx.progress) == (5.5, True, 0.833333)
    assert (cy.tolerance, cy.passed, cy.progress) == (3.0, True, 0.666667)


HOUR = '<line id="clock-hour" stroke="#222" stroke-width="1.5" x1="196" y1="31" x2="196" y2="23" />'


@pytest.mark.parametrize("parity", PARITY)
def test_sv003_inserted_subtree(parity):
    # §14 sv_003: stroke-width 1.6 and y2 24: ratios 0.1/1.0 and 1/3.5 → distance 0.285714 ≤ 1 → pass.
    ok = HOUR.replace('stroke-width="1.5"', 'stroke-width="1.6"').replace('y2="23"', 'y2="24"')
    c = score(TASKS["sv_003"], edited("sv_003", HOUR, ok), parity).checks[3]
    assert (c.comparison, c.passed, c.distance, c.tolerance, c.progress) == (
        "inserted-subtree",
        True,
        0.285714,
        1.0,
        1.0,
    )
    # x2 200, y2 35: ratios 4/5.5 and 12/3.5 = 3.428571 → fail (q 0).
    bad = HOUR.replace('x2="196"', 'x2="200"').replace('y2="23"', 'y2="35"')
    c = score(TASKS["sv_003"], edited("sv_003", HOUR, bad), parity).checks[3]
    assert (c.comparison, c.passed, c.distance, c.tolerance, c.progress) == (
        "inserted-subtree",
        False,
        3.428571,
        1.0,
        0.0,
    )
    # clock-minute-dup deletion is a plain existence check.
    assert score(TASKS["sv_003"], TASKS["sv_003"].target_svg).checks[2].comparison == "existence"


@pytest.mark.parametrize(
    ("y", "expected"), [("66", (True, 1.0, 0.666667)), ("70", (False, 3.0, 0.0))]
)
def test_sv006_small_delta(y, expected):
    # §14 sv_006 cabin-window.y: δ = 3 → t = min(3.5, 1.5, 2.7) = 1.5; produced 66 → d = 1 pass,
    # q 0.666667; produced 70 → fail.
    r = score(TASKS["sv_006"], edited("sv_006", 'x="114" y="67"', f'x="114" y="{y}"'))
    c = r.checks[1]
    assert c.tolerance == 1.5 and (c.passed, c.distance, c.progress) == expected


def test_sv007_platform_edge():
    # §14 sv_007 platform-edge.height: δ = 5 → t = min(3.5, 2.5, 4.5) = 2.5.
    c = score(TASKS["sv_007"], TASKS["sv_007"].target_svg).checks[1]
    assert (c.attribute, c.tolerance, c.baseline_distance) == ("height", 2.5, 5.0)
