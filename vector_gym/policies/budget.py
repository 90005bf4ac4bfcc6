"""Output token budgets that fit the model's context window.

Layer 5. A benchmark protocol asks for a budget per observation (Vector-Bench:
``max(8192, len(source) // 2 + 2048)`` tokens, SVGEditBench V2: 8,192;
:func:`~vector_gym.policies.templates.default_max_tokens`), but an engine serves
at most ``max_model_len`` tokens, prompt included. vLLM rejects a request whose
prompt plus ``max_tokens`` exceeds it (HTTP 400 from the server, a silent trim
offline), so model policies send

    ``used = min(requested, max_model_len - prompt_tokens)``

and record ``used`` with the row, plus a flag when ``used`` fell below the
protocol's minimum (the run is then not comparable with the paper's budget;
docs/protocols.md: report the budget with every result). A prompt that leaves
no room at all (``used < 1``) is not sent: its completion is an ``"error"`` with
the reason ``prompt_too_long``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vector_gym.policies.templates import BUDGET_FLOOR_TOKENS, BUDGETS, DEFAULT_FAMILY

__all__ = ["BudgetDecision", "PROMPT_TOO_LONG", "fit_budget", "minimum_budget"]

PROMPT_TOO_LONG = "prompt_too_long"
"""Failure reason of a completion whose prompt alone fills the context window."""


def minimum_budget(observation: Mapping[str, Any]) -> int:
    """The smallest budget the observation's protocol gives, tokens.

    A family whose suite has a budget rule of its own
    (:data:`~vector_gym.policies.templates.BUDGETS`): that rule's budget for the observation
    (SVGEditBench V2: its fixed 8,192); every other family: the adaptive rule's floor of 8,192
    (:data:`~vector_gym.policies.templates.BUDGET_FLOOR_TOKENS`).

    Examples
    --------
    >>> minimum_budget({"family": "vector-bench"})
    8192
    """
    family = observation.get("family") or DEFAULT_FAMILY
    rule = BUDGETS.get(family)
    return int(rule(observation)) if rule is not None else BUDGET_FLOOR_TOKENS


@dataclass(frozen=True, slots=True)
class BudgetDecision:
    """The budget of one request, and why.

    Attributes
    ----------
    requested : int
        The policy's ``max_tokens`` or the protocol's budget, tokens.
    used : int
        Sent as ``max_tokens``; ``min(requested, context - prompt_tokens)`` when
        both are known, else ``requested``. Below 1: the prompt does not fit and
        no request is sent.
    prompt_tokens : int or None
        The prompt's length in the engine's tokens, when counted.
    context : int or None
        The engine's ``max_model_len``, when known.
    minimum : int
        The protocol's minimum (:func:`minimum_budget`).
    """

    requested: int
    used: int
    prompt_tokens: int | None
    context: int | None
    minimum: int

    @property
    def clamped(self) -> bool:
        """True when the context window cut the budget below ``requested``."""
        return self.used < self.requested

    @property
    def below_minimum(self) -> bool:
        """True when the budget sent is under the protocol's minimum."""
        return self.used < self.minimum

    @property
    def fits(self) -> bool:
        """False when the prompt alone fills the context (no token left to generate)."""
        return self.used >= 1

    def error(self) -> str:
        """The named failure reason of a prompt that does not fit."""
        return (
            f"{PROMPT_TOO_LONG}: the prompt has {self.prompt_tokens} tokens, "
            f"max_model_len is {self.context}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types, as recorded in a rollout row's ``budget``."""
        return {
            "requested": self.requested,
            "used": self.used,
            "prompt_tokens": self.prompt_tokens,
            "context": self.context,
            "minimum": self.minimum,
            "clamped": self.clamped,
            "below_minimum": self.below_minimum,
        }


def fit_budget(
    requested: int, prompt_tokens: int | None, context: int | None, minimum: int
) -> BudgetDecision:
    """Clamp ``requested`` to the room the context leaves after the prompt.

    Examples
    --------
    >>> d = fit_budget(8192, 1000, 4096, 8192)
    >>> d.used, d.clamped, d.below_minimum
    (3096, True, True)
    >>> fit_budget(8192, 5000, 4096, 8192).fits
    False
    >>> fit_budget(100, None, 4096, 8192).used
    100
    """
    used = int(requested)
    if prompt_tokens is not None and context is not None:
        used = min(used, int(context) - int(prompt_tokens))
    return BudgetDecision(int(requested), used, prompt_tokens, context, int(minimum))
