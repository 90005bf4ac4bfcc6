"""A report of raster-scored SVGEditBench runs: metric columns, no specification columns."""

from __future__ import annotations

import lxml.html

from vector_gym.envs.svgeditbench import SVGEditBenchV1Env
from vector_gym.policies import make_policy
from vector_gym.report.build import build_report
from vector_gym.rollout import rollout


def test_svgeditbench_report_shows_mse(tmp_path):
    env = SVGEditBenchV1Env()
    ids = [t.task_id for t in env.tasks[:3]]
    paths = []
    for spec in ("identity", "oracle"):
        p = tmp_path / f"{spec}.jsonl"
        rows = rollout(env, make_policy(spec, env.tasks), p, task_ids=ids, progress=False)
        paths.append((p, rows))
    env.close()
    result = build_report([p for p, _ in paths], tmp_path / "rep")
    assert sorted(result.task_pages) == sorted(ids)
    doc = lxml.html.fromstring(result.index.read_text(encoding="utf-8"))
    table = doc.get_element_by_id("leaderboard-table")
    cols = [th.get("data-col") for th in table.findall(".//thead/tr/th")]
    assert "mse" in cols and "full" in cols
    assert not {"near", "repair", "progress", "clean", "ucr", "valid"} & set(cols)
    assert not doc.find_class("heat")  # SVGEditBench tasks carry no requested edits
    for (_, rows), tr in zip(paths, reversed(table.findall(".//tbody/tr")), strict=True):
        # rows: identity then oracle; leaderboard: oracle (MSE 0 to its own target) first
        mse = [r["report"]["mse"] for r in rows]
        cell = next(td for td in tr.findall("td") if td.get("data-col") == "mse")
        assert float(cell.get("data-v")) == sum(mse) / len(mse)
    assert [tr.findall("td")[1].text_content() for tr in table.findall(".//tbody/tr")] == ["oracle", "identity"]
