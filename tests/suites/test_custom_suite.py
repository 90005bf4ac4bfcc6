"""A user's own suite in about 30 lines, working in an env, eval, rescore and the TRL reward."""

from __future__ import annotations

import json

import pytest
from gymnasium.utils.env_checker import check_env

from vector_gym.cli import main
from vector_gym.envs import make_env
from vector_gym.integrations.trl import spec_reward_func
from vector_gym.rewards.spec import SpecRewardScorer
from vector_gym.suites import Suite, get_suite, register_suite
from vector_gym.tasks.task import RequestedEdit, Task

# ---- the custom suite: 30 lines -------------------------------------------------------------
NS = 'xmlns="http://www.w3.org/2000/svg"'


def _task(i: int, before: str, after: str) -> Task:
    svg = '<svg {ns} viewBox="0 0 10 10"><rect id="r" width="4" height="4" fill="{c}"/><circle id="c" r="2"/></svg>'
    return Task(
        task_id=f"dot-{i}",
        family="dots",
        instruction=f"The square should be {after}, not {before}.",
        source_svg=svg.format(ns=NS, c=before),
        target_svg=svg.format(ns=NS, c=after),
        requested_edits=(RequestedEdit("r", "fill", before, after),),
        protected_ids=("c",),
    )


DOTS = Suite(
    "dots",
    tasks=[_task(0, "#ff0000", "#0000ff"), _task(1, "#00ff00", "#000000")],
    scorer=SpecRewardScorer(),  # the specification reward; extraction inside
    reward=lambda report: float(report.reward if hasattr(report, "reward") else report["reward"]),
    token_budget=512,
    aliases=("dot-suite",),
    family="dots",
    description="two recolouring tasks",
)
register_suite(DOTS, replace=True)
# ---------------------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")
def test_custom_suite_in_an_env():
    env = make_env("dot-suite", max_turns=2)
    check_env(env, skip_render_check=True)
    obs, info = env.reset(options={"task_id": "dot-1"})
    assert info["family"] == "dots" and obs["svg"] == DOTS.get_task("dot-1").source_svg
    _, r, term, _, info = env.step(f"Sure:\n{DOTS.get_task('dot-1').target_svg}")
    assert (r, term, info["report"]["reward"]) == (1.0, True, 1.0)


def test_custom_suite_in_eval_and_rescore(tmp_path, capsys):
    out = tmp_path / "run.jsonl"
    assert main(["eval", "--suite", "dots", "--policy", "oracle", "--policy", "identity",
                 "--out", str(out), "--no-progress", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [(s["policy"], s["n"], s["full"]) for s in table] == [("oracle", 2, 100.0), ("identity", 2, 0.0)]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["env"] for r in rows} == {"vector_gym/dots"}
    assert main(["rescore", str(out), "--suite", "dots", "--json", "--no-progress"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [(b["model"], b["full"]) for b in board] == [("oracle", 100.0), ("identity", 0.0)]


def test_custom_suite_in_the_trl_reward():
    spec = spec_reward_func("dots")
    t = DOTS.get_task("dot-0")
    assert spec(completions=[t.target_svg, t.source_svg, "x"], task_id=["dot-0", "dot-0", "sv_001"]) == [
        1.0, 0.0, None
    ]
    assert get_suite("dots").token_budget({"svg": "x" * 10_000}) == 512


def test_a_custom_suites_budget_rule_reaches_the_policies(monkeypatch):
    # Issue 9: policies ask the suite for the budget (a callable rule too, not only a fixed int).
    import vector_gym.suites as suites_pkg
    from vector_gym.policies import templates as policy_templates
    from vector_gym.policies.budget import minimum_budget
    from vector_gym.policies.openai_policy import OpenAICompatiblePolicy
    from vector_gym.policies.templates import default_max_tokens

    # registered for this test only (other tests list every suite)
    monkeypatch.setitem(suites_pkg._REGISTRY, "dots_budget", None)
    for table in (policy_templates.BUDGETS, policy_templates.TEMPLATES, policy_templates.PATCH_TEMPLATES):
        monkeypatch.setitem(table, "dots-budget", None)

    rule = lambda obs: 100 + len(obs.get("svg") or "")  # noqa: E731
    suite = register_suite(
        Suite("dots_budget", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(), family="dots-budget",
              token_budget=rule),
        replace=True,
    )
    obs = {"family": "dots-budget", "svg": "x" * 50, "instruction": "i"}
    assert suite.token_budget(obs) == 150
    assert default_max_tokens(obs) == 150 and default_max_tokens(obs, ceiling=120) == 120
    assert minimum_budget(obs) == 150
    policy = OpenAICompatiblePolicy("m", fit_context=False)
    assert policy.token_budget(obs) == 150
    assert policy.token_budget({"family": "dots", "svg": "x" * 50_000}) == 512  # DOTS: fixed 512
    # Re-registering the suite with another rule is what the policies see next.
    register_suite(Suite("dots_budget", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(),
                         family="dots-budget", token_budget=64), replace=True)
    assert policy.token_budget(obs) == 64 == minimum_budget(obs)


class _Flaky:
    """A user's scorer with a bug: raises until fixed."""

    fixed = False

    def score_many(self, tasks, responses):
        if not self.fixed:
            raise ZeroDivisionError("division by zero in my metric")
        return SpecRewardScorer().score_many(tasks, responses)


def test_a_custom_scorer_that_raises_stops_eval_with_one_line_naming_the_suite(tmp_path, capsys, monkeypatch):
    # Issue 9: a scorer that raises is a bug in the user's code, not a bad answer: scoring the
    # rows 0 would record policy failures that never happened (and finished rows a resumed run
    # never redoes), so eval stops with one line naming the suite, the scorer and the error, no
    # traceback; after the fix the same command resumes.
    import vector_gym.suites as suites_pkg

    monkeypatch.setitem(suites_pkg._REGISTRY, "flaky_dots", None)
    scorer = _Flaky()
    register_suite(Suite("flaky_dots", tasks=list(DOTS.tasks()), scorer=scorer, family="dots"), replace=True)
    out = tmp_path / "run.jsonl"
    argv = ["eval", "--suite", "flaky_dots", "--policy", "oracle", "--out", str(out), "--no-progress", "--json"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "suite 'flaky_dots'" in err and "_Flaky.score_many" in err
    assert "ZeroDivisionError: division by zero in my metric" in err
    assert not out.exists() or out.read_text().strip() == ""
    scorer.fixed = True
    assert main(argv) == 0
    assert [s["full"] for s in json.loads(capsys.readouterr().out)] == [100.0]


def test_a_custom_scorer_with_the_wrong_number_of_reports_is_refused():
    from vector_gym.errors import ScorerError

    class Short:
        def score_many(self, tasks, responses):
            return []

    suite = Suite("short_dots", tasks=list(DOTS.tasks()), scorer=Short(), family="dots")
    with pytest.raises(ScorerError, match=r"suite 'short_dots'.*expected 2 reports, got 0"):
        suite.score_many(DOTS.tasks(), ["a", "b"])


@pytest.mark.parametrize("budget", [0, -3, True, "512", 8.5])
def test_a_suites_fixed_budget_that_is_not_a_positive_int_is_refused_at_construction(budget):
    # A budget of 0 or -3 was accepted and only failed once a model policy asked for it (a
    # string or float not at all until then); True was a budget of 1 token.
    from vector_gym.errors import ConfigError

    with pytest.raises(ConfigError, match=r"suite 'bad_budget'.*token_budget"):
        Suite("bad_budget", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(), token_budget=budget)
    import numpy as np

    ok = Suite("np_budget", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(), token_budget=np.int64(300))
    assert ok.token_budget({"svg": "x" * 50_000}) == 300  # a NumPy int is a fixed budget too


@pytest.mark.parametrize("value", ["abc", 0, -1, None, 2.5])
def test_a_suites_budget_rule_returning_no_positive_int_is_a_config_error_naming_the_suite(value):
    # A rule returning "abc" reached eval as a bare ValueError traceback from int().
    from vector_gym.errors import ConfigError

    suite = Suite("bad_rule", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(),
                  token_budget=lambda obs: value)
    with pytest.raises(ConfigError, match=r"suite 'bad_rule'.*token budget.*expected an int >= 1"):
        suite.token_budget({"svg": "<svg/>"})


def test_a_suites_own_budget_is_in_the_run_fingerprint(monkeypatch):
    # Re-registering a suite with another budget resumed the old run file (rows generated under
    # the old budget were kept as if they were the new run's).
    import vector_gym.suites as suites_pkg
    from vector_gym.policies import templates as policy_templates
    from vector_gym.policies.openai_policy import OpenAICompatiblePolicy
    from vector_gym.runfile import run_fingerprint

    monkeypatch.setitem(suites_pkg._REGISTRY, "dots_fp", None)
    for table in (policy_templates.BUDGETS, policy_templates.TEMPLATES, policy_templates.PATCH_TEMPLATES):
        monkeypatch.setitem(table, "dots-fp", None)
    fps = []
    for budget in (16, 40, 16):
        register_suite(Suite("dots_fp", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(),
                             family="dots-fp", token_budget=budget), replace=True)
        env = make_env("dots_fp")
        fps.append(run_fingerprint(env, OpenAICompatiblePolicy("m", fit_context=False)))
        env.close()
    assert fps[0] == fps[2] and fps[0] != fps[1]
    assert fps[0]["token_budget"] == {"protocol": 16}
    # a --max-tokens ceiling still records the ceiling, as before
    assert run_fingerprint(make_env("dots_fp"), OpenAICompatiblePolicy("m", max_tokens=8,
                                                                       fit_context=False))["token_budget"] == 8


def test_a_suites_budget_rule_that_raises_stops_eval_with_one_line(tmp_path, capsys, monkeypatch):
    # A rule raising KeyError reached `vector-gym eval` as a traceback (a raising scorer was
    # already one line naming the suite).
    import vector_gym.suites as suites_pkg
    from vector_gym.errors import ConfigError
    from vector_gym.policies import templates as policy_templates

    monkeypatch.setitem(suites_pkg._REGISTRY, "dots_raise", None)
    for table in (policy_templates.BUDGETS, policy_templates.TEMPLATES, policy_templates.PATCH_TEMPLATES):
        monkeypatch.setitem(table, "dots-raise", None)
    suite = register_suite(Suite("dots_raise", tasks=list(DOTS.tasks()), scorer=SpecRewardScorer(),
                                 family="dots-raise", token_budget=lambda obs: obs["no_such_key"]),
                           replace=True)
    with pytest.raises(ConfigError, match=r"suite 'dots_raise': its token budget rule raised KeyError"):
        suite.token_budget({"svg": "<svg/>"})
    # what every model policy asks (eval prints a ConfigError as one line)
    from vector_gym.policies.templates import default_max_tokens

    with pytest.raises(ConfigError, match=r"suite 'dots_raise'"):
        default_max_tokens({"family": "dots-raise", "svg": "<svg/>"})


class _NotReports:
    """A user's scorer that returns plain values instead of reports (no ``to_dict``)."""

    def __init__(self, value):
        self.value = value

    def score_many(self, tasks, responses):
        return [self.value for _ in tasks]


@pytest.mark.parametrize("value", [None, {"reward": 1.0}, "ok"])
def test_a_custom_scorer_returning_no_reports_stops_eval_with_one_line(value, tmp_path, capsys, monkeypatch):
    # [None, None] from score_many reached the run writer as an AttributeError traceback
    # ('NoneType' object has no attribute 'to_dict'); a wrong count was already one line.
    import vector_gym.suites as suites_pkg

    monkeypatch.setitem(suites_pkg._REGISTRY, "plain_dots", None)
    register_suite(Suite("plain_dots", tasks=list(DOTS.tasks()), scorer=_NotReports(value), family="dots"),
                   replace=True)
    out = tmp_path / "run.jsonl"
    argv = ["eval", "--suite", "plain_dots", "--policy", "oracle", "--out", str(out), "--no-progress", "--json"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "suite 'plain_dots'" in err and "_NotReports.score_many" in err
    assert f"got {type(value).__name__}" in err and "to_dict" in err
    assert not out.exists() or out.read_text().strip() == ""
