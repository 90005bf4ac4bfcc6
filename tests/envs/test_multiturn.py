"""Multi-turn episodes (``max_turns=k``): termination, truncation, feedback and per-turn rewards.

Documented rewards (EditEnv.step): step reward r_t = R_t - R_(t-1) with R_0 = 0 and R_t the
scalar reward of the t-th answer (VectorBenchEnv: spec reward + 0.2 * repair_progress), so the
undiscounted return equals the reward of the last answer.
"""

from __future__ import annotations

import pytest
from gymnasium.error import ResetNeeded

from vector_gym.envs.vector_bench import VectorBenchEnv, make_vector_bench_env
from vector_gym.errors import ConfigError
from vector_gym.svg.patch import diff_patch, patch_to_text

TASK = "sv_001"


def _env(**kw):
    env = make_vector_bench_env(max_turns=3, **kw)
    obs, _ = env.reset(options={"task_id": TASK})
    return env, obs


def test_invalid_then_oracle_terminates_with_documented_rewards():
    env, obs = _env()
    task = env.get_task(TASK)
    assert obs["feedback"] == "" and obs["svg"] == task.source_svg
    obs, r1, term, trunc, info = env.step("<svg><g></svg>")  # not well-formed
    assert (r1, term, trunc) == (0.0, False, False)
    assert info["turn"] == 1 and info["answer_reward"] == 0.0
    assert obs["svg"] == "<svg><g></svg>"  # the current document is the last answer
    assert "not well-formed" in obs["feedback"]
    assert obs in env.observation_space
    obs, r2, term, trunc, info = env.step(task.target_svg)
    assert (term, trunc) == (True, False) and info["turn"] == 2
    assert info["report"]["reward"] == 1.0
    assert r2 == pytest.approx(1.2) and r1 + r2 == pytest.approx(info["answer_reward"])
    with pytest.raises(ResetNeeded):
        env.step(task.target_svg)


def test_truncated_after_k_turns_and_feedback_hides_the_checks():
    env, obs = _env()
    task = env.get_task(TASK)
    parts = {e.part for e in task.requested_edits}
    for turn in (1, 2, 3):
        obs, r, term, trunc, info = env.step(obs["svg"])  # valid, no repair
        assert r == 0.0 and not term and trunc == (turn == 3)
        assert obs["feedback"] == "The document parses and is valid SVG."
        assert not any(p in obs["feedback"] for p in parts)
        assert task.target_svg not in obs.values()


def test_regression_gives_a_negative_step_reward():
    env, _ = _env()
    task = env.get_task(TASK)
    # repair two of the three edits (the signal colour and the door), not the wire
    partial = task.source_svg.replace(
        'fill="#000000" cx="170" cy="39"', 'fill="#f59e0b" cx="170" cy="39"'
    )
    partial = partial.replace('x="139" y="44" width="16"', 'x="128" y="44" width="16"')
    assert partial != task.source_svg
    _, r1, term, _, info1 = env.step(partial)
    assert not term and info1["answer_reward"] == r1 > 0
    obs2, r2, _, _, info2 = env.step("no svg at all")
    assert info2["answer_reward"] == 0.0 and r2 == pytest.approx(-r1)
    assert "No SVG document" in obs2["feedback"]


def test_patch_turns_edit_the_current_document():
    env, obs = _env(action_format="patch")
    task = env.get_task(TASK)
    obs, r, term, _, info = env.step('[{"set": "no-such-id", "x": "1"}]')
    assert r == 0.0 and not term and info["action_error"]["reason"] == "patch_unknown_id"
    assert obs["svg"] == task.source_svg and "could not be applied" in obs["feedback"]
    # first fix the door only, then the rest: the second patch applies to the patched document
    edits = diff_patch(task.source_svg, task.target_svg)
    door = [e for e in edits if e.get("set") == "train-door"]
    rest = [e for e in edits if e.get("set") != "train-door"]
    obs, r, term, _, info = env.step(patch_to_text(door))
    assert not term and info["action_error"] is None and 'x="128"' in obs["svg"]
    obs, r, term, _, info = env.step(patch_to_text(rest))
    assert term and info["report"]["reward"] == 1.0 and info["turn"] == 3


def test_single_turn_is_unchanged_and_max_turns_is_validated():
    env = VectorBenchEnv()
    obs, _ = env.reset(options={"task_id": TASK})
    assert "feedback" not in obs and "feedback" not in env.observation_space.spaces
    with pytest.raises(ConfigError, match="max_turns"):
        make_vector_bench_env(max_turns=0)
    with pytest.raises(ConfigError, match="action_format"):
        make_vector_bench_env(action_format="json")


def test_gymnasium_checker_accepts_multi_turn_patch_envs():
    from gymnasium.utils.env_checker import check_env

    from vector_gym.envs.repairgen import make_repairgen_env
    from vector_gym.tasks.repairgen import RepairGenConfig

    check_env(make_vector_bench_env(max_turns=2), skip_render_check=True)
    env = make_repairgen_env(config=RepairGenConfig(sources=("vector_bench",)), max_turns=3, action_format="patch")
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=1)
    assert obs in env.observation_space and obs["feedback"] == ""


class InvalidThenTarget:
    """A scripted policy: a malformed SVG on the first turn, the target after any feedback."""

    name = "invalid-then-target"

    def __init__(self, tasks):
        self.targets = {t.task_id: t.target_svg for t in tasks}
        self.seen = []

    def generate(self, observations, n=1):
        from vector_gym.policies.base import Completion

        self.seen.extend(dict(o) for o in observations)
        return [
            [
                Completion(self.targets[o["task_id"]] if o["feedback"] else "<svg><g></svg>")
                for _ in range(n)
            ]
            for o in observations
        ]


def test_rollout_plays_two_turn_episodes_to_a_full_pass(tmp_path):
    """issue 5: first answer invalid, second the oracle: 2 turns, terminated, Full 100."""
    from vector_gym.policies.templates import build_messages
    from vector_gym.rollout import rollout
    from vector_gym.summary import summarize

    env = make_vector_bench_env(max_turns=3)
    ids = env.task_ids[:4]
    pol = InvalidThenTarget(env.tasks)
    rows = rollout(env, pol, tmp_path / "r.jsonl", task_ids=ids, progress=False)
    assert [r["turns"] for r in rows] == [2, 2, 2, 2] and all(r["terminated"] for r in rows)
    # returns: R_2 = spec reward 1 + 0.2 * repair_progress 1 (VectorBenchEnv reward)
    assert all(r["answer_rewards"] == [0.0, pytest.approx(1.2)] for r in rows)
    assert all(r["reward"] == pytest.approx(1.2) for r in rows)
    (s,) = summarize(rows)
    assert (s.n, s.full, s.valid) == (4, 1.0, 1.0)
    # the second turn showed the current (malformed) document and the editor's parse error
    later = [o for o in pol.seen if o["feedback"]]
    assert len(later) == 4 and later[0]["svg"] == "<svg><g></svg>"
    assert "not well-formed" in later[0]["feedback"]
    _, user = build_messages(later[:1])[0]
    assert "Current SVG (after your last answer):\n<svg><g></svg>" in user["content"]
    assert "Editor feedback:\nThe document is not well-formed XML" in user["content"]


@pytest.mark.parametrize("bad", ["<svg>\x00</svg>", "<svg>\ud800</svg>"])
def test_unrepresentable_answer_keeps_the_previous_document(bad):
    """An answer the observation space cannot carry (NUL, a lone surrogate) is not shown as the
    current document: the previous one stays, and the observation stays in the space."""
    env, obs = _env()
    task = env.get_task(TASK)
    obs, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (0.0, False, False)
    assert obs["svg"] == task.source_svg
    assert obs in env.observation_space
    assert obs["feedback"]  # the errors of the answer are still reported


def test_too_long_answer_keeps_the_document_and_feedback_names_it():
    """Issue 12 item 6: an answer over max_response_chars is not read; the previous document
    stays current and the feedback says why (not the report of an empty answer)."""
    env, obs = _env(max_response_chars=4096)
    task = env.get_task(TASK)
    obs, r, term, trunc, info = env.step(task.target_svg + " " * 5000)
    assert (r, term, trunc) == (0.0, False, False) and info["response_too_long"]
    assert obs["svg"] == task.source_svg
    assert "longer than 4096 characters" in obs["feedback"]
    assert obs in env.observation_space


@pytest.mark.parametrize("bad", [None, b"<svg/>", 42])
def test_non_text_answer_keeps_the_document_and_feedback_names_it(bad):
    env, obs = _env()
    task = env.get_task(TASK)
    obs, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (0.0, False, False)
    assert info["response_not_text"] == type(bad).__name__
    assert obs["svg"] == task.source_svg
    assert obs["feedback"] == f"The answer is not text ({type(bad).__name__}) and was not read; the document is unchanged."


def test_next_document_is_the_one_scored_with_the_parity_rule():
    """Issue 9: the next turn shows the document the scorer read. In parity mode the reference
    rule takes the first complete root; the default rule the last one."""
    env, obs = _env(parity=True)
    task = env.get_task(TASK)
    draft = task.source_svg.replace('fill="#8b5cf6"', 'fill="#000000"', 1)
    answer = f"Draft: {draft} Final: {task.source_svg}"
    from vector_gym.svg.extract import extract_svg

    scored = extract_svg(answer, rule="reference")
    assert scored == draft.strip() and extract_svg(answer) == task.source_svg.strip()
    obs, *_ = env.step(answer)
    assert obs["svg"] == scored
