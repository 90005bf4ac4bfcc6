"""Gymnasium's env checker on every registered ``vector_gym/...`` id (ids as pytest ids)."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import vector_gym  # noqa: F401  (registers the ids)
from vector_gym.envs import ENVS

ENV_IDS = sorted(i for i in gymnasium.registry if i.startswith("vector_gym/"))


def test_every_declared_env_is_registered():
    assert {e.id for e in ENVS} <= set(ENV_IDS)
    assert "vector_gym/VectorBench-v0" in ENV_IDS


@pytest.mark.parametrize("env_id", ENV_IDS, ids=ENV_IDS)
def test_check_env(env_id):
    env = gymnasium.make(env_id)
    try:
        check_env(env.unwrapped)
    finally:
        env.close()
