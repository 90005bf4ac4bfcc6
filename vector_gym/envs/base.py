"""The generic single-turn editing environment: a task source, a scorer, an episode protocol.

Layer 5. An environment holds no scoring logic: it shows the policy one task's
instruction and source SVG, hands the policy's response to a *scorer* and turns the
scorer's report into ``(obs, reward, terminated, truncated, info)``. Concrete envs
(:class:`~vector_gym.envs.vector_bench.VectorBenchEnv`, the SVGEditBench and
RepairGen envs) subclass :class:`EditEnv` and choose the task list, the scorer and,
if they want, the scalar reward (:meth:`EditEnv.reward_from_report`) and the
observation (:meth:`EditEnv.observation`).

The scorer protocol
-------------------
A scorer is any object with ``score_response(task, response) -> report`` where
``task`` is a :class:`~vector_gym.tasks.task.Task`, ``response`` the raw policy text
(the scorer extracts the SVG itself) and ``report`` an object with

- ``reward`` (float): the scorer's own reward (for the specification reward, 0 or 1);
- ``failure_reasons`` (tuple of str): named reasons, empty on success;
- ``to_dict()`` returning plain JSON types with no NaN and no wall-clock timing
  (it goes into ``info["report"]`` and must pass Gymnasium's determinism check).

A scorer must never raise for anything a policy wrote (hostile or broken outputs
score 0 with a named reason, in bounded time and memory).

Episode protocol
----------------
``reset(seed=..., options={"task_id": ...})`` picks a task (explicitly, or from
``self.np_random`` alone so that the same seed gives the same task) and returns the
observation ``{"instruction": str, "svg": str}``: never the target, E or U.
``step(response)`` scores the response and ends the episode (``terminated=True``,
``truncated=False``). One episode = one task = one response.

Options every env accepts (:mod:`vector_gym.envs.patch`):

- ``action_format="patch"``: the response is a JSON edit script applied to the current
  SVG before scoring (:mod:`vector_gym.svg.patch`); an unreadable or unappliable script
  scores 0 with ``info["action_error"]``.
- ``max_turns=k > 1``: multi-turn. After an answer that is not a full pass the episode
  continues; the next observation holds the current SVG (the last answer's document) and
  ``"feedback"`` (parse and validity errors only, never the target or the failing checks).
  Terminated on a full pass, truncated after k answers; see :meth:`EditEnv.step` for the
  per-turn rewards.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import gymnasium as gym
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.tasks.task import Task

__all__ = [
    "BASE_CHARSET",
    "DEFAULT_MAX_RESPONSE_CHARS",
    "EditEnv",
    "Report",
    "ResponseScorer",
    "corpus_charset",
]

#: Printable ASCII plus whitespace (space, tab, newline, carriage return, form feed, vertical tab).
BASE_CHARSET: frozenset[str] = frozenset(string.printable)

#: Default ``max_length`` of the action space (characters). The published Vector-Bench
#: responses ran up to 7,002 tokens (protocols.md), about 28,000 characters; the longest
#: published extracted SVG is 16,830 characters. 131,072 leaves ample headroom.
DEFAULT_MAX_RESPONSE_CHARS = 131_072

#: Smallest ``max_length`` of the observation's text fields (characters).
MIN_OBSERVATION_CHARS = 65_536


@runtime_checkable
class Report(Protocol):
    """What a scorer returns (see the module docstring)."""

    reward: float
    failure_reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types (no NaN, no timing)."""
        ...


@runtime_checkable
class ResponseScorer(Protocol):
    """Anything that scores a raw policy response against a task (see the module docstring)."""

    def score_response(self, task: Task, response: str) -> Report:
        """Extract the SVG from ``response`` and score it; never raises for policy output."""
        ...


def corpus_charset(tasks: Iterable[Task], extra: Iterable[str] = ()) -> frozenset[str]:
    """Return :data:`BASE_CHARSET` plus every character of the tasks' texts.

    Covers ``instruction``, ``source_svg`` and ``target_svg`` of every task, so every
    observation is in the observation space and the target is in the action space.

    Parameters
    ----------
    tasks : iterable of Task
    extra : iterable of str
        More characters (or strings whose characters) to include.

    Returns
    -------
    frozenset of str
        Single characters.
    """
    chars = set(BASE_CHARSET)
    for t in tasks:
        chars.update(t.instruction)
        chars.update(t.source_svg)
        chars.update(t.target_svg)
    for s in extra:
        chars.update(s)
    return frozenset(chars)


class EditEnv(gym.Env[dict[str, str], str]):
    """Single-turn instruction-based SVG editing environment (generic base).

    Parameters
    ----------
    tasks : sequence of Task
        The task source (non-empty, unique ``task_id``). Order matters for
        ``task_order="sequential"`` and for the seed-to-task mapping.
    scorer : ResponseScorer
        Scores ``(task, response)``; see the module docstring for the protocol.
    max_response_chars : int
        ``max_length`` of the action space. A longer response is outside the action
        space and is not scored: it gets the report of an empty response (reward 0,
        no SVG found) and ``info["response_too_long"] = True``. This bounds the work
        any step can do whatever the scorer does.
    task_order : {"random", "sequential"}
        How ``reset()`` without ``options["task_id"]`` picks the task: uniformly from
        ``self.np_random`` (default), or cycling through ``tasks`` in order (a seeded
        reset restarts the cycle at the first task). Sequential order lets a vector of
        envs with disjoint task shards visit every task exactly once.
    render_mode : None
        No render modes are supported (text env).
    render_observation : (int, int), optional
        ``(H, W)``: the observation also holds ``"image"``, the source SVG rendered
        on white as an ``(H, W, 3)`` uint8 array (rendered once per task with
        :func:`vector_gym.render.render_many`), for vision-language policies. A source
        that fails to render gives a white image.
    render_backend : {"skia", "resvg", "cairosvg"}
        Renderer of ``render_observation``.

    Attributes
    ----------
    observation_space : gymnasium.spaces.Dict
        ``{"instruction": Text, "svg": Text}`` with an explicit charset
        (:func:`corpus_charset` of the tasks) and ``max_length`` at least 65,536.
    action_space : gymnasium.spaces.Text
        Same charset, ``max_length = max_response_chars``, ``min_length = 0``.
        Gymnasium's default ``Text`` charset is alphanumeric only, which would not
        contain ``<``, ``"`` or a space.

    Notes
    -----
    Text spaces do not survive Gymnasium 1.4's shared-memory transport (the strings
    come back as padding characters), so use
    ``gymnasium.vector.AsyncVectorEnv(fns, shared_memory=False)``;
    ``SyncVectorEnv`` needs nothing special.
    Episodes are single-step: pass ``autoreset_mode=AutoresetMode.SAME_STEP`` to the vector
    env so each ``step`` call is one episode (the default ``NEXT_STEP`` spends every other call
    on a reset that ignores its action). A scorer with ``prepare(tasks)`` is prepared at
    construction, so ``AsyncVectorEnv``'s forked workers inherit the per-task scorers built
    for the env it constructs in the parent.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    #: Registered Gymnasium id; names the env in rollout rows when the env was built without ``make``.
    env_id: ClassVar[str] = ""
    #: Family label reported in ``info`` when the task has none.
    default_family: ClassVar[str] = ""

    def __init__(
        self,
        tasks: Sequence[Task],
        scorer: ResponseScorer,
        *,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
        render_observation: tuple[int, int] | None = None,
        render_backend: str = "skia",
        action_format: Literal["svg", "patch"] = "svg",
        max_turns: int = 1,
    ) -> None:
        tasks = list(tasks)
        if not tasks:
            raise ConfigError("tasks: expected at least one Task, got an empty sequence")
        for t in tasks:
            if not isinstance(t, Task):
                raise ConfigError(f"tasks: expected Task objects, got {type(t).__name__}")
        index: dict[str, int] = {}
        for i, t in enumerate(tasks):
            if t.task_id in index:
                raise ConfigError(f"tasks: duplicate task_id {t.task_id!r}")
            index[t.task_id] = i
        if not hasattr(scorer, "score_response"):
            raise ConfigError(
                f"scorer: expected an object with score_response(task, response), got {type(scorer).__name__}"
            )
        if not isinstance(max_response_chars, int) or max_response_chars < 1:
            raise ConfigError(
                f"max_response_chars: expected a positive int, got {max_response_chars!r}"
            )
        if task_order not in ("random", "sequential"):
            raise ConfigError(f"task_order: expected 'random' or 'sequential', got {task_order!r}")
        if render_mode is not None:
            raise ConfigError(f"render_mode: expected None (no render modes), got {render_mode!r}")
        if action_format not in ("svg", "patch"):
            raise ConfigError(f"action_format: expected 'svg' or 'patch', got {action_format!r}")
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ConfigError(f"max_turns: expected an int >= 1, got {max_turns!r}")
        self.action_format = action_format
        self.max_turns = max_turns
        self._turn = 0
        self._current_svg = ""
        self._feedback = ""
        self._last_answer_reward = 0.0

        self._tasks: tuple[Task, ...] = tuple(tasks)
        self._index = index
        self.scorer = scorer
        # per-task scoring work now, before AsyncVectorEnv forks (its workers inherit it)
        prepare = getattr(scorer, "prepare", None)
        if callable(prepare):
            prepare(self._tasks)
        self.max_response_chars = max_response_chars
        self.task_order = task_order
        self.render_mode = render_mode
        self._cursor = 0
        self._task: Task | None = None
        self._done = True

        charset = corpus_charset(self._tasks)
        longest = max(max(len(t.instruction), len(t.source_svg)) for t in self._tasks)
        obs_len = max(MIN_OBSERVATION_CHARS, longest)
        self.observation_space = spaces.Dict(
            {
                "instruction": spaces.Text(max_length=obs_len, min_length=0, charset=charset),
                "svg": spaces.Text(max_length=obs_len, min_length=0, charset=charset),
            }
        )
        self.action_space = spaces.Text(
            max_length=max_response_chars, min_length=0, charset=charset
        )
        self.render_observation: tuple[int, int] | None = None
        self.render_backend = render_backend
        self._images: dict[str, Any] = {}
        if render_observation is not None:
            try:
                h, w = (int(v) for v in render_observation)
            except (TypeError, ValueError):
                raise ConfigError(f"render_observation: expected (H, W) ints, got {render_observation!r}") from None
            if not (1 <= h <= 4096 and 1 <= w <= 4096):
                raise ConfigError(f"render_observation: expected sides in 1..4096, got {render_observation!r}")
            import numpy as np

            self.render_observation = (h, w)
            self.observation_space = spaces.Dict(
                {**self.observation_space.spaces, "image": spaces.Box(0, 255, (h, w, 3), np.uint8)}
            )
        if max_turns > 1:  # multi-turn: the editor feedback on the previous answer
            # the current SVG is an earlier answer (at most max_response_chars) or a patched
            # document (the source plus at most max_turns patches), in the action charset
            svg_len = max(obs_len, longest + max_turns * max_response_chars)
            self.observation_space = spaces.Dict(
                {
                    **self.observation_space.spaces,
                    "svg": spaces.Text(max_length=svg_len, min_length=0, charset=charset),
                    "feedback": spaces.Text(max_length=4096, min_length=0, charset=BASE_CHARSET),
                }
            )

    # ------------------------------------------------------------------ tasks
    @property
    def tasks(self) -> tuple[Task, ...]:
        """The task source, in order."""
        return self._tasks

    @property
    def task_ids(self) -> list[str]:
        """Task ids in order."""
        return [t.task_id for t in self._tasks]

    @property
    def task(self) -> Task | None:
        """The current episode's task (None before the first reset)."""
        return self._task

    @staticmethod
    def load_tasks(source: Any = None) -> list[Task]:
        """Load this env's task source from a path (the CLI's ``--tasks``); subclasses override.

        Raises
        ------
        ConfigError
            This env has no task loader.
        """
        raise ConfigError("this environment does not load tasks from a path; pass tasks= instead")

    def get_task(self, task_id: str) -> Task:
        """Return the task with this id.

        Raises
        ------
        UnknownTaskError
            The id is not in this env's tasks; the message lists the valid ids.
        """
        try:
            return self._tasks[self._index[task_id]]
        except (KeyError, TypeError):
            raise UnknownTaskError(
                f"unknown task_id {task_id!r}; expected one of: {', '.join(self.task_ids)}"
            ) from None

    # ------------------------------------------------------------ hooks
    def _observe(self, task: Task) -> dict[str, Any]:
        """:meth:`observation` plus ``"image"`` when ``render_observation`` is set (cached per task)."""
        obs: dict[str, Any] = self.observation(task)
        if self.render_observation is not None:
            img = self._images.get(task.task_id)
            if img is None:
                from vector_gym.render import render_many

                batch = render_many([task.source_svg], size=self.render_observation, backend=self.render_backend)
                img = batch.images[0].copy()
                img.setflags(write=False)
                self._images[task.task_id] = img
            obs["image"] = img.copy()
        return obs

    def observation(self, task: Task) -> dict[str, str]:
        """Return the policy's view of ``task``: ``{"instruction", "svg"}`` (a fresh dict)."""
        return {"instruction": task.instruction, "svg": task.source_svg}

    def reward_from_report(self, report: Report) -> float:
        """Turn a scorer report into the scalar step reward (default: ``report.reward``)."""
        r = float(report.reward)
        return r if math.isfinite(r) else 0.0

    def task_info(self, task: Task) -> dict[str, Any]:
        """Return the info dict of a reset: ``task_id``, ``family``, ``metadata`` (fresh JSON types)."""
        return {
            "task_id": task.task_id,
            "family": task.family or self.default_family,
            "metadata": task.meta(),
        }

    def score_response(self, task: Task, response: str) -> Report:
        """Score ``response`` for ``task`` with this env's scorer (no episode state involved)."""
        return self.scorer.score_response(task, response)

    # ------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, str], dict[str, Any]]:
        """Start an episode on one task.

        Parameters
        ----------
        seed : int, optional
            Seeds ``self.np_random``; the task is then a function of the seed alone.
        options : mapping, optional
            ``{"task_id": str}`` selects the task explicitly (no randomness used).

        Returns
        -------
        observation : dict
            ``{"instruction": str, "svg": str}`` (the source SVG; never the target,
            requested edits or protected ids).
        info : dict
            ``task_id``, ``family`` and ``metadata`` (JSON types).

        Raises
        ------
        UnknownTaskError
            ``options["task_id"]`` is not one of this env's tasks (message lists them).
        ConfigError
            ``options`` has a key other than ``task_id``.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"task_id"})
        if unknown:
            raise ConfigError(f"options: expected only 'task_id', got unknown key(s) {unknown}")
        if "task_id" in options:
            task = self.get_task(options["task_id"])
        elif self.task_order == "sequential":
            if seed is not None:
                self._cursor = 0
            task = self._tasks[self._cursor % len(self._tasks)]
            self._cursor += 1
        else:
            task = self._tasks[int(self.np_random.integers(len(self._tasks)))]
        self._task = task
        self._done = False
        self._turn = 0
        self._current_svg = task.source_svg
        self._feedback = ""
        self._last_answer_reward = 0.0
        return self._turn_observation(task), self.task_info(task)

    def _turn_observation(self, task: Task) -> dict[str, Any]:
        """:meth:`_observe`, with the current SVG and ``feedback`` in multi-turn episodes."""
        obs = self._observe(task)
        if self.max_turns > 1:
            if self._turn > 0:
                obs["svg"] = self._current_svg
                if "image" in obs:
                    from vector_gym.render import render_many

                    batch = render_many([self._current_svg], size=self.render_observation, backend=self.render_backend)
                    obs["image"] = batch.images[0].copy()
            obs["feedback"] = "".join(c if c in BASE_CHARSET else "?" for c in self._feedback)[:4096]
        return obs

    def step(self, action: str) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        """Score one response and end the episode.

        Parameters
        ----------
        action : str
            The policy's raw response (the scorer extracts the SVG: a fenced block,
            a bare ``<svg>...</svg>`` with prose around it, ...).

        Returns
        -------
        observation : dict
            The episode's observation again (fresh dict).
        reward : float
            :meth:`reward_from_report` of the report.
        terminated : bool
            Single-turn (``max_turns=1``): always True. Multi-turn: True on a full pass
            (``report.reward >= 1``).
        truncated : bool
            True when a multi-turn episode reaches ``max_turns`` without a full pass.
        info : dict
            ``task_id``, ``family``, ``report`` (the scorer report's ``to_dict()``:
            every gate, check and distance) and ``response_too_long`` (bool); for an
            action that is not a ``str`` (``None``, ``bytes``, ...) also ``response_not_text``
            (its type name; it is scored as an empty response, reward 0); with
            ``action_format="patch"`` also ``action_error`` (None, or ``{"reason",
            "message"}`` of a patch that could not be applied; the answer then scores as an
            empty response); with ``max_turns > 1`` also ``turn`` (1-based) and
            ``answer_reward`` (R_t, the :meth:`reward_from_report` of this answer).

        Notes
        -----
        Rewards. The step reward is ``R_t - R_(t-1)`` with ``R_0 = 0`` and ``R_t`` the
        reward of the t-th answer, so a single-turn step returns ``R_1`` and the
        undiscounted return of a multi-turn episode is the reward of its last answer
        (a worse answer after a better one gives a negative step reward).

        Raises
        ------
        gymnasium.error.ResetNeeded
            ``step`` before ``reset`` or after the episode ended.
        """
        if self._task is None or self._done:
            raise ResetNeeded(
                "expected reset() before step(): the episode has ended or not started"
            )
        # A policy that returns no text (None from a failed API call, bytes, ...) must not crash
        # a training loop: the answer is scored as an empty response (reward 0, no SVG found)
        # and flagged in ``info["response_not_text"]`` (review R1).
        not_text = not isinstance(action, str)
        task = self._task
        too_long = not not_text and len(action) > self.max_response_chars
        response = "" if too_long or not_text else action
        action_error = None
        if self.action_format == "patch" and not too_long and not not_text:
            from vector_gym.envs.patch import decode_patch_action

            patched = decode_patch_action(response, self._current_svg)
            if patched.ok:
                response = patched.svg
            else:
                action_error = {"reason": patched.reason, "message": patched.message}
                response = ""
        report = self.scorer.score_response(task, response)
        answer_reward = self.reward_from_report(report)
        # multi-turn: per-turn reward = R_t - R_(t-1) with R_0 = 0, so the return is R_T
        reward = answer_reward - self._last_answer_reward
        self._last_answer_reward = answer_reward
        self._turn += 1
        terminated = self.max_turns == 1 or float(report.reward) >= 1.0
        truncated = not terminated and self._turn >= self.max_turns
        self._done = terminated or truncated
        info = {
            "task_id": task.task_id,
            "family": task.family or self.default_family,
            "report": report.to_dict(),
            "response_too_long": too_long,
        }
        if not_text:
            info["response_not_text"] = type(action).__name__
        if self.action_format == "patch":
            info["action_error"] = action_error
        if self.max_turns > 1:
            from vector_gym.envs.patch import editor_feedback
            from vector_gym.svg.extract import extract_svg

            info["turn"] = self._turn
            info["answer_reward"] = answer_reward
            # The next observation shows the answer as the current document, unless it holds
            # characters the observation space cannot carry (NUL, lone surrogates, characters
            # outside the corpus charset): then the previous document stays current and the
            # feedback reports the answer's errors.
            if self.action_format == "patch":
                candidate = response if action_error is None else None
            elif not too_long and not not_text:
                candidate = extract_svg(action)
            else:
                candidate = None
            if candidate is not None and self.observation_space["svg"].contains(candidate):
                self._current_svg = candidate
            self._feedback = editor_feedback(report, action_error)
        return self._turn_observation(task), reward, terminated, truncated, info

    def render(self) -> None:
        """No rendering (text environment)."""
        return None
