"""Policies (layer 5): a batch of observations in, a batch of completions out.

:func:`make_policy` builds a policy from a spec string, as the CLI's ``--policy``
does: ``identity``, ``oracle``, ``protected-mutation``, ``malformed-target``,
``patch-oracle`` (the oracle for ``action_format="patch"`` envs), or
``KIND:ARG`` for adapters that take an argument (``hf:PATH``, ``openai:MODEL``,
``vllm:MODEL``). Factories are registered as ``"module:function"`` strings, imported
only when used, so adding a backend is one line in :data:`POLICY_FACTORIES`.

A factory is called as ``factory(arg, tasks)``: ``arg`` is the text after the first
colon (None when absent), ``tasks`` the env's tasks (the evaluator controls need the
hidden targets; model adapters ignore them).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion, Policy

__all__ = [
    "CONTROL_POLICIES",
    "POLICY_FACTORIES",
    "Completion",
    "Policy",
    "check_action_format",
    "check_observation",
    "make_policy",
]

#: Spec name (the part before ``:``) -> ``"module:function"`` factory.
POLICY_FACTORIES: dict[str, str] = {
    "identity": "vector_gym.policies.baselines:_make_identity",
    "oracle": "vector_gym.policies.baselines:_make_oracle",
    "protected-mutation": "vector_gym.policies.baselines:_make_protected_mutation",
    "malformed-target": "vector_gym.policies.baselines:_make_malformed_target",
    # Oracle for envs with action_format="patch": the JSON edit script source -> target.
    "patch-oracle": "vector_gym.policies.baselines:_make_patch_oracle",
    # SVGEditBench v1 scripted baseline (reads the v1 prompt, edits the SVG text).
    "scripted": "vector_gym.policies.scripted:_make_scripted",
    # Model adapters: factory(arg, tasks, **options); options from the CLI (--base-url, ...).
    "hf": "vector_gym.policies.transformers_policy:make_transformers_policy",
    "openai": "vector_gym.policies.openai_policy:make_openai_policy",
    "vllm": "vector_gym.policies.vllm_policy:make_vllm_policy",
}

#: The four evaluator controls of Vector-Bench Table 2, in the table's order.
CONTROL_POLICIES: tuple[str, ...] = ("identity", "oracle", "protected-mutation", "malformed-target")


def _load(ref: str) -> Callable[..., Any]:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_policy(spec: str, tasks: Sequence[Any] = (), **options: Any) -> Policy:
    """Build a policy from a spec string.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:ARG``; ``NAME`` is a key of :data:`POLICY_FACTORIES`.
    tasks : sequence of Task
        The tasks the policy will see (needed by the target-reading controls).
    **options
        Keyword arguments for a model adapter (``base_url``, ``max_tokens``,
        ``temperature``, ``seed`` ...); the controls take none.

    Returns
    -------
    Policy

    Raises
    ------
    ConfigError
        Unknown name (the message lists the known ones), a bad argument, or options
        for a policy that takes none.

    Examples
    --------
    >>> make_policy("identity").name
    'identity'
    """
    name, sep, arg = spec.partition(":")
    if name not in POLICY_FACTORIES:
        raise ConfigError(
            f"unknown policy {spec!r}; expected one of: {', '.join(POLICY_FACTORIES)}"
        )
    factory = _load(POLICY_FACTORIES[name])
    if options:
        try:
            inspect.signature(factory).bind(arg if sep else None, tasks, **options)
        except TypeError:
            raise ConfigError(f"policy {name!r} takes no options, got {sorted(options)}") from None
    return factory(arg if sep else None, tasks, **options)


def check_action_format(policy: Any, action_format: str) -> None:
    """Raise ConfigError when ``policy`` answers in another format than the env scores.

    A policy with an ``action_format`` attribute (the evaluator controls: ``"svg"``, or
    ``"patch"`` for ``patch-oracle``) answers only in that format; model policies have
    none (their prompt follows the observation's ``action_format``).

    Raises
    ------
    ConfigError
        The formats differ; the message names the policy to use instead.
    """
    own = getattr(policy, "action_format", None)
    if own is None or own == action_format:
        return
    hint = (
        "use --policy patch-oracle (or a model policy) with --action-format patch"
        if action_format == "patch"
        else "use --action-format patch with it, or --policy oracle for SVG answers"
    )
    raise ConfigError(
        f"policy {getattr(policy, 'name', policy)!r} answers in the {own!r} action format but the "
        f"env scores {action_format!r} answers (every row would score 0): {hint}"
    )


def check_observation(policy: Any, observation: str) -> None:
    """Raise ConfigError when ``observation`` is ``"image"`` and ``policy`` cannot read images.

    A model policy that knows it is text-only says so with ``accepts_images = False``
    (:class:`~vector_gym.policies.transformers_policy.TransformersPolicy` of a causal LM,
    :class:`~vector_gym.policies.vllm_policy.VLLMPolicy` of a text-only engine); policies
    without the attribute (the controls, which ignore the image; a server, which cannot be
    asked) pass.

    Raises
    ------
    ConfigError
        ``observation`` is not ``"text"`` or ``"image"``, or the policy is text-only.
    """
    if observation not in ("text", "image"):
        raise ConfigError(f"observation: expected 'text' or 'image', got {observation!r}")
    if observation == "image" and getattr(policy, "accepts_images", None) is False:
        raise ConfigError(
            f"policy {getattr(policy, 'name', policy)!r} is a text-only model and cannot read "
            "image observations: use a vision-language model (a config with vision_config) "
            "or --observation text"
        )
