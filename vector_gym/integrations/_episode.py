"""What every trainer integration shares: answers scored through a suite, and the multi-turn
protocol of trainers (one conversation, feedback appended as messages).

Layer 7, no framework imported. No scoring logic: every number comes from
``suite.score_many`` and ``suite.reward`` (the one scalar reward, also the env's step reward).

Multi-turn protocol for trainers (issue "trainers", item 6)
-----------------------------------------------------------
A trainer holds the turn history itself (TRL's tool loop, verl's agent loop, verifiers'
``MultiTurnEnv``, SkyRL's ``BaseTextEnv``, an OpenEnv client): the first prompt is the suite's
template with the multi-turn instructions (observation ``feedback=""``), and after each answer
that is not a full pass the trainer **appends** one user message, :meth:`EditSession.answer`'s
``TurnResult.message``: the editor feedback (parse and validity errors only, never the target)
and, for patch answers, the current document (the conversation already holds a whole-SVG
answer). Each turn returns

- ``reward``: R_t = ``suite.reward(report)`` of this answer (absolute, what GRPO reads);
- ``step_reward``: R_t - R_(t-1) (R_0 = 0), for trainers that sum per-turn rewards (the return
  of an episode is the reward of its last answer);
- ``passed``: ``report.reward >= 1`` of this answer (the specification gate for spec suites, the
  exact target for raster suites): every integration's pass / success flag reads this absolute
  gate, never the delta (a small progress gain is not a pass);
- ``report``: the report's ``to_dict()`` (every gate, check and distance).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.tasks.task import Task

__all__ = [
    "ACTION_FORMATS",
    "AnswerBatch",
    "EditSession",
    "TurnResult",
    "apply_answers",
    "feedback_message",
    "first_messages",
    "is_pass",
    "resolve_suite",
]

ACTION_FORMATS = ("svg", "patch")


def resolve_suite(suite: Any, **options: Any) -> Any:
    """A :class:`~vector_gym.suites.Suite` from a suite, a registered name, alias or env id."""
    from vector_gym.suites import Suite, get_suite

    if isinstance(suite, Suite):
        return suite.configure(**options) if options else suite
    if isinstance(suite, str):
        return get_suite(suite, **options)
    raise ConfigError(f"suite: expected a Suite or a registered name, got {type(suite).__name__}")


def check_action_format(action_format: str) -> str:
    if action_format not in ACTION_FORMATS:
        raise ConfigError(f"action_format: expected one of {ACTION_FORMATS}, got {action_format!r}")
    return action_format


def is_pass(report: Any) -> bool:
    """The absolute pass flag of a report (object or dict): ``reward >= 1``."""
    value = report.get("reward") if isinstance(report, Mapping) else getattr(report, "reward", 0.0)
    try:
        return float(value) >= 1.0
    except (TypeError, ValueError):
        return False


@dataclass
class AnswerBatch:
    """Answers turned into what the suite scores: the SVG text per answer, and patch errors."""

    responses: list[str]
    action_errors: list[dict[str, str] | None]


def apply_answers(
    responses: Sequence[str], current_svgs: Sequence[str], action_format: str = "svg"
) -> AnswerBatch:
    """Raw answers -> scorer inputs. ``"svg"``: unchanged. ``"patch"``: each answer's JSON edit
    script applied to its current SVG (:func:`vector_gym.envs.patch.decode_patch_action`); an
    unreadable or inapplicable patch becomes ``""`` (reward 0) with ``{"reason", "message"}``."""
    check_action_format(action_format)
    texts = [r if isinstance(r, str) else "" for r in responses]
    if action_format == "svg":
        return AnswerBatch(texts, [None] * len(texts))
    from vector_gym.envs.patch import decode_patch_action

    out, errors = [], []
    for text, current in zip(texts, current_svgs, strict=True):
        patched = decode_patch_action(text, current)
        if patched.ok:
            out.append(patched.svg)
            errors.append(None)
        else:
            out.append("")
            errors.append({"reason": patched.reason, "message": patched.message})
    return AnswerBatch(out, errors)


def first_messages(suite: Any, task: Task, *, action_format: str = "svg", multi_turn: bool = False,
                   observation: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The opening conversation of an episode: the suite's template for ``action_format``;
    ``multi_turn`` adds the "you may answer again" instructions (observation ``feedback=""``).
    ``observation`` overrides the text observation (e.g. with an ``image``)."""
    obs = dict(observation) if observation is not None else suite.observation(task)
    obs.setdefault("task_id", task.task_id)
    obs.setdefault("family", suite.family)
    if action_format != "svg":
        obs["action_format"] = action_format
    if multi_turn:
        obs["feedback"] = ""
    return suite.template(check_action_format(action_format)).messages(obs)


def feedback_message(feedback: str, current_svg: str | None = None) -> dict[str, str]:
    """The user message a trainer appends after an answer that is not a full pass."""
    text = f"Editor feedback on your last answer:\n{feedback}"
    if current_svg is not None:
        text += f"\n\nCurrent document:\n{current_svg}"
    return {"role": "user", "content": text + "\n\nAnswer again."}


@dataclass
class TurnResult:
    """One scored answer of a multi-turn episode (module docstring)."""

    report: dict[str, Any]
    reward: float
    step_reward: float
    passed: bool
    done: bool
    turn: int
    feedback: str
    message: dict[str, str] | None
    action_error: dict[str, str] | None = None

    def info(self) -> dict[str, Any]:
        """The ``info`` dict of this turn (plain JSON types)."""
        return {
            "report": self.report,
            "reward": self.reward,
            "step_reward": self.step_reward,
            "passed": self.passed,
            "turn": self.turn,
            "feedback": self.feedback,
            "action_error": self.action_error,
        }


@dataclass
class EditSession:
    """One editing episode of a suite's task, for trainers that keep the conversation.

    Parameters
    ----------
    suite : Suite
    task : Task
    action_format : {"svg", "patch"}
        A patch is applied to the current document (the source, then the last applied patch).
    max_turns : int
        The episode ends on a full pass or after this many answers.

    Examples
    --------
    >>> from vector_gym.suites import get_suite
    >>> suite = get_suite("vector_bench")
    >>> task = suite.tasks()[0]
    >>> s = EditSession(suite, task, max_turns=2)
    >>> r = s.answer("no svg here")
    >>> r.passed, r.done, r.message["content"].startswith("Editor feedback")
    (False, False, True)
    >>> r = s.answer(task.target_svg)
    >>> r.passed, r.done, r.reward, r.step_reward
    (True, True, 1.2, 1.2)
    """

    suite: Any
    task: Task
    action_format: str = "svg"
    max_turns: int = 1
    current_svg: str = field(init=False)
    turn: int = field(init=False, default=0)
    reward: float = field(init=False, default=0.0)
    passed: bool = field(init=False, default=False)
    done: bool = field(init=False, default=False)
    last: TurnResult | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        check_action_format(self.action_format)
        if not isinstance(self.max_turns, int) or isinstance(self.max_turns, bool) or self.max_turns < 1:
            raise ConfigError(f"max_turns: expected an int >= 1, got {self.max_turns!r}")
        self.current_svg = self.task.source_svg

    def messages(self, observation: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The opening conversation (:func:`first_messages`, multi-turn when ``max_turns > 1``)."""
        return first_messages(self.suite, self.task, action_format=self.action_format,
                              multi_turn=self.max_turns > 1, observation=observation)

    def answer(self, response: Any) -> TurnResult:
        """Score one answer; raises ConfigError after the episode ended."""
        if self.done:
            raise ConfigError("the episode has ended: expected a new session (reset) before answer()")
        batch = apply_answers([response if isinstance(response, str) else ""], [self.current_svg],
                              self.action_format)
        report = self.suite.score_many([self.task], batch.responses)[0]
        reward = float(self.suite.reward(report))
        step = reward - self.reward
        self.reward = reward
        self.turn += 1
        self.passed = is_pass(report)
        self.done = self.passed or self.turn >= self.max_turns
        error = batch.action_errors[0]
        if self.action_format == "patch":
            if error is None:
                self.current_svg = batch.responses[0]
        else:
            extracted = self.suite.extract(response)
            if extracted is not None:
                self.current_svg = extracted
        feedback = self.suite.feedback(report, error)
        message = None
        if not self.done:
            message = feedback_message(feedback, self.current_svg if self.action_format == "patch" else None)
        self.last = TurnResult(report.to_dict(), reward, step, self.passed, self.done, self.turn,
                               feedback, message, error)
        return self.last
