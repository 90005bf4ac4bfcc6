"""Shared fixtures of the render tests: one small pool per module, always closed."""

from __future__ import annotations

import pytest

from vector_gym.render import RenderPool, shutdown_pools


@pytest.fixture(scope="module")
def pool():
    p = RenderPool(2, memory_mb=1024)
    yield p
    p.close()


@pytest.fixture(autouse=True, scope="session")
def _close_shared_pools():
    yield
    shutdown_pools()
