"""EditEnv: the generic episode protocol, with a stand-in scorer (no spec reward involved)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from vector_gym.envs.base import BASE_CHARSET, EditEnv, ResponseScorer, corpus_charset
from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.tasks.task import Task

TASKS = [
    Task(
        f"t{i}",
        "toy",
        f"make the rect {c}",
        f'<svg><rect id="r" fill="{s}"/></svg>',
        f'<svg><rect id="r" fill="{c}"/></svg>',
        (),
        ("r",),
    )
    for i, (s, c) in enumerate(
        [("red", "blue"), ("red", "green"), ("blue", "red"), ("gray", "black")]
    )
]


@dataclass(frozen=True)
class ToyReport:
    reward: float
    failure_reasons: tuple[str, ...]

    def to_dict(self):
        return {"reward": self.reward, "failure_reasons": list(self.failure_reasons)}


class ExactScorer:
    """Reward 1 iff the response equals the target text, else 0 with a named reason."""

    def __init__(self):
        self.calls = []

    def score_response(self, task, response):
        self.calls.append((task.task_id, len(response)))
        if response == task.target_svg:
            return ToyReport(1.0, ())
        return ToyReport(0.0, ("mismatch",))


def test_scorer_protocol_is_runtime_checkable():
    assert isinstance(ExactScorer(), ResponseScorer)


def test_check_env_passes_on_generic_env():
    check_env(EditEnv(TASKS, ExactScorer()), skip_render_check=True, skip_close_check=True)


def test_reset_returns_only_instruction_and_source():
    env = EditEnv(TASKS, ExactScorer())
    obs, info = env.reset(options={"task_id": "t2"})
    assert obs == {"instruction": "make the rect red", "svg": TASKS[2].source_svg}
    assert info == {"task_id": "t2", "family": "toy", "metadata": {}}
    assert obs in env.observation_space


def test_same_seed_same_task_and_all_tasks_reachable():
    env = EditEnv(TASKS, ExactScorer())
    ids = []
    for seed in range(40):
        _, a = env.reset(seed=seed)
        _, b = env.reset(seed=seed)
        assert a["task_id"] == b["task_id"]
        ids.append(a["task_id"])
    assert set(ids) == {
        "t0",
        "t1",
        "t2",
        "t3",
    }  # uniform over 4 tasks: 40 draws miss one with p < 1e-4


def test_unknown_task_id_lists_valid_ids():
    env = EditEnv(TASKS, ExactScorer())
    with pytest.raises(UnknownTaskError) as exc:
        env.reset(options={"task_id": "nope"})
    assert "nope" in str(exc.value) and "t0, t1, t2, t3" in str(exc.value)


def test_unknown_option_key_is_rejected():
    env = EditEnv(TASKS, ExactScorer())
    with pytest.raises(ConfigError, match="task"):
        env.reset(options={"task": "t0"})


def test_step_scores_terminates_and_reports():
    scorer = ExactScorer()
    env = EditEnv(TASKS, scorer)
    env.reset(options={"task_id": "t1"})
    obs, reward, terminated, truncated, info = env.step(TASKS[1].target_svg)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert obs == {"instruction": TASKS[1].instruction, "svg": TASKS[1].source_svg}
    assert info == {
        "task_id": "t1",
        "family": "toy",
        "report": {"reward": 1.0, "failure_reasons": []},
        "response_too_long": False,
    }
    json.dumps(info, allow_nan=False)


def test_step_requires_reset_and_is_single_turn():
    env = EditEnv(TASKS, ExactScorer())
    with pytest.raises(ResetNeeded):
        env.step("x")
    env.reset(seed=0)
    env.step("x")
    with pytest.raises(ResetNeeded):
        env.step("x")


@pytest.mark.parametrize("action", [123, None, b"<svg/>", ["<svg/>"]])
def test_non_text_action_scores_as_empty_response(action):
    # A hostile or broken policy output never raises out of an env (brief): a non-str action is
    # scored as the empty response and flagged (review R1; it used to raise TypeError).
    scorer = ExactScorer()
    env = EditEnv(TASKS, scorer)
    env.reset(options={"task_id": "t0"})
    _, reward, terminated, _, info = env.step(action)
    assert reward == 0.0 and terminated
    assert info["response_not_text"] == type(action).__name__ and info["response_too_long"] is False
    assert scorer.calls[-1] == ("t0", 0)  # the scorer saw the empty response


def test_too_long_response_is_not_scored():
    scorer = ExactScorer()
    env = EditEnv(TASKS, scorer, max_response_chars=10)
    env.reset(options={"task_id": "t0"})
    _, reward, _, _, info = env.step("x" * 11)
    assert reward == 0.0 and info["response_too_long"] is True
    assert scorer.calls[-1] == ("t0", 0)  # the scorer saw the empty response, not 11 chars


def test_sequential_order_cycles_and_seed_restarts():
    env = EditEnv(TASKS, ExactScorer(), task_order="sequential")
    seen = [env.reset(seed=5 if i == 0 else None)[1]["task_id"] for i in range(6)]
    assert seen == ["t0", "t1", "t2", "t3", "t0", "t1"]
    assert env.reset(seed=9)[1]["task_id"] == "t0"


def test_spaces_have_explicit_charset_and_lengths():
    env = EditEnv(TASKS, ExactScorer(), max_response_chars=4096)
    assert env.action_space.max_length == 4096 and env.action_space.min_length == 0
    assert BASE_CHARSET <= env.action_space.character_set
    assert '<svg fill="#fff">\n\t</svg>' in env.action_space
    for t in TASKS:
        assert t.target_svg in env.action_space


def test_corpus_charset_adds_corpus_characters():
    t = Task("u", "toy", "é", "<svg>盖</svg>", "<svg/>")
    cs = corpus_charset([t])
    assert {"é", "盖"} <= cs and BASE_CHARSET <= cs
    assert len(cs) == len(BASE_CHARSET) + 2


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tasks": []}, "at least one"),
        ({"tasks": [TASKS[0], TASKS[0]]}, "duplicate task_id"),
        ({"tasks": TASKS, "scorer": object()}, "score_response"),
        ({"tasks": TASKS, "max_response_chars": 0}, "max_response_chars"),
        ({"tasks": TASKS, "task_order": "shuffled"}, "task_order"),
        ({"tasks": TASKS, "render_mode": "human"}, "render_mode"),
    ],
)
def test_bad_configuration_raises_config_error(kwargs, match):
    kwargs.setdefault("scorer", ExactScorer())
    with pytest.raises(ConfigError, match=match):
        EditEnv(**kwargs)


def test_random_action_scores_zero():
    env = EditEnv(TASKS, ExactScorer())
    env.action_space.seed(0)
    env.reset(seed=0)
    _, reward, *_, info = env.step(env.action_space.sample())
    assert reward == 0.0 and info["report"]["failure_reasons"] == ["mismatch"]


def test_np_random_is_the_only_source_of_task_choice():
    a, b = EditEnv(TASKS, ExactScorer()), EditEnv(TASKS, ExactScorer())
    a.reset(seed=3)
    b.reset(seed=3)
    assert [a.reset()[1]["task_id"] for _ in range(10)] == [
        b.reset()[1]["task_id"] for _ in range(10)
    ]
    assert isinstance(a.np_random, np.random.Generator)
