"""Run files a researcher can trust (issue 12): identity, one writer, no lost or clobbered rows,
text-safe rows, bounded storage, named errors instead of tracebacks."""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vector_gym.cli import main
from vector_gym.envs.base import EditEnv
from vector_gym.errors import ConfigError, CorpusError
from vector_gym.policies.base import Completion
from vector_gym.rollout import read_rows, rollout
from vector_gym.tasks.task import Task

TASKS = [Task(f"t{i}", "toy", f"make it {i}", f"<svg>{i}</svg>", f"<svg>{i + 1}</svg>") for i in range(6)]


class PrefixReport:
    def __init__(self, reward):
        self.reward = reward

    def to_dict(self):
        return {"reward": self.reward, "failure_reasons": []}


class PrefixScorer:
    """Full marks when the response starts with the target (scores the *whole* response)."""

    def score_response(self, task, response):
        return PrefixReport(1.0 if str(response).startswith(task.target_svg) else 0.0)


def make_env(**kw):
    return EditEnv(TASKS, PrefixScorer(), task_order="sequential", **kw)


class TextPolicy:
    """Answers target + ``tail``; ``max_tokens`` / ``temperature`` enter the fingerprint."""

    def __init__(self, tail="", finish="stop", max_tokens=None, temperature=None, name="model"):
        self.tail, self.finish, self.name = tail, finish, name
        self.max_tokens, self.temperature = max_tokens, temperature
        self.calls = 0

    def token_budget(self, obs):
        return self.max_tokens or 8192

    def generate(self, observations, n=1):
        self.calls += 1
        return [
            [Completion(f"<svg>{int(o['task_id'][1:]) + 1}</svg>" + self.tail, finish_reason=self.finish)
             for _ in range(n)]
            for o in observations
        ]


def run_cli(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------- run identity
def test_resume_with_another_token_budget_or_temperature_refuses_naming_the_change(tmp_path):
    out = tmp_path / "run.jsonl"
    rollout(make_env(), TextPolicy(max_tokens=64), out, progress=False)
    again = TextPolicy(max_tokens=8192)
    with pytest.raises(ConfigError, match=r"token_budget: 64 -> 8192.*--new-run.*--force"):
        rollout(make_env(), again, out, progress=False)
    assert again.calls == 0
    with pytest.raises(ConfigError, match=r"sampling\.temperature: null -> 0\.7"):
        rollout(make_env(), TextPolicy(max_tokens=64, temperature=0.7), out, progress=False)
    # --force resumes (nothing to redo); rows carry the fingerprint
    forced = TextPolicy(max_tokens=8192)
    rows = rollout(make_env(), forced, out, progress=False, force=True)
    assert forced.calls == 0 and len(rows) == 6
    stored = read_rows(out)
    assert {r["run"]["token_budget"] for r in stored} == {64}
    assert len({r["run_id"] for r in stored}) == 1


def test_cli_default_paths_carry_the_fingerprint_and_out_refuses_a_changed_model(
    capsys, tmp_path, tiny_lm_dir
):
    import shutil

    model = tmp_path / "ckpt"
    shutil.copytree(tiny_lm_dir, model)
    base = ["eval", "--policy", f"hf:{model}", "--limit", "1", "--no-progress", "--json"]
    code, _, err = run_cli(capsys, [*base, "--max-tokens", "2", "--runs-dir", str(tmp_path / "r")])
    assert code == 0, err
    code, _, err = run_cli(capsys, [*base, "--max-tokens", "3", "--runs-dir", str(tmp_path / "r")])
    assert code == 0, err
    assert len(list((tmp_path / "r").rglob("*.jsonl"))) == 2  # another budget, another file
    out = tmp_path / "one.jsonl"
    assert run_cli(capsys, [*base, "--max-tokens", "2", "--out", str(out)])[0] == 0
    # a checkpoint "trained further": one weight byte differs
    (weights,) = [p for p in model.iterdir() if p.suffix in (".safetensors", ".bin")]
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    code, _, err = run_cli(capsys, [*base, "--max-tokens", "2", "--out", str(out)])
    assert code == 1 and f"model.files.{weights.name}" in err and "--new-run" in err
    assert "Traceback" not in err
    code, _, err = run_cli(capsys, [*base, "--max-tokens", "2", "--out", str(out), "--new-run"])
    assert code == 0, err
    assert len(list(tmp_path.glob("one-*.jsonl"))) == 1


# -------------------------------------------------------------------- one writer, no losses
def test_second_writer_on_one_file_says_so_and_exits_non_zero(capsys, tmp_path):
    from vector_gym.runfile import RunWriter

    out = tmp_path / "run.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from vector_gym.runfile import RunWriter
            w = RunWriter({str(out)!r})
            print("locked", flush=True)
            time.sleep(30)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress"])
        assert code == 1 and "being written by another vector-gym process" in err
        assert out.read_bytes() == b""
    finally:
        holder.kill()
        holder.wait()
    with RunWriter(out):  # the lock went with the process
        pass


def test_out_refuses_a_file_that_is_not_a_run_file(capsys, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\nline two\n", encoding="utf-8")
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(notes), "--no-progress"])
    assert code == 1 and "not a run file" in err
    assert notes.read_text(encoding="utf-8") == "my notes\nline two\n"
    torn = tmp_path / "torn.txt"
    torn.write_text("no newline at the end", encoding="utf-8")
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(torn), "--no-progress"])
    assert code == 1 and torn.read_text(encoding="utf-8") == "no newline at the end"


def test_a_last_line_that_is_not_json_is_an_error_not_dropped(capsys, tmp_path):
    out = tmp_path / "run.jsonl"
    assert run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress", "--limit", "2"])[0] == 0
    text = out.read_text(encoding="utf-8") + "this line is mine\n"
    out.write_text(text, encoding="utf-8")
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress"])
    assert code == 1 and ":3: not valid JSON" in err
    assert out.read_text(encoding="utf-8") == text


def test_repair_under_the_lock_never_cuts_a_live_writers_rows(tmp_path):
    """A reader repairing in a loop while the writer appends: nothing lost, nothing duplicated."""
    out = tmp_path / "run.jsonl"
    reader = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from vector_gym.runfile import read_rows
            end = time.time() + 30
            while time.time() < end:
                read_rows({str(out)!r}, repair=True)
        """)]
    )
    try:
        time.sleep(0.2)
        # large rows: each write spans many pages, so a reader sees half-written lines
        rows = rollout(make_env(max_response_chars=300_000), TextPolicy(tail="y" * 200_000), out,
                       n=12, batch_size=1, progress=False)
    finally:
        reader.kill()
        reader.wait()
    stored = read_rows(out, latest=False)
    keys = [(r["task_id"], r["sample_index"]) for r in stored]
    assert len(rows) == 72 and len(keys) == 72 and len(set(keys)) == 72


def test_a_repairing_reader_leaves_the_live_writers_row_in_flight_alone(tmp_path):
    """Deterministic form of the race: the writer is mid-row when a reader repairs."""
    from vector_gym.runfile import RunWriter

    out = tmp_path / "run.jsonl"
    row = {"env": "e", "task_id": "t0", "policy": "p", "sample_index": 0}
    with RunWriter(out) as w:
        w.append(row)
        line = json.dumps({**row, "task_id": "t1"}).encode() + b"\n"
        os.write(w._fd, line[:20])  # the row in flight: half written
        assert [r["task_id"] for r in read_rows(out, repair=True)] == ["t0"]
        assert out.stat().st_size == len(json.dumps(row)) + 1 + 20  # nothing was cut
        os.write(w._fd, line[20:])
    assert [r["task_id"] for r in read_rows(out, repair=True)] == ["t0", "t1"]
    # with no writer, the same torn tail is cut (under the lock) before anything is appended
    with open(out, "ab") as fh:
        fh.write(line[:20])
    assert [r["task_id"] for r in read_rows(out, repair=True)] == ["t0", "t1"]
    assert out.read_bytes().endswith(b"}\n")


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


KILL_SCRIPT = """
import sys
from vector_gym.envs.base import EditEnv
from vector_gym.policies.base import Completion
from vector_gym.rollout import rollout
sys.path.insert(0, {tests!r})
from test_runfile import TASKS, PrefixScorer

class Answer:
    def __init__(self, name):
        self.name = name
    def generate(self, observations, n=1):
        return [[Completion(f"<svg>{{int(o['task_id'][1:]) + 1}}</svg>", finish_reason="stop")
                 for _ in range(n)] for o in observations]

env = EditEnv(TASKS, PrefixScorer(), task_order="sequential")
for name in ("a", "b"):  # an eval of 2 policies, n=4, into one run file
    rollout(env, Answer(name), {out!r}, n=4, batch_size=1, progress=False)
"""


def test_ten_sigkills_at_random_points_resume_to_exactly_one_row_per_key(tmp_path):
    """An eval of 2 policies with n=4, SIGKILLed 10 times at random rows, resumed each time."""
    out = tmp_path / "run.jsonl"
    script = tmp_path / "kill_run.py"
    script.write_text(KILL_SCRIPT.format(tests=str(Path(__file__).parent), out=str(out)))
    argv = [sys.executable, str(script)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    total = 2 * len(TASKS) * 4
    rng = random.Random(12)
    mid_run = 0
    for _ in range(10):
        have = _lines(out)
        target = rng.randint(have, total - 1) if have < total - 1 else total
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while p.poll() is None and _lines(out) < target and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.uniform(0, 0.01))  # anywhere inside the next row's scoring or write
        mid_run += p.poll() is None
        p.send_signal(signal.SIGKILL)
        p.wait()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    stored = read_rows(out, latest=False)
    keys = [(r["policy"], r["task_id"], r["sample_index"]) for r in stored]
    assert len(keys) == total and len(set(keys)) == total  # nothing lost, nothing duplicated
    assert {r["policy"] for r in stored} == {"a", "b"} and all(r["reward"] == 1.0 for r in stored)
    assert mid_run >= 5  # the kills landed inside runs, not only before or after them


# --------------------------------------------------------------------------- text and size
def test_lone_surrogates_are_written_and_read_back_exactly(tmp_path):
    out = tmp_path / "run.jsonl"
    policy = TextPolicy(tail="\ud800 caf\u00e9 \udfff", finish="st\ud800op")
    rows = rollout(make_env(), policy, out, progress=False)
    stored = read_rows(out)
    assert [r["response"] for r in stored] == [r["response"] for r in rows]
    assert stored[0]["response"].endswith("\ud800 caf\u00e9 \udfff")
    assert stored[0]["finish_reason"] == "st\ud800op"
    again = TextPolicy()
    rollout(make_env(), again, out, progress=False)  # the resume reads the file
    assert again.calls == 0


def test_stored_responses_are_bounded_and_scored_in_full(tmp_path):
    from vector_gym.runfile import MAX_STORED_RESPONSE_CHARS

    out = tmp_path / "run.jsonl"
    env = make_env(max_response_chars=4_000_000)
    rows = rollout(env, TextPolicy(tail="x" * 3_000_000), out, progress=False)
    assert all(r["reward"] == 1.0 for r in rows)  # scored on the whole response
    stored = read_rows(out)
    assert all(len(r["response"]) == MAX_STORED_RESPONSE_CHARS for r in stored)
    assert all(r["response_truncated"] is True and r["response_chars"] > 3_000_000 for r in stored)
    assert out.stat().st_size < 6 * (MAX_STORED_RESPONSE_CHARS + 4096)


# ------------------------------------------------------------------ interrupts, full disk
def test_ctrl_c_stops_with_one_line_and_resumes(capsys, tmp_path, monkeypatch):
    from vector_gym.policies import baselines

    out = tmp_path / "run.jsonl"
    real = baselines.IdentityPolicy.generate
    calls = []

    def interrupted(self, observations, n=1):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, observations, n)

    monkeypatch.setattr(baselines.IdentityPolicy, "generate", interrupted)
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out),
                                    "--batch-size", "2", "--no-progress"])
    assert code == 130
    assert err.strip().splitlines() == [
        f"vector-gym eval: interrupted: 4 rows saved, re-run to resume [{out}]"
    ]
    monkeypatch.setattr(baselines.IdentityPolicy, "generate", real)
    assert run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress"])[0] == 0
    assert len(read_rows(out, latest=False)) == 20


def test_full_disk_stops_with_one_line_and_leaves_whole_rows(capsys, tmp_path, monkeypatch):
    import errno

    from vector_gym import runfile

    out = tmp_path / "run.jsonl"
    real = os.write
    state = {"n": 0}

    def write(fd, data):
        state["n"] += 1
        if state["n"] == 6:
            real(fd, bytes(data)[:10])  # a partial write, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(runfile.os, "write", write)
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress"])
    monkeypatch.setattr(runfile.os, "write", real)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "interrupted: 5 rows saved, re-run to resume" in err and "No space left" in err
    assert out.read_text(encoding="utf-8").endswith("}\n") and len(read_rows(out)) == 5
    assert run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--no-progress"])[0] == 0
    assert len(read_rows(out, latest=False)) == 20


# ---------------------------------------------------------------------- corrupt run files
ROW = {"env": "vector_gym/VectorBench-v0", "task_id": "sv_001", "policy": "identity",
       "sample_index": 0, "response": "<svg/>", "reward": 0.0,
       "report": {"reward": 0.0, "unexpected_changed_parts": [], "failure_reasons": []}}


def _corrupt_files(tmp_path):
    files = {}

    def line(name, text):
        p = tmp_path / f"{name}.jsonl"
        p.write_bytes(json.dumps(ROW).encode() + b"\n" + text + b"\n")
        files[name] = p

    line("list-task-id", json.dumps({**ROW, "task_id": ["sv_001"]}).encode())
    line("dict-policy", json.dumps({**ROW, "policy": {"a": 1}}).encode())
    line("deep", b"[" * 100_000 + b"]" * 100_000)
    line("bad-utf8", b'{"task_id": "sv_001", "response": "\xff\xfe"}')
    line("non-list-parts", json.dumps({**ROW, "report": {**ROW["report"], "unexpected_changed_parts": 7}}).encode())
    gz = tmp_path / "truncated.jsonl.gz"
    gz.write_bytes(gzip.compress((json.dumps(ROW) + "\n").encode() * 50)[:-30])
    files["truncated-gz"] = gz
    return files


@pytest.mark.parametrize("name", ["list-task-id", "dict-policy", "deep", "bad-utf8", "non-list-parts",
                                  "truncated-gz"])
def test_corrupt_run_files_give_named_errors_in_every_entry_point(capsys, tmp_path, name):
    path = _corrupt_files(tmp_path)[name]
    expect = {
        "list-task-id": "task_id: expected a string",
        "dict-policy": "policy: expected a string",
        "deep": "nested too deeply",
        "bad-utf8": "not valid UTF-8",
        "non-list-parts": "unexpected_changed_parts: expected a list",
        "truncated-gz": "truncated or corrupt gzip",
    }[name]
    with pytest.raises(CorpusError, match=expect):
        read_rows(path, repair=False)
    for argv in (["rescore", str(path), "--no-progress"], ["report", str(path), "--out", str(tmp_path / f"rep-{name}")]):
        code, _, err = run_cli(capsys, argv)
        assert code == 1 and expect in err and "Traceback" not in err, (argv, err)
    if name != "truncated-gz":
        code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(path), "--no-progress"])
        assert code == 1 and expect in err


# ------------------------------------------------------------------------- common mistakes
def test_common_mistakes_say_what_to_pass(capsys, tmp_path):
    assert run_cli(capsys, ["generate", "--n", "2", "--out", str(tmp_path / "tasks")])[0] == 0
    (one,) = sorted((tmp_path / "tasks" / "data" / "tasks").glob("sv_*.json"))[:1]
    code, out, err = run_cli(capsys, ["eval", "--policy", "identity", "--tasks", str(one), "--json",
                                      "--runs-dir", str(tmp_path / "runs"), "--no-progress"])
    assert code == 0, err
    assert json.loads(out)[0]["n"] == 1
    code, out, err = run_cli(capsys, ["eval", "--policy", "identity", "--tasks", str(tmp_path / "tasks" / "data"),
                                      "--json", "--runs-dir", str(tmp_path / "runs"), "--no-progress"])
    assert code == 0, err
    assert json.loads(out)[0]["n"] == 2
    run_dir = sorted((tmp_path / "runs").iterdir())[0]
    code, _, err = run_cli(capsys, ["rescore", str(run_dir) + "/"])
    assert code == 1 and "rescore takes one run file at a time, e.g. vector-gym rescore" in err


def test_policy_and_action_format_mismatch_is_an_error_before_any_task_runs(capsys, tmp_path):
    for argv in (["--action-format", "patch", "--policy", "oracle"], ["--policy", "patch-oracle"],
                 ["--action-format", "patch", "--policy", "patch-oracle", "--policy", "identity"]):
        code, _, err = run_cli(capsys, ["eval", *argv, "--runs-dir", str(tmp_path), "--no-progress"])
        assert code == 1 and "action format" in err, (argv, err)
    assert not list(tmp_path.rglob("*.jsonl"))


def test_scripted_on_a_suite_without_scripts_is_an_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, ["eval", "--policy", "scripted", "--runs-dir", str(tmp_path), "--no-progress"])
    assert code == 1 and "svgeditbench-v1" in err
    code, _, err = run_cli(capsys, ["eval", "--env", "svgeditbench-v1", "--policy", "scripted", "--limit", "2",
                                    "--runs-dir", str(tmp_path), "--no-progress", "--json"])
    assert code == 0, err


# ------------------------------------------------------------------------- report --out
def test_report_out_writes_only_what_it_owns(capsys, tmp_path):
    run = tmp_path / "run.jsonl"
    assert run_cli(capsys, ["eval", "--policy", "identity", "--out", str(run), "--limit", "2", "--no-progress"])[0] == 0
    mine = tmp_path / "site"
    (mine / "img").mkdir(parents=True)
    (mine / "img" / "logo.png").write_bytes(b"mine")
    (mine / "index.html").write_text("my page")
    code, _, err = run_cli(capsys, ["report", str(run), "--out", str(mine)])
    assert code == 1 and "not written by vector-gym report" in err
    assert (mine / "img" / "logo.png").read_bytes() == b"mine" and (mine / "index.html").read_text() == "my page"
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "notes.txt").write_text("keep")
    assert run_cli(capsys, ["report", str(run), "--out", str(rep)])[0] == 0
    assert run_cli(capsys, ["report", str(run), "--out", str(rep)])[0] == 0  # its own report again
    assert (rep / "notes.txt").read_text() == "keep" and (rep / "index.html").is_file()


# ------------------------------------------------------------- rescore reads the fingerprint
def test_rescore_of_a_patch_run_scores_the_patched_documents(capsys, tmp_path):
    out = tmp_path / "patch.jsonl"
    code, _, err = run_cli(capsys, ["eval", "--action-format", "patch", "--out", str(out), "--no-progress"])
    assert code == 0, err
    code, text, err = run_cli(capsys, ["rescore", str(out), "--json", "--no-progress"])
    assert code == 0, err
    (d,) = json.loads(text)
    assert d["policy"] == "patch-oracle" and d["n"] == 20 and d["full"] == 100.0 and d["valid"] == 100.0


def test_library_and_cli_runs_share_a_fingerprint_and_parity_is_part_of_it(capsys, tmp_path):
    import gymnasium

    from vector_gym.policies import make_policy
    from vector_gym.runfile import RunMismatchError

    out = tmp_path / "run.jsonl"
    env = gymnasium.make("vector_gym/VectorBench-v0")
    rollout(env, make_policy("identity", env.unwrapped.tasks), out, task_ids=["sv_001"], progress=False)
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--limit", "2", "--no-progress"])
    assert code == 0, err  # the CLI resumes what the library wrote
    code, _, err = run_cli(capsys, ["eval", "--policy", "identity", "--out", str(out), "--parity", "--no-progress"])
    assert code == 1 and "suite_options.parity: false -> true" in err
    assert issubclass(RunMismatchError, ConfigError)


def _hold_lock(path, seconds):
    """A child process holding the run file's exclusive lock for ``seconds`` (as a repairing
    reader does for the moment of its read, or a second writer for its whole run)."""
    code = textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(path)!r}, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        sys.stdout.write("locked\\n"); sys.stdout.flush()
        time.sleep({seconds})
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_writer_waits_out_a_repairing_readers_brief_lock(tmp_path):
    """A reader repairing a torn tail holds the lock for milliseconds: a writer opening the file
    at that moment waits for it instead of refusing as if a second writer were running."""
    from vector_gym.runfile import RunWriter

    out = tmp_path / "run.jsonl"
    out.write_bytes(b"")
    holder = _hold_lock(out, 0.3)
    try:
        t0 = time.monotonic()
        with RunWriter(out) as w:
            w.append({"env": "e", "task_id": "t0", "policy": "p", "sample_index": 0})
        assert time.monotonic() - t0 >= 0.1  # it did wait for the lock
    finally:
        holder.kill()
        holder.wait()
    assert [r["task_id"] for r in read_rows(out)] == ["t0"]


def test_a_second_writer_is_still_refused(tmp_path):
    from vector_gym.runfile import WRITER_LOCK_WAIT_S, RunLockedError, RunWriter

    out = tmp_path / "run.jsonl"
    out.write_bytes(b"")
    holder = _hold_lock(out, 60)
    try:
        t0 = time.monotonic()
        with pytest.raises(RunLockedError, match="one writer per run file"):
            RunWriter(out)
        assert WRITER_LOCK_WAIT_S <= time.monotonic() - t0 < WRITER_LOCK_WAIT_S + 5
    finally:
        holder.kill()
        holder.wait()
