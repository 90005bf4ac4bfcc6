"""The policy protocol: a batch of observations in, a batch of completions out.

Layer 5. Policies import neither ``vector_gym.envs`` nor ``vector_gym.rewards``:
they see observations (``{"instruction": str, "svg": str, ...}`` mappings, plus
an optional ``"task_id"``) and return text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["Completion", "Policy"]


@dataclass(frozen=True, slots=True)
class Completion:
    """One generated answer.

    Parameters
    ----------
    text : str
        The raw response text (may wrap the SVG in prose or a code fence).
    prompt_tokens, completion_tokens : int or None
        Token counts when the backend reports them.
    finish_reason : str or None
        ``"stop"``, ``"length"`` (hit the token limit: truncated), ``"error"`` or None.
    error : str or None
        With ``finish_reason "error"``: the named reason, when the policy knows it
        (``"prompt_too_long: ..."``, :mod:`vector_gym.policies.budget`).
    budget : mapping or None
        The token budget actually sent and why
        (:meth:`vector_gym.policies.budget.BudgetDecision.to_dict`: ``requested``,
        ``used``, ``prompt_tokens``, ``context``, ``minimum``, ``clamped``,
        ``below_minimum``), from policies that fit it to the context window.
    """

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    budget: Mapping[str, Any] | None = None

    @property
    def truncated(self) -> bool:
        """True when generation stopped at the token limit (``finish_reason == "length"``)."""
        return self.finish_reason == "length"

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types."""
        return asdict(self)


@runtime_checkable
class Policy(Protocol):
    """Anything that answers a batch of observations.

    ``generate(observations, n)`` returns one list of ``n`` completions per
    observation, in input order. ``name`` labels rows in rollouts and tables.
    """

    name: str

    def generate(self, observations: Sequence[Mapping[str, Any]], n: int = 1) -> list[list[Completion]]:
        """Answer each observation with ``n`` completions."""
        ...
