"""Content of the report built for the identity and oracle controls (vector_gym/report/build.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lxml.html
import pytest

from vector_gym.report.build import build_report
from vector_gym.rollout import read_rows
from vector_gym.summary import summarize
from vector_gym.tasks.vector_bench import load_vector_bench


def _index(report):
    return lxml.html.fromstring(report.index.read_text(encoding="utf-8"))


def test_every_task_has_a_page(control_report):
    tasks = load_vector_bench()
    assert set(control_report.task_pages) == {t.task_id for t in tasks}
    for t in tasks:
        page = control_report.task_pages[t.task_id]
        assert page.is_file() and page.parent.name == "tasks"
        doc = lxml.html.fromstring(page.read_text(encoding="utf-8"))
        assert doc.find_class("instruction")[0].text_content() == t.instruction
        titles = [h.text_content().strip() for h in doc.iter("h3")]
        # source, target, then the two runs (oracle first: leaderboard order)
        assert titles[:2] == ["source", "target"]
        assert [x.split()[-1] for x in titles[2:]] == ["oracle", "identity"]
        # every requested-edit check of both runs is listed (distance, tolerance, q, passed)
        checks = doc.find_class("checks")
        assert len(checks) == 2
        for table in checks:
            assert len(table.findall(".//tbody/tr")) == len(t.requested_edits)


def test_leaderboard_equals_eval_table(control_runs, control_report):
    """Each cell's data-v is the eval table's value (summary.summarize, as `vector-gym eval`)."""
    doc = _index(control_report)
    table = doc.get_element_by_id("leaderboard-table")
    rows = table.findall(".//tbody/tr")
    got = {}
    for tr in rows:
        name = tr.findall("td")[1].text_content()
        got[name] = {td.get("data-col"): td for td in tr.findall("td") if td.get("data-col")}
    assert list(got) == ["oracle", "identity"]  # leaderboard order: Full descending
    for path in control_runs:
        expected = summarize(read_rows(path, repair=False), by="policy")
        assert len(expected) == 1
        exp = expected[0].to_dict("policy")
        cells = got[exp["policy"]]
        for key, value in exp.items():
            if key == "policy":
                continue
            cell = cells[key]
            if key == "full_ci":
                assert float(cell.get("data-v")) == value[0]
                assert float(cell.get("data-hi")) == value[1]
            elif value is None:
                assert cell.get("data-v") == ""
            else:
                assert float(cell.get("data-v")) == value, key
    # The controls' known values: the oracle returns the target (spec reward 1, spec-reward.md
    # §8.2 "the known corruption cannot pass" makes identity 0); Wilson interval for 0/20 and
    # 20/20 at z = 1.96 is [0, 16.1] and [83.9, 100] percent (summary.py's formula).
    assert got["oracle"]["full"].text_content() == "100.0"
    assert got["identity"]["full"].text_content() == "0.0"
    assert got["oracle"]["full_ci"].text_content() == "[83.9, 100.0]"
    assert got["identity"]["full_ci"].text_content() == "[0.0, 16.1]"
    assert got["identity"]["err"].text_content() == "0.0"


def test_heat_map_by_operation_family(control_report):
    """Oracle restores every requested edit (q = 1), identity none (q = 0 at d = delta, spec §9)."""
    doc = _index(control_report)
    heat = doc.find_class("heat")[0]
    head = [th.text_content() for th in heat.findall(".//thead/th")] or [
        th.text_content() for th in heat.findall(".//thead/tr/th")
    ]
    assert head[0] == "run"
    fams = [re.sub(r"n=\d+$", "", h) for h in head[1:]]
    assert fams == ["colour", "position", "path shape", "stroke width", "insertion", "deletion", "size"]
    ns = [int(re.search(r"n=(\d+)$", h).group(1)) for h in head[1:]]
    # The 105 requested edits of sv_001..sv_020 (expected_diff attributes: 19 fill, 29 of
    # x/y/cx/cy, 19 d + 9 points, 7 stroke-width, 20 exists = 5 insertions + 15 deletions,
    # 2 height), each counted once.
    assert ns == [19, 29, 28, 7, 5, 15, 2]
    rows = {tr.findall("td")[0].text_content(): [td.text_content() for td in tr.findall("td")[1:]]
            for tr in heat.findall(".//tbody/tr")}
    assert rows["oracle"] == ["1.00"] * len(fams)
    assert rows["identity"] == ["0.00"] * len(fams)


def test_report_is_self_contained(control_report):
    out = control_report.index.parent
    pages = [control_report.index, *control_report.task_pages.values()]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        doc = lxml.html.fromstring(text)
        refs = [e.get("src") for e in doc.iter("img", "script")] + [e.get("href") for e in doc.iter("link", "a")]
        for ref in filter(None, refs):
            assert not re.match(r"[a-z]+:", ref), f"{page.name}: external reference {ref}"
            target = (page.parent / ref.split("#")[0]).resolve()
            assert target.is_file(), f"{page.name}: missing {ref}"
            assert out.resolve() in target.parents
    assert (out / "progress_ucr.png").is_file()


def test_each_distinct_svg_rendered_once(control_runs, tmp_path, monkeypatch):
    """render_many sees every document once: 20 sources + 20 targets (identity returns the
    source, oracle the target, so the outputs add nothing new)."""
    import vector_gym.render as render

    seen: list[str] = []
    real = render.render_many

    def counting(svgs, *args, **kwargs):
        seen.extend(svgs)
        return real(svgs, *args, **kwargs)

    monkeypatch.setattr(render, "render_many", counting)
    from vector_gym.report.build import build_report

    result = build_report(control_runs, tmp_path / "r")
    tasks = load_vector_bench()
    assert len(seen) == len(set(seen)) == result.renders
    assert set(seen) == {t.source_svg for t in tasks} | {t.target_svg for t in tasks}


def test_unknown_task_is_a_config_error(tmp_path):
    from vector_gym.errors import ConfigError
    from vector_gym.report.build import build_report

    run = tmp_path / "x.jsonl"
    run.write_text('{"task_id": "nope", "env": "vector_gym/VectorBench-v0", "policy": "p"}\n')
    with pytest.raises(ConfigError, match="nope"):
        build_report([run], tmp_path / "out")
    with pytest.raises(ConfigError, match="does not exist"):
        build_report([tmp_path / "missing.jsonl"], tmp_path / "out")
    assert not Path(tmp_path / "out" / "index.html").exists()


def test_patch_format_outputs_are_drawn(tmp_path):
    """Patch-format rows hold an edit script, not an SVG: the report replays the script(s) on
    the source (a multi-turn row's failed script leaves the document unchanged) instead of
    showing "no SVG in the response" under a passing output."""
    from vector_gym.rewards.spec import score
    from vector_gym.svg.patch import apply_patch, diff_patch, patch_to_text
    from vector_gym.tasks import load_vector_bench

    rows = []
    for task in load_vector_bench()[:2]:
        script = patch_to_text(diff_patch(task.source_svg, task.target_svg))
        report = score(task, apply_patch(task.source_svg, script).svg).to_dict()
        base = {"task_id": task.task_id, "env": "vector_gym/VectorBench-v0", "sample_index": 0,
                "report": report}
        rows.append({**base, "policy": "patch-oracle", "response": f"```json\n{script}\n```"})
        rows.append({**base, "policy": "two-turns", "response": script,
                     "responses": ['[{"delete": "no-such-id"}]', script]})
    run = tmp_path / "patch.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = build_report([run], tmp_path / "rep")
    for task in load_vector_bench()[:2]:
        doc = lxml.html.fromstring(result.task_pages[task.task_id].read_text(encoding="utf-8"))
        cards = {c.find("h3").text_content().split()[-1]: c for c in doc.find_class("card")}
        source_img = cards["source"].find(".//img").get("src")
        for name in ("patch-oracle", "two-turns"):
            text = cards[name].text_content()
            assert "no SVG" not in text and "PASS" in text
            # the replayed document is drawn (not the unchanged source) and matches the target
            img = cards[name].find(".//img").get("src")
            assert img != source_img and (result.index.parent / "tasks" / img).resolve().is_file()
            assert "difference to target: 0.0% of pixels" in text
