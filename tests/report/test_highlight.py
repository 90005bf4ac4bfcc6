"""Changed protected elements are boxed on the output's render (vector_gym/report/build.py)."""

from __future__ import annotations

import json
import re

import lxml.html
import pytest

from vector_gym.envs.vector_bench import VectorBenchEnv
from vector_gym.report.build import build_report

# sv_001's viewBox is 0 0 220 140; DEFAULT_SIZE (180, 280) fits it at scale 280/220 with
# (180 - 140 * 280/220) / 2 = 0.909 px of white above and below.
SCALE = 280 / 220
TOP = (180 - 140 * SCALE) / 2


def _box(x, y, w, h):
    return (x * SCALE / 280, (TOP + y * SCALE) / 180, w * SCALE / 280, h * SCALE / 180)


@pytest.fixture(scope="module")
def side_effect_report(tmp_path_factory):
    """Two runs on sv_001 scored by the real env: the target with protected ``track-tie-1``
    moved from x=18 to x=40 (a visible change), and the protected-mutation control (an added
    attribute on ``sky-band``: a change that draws nothing different)."""
    env = VectorBenchEnv()
    env.reset(options={"task_id": "sv_001"})
    task = env.unwrapped.task
    moved = task.target_svg.replace('id="track-tie-1" fill="#7c2d12" x="18"', 'id="track-tie-1" fill="#7c2d12" x="40"')
    assert moved != task.target_svg
    from vector_gym.policies.baselines import protected_mutation

    d = tmp_path_factory.mktemp("side")
    paths = []
    for policy, response in (("moved-tie", moved), ("protected-mutation", protected_mutation(task))):
        env.reset(options={"task_id": "sv_001"})
        _, _, _, _, info = env.step(response)
        row = {"task_id": "sv_001", "env": "vector_gym/VectorBench-v0", "policy": policy,
               "sample_index": 0, "response": "Here it is:\n```svg\n" + response + "\n```",
               "finish_reason": "stop", "truncated": False, "report": info["report"]}
        p = d / f"{policy}.jsonl"
        p.write_text(json.dumps(row) + "\n", encoding="utf-8")
        paths.append(p)
    env.close()
    result = build_report(paths, d / "report")
    return lxml.html.fromstring(result.task_pages["sv_001"].read_text(encoding="utf-8"))


def _cards(doc):
    return {c.find("h3").text_content().split()[-1]: c for c in doc.find_class("card")}


def _style_box(div):
    vals = dict(re.findall(r"(left|top|width|height):([\d.]+)%", div.get("style")))
    return tuple(float(vals[k]) / 100 for k in ("left", "top", "width", "height"))


def test_moved_protected_element_is_boxed_where_it_is_drawn(side_effect_report):
    card = _cards(side_effect_report)["moved-tie"]
    boxes = card.find_class("box")
    assert [b.text_content() for b in boxes] == ["track-tie-1"]
    # rect x=40 y=116 width=7 height=18 in user units, within a pixel
    assert _style_box(boxes[0]) == pytest.approx(_box(40, 116, 7, 18), abs=1.5 / 180)
    assert "changed protected elements (1): track-tie-1" in card.text_content()
    assert "unintended_document_changes" in card.text_content()  # spec §11.2 failure reason
    caption = card.find_class("caption")[0].text_content()
    assert float(re.search(r"([\d.]+)% of pixels", caption).group(1)) > 0.2  # tie moved: pixels differ


def test_invisible_change_is_still_boxed(side_effect_report):
    card = _cards(side_effect_report)["protected-mutation"]
    boxes = card.find_class("box")
    assert [b.text_content() for b in boxes] == ["sky-band"]
    assert _style_box(boxes[0]) == pytest.approx(_box(0, 0, 220, 64), abs=1.5 / 180)
    caption = card.find_class("caption")[0].text_content()
    assert caption == "difference to target: 0.0% of pixels"
