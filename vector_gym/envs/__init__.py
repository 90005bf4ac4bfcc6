"""Gymnasium environments (layer 5) and their registration.

Every env id is registered with a ``"module:Class"`` entry-point string, so
registering imports nothing heavy. ``import vector_gym`` calls
:func:`register_envs`; ``gymnasium.make("vector_gym:vector_gym/VectorBench-v0")``
works without a prior import because Gymnasium imports the ``vector_gym`` module
named before the colon.

To add an environment, add one :class:`EnvEntry` line to :data:`ENVS`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENVS", "EnvEntry", "env_id_for", "register_envs"]


@dataclass(frozen=True, slots=True)
class EnvEntry:
    """One registered environment.

    Parameters
    ----------
    id : str
        Gymnasium id, ``vector_gym/Name-vN``.
    entry_point : str
        ``"module:Class"``.
    alias : str
        Short name for the CLI's ``--env`` (``vector-gym eval --env vector-bench``).
    """

    id: str
    entry_point: str
    alias: str


#: Registered environments, one line each.
ENVS: tuple[EnvEntry, ...] = (
    EnvEntry(
        "vector_gym/VectorBench-v0", "vector_gym.envs.vector_bench:VectorBenchEnv", "vector-bench"
    ),
    EnvEntry("vector_gym/SVGEditBench-v1", "vector_gym.envs.svgeditbench:SVGEditBenchV1Env", "svgeditbench-v1"),
    EnvEntry("vector_gym/SVGEditBenchV2-v0", "vector_gym.envs.svgeditbench:SVGEditBenchV2Env", "svgeditbench-v2"),
    EnvEntry("vector_gym/RepairGen-v0", "vector_gym.envs.repairgen:RepairGenEnv", "repairgen"),
)


def env_id_for(name: str) -> str:
    """Return the Gymnasium id for a CLI alias or an id.

    Raises
    ------
    ConfigError
        Neither an alias nor a registered id; the message lists the valid ones.
    """
    from vector_gym.errors import ConfigError

    for e in ENVS:
        if name in (e.alias, e.id):
            return e.id
    valid = ", ".join(f"{e.alias} ({e.id})" for e in ENVS)
    raise ConfigError(f"unknown environment {name!r}; expected one of: {valid}")


def register_envs() -> None:
    """Register every id of :data:`ENVS` with Gymnasium (idempotent: a registered id is left as is)."""
    import gymnasium

    for e in ENVS:
        if e.id not in gymnasium.registry:
            gymnasium.register(id=e.id, entry_point=e.entry_point)
