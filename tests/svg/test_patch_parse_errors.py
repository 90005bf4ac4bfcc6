"""Every exception a patch parser can meet becomes a named patch failure (issue 12)."""

from __future__ import annotations

import gymnasium
import pytest

import vector_gym  # noqa: F401
from vector_gym.svg.patch import REASONS, apply_patch, extract_patch

BIG = "1" * 4301  # over CPython's int-string digit limit: int() raises ValueError

HOSTILE = [
    f'Here: [{{"op": "set", "id": "a", "attr": "x", "value": {BIG}}}]',  # unfenced: raw_decode
    f'```json\n[{{"op": "set", "id": "a", "attr": "x", "value": {BIG}}}]\n```',
    "[" * 100_000,  # nested too deeply
    '[{"op": "set", "id": "a", "attr": "x", "value": 1e999999}]',
    '[{"op": "set", "id": "\\ud800", "attr": "x", "value": "1"}]',  # lone surrogate
    "[" + "[" * 50_000 + "]" * 50_000 + "]",
]


@pytest.mark.parametrize("response", HOSTILE, ids=range(len(HOSTILE)))
def test_extract_and_apply_never_raise(response):
    text = extract_patch(response)
    result = apply_patch('<svg xmlns="http://www.w3.org/2000/svg"><rect id="a"/></svg>', text or "")
    assert result.svg is None or isinstance(result.svg, str)
    if result.svg is None:
        assert result.reason in REASONS


@pytest.mark.parametrize("response", HOSTILE, ids=range(len(HOSTILE)))
def test_patch_env_step_scores_zero_with_a_named_reason(response):
    env = gymnasium.make("vector_gym/RepairGen-v0", action_format="patch")
    obs, _ = env.reset(seed=0)
    _, reward, *_, info = env.step(response)
    assert reward == 0.0
    assert info["action_error"]["reason"] in (*REASONS, "patch_not_found"), info["action_error"]
