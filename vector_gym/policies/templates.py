"""Chat prompt templates: how an observation becomes the messages a model reads.

Layer 5. A template is data (a frozen dataclass of format strings) that a user
can replace or override field by field with :func:`dataclasses.replace`. Which
template a benchmark uses is its suite's business: the built-in templates
(Vector-Bench, SVGEditBench V2 and v1, each as its paper prompted) are defined in
:mod:`vector_gym.suites.templates`, and registering a suite makes its templates and
fixed token budget the defaults of its family here (:func:`register_family`:
:data:`TEMPLATES`, :data:`PATCH_TEMPLATES`, :data:`BUDGETS`), so policies never
import suites. A caller's ``templates=`` (``suite.template_table()``) overrides them.
The former names (``VECTOR_BENCH``, ``SVGEDITBENCH_V2_PATCH``, ...) still resolve
here to the registered templates.

An observation is a mapping with ``"instruction"`` and ``"svg"`` (the source
SVG) and an optional ``"family"`` (the task family, e.g. ``"vector-bench"``)
that selects the template; :func:`task_observation` builds one from a task.

Action formats. An env built with ``action_format="patch"`` scores a JSON edit
script instead of a whole SVG (:mod:`vector_gym.svg.patch`); the rollout then adds
``"action_format": "patch"`` to each observation (absent means ``"svg"``), and
:func:`select_template` picks the family's patch template from
:data:`PATCH_TEMPLATES`: the same request and SVG, with
:data:`~vector_gym.suites.templates.PATCH_FORMAT_INSTRUCTIONS` (the script's syntax and an
example) in place of the "return one complete SVG" rule.

Multi-turn episodes. An env built with ``max_turns > 1`` adds ``"feedback"`` to its
observations: ``""`` on the first turn, then what an editor shows about the last
answer (parse and validity errors) while ``"svg"`` holds the current document. A
template then adds :data:`MULTI_TURN_INSTRUCTIONS` (to the
system message, or after the user message when there is none), and on later turns
renders :attr:`ChatTemplate.followup`: the request, the current SVG and the editor
feedback. Each turn is one fresh conversation built from the observation alone
(policies are stateless).

The output token budget of each protocol is here too (:func:`default_max_tokens`):
the model policies use it whenever no explicit ``max_tokens`` is given.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vector_gym.errors import ConfigError

__all__ = [
    "MULTI_TURN_INSTRUCTIONS",
    "ChatTemplate",
    "content_text",
    "TEMPLATES",
    "register_family",
    "PATCH_TEMPLATES",
    "ACTION_FORMATS",
    "DEFAULT_FAMILY",
    "template_key",
    "select_template",
    "build_messages",
    "task_observation",
    "BUDGET_FLOOR_TOKENS",
    "BUDGET_BASE_TOKENS",
    "BUDGETS",
    "default_max_tokens",
]

Message = dict[str, str]

# -- the multi-turn protocol's default prompt text (every ChatTemplate's ``multi_turn``) --------
MULTI_TURN_INSTRUCTIONS = (
    "If your answer does not complete the request, you will see the current document and any "
    "parse or validity errors, and may answer again."
)

_FIELDS = ("instruction", "svg", "task_id", "family", "feedback", "action_format")

#: Added after the user message of a later turn when a template has no ``followup``.
_DEFAULT_FEEDBACK = "\n\nEditor feedback on your last answer:\n{feedback}"


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    """A chat prompt as data: an optional system message and a user message.

    Parameters
    ----------
    name : str
        Label recorded with rollouts (e.g. ``"vector-bench"``).
    user : str
        :meth:`str.format` string for the user message. Fields:
        ``{instruction}``, ``{svg}`` (the source SVG; in a multi-turn episode the
        current document), ``{task_id}``, ``{family}``, ``{feedback}`` (the editor
        feedback of a multi-turn episode) and ``{action_format}``. Write literal
        braces as ``{{`` and ``}}``. Substituted values are inserted verbatim (an
        SVG's own braces are never interpreted).
    system : str or None
        The system message (a format string too), or None for none.
    followup : str or None
        Format string of the user message on the later turns of a multi-turn
        episode (observations whose ``"feedback"`` is non-empty). None: ``user``
        followed by a blank line, ``Editor feedback on your last answer:`` and
        ``{feedback}``.
    multi_turn : str or None
        Literal text (not a format string) that tells the policy it may answer
        again; added to every turn of a multi-turn episode (observations with a
        ``"feedback"`` key): after the system message, or after the user message
        when ``system`` is None. Default
        :data:`MULTI_TURN_INSTRUCTIONS`; None adds nothing.

    Raises
    ------
    ConfigError
        When ``user`` or ``system`` names a field outside the list above or is
        not a valid format string.

    Examples
    --------
    >>> t = ChatTemplate(name="plain", user="{instruction}\\n{svg}")
    >>> t.messages({"instruction": "Make it red.", "svg": "<svg/>"})
    [{'role': 'user', 'content': 'Make it red.\\n<svg/>'}]
    """

    name: str
    user: str
    system: str | None = None
    followup: str | None = None
    multi_turn: str | None = MULTI_TURN_INSTRUCTIONS

    def __post_init__(self) -> None:
        if self.multi_turn is not None and not isinstance(self.multi_turn, str):
            raise ConfigError(
                f"ChatTemplate.multi_turn: expected str or None, got {type(self.multi_turn).__name__}"
            )
        for label, text in (
            ("user", self.user),
            ("system", self.system),
            ("followup", self.followup),
        ):
            if text is None:
                continue
            if not isinstance(text, str):
                raise ConfigError(f"ChatTemplate.{label}: expected str, got {type(text).__name__}")
            try:
                names = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
            except ValueError as exc:
                raise ConfigError(f"ChatTemplate.{label}: invalid format string ({exc})") from exc
            for field_name in names:
                if field_name not in _FIELDS:
                    raise ConfigError(
                        f"ChatTemplate.{label}: expected fields among {_FIELDS}, got {{{field_name}}}"
                    )

    def messages(self, observation: Mapping[str, Any]) -> list[Message]:
        """Render one observation as a list of ``{"role", "content"}`` messages.

        Parameters
        ----------
        observation : mapping
            Needs the keys this template's strings name (``"svg"`` for the
            source SVG, ``"instruction"`` ...). A ``"feedback"`` key marks a
            multi-turn episode (see the class parameters ``followup`` and
            ``multi_turn``); a non-empty one a later turn.

        Returns
        -------
        list of dict
            ``[{"role": "system", ...}]`` (when ``system`` is set) followed by
            ``{"role": "user", ...}``.

        Raises
        ------
        ConfigError
            When the observation lacks a key the template needs.

        Examples
        --------
        >>> t = ChatTemplate(name="plain", user="{svg}", multi_turn="Try again if told.")
        >>> t.messages({"svg": "<svg/>", "feedback": ""})[0]["content"]
        '<svg/>\\n\\nTry again if told.'
        >>> t.messages({"svg": "<svg/>", "feedback": "It does not parse."})[0]["content"]
        '<svg/>\\n\\nEditor feedback on your last answer:\\nIt does not parse.\\n\\nTry again if told.'
        """
        values = _Values(observation, self.name)
        feedback = observation.get("feedback")
        multi = feedback is not None
        user = self.user
        if multi and feedback:
            user = self.followup if self.followup is not None else self.user + _DEFAULT_FEEDBACK
        system = None if self.system is None else self.system.format_map(values)
        content = user.format_map(values)
        if multi and self.multi_turn:
            if system is not None:
                system = f"{system} {self.multi_turn}"
            else:
                content = f"{content}\n\n{self.multi_turn}"
        out: list[Message] = []
        if system is not None:
            out.append({"role": "system", "content": system})
        out.append({"role": "user", "content": content})
        return out


class _Values(dict):
    """Mapping for ``format_map`` that turns a missing key into a ConfigError."""

    def __init__(self, observation: Mapping[str, Any], template_name: str) -> None:
        super().__init__({k: v for k, v in observation.items() if k in _FIELDS and v is not None})
        self._template_name = template_name

    def __missing__(self, key: str) -> str:
        raise ConfigError(
            f"template {self._template_name!r} expects observation key {key!r}, "
            f"got keys {sorted(self)}"
        )


TEMPLATES: dict[str, ChatTemplate] = {}
"""Family name (``Task.family``) -> default template for whole-SVG answers. Filled by the suites
(:func:`register_family`, called by ``vector_gym.suites.register_suite``); ``import vector_gym``
registers the built-in ones. A policy's ``templates=`` (from the caller: ``suite.template_table()``)
overrides it."""

PATCH_TEMPLATES: dict[str, ChatTemplate] = {}
"""Family name -> default template for ``action_format="patch"`` (filled like :data:`TEMPLATES`)."""


def register_family(
    family: str,
    templates: Mapping[str, ChatTemplate],
    budget: int | Callable[[Mapping[str, Any]], int] | None = None,
) -> None:
    """Make a suite's templates (``{"svg": ..., "patch": ...}``) and budget the defaults of its family.

    ``budget``: the suite's output budget rule, ``budget(observation) -> tokens`` (its
    ``token_budget`` method) or a fixed int; it goes into :data:`BUDGETS`, which
    :func:`default_max_tokens` asks. None: the input-adaptive rule. Called by
    ``vector_gym.suites.register_suite``; policies never import suites.
    """
    if "svg" in templates:
        TEMPLATES[family] = templates["svg"]
    if "patch" in templates:
        PATCH_TEMPLATES[family] = templates["patch"]
    if budget is None:
        BUDGETS.pop(family, None)
    elif callable(budget):
        BUDGETS[family] = budget
    else:
        fixed = int(budget)
        BUDGETS[family] = lambda observation: fixed


_LEGACY = {
    "VECTOR_BENCH": (TEMPLATES, "vector-bench"),
    "VECTOR_BENCH_PATCH": (PATCH_TEMPLATES, "vector-bench"),
    "SVGEDITBENCH_V2": (TEMPLATES, "svgeditbench-v2"),
    "SVGEDITBENCH_V2_PATCH": (PATCH_TEMPLATES, "svgeditbench-v2"),
    "SVGEDITBENCH_V1": (TEMPLATES, "svgeditbench-v1"),
    "SVGEDITBENCH_V1_PATCH": (PATCH_TEMPLATES, "svgeditbench-v1"),
}


def __getattr__(name: str) -> Any:
    """The built-in templates under their former names (defined in ``vector_gym.suites.templates``)."""
    if name in _LEGACY:
        table, family = _LEGACY[name]
        if family in table:
            return table[family]
    raise AttributeError(f"module 'vector_gym.policies.templates' has no attribute {name!r}")


ACTION_FORMATS: tuple[str, ...] = ("svg", "patch")
"""Values of an observation's ``"action_format"`` (absent or None means ``"svg"``)."""

DEFAULT_FAMILY = "vector-bench"
"""Family assumed for an observation without a ``"family"`` key."""


def template_key(observation: Mapping[str, Any]) -> str:
    """Return the template-table key of an observation: ``FAMILY`` or ``FAMILY:patch``.

    Raises
    ------
    ConfigError
        ``"action_format"`` is not one of :data:`ACTION_FORMATS`.

    Examples
    --------
    >>> template_key({"family": "repairgen", "action_format": "patch"})
    'repairgen:patch'
    >>> template_key({})
    'vector-bench'
    """
    family = observation.get("family") or DEFAULT_FAMILY
    fmt = observation.get("action_format") or "svg"
    if fmt not in ACTION_FORMATS:
        raise ConfigError(f"action_format: expected one of {ACTION_FORMATS}, got {fmt!r}")
    return family if fmt == "svg" else f"{family}:{fmt}"


def select_template(
    observation: Mapping[str, Any],
    template: ChatTemplate | None = None,
    templates: Mapping[str, ChatTemplate] | None = None,
) -> ChatTemplate:
    """Choose the template for one observation.

    Parameters
    ----------
    observation : mapping
        Its ``"family"`` key (default :data:`DEFAULT_FAMILY`) and
        ``"action_format"`` (default ``"svg"``) pick the template
        (:func:`template_key`).
    template : ChatTemplate, optional
        When given, used for every observation (the caller chose).
    templates : mapping, optional
        Overrides merged over the built-in tables: keys ``FAMILY`` (whole-SVG
        answers, over :data:`TEMPLATES`) and ``FAMILY:patch`` (edit-script answers,
        over :data:`PATCH_TEMPLATES`).

    Returns
    -------
    ChatTemplate

    Raises
    ------
    ConfigError
        For a family (and format) with no template, or an unknown action format.

    Examples
    --------
    >>> select_template({"family": "svgeditbench-v2"}).name
    'svgeditbench-v2'
    >>> select_template({}).name
    'vector-bench'
    >>> select_template({"family": "repairgen", "action_format": "patch"}).name
    'vector-bench-patch'
    """
    if template is not None:
        return template
    table = {
        **TEMPLATES,
        **{f"{k}:patch": v for k, v in PATCH_TEMPLATES.items()},
        **(templates or {}),
    }
    key = template_key(observation)
    try:
        return table[key]
    except KeyError:
        family = observation.get("family") or DEFAULT_FAMILY
        raise ConfigError(
            f"no chat template for family {family!r} (key {key!r}): expected one of "
            f"{sorted(table)}; pass template= or templates={{{key!r}: ChatTemplate(...)}}"
        ) from None


def build_messages(
    observations: Sequence[Mapping[str, Any]],
    template: ChatTemplate | None = None,
    templates: Mapping[str, ChatTemplate] | None = None,
) -> list[list[Message]]:
    """Render a batch of observations as chat conversations.

    Parameters
    ----------
    observations : sequence of mapping
        Length B.
    template, templates
        See :func:`select_template`.

    Returns
    -------
    list of list of dict
        Length B; each is one conversation (``[system,] user``).

    Raises
    ------
    ConfigError
        For an unknown family or a missing observation key.
    """
    return [select_template(o, template, templates).messages(o) for o in observations]


def task_observation(task: Any, action_format: str = "svg") -> dict[str, str]:
    """Return the policy's view of a task: ``instruction``, ``svg``, ``task_id``, ``family``.

    Never the target SVG, E or U. ``task`` is a
    :class:`~vector_gym.tasks.task.Task` (or any object with those attributes
    and ``source_svg``); an empty family becomes :data:`DEFAULT_FAMILY`. With
    ``action_format="patch"`` the observation also holds ``"action_format"``
    (so :func:`select_template` picks the edit-script template).

    Raises
    ------
    ConfigError
        ``action_format`` is not one of :data:`ACTION_FORMATS`.
    """
    if action_format not in ACTION_FORMATS:
        raise ConfigError(f"action_format: expected one of {ACTION_FORMATS}, got {action_format!r}")
    obs = {
        "instruction": task.instruction,
        "svg": task.source_svg,
        "task_id": task.task_id,
        "family": task.family or DEFAULT_FAMILY,
    }
    if action_format != "svg":
        obs["action_format"] = action_format
    return obs


# -- output token budget ---------------------------------------------------------------------

BUDGETS: dict[str, Callable[[Mapping[str, Any]], int]] = {}
"""Family -> its suite's budget rule ``budget(observation) -> tokens`` (``Suite.token_budget``),
for suites with a rule of their own (filled by the suites like :data:`TEMPLATES`: SVGEditBench V2
ran open models with vLLM at ``max_tokens`` 8,192, docs/protocols.md; a user suite's int or
callable ``token_budget``). Other families use the adaptive rule."""

BUDGET_FLOOR_TOKENS = 8192
"""Smallest adaptive budget, tokens (docs/protocols.md, Vector-Bench: the public runner's rule)."""

BUDGET_BASE_TOKENS = 2048
"""Tokens added to half the source length (docs/protocols.md, Vector-Bench)."""


def default_max_tokens(observation: Mapping[str, Any], ceiling: int | None = None) -> int:
    """Return the protocol's output token budget for one observation.

    Vector-Bench's public runner gives each task ``max(8192, len(source) / 2 + 2048)``
    tokens, capped by a user ceiling (docs/protocols.md, "Vector-Bench": the published
    run used input-adaptive ceilings of 4,096 to 7,002 tokens and 37.8% of its outcomes
    hit the length limit, so the budget is reported with every result). We apply that
    rule, with ``len(source) // 2`` (characters, rounded down), to every family without
    a budget rule of its own in :data:`BUDGETS` (RepairGen and SVGEditBench v1 included);
    SVGEditBench V2 gets its paper's 8,192, a user suite what its ``token_budget`` says.

    Parameters
    ----------
    observation : mapping
        Its ``"svg"`` (the source SVG; missing or None counts as empty) and
        ``"family"`` (default :data:`DEFAULT_FAMILY`).
    ceiling : int, optional
        The user ceiling (>= 1): the budget is at most this.

    Returns
    -------
    int
        Tokens, >= 1.

    Raises
    ------
    ConfigError
        ``ceiling`` < 1.

    Examples
    --------
    >>> default_max_tokens({"svg": "<svg/>"})
    8192
    >>> default_max_tokens({"svg": "x" * 20_000})  # 20,000 // 2 + 2,048
    12048
    >>> default_max_tokens({"svg": "x" * 20_000}, ceiling=10_000)
    10000
    >>> default_max_tokens({"svg": "x" * 20_000, "family": "svgeditbench-v2"})
    8192
    """
    if ceiling is not None and int(ceiling) < 1:
        raise ConfigError(f"ceiling: expected >= 1 or None, got {ceiling}")
    family = observation.get("family") or DEFAULT_FAMILY
    rule = BUDGETS.get(family)
    if rule is not None:  # the suite's own rule (register_family)
        budget = int(rule(observation))
        if budget < 1:
            raise ConfigError(f"family {family!r}: the suite's token budget must be >= 1, got {budget}")
    else:
        svg = observation.get("svg")
        size = len(svg) if isinstance(svg, str) else 0
        budget = max(BUDGET_FLOOR_TOKENS, size // 2 + BUDGET_BASE_TOKENS)
    return budget if ceiling is None else min(budget, int(ceiling))


def content_text(content: Any) -> str:
    """Text of a message ``content``: a string, or the joined ``text`` of content parts.

    Examples
    --------
    >>> content_text([{"type": "text", "text": "<svg"}, {"type": "text", "text": "/>"}])
    '<svg/>'
    >>> content_text(None), content_text(42)
    ('', '')
    """
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, Mapping)
            and part.get("type", "text") == "text"
            and isinstance(part.get("text"), str)
        )
    return ""
