"""Broken or hostile outcome rows never stop a report (vector_gym/report/build.py)."""

from __future__ import annotations

import json

import lxml.html

from vector_gym.report.build import build_report

BOMB = (
    '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
    '<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>'
)


def test_broken_rows_give_placeholders(tmp_path):
    responses = {
        "empty": "",
        "none": None,
        "prose": "I cannot help with that.",
        "truncated": '<svg xmlns="http://www.w3.org/2000/svg"><rect id="x" width="10"',
        "entity-bomb": BOMB,
        "not-text": 12345,
    }
    rows = []
    for policy, response in responses.items():
        rows.append({
            "task_id": "sv_001", "env": "vector_gym/VectorBench-v0", "policy": policy,
            "sample_index": 0, "response": response, "finish_reason": "length",
            "truncated": True,
            "report": {"reward": 0.0, "status": "<script>alert(1)</script>",
                       "checks": ["junk", {"part": "<b>", "passed": "yes", "distance": "NaN"}],
                       "unexpected_changed_parts": ["sky-band"], "failure_reasons": ["invalid_svg"]},
        })
    rows.append({"task_id": "sv_001", "env": "vector_gym/VectorBench-v0", "policy": "no-report",
                 "sample_index": 0, "response": "x", "report": "not a dict"})
    run = tmp_path / "broken.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = build_report([run], tmp_path / "rep")
    text = result.task_pages["sv_001"].read_text(encoding="utf-8")
    assert "<script>alert" not in text and "<b>" not in text  # everything is escaped
    doc = lxml.html.fromstring(text)
    cards = {c.find("h3").text_content().split()[-1]: c for c in doc.find_class("card")}
    assert set(cards) == {"source", "target", *responses, "no-report"}
    assert "empty response" in cards["empty"].text_content()
    assert "no SVG in the response" in cards["prose"].text_content()
    assert "no SVG in the response" in cards["truncated"].text_content()
    assert "render failed: entity_declaration" in cards["entity-bomb"].text_content()
    assert "truncated" in cards["none"].text_content()
    index = lxml.html.fromstring(result.index.read_text(encoding="utf-8"))
    err = {tr.findall("td")[1].text_content(): tr.xpath("td[@data-col='err']")[0].text_content()
           for tr in index.get_element_by_id("leaderboard-table").findall(".//tbody/tr")}
    assert err["no-report"] == "100.0" and err["prose"] == "0.0"


def test_same_run_file_twice_gets_distinct_names(control_runs, tmp_path):
    result = build_report([control_runs[0], control_runs[0]], tmp_path / "rep")
    assert sorted(result.leaderboard.order) == ["identity (identity.jsonl)", "identity (identity.jsonl) #2"]


def test_run_names_are_not_mathtext(control_runs, tmp_path):
    """A policy name is data: "$\\foo{$" used to crash the Figure 6a plot in matplotlib's
    mathtext parser (ValueError: Unknown symbol), taking the whole report down."""
    rows = [json.loads(line) for line in control_runs[1].read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["policy"] = "$\\foo{$ x"
    run = tmp_path / "dollar.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = build_report([run, control_runs[0]], tmp_path / "rep")
    assert (tmp_path / "rep" / "progress_ucr.png").stat().st_size > 1000
    assert "$\\foo{$ x" in lxml.html.fromstring(result.index.read_text(encoding="utf-8")).text_content()
