"""SpecReport / CheckReport records and failure-reason constants (style.md "Records and reports")."""

from __future__ import annotations

import json

from spec_docs import TARGET, make_task, sub

from vector_gym.rewards import failures as F
from vector_gym.rewards.report import CheckReport, SpecReport
from vector_gym.rewards.spec import get_scorer, score, score_many, score_response
from vector_gym.tasks.vector_bench import load_vector_bench

TASK = make_task()


def test_round_trip_is_json_and_lossless():
    for produced, parity in [
        (TARGET, False),
        (sub(TARGET, 'x="30"', 'x="nan"'), True),
        ("<svg", False),
        (None, False),
    ]:
        r = score(TASK, produced, parity)
        d = r.to_dict()
        text = json.dumps(d, allow_nan=False)  # plain JSON, no NaN anywhere
        back = SpecReport.from_dict(json.loads(text))
        assert back.to_dict() == d
        if produced is not None and "nan" not in produced:
            assert back == r


def test_nan_distance_serialised_as_string():
    # Parity mode, x="nan": d = NaN (§8.4 NaN hazard) is written "nan" and read back as NaN.
    r = score(TASK, sub(TARGET, 'x="30"', 'x="nan"'), parity=True)
    d = r.checks[0].to_dict()
    assert d["distance"] == "nan" and d["produced"] == "nan"
    assert CheckReport.from_dict(d).distance != CheckReport.from_dict(d).distance  # NaN


def test_failure_reasons_are_the_spec_names():
    # §11.2: the three names verbatim, in order; detail codes are a separate closed set.
    assert F.FAILURE_REASONS == (
        "invalid_svg",
        "requested_repairs_incomplete",
        "unintended_document_changes",
    )
    assert not set(F.FAILURE_REASONS) & set(F.DETAIL_CODES)
    r = score(TASK, "<svg/>")
    assert set(r.failure_reasons) <= set(F.FAILURE_REASONS) and set(r.detail) <= set(F.DETAIL_CODES)


def test_field_names_match_published_rows():
    # Published outcome rows (data README) use these names; ours must be identical.
    published = {
        "reward",
        "near_pass",
        "repair_pass",
        "preservation_pass",
        "source_preservation_pass",
        "validity_pass",
        "exact",
        "structural",
        "edit_completion",
        "repair_progress",
        "preservation",
        "source_preservation",
        "unintended_change_rate",
        "produced_parse_ok",
        "produced_valid_svg",
        "status",
    }
    assert published <= set(SpecReport.__dataclass_fields__)
    assert {
        "part",
        "attribute",
        "comparison",
        "passed",
        "distance",
        "tolerance",
        "baseline_distance",
        "progress",
    } <= set(CheckReport.__dataclass_fields__)


def test_scorer_cache_and_batch():
    tasks = load_vector_bench()[:3]
    assert get_scorer(tasks[0]) is get_scorer(tasks[0])
    assert get_scorer(tasks[0], parity=True) is not get_scorer(tasks[0])
    outs = [t.target_svg for t in tasks]
    assert [r.reward for r in score_many(tasks, outs)] == [1.0, 1.0, 1.0]
    assert [r.reward for r in score_many(tasks, outs, processes=2)] == [1.0, 1.0, 1.0]


def test_score_response_extracts():
    # §2 extraction, then scoring: a fenced answer after prose.
    r = score_response(TASK, "Sure!\n```svg\n" + TARGET + "\n```\nDone.")
    assert r.reward == 1.0
    r = score_response(TASK, "Sure!\n```svg\n" + TARGET + "\n```", parity=True)
    assert r.reward == 1.0 and r.parity


def test_score_many_responses():
    # responses=True extracts first (as the TRL reward function calls it).
    tasks = load_vector_bench()[:2]
    outs = [f"Answer:\n```svg\n{t.target_svg}\n```" for t in tasks]
    assert [r.reward for r in score_many(tasks, outs, responses=True)] == [1.0, 1.0]
    assert [r.detail for r in score_many(tasks, ["no", None], responses=True)] == [
        ("no_svg_found",),
        ("provider_error",),
    ]


def test_json_safe_plain_values_lists_and_non_finite_floats():
    import numpy as np

    from vector_gym.rewards.report import json_safe

    assert json_safe([1, True, None, "a", 2.5, float("inf"), (1, float("nan")), [float("-inf")]]) == [
        1, True, None, "a", 2.5, "inf", [1, "nan"], ["-inf"]]
    assert json_safe((0.5, -0.0)) == [0.5, -0.0] and json_safe(()) == []
    assert json_safe(np.float64("nan")) == "nan" and json_safe(np.float64(1.5)) == 1.5
    assert json_safe([np.float64("inf"), np.float64(2.0)]) == ["inf", 2.0]
    assert json_safe(float("-inf")) == "-inf" and json_safe(7) == 7
