"""TRL hooks: specification-reward functions for ``GRPOTrainer`` and a dataset builder.

Layer 7. No scoring logic lives here: every number comes from a suite scored by the
specification reward (``vector_bench``, ``repairgen`` or a user's suite with spec reports):
``suite.score_many`` through the suite scorer's report cache (batched, optionally over a
process pool). A suite scored otherwise (SVGEditBench) is refused with a ConfigError instead
of being scored with the wrong reward; RepairGen's generated ids resolve through the suite. ``trl`` itself is never imported; ``datasets`` only by :func:`build_dataset`.

Calling convention (trl 1.16, ``GRPOTrainer._calculate_rewards``): a reward
function is called with keyword arguments ``prompts``, ``completions``,
``completion_ids``, every other dataset column as a list (here ``task_id``),
plus ``trainer_state``, ``log_extra`` and ``log_metric``; it returns one
``float | None`` per completion, ``None`` meaning "not mine" (the trainer turns
it into NaN and leaves it out of that row's weighted sum). Completions are
strings (standard format) or ``[{"role": "assistant", "content": ...}]``
(conversational format); both are accepted.

Examples
--------
>>> from vector_gym.tasks.vector_bench import load_vector_bench
>>> tasks = load_vector_bench()
>>> spec = spec_reward_func(tasks)
>>> progress = repair_progress_reward_func(tasks)
>>> spec.__name__, progress.__name__
('spec_reward', 'repair_progress')
>>> spec(completions=[tasks[0].target_svg, "no svg here", "x"], task_id=["sv_001", "sv_001", "elsewhere"])
[1.0, 0.0, None]

With TRL (see ``examples/train_grpo.py``)::

    trainer = GRPOTrainer(model=..., reward_funcs=[spec, progress],
                          args=GRPOConfig(reward_weights=[1.0, 0.5], ...),
                          train_dataset=build_dataset(tasks))
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.templates import (
    ChatTemplate,
    build_messages,
    content_text,
    task_observation,
)
from vector_gym.tasks.task import Task

log = logging.getLogger(__name__)

__all__ = [
    "SpecReportReward",
    "spec_reward_func",
    "repair_progress_reward_func",
    "completion_text",
    "build_dataset",
    "REPORT_FIELDS",
]

REPORT_FIELDS: tuple[str, ...] = (
    "reward",
    "repair_progress",
    "edit_completion",
    "preservation",
    "source_preservation",
)
"""``SpecReport`` fields a reward function may return (all in [0, 1], spec-reward.md §11)."""

_GATES: tuple[str, ...] = (
    "validity_pass",
    "repair_pass",
    "preservation_pass",
    "specification_pass",
    "near_pass",
)

def _suite_and_tasks(source: Any, parity: bool, processes: int | None) -> tuple[Any, list[Task]]:
    """The specification-reward suite and the corpus of a suite, name, env or task list.

    Raises
    ------
    ConfigError
        The source's suite is not scored by the specification reward (an SVGEditBench suite:
        its hidden targets would silently score 0), or tasks of several families.
    """
    from vector_gym.suites import Suite, get_suite, suite_for_task

    opts: dict[str, Any] = {"parity": True} if parity else {}
    if processes and processes > 1:
        opts["processes"] = processes
    if isinstance(source, Suite | str):
        suite = get_suite(source)
        tasks = suite.tasks()
    else:
        base = getattr(source, "unwrapped", source)
        suite = getattr(base, "suite", None)
        tasks = _tasks_of(source)
        if suite is None:
            found = {getattr(suite_for_task(t), "name", None) for t in tasks}
            if len(found) > 1:
                raise ConfigError(f"tasks: expected tasks of one suite, got families of {sorted(map(str, found))}")
            suite = get_suite(found.pop() or "vector_bench")
    if suite.summary != "spec":
        raise ConfigError(
            f"the specification reward does not score suite {suite.name!r} (its reports are "
            f"{suite.summary!r}); use that suite's own reward"
        )
    if opts:
        try:
            suite = suite.configure(**opts)
        except ConfigError:
            if parity:
                raise
    return suite, tasks


def _tasks_of(source: Any) -> list[Task]:
    """Tasks of a task sequence, an env (``.tasks``) or a wrapped env (``.unwrapped.tasks``)."""
    for obj in (source, getattr(source, "unwrapped", None)):
        tasks = getattr(obj, "tasks", None)
        if tasks is not None and not callable(tasks):
            return list(tasks)
    if isinstance(source, Iterable) and not isinstance(source, str | bytes | Mapping):
        tasks = list(source)
        if all(isinstance(t, Task) for t in tasks):
            return tasks
    raise ConfigError(
        f"expected a sequence of Task or an env with .tasks, got {type(source).__name__}"
    )


def completion_text(completion: Any) -> str:
    """Return the text of one completion in TRL's standard or conversational format.

    Parameters
    ----------
    completion : str or list of dict or dict
        ``"..."``, ``[{"role": "assistant", "content": "..."}]`` (the assistant
        contents are joined) or one message dict. A ``content`` that is a list
        of parts (``[{"type": "text", "text": "..."}]``, multimodal chat
        format) gives its joined text parts. Anything else gives ``""``,
        which scores 0 (no SVG found) rather than raising.

    Examples
    --------
    >>> completion_text("<svg/>")
    '<svg/>'
    >>> completion_text([{"role": "assistant", "content": "<svg/>"}])
    '<svg/>'
    >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "<svg/>"}]}])
    '<svg/>'
    >>> completion_text(None)
    ''
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return content_text(completion.get("content"))
    if isinstance(completion, Sequence) and not isinstance(completion, bytes | bytearray):
        return "".join(
            content_text(m.get("content"))
            for m in completion
            if isinstance(m, Mapping) and m.get("role", "assistant") == "assistant"
        )
    return ""


class SpecReportReward:
    """A picklable GRPO reward function: one ``SpecReport`` field per completion.

    Build it with :func:`spec_reward_func` (binary specification reward) or
    :func:`repair_progress_reward_func` (dense progress). Instances are plain
    callable objects (no closures), so they pickle into spawned workers; the
    ``__name__`` attribute names TRL's ``rewards/<name>/mean`` metrics.

    Parameters
    ----------
    tasks : Suite, suite name, env, or sequence of Task
        The suite (and corpus) this function scores; a ``task_id`` outside it gets None, except
        a generated id of a generator suite (RepairGen), which is regenerated.
    field : str
        The report field returned, one of :data:`REPORT_FIELDS`.
    name : str
        ``__name__`` of the instance.
    parity : bool
        Score in parity mode (reference defects reproduced).
    processes : int, optional
        None or 1: score in this process. More: a process pool of that size,
        started on the first call and kept for the life of the instance (its
        workers keep their per-task scorers between calls), each worker running
        :func:`~vector_gym.rewards.spec.score_many` on a contiguous chunk. If
        the pool breaks (a worker killed), the batch is scored in this process
        and a new pool is started on the next call.
    log_diagnostics : bool
        Send ``failure_reasons``, ``detail`` and the gate flags through
        ``log_extra`` and gate pass rates through ``log_metric`` (when the
        trainer provides them).

    Raises
    ------
    ConfigError
        Unknown ``field``, or ``tasks`` is not a task source.
    """

    def __init__(
        self,
        tasks: Any,
        *,
        field: str = "reward",
        name: str = "spec_reward",
        parity: bool = False,
        processes: int | None = None,
        log_diagnostics: bool = True,
    ) -> None:
        if field not in REPORT_FIELDS:
            raise ConfigError(f"field: expected one of {REPORT_FIELDS}, got {field!r}")
        self.suite, task_list = _suite_and_tasks(tasks, parity, None)
        self.tasks: dict[str, Task] = {t.task_id: t for t in task_list}
        self.field = field
        self.__name__ = name
        self.parity = bool(getattr(self.suite.scorer, "parity", False))
        self.processes = processes
        self.log_diagnostics = bool(log_diagnostics)
        self._executor: Any = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_executor"] = None  # a pool does not pickle; the copy starts its own
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.__name__!r}, field={self.field!r}, tasks={len(self.tasks)})"

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        task_id: Sequence[str] | None = None,
        log_extra: Callable[[str, list], None] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        """Score a batch of completions.

        Parameters
        ----------
        prompts, completion_ids
            Unused (accepted because the trainer passes them).
        completions : sequence
            B completions, standard (str) or conversational (list of messages).
        task_id : sequence of str
            B task ids (the dataset column of :func:`build_dataset`); an id
            that is not a string of this corpus (None, a number, a list) gets None.
        log_extra, log_metric : callable, optional
            The trainer's loggers; None when called directly.
        **kwargs
            Other dataset columns, ``trainer_state`` and arguments that newer
            TRL releases add: accepted and ignored, so they never break a run.

        Returns
        -------
        list of float or None
            Length B; None for a task id outside this function's corpus.

        Raises
        ------
        ConfigError
            ``completions`` or ``task_id`` missing, or their lengths differ.
        """
        if completions is None or task_id is None:
            raise ConfigError(
                "expected keyword arguments completions= and task_id= (a dataset column); "
                f"got completions={completions is not None}, task_id={task_id is not None}"
            )
        if len(completions) != len(task_id):
            raise ConfigError(
                f"expected one task_id per completion, got {len(task_id)} for {len(completions)}"
            )
        texts = [completion_text(c) for c in completions]
        resolved = [self._task(tid) for tid in task_id]
        mine = [i for i, t in enumerate(resolved) if t is not None]
        reports = self._reports([resolved[i] for i in mine], [texts[i] for i in mine])
        by_index = dict(zip(mine, reports, strict=True))
        rewards: list[float | None] = []
        for i in range(len(texts)):
            report = by_index.get(i)
            rewards.append(None if report is None else float(getattr(report, self.field)))
        if self.log_diagnostics:
            self._log(by_index, len(texts), log_extra, log_metric)
        return rewards

    def _task(self, task_id: Any) -> Task | None:
        """This function's task of an id: its corpus, or a generated id its suite regenerates."""
        if not isinstance(task_id, str):
            return None
        task = self.tasks.get(task_id)
        if task is None and self.suite.generated:
            from vector_gym.errors import UnknownTaskError

            try:
                task = self.suite.get_task(task_id)
            except (UnknownTaskError, ConfigError):
                return None
        return task

    def _reports(self, tasks: list[Task], texts: list[str]) -> list[Any]:
        """Reports of (task, response) pairs: the suite scorer's report cache, then one batch.

        With ``processes > 1`` and the specification scorer, the batch is scored on this
        function's kept pool; otherwise by ``suite.score_many``.
        """
        from vector_gym.rewards.spec import SpecRewardScorer

        scorer = self.suite.scorer
        if (self.processes or 1) > 1 and isinstance(scorer, SpecRewardScorer):
            return scorer.cache.score_many(tasks, texts, self._score)
        return self.suite.score_many(tasks, texts)

    def _score(self, tasks: list[Task], texts: list[str]) -> list[Any]:
        """``score_many`` over the batch: in this process, or in chunks on the kept pool."""
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        from vector_gym.rewards.spec import score_many

        workers = self.processes or 1
        if workers <= 1 or len(tasks) < 2:
            return score_many(tasks, texts, parity=self.parity, responses=True)
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=workers)
        chunk = max(1, math.ceil(len(tasks) / (workers * 4)))
        try:
            futures = [
                self._executor.submit(
                    score_many,
                    tasks[i : i + chunk],
                    texts[i : i + chunk],
                    parity=self.parity,
                    responses=True,
                )
                for i in range(0, len(tasks), chunk)
            ]
            return [report for future in futures for report in future.result()]
        except BrokenProcessPool as exc:
            log.warning("%s: scoring pool broke (%s); scoring this batch in process", self, exc)
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            return score_many(tasks, texts, parity=self.parity, responses=True)

    def _log(
        self,
        by_index: dict[int, Any],
        size: int,
        log_extra: Callable[[str, list], None] | None,
        log_metric: Callable[[str, float], None] | None,
    ) -> None:
        prefix = self.__name__
        if log_extra is not None:
            rows = [by_index.get(i) for i in range(size)]
            log_extra(
                f"{prefix}/failure_reasons",
                [None if r is None else ",".join(r.failure_reasons) for r in rows],
            )
            log_extra(f"{prefix}/detail", [None if r is None else ",".join(r.detail) for r in rows])
            for gate in _GATES:
                log_extra(
                    f"{prefix}/{gate}",
                    [None if r is None else bool(getattr(r, gate)) for r in rows],
                )
        if log_metric is not None and by_index:
            reports = list(by_index.values())
            for gate in _GATES:
                log_metric(
                    f"{prefix}/{gate}_rate",
                    sum(bool(getattr(r, gate)) for r in reports) / len(reports),
                )


def spec_reward_func(
    tasks: Any, *, parity: bool = False, processes: int | None = None, log_diagnostics: bool = True
) -> SpecReportReward:
    """Return the binary specification reward (1 when all three gates pass, else 0).

    Parameters
    ----------
    tasks : Suite, suite name, env, or sequence of Task
        The corpus scored (Vector-Bench, RepairGen: any generated id); other task ids get None.
    parity : bool
        Parity mode (reference defects reproduced).
    processes : int, optional
        Worker processes for scoring.
    log_diagnostics : bool
        Log failure reasons and gate flags/rates through the trainer.

    Returns
    -------
    SpecReportReward
        ``__name__ == "spec_reward"``; returns ``SpecReport.reward``.

    References
    ----------
    spec-reward.md §11 (specification reward and its gates).
    """
    return SpecReportReward(
        tasks,
        field="reward",
        name="spec_reward",
        parity=parity,
        processes=processes,
        log_diagnostics=log_diagnostics,
    )


def repair_progress_reward_func(
    tasks: Any, *, parity: bool = False, processes: int | None = None, log_diagnostics: bool = False
) -> SpecReportReward:
    """Return the dense repair-progress reward (``SpecReport.repair_progress`` in [0, 1]).

    Mix it with :func:`spec_reward_func` through ``GRPOConfig.reward_weights``.
    Diagnostics are off by default (the spec reward logs the same reports).

    Returns
    -------
    SpecReportReward
        ``__name__ == "repair_progress"``.

    References
    ----------
    spec-reward.md §11 (repair progress).
    """
    return SpecReportReward(
        tasks,
        field="repair_progress",
        name="repair_progress",
        parity=parity,
        processes=processes,
        log_diagnostics=log_diagnostics,
    )


def build_dataset(
    tasks: Any,
    *,
    template: ChatTemplate | None = None,
    templates: Mapping[str, ChatTemplate] | None = None,
) -> Any:
    """Turn tasks (or an env's tasks) into a TRL prompt dataset.

    Parameters
    ----------
    tasks : sequence of Task or env
    template, templates
        Chat template choice (default: each task family's protocol), see
        :func:`vector_gym.policies.templates.select_template`.

    Returns
    -------
    datasets.Dataset
        One row per task, in order, with columns ``prompt`` (conversational:
        a list of ``{"role", "content"}`` messages), ``task_id`` and ``family``.
        Never the target SVG, E or U.

    Raises
    ------
    ConfigError
        ``tasks`` is not a task source, or a template cannot render a task.
    """
    from datasets import Dataset

    task_list = _tasks_of(tasks)
    observations = [task_observation(t) for t in task_list]
    prompts = build_messages(observations, template, templates)
    return Dataset.from_dict(
        {
            "prompt": prompts,
            "task_id": [t.task_id for t in task_list],
            "family": [o["family"] for o in observations],
        }
    )
