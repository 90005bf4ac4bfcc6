"""Gymnasium environments (layer 6): ``EditEnv(suite)``, the variant wrappers, registration.

Every registered id is a suite's env: ``vector_gym/VectorBench-v0`` (suite ``vector_bench``),
``vector_gym/SVGEditBench-v1`` (``svgeditbench_v1``), ``vector_gym/SVGEditBenchV2-v0``
(``svgeditbench_v2``), ``vector_gym/RepairGen-v0`` (``repairgen``). Each entry point builds the
suite's env and applies the variant wrappers named by ``action_format``, ``max_turns`` and
``render_observation`` (:func:`vector_gym.envs.wrappers.wrap`). Ids are registered with
``"module:function"`` strings, so registering imports nothing heavy. ``import vector_gym`` calls
:func:`register_envs`.

:func:`make_env` builds the env of *any* suite, a user's registered suite included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ENVS", "EnvEntry", "env_id_for", "make_env", "register_envs"]


@dataclass(frozen=True, slots=True)
class EnvEntry:
    """One registered environment.

    Parameters
    ----------
    id : str
        Gymnasium id, ``vector_gym/Name-vN``.
    entry_point : str
        ``"module:function"``.
    alias : str
        Short name for the CLI's ``--env`` (``vector-gym eval --env vector-bench``).
    suite : str
        Registry name of the suite (:func:`vector_gym.suites.get_suite`).
    """

    id: str
    entry_point: str
    alias: str
    suite: str = ""


#: Registered environments, one line each.
ENVS: tuple[EnvEntry, ...] = (
    EnvEntry("vector_gym/VectorBench-v0", "vector_gym.envs.vector_bench:make_vector_bench_env", "vector-bench",
             "vector_bench"),
    EnvEntry("vector_gym/SVGEditBench-v1", "vector_gym.envs.svgeditbench:make_svgeditbench_v1_env", "svgeditbench-v1",
             "svgeditbench_v1"),
    EnvEntry("vector_gym/SVGEditBenchV2-v0", "vector_gym.envs.svgeditbench:make_svgeditbench_v2_env",
             "svgeditbench-v2", "svgeditbench_v2"),
    EnvEntry("vector_gym/RepairGen-v0", "vector_gym.envs.repairgen:make_repairgen_env", "repairgen", "repairgen"),
)


def env_id_for(name: str) -> str:
    """Return the Gymnasium id for a CLI alias, suite name or id.

    Raises
    ------
    ConfigError
        None of those; the message lists the valid ones.
    """
    from vector_gym.errors import ConfigError

    for e in ENVS:
        if name in (e.alias, e.id, e.suite):
            return e.id
    valid = ", ".join(f"{e.alias} ({e.id})" for e in ENVS)
    raise ConfigError(f"unknown environment {name!r}; expected one of: {valid}")


def make_env(
    suite: Any,
    *,
    tasks: Sequence[Any] | None = None,
    split: str | None = None,
    action_format: str = "svg",
    max_turns: int = 1,
    render_observation: tuple[int, int] | None = None,
    render_backend: str | None = None,
    progress_weight: float | None = None,
    max_response_chars: int | None = None,
    task_order: str = "random",
    **suite_options: Any,
) -> Any:
    """Build ``EditEnv(suite)`` with the variant wrappers (:func:`vector_gym.envs.wrappers.wrap`).

    Parameters
    ----------
    suite : Suite or str
        A suite or a registered name (``suite_options`` configure it: ``parity=True``, ...).
    tasks, split, max_response_chars, task_order
        :class:`~vector_gym.envs.base.EditEnv` arguments.
    action_format, max_turns, render_observation, render_backend, progress_weight
        The wrappers (``render_backend`` defaults to the suite's ``backend`` option, else skia).

    Returns
    -------
    gymnasium.Env

    Examples
    --------
    >>> env = make_env("vector_bench", max_turns=2)
    >>> obs, info = env.reset(options={"task_id": "sv_001"})
    >>> sorted(obs), env.max_turns
    (['feedback', 'instruction', 'svg'], 2)
    """
    from vector_gym.envs.base import DEFAULT_MAX_RESPONSE_CHARS, EditEnv
    from vector_gym.envs.wrappers import wrap
    from vector_gym.suites import get_suite

    s = get_suite(suite, **suite_options)
    env = EditEnv(s, tasks=tasks, split=split, task_order=task_order,
                  max_response_chars=max_response_chars or DEFAULT_MAX_RESPONSE_CHARS)
    backend = render_backend or s.options.get("backend") or "skia"
    return wrap(env, action_format=action_format, max_turns=max_turns, render_observation=render_observation,
                render_backend=backend, progress_weight=progress_weight)


def register_envs() -> None:
    """Register every id of :data:`ENVS` with Gymnasium (idempotent: a registered id is left as is)."""
    import gymnasium

    for e in ENVS:
        if e.id not in gymnasium.registry:
            gymnasium.register(id=e.id, entry_point=e.entry_point)
