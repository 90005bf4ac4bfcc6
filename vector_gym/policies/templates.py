"""Chat prompt templates: how an observation becomes the messages a model reads.

Layer 5. A template is data (a frozen dataclass of format strings) that a user
can replace or override field by field with :func:`dataclasses.replace`. The
three built-in templates follow each benchmark's published prompting protocol
(``docs/protocols.md``):

* ``VECTOR_BENCH`` - a system message with the four rules of the published
  study (editing an SVG from a visual repair request; return exactly one
  complete, valid ``<svg>`` document; make the requested repairs and preserve
  every part not mentioned; no Markdown, no explanation), written in our own
  words, and a user message ``Repair request:`` / instruction / blank line /
  ``Corrupted SVG:`` / source SVG as is.
* ``SVGEDITBENCH_V2`` - one user message: ``The following is the SVG code
  representing an image. {instruction} Only return the output SVG code.``, a
  blank line, then the source SVG in a ```` ```svg ```` fence; no system message.
* ``SVGEDITBENCH_V1`` - the stored prompt of each case as one user message
  (SVGEditBench v1 tasks carry it as their instruction; it already holds the
  source SVG).

An observation is a mapping with ``"instruction"`` and ``"svg"`` (the source
SVG) and an optional ``"family"`` (the task family, e.g. ``"vector-bench"``)
that selects the template; :func:`task_observation` builds one from a task.

The output token budget of each protocol is here too (:func:`default_max_tokens`):
the model policies use it whenever no explicit ``max_tokens`` is given.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vector_gym.errors import ConfigError

__all__ = [
    "ChatTemplate",
    "VECTOR_BENCH",
    "SVGEDITBENCH_V2",
    "SVGEDITBENCH_V1",
    "TEMPLATES",
    "DEFAULT_FAMILY",
    "select_template",
    "build_messages",
    "task_observation",
    "BUDGET_FLOOR_TOKENS",
    "BUDGET_BASE_TOKENS",
    "FIXED_BUDGETS",
    "default_max_tokens",
]

Message = dict[str, str]

_FIELDS = ("instruction", "svg", "task_id", "family")


@dataclass(frozen=True, slots=True)
class ChatTemplate:
    """A chat prompt as data: an optional system message and a user message.

    Parameters
    ----------
    name : str
        Label recorded with rollouts (e.g. ``"vector-bench"``).
    user : str
        :meth:`str.format` string for the user message. Fields:
        ``{instruction}``, ``{svg}`` (the source SVG), ``{task_id}``,
        ``{family}``. Write literal braces as ``{{``
        and ``}}``. Substituted values are inserted verbatim (an SVG's own
        braces are never interpreted).
    system : str or None
        The system message, or None for none.

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

    def __post_init__(self) -> None:
        for label, text in (("user", self.user), ("system", self.system)):
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
            source SVG, ``"instruction"`` ...).

        Returns
        -------
        list of dict
            ``[{"role": "system", ...}]`` (when ``system`` is set) followed by
            ``{"role": "user", ...}``.

        Raises
        ------
        ConfigError
            When the observation lacks a key the template needs.
        """
        values = _Values(observation, self.name)
        out: list[Message] = []
        if self.system is not None:
            out.append({"role": "system", "content": self.system.format_map(values)})
        out.append({"role": "user", "content": self.user.format_map(values)})
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


# Our wording of the four rules of the published Vector-Bench system message
# (docs/protocols.md, "Vector-Bench"): repair from a visual request; one complete
# valid <svg> document; requested repairs only, everything else preserved; no
# Markdown or explanation.
_VECTOR_BENCH_SYSTEM = (
    "You are repairing an SVG document according to a request that describes a visible defect. "
    "Reply with exactly one complete, valid SVG document, from <svg to </svg>. "
    "Make the repairs the request asks for and leave every part it does not mention unchanged. "
    "Do not add Markdown, code fences or any explanation."
)

VECTOR_BENCH = ChatTemplate(
    name="vector-bench",
    system=_VECTOR_BENCH_SYSTEM,
    user="Repair request:\n{instruction}\n\nCorrupted SVG:\n{svg}",
)
"""Vector-Bench protocol (docs/protocols.md): system rules + repair request + corrupted SVG."""

SVGEDITBENCH_V2 = ChatTemplate(
    name="svgeditbench-v2",
    user=(
        "The following is the SVG code representing an image. {instruction} "
        "Only return the output SVG code.\n\n```svg\n{svg}\n```"
    ),
)
"""SVGEditBench V2 protocol (docs/protocols.md): one user message, source in a ```svg fence."""

SVGEDITBENCH_V1 = ChatTemplate(name="svgeditbench-v1", user="{instruction}")
"""SVGEditBench v1 protocol (docs/protocols.md): the case's stored prompt as one user message."""

TEMPLATES: Mapping[str, ChatTemplate] = {
    "vector-bench": VECTOR_BENCH,
    "svgeditbench-v2": SVGEDITBENCH_V2,
    "svgeditbench-v1": SVGEDITBENCH_V1,
    # RepairGen tasks are procedural repair requests in Vector-Bench's format.
    "repairgen": VECTOR_BENCH,
}
"""Family name (``Task.family``) -> built-in template."""

DEFAULT_FAMILY = "vector-bench"
"""Family assumed for an observation without a ``"family"`` key."""


def select_template(
    observation: Mapping[str, Any],
    template: ChatTemplate | None = None,
    templates: Mapping[str, ChatTemplate] | None = None,
) -> ChatTemplate:
    """Choose the template for one observation.

    Parameters
    ----------
    observation : mapping
        Its ``"family"`` key (default :data:`DEFAULT_FAMILY`) picks the template.
    template : ChatTemplate, optional
        When given, used for every observation (the caller chose).
    templates : mapping, optional
        Family -> template overrides, merged over :data:`TEMPLATES`.

    Returns
    -------
    ChatTemplate

    Raises
    ------
    ConfigError
        For a family with no template.

    Examples
    --------
    >>> select_template({"family": "svgeditbench-v2"}).name
    'svgeditbench-v2'
    >>> select_template({}).name
    'vector-bench'
    """
    if template is not None:
        return template
    table = {**TEMPLATES, **(templates or {})}
    family = observation.get("family") or DEFAULT_FAMILY
    try:
        return table[family]
    except KeyError:
        raise ConfigError(
            f"no chat template for family {family!r}: expected one of {sorted(table)}; "
            "pass template= or templates={family: ChatTemplate(...)}"
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


def task_observation(task: Any) -> dict[str, str]:
    """Return the policy's view of a task: ``instruction``, ``svg``, ``task_id``, ``family``.

    Never the target SVG, E or U. ``task`` is a
    :class:`~vector_gym.tasks.task.Task` (or any object with those attributes
    and ``source_svg``); an empty family becomes :data:`DEFAULT_FAMILY`.
    """
    return {
        "instruction": task.instruction,
        "svg": task.source_svg,
        "task_id": task.task_id,
        "family": task.family or DEFAULT_FAMILY,
    }


# -- output token budget ---------------------------------------------------------------------

BUDGET_FLOOR_TOKENS = 8192
"""Smallest adaptive budget, tokens (docs/protocols.md, Vector-Bench: the public runner's rule)."""

BUDGET_BASE_TOKENS = 2048
"""Tokens added to half the source length (docs/protocols.md, Vector-Bench)."""

FIXED_BUDGETS: Mapping[str, int] = {"svgeditbench-v2": 8192}
"""Family -> fixed budget, tokens, for protocols with one: SVGEditBench V2 ran open models
with vLLM at ``max_tokens`` 8,192 (docs/protocols.md). Other families use the adaptive rule."""


def default_max_tokens(observation: Mapping[str, Any], ceiling: int | None = None) -> int:
    """Return the protocol's output token budget for one observation.

    Vector-Bench's public runner gives each task ``max(8192, len(source) / 2 + 2048)``
    tokens, capped by a user ceiling (docs/protocols.md, "Vector-Bench": the published
    run used input-adaptive ceilings of 4,096 to 7,002 tokens and 37.8% of its outcomes
    hit the length limit, so the budget is reported with every result). We apply that
    rule, with ``len(source) // 2`` (characters, rounded down), to every family without
    a fixed budget in :data:`FIXED_BUDGETS` (RepairGen and SVGEditBench v1 included);
    SVGEditBench V2 gets its paper's 8,192.

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
    if family in FIXED_BUDGETS:
        budget = FIXED_BUDGETS[family]
    else:
        svg = observation.get("svg")
        size = len(svg) if isinstance(svg, str) else 0
        budget = max(BUDGET_FLOOR_TOKENS, size // 2 + BUDGET_BASE_TOKENS)
    return budget if ceiling is None else min(budget, int(ceiling))
