"""``vector-gym eval`` and ``vector-gym rescore`` (in-process ``main`` and the console script)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vector_gym.cli import load_outcomes, main
from vector_gym.summary import summarize, wilson_interval
from vector_gym.tasks.vector_bench import load_vector_bench, read_jsonl

DATA = Path(__file__).parent / "data"
TASKS = load_vector_bench()
# Table 2's protected-mutation UCR is the mean of 1/|U| (one of |U| protected ids changed):
# 1.7 over all 40 tasks in the paper; over the bundled 20 it is 1.7220 percent.
MUTATION_UCR = 100 * sum(1 / len(t.protected_ids) for t in TASKS) / len(TASKS)
EVAL_KEYS = [
    "policy",
    "n",
    "full",
    "near",
    "repair",
    "progress",
    "clean",
    "ucr",
    "valid",
    "full_ci",
    "err",
    "trunc",
]


def run_main(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def controls(tmp_path_factory):
    """The README's main job, ``vector-gym eval`` with default policies, as JSON."""
    runs = tmp_path_factory.mktemp("runs")
    code = main(["eval", "--runs-dir", str(runs), "--json", "--no-progress"])
    assert code == 0
    return runs


def _eval_json(capsys, runs):
    code, out, _ = run_main(capsys, ["eval", "--runs-dir", str(runs), "--json", "--no-progress"])
    assert code == 0
    return json.loads(out)


def test_eval_defaults_reproduce_table_2(capsys, controls):
    """Vector-Bench Table 2 (evaluator controls), on the 20 bundled tasks."""
    res = {d["policy"]: d for d in _eval_json(capsys, controls)}
    assert list(res) == ["identity", "oracle", "protected-mutation", "malformed-target"]
    for d in res.values():
        assert list(d) == EVAL_KEYS and d["n"] == 20
    ident, oracle, mut, bad = (res[k] for k in res)
    # return corrupted input: 0 full / 0 repair / 0 progress / 100 clean / 0 UCR / 100 valid
    assert (
        ident["full"],
        ident["repair"],
        ident["progress"],
        ident["clean"],
        ident["ucr"],
        ident["valid"],
    ) == (0, 0, 0, 100, 0, 100)
    # hidden target copy: 100 full (and 100 repair, progress, clean, valid; UCR 0)
    assert (
        oracle["full"],
        oracle["repair"],
        oracle["progress"],
        oracle["clean"],
        oracle["ucr"],
        oracle["valid"],
    ) == (100, 100, 100, 100, 0, 100)
    # target + protected mutation: 0 full, 100 repair, 100 progress, 0 clean, 100 valid
    assert (mut["full"], mut["repair"], mut["progress"], mut["clean"], mut["valid"]) == (
        0,
        100,
        100,
        0,
        100,
    )
    assert mut["ucr"] == pytest.approx(MUTATION_UCR) and round(mut["ucr"], 1) == 1.7
    # malformed target: 0 full, 0 valid, UCR undefined (null)
    assert (bad["full"], bad["repair"], bad["progress"], bad["clean"], bad["valid"]) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert bad["ucr"] is None
    assert all(d["near"] == 0 for d in res.values())
    assert oracle["full_ci"] == pytest.approx([100 * x for x in wilson_interval(20, 20)])
    assert ident["full_ci"] == pytest.approx([0.0, 100 * wilson_interval(0, 20)[1]])


def test_eval_rerun_resumes_without_rewriting(capsys, controls):
    files = sorted(controls.rglob("*.jsonl"))
    # default run files are named after the policy and the run fingerprint's short hash
    assert [re.sub(r"-[0-9a-f]{8}\.jsonl$", ".jsonl", f.name) for f in files] == [
        "identity.jsonl",
        "malformed-target.jsonl",
        "oracle.jsonl",
        "protected-mutation.jsonl",
    ]
    assert all(f.parent.name.startswith("vector-bench-") for f in files)
    before = {f: f.read_bytes() for f in files}
    _eval_json(capsys, controls)
    assert {f: f.read_bytes() for f in files} == before
    assert all(len(b.splitlines()) == 20 for b in before.values())


def test_eval_table_output(capsys, controls):
    code, out, _ = run_main(capsys, ["eval", "--runs-dir", str(controls), "--no-progress"])
    assert code == 0
    lines = out.splitlines()
    header = "Policy N Full Near Repair Progress Clean UCR Valid Full 95% CI Err. Trunc."
    assert lines[0].split() == header.split()
    expected = [  # Table 2 on the 20 bundled tasks; Err. = rows without an outcome (none here),
        # Trunc. = share of finish_reason "length"
        "identity 20 0.0 0.0 0.0 0.0 100.0 0.0 100.0 [0.0, 16.1] 0.0 0.0",
        "oracle 20 100.0 0.0 100.0 100.0 100.0 0.0 100.0 [83.9, 100.0] 0.0 0.0",
        "protected-mutation 20 0.0 0.0 100.0 100.0 0.0 1.7 100.0 [0.0, 16.1] 0.0 0.0",
        "malformed-target 20 0.0 0.0 0.0 0.0 0.0 - 0.0 [0.0, 16.1] 0.0 0.0",
    ]
    assert [line.split() for line in lines[1:]] == [e.split() for e in expected]
    # the README shows this exact output of its main-job command
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    assert out.strip() in readme


def test_eval_single_policy_out_file_and_rescore_of_it(capsys, tmp_path):
    out = tmp_path / "runs" / "identity.jsonl"
    code, text, _ = run_main(
        capsys,
        [
            "eval",
            "--env",
            "vector-bench",
            "--policy",
            "identity",
            "--out",
            str(out),
            "--json",
            "--no-progress",
        ],
    )
    assert code == 0 and [d["policy"] for d in json.loads(text)] == ["identity"]
    rows = read_jsonl(out)
    assert len(rows) == 20 and {r["policy"] for r in rows} == {"identity"}
    assert {
        "task_id",
        "env",
        "policy",
        "sample_index",
        "response",
        "completion_tokens",
        "finish_reason",
        "truncated",
        "elapsed_s",
        "report",
    } <= set(rows[0])
    # our run files rescore as they are: policy plays the role of model, response is extracted
    code, text, _ = run_main(capsys, ["rescore", str(out), "--json", "--no-progress"])
    (d,) = json.loads(text)
    assert (
        code == 0
        and d["model"] == "identity"
        and d["n"] == 20
        and d["clean"] == 100
        and d["full"] == 0
    )


def test_eval_resume_retries_failed_rows(capsys, tmp_path):
    """A row whose completion failed is played again on resume; finished rows are kept."""
    out = tmp_path / "identity.jsonl"
    argv = ["eval", "--policy", "identity", "--limit", "4", "--out", str(out), "--no-progress"]
    assert main([*argv, "--json"]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    for r in rows[1:3]:  # as written by a run whose server refused sv_002 and sv_003
        r.update(response="", finish_reason="error", reward=0.0)
        r["report"].update(reward=0.0, validity_pass=False, preservation_pass=False)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, text, _ = run_main(capsys, [*argv, "--json"])
    assert code == 0 and out.read_text().startswith("".join(json.dumps(r) + "\n" for r in rows))
    (d,) = json.loads(text)
    assert (d["n"], d["err"], d["clean"], d["valid"]) == (4, 0.0, 100.0, 100.0)
    raw = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task_id"] for r in raw] == [f"sv_00{i}" for i in (1, 2, 3, 4, 2, 3)]
    assert [r["finish_reason"] for r in raw[4:]] == ["stop", "stop"]
    # a file that still holds failed rows (the retry failed too) reports them in Err.
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, text, _ = run_main(capsys, ["rescore", str(out), "--json", "--no-progress"])
    (d,) = json.loads(text)
    assert (code, d["n"], d["err"]) == (0, 4, 50.0)


def test_eval_shows_a_progress_bar_with_time_left_on_stderr(capsys, tmp_path):
    out = tmp_path / "oracle.jsonl"
    argv = ["eval", "--policy", "oracle", "--limit", "3", "--batch-size", "2", "--out", str(out)]
    code, text, err = run_main(capsys, [*argv, "--json"])
    assert code == 0 and json.loads(text)[0]["n"] == 3  # stdout holds only the JSON
    assert "oracle on vector_gym/VectorBench-v0" in err
    assert re.search(r"\b2/3 \[\d\d:\d\d<\d\d:\d\d", err)  # after the first batch: time left
    assert re.search(r"\b3/3 \[", err)


def test_eval_repeated_policy_and_tasks_dir(capsys, tmp_path):
    folder = tmp_path / "repo" / "data" / "tasks"
    folder.mkdir(parents=True)
    for t in TASKS[:3]:
        obj = {
            "task_id": t.task_id,
            "instruction": t.instruction,
            "initial_svg": t.source_svg,
            "target_svg": t.target_svg,
            "expected_diff": [e.to_dict() for e in t.requested_edits],
            "should_preserve": list(t.protected_ids),
        }
        (folder / f"{t.task_id}.json").write_text(json.dumps(obj))
    code, text, _ = run_main(
        capsys,
        [
            "eval",
            "--tasks",
            str(tmp_path / "repo"),
            "--policy",
            "oracle",
            "--policy",
            "identity",
            "--runs-dir",
            str(tmp_path / "runs"),
            "--json",
            "--no-progress",
        ],
    )
    res = json.loads(text)
    assert code == 0 and [(d["policy"], d["n"], d["full"]) for d in res] == [
        ("oracle", 3, 100),
        ("identity", 3, 0),
    ]


def test_eval_errors(capsys, tmp_path):
    code, _, err = run_main(capsys, ["eval", "--env", "nope", "--runs-dir", str(tmp_path)])
    assert code == 1 and "vector-bench" in err
    code, _, err = run_main(capsys, ["eval", "--policy", "nope", "--runs-dir", str(tmp_path)])
    assert code == 1 and "unknown policy" in err
    code, _, _ = run_main(capsys, [])
    assert code == 2


def test_eval_patch_format_and_multi_turn(capsys, tmp_path):
    """issue 5: the patch oracle scores Full 100 on the 20 bundled tasks through ``eval``."""
    from vector_gym.svg.patch import diff_patch, patch_to_text

    code, text, err = run_main(
        capsys,
        ["eval", "--action-format", "patch", "--runs-dir", str(tmp_path), "--json", "--no-progress"],
    )
    (d,) = json.loads(text)  # patch format without --policy: the patch oracle
    assert code == 0 and d["policy"] == "patch-oracle" and d["n"] == 20
    assert (d["full"], d["repair"], d["clean"], d["ucr"], d["valid"]) == (100, 100, 100, 0, 100)
    (path,) = tmp_path.glob("vector-bench-patch-*/patch-oracle-*.jsonl")
    rows = read_jsonl(path)
    by_id = {t.task_id: t for t in TASKS}
    for r in rows:  # each response is the JSON edit script, not a whole SVG
        t = by_id[r["task_id"]]
        assert r["response"] == patch_to_text(diff_patch(t.source_svg, t.target_svg))
    # multi-turn: identity answers the current SVG three times, the oracle passes at once
    code, text, _ = run_main(
        capsys,
        ["eval", "--max-turns", "3", "--policy", "oracle", "--policy", "identity", "--limit", "3",
         "--runs-dir", str(tmp_path), "--json", "--no-progress"],
    )
    full = {x["policy"]: x["full"] for x in json.loads(text)}
    assert code == 0 and full == {"oracle": 100, "identity": 0}
    (path,) = tmp_path.glob("vector-bench-turns3-*/identity-*.jsonl")
    assert [r["turns"] for r in read_jsonl(path)] == [3, 3, 3]
    code, _, err = run_main(capsys, ["eval", "--max-turns", "0", "--runs-dir", str(tmp_path)])
    assert code == 1 and "max_turns" in err


# ---------------------------------------------------------------------------- rescore
def _published(task_ids):
    return [r for r in read_jsonl(DATA / "outcomes_sv001_020.jsonl.gz") if r["task_id"] in task_ids]


def test_rescore_published_outcomes_in_parity_reproduces_the_leaderboard(capsys, tmp_path):
    """Parity mode reproduces every published verdict (issue 2), so the per-model table matches.

    All 680 published outcomes (34 models x sv_001-020), gzip JSON Lines as published.
    """
    path = DATA / "outcomes_sv001_020.jsonl.gz"
    rows = read_jsonl(path)
    out = tmp_path / "rescored.jsonl"
    code, text, _ = run_main(
        capsys, ["rescore", str(path), "--parity", "--json", "--out", str(out), "--no-progress"]
    )
    assert code == 0
    got = json.loads(text)
    expected = [s.to_dict("model") for s in summarize(rows, by="model", order="leaderboard")]
    assert [d["model"] for d in got] == [d["model"] for d in expected]
    for g, e in zip(got, expected, strict=True):
        for k in ("n", "full", "near", "repair", "clean", "valid"):
            assert g[k] == e[k], (g["model"], k)
        assert g["progress"] == pytest.approx(e["progress"], abs=1e-4)
        assert (g["ucr"] is None) == (e["ucr"] is None)
    scored = read_jsonl(out)
    assert len(scored) == len(rows) == 680
    # data README: 236 of the 680 published outcomes were cut at the token budget
    assert sum(d["trunc"] for d in got) / 100 * 20 == pytest.approx(236)
    # 21 published rows are provider errors (``error`` set): all 20 of olmo-3-32b-think, 1 of
    # kimi-k2.6 (tests/data/outcomes_sv001_020.jsonl.gz)
    assert sum(d["err"] for d in got) / 100 * 20 == pytest.approx(21)
    err = {d["model"]: d["err"] for d in got if d["err"]}
    assert err == {"allenai/olmo-3-32b-think": 100.0, "moonshotai/kimi-k2.6": 5.0}
    assert sum(1 for s in read_jsonl(out) if s.get("error")) == 21
    assert [d["name"] for d in got[:3]] == ["KAT Coder Air V2.5", "HY 3", "Claude Sonnet 5"]
    for s, r in zip(scored, rows, strict=True):
        assert (s["task_id"], s["model"]) == (r["task_id"], r["model"])
        for k in (
            "reward",
            "repair_pass",
            "preservation_pass",
            "validity_pass",
            "near_pass",
            "source_preservation_pass",
        ):
            assert s[k] == r[k], (r["task_id"], r["model"], k)
    assert {
        "reward",
        "near_pass",
        "repair_pass",
        "preservation_pass",
        "source_preservation_pass",
        "validity_pass",
        "repair_progress",
        "unintended_change_rate",
        "checks",
        "failure_reasons",
    } <= set(scored[0])


def test_rescore_provider_errors_get_section_12_defaults(capsys, tmp_path):
    rows = [r for r in read_jsonl(DATA / "outcomes_sv001_020.jsonl.gz") if r["error"]][:2]
    assert rows and all(r["produced_svg"] is None for r in rows)
    path = tmp_path / "err.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "o.jsonl"
    assert main(["rescore", str(path), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    for s in read_jsonl(out):
        assert s["status"] == "ERR" and s["reward"] == 0.0 and s["validity_pass"] is False
        assert s["repair_progress"] == 0.0 and s["unintended_change_rate"] == 1.0


def test_rescore_model_results_directory(capsys, tmp_path):
    folder = tmp_path / "repo" / "data" / "model-results"
    folder.mkdir(parents=True)
    rows = _published({"sv_005"})
    (folder / "a.json").write_text(json.dumps(rows[:10]))
    (folder / "b.json").write_text(json.dumps(rows[10:]))
    assert len(load_outcomes(tmp_path / "repo")) == 34
    assert load_outcomes(folder) == rows
    code, text, _ = run_main(capsys, ["rescore", str(tmp_path / "repo"), "--no-progress"])
    assert code == 0
    lines = text.splitlines()
    assert lines[0].split()[0] == "Model" and len(lines) == 35
    # sv_005: the published full passes rank first (paper's order: full pass first)
    passing = sorted(r["model"] for r in rows if r["reward"] == 1)
    assert passing and sorted(line.split()[0] for line in lines[1 : 1 + len(passing)]) == passing


def test_rescore_errors(capsys, tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(
        json.dumps({"task_id": "sv_040", "model": "m", "produced_svg": "<svg/>"}) + "\n"
    )
    code, _, err = run_main(capsys, ["rescore", str(path), "--no-progress"])
    assert code == 1 and "sv_040" in err and "--tasks" in err
    code, _, err = run_main(capsys, ["rescore", str(tmp_path / "missing.jsonl")])
    assert code == 1 and "missing.jsonl" in err
    path.write_text(json.dumps({"task_id": "sv_001", "produced_svg": "<svg/>"}) + "\n")
    code, _, err = run_main(capsys, ["rescore", str(path), "--no-progress"])
    assert code == 1 and "model" in err


def test_console_script_runs(tmp_path):
    exe = shutil.which("vector-gym", path=str(Path(sys.executable).parent))
    assert exe, "the vector-gym console script is not installed next to this interpreter"
    res = subprocess.run(
        [
            exe,
            "eval",
            "--policy",
            "oracle",
            "--out",
            str(tmp_path / "o.jsonl"),
            "--json",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    (d,) = json.loads(res.stdout)
    assert d["policy"] == "oracle" and d["full"] == 100 and d["n"] == 20


def test_closed_stdout_exits_without_traceback(tmp_path, monkeypatch, capsys):
    # Review R1: ``vector-gym rescore ... | head`` ended in a BrokenPipeError traceback.
    import os

    from vector_gym.cli import main

    r, w = os.pipe()
    os.close(r)  # the reader is gone: every write raises BrokenPipeError (EPIPE)
    out = os.fdopen(w, "w")
    monkeypatch.setattr("sys.stdout", out)
    try:
        rc = main(["eval", "--policy", "identity", "--limit", "1", "--no-progress",
                   "--out", str(tmp_path / "run.jsonl")])
    finally:
        monkeypatch.undo()
    assert rc == 1
    out.close()  # stdout now points at devnull: closing (flushing) does not raise again


def test_eval_repairgen_streams_generated_test_tasks(capsys, tmp_path):
    """Issue 9: ``eval --env repairgen`` failed (``options: expected only 'idx'``); it now runs
    ``--n`` held-out test tasks of dataset seed ``--seed``, and rescore re-scores them."""
    out = tmp_path / "rg.jsonl"
    argv = ["eval", "--env", "repairgen", "--n", "3", "--seed", "4", "--policy", "oracle",
            "--policy", "identity", "--out", str(out), "--json", "--no-progress"]
    code, stdout, err = run_main(capsys, argv)
    assert code == 0, err
    table = json.loads(stdout)
    assert [(s["policy"], s["n"], s["full"]) for s in table] == [("oracle", 3, 100.0), ("identity", 3, 0.0)]
    rows = read_jsonl(out)
    assert sorted({r["task_id"] for r in rows}) == [f"rg-test-s4-{i:07d}" for i in range(3)]
    code, stdout, _ = run_main(capsys, ["rescore", str(out), "--suite", "repairgen", "--json", "--no-progress"])
    assert code == 0
    assert [(b["model"], b["full"]) for b in json.loads(stdout)] == [("oracle", 100.0), ("identity", 0.0)]
    code, _, err = run_main(capsys, ["eval", "--env", "vector-bench", "--n", "3", "--no-progress"])
    assert code == 1 and "--limit" in err


def test_eval_suite_all_prints_a_table_per_suite_and_summary_lines(capsys, tmp_path):
    argv = ["eval", "--suite", "all", "--policy", "oracle", "--limit", "2", "--runs-dir", str(tmp_path),
            "--no-progress"]
    code, stdout, err = run_main(capsys, argv)
    assert code == 0, err
    for name in ("vector_bench", "svgeditbench_v1", "svgeditbench_v2", "repairgen"):
        assert f"== {name} (" in stdout
    lines = [ln for ln in stdout.splitlines() if " mean reward " in ln]
    assert lines[:4] == [
        "vector_bench: oracle n=2 mean reward 1.2000",
        "svgeditbench_v1: oracle n=2 mean reward 1.0000",
        "svgeditbench_v2: oracle n=2 mean reward 1.0000",
        "repairgen: oracle n=2 mean reward 1.2000",
    ]
    assert "Policy  edit kind" in stdout and "clipscore" in stdout  # the raster tables


def test_rescore_takes_a_raster_suite(capsys, tmp_path):
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

    t = load_svgeditbench_v2()[:2]
    src = tmp_path / "v2.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"task_id": t[0].task_id, "model": "m", "response": f"```svg\n{t[0].target_svg}\n```"},
        {"task_id": t[1].task_id, "model": "m", "produced_svg": t[1].source_svg},
    ]) + "\n")
    code, stdout, err = run_main(capsys, ["rescore", str(src), "--suite", "svgeditbench-v2", "--json", "--no-progress"])
    assert code == 0, err
    (row,) = json.loads(stdout)
    assert row["model"] == "m" and row["n"] == 2 and row["extraction_error"] == 0.0
    assert row["mse"] == pytest.approx(0.5 * load_source_mse(t[1]))


def load_source_mse(task):
    from vector_gym.rewards.raster import RasterScorer

    return RasterScorer("v2", dino_model=None, clip_model=None, processes=0).score(task, task.source_svg).mse
