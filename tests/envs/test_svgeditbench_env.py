"""Tests of the SVGEditBench envs (v1 and V2): registration, protocol, reports, images.

Reward definition: ``vector_gym/envs/svgeditbench.py`` module docstring (our choice,
documented there); metrics: ``metrics-svgeditbench.md``.
"""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import vector_gym  # noqa: F401  (registers the ids)
from vector_gym.envs.svgeditbench import (
    SVGEditBenchV1Env,
    SVGEditBenchV2Env,
    make_svgeditbench_v1_env,
    v2_prompt,
)

REPORT_KEYS = {
    "reward", "failure_reasons", "detail", "mse", "dino", "clipscore", "chamfer", "compression_ratio",
    "extraction_error", "parsing_error", "source_mse",
}


@pytest.fixture(scope="module")
def v2_env():
    return SVGEditBenchV2Env(dino_model=None, clip_model=None, processes=0)


def test_registered_ids_make():
    for env_id in ("vector_gym/SVGEditBench-v1", "vector_gym/SVGEditBenchV2-v0"):
        assert env_id in gymnasium.registry
    env = gymnasium.make("vector_gym/SVGEditBench-v1", kinds=("CropToHalf",), processes=0)
    obs, info = env.reset(seed=1)
    assert info["family"] == "svgeditbench-v1" and info["metadata"]["edit_kind"] == "CropToHalf"


def test_v2_identity_and_oracle_rewards(v2_env):
    obs, info = v2_env.reset(options={"task_id": "v2-0100"})
    assert info["metadata"]["target_name"]
    assert "after_svg" not in json.dumps(info) and obs["svg"] == v2_env.task.source_svg
    _, r_id, term, trunc, info = v2_env.step("```svg\n" + obs["svg"] + "\n```")
    rep = info["report"]
    assert set(rep) == REPORT_KEYS and term and not trunc
    assert r_id == 0.0 and rep["mse"] == rep["source_mse"] > 0
    assert json.loads(json.dumps(rep)) == rep
    v2_env.reset(options={"task_id": "v2-0100"})
    _, r_or, _, _, info = v2_env.step(v2_env.task.target_svg)
    assert r_or == 1.0 and info["report"]["mse"] == 0.0 and info["report"]["chamfer"] in (0.0, None)


def test_v2_broken_outputs_named(v2_env):
    v2_env.reset(options={"task_id": "v2-0000"})
    _, r, _, _, info = v2_env.step("no svg")
    assert r == 0.0 and info["report"]["failure_reasons"] == ["extraction_error"]
    v2_env.reset(options={"task_id": "v2-0000"})
    _, r, _, _, info = v2_env.step("<svg><path d='M0 0'></svg>")
    assert r == 0.0 and info["report"]["parsing_error"]
    v2_env.reset(options={"task_id": "v2-0000"})
    # Issue 11: a cyclic <use> draws nothing and the rest draws (browsers, resvg): the target
    # with one appended still scores as the target (it failed as parsing_error / use_cycle).
    cyclic = v2_env.task.target_svg.replace("</svg>", '<use href="#cyc" id="cyc"/></svg>')
    _, r, _, _, info = v2_env.step(cyclic)
    assert r == 1.0 and info["report"]["mse"] == 0.0 and info["report"]["failure_reasons"] == []


@pytest.mark.parametrize(
    ("response", "reason", "detail"),
    [
        ('<svg xmlns="http://www.w3.org/2000/svg">' + "".join(f'<use id="u{i}" href="#u{i}"/>' for i in range(65))
         + "</svg>",
         "parsing_error", "use_cycle"),  # one is skipped alone (above); past 64 the document fails
        ('<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(/etc/passwd)"/></svg>',
         "parsing_error", "external_reference"),
        ("```svg\n<svg/>\n```\n```svg\n<svg/>\n```", "extraction_error", "multiple_svg_blocks"),
    ],
)
def test_v2_hostile_outputs_named(v2_env, response, reason, detail):
    v2_env.reset(options={"task_id": "v2-0000"})
    _, r, _, _, info = v2_env.step(response)
    assert r == 0.0 and info["report"]["failure_reasons"] == [reason]
    assert info["report"]["detail"][0] == detail


def test_v2_hyperlink_in_output_still_renders(v2_env):
    # Review of issue 3: <a href="https://..."> is a link, not a resource; it used to fail the
    # whole output as external_reference (a V2 "parsing error" the paper's CairoSVG never saw).
    v2_env.reset(options={"task_id": "v2-0000"})
    target = v2_env.task.target_svg
    linked = target.replace("</svg>", '<a href="https://example.com"><g/></a></svg>')
    _, r, _, _, info = v2_env.step(linked)
    assert r == 1.0 and info["report"]["mse"] == 0.0 and info["report"]["failure_reasons"] == []


def test_v2_external_image_in_output_draws_nothing_and_the_rest_renders(v2_env):
    # Review of issue 3: an external <image> (https:, file:, a path) failed the whole output as
    # external_reference, a V2 "parsing error"; the papers' CairoSVG draws the rest offline.
    # It now draws nothing (never fetched or opened) and the rest is scored as usual.
    v2_env.reset(options={"task_id": "v2-0000"})
    target = v2_env.task.target_svg
    for ref in ("https://example.com/hat.png", "file:///etc/passwd", "../x.png"):
        out = target.replace("</svg>", f'<image href="{ref}" width="36" height="36"/></svg>')
        _, r, _, _, info = v2_env.step(out)
        assert r == 1.0 and info["report"]["mse"] == 0.0, ref
        assert info["report"]["failure_reasons"] == [] and not info["report"]["parsing_error"]
        v2_env.reset(options={"task_id": "v2-0000"})


def test_v2_prompt_wording():
    """protocols.md, SVGEditBench V2: the one user message."""
    assert v2_prompt("Add a hat.", "<svg/>") == (
        "The following is the SVG code representing an image. Add a hat. Only return the output SVG code."
        "\n\n```svg\n<svg/>\n```"
    )


def test_render_observation_image():
    env = make_svgeditbench_v1_env(kinds=("UpSideDown",), processes=0, render_observation=(24, 24))
    obs, _ = env.reset(seed=3)
    assert obs["image"].shape == (24, 24, 3) and obs["image"].dtype == np.uint8
    assert obs in env.observation_space
    assert obs["image"].min() < 255  # the emoji is drawn
    obs2, *_ = env.step(obs["svg"])
    np.testing.assert_array_equal(obs2["image"], obs["image"])


def test_check_env_v1_with_image():
    env = make_svgeditbench_v1_env(kinds=("Transparency",), processes=0, render_observation=(16, 16))
    check_env(env, skip_render_check=True)


def test_check_env_v2(v2_env):
    check_env(v2_env, skip_render_check=True)


def test_v1_observations_in_space_and_oracle():
    env = SVGEditBenchV1Env(processes=0)
    rewards = {}
    for task in env.tasks[::50]:
        obs, _ = env.reset(options={"task_id": task.task_id})
        assert obs in env.observation_space
        assert obs["instruction"] == task.instruction
        _, r, *_rest, info = env.step("```svg\n" + task.target_svg + "\n```")
        rewards[task.meta()["edit_kind"]] = r
        assert info["report"]["mse"] == 0.0
    # target = source for Compression: the oracle did not compress, reward 0 (module doc)
    assert rewards["Compression"] == 0.0
    assert all(r == 1.0 for k, r in rewards.items() if k != "Compression")


def test_cli_eval_columns(tmp_path, capsys):
    """``vector-gym eval`` prints the papers' columns (issue 3, item 7)."""
    from vector_gym.cli import main

    assert main(["eval", "--env", "svgeditbench-v2", "--policy", "identity", "--limit", "4", "--json",
                 "--no-progress", "--runs-dir", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1 and rows[0]["policy"] == "identity"
    assert {"mse", "dino", "clipscore", "chamfer", "extraction_error", "parsing_error"} <= set(rows[0])
    assert rows[0]["mse"] > 0 and rows[0]["dino"] is None  # no weights here: missing, not 0
    assert main(["eval", "--env", "svgeditbench-v1", "--policy", "scripted", "--json", "--no-progress",
                 "--runs-dir", str(tmp_path)]) == 0
    kinds = json.loads(capsys.readouterr().out)
    assert [k["edit_kind"] for k in kinds] == ["ChangeColor", "SetContour", "Compression", "UpSideDown", "Transparency", "CropToHalf"]
    for k in kinds:
        assert k["n"] == 100
        if k["edit_kind"] == "Compression":
            assert k["compression_ratio"] < 1 and k["mse"] < 1e-3
        else:
            assert k["mse"] < 1e-4 and "compression_ratio" not in k
