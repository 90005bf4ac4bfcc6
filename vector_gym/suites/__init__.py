"""Layer 5: one home per benchmark. A :class:`Suite` binds a task source, an extraction rule,
a scorer, the scalar reward, prompt templates, a token budget and summary columns.

API summary (stable; other layers build on it)
----------------------------------------------
``get_suite(name, **options) -> Suite``
    By registry name, alias, env id or family (``"vector_bench"``, ``"vector-bench"``,
    ``"vector_gym/VectorBench-v0"``). ``options`` configure a copy (``parity=True``,
    ``backend="cairosvg"``, ``processes=0``, ``kinds=(...)``, RepairGen ``config``/``seed`` ...);
    the same name and options return the same instance (so reward functions share its scorer
    and report cache). Unknown name: :class:`~vector_gym.errors.ConfigError` listing the names.
``suite_names() -> list[str]`` / ``list_suites() -> list[Suite]``
    Every registered suite (the four built-in ones first: ``vector_bench``,
    ``svgeditbench_v1``, ``svgeditbench_v2``, ``repairgen``).
``register_suite(suite, *, replace=False) -> Suite``
    Register a :class:`Suite` (each built-in suite file ends with one such call); a user's
    suite works in ``EditEnv``, ``rollout``, ``vector-gym eval/rescore --suite NAME`` and the
    TRL reward functions.

A :class:`Suite` ``s`` has

- ``s.name``, ``s.aliases``, ``s.env_id``, ``s.family`` (``Task.family`` of its tasks; the
  template key), ``s.splits`` and ``s.default_split``, ``s.options`` (dict);
- ``s.tasks(split=None, **kw) -> list[Task]`` (``split=None``: the default split; RepairGen
  takes ``n=``, ``start=``, ``seed=``), ``s.load_tasks(path) -> list[Task]`` (the CLI's
  ``--tasks``), ``s.get_task(task_id) -> Task`` (a corpus id or a generated RepairGen id, which
  is regenerated; unknown: :class:`~vector_gym.errors.UnknownTaskError`) and
  ``s.owns(task) -> bool``;
- ``s.extract(response) -> str | None``: the suite's extraction rule (spec-reward.md section 2;
  metrics-svgeditbench.md for SVGEditBench);
- ``s.score_many(tasks, responses) -> list[Report]``: raw responses in, extraction inside, one
  batch (one render batch for raster suites), never raises for policy output;
  ``s.score_response(task, response)``; ``s.scorer`` (the object behind it);
  ``s.check_tasks(tasks)`` (both raise ConfigError for a task of a suite with another reward);
- ``s.reward(report) -> float``: the scalar reward of a report (object or its ``to_dict()``),
  documented once per suite (the env's step reward);
- ``s.templates`` (``{"svg": ChatTemplate, "patch": ChatTemplate}``), ``s.template(fmt)`` and
  ``s.template_table()`` (``{family: ..., family + ":patch": ...}`` for a policy's
  ``templates=``), ``s.feedback(report, action_error) -> str`` (multi-turn editor feedback);
- ``s.token_budget(observation, ceiling=None) -> int`` (output tokens);
- ``s.summary_columns`` (JSON keys of a summary row), ``s.summarize(rows, by=, order=) ->
  list[dict]`` and ``s.format_summary(rows, by=, order=, label_header=) -> str``.

A report is any object with ``reward`` (float), ``failure_reasons`` (tuple of str) and
``to_dict()`` (plain JSON types, no NaN, no timing).
"""

from __future__ import annotations

import importlib
import math
import numbers
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from vector_gym.errors import ConfigError, ScorerError, UnknownTaskError, VectorGymError
from vector_gym.tasks.task import Task

__all__ = [
    "BUILTIN_SUITES",
    "CorpusSuite",
    "Report",
    "Scorer",
    "SPEC_SUMMARY_COLUMNS",
    "Suite",
    "get_suite",
    "list_suites",
    "register_suite",
    "resolve_suite_name",
    "suite_for_task",
    "suite_names",
]


@runtime_checkable
class Report(Protocol):
    """What a scorer returns for one response."""

    reward: float
    failure_reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (no NaN, no timing)."""
        ...


@runtime_checkable
class Scorer(Protocol):
    """The one scorer protocol: raw responses in, extraction inside, one report per response."""

    def score_many(self, tasks: Sequence[Task], responses: Sequence[Any]) -> list[Report]:
        """Score ``responses[i]`` for ``tasks[i]``; never raises for policy output."""
        ...


#: Summary columns (JSON keys per policy) of specification-reward suites (vector_gym.summary).
SPEC_SUMMARY_COLUMNS: tuple[str, ...] = (
    "n", "full", "near", "repair", "progress", "clean", "ucr", "valid", "full_ci", "err",
)


def _field(report: Any, key: str, default: Any = None) -> Any:
    if isinstance(report, Mapping):
        return report.get(key, default)
    return getattr(report, key, default)


def _finite(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return 0.0
    return v if math.isfinite(v) else 0.0


class Suite:
    """One benchmark: tasks, extraction rule, scorer, reward, templates, budget, summary.

    Parameters
    ----------
    name : str
        Registry name (``[a-z0-9_]``, e.g. ``"vector_bench"``).
    tasks : sequence of Task or callable, optional
        The fixed corpus, or ``tasks(split) -> list[Task]``. Built-in suites override
        :meth:`tasks` instead.
    scorer : Scorer, optional
        Object with ``score_many(tasks, responses)`` (raw responses). Built-in suites build
        theirs in :meth:`make_scorer` from their options.
    extract : callable, optional
        ``extract(response) -> str | None``; default the specification reward's rule
        (:func:`vector_gym.svg.extract.extract_svg`).
    reward : callable, optional
        ``reward(report) -> float``; default ``report.reward`` (0 when not finite).
    templates : mapping, optional
        ``{"svg": ChatTemplate, "patch": ChatTemplate}``; default Vector-Bench's.
    token_budget : int or callable, optional
        Fixed output budget in tokens (int >= 1), or ``budget(observation) -> int >= 1``; default the
        input-adaptive rule ``max(8192, len(svg) // 2 + 2048)`` (protocols.md).
    summary : {"spec", "raster-v2", "raster-v1"}
        Which summary table :meth:`summarize` builds (default ``"spec"``).
    aliases : sequence of str
        Other names (CLI aliases).
    env_id : str, optional
        Gymnasium id of this suite's env (default ``vector_gym/<name>``).
    family : str, optional
        ``Task.family`` of this suite's tasks (default ``name``).
    splits : sequence of str
        Split names :meth:`tasks` accepts (default ``("test",)``; the first is the default).

    Raises
    ------
    ConfigError
        Empty name, a scorer without ``score_many``, or a fixed ``token_budget`` that is not an
        int >= 1.
    """

    summary: str = "spec"
    #: True for a generator suite: ``get_task`` regenerates ids no listing holds (RepairGen).
    generated: bool = False
    #: True when ``score_many`` spends most of its time waiting on other processes (a render
    #: pool), so a rollout scores the next part of a batch in a thread while it steps and records
    #: the last part (:func:`vector_gym.rollout.rollout`). False: one call per batch, inline.
    concurrent_scoring: bool = False

    def __init__(
        self,
        name: str,
        *,
        tasks: Sequence[Task] | Callable[[str], Sequence[Task]] | None = None,
        scorer: Any = None,
        extract: Callable[[str], str | None] | None = None,
        reward: Callable[[Any], float] | None = None,
        templates: Mapping[str, Any] | None = None,
        token_budget: int | Callable[[Mapping[str, Any]], int] | None = None,
        summary: str | None = None,
        aliases: Sequence[str] = (),
        env_id: str | None = None,
        family: str | None = None,
        splits: Sequence[str] = ("test",),
        description: str = "",
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ConfigError(f"Suite name: expected a non-empty str, got {name!r}")
        if scorer is not None and not callable(getattr(scorer, "score_many", None)):
            raise ConfigError(
                f"scorer: expected an object with score_many(tasks, responses), got {type(scorer).__name__}"
            )
        if token_budget is not None and not callable(token_budget) and (
            isinstance(token_budget, bool) or not isinstance(token_budget, numbers.Integral) or token_budget < 1
        ):
            raise ConfigError(
                f"suite {name!r}: token_budget: expected an int >= 1 or a callable "
                f"budget(observation) -> int, got {token_budget!r}"
            )
        if summary is not None and summary not in ("spec", "raster-v2", "raster-v1"):
            raise ConfigError(f"summary: expected 'spec', 'raster-v2' or 'raster-v1', got {summary!r}")
        self.name = name
        self.aliases = tuple(aliases)
        self.env_id = env_id or f"vector_gym/{name}"
        self.family = family or name
        self.splits = tuple(splits)
        self.description = description
        self.options: dict[str, Any] = dict(options or {})
        if summary is not None:
            self.summary = summary
        self._task_source = tasks
        self._scorer = scorer
        self._extract = extract
        self._reward = reward
        self._templates = dict(templates) if templates is not None else None
        self._token_budget = (
            int(token_budget) if isinstance(token_budget, numbers.Integral) else token_budget
        )
        self._corpus: dict[str | None, list[Task]] = {}
        self._by_id: dict[str, Task] | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return f"<Suite {self.name}{' ' + opts if opts else ''}>"

    # ------------------------------------------------------------------ configuration
    @property
    def default_split(self) -> str:
        """The split :meth:`tasks` uses when none is given (the first of :attr:`splits`)."""
        return self.splits[0]

    def configure(self, **options: Any) -> Suite:
        """Return a copy with these options (built-in suites: their constructor's keywords).

        Raises
        ------
        ConfigError
            A suite built from parts takes no options.
        """
        if not options:
            return self
        if type(self) is Suite:
            raise ConfigError(f"suite {self.name!r} takes no options, got {sorted(options)}")
        try:  # a built-in suite class takes its options as keywords
            return type(self)(**{**self.options, **options})
        except TypeError as exc:
            raise ConfigError(f"suite {self.name!r} does not accept {sorted(options)}: {exc}") from None

    # ------------------------------------------------------------------ tasks
    def tasks(self, split: str | None = None, **kw: Any) -> list[Task]:
        """Return the tasks of a split (default :attr:`default_split`).

        Raises
        ------
        ConfigError
            Unknown split or keyword.
        """
        split = self._check_split(split)
        if kw:
            raise ConfigError(f"suite {self.name!r}: tasks() takes no {sorted(kw)}")
        src = self._task_source
        if src is None:
            raise ConfigError(f"suite {self.name!r} has no task source")
        with self._lock:
            if split not in self._corpus:
                got = src(split) if callable(src) else src
                self._corpus[split] = self._checked(list(got))
            return list(self._corpus[split])

    def _check_split(self, split: str | None) -> str:
        split = self.default_split if split is None else split
        if split not in self.splits:
            raise ConfigError(f"suite {self.name!r}: expected split in {self.splits}, got {split!r}")
        return split

    @staticmethod
    def _checked(tasks: list[Task]) -> list[Task]:
        if not all(isinstance(t, Task) for t in tasks):
            raise ConfigError("tasks: expected Task objects")
        return tasks

    def load_tasks(self, source: str | Path | None = None) -> list[Task]:
        """Load tasks from a path (the CLI's ``--tasks``); None gives :meth:`tasks`.

        Raises
        ------
        ConfigError
            This suite cannot read tasks from a path.
        """
        if source is None:
            return self.tasks()
        raise ConfigError(f"suite {self.name!r} does not load tasks from a path")

    def _index(self) -> dict[str, Task]:
        if self._by_id is None:
            idx: dict[str, Task] = {}
            for split in self.splits:
                for t in self.tasks(split):
                    idx.setdefault(t.task_id, t)
            self._by_id = idx
        return self._by_id

    def get_task(self, task_id: str) -> Task:
        """Return the task with this id (from any split).

        Raises
        ------
        UnknownTaskError
            No task of this suite has the id.
        """
        task = self._index().get(task_id) if isinstance(task_id, str) else None
        if task is None:
            raise UnknownTaskError(f"suite {self.name!r} has no task {task_id!r}")
        return task

    def owns(self, task: Task) -> bool:
        """True when ``task`` belongs to this suite (same id and content as its own task)."""
        try:
            mine = self.get_task(task.task_id)
        except (UnknownTaskError, ConfigError):
            return False
        return mine is task or mine == task

    # ------------------------------------------------------------------ scoring
    def extract(self, response: Any) -> str | None:
        """Return the SVG document the scorer reads from ``response`` (None: none found)."""
        if not isinstance(response, str):
            return None
        if self._extract is not None:
            return self._extract(response)
        from vector_gym.svg.extract import extract_svg

        return extract_svg(response)

    def make_scorer(self) -> Any:
        """Build this suite's scorer from its options (built-in suites override)."""
        raise ConfigError(f"suite {self.name!r} has no scorer")

    @property
    def scorer(self) -> Any:
        """The scorer object (built on first use and kept: it owns the report cache)."""
        if self._scorer is None:
            with self._lock:
                if self._scorer is None:
                    self._scorer = self.make_scorer()
        return self._scorer

    def score_many(self, tasks: Sequence[Task], responses: Sequence[Any]) -> list[Any]:
        """Score raw responses, one per task, in one batch (see the module docstring).

        Raises
        ------
        ValueError
            ``len(tasks) != len(responses)``.
        ScorerError
            The scorer raised something other than a :class:`~vector_gym.errors.VectorGymError`
            (chained as ``__cause__``), returned another number of reports than tasks, or
            returned something that is not a :class:`Report` (no ``to_dict()``).
        """
        tasks, responses = list(tasks), list(responses)
        if len(tasks) != len(responses):
            raise ValueError(
                f"score_many: expected as many responses as tasks, got {len(responses)} and {len(tasks)}"
            )
        if not tasks:
            return []
        self.check_tasks(tasks)
        scorer = self.scorer
        where = f"suite {self.name!r}: its scorer {type(scorer).__name__}.score_many"
        try:
            reports = list(scorer.score_many(tasks, responses))
        except VectorGymError:
            raise
        except Exception as exc:
            raise ScorerError(f"{where} raised {type(exc).__name__}: {exc}") from exc
        if len(reports) != len(tasks):
            raise ScorerError(f"{where}: expected {len(tasks)} reports, got {len(reports)}")
        for r in reports:  # the run file, the env's info and rescore read report.to_dict()
            if not callable(getattr(r, "to_dict", None)):
                raise ScorerError(
                    f"{where}: expected reports with to_dict() (vector_gym.suites.Report), "
                    f"got {type(r).__name__}"
                )
        return reports

    def check_tasks(self, tasks: Sequence[Task]) -> None:
        """Refuse tasks of a registered suite whose reward is another one.

        A task whose ``family`` is this suite's, is no registered suite's, or is that of
        another specification-reward suite (Vector-Bench and RepairGen share the reward) is
        accepted.

        Raises
        ------
        ConfigError
            A task of another suite with another reward (an SVGEditBench triplet given to a
            specification-reward suite, a V2 triplet to v1's 72 px scorer, ...); the message
            names the suite to score it with.
        """
        families = {getattr(t, "family", "") or "" for t in tasks} - {"", self.family}
        for family in families:
            owner = next((s for s in list_suites() if s.family == family), None)
            if owner is None or owner.name == self.name or (owner.summary == self.summary == "spec"):
                continue
            raise ConfigError(
                f"suite {self.name!r} cannot score tasks of suite {owner.name!r} (family {family!r}, "
                f"another reward); score them with get_suite({owner.name!r})"
            )

    def score_extracted(self, tasks: Sequence[Task], svgs: Sequence[Any]) -> list[Any]:
        """Score already extracted SVG documents (stored outcomes' ``produced_svg``) as they are.

        ``None`` means the provider returned nothing (spec-reward.md section 12). Default: the
        documents are scored as responses (``score_many``); built-in suites score them without
        extraction.
        """
        return self.score_many(tasks, svgs)

    def score_response(self, task: Task, response: Any) -> Any:
        """Score one raw response (``score_many`` of one)."""
        return self.score_many([task], [response])[0]

    def reward(self, report: Any) -> float:
        """The scalar reward of a report (object or ``to_dict()``): ``report.reward`` by default."""
        if self._reward is not None:
            return _finite(self._reward(report))
        return _finite(_field(report, "reward", 0.0))

    # ------------------------------------------------------------------ prompts
    @property
    def templates(self) -> dict[str, Any]:
        """``{"svg": ChatTemplate, "patch": ChatTemplate}`` of this suite."""
        if self._templates is None:
            from vector_gym.suites.templates import VECTOR_BENCH, VECTOR_BENCH_PATCH

            self._templates = {"svg": VECTOR_BENCH, "patch": VECTOR_BENCH_PATCH}
        return dict(self._templates)

    def template(self, action_format: str = "svg") -> Any:
        """The chat template of one action format.

        Raises
        ------
        ConfigError
            No template for ``action_format``.
        """
        try:
            return self.templates[action_format]
        except KeyError:
            raise ConfigError(
                f"suite {self.name!r}: no template for action_format {action_format!r}; "
                f"expected one of {sorted(self.templates)}"
            ) from None

    def template_table(self) -> dict[str, Any]:
        """``{family: svg template, family + ":patch": patch template}`` (a policy's ``templates=``)."""
        out = {}
        for fmt, tmpl in self.templates.items():
            out[self.family if fmt == "svg" else f"{self.family}:{fmt}"] = tmpl
        return out

    def token_budget(self, observation: Mapping[str, Any], ceiling: int | None = None) -> int:
        """Output token budget for one observation (tokens >= 1), at most ``ceiling``.

        Raises
        ------
        ConfigError
            ``ceiling`` < 1, or the suite's budget rule raised or returned something other
            than an int >= 1 (the message names the suite; the rule's error is the cause).
        """
        if ceiling is not None and int(ceiling) < 1:
            raise ConfigError(f"ceiling: expected >= 1 or None, got {ceiling}")
        b = self._token_budget
        if isinstance(b, int):
            budget = b
        elif callable(b):
            try:
                value = b(observation)
            except VectorGymError:
                raise
            except Exception as exc:  # a bug in the suite's rule, not in the observation
                raise ConfigError(
                    f"suite {self.name!r}: its token budget rule raised {type(exc).__name__}: {exc}"
                ) from exc
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ConfigError(
                    f"suite {self.name!r}: its token budget rule returned {value!r}; "
                    "expected an int >= 1 (output tokens)"
                )
            budget = int(value)
        else:  # the input-adaptive rule (protocols.md, Vector-Bench's public runner)
            from vector_gym.policies.templates import BUDGET_BASE_TOKENS, BUDGET_FLOOR_TOKENS

            svg = observation.get("svg")
            budget = max(BUDGET_FLOOR_TOKENS, (len(svg) if isinstance(svg, str) else 0) // 2 + BUDGET_BASE_TOKENS)
        return budget if ceiling is None else min(budget, int(ceiling))

    def observation(self, task: Task) -> dict[str, str]:
        """The policy's view of a task: ``{"instruction", "svg"}`` (never the target)."""
        return {"instruction": task.instruction, "svg": task.source_svg}

    def feedback(self, report: Any, action_error: Mapping[str, str] | None = None) -> str:
        """What an editor would say about an answer (multi-turn feedback; never the target).

        Specification-reward reports: parse and validity errors
        (:func:`vector_gym.envs.patch.editor_feedback` wording); raster reports: whether an
        SVG was found and whether it renders.
        """
        from vector_gym.suites._feedback import editor_feedback

        return editor_feedback(report, action_error)

    # ------------------------------------------------------------------ summary
    @property
    def summary_columns(self) -> tuple[str, ...]:
        """JSON keys of one summary row (besides the label)."""
        if self.summary == "raster-v2":
            from vector_gym.summary import V2_COLUMNS

            return ("n", *V2_COLUMNS)
        if self.summary == "raster-v1":
            return ("edit_kind", "n", "mse", "compression_ratio", "extraction_error", "parsing_error")
        return SPEC_SUMMARY_COLUMNS

    def summarize(
        self, rows: Iterable[Mapping[str, Any]], by: str = "policy", order: str = "given",
        tasks: Sequence[Task] | None = None,
    ) -> list[dict[str, Any]]:
        """Summary rows (JSON objects) of rollout or re-scored rows, one per ``by`` value."""
        from vector_gym import summary as S

        rows = list(rows)
        if self.summary == "spec":
            return [s.to_dict(by) for s in S.summarize(rows, by=by, order=order)]
        if tasks is None:
            ids = {r.get("task_id") for r in rows}
            tasks = [self.get_task(t) for t in ids if isinstance(t, str) and self._has(t)]
        return S.summarize_raster_rows(rows, tasks, "v1" if self.summary == "raster-v1" else "v2", by=by)

    def _has(self, task_id: str) -> bool:
        try:
            self.get_task(task_id)
        except (UnknownTaskError, ConfigError):
            return False
        return True

    def format_summary(
        self, rows: Iterable[Mapping[str, Any]], by: str = "policy", order: str = "given",
        label_header: str = "Policy", tasks: Sequence[Task] | None = None,
    ) -> str:
        """The summary as a plain-text table (the tables ``vector-gym eval`` prints)."""
        from vector_gym import summary as S

        rows = list(rows)
        if self.summary == "spec":
            return S.format_table(S.summarize(rows, by=by, order=order), label_header=label_header)
        return S.format_raster_table(self.summarize(rows, by=by, order=order, tasks=tasks), label=by)


class CorpusSuite(Suite):
    """A suite whose single ``"test"`` split is a corpus: bundled, read from a path, or given.

    Subclasses set ``self._source`` (None, a path or a task list) before ``Suite.__init__`` and
    implement ``_load(source)`` (None: the bundled corpus).
    """

    _source: Any = None

    def _load(self, source: Any) -> list[Task]:
        raise NotImplementedError

    def tasks(self, split: str | None = None, **kw: Any) -> list[Task]:
        """The corpus (read once)."""
        self._check_split(split)
        if kw:
            raise ConfigError(f"suite {self.name!r}: tasks() takes no {sorted(kw)}")
        if "test" not in self._corpus:
            src = self._source
            self._corpus["test"] = (
                self._load(src) if src is None or isinstance(src, str | Path) else self._checked(list(src))
            )
        return list(self._corpus["test"])

    def load_tasks(self, source: str | Path | None = None) -> list[Task]:
        """Tasks from a path in the corpus's layout (None: the bundled corpus)."""
        return self._load(source)


# ---------------------------------------------------------------------- registry

#: Built-in suites: registry name -> module (imported on first lookup; each ends in register_suite).
BUILTIN_SUITES: Mapping[str, str] = {
    "vector_bench": "vector_gym.suites.vector_bench",
    "svgeditbench_v1": "vector_gym.suites.svgeditbench_v1",
    "svgeditbench_v2": "vector_gym.suites.svgeditbench_v2",
    "repairgen": "vector_gym.suites.repairgen",
}

_REGISTRY: dict[str, Suite] = {}
_CONFIGURED: OrderedDict[tuple[str, str], Suite] = OrderedDict()
_REG_LOCK = threading.RLock()


def register_suite(suite: Suite, *, replace: bool = False) -> Suite:
    """Register a suite under its name (and aliases, env id and family for lookups).

    Raises
    ------
    ConfigError
        Not a Suite, or the name is taken by another suite and ``replace`` is False.
    """
    if not isinstance(suite, Suite):
        raise ConfigError(f"register_suite: expected a Suite, got {type(suite).__name__}")
    with _REG_LOCK:
        old = _REGISTRY.get(suite.name)
        if old is not None and old is not suite and not replace:
            raise ConfigError(f"register_suite: a suite named {suite.name!r} is already registered")
        _REGISTRY[suite.name] = suite
        for key in [k for k in _CONFIGURED if k[0] == suite.name]:
            del _CONFIGURED[key]
    from vector_gym.policies.templates import register_family

    # Policies ask the suite for the budget (its token_budget method), unless it has no rule of
    # its own (the input-adaptive default, which the policies apply themselves).
    register_family(suite.family, suite.templates, suite.token_budget if suite._token_budget is not None else None)
    return suite


def _load_builtins() -> None:
    for module in BUILTIN_SUITES.values():
        importlib.import_module(module)


def _names_of(s: Suite) -> tuple[str, ...]:
    return (s.name, *s.aliases, s.env_id, s.family)


def resolve_suite_name(name: str) -> str:
    """Return the registry name of a name, alias, env id or family.

    Raises
    ------
    ConfigError
        No suite answers to ``name``; the message lists the registered names.
    """
    if not isinstance(name, str):
        raise ConfigError(f"suite: expected a name, got {type(name).__name__}")
    with _REG_LOCK:
        if name in _REGISTRY:
            return name
        if name in BUILTIN_SUITES:
            importlib.import_module(BUILTIN_SUITES[name])
            return name
        _load_builtins()
        for s in _REGISTRY.values():
            if name in _names_of(s):
                return s.name
    valid = ", ".join(f"{s.name} ({', '.join(s.aliases)})" if s.aliases else s.name for s in _REGISTRY.values())
    raise ConfigError(f"unknown suite {name!r}; expected one of: {valid}")


def get_suite(name: str | Suite, **options: Any) -> Suite:
    """Return the registered suite ``name`` configured with ``options`` (cached per options).

    Raises
    ------
    ConfigError
        Unknown name (message lists the valid ones) or invalid options.
    """
    if isinstance(name, Suite):
        return name.configure(**options) if options else name
    key = resolve_suite_name(name)
    base = _REGISTRY[key]
    if not options:
        return base
    okey = (key, repr(sorted(options.items())))
    with _REG_LOCK:
        hit = _CONFIGURED.get(okey)
        if hit is None:
            hit = _CONFIGURED[okey] = base.configure(**options)
            while len(_CONFIGURED) > 64:
                _CONFIGURED.popitem(last=False)
        else:
            _CONFIGURED.move_to_end(okey)
        return hit


def suite_names() -> list[str]:
    """Registry names, built-in suites first, then user suites in registration order."""
    _load_builtins()
    builtin = [n for n in BUILTIN_SUITES if n in _REGISTRY]
    return builtin + [n for n in _REGISTRY if n not in BUILTIN_SUITES]


def list_suites() -> list[Suite]:
    """Every registered suite (see :func:`suite_names` for the order)."""
    return [_REGISTRY[n] for n in suite_names()]


def suite_for_task(task: Task) -> Suite | None:
    """The registered suite whose family is ``task.family`` (None when none)."""
    family = getattr(task, "family", "") or ""
    for s in list_suites():
        if family and family == s.family:
            return s
    return None
