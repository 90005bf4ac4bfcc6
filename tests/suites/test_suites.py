"""The suite registry and the one scorer protocol (issue 9)."""

from __future__ import annotations

import gc

import pytest

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.suites import Suite, get_suite, list_suites, register_suite, suite_names
from vector_gym.tasks.task import Task

NS = 'xmlns="http://www.w3.org/2000/svg"'


def test_builtin_suites_registered_with_cli_aliases_and_env_ids():
    assert suite_names()[:4] == ["vector_bench", "svgeditbench_v1", "svgeditbench_v2", "repairgen"]
    for alias, name in [
        ("vector-bench", "vector_bench"),
        ("vector_gym/VectorBench-v0", "vector_bench"),
        ("svgeditbench-v1", "svgeditbench_v1"),
        ("vector_gym/SVGEditBenchV2-v0", "svgeditbench_v2"),
        ("repairgen", "repairgen"),
        ("vector_gym/RepairGen-v0", "repairgen"),
    ]:
        assert get_suite(alias).name == name
    with pytest.raises(ConfigError, match="vector_bench"):
        get_suite("nope")


def test_same_options_same_instance_and_options_validated():
    a = get_suite("vector_bench", parity=True)
    assert get_suite("vector-bench", parity=True) is a and a is not get_suite("vector_bench")
    assert a.options["parity"] is True
    with pytest.raises(ConfigError, match="progress_weight"):
        get_suite("vector_bench", progress_weight=-1)
    with pytest.raises(ConfigError, match="backend"):
        get_suite("svgeditbench_v2", backend="gdi")


def test_vector_bench_score_many_takes_raw_responses_and_reward_is_shaped():
    s = get_suite("vector_bench")
    tasks = s.tasks()
    assert len(tasks) == 20 and s.get_task("sv_005") is tasks[4]
    fenced = f"Here:\n```svg\n{tasks[0].target_svg}\n```"
    reports = s.score_many(tasks[:3], [fenced, "no svg", tasks[2].source_svg])
    assert [r.reward for r in reports] == [1.0, 0.0, 0.0]
    assert reports[1].detail == ("no_svg_found",)
    assert s.reward(reports[0]) == pytest.approx(1.2)  # 1 + 0.2 * progress 1
    assert s.reward(reports[0].to_dict()) == pytest.approx(1.2)
    assert get_suite("vector_bench", progress_weight=0.0).reward(reports[0]) == 1.0
    assert s.extract(fenced) == tasks[0].target_svg.strip()
    with pytest.raises(UnknownTaskError):
        s.get_task("sv_999")


def test_svgeditbench_v2_scores_with_its_rule_and_budget():
    s = get_suite("svgeditbench_v2", dino_model=None, clip_model=None, processes=0)
    t = s.get_task("v2-0000")
    r1, r2, r3 = s.score_many([t] * 3, [f"```svg\n{t.target_svg}\n```", "nothing", f"```svg\n{t.source_svg}\n```"])
    assert (r1.reward, r2.reward, r3.reward) == (1.0, 0.0, 0.0)
    assert r2.failure_reasons == ("extraction_error",)
    assert s.token_budget({"svg": "x" * 100_000}) == 8192
    assert s.template("svg").name == "svgeditbench-v2"
    assert s.summary_columns[1:] == ("mse", "dino", "clipscore", "chamfer", "extraction_error", "parsing_error")


def test_repairgen_resolves_generated_ids_of_any_split_and_seed():
    s = get_suite("repairgen")
    test = s.tasks(n=2)
    assert [t.task_id for t in test] == ["rg-test-s0-0000000", "rg-test-s0-0000001"]
    fresh = get_suite("repairgen", seed=0, n=3)  # another instance: regenerates, not remembered
    assert fresh.get_task("rg-test-s0-0000001") == test[1]
    other = s.get_task("rg-train-s7-0000004")
    assert other.task_id == "rg-train-s7-0000004" and other.family == "repairgen"
    (r,) = s.score_many([other], [other.target_svg])
    assert r.reward == 1.0
    with pytest.raises(UnknownTaskError, match="rg-SPLIT"):
        s.get_task("sv_001")


@pytest.mark.parametrize("task_id", [
    "rg-test-s0-00000042",                # a longer spelling of rg-test-s0-0000042
    "rg-test-s00-0000042",                # a leading zero in the seed
    "rg-test-s\u0660-\u0660\u0660\u0660\u0660\u0660\u0664\u0662",  # Arabic-Indic digits
    "rg-test-s0-" + "9" * 5000,           # over Python's int-from-str limit
    "rg-test-s" + "9" * 5000 + "-0000001",
])
def test_repairgen_refuses_ids_it_would_not_write(task_id):
    # an id resolves only to the task that carries exactly that id: no aliases, no crash
    with pytest.raises(UnknownTaskError, match="rg-SPLIT"):
        get_suite("repairgen").get_task(task_id)


def test_score_many_leaves_gc_state_as_found():
    s = get_suite("vector_bench")
    t = s.tasks()[0]
    assert gc.isenabled()
    s.score_many([t], [t.target_svg + " "])
    assert gc.isenabled()
    gc.disable()
    try:
        s.score_many([t], [t.target_svg + "  "])
        assert not gc.isenabled()  # a caller's disabled collector stays disabled
    finally:
        gc.enable()


def test_summary_tables_per_suite():
    rows = [
        {"policy": "p", "task_id": "v2-0000", "report": {"mse": 0.5, "extraction_error": False, "parsing_error": False}},
        {"policy": "p", "task_id": "v2-0001", "report": {"extraction_error": True, "parsing_error": False}},
    ]
    s = get_suite("svgeditbench_v2")
    (summary,) = s.summarize(rows)
    assert summary["n"] == 2 and summary["mse"] == 0.5 and summary["extraction_error"] == 0.5
    assert "extraction error" in s.format_summary(rows)


class _Exact:
    def score_many(self, tasks, responses):
        from vector_gym.rewards.raster import RasterReport

        return [RasterReport(reward=float(r == t.target_svg)) for t, r in zip(tasks, responses, strict=True)]


def test_register_a_suite_of_parts():
    task = Task(task_id="c1", family="custom-x", instruction="i", source_svg=f"<svg {NS}/>", target_svg=f"<svg {NS}><g/></svg>")
    suite = Suite("custom_x", tasks=[task], scorer=_Exact(), family="custom-x", aliases=("cx",))
    register_suite(suite, replace=True)
    assert get_suite("cx") is suite and "custom_x" in suite_names() and suite in list_suites()
    assert [r.reward for r in suite.score_many([task, task], [task.target_svg, "x"])] == [1.0, 0.0]
    with pytest.raises(ConfigError, match="already registered"):
        register_suite(Suite("custom_x", tasks=[task], scorer=_Exact()))
    with pytest.raises(ConfigError, match="score_many"):
        Suite("bad", tasks=[task], scorer=object())


def test_layers_policies_never_import_suites_and_suites_never_gymnasium():
    """docs/architecture.md: policies get templates from the caller (or the defaults that
    registering a suite fills in); suites know neither Gymnasium nor a model."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "vector_gym"
    imp = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.M)
    for f in (root / "policies").glob("*.py"):
        mods = imp.findall(f.read_text())
        assert not [m for m in mods if m.startswith(("vector_gym.suites", "vector_gym.envs", "vector_gym.rewards"))], f
    for f in (root / "suites").glob("*.py"):
        mods = imp.findall(f.read_text())
        assert not [m for m in mods if m.startswith(("gymnasium", "vector_gym.envs", "torch", "transformers"))], f


def test_suites_publish_their_templates_and_budgets_to_the_policies():
    from vector_gym.policies.templates import BUDGETS, default_max_tokens, select_template
    from vector_gym.suites.templates import SVGEDITBENCH_V2_PATCH, VECTOR_BENCH

    assert select_template({"family": "repairgen"}) is VECTOR_BENCH
    assert select_template({"family": "svgeditbench-v2", "action_format": "patch"}) is SVGEDITBENCH_V2_PATCH
    assert BUDGETS["svgeditbench-v2"]({"svg": "x" * 100_000}) == 8192 and "vector-bench" not in BUDGETS
    obs = {"family": "vector-bench", "svg": "x" * 20_000}
    assert default_max_tokens(obs) == get_suite("vector_bench").token_budget(obs) == 12_048


def test_a_suite_refuses_tasks_of_a_suite_with_another_reward():
    # the specification reward on an SVGEditBench triplet (or v1's 72 px scorer on a V2 one)
    # gave a verdict under the wrong reward (the hidden target "passed" with reward 1.0)
    vb, v1, v2, rg = (get_suite(n) for n in ("vector_bench", "svgeditbench_v1", "svgeditbench_v2", "repairgen"))
    t1, t2, tv, tr = v1.tasks()[0], v2.tasks()[0], vb.tasks()[0], rg.tasks(n=1)[0]
    for suite, task in [(vb, t2), (vb, t1), (rg, t2), (v1, t2), (v2, t1), (v2, tv)]:
        with pytest.raises(ConfigError, match=f"suite {task.family.replace('-', '_')!r}"):
            suite.score_many([task], [task.target_svg])
        with pytest.raises(ConfigError):
            suite.score_extracted([task], [task.target_svg])
    # the specification-reward suites share one reward: their tasks score in each other
    assert [r.reward for r in vb.score_many([tr, tv], [tr.target_svg, tv.target_svg])] == [1.0, 1.0]
    assert [r.reward for r in rg.score_many([tv], [tv.target_svg])] == [1.0]
