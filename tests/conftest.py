"""Shared pytest fixtures."""

from __future__ import annotations

import os

import pytest

# Ray Data's driver collects usage statistics unless they are off: a daemon thread polls a local
# Prometheus (localhost:9090) and, when none runs, logs a traceback at interpreter exit. The
# suite's Ray nodes run with them off (``LocalCluster``); so does its driver.
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory):
    """Directory holding a tiny random causal LM and a tokenizer trained in the test.

    Built once per session (about a second); see ``tests/_tiny_models.py``.
    """
    from _tiny_models import build_tiny_lm

    return build_tiny_lm(tmp_path_factory.mktemp("tiny_lm"))


@pytest.fixture(scope="session")
def tiny_vlm_dir(tmp_path_factory):
    """Directory holding a tiny random LLaVA with its processor (``tests/_tiny_models.py``)."""
    from _tiny_models import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny_vlm"))
