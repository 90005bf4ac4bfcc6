"""The four deterministic evaluator controls of Vector-Bench (Table 2).

These are *evaluator* controls, not solver baselines: three of them read the hidden
target, so they bound and audit the scorer rather than measure a model.

=======================  ==========================================  ==============================
control                  answer                                      expected (Table 2, percent)
=======================  ==========================================  ==============================
IdentityPolicy           the source SVG unchanged                    Full 0, Repair 0, Progress 0,
                                                                     Clean 100, UCR 0, Valid 100
OraclePolicy             the target SVG                              Full 100, Repair 100, Clean 100
ProtectedMutationPolicy  target + one ``data-*`` attribute on the    Full 0, Repair 100, Clean 0,
                         first protected element                     Valid 100
MalformedTargetPolicy    the target cut in half (does not parse)     Full 0, Valid 0, UCR undefined
=======================  ==========================================  ==============================

:class:`PatchOraclePolicy` is the oracle for envs built with ``action_format="patch"``:
it answers with the JSON edit script that turns the observed SVG into the target
(:func:`vector_gym.svg.patch.diff_patch`), expected Full 100 like the oracle.

Layer 5: imports tasks (layer 3) and the patch syntax (layer 1) only, never envs or rewards. The controls that
need the target look it up by ``observation["task_id"]``, which the rollout adds to
every observation it hands to a policy.

References
----------
Gupta & Hebbar 2026, *Vector-Bench*, Table 2 ("Deterministic evaluator controls").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError, SVGParseError, UnknownTaskError
from vector_gym.policies.base import Completion
from vector_gym.svg.patch import diff_patch, patch_to_text
from vector_gym.tasks.task import Task

__all__ = [
    "MUTATION_ATTRIBUTE",
    "IdentityPolicy",
    "MalformedTargetPolicy",
    "OraclePolicy",
    "PatchOraclePolicy",
    "ProtectedMutationPolicy",
    "malformed_target",
    "protected_mutation",
]

#: The attribute the protected-mutation control adds (a ``data-*`` attribute is part of
#: the semantic form V, so adding it to a protected element fails preservation:
#: spec-reward.md section 18, "``data-k`` added to a protected element").
MUTATION_ATTRIBUTE = 'data-vector-gym-mutation="1"'

_ROOT_RE = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?svg(?=[\s/>])")


def _check_n(n: int) -> None:
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"n: expected an int >= 1, got {n!r}")


def protected_mutation(task: Task) -> str:
    """Return the target SVG with one protected-element mutation.

    Adds :data:`MUTATION_ATTRIBUTE` right after the ``id`` attribute of the first
    protected element (``task.protected_ids[0]``) by a text edit, so nothing else in
    the document changes. With no protected ids (or an id not found as an attribute),
    the attribute goes on the root ``<svg>`` element instead.

    Raises
    ------
    ConfigError
        The target has no ``<svg`` start tag to mutate.

    Examples
    --------
    >>> t = Task("t", "x", "i", "<svg/>", '<svg><rect id="a"/></svg>', (), ("a",))
    >>> protected_mutation(t)
    '<svg><rect id="a" data-vector-gym-mutation="1"/></svg>'
    """
    target = task.target_svg
    for uid in task.protected_ids[:1]:
        pattern = re.compile(r"(<[A-Za-z_][^<>]*?\sid\s*=\s*([\"'])" + re.escape(uid) + r"\2)")
        m = pattern.search(target)
        if m:
            return target[: m.end()] + " " + MUTATION_ATTRIBUTE + target[m.end() :]
    m = _ROOT_RE.search(target)
    if not m:
        raise ConfigError(f"task {task.task_id}: target_svg has no <svg start tag to mutate")
    return target[: m.end()] + " " + MUTATION_ATTRIBUTE + target[m.end() :]


def malformed_target(task: Task) -> str:
    """Return the first half of the target SVG (no closing ``</svg>``: not well-formed).

    Examples
    --------
    >>> t = Task("t", "x", "i", "<svg/>", '<svg><rect id="a"/></svg>')
    >>> malformed_target(t)
    '<svg><rect i'
    """
    return task.target_svg[: len(task.target_svg) // 2]


class IdentityPolicy:
    """Return the observation's source SVG unchanged ("return corrupted input" control)."""

    name = "identity"
    #: The answer format (an SVG document); ``eval`` refuses it on a patch-format env.
    action_format = "svg"

    def generate(
        self, observations: Sequence[Mapping[str, Any]], n: int = 1
    ) -> list[list[Completion]]:
        """Answer each observation with ``n`` copies of ``observation["svg"]``."""
        _check_n(n)
        return [
            [Completion(text=str(obs["svg"]), finish_reason="stop") for _ in range(n)]
            for obs in observations
        ]


class _TargetPolicy:
    """Shared machinery of the controls that read the hidden target by ``task_id``."""

    name = "target"
    #: The answer format (an SVG document); ``eval`` refuses a mismatched env.
    action_format = "svg"

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._tasks = {t.task_id: t for t in tasks}
        if not self._tasks:
            raise ConfigError(f"{type(self).__name__}: expected at least one task, got none")

    def answer(self, task: Task) -> str:
        raise NotImplementedError

    def _task_for(self, obs: Mapping[str, Any]) -> Task:
        if "task_id" not in obs:
            raise ConfigError(
                f"{type(self).__name__} needs observation['task_id'] (the rollout adds it); got keys {sorted(obs)}"
            )
        tid = obs["task_id"]
        try:
            return self._tasks[tid]
        except KeyError:
            raise UnknownTaskError(
                f"{type(self).__name__}: unknown task_id {tid!r}; expected one of: {', '.join(self._tasks)}"
            ) from None

    def generate(
        self, observations: Sequence[Mapping[str, Any]], n: int = 1
    ) -> list[list[Completion]]:
        """Answer each observation with ``n`` copies of this control's answer for its task.

        Raises
        ------
        ConfigError
            An observation has no ``task_id``.
        UnknownTaskError
            The ``task_id`` is not among the tasks this policy was given.
        """
        _check_n(n)
        out = []
        for obs in observations:
            text = self.answer_observation(self._task_for(obs), obs)
            out.append([Completion(text=text, finish_reason="stop") for _ in range(n)])
        return out

    def answer_observation(self, task: Task, observation: Mapping[str, Any]) -> str:
        """Return the answer for ``task`` given what the policy observes (default: :meth:`answer`)."""
        return self.answer(task)


class OraclePolicy(_TargetPolicy):
    """Return the hidden target ("hidden target copy": the evaluator's upper bound)."""

    name = "oracle"

    def answer(self, task: Task) -> str:
        """Return ``task.target_svg``."""
        return task.target_svg


class PatchOraclePolicy(_TargetPolicy):
    """Answer with the edit script from the observed SVG to the target (patch-format oracle).

    For envs built with ``action_format="patch"``. The script is
    :func:`vector_gym.svg.patch.diff_patch` of ``observation["svg"]`` (the source, or in
    a multi-turn episode the current document) and the target, serialised with
    :func:`~vector_gym.svg.patch.patch_to_text`; when the observed SVG does not parse,
    the script is computed from the task's source SVG instead.
    """

    name = "patch-oracle"
    action_format = "patch"

    def answer(self, task: Task) -> str:
        """Return the edit script from ``task.source_svg`` to ``task.target_svg`` (JSON text)."""
        return patch_to_text(diff_patch(task.source_svg, task.target_svg))

    def answer_observation(self, task: Task, observation: Mapping[str, Any]) -> str:
        """Return the script from the observed SVG to the target (from the source if it does not parse)."""
        current = observation.get("svg")
        try:
            if not isinstance(current, str):
                raise SVGParseError("not_text", "observation has no SVG text")
            return patch_to_text(diff_patch(current, task.target_svg))
        except SVGParseError:
            return self.answer(task)


class ProtectedMutationPolicy(_TargetPolicy):
    """Return the target plus one protected mutation ("target + protected mutation")."""

    name = "protected-mutation"

    def answer(self, task: Task) -> str:
        """Return :func:`protected_mutation` of the task."""
        return protected_mutation(task)


class MalformedTargetPolicy(_TargetPolicy):
    """Return a truncated target that does not parse ("malformed target")."""

    name = "malformed-target"

    def answer(self, task: Task) -> str:
        """Return :func:`malformed_target` of the task."""
        return malformed_target(task)


def _no_arg(name: str, arg: str | None) -> None:
    if arg:
        raise ConfigError(f"policy {name!r} takes no argument, got {name}:{arg}")


def _make_identity(arg: str | None, tasks: Sequence[Task]) -> IdentityPolicy:
    _no_arg("identity", arg)
    return IdentityPolicy()


def _make_oracle(arg: str | None, tasks: Sequence[Task]) -> OraclePolicy:
    _no_arg("oracle", arg)
    return OraclePolicy(tasks)


def _make_patch_oracle(arg: str | None, tasks: Sequence[Task]) -> PatchOraclePolicy:
    _no_arg("patch-oracle", arg)
    return PatchOraclePolicy(tasks)


def _make_protected_mutation(arg: str | None, tasks: Sequence[Task]) -> ProtectedMutationPolicy:
    _no_arg("protected-mutation", arg)
    return ProtectedMutationPolicy(tasks)


def _make_malformed_target(arg: str | None, tasks: Sequence[Task]) -> MalformedTargetPolicy:
    _no_arg("malformed-target", arg)
    return MalformedTargetPolicy(tasks)
