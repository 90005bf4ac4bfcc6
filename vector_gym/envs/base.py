"""``EditEnv(suite)``: the small single-turn editing environment (layer 6).

An environment holds no scoring logic and names no benchmark: it shows the policy one task of
a :class:`~vector_gym.suites.Suite` (instruction and source SVG), hands the raw response to
``suite.score_many`` and returns ``suite.reward(report)`` as the step reward. Variants are
Gymnasium wrappers (:mod:`vector_gym.envs.wrappers`): JSON patch actions, multi-turn episodes
with editor feedback, rendered image observations and progress shaping;
:func:`vector_gym.envs.make_env` composes them.

Episode protocol
----------------
``reset(seed=..., options={"task_id": ...})`` picks a task (explicitly, for every suite, including
generated RepairGen ids; or from ``self.np_random`` alone, so that the same seed gives the same
task) and returns ``{"instruction": str, "svg": str}``: never the target, E or U.
``step(response)`` scores the response and ends the episode (``terminated=True``,
``truncated=False``). One episode = one task = one response.

State the wrappers read (public attributes): ``task`` (the episode's task), ``current_svg``
(the document the next answer edits: the source after reset), ``last_report`` (the report
object of the last step) and ``answer_svg`` (the document the suite's extraction rule read from
the last response; None when none: the one scored, and the one a multi-turn episode shows next).

The legacy form ``EditEnv(tasks, scorer)`` (a task list and an object with
``score_response(task, response)`` or ``score_many(tasks, responses)``) builds an unregistered
suite of those parts.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

import gymnasium as gym
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.suites import Report, Suite, get_suite
from vector_gym.tasks.task import Task

__all__ = [
    "BASE_CHARSET",
    "DEFAULT_MAX_RESPONSE_CHARS",
    "EditEnv",
    "MIN_OBSERVATION_CHARS",
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
class ResponseScorer(Protocol):
    """A legacy one-response scorer (``EditEnv(tasks, scorer)``)."""

    def score_response(self, task: Task, response: str) -> Report:
        """Extract the SVG from ``response`` and score it; never raises for policy output."""
        ...


class _OneByOne:
    """``score_many`` over a legacy ``score_response`` scorer."""

    def __init__(self, scorer: Any) -> None:
        self.inner = scorer

    def score_many(self, tasks: Sequence[Task], responses: Sequence[Any]) -> list[Any]:
        return [self.inner.score_response(t, r) for t, r in zip(tasks, responses, strict=True)]


def corpus_charset(tasks: Iterable[Task], extra: Iterable[str] = ()) -> frozenset[str]:
    """Return :data:`BASE_CHARSET` plus every character of the tasks' texts.

    Covers ``instruction``, ``source_svg`` and ``target_svg`` of every task, so every
    observation is in the observation space and the target is in the action space.
    """
    chars = set(BASE_CHARSET)
    for t in tasks:
        chars.update(t.instruction)
        chars.update(t.source_svg)
        chars.update(t.target_svg)
    for s in extra:
        chars.update(s)
    return frozenset(chars)


def _suite_of(suite: Any, scorer: Any, tasks: Any) -> tuple[Suite, list[Task] | None]:
    """The suite and explicit task list of the constructor's (possibly legacy) arguments."""
    if isinstance(suite, Suite) or isinstance(suite, str):
        if scorer is not None:
            raise ConfigError("scorer: a suite brings its own scorer; pass EditEnv(suite) alone")
        return get_suite(suite), (None if tasks is None else list(tasks))
    task_list = list(suite if suite is not None else (tasks if tasks is not None else []))
    if scorer is None or not (hasattr(scorer, "score_many") or hasattr(scorer, "score_response")):
        raise ConfigError(
            "scorer: expected an object with score_many(tasks, responses) or score_response(task, response), "
            f"got {type(scorer).__name__}"
        )
    if not hasattr(scorer, "score_many"):
        scorer = _OneByOne(scorer)
    family = next((t.family for t in task_list if isinstance(t, Task) and t.family), "") or "custom"
    suite = Suite("custom", tasks=task_list, scorer=scorer, family=family)
    suite.env_id = ""  # unregistered: rows name the env by its class (env_name)
    return suite, task_list


class EditEnv(gym.Env[dict[str, str], str]):
    """Single-turn instruction-based SVG editing on one suite's tasks.

    Parameters
    ----------
    suite : Suite or str
        The benchmark (a :class:`~vector_gym.suites.Suite` or a registered name). Legacy: a
        sequence of Task, with ``scorer``.
    scorer : object, optional
        Legacy only (see the module docstring).
    tasks : sequence of Task, optional
        The episodes' tasks (non-empty, unique ``task_id``); default ``suite.tasks(split)``.
        Order matters for ``task_order="sequential"`` and the seed-to-task mapping.
    split : str, optional
        Split of ``suite.tasks`` (default the suite's default split).
    max_response_chars : int
        ``max_length`` of the action space. A longer response is not scored: it gets the report
        of an empty response (reward 0) and ``info["response_too_long"] = True``.
    task_order : {"random", "sequential"}
        How ``reset()`` without ``options["task_id"]`` picks the task: uniformly from
        ``self.np_random`` (default), or cycling through the tasks (a seeded reset restarts the
        cycle), so a vector of envs with disjoint task shards visits every task exactly once.
    render_mode : None
        No render modes (text env; :class:`~vector_gym.envs.wrappers.ImageObservation` adds images).

    Attributes
    ----------
    observation_space : gymnasium.spaces.Dict
        ``{"instruction": Text, "svg": Text}`` with an explicit charset (:func:`corpus_charset`)
        and ``max_length`` at least 65,536.
    action_space : gymnasium.spaces.Text
        Same charset, ``max_length = max_response_chars``.

    Raises
    ------
    ConfigError
        Empty or duplicate tasks, a bad scorer, ``max_response_chars`` < 1, unknown
        ``task_order`` or a render mode.

    Notes
    -----
    Text spaces do not survive Gymnasium 1.4's shared-memory transport, so use
    ``gymnasium.vector.AsyncVectorEnv(fns, shared_memory=False)``. Episodes are single-step:
    pass ``autoreset_mode=AutoresetMode.SAME_STEP`` to the vector env so each ``step`` call is
    one episode (the default ``NEXT_STEP`` spends every other call on a reset that ignores its
    action). The suite's scorer is prepared at construction (:meth:`_prepare_scorer`), so
    ``AsyncVectorEnv``'s forked workers inherit the per-task scorers.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    #: Registered Gymnasium id; names the env in rollout rows when built without ``make``.
    env_id: ClassVar[str] = ""
    #: Answers are whole SVG documents (:class:`~vector_gym.envs.wrappers.PatchActions` changes it).
    action_format: ClassVar[str] = "svg"
    #: Answers per episode (:class:`~vector_gym.envs.wrappers.MultiTurn` changes it).
    max_turns: ClassVar[int] = 1
    #: Per-episode state (:func:`vector_gym.envs.wrappers.episode_state`).
    EPISODE_FIELDS: ClassVar[tuple[str, ...]] = (
        "task", "current_svg", "last_report", "answer_svg", "_done", "_tasks", "_index",
    )

    def __init__(
        self,
        suite: Suite | str | Sequence[Task] | None = None,
        scorer: Any = None,
        *,
        tasks: Sequence[Task] | None = None,
        split: str | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
    ) -> None:
        self.suite, explicit = _suite_of(suite, scorer, tasks)
        if not self.env_id and self.suite.env_id:  # rows of a user suite name it by its env id
            self.env_id = self.suite.env_id
        task_list = explicit if explicit is not None else self._default_tasks(split)
        self._set_tasks(task_list)
        self._prepare_scorer()
        if not isinstance(max_response_chars, int) or max_response_chars < 1:
            raise ConfigError(f"max_response_chars: expected a positive int, got {max_response_chars!r}")
        if task_order not in ("random", "sequential"):
            raise ConfigError(f"task_order: expected 'random' or 'sequential', got {task_order!r}")
        if render_mode is not None:
            raise ConfigError(f"render_mode: expected None (no render modes), got {render_mode!r}")
        self.max_response_chars = max_response_chars
        self.task_order = task_order
        self.render_mode = render_mode
        self._cursor = 0
        self.task: Task | None = None
        self.current_svg = ""
        self.last_report: Any = None
        self.answer_svg: str | None = None
        self._done = True
        self._prescored: dict[tuple[str, str], Any] = {}
        charset, longest = self._space_basis()
        self.charset = charset
        self.observation_chars = max(MIN_OBSERVATION_CHARS, longest)
        text = spaces.Text(max_length=self.observation_chars, min_length=0, charset=charset)
        self.observation_space = spaces.Dict({"instruction": text, "svg": text})
        self.action_space = spaces.Text(max_length=max_response_chars, min_length=0, charset=charset)

    def _prepare_scorer(self) -> None:
        """Let the suite's scorer do its per-task work now (``scorer.prepare(tasks)``, if any).

        Gymnasium's ``AsyncVectorEnv`` constructs one env in the parent before it forks its
        workers, so the workers inherit what this builds (the spec reward's per-task scorers,
        :func:`vector_gym.rewards.spec.prepare_scorers`) instead of each building its own.
        """
        try:
            scorer = self.suite.scorer
        except ConfigError:  # a suite without a scorer fails on its first score, not here
            return
        prepare = getattr(scorer, "prepare", None)
        if callable(prepare):
            prepare(self._tasks)

    # ------------------------------------------------------------------ tasks
    def _default_tasks(self, split: str | None) -> list[Task]:
        return self.suite.tasks(split)

    def _set_tasks(self, tasks: list[Task]) -> None:
        if not tasks:
            raise ConfigError("tasks: expected at least one Task, got an empty sequence")
        index: dict[str, int] = {}
        for i, t in enumerate(tasks):
            if not isinstance(t, Task):
                raise ConfigError(f"tasks: expected Task objects, got {type(t).__name__}")
            if t.task_id in index:
                raise ConfigError(f"tasks: duplicate task_id {t.task_id!r}")
            index[t.task_id] = i
        self._tasks: tuple[Task, ...] = tuple(tasks)
        self._index = index

    def _space_basis(self) -> tuple[frozenset[str], int]:
        """``(charset, longest instruction or source)`` of the spaces (subclasses widen them)."""
        longest = max(max(len(t.instruction), len(t.source_svg)) for t in self._tasks)
        return corpus_charset(self._tasks), longest

    @property
    def tasks(self) -> tuple[Task, ...]:
        """The episodes' tasks, in order."""
        return self._tasks

    @property
    def task_ids(self) -> list[str]:
        """Task ids in order."""
        return [t.task_id for t in self._tasks]

    @property
    def default_family(self) -> str:
        """Family reported for a task without one (the suite's)."""
        return self.suite.family

    def load_tasks(self, source: Any = None) -> list[Task]:
        """Load tasks with the suite's loader (the CLI's ``--tasks``)."""
        return self.suite.load_tasks(source)

    def get_task(self, task_id: str) -> Task:
        """The task with this id: one of :attr:`tasks`, or a generated id the suite regenerates.

        Raises
        ------
        UnknownTaskError
            Neither; the message lists this env's ids.
        """
        try:
            return self._tasks[self._index[task_id]]
        except (KeyError, TypeError):
            pass
        if getattr(self.suite, "generated", False):
            return self.suite.get_task(task_id)
        raise UnknownTaskError(f"unknown task_id {task_id!r}; expected one of: {', '.join(self.task_ids)}")

    # ------------------------------------------------------------------ hooks
    def observation(self, task: Task) -> dict[str, str]:
        """The policy's view: ``{"instruction", "svg"}`` with the current document (a fresh dict)."""
        return {"instruction": task.instruction, "svg": self.current_svg or task.source_svg}

    def task_info(self, task: Task) -> dict[str, Any]:
        """The info dict of a reset: ``task_id``, ``family``, ``metadata`` (fresh JSON types)."""
        return {"task_id": task.task_id, "family": task.family or self.default_family, "metadata": task.meta()}

    def score_response(self, task: Task, response: str) -> Any:
        """Score ``response`` for ``task`` with the suite (no episode state involved)."""
        return self.suite.score_response(task, response)

    def reward_from_report(self, report: Any) -> float:
        """The scalar step reward of a report: ``suite.reward(report)``."""
        return self.suite.reward(report)

    def _draw_task(self, seed: int | None) -> Task:
        if self.task_order == "sequential":
            if seed is not None:
                self._cursor = 0
            task = self._tasks[self._cursor % len(self._tasks)]
            self._cursor += 1
            return task
        return self._tasks[int(self.np_random.integers(len(self._tasks)))]

    def prescore(self, tasks: Sequence[Task], responses: Sequence[str]) -> None:
        """Score a batch with one ``suite.score_many`` call for the steps that follow.

        The next :meth:`step` on ``tasks[i]`` whose scored text is ``responses[i]`` takes its
        report from this batch instead of scoring again (one render batch for a raster suite);
        the batch replaces any earlier one. :func:`vector_gym.rollout.rollout` does the same in
        two halves, :meth:`score_batch` then :meth:`use_reports`.
        """
        self.use_reports(tasks, responses, self.score_batch(tasks, responses))

    def score_batch(self, tasks: Sequence[Task], responses: Sequence[str]) -> list[Any] | None:
        """Reports of a batch from one ``suite.score_many`` call (None: each step scores alone).

        Reads and changes no episode state, so a rollout may call it from a scoring thread while
        the env steps other episodes (when ``suite.concurrent_scoring`` says that pays).
        """
        return self.suite.score_many(tasks, responses)

    def use_reports(self, tasks: Sequence[Task], responses: Sequence[str], reports: Sequence[Any] | None) -> None:
        """Hand the next steps the reports of :meth:`score_batch` (see :meth:`prescore`)."""
        self._prescored = (
            {} if reports is None
            else {(t.task_id, r): rep for t, r, rep in zip(tasks, responses, reports, strict=True)}
        )

    def _score(self, task: Task, response: str) -> Any:
        hit = self._prescored.get((task.task_id, response))
        return hit if hit is not None else self.suite.score_response(task, response)

    def resume(self, current_svg: str | None = None) -> None:
        """Keep the episode open for another answer (multi-turn), optionally on a new document.

        Raises
        ------
        gymnasium.error.ResetNeeded
            No episode was started.
        """
        if self.task is None:
            raise ResetNeeded("expected reset() before resume()")
        if current_svg is not None:
            self.current_svg = current_svg
        self._done = False

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
            ``{"instruction": str, "svg": str}`` (the source SVG).
        info : dict
            ``task_id``, ``family`` and ``metadata`` (JSON types).

        Raises
        ------
        UnknownTaskError
            ``options["task_id"]`` is not a task of this env (message lists them).
        ConfigError
            ``options`` has a key other than ``task_id``.
        """
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"task_id"})
        if unknown:
            raise ConfigError(f"options: expected only 'task_id', got unknown key(s) {unknown}")
        task = self.get_task(options["task_id"]) if "task_id" in options else self._draw_task(seed)
        self.task = task
        self.current_svg = task.source_svg
        self.last_report = None
        self.answer_svg = None
        self._done = False
        return self.observation(task), self.task_info(task)

    def step(self, action: str) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        """Score one response and end the episode.

        Parameters
        ----------
        action : str
            The raw response (the suite extracts the SVG with its rule).

        Returns
        -------
        observation : dict
            The episode's observation again (fresh dict).
        reward : float
            ``suite.reward(report)``.
        terminated, truncated : bool
            Always True, False.
        info : dict
            ``task_id``, ``family``, ``report`` (``to_dict()``: every gate, check and distance)
            and ``response_too_long`` (bool); for an action that is not a ``str`` also
            ``response_not_text`` (its type name). Neither kind of answer is read: both score
            as the empty response (reward 0).

        Raises
        ------
        gymnasium.error.ResetNeeded
            ``step`` before ``reset`` or after the episode ended.
        """
        if self.task is None or self._done:
            raise ResetNeeded("expected reset() before step(): the episode has ended or not started")
        task = self.task
        response, flags = self._read_action(action)
        report = self.last_report = self._score(task, response)
        self.answer_svg = self.suite.extract(response) if response else None
        self._done = True
        info = {"task_id": task.task_id, "family": task.family or self.default_family,
                "report": report.to_dict(), **flags}
        return self.observation(task), self.reward_from_report(report), True, False, info

    def _read_action(self, action: Any) -> tuple[str, dict[str, Any]]:
        """(the response scored, the info flags) of an action: not text or too long reads as ""."""
        if not isinstance(action, str):
            return "", {"response_too_long": False, "response_not_text": type(action).__name__}
        too_long = len(action) > self.max_response_chars
        return ("" if too_long else action), {"response_too_long": too_long}

    def render(self) -> None:
        """No rendering (text environment)."""
        return None
