"""Shared pytest fixtures."""

from __future__ import annotations

import pytest


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
