"""TRL: reward functions for ``GRPOTrainer`` on every suite, a prompt dataset builder, a tool
environment for ``environment_factory`` and a one-line trainer.

Layer 7, a thin adapter over a :class:`~vector_gym.suites.Suite`: every number comes from
``suite.score_many`` and ``suite.reward``. ``trl`` is imported only by :func:`grpo_trainer`,
``datasets`` only by :func:`build_dataset` (``pip install "vector-gym[trl]"``, trl 1.16).

One line::

    trainer = grpo_trainer("vector_bench", model="Qwen/Qwen3-0.6B",
                           args=GRPOConfig(max_completion_length=8192, ...))

which is ``GRPOTrainer(model, reward_funcs=reward_funcs(suite), args=args (reward_weights set
to reward_weights(funcs)), train_dataset=build_dataset(suite))`` plus a warning when
``max_completion_length`` is below the suite's token budget (a cut answer scores 0).

Reward functions and weights (one scalar reward, ``suite.reward``)
------------------------------------------------------------------
:func:`reward_funcs` returns the parts of ``suite.reward`` as separate functions (TRL logs
``rewards/<name>/mean`` for each) with their weights in ``.weight``; TRL's weighted sum with
:func:`reward_weights` reproduces ``suite.reward(report)`` exactly:

- specification suites (Vector-Bench, RepairGen): ``spec_reward`` (weight 1, the binary
  specification reward) and ``repair_progress`` (weight ``suite.progress_weight``, 0.2 by
  default): ``1 * reward + 0.2 * repair_progress``;
- raster suites (SVGEditBench v1/V2): ``raster_reward`` (weight 1); with ``metrics=True`` also
  ``mse``, ``dino``, ``clipscore``, ``chamfer`` and ``compression_ratio`` at weight 0 (logged
  only; None where the answer did not render, which TRL turns into NaN and leaves out of the
  mean, the papers' averaging over rendered outputs);
- any other suite: ``<name>_reward`` = ``suite.reward(report)`` (weight 1).

:func:`suite_reward_func` is the single scalar function. Every function returns a float for
every row of its own suite, never None.

Calling convention (trl 1.16, ``GRPOTrainer._calculate_rewards``): keyword arguments
``prompts``, ``completions``, ``completion_ids``, every dataset column as a list (here
``task_id``, ``suite``, ``task_hash``), ``trainer_state``, ``log_extra``, ``log_metric``, and
``environments`` with ``environment_factory``. Completions are strings or message lists; an
answer given as a tool call (``submit_svg(svg=...)``, ``apply_patch(patch=...)``) is read from
the call's arguments (:func:`completion_text`).

Which rows a function scores (the guard)
----------------------------------------
A row whose ``suite`` column names another suite gets None (datasets of several suites mix in
one run, each function scoring its own). Any other row must resolve through
``suite.get_task(task_id)`` (corpus ids; generated RepairGen ids regenerate, so a stream of
10,000 generated tasks has no lookup misses) and, when the row has ``task_hash``, to a task of
that integrity hash: otherwise :class:`~vector_gym.errors.ConfigError` names the suite and the
id (a function handed another suite's tasks fails loudly instead of scoring 0).

Examples
--------
>>> from vector_gym.suites import get_suite
>>> suite = get_suite("vector_bench")
>>> funcs = reward_funcs(suite)
>>> [f.__name__ for f in funcs], reward_weights(funcs)
(['spec_reward', 'repair_progress'], [1.0, 0.2])
>>> task = suite.tasks()[0]
>>> [f(completions=[task.target_svg, "no svg"], task_id=[task.task_id] * 2) for f in funcs]
[[1.0, 0.0], [1.0, 0.0]]
"""

from __future__ import annotations

import functools
import json
import logging
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.integrations._episode import (
    EditSession,
    apply_answers,
    check_action_format,
    first_messages,
    resolve_suite,
)
from vector_gym.policies.templates import content_text
from vector_gym.tasks.task import Task

log = logging.getLogger(__name__)

__all__ = [
    "REPORT_FIELDS",
    "RASTER_METRICS",
    "SuiteRewardFunc",
    "EditToolEnv",
    "PatchToolEnv",
    "build_dataset",
    "check_completion_length",
    "completion_text",
    "grpo_trainer",
    "repair_progress_reward_func",
    "reward_funcs",
    "reward_weights",
    "spec_reward_func",
    "suite_reward_func",
    "tool_environment",
]

REPORT_FIELDS: tuple[str, ...] = (
    "reward",
    "repair_progress",
    "edit_completion",
    "preservation",
    "source_preservation",
)
"""``SpecReport`` fields in [0, 1] a reward function may return (spec-reward.md §11)."""

RASTER_METRICS: tuple[str, ...] = ("mse", "dino", "clipscore", "chamfer", "compression_ratio")
"""``RasterReport`` metrics (metrics-svgeditbench.md), logged at weight 0 by ``metrics=True``."""

_GATES: tuple[str, ...] = (
    "validity_pass",
    "repair_pass",
    "preservation_pass",
    "specification_pass",
    "near_pass",
)

#: Argument names under which a tool call carries an answer (submit_svg(svg=...), apply_patch(patch=...)).
ANSWER_ARGUMENTS: tuple[str, ...] = ("svg", "patch", "edits", "answer")

def _is_spec_suite(suite: Any) -> bool:
    from vector_gym.suites.vector_bench import SpecSuite

    return isinstance(suite, SpecSuite)


def _is_raster_suite(suite: Any) -> bool:
    from vector_gym.suites.svgeditbench_v2 import RasterSuite

    return isinstance(suite, RasterSuite)


def _tool_call_answer(message: Mapping[str, Any]) -> str | None:
    """The last answer-carrying argument of a message's tool calls (JSON text for a non-string)."""
    found = None
    for call in message.get("tool_calls") or ():
        fn = call.get("function", call) if isinstance(call, Mapping) else None
        args = fn.get("arguments") if isinstance(fn, Mapping) else None
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                continue
        if not isinstance(args, Mapping):
            continue
        for key in ANSWER_ARGUMENTS:
            if key in args:
                value = args[key]
                found = value if isinstance(value, str) else json.dumps(value)
                break
    return found


def completion_text(completion: Any) -> str:
    """Return the answer text of one completion in TRL's standard or conversational format.

    Parameters
    ----------
    completion : str or list of dict or dict
        ``"..."``, ``[{"role": "assistant", "content": "..."}]`` (assistant contents joined) or
        one message dict; list-of-parts contents give their text parts. When assistant messages
        carry tool calls with an answer argument (:data:`ANSWER_ARGUMENTS`: ``svg``, ``patch``
        ...), the answer is the last such argument (a tool-using policy answers through the
        call, not the content). Anything else gives ``""`` (scores 0).

    Examples
    --------
    >>> completion_text([{"role": "assistant", "content": "<svg/>"}])
    '<svg/>'
    >>> call = {"type": "function", "function": {"name": "submit_svg", "arguments": {"svg": "<svg/>"}}}
    >>> completion_text([{"role": "assistant", "content": "", "tool_calls": [call]},
    ...                  {"role": "tool", "name": "submit_svg", "content": "ok"}])
    '<svg/>'
    >>> completion_text(None)
    ''
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if not isinstance(completion, Sequence) or isinstance(completion, bytes | bytearray):
        return ""
    messages = [m for m in completion if isinstance(m, Mapping) and m.get("role", "assistant") == "assistant"]
    called = [a for a in (_tool_call_answer(m) for m in messages) if a is not None]
    if called:
        return called[-1]
    return "".join(content_text(m.get("content")) for m in messages)


class SuiteRewardFunc:
    """A picklable GRPO reward function over one suite: one float per completion.

    Parameters
    ----------
    suite : Suite or str
    field : str, optional
        None: ``suite.reward(report)``; else the report attribute returned (``"reward"``,
        ``"repair_progress"``, ``"mse"`` ...; a None value gives None).
    name : str, optional
        ``__name__`` (TRL's metric name); default ``f"{suite.name}_reward"`` or the field.
    weight : float
        This part's weight in ``suite.reward`` (:func:`reward_weights`).
    action_format : {"svg", "patch"}
        ``"patch"``: each answer is a JSON edit script applied to the task's source SVG.
    tasks : sequence of Task, optional
        Tasks resolved by id before ``suite.get_task`` (a user's own task list).
    log_diagnostics : bool
        Send failure reasons and gate flags through ``log_extra`` and pass rates through
        ``log_metric`` (when the trainer provides them).
    strict : bool
        True (``reward_funcs``): a row this suite cannot resolve raises (the guard of the module
        docstring). False (``spec_reward_func`` and ``repair_progress_reward_func``, the
        task-list functions): such a row gets None, TRL's "not mine".

    Raises
    ------
    ConfigError
        Unknown suite or action format; when called, a row this suite cannot resolve (strict),
        a task hash mismatch, missing ``completions``/``task_id`` or lengths that differ.
    """

    def __init__(
        self,
        suite: Any,
        field: str | None = None,
        *,
        name: str | None = None,
        weight: float = 1.0,
        action_format: str = "svg",
        tasks: Sequence[Task] | None = None,
        log_diagnostics: bool = True,
        strict: bool = True,
    ) -> None:
        self.suite = resolve_suite(suite)
        self.strict = bool(strict)
        self.field = field
        self.__name__ = name or (field if field else f"{self.suite.name}_reward")
        self.weight = float(weight)
        self.action_format = check_action_format(action_format)
        self.tasks: dict[str, Task] = {t.task_id: t for t in (tasks or ())}
        self.log_diagnostics = bool(log_diagnostics)
        self._hashes: dict[int, str] = {}

    def __getstate__(self) -> dict[str, Any]:
        # A suite holds locks and a scorer (pools, caches): a pickled function names its suite
        # and options, and the copy looks it up again (the same registered, configured suite).
        state = dict(self.__dict__)
        state["suite"] = (self.suite.name, dict(self.suite.options))
        state["_hashes"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        from vector_gym.suites import get_suite

        name, options = state["suite"]
        base = get_suite(name)
        changed = {k: v for k, v in options.items() if base.options.get(k, v) != v or k not in base.options}
        state["suite"] = get_suite(name, **changed) if changed else base
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(suite={self.suite.name!r}, name={self.__name__!r}, weight={self.weight})"

    def _task(self, task_id: Any, task_hash: Any) -> Task | None:
        task = self.tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None:
            try:
                task = self.suite.get_task(task_id)
            except (UnknownTaskError, ConfigError, TypeError):
                if not self.strict:
                    return None
                raise ConfigError(
                    f"reward function {self.__name__!r} of suite {self.suite.name!r} was handed task "
                    f"{task_id!r}, which this suite does not have: build the dataset with "
                    f"build_dataset({self.suite.name!r}) or the reward functions from the dataset's suite"
                ) from None
        if isinstance(task_hash, str) and task_hash:
            got = self._hashes.get(id(task))
            if got is None:
                got = self._hashes[id(task)] = task.integrity_hash
                if len(self._hashes) > 65536:
                    self._hashes.clear()
            if got != task_hash:
                raise ConfigError(
                    f"reward function {self.__name__!r}: task {task_id!r} of suite {self.suite.name!r} "
                    "differs from the dataset's (integrity hash mismatch): build the reward functions "
                    "from the suite (same options) that built the dataset"
                )
        return task

    def reports(self, tasks: Sequence[Task], texts: Sequence[str]) -> tuple[list[Any], list[dict | None]]:
        """Reports of (task, answer) pairs in one ``suite.score_many`` (whose scorer caches
        reports, so the suite's other functions over the same batch score nothing twice) and
        the patch errors."""
        batch = apply_answers(list(texts), [t.source_svg for t in tasks], self.action_format)
        if not tasks:
            return [], []
        return self.suite.score_many(list(tasks), batch.responses), batch.action_errors

    def value(self, report: Any) -> float | None:
        """This function's number for one report."""
        if self.field is None:
            return float(self.suite.reward(report))
        v = getattr(report, self.field, None)
        return None if v is None else float(v)

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        task_id: Sequence[Any] | None = None,
        log_extra: Callable[[str, list], None] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        """Score a batch: one float per completion of this suite, None for rows of another suite."""
        if completions is None or task_id is None:
            raise ConfigError(
                "expected keyword arguments completions= and task_id= (a dataset column); "
                f"got completions={completions is not None}, task_id={task_id is not None}"
            )
        if len(completions) != len(task_id):
            raise ConfigError(f"expected one task_id per completion, got {len(task_id)} for {len(completions)}")
        suites = columns.get("suite") or [None] * len(task_id)
        hashes = columns.get("task_hash") or [None] * len(task_id)
        rows = [i for i, s in enumerate(suites) if s is None or s == self.suite.name]
        resolved = [(i, self._task(task_id[i], hashes[i])) for i in rows]
        mine = [i for i, t in resolved if t is not None]
        tasks = [t for _, t in resolved if t is not None]
        reports, errors = self.reports(tasks, [completion_text(completions[i]) for i in mine])
        out: list[float | None] = [None] * len(task_id)
        by_index = {}
        for i, report in zip(mine, reports, strict=True):
            out[i] = self.value(report)
            by_index[i] = report
        if self.log_diagnostics:
            self._log(by_index, len(task_id), log_extra, log_metric)
        return out

    def _log(self, by_index: dict[int, Any], size: int, log_extra: Callable | None, log_metric: Callable | None) -> None:
        prefix = self.__name__
        rows = [by_index.get(i) for i in range(size)]
        gates = [g for g in _GATES if any(hasattr(r, g) for r in rows if r is not None)]
        if log_extra is not None:
            log_extra(f"{prefix}/failure_reasons",
                      [None if r is None else ",".join(r.failure_reasons) for r in rows])
            for gate in gates:
                log_extra(f"{prefix}/{gate}", [None if r is None else bool(getattr(r, gate)) for r in rows])
        if log_metric is not None and by_index:
            reports = list(by_index.values())
            for gate in gates:
                log_metric(f"{prefix}/{gate}_rate", sum(bool(getattr(r, gate)) for r in reports) / len(reports))


def suite_reward_func(suite: Any, *, action_format: str = "svg", **kw: Any) -> SuiteRewardFunc:
    """The single scalar function ``suite.reward(report)`` (weight 1)."""
    return SuiteRewardFunc(suite, None, action_format=action_format, **kw)


def reward_funcs(
    suite: Any, *, action_format: str = "svg", metrics: bool = False, tasks: Sequence[Task] | None = None,
    log_diagnostics: bool = True,
) -> list[SuiteRewardFunc]:
    """The parts of ``suite.reward`` as GRPO reward functions (module docstring), with weights.

    Parameters
    ----------
    suite : Suite or str
    action_format : {"svg", "patch"}
    metrics : bool
        Raster suites: add the raster metrics at weight 0 (logged only).
    tasks : sequence of Task, optional
        A task list of the suite's family resolved by id first.
    log_diagnostics : bool
        The first function logs the gates and failure reasons.

    Returns
    -------
    list of SuiteRewardFunc
        Pass :func:`reward_weights` of the list as ``GRPOConfig.reward_weights``.
    """
    suite = resolve_suite(suite)
    kw = {"action_format": action_format, "tasks": tasks}
    if _is_spec_suite(suite):
        return [
            SuiteRewardFunc(suite, "reward", name="spec_reward", weight=1.0, log_diagnostics=log_diagnostics, **kw),
            SuiteRewardFunc(suite, "repair_progress", name="repair_progress", weight=suite.progress_weight,
                            log_diagnostics=False, **kw),
        ]
    if _is_raster_suite(suite):
        out = [SuiteRewardFunc(suite, "reward", name="raster_reward", weight=1.0,
                               log_diagnostics=log_diagnostics, **kw)]
        if metrics:
            out += [SuiteRewardFunc(suite, m, name=m, weight=0.0, log_diagnostics=False, **kw) for m in RASTER_METRICS]
        return out
    return [SuiteRewardFunc(suite, None, weight=1.0, log_diagnostics=log_diagnostics, **kw)]


def reward_weights(funcs: Iterable[Any]) -> list[float]:
    """``GRPOConfig.reward_weights`` of reward functions (their ``.weight``, 1 when absent)."""
    return [float(getattr(f, "weight", 1.0)) for f in funcs]


def _suite_of_tasks(tasks: Sequence[Task]) -> Any:
    from vector_gym.suites import suite_for_task

    suite = suite_for_task(tasks[0]) if tasks else None
    if suite is None:
        raise ConfigError("tasks: expected tasks of a registered suite's family (or pass the suite)")
    return suite


def _task_list(source: Any) -> list[Task]:
    for obj in (source, getattr(source, "unwrapped", None)):
        got = getattr(obj, "tasks", None)
        if got is not None and not callable(got):
            return list(got)
    if isinstance(source, Iterable) and not isinstance(source, str | bytes | Mapping):
        out = list(source)
        if out and all(isinstance(t, Task) for t in out):
            return out
    raise ConfigError(f"expected a suite, a sequence of Task or an env with .tasks, got {type(source).__name__}")


def spec_reward_func(tasks: Any, *, parity: bool | None = None, processes: int | None = None,
                     log_diagnostics: bool = True, action_format: str = "svg") -> SuiteRewardFunc:
    """The binary specification reward (1 when all three gates pass) of a spec suite's tasks.

    ``tasks``: a suite, a task list or an env; the suite is found from the tasks' family and
    configured with ``parity`` and ``processes`` (None: the suite's). spec-reward.md §11.
    """
    suite, task_list = _spec_suite(tasks, parity, processes)
    return SuiteRewardFunc(suite, "reward", name="spec_reward", tasks=task_list, strict=False,
                           log_diagnostics=log_diagnostics, action_format=action_format)


def repair_progress_reward_func(tasks: Any, *, parity: bool | None = None, processes: int | None = None,
                                log_diagnostics: bool = False, action_format: str = "svg") -> SuiteRewardFunc:
    """Dense repair progress (``SpecReport.repair_progress`` in [0, 1], spec-reward.md §11);
    its weight is the suite's ``progress_weight`` (0.2), so ``[spec, progress]`` with
    :func:`reward_weights` reproduces ``suite.reward``."""
    suite, task_list = _spec_suite(tasks, parity, processes)
    return SuiteRewardFunc(suite, "repair_progress", name="repair_progress",
                           weight=float(getattr(suite, "progress_weight", 0.0)), tasks=task_list, strict=False,
                           log_diagnostics=log_diagnostics, action_format=action_format)


def _spec_suite(source: Any, parity: bool | None, processes: int | None) -> tuple[Any, list[Task] | None]:
    """The specification-reward suite (and task list) of a suite, name, env or task list."""
    from vector_gym.suites import Suite

    env_suite = getattr(getattr(source, "unwrapped", None), "suite", None)
    if isinstance(source, Suite | str):
        suite, task_list = resolve_suite(source), None
    elif isinstance(env_suite, Suite):
        suite, task_list = env_suite, None
    else:
        task_list = _task_list(source)
        families = {t.family for t in task_list}
        if len(families) > 1:
            raise ConfigError(f"tasks: expected tasks of one suite, got families {sorted(families)}")
        suite = _suite_of_tasks(task_list)
    if suite.summary != "spec":
        raise ConfigError(
            f"the specification reward does not score suite {suite.name!r} (its reports are "
            f"{suite.summary!r}); use reward_funcs({suite.name!r})"
        )
    # None keeps the suite's own setting
    opts = {k: v for k, v in (("parity", parity), ("processes", processes))
            if v is not None and v != suite.options.get(k)}
    return resolve_suite(suite, **opts), task_list


# ---------------------------------------------------------------------- datasets


def build_dataset(
    suite: Any,
    *,
    split: str | None = None,
    tasks: Sequence[Task] | None = None,
    action_format: str = "svg",
    multi_turn: bool = False,
    image: tuple[int, int] | None = None,
    template: Any = None,
    **task_options: Any,
) -> Any:
    """A TRL prompt dataset of a suite's tasks.

    Parameters
    ----------
    suite : Suite, str, or sequence of Task (the suite is then found from the tasks' family)
    split : str, optional
        ``suite.tasks(split, **task_options)`` (RepairGen: ``n=``, ``start=``, ``seed=``).
    tasks : sequence of Task, optional
        These tasks instead of a split.
    action_format : {"svg", "patch"}
        The suite's template for whole-SVG or edit-script answers.
    multi_turn : bool
        Add the "you may answer again" instructions (tool environment, multi-turn trainers).
    image : (int, int), optional
        ``(H, W)``: add an ``image`` column (the source rendered on white, PIL image) and make
        the prompt multimodal (TRL inserts the image into the first user message).
    template : ChatTemplate, optional
        Override the suite's template.

    Returns
    -------
    datasets.Dataset
        Columns ``prompt`` (messages), ``task_id``, ``suite`` (the suite's name),
        ``task_hash`` (integrity hash, checked by the reward functions), ``family``
        (and ``image``). Never the target SVG, E or U.
    """
    from datasets import Dataset

    if _looks_like_tasks(suite):
        tasks = _task_list(suite)
        suite = _suite_of_tasks(tasks)
    suite = resolve_suite(suite)
    task_list = list(tasks) if tasks is not None else suite.tasks(split, **task_options)
    prompts = []
    for t in task_list:
        if template is not None:
            obs = {**suite.observation(t), "task_id": t.task_id, "family": suite.family}
            if action_format != "svg":
                obs["action_format"] = action_format
            if multi_turn:
                obs["feedback"] = ""
            prompts.append(template.messages(obs))
        else:
            prompts.append(first_messages(suite, t, action_format=action_format, multi_turn=multi_turn))
    columns: dict[str, Any] = {
        "prompt": prompts,
        "task_id": [t.task_id for t in task_list],
        "suite": [suite.name] * len(task_list),
        "task_hash": [t.integrity_hash for t in task_list],
        "family": [t.family or suite.family for t in task_list],
    }
    if image is not None:
        from vector_gym.integrations.vision import render_sources

        columns["image"] = render_sources(task_list, image)
    return Dataset.from_dict(columns)


def _looks_like_tasks(obj: Any) -> bool:
    from vector_gym.suites import Suite

    if isinstance(obj, Suite):
        return False
    if hasattr(obj, "tasks") and not callable(obj.tasks):
        return True
    return isinstance(obj, Sequence) and bool(obj) and isinstance(obj[0], Task)


def check_completion_length(suite: Any, max_completion_length: int | None, tasks: Sequence[Task]) -> int:
    """Warn when ``max_completion_length`` is below the suite's token budget of some tasks.

    Returns the number of such tasks. A cut answer has no closing ``</svg>`` and scores 0, with
    no other sign; the budget is ``suite.token_budget(observation)`` (protocols.md).
    """
    if max_completion_length is None:
        return 0
    suite = resolve_suite(suite)
    budgets = [suite.token_budget(suite.observation(t)) for t in tasks]
    short = sum(b > max_completion_length for b in budgets)
    if short:
        warnings.warn(
            f"max_completion_length={max_completion_length} is below suite {suite.name!r}'s token budget "
            f"for {short} of {len(budgets)} tasks (budget up to {max(budgets)} tokens): answers cut at the "
            "limit lose their closing </svg> and score 0. Set max_completion_length to the budget, or use "
            "action_format='patch' (short edit scripts).",
            UserWarning,
            stacklevel=2,
        )
    return short


def grpo_trainer(
    suite: Any,
    model: Any,
    args: Any = None,
    *,
    train_dataset: Any = None,
    action_format: str = "svg",
    metrics: bool = False,
    split: str | None = "train",
    **trainer_kw: Any,
) -> Any:
    """A ``trl.GRPOTrainer`` for a suite in one line (module docstring).

    ``split``: the split trained on when ``train_dataset`` is None (the suite's default split
    when it has no ``"train"``). ``args.reward_weights`` is set to the suite's weights when
    None. Other keywords go to ``GRPOTrainer``.
    """
    from trl import GRPOConfig, GRPOTrainer

    suite = resolve_suite(suite)
    funcs = trainer_kw.pop("reward_funcs", None) or reward_funcs(suite, action_format=action_format, metrics=metrics)
    if args is None:
        args = GRPOConfig(output_dir="runs/grpo")
    if getattr(args, "reward_weights", None) is None:
        args.reward_weights = reward_weights(funcs)
    if train_dataset is None:
        split = split if split in suite.splits else None
        train_dataset = build_dataset(suite, split=split, action_format=action_format)
    if action_format == "svg" and "task_id" in getattr(train_dataset, "column_names", []):
        ids = train_dataset["task_id"][:256]
        check_completion_length(suite, getattr(args, "max_completion_length", None),
                                [suite.get_task(i) for i in ids])
    return GRPOTrainer(model=model, reward_funcs=funcs, args=args, train_dataset=train_dataset, **trainer_kw)


# ---------------------------------------------------------------------- tool environment


class _ToolEnvBase:
    """Shared state of the TRL tool environments (one episode per ``reset``)."""

    suite: Any = None
    action_format = "svg"
    max_turns = 4

    def __init__(self) -> None:
        self.session: EditSession | None = None

    def reset(self, task_id: str | None = None, **row: Any) -> str | None:
        """Start an episode on the row's task (TRL passes the dataset row as keywords)."""
        if task_id is None:
            raise ConfigError("tool environment: expected a task_id column in the dataset")
        if row.get("suite") not in (None, self.suite.name):
            raise ConfigError(f"tool environment of suite {self.suite.name!r} got a row of suite {row['suite']!r}")
        self.session = EditSession(self.suite, self.suite.get_task(task_id),
                                   action_format=self.action_format, max_turns=self.max_turns)
        return None

    def _answer(self, text: str) -> str:
        s = self.session
        if s is None:
            return "No task is open."
        if s.done:
            return "The episode has ended; no further answers are scored."
        result = s.answer(text)
        if result.passed:
            return "Accepted: the document now does what was requested."
        tail = "" if not result.done else " No answers are left."
        doc = f"\n\nCurrent document:\n{s.current_svg}" if self.action_format == "patch" else ""
        return f"{result.feedback}{doc}{tail}"

    def get_reward(self) -> float:
        """``suite.reward`` of the last answer (0 before any answer)."""
        return 0.0 if self.session is None else float(self.session.reward)


class EditToolEnv(_ToolEnvBase):
    """TRL ``environment_factory`` environment: the policy answers with ``submit_svg``."""

    def submit_svg(self, svg: str) -> str:
        """Submit the complete edited SVG document as your answer.

        Args:
            svg: The complete SVG document, from <svg to </svg>.

        Returns:
            The editor's feedback: whether the document parses and is valid SVG, or that the request is done.
        """
        return self._answer(svg)


class PatchToolEnv(_ToolEnvBase):
    """TRL ``environment_factory`` environment: the policy answers with ``apply_patch``."""

    action_format = "patch"

    def apply_patch(self, patch: str) -> str:
        """Apply a JSON edit script to the current SVG document.

        Args:
            patch: A JSON list of edits, e.g. [{"set": "id", "fill": "#ff0000"}, {"delete": "id2"}].

        Returns:
            The editor's feedback and the current document, or that the request is done.
        """
        return self._answer(patch)


def tool_environment(suite: Any, *, action_format: str = "svg", max_turns: int = 4) -> type:
    """An ``environment_factory`` for ``GRPOTrainer``: a class bound to the suite (call it for an env).

    The policy answers through the tool (``submit_svg(svg)`` or ``apply_patch(patch)``) and
    reads the editor's feedback; the episode ends on a pass or after ``max_turns`` answers;
    ``get_reward`` (which TRL adds as a reward source of weight 1) is ``suite.reward`` of the
    last answer. Build the dataset with ``build_dataset(suite, multi_turn=True,
    action_format=...)``.
    """
    suite = resolve_suite(suite)
    base = PatchToolEnv if check_action_format(action_format) == "patch" else EditToolEnv
    if not isinstance(max_turns, int) or max_turns < 1:
        raise ConfigError(f"max_turns: expected an int >= 1, got {max_turns!r}")
    name = "".join(p.capitalize() for p in suite.name.split("_")) + base.__name__
    return type(name, (base,), {"suite": suite, "max_turns": max_turns, "__module__": __name__})


# ---------------------------------------------------------------------- training on generated tasks


def task_stream(
    suite: Any,
    *,
    split: str = "train",
    seed: int | None = None,
    start: int = 0,
    curriculum: Any = None,
    action_format: str = "svg",
    multi_turn: bool = False,
) -> Any:
    """An endless ``datasets.IterableDataset`` of a generator suite's tasks (RepairGen).

    Row k is task ``start + k`` of ``split`` and ``seed``, generated when the trainer reads it
    (no ``generate`` step first) with the curriculum's current config when ``curriculum`` (a
    :class:`~vector_gym.tasks.repairgen.RepairGenCurriculum`) is given, so the difficulty follows
    the rewards (see :class:`CurriculumReward`). Generated tasks are remembered by the suite and
    resolve by id in the reward functions; rows carry ``task_hash``. Columns as
    :func:`build_dataset` (``multi_turn``: the tool environment's instructions). Use
    ``GRPOConfig(max_steps=..., shuffle_dataset=False)`` (a shuffle
    buffer would generate ahead of the curriculum).

    Raises
    ------
    ConfigError
        The suite does not generate tasks (no ``generate(idx, split, seed, config)``).
    """
    from datasets import IterableDataset

    suite = resolve_suite(suite)
    if not callable(getattr(suite, "generate", None)):
        raise ConfigError(f"suite {suite.name!r} does not generate tasks; use build_dataset(suite)")
    check_action_format(action_format)

    def rows(suite=suite, split=split, seed=seed, start=start, curriculum=curriculum, fmt=action_format,
             multi=multi_turn):
        idx = start
        while True:
            config = curriculum.config() if curriculum is not None else None
            task = suite.generate(idx, split, seed, config)
            yield {
                "prompt": first_messages(suite, task, action_format=fmt, multi_turn=multi),
                "task_id": task.task_id,
                "suite": suite.name,
                "task_hash": task.integrity_hash,
                "family": task.family or suite.family,
            }
            idx += 1

    return IterableDataset.from_generator(rows)


class CurriculumReward(SuiteRewardFunc):
    """Weight-0 reward function that feeds each completion's pass (``report.reward >= 1``) to a
    curriculum and returns the curriculum level (logged as ``rewards/curriculum_level/mean``).

    Scores through the same report cache as the suite's other functions (no second scoring).
    """

    def __init__(self, suite: Any, curriculum: Any, **kw: Any) -> None:
        kw.setdefault("name", "curriculum_level")
        kw.setdefault("log_diagnostics", False)
        super().__init__(suite, "reward", weight=0.0, **kw)
        self.curriculum = curriculum

    def value(self, report: Any) -> float | None:
        from vector_gym.integrations._episode import is_pass

        self.curriculum.update(is_pass(report))
        return float(self.curriculum.level)


@functools.cache
def _with_callback_base(cls: type) -> type:
    """``cls`` mixed with ``transformers.TrainerCallback`` (imported on first use)."""
    from transformers import TrainerCallback

    return type(cls.__name__, (cls, TrainerCallback), {"__module__": cls.__module__, "__doc__": cls.__doc__})


class HeldOutEvaluation:
    """Score the policy on held-out tasks every ``every`` steps (a ``transformers`` callback).

    Greedy answers from the model being trained (:class:`~vector_gym.policies.transformers_policy.
    TransformersPolicy` on the live model), scored with ``suite.score_many`` and summarised with
    ``suite.summarize``; logged as ``heldout/full``, ``heldout/progress``, ``heldout/valid``,
    ``heldout/ucr`` (percent; spec suites) through the trainer's logger (``trainer`` attribute,
    set by :meth:`attach`) and kept in :attr:`history`.

    Parameters
    ----------
    suite : Suite or str
    tasks : sequence of Task, optional
        Default ``suite.tasks("test", n=n)`` for generator suites, else the first ``n`` of
        ``suite.tasks("test")``.
    every : int
        Steps between evaluations (>= 1); also evaluated at the end of training.
    n : int
        Held-out tasks.
    max_new_tokens : int, optional
        Default the suite's token budget.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # a TrainerCallback without importing transformers with this module
        return object.__new__(_with_callback_base(cls) if cls is HeldOutEvaluation else cls)

    def __init__(self, suite: Any, *, tasks: Sequence[Task] | None = None, every: int = 50, n: int = 20,
                 max_new_tokens: int | None = None, processing_class: Any = None) -> None:
        if not isinstance(every, int) or every < 1:
            raise ConfigError(f"every: expected an int >= 1, got {every!r}")
        self.suite = resolve_suite(suite)
        if tasks is None:
            try:
                tasks = self.suite.tasks("test", n=n)
            except ConfigError:
                tasks = self.suite.tasks("test" if "test" in self.suite.splits else None)[:n]
        self.tasks = list(tasks)
        self.every = every
        self.max_new_tokens = max_new_tokens
        self.processing_class = processing_class
        self.trainer: Any = None
        self.history: list[dict[str, Any]] = []
        self._done_steps: set[int] = set()

    def attach(self, trainer: Any) -> HeldOutEvaluation:
        """Bind to a trainer (its model, tokenizer and logger) and register as its callback."""
        self.trainer = trainer
        if self.processing_class is None:
            self.processing_class = getattr(trainer, "processing_class", None)
        trainer.add_callback(self)
        return self

    def evaluate(self, model: Any, tokenizer: Any, step: int) -> dict[str, Any]:
        """Answer and score the held-out tasks now; returns the logged metrics."""
        from vector_gym.policies.transformers_policy import TransformersPolicy

        tok = getattr(tokenizer, "tokenizer", tokenizer)  # a processor's tokenizer
        policy = TransformersPolicy(model, tok, max_new_tokens=self.max_new_tokens, temperature=0.0,
                                    templates=self.suite.template_table(), device=str(model.device),
                                    name="heldout")
        observations = [{**self.suite.observation(t), "task_id": t.task_id, "family": self.suite.family}
                        for t in self.tasks]
        was_training = model.training
        try:
            completions = [c[0] for c in policy.generate(observations)]
        finally:
            model.train(was_training)
        reports = self.suite.score_many(self.tasks, [c.text for c in completions])
        rows = [{"policy": "heldout", "task_id": t.task_id, "report": r.to_dict(), "finish_reason": c.finish_reason}
                for t, r, c in zip(self.tasks, reports, completions, strict=True)]
        summary = self.suite.summarize(rows)[0]
        metrics = {f"heldout/{k}": summary[k] for k in ("full", "progress", "valid", "ucr") if k in summary}
        metrics["heldout/reward"] = sum(self.suite.reward(r) for r in reports) / len(reports)
        self.history.append({"step": step, **metrics})
        if self.trainer is not None:
            self.trainer.log({k: (v if v is not None else float("nan")) for k, v in metrics.items()})
        return metrics

    def _maybe(self, state: Any, kwargs: dict[str, Any], force: bool = False) -> None:
        step = int(state.global_step)
        if step in self._done_steps or not (force or step % self.every == 0):
            return
        model = kwargs.get("model") or (self.trainer.model if self.trainer is not None else None)
        tok = kwargs.get("processing_class") or self.processing_class
        if model is None or tok is None:
            return
        self._done_steps.add(step)
        self.evaluate(model, tok, step)

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._maybe(state, kwargs)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._maybe(state, kwargs, force=True)
