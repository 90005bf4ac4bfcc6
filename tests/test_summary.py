"""Aggregates: Wilson interval, per-policy table, leaderboard order (spec-reward.md section 13)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vector_gym.summary import (
    Z95,
    GroupSummary,
    format_table,
    is_error_row,
    latest_rows,
    leaderboard,
    outcome_fields,
    summarize,
    wilson_interval,
)
from vector_gym.tasks.vector_bench import read_jsonl

DATA = Path(__file__).parent / "data"


# ------------------------------------------------------------------ Wilson (spec §13, §17)
def test_z_is_the_reference_quantile():
    assert Z95 == 1.959963984540054  # spec-reward.md §13


def test_wilson_zero_of_forty():
    # spec §13: 0/40 -> [0, 0.0876]; §17: upper strictly between 0.08 and 0.10
    low, high = wilson_interval(0, 40)
    assert low == 0.0
    assert 0.08 < high < 0.10
    assert high == pytest.approx(0.0876, abs=5e-5)
    assert high == pytest.approx(Z95**2 / (40 + Z95**2), rel=1e-12)  # closed form at k = 0


def test_wilson_six_of_forty():
    # spec §13: 6/40 -> [0.0706, 0.2907]; §17: contains 0.15
    low, high = wilson_interval(6, 40)
    assert low == pytest.approx(0.0706, abs=5e-5)
    assert high == pytest.approx(0.2907, abs=5e-5)
    assert low < 0.15 < high


def test_wilson_is_symmetric_and_clipped():
    low, high = wilson_interval(40, 40)
    assert high == 1.0 and low == pytest.approx(1 - wilson_interval(0, 40)[1], rel=1e-12)
    l3, h3 = wilson_interval(3, 20)
    l17, h17 = wilson_interval(17, 20)
    assert (l3, h3) == pytest.approx((1 - h17, 1 - l17), rel=1e-12)


@pytest.mark.parametrize("k, n", [(0, 0), (-1, 10), (11, 10)])
def test_wilson_rejects_bad_counts(k, n):
    with pytest.raises(ValueError):
        wilson_interval(k, n)


# ------------------------------------------------------------------ per-group aggregates
def _row(
    policy, reward=0, near=False, repair=False, clean=False, valid=True, progress=0.0, ucr=0.0
):
    return {
        "policy": policy,
        "report": {
            "reward": float(reward),
            "near_pass": near,
            "repair_pass": repair,
            "preservation_pass": clean,
            "validity_pass": valid,
            "repair_progress": progress,
            "unintended_change_rate": ucr,
        },
    }


def test_aggregate_ucr_counts_valid_rows_only():
    # spec §17: one invalid row (UCR 1.0) + one valid row (UCR 0.2) -> 0.2
    rows = [_row("p", valid=False, ucr=1.0), _row("p", valid=True, ucr=0.2)]
    (s,) = summarize(rows)
    assert s.ucr == pytest.approx(0.2)
    assert s.valid == 0.5


def test_aggregate_ucr_undefined_without_valid_rows():
    # spec §17: only invalid rows -> undefined (None); JSON null
    (s,) = summarize([_row("p", valid=False, ucr=1.0), _row("p", valid=False, ucr=1.0)])
    assert s.ucr is None
    assert s.to_dict()["ucr"] is None


def test_rates_and_json_percentages():
    rows = [
        _row("a", reward=1, repair=True, clean=True, progress=0.9),
        _row("a", near=True, clean=True, progress=0.85, ucr=0.0),
        _row("a", repair=True, progress=1.0, ucr=0.5),
        _row("a", valid=False, progress=0.0, ucr=1.0),
    ]
    (s,) = summarize(rows)
    assert (s.n, s.full, s.near, s.repair, s.clean, s.valid) == (4, 0.25, 0.25, 0.5, 0.5, 0.75)
    assert s.progress == pytest.approx(2.75 / 4)
    assert s.ucr == pytest.approx(0.5 / 3)
    d = s.to_dict()
    assert list(d) == [
        "policy",
        "n",
        "full",
        "near",
        "repair",
        "progress",
        "clean",
        "ucr",
        "valid",
        "full_ci",
        "err",
    ]
    assert d["err"] == 0.0
    assert d["full"] == 25.0 and d["valid"] == 75.0 and d["progress"] == pytest.approx(68.75)
    assert d["full_ci"] == pytest.approx([100 * x for x in wilson_interval(1, 4)])


def test_outcome_fields_reads_flat_published_rows_and_nan_strings():
    f = outcome_fields(
        {
            "reward": 1,
            "near_pass": False,
            "repair_pass": True,
            "validity_pass": True,
            "preservation_pass": True,
            "repair_progress": "nan",
            "unintended_change_rate": 0,
        }
    )
    assert f["reward"] == 1.0 and f["repair_progress"] == 0.0 and f["unintended_change_rate"] == 0.0
    # a provider error with no fields at all counts as a failure (spec §12)
    g = outcome_fields({"model": "m", "error": {"code": 404}})
    assert g == {
        "reward": 0.0,
        "near_pass": False,
        "repair_pass": False,
        "preservation_pass": False,
        "validity_pass": False,
        "repair_progress": 0.0,
        "unintended_change_rate": None,
    }


def test_summarize_keeps_first_appearance_order_and_requires_group_field():
    rows = [_row("b"), _row("a"), _row("b")]
    assert [s.label for s in summarize(rows)] == ["b", "a"]
    with pytest.raises(KeyError, match="model"):
        summarize(rows, by="model")


def test_format_table_layout():
    s = summarize([_row("identity", clean=True, ucr=0.0)] * 20)[0]
    lines = format_table([s]).splitlines()
    assert lines[0].split() == [
        "Policy",
        "N",
        "Full",
        "Near",
        "Repair",
        "Progress",
        "Clean",
        "UCR",
        "Valid",
        "Full",
        "95%",
        "CI",
        "Err.",
    ]
    assert lines[1].split() == [
        "identity",
        "20",
        "0.0",
        "0.0",
        "0.0",
        "0.0",
        "100.0",
        "0.0",
        "100.0",
        "[0.0,",
        "16.1]",
        "0.0",
    ]
    t = summarize([_row("bad", valid=False)])[0]
    assert format_table([t]).splitlines()[1].split()[7] == "-"


# ------------------------------------------------------------------ leaderboard order
# Vector-Bench Appendix B ("Full Endpoint Results", 40 tasks, percentages; None = "–"),
# in the published order: name, Full, Near, Repair, Progress, Clean, UCR, Valid.
APPENDIX_B = [
    ("Claude Sonnet 5", 15.0, 2.5, 15.0, 43.7, 42.5, 0.8, 62.5),
    ("KAT Coder Air V2.5", 12.5, 0.0, 15.0, 27.3, 25.0, 0.3, 42.5),
    ("MiniMax M3", 10.0, 0.0, 10.0, 33.0, 25.0, 1.0, 45.0),
    ("HY 3", 7.5, 2.5, 10.0, 56.8, 37.5, 1.8, 100.0),
    ("Gemma 4 31B IT", 5.0, 5.0, 10.0, 54.8, 47.5, 0.8, 87.5),
    ("Qwen3.5 397B A17B", 5.0, 0.0, 5.0, 39.8, 32.5, 1.4, 65.0),
    ("DeepSeek V4 Pro", 5.0, 2.5, 5.0, 30.6, 20.0, 1.2, 47.5),
    ("Kimi K2.6", 5.0, 5.0, 5.0, 16.0, 15.0, 0.3, 25.0),
    ("Qwen3 Coder", 2.5, 0.0, 5.0, 54.7, 45.0, 1.4, 100.0),
    ("Gemini 3.1 Flash Lite", 2.5, 0.0, 7.5, 54.5, 25.0, 2.5, 100.0),
    ("Devstral 2512", 2.5, 5.0, 2.5, 46.0, 57.5, 0.6, 97.5),
    ("Inkling", 2.5, 0.0, 2.5, 26.6, 27.5, 0.8, 45.0),
    ("GPT-5", 2.5, 0.0, 2.5, 9.1, 7.5, 0.3, 15.0),
    ("Nemotron 3 Ultra", 2.5, 0.0, 2.5, 4.9, 5.0, 0.5, 7.5),
    ("Claude Haiku 4.5", 0.0, 0.0, 2.5, 54.0, 27.5, 2.0, 100.0),
    ("Seed 2.0 Mini", 0.0, 2.5, 2.5, 51.2, 35.0, 2.0, 92.5),
    ("GPT-OSS 120B", 0.0, 5.0, 0.0, 49.9, 42.5, 1.1, 95.0),
    ("Llama 4 Maverick", 0.0, 0.0, 2.5, 46.9, 20.0, 2.5, 92.5),
    ("Mistral Small 2603", 0.0, 0.0, 0.0, 39.0, 5.0, 4.7, 95.0),
    ("GPT-5.4 Nano", 0.0, 0.0, 0.0, 38.0, 22.5, 2.2, 97.5),
    ("GPT-OSS 20B", 0.0, 2.5, 2.5, 36.5, 27.5, 1.6, 72.5),
    ("Phi-4", 0.0, 0.0, 0.0, 30.7, 12.5, 3.8, 92.5),
    ("Laguna M.1", 0.0, 2.5, 0.0, 23.3, 25.0, 1.4, 42.5),
    ("Ling 2.6 Flash", 0.0, 0.0, 0.0, 19.4, 15.0, 4.8, 87.5),
    ("Granite 4.1 8B", 0.0, 0.0, 0.0, 18.5, 10.0, 14.3, 77.5),
    ("GLM 4.7", 0.0, 0.0, 0.0, 15.1, 12.5, 0.9, 30.0),
    ("MiMo V2.5 Pro", 0.0, 0.0, 0.0, 6.4, 5.0, 0.8, 10.0),
    ("Qwen3.6 35B A3B", 0.0, 0.0, 2.5, 4.9, 2.5, 1.4, 7.5),
    ("Trinity Large Thinking", 0.0, 0.0, 0.0, 1.8, 0.0, 0.0, 2.5),
    ("Gemini 3.1 Pro Preview", 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0),
    ("Nemotron 3 Nano", 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0),
    ("OLMo 3 32B Think", 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0),
    ("Reka Flash 3", 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0),
    ("Step 3.7 Flash", 0.0, 0.0, 0.0, 0.0, 0.0, None, 0.0),
]


def test_leaderboard_order_reproduces_appendix_b():
    sums = [
        GroupSummary(
            name,
            name,
            40,
            f / 100,
            ne / 100,
            r / 100,
            p / 100,
            c / 100,
            None if u is None else u / 100,
            v / 100,
            wilson_interval(round(f * 0.4), 40),
        )
        for name, f, ne, r, p, c, u, v in APPENDIX_B
    ]
    shuffled = sums[:]
    random.Random(0).shuffle(shuffled)
    assert [s.name for s in leaderboard(shuffled)] == [row[0] for row in APPENDIX_B]


def test_leaderboard_tie_breaks():
    def g(name, full=0.0, progress=0.0, ucr=None, valid=0.0):
        return GroupSummary(name, name, 20, full, 0, 0, progress, 0, ucr, valid, (0.0, 0.0))

    ranked = leaderboard(
        [
            g("b"),
            g("a"),  # full ties -> ... -> name, code-point order
            g("Z", valid=0.5, ucr=0.3),  # UCR defined beats null
            g("y", valid=0.5, ucr=0.1),  # lower UCR first
            g("w", valid=0.9, ucr=0.1),  # same UCR: higher validity first
            g("p", progress=0.4),
            g("f", full=0.05),  # progress, then full pass dominate
        ]
    )
    assert [s.name for s in ranked] == ["f", "p", "w", "y", "Z", "a", "b"]
    assert [s.name for s in leaderboard([g("b"), g("B"), g("a")])] == ["B", "a", "b"]  # code points


def _published_rows():
    return read_jsonl(DATA / "outcomes_sv001_020.jsonl.gz")


def test_published_outcomes_totals():
    # vector_bench data README / spec §13: 680 rows, 10 reward, 8 near, 13 repair,
    # 211 preservation, 392 valid over sv_001-020; 34 models x 20 tasks.
    sums = summarize(_published_rows(), by="model")
    assert len(sums) == 34 and all(s.n == 20 for s in sums)
    assert round(sum(s.full * s.n for s in sums)) == 10
    assert round(sum(s.near * s.n for s in sums)) == 8
    assert round(sum(s.repair * s.n for s in sums)) == 13
    assert round(sum(s.clean * s.n for s in sums)) == 211
    assert round(sum(s.valid * s.n for s in sums)) == 392


def test_published_outcomes_error_rate():
    # 21 of the 680 published rows carry a provider error (``error`` set, produced_svg null,
    # status ERR): all 20 of allenai/olmo-3-32b-think (HTTP 404) and one connection error of
    # moonshotai/kimi-k2.6 (read off tests/data/outcomes_sv001_020.jsonl.gz).
    rows = _published_rows()
    errors = [r for r in rows if r.get("error")]
    assert len(errors) == 21 and all(r["status"] == "ERR" for r in errors)
    (olmo,) = summarize([r for r in rows if r["model"] == "allenai/olmo-3-32b-think"], by="model")
    (kimi,) = summarize([r for r in rows if r["model"] == "moonshotai/kimi-k2.6"], by="model")
    assert (olmo.err, kimi.err) == (1.0, 0.05)
    sums = summarize(rows, by="model")
    assert round(sum(s.err * s.n for s in sums)) == 21
    per_model = {m: sum(1 for r in errors if r["model"] == m) for m in {r["model"] for r in errors}}
    for s in sums:
        assert s.err == per_model.get(s.label, 0) / 20
        assert s.to_dict("model")["err"] == pytest.approx(100 * per_model.get(s.label, 0) / 20)


def test_is_error_row_cases():
    ok = {"reward": 0.0, "status": "INVALID"}
    assert not is_error_row({"report": ok, "finish_reason": "length"})
    assert not is_error_row({"model": "m", **ok})  # a flat published row with verdicts
    assert is_error_row({"report": ok, "finish_reason": "error"})  # the request failed
    assert is_error_row({"model": "m", "error": {"code": "request_error"}, **ok})
    assert is_error_row({"report": {"reward": 0.0, "status": "ERR"}})  # produced_svg null
    assert is_error_row({"report": "not a dict"}) and is_error_row({"report": {}})
    assert is_error_row({"model": "m"})  # no report, no verdicts
    assert not is_error_row({"model": "m", "error": None, **ok})


def test_err_column_in_table_and_json():
    failed = {**_row("p"), "finish_reason": "error"}
    rows = [_row("p", reward=1, repair=True, clean=True, progress=1.0)] * 3 + [failed]
    (s,) = summarize(rows)
    assert s.err == 0.25 and s.full == 0.75 and s.trunc == 0.0  # trunc: one row records a reason
    assert s.to_dict()["err"] == 25.0
    header, line = format_table([s]).splitlines()
    assert header.split()[-2:] == ["Err.", "Trunc."]
    assert line.split()[-2:] == ["25.0", "0.0"]


def test_newest_row_per_rollout_key_wins():
    key = {"env": "e", "policy": "p", "sample_index": 0}
    failed = {**key, "task_id": "t1", "finish_reason": "error", "report": {"reward": 0.0}}
    other = {**key, "task_id": "t2", "finish_reason": "stop", "report": {"reward": 0.0}}
    retried = {**key, "task_id": "t1", "finish_reason": "stop", "report": {"reward": 1.0}}
    keyless = {"policy": "p", "task_id": "t1", "report": {"reward": 0.0}}
    assert latest_rows([failed, other, retried, keyless]) == [retried, other, keyless]
    (s,) = summarize([failed, other, retried])
    assert (s.n, s.full, s.err) == (2, 0.5, 0.0)
    (s,) = summarize([failed, other])
    assert (s.n, s.full, s.err) == (2, 0.0, 0.5)


def test_published_ranking_order_recomputed_from_verdict_fields():
    """Rank the 34 models on their published verdict fields, independently of summary.py."""
    rows = _published_rows()
    per: dict[str, dict] = {}
    for r in rows:
        m = per.setdefault(
            r["model"], {"name": r["name"], "n": 0, "full": 0, "prog": 0.0, "valid": 0, "ucr": []}
        )
        m["n"] += 1
        m["full"] += r["reward"]
        m["prog"] += r["repair_progress"]
        m["valid"] += r["validity_pass"]
        if r["validity_pass"]:
            m["ucr"].append(r["unintended_change_rate"])

    def key(item):
        _, m = item
        ucr = sum(m["ucr"]) / len(m["ucr"]) if m["ucr"] else None
        return (
            -m["full"] / m["n"],
            -m["prog"] / m["n"],
            ucr is None,
            ucr or 0.0,
            -m["valid"] / m["n"],
            m["name"],
        )

    expected = [model for model, _ in sorted(per.items(), key=key)]
    got = summarize(rows, by="model", order="leaderboard")
    assert [s.label for s in got] == expected
    # on sv_001-020 alone the leader is KAT Coder Air V2.5 with 3 of 20 full passes, then two
    # models with 2 of 20 split by repair progress (HY 3 before Claude Sonnet 5); read off the rows
    assert [s.name for s in got[:3]] == ["KAT Coder Air V2.5", "HY 3", "Claude Sonnet 5"]
    assert got[0].full == 3 / 20 and got[1].full == got[2].full == 2 / 20
    assert got[1].progress > got[2].progress
    assert got[0].full_ci == wilson_interval(3, 20)
    # display names break the final ties (code-point order), as in Appendix B's last rows
    tail = [s for s in got if s.full == 0 and s.progress == 0 and s.ucr is None and s.valid == 0]
    assert [s.name for s in tail] == sorted(s.name for s in tail) and len(tail) >= 2
