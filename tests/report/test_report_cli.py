"""``vector-gym report`` and ``vector-gym eval --report`` (vector_gym/cli.py)."""

from __future__ import annotations

import lxml.html

from vector_gym.cli import main


def _leaderboard_names(index):
    doc = lxml.html.fromstring(index.read_text(encoding="utf-8"))
    table = doc.get_element_by_id("leaderboard-table")
    return [tr.findall("td")[1].text_content() for tr in table.findall(".//tbody/tr")]


def test_report_command(control_runs, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", *map(str, control_runs), "--out", str(out), "--title", "T"]) == 0
    assert "20 task pages, 2 runs" in capsys.readouterr().out
    assert _leaderboard_names(out / "index.html") == ["oracle", "identity"]
    assert len(list((out / "tasks").glob("*.html"))) == 20


def test_report_command_errors_are_exit_1(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_eval_report_option(control_runs, tmp_path, capsys):
    """eval resumes both policies from one shared --out file (nothing re-run) and writes the
    report of that file: one run per policy."""
    shared = tmp_path / "both.jsonl"
    shared.write_text("".join(p.read_text(encoding="utf-8") for p in control_runs), encoding="utf-8")
    rep = tmp_path / "rep"
    argv = ["eval", "--policy", "identity", "--policy", "oracle", "--out", str(shared),
            "--report", str(rep), "--no-progress"]
    assert main(argv) == 0
    assert f"report: {rep / 'index.html'}" in capsys.readouterr().err
    assert _leaderboard_names(rep / "index.html") == ["oracle", "identity"]
    assert len(shared.read_text(encoding="utf-8").splitlines()) == 40  # resumed, not re-run
