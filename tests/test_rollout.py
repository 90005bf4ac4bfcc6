"""Resumable rollouts: one row per outcome, torn-line repair, no redo, failed rows retried."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import gymnasium
import pytest

from vector_gym.envs.base import EditEnv
from vector_gym.envs.wrappers import wrap
from vector_gym.errors import ConfigError, CorpusError, UnknownTaskError
from vector_gym.policies.base import Completion
from vector_gym.rollout import ROW_KEY_FIELDS, env_name, read_rows, rollout, row_key
from vector_gym.tasks.task import Task

TASKS = [
    Task(f"t{i}", "toy", f"make it {i}", f"<svg>{i}</svg>", f"<svg>{i + 1}</svg>") for i in range(5)
]


@dataclass(frozen=True)
class ToyReport:
    reward: float
    failure_reasons: tuple[str, ...]

    def to_dict(self):
        return {"reward": self.reward, "failure_reasons": list(self.failure_reasons)}


class ExactScorer:
    def score_response(self, task, response):
        ok = response == task.target_svg
        return ToyReport(1.0 if ok else 0.0, () if ok else ("mismatch",))


class CountingPolicy:
    """Answers the target for even task numbers, the source otherwise; counts observations seen."""

    name = "counting"

    def __init__(self):
        self.seen: list[str] = []
        self.calls = 0

    def generate(self, observations, n=1):
        self.calls += 1
        out = []
        for obs in observations:
            self.seen.append(obs["task_id"])
            i = int(obs["task_id"][1:])
            text = f"<svg>{i + 1}</svg>" if i % 2 == 0 else obs["svg"]
            out.append(
                [
                    Completion(
                        text, completion_tokens=7 + k, finish_reason="length" if k else "stop"
                    )
                    for k in range(n)
                ]
            )
        return out


def make_env():
    return EditEnv(TASKS, ExactScorer())


def test_rows_have_the_documented_fields(tmp_path):
    out = tmp_path / "runs" / "r.jsonl"
    rows = rollout(make_env(), CountingPolicy(), out, batch_size=2, progress=False)
    assert len(rows) == 5
    assert list(rows[0]) == [
        "env",
        "task_id",
        "policy",
        "sample_index",
        "response",
        "prompt_tokens",
        "completion_tokens",
        "finish_reason",
        "truncated",
        "max_tokens",
        "elapsed_s",
        "reward",
        "report",
        "run_id",
        "run",
    ]
    assert [r["reward"] for r in rows] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert rows[1]["report"] == {"reward": 0.0, "failure_reasons": ["mismatch"]}
    assert rows[0]["env"] == "EditEnv" and rows[0]["policy"] == "counting"
    assert rows[0]["completion_tokens"] == 7 and rows[0]["truncated"] is False
    assert rows[0]["max_tokens"] is None  # the policy has no token_budget
    assert all(r["elapsed_s"] >= 0 for r in rows)
    assert read_rows(out) == rows  # the file holds exactly the returned rows


def test_batches_and_samples(tmp_path):
    pol = CountingPolicy()
    rows = rollout(make_env(), pol, tmp_path / "r.jsonl", batch_size=2, n=3, progress=False)
    assert pol.calls == 3  # ceil(5 / 2)
    assert len(rows) == 15
    assert [(r["task_id"], r["sample_index"]) for r in rows[:4]] == [
        ("t0", 0),
        ("t0", 1),
        ("t0", 2),
        ("t1", 0),
    ]
    assert rows[1]["finish_reason"] == "length" and rows[1]["truncated"] is True


def test_rerun_resumes_without_policy_calls(tmp_path):
    out = tmp_path / "r.jsonl"
    first = rollout(make_env(), CountingPolicy(), out, progress=False)
    pol = CountingPolicy()
    again = rollout(make_env(), pol, out, progress=False)
    assert pol.calls == 0 and again == first
    assert len(out.read_text().splitlines()) == 5


def test_killed_run_loses_only_the_row_in_flight(tmp_path):
    out = tmp_path / "r.jsonl"
    rollout(make_env(), CountingPolicy(), out, batch_size=1, progress=False)
    data = out.read_bytes()
    lines = data.split(b"\n")
    keep = b"\n".join(lines[:2]) + b"\n"
    torn = keep + lines[2][: len(lines[2]) // 2]  # killed while writing row 3
    out.write_bytes(torn)

    pol = CountingPolicy()
    rows = rollout(make_env(), pol, out, batch_size=1, progress=False)
    assert pol.seen == ["t2", "t3", "t4"]  # finished rows t0, t1 are not redone
    assert out.read_bytes().startswith(keep)  # completed rows untouched
    keys = [row_key(r) for r in read_rows(out)]
    assert len(keys) == len(set(keys)) == 5
    assert [r["task_id"] for r in rows] == ["t0", "t1", "t2", "t3", "t4"]


def test_rows_are_fsynced_once_per_batch(tmp_path, monkeypatch):
    import vector_gym.runfile as runfile

    synced: list[int] = []
    real = runfile.os.fsync
    out = tmp_path / "r.jsonl"

    def counting_fsync(fd):
        synced.append(out.read_bytes().count(b"\n"))  # whole rows on disk at each fsync
        real(fd)

    monkeypatch.setattr(runfile.os, "fsync", counting_fsync)
    rollout(make_env(), CountingPolicy(), out, batch_size=2, progress=False)
    assert synced == [2, 4, 5]  # batches t0-t1, t2-t3, t4: one fsync each, after its rows


KILL_MID_BATCH = """
import os, signal, sys
sys.path.insert(0, {tests!r})
import vector_gym.runfile as runfile
from test_rollout import CountingPolicy, make_env
from vector_gym.rollout import rollout

real = runfile.RunWriter.append
def append(self, row, **kw):
    if self.written == 3:  # rows t0-t2 of the batch written, none fsynced yet
        os.kill(os.getpid(), signal.SIGKILL)
    return real(self, row, **kw)
runfile.RunWriter.append = append
rollout(make_env(), CountingPolicy(), {out!r}, batch_size=5, progress=False)
"""


def test_a_run_killed_inside_a_batch_keeps_the_rows_it_wrote(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path / "r.jsonl"
    script = tmp_path / "kill.py"
    script.write_text(KILL_MID_BATCH.format(tests=str(Path(__file__).parent), out=str(out)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, timeout=120)
    assert p.returncode == -signal.SIGKILL, p.stderr
    assert [r["task_id"] for r in read_rows(out)] == ["t0", "t1", "t2"]
    pol = CountingPolicy()
    rows = rollout(make_env(), pol, out, batch_size=5, progress=False)
    assert pol.seen == ["t3", "t4"]  # the written rows are not redone
    assert [r["task_id"] for r in rows] == ["t0", "t1", "t2", "t3", "t4"]
    keys = [row_key(r) for r in read_rows(out, latest=False)]
    assert len(keys) == len(set(keys)) == 5


class FlakyPolicy(CountingPolicy):
    """Like CountingPolicy, but the request of every task in ``down`` fails (connection refused)."""

    name = "counting"  # the same policy as CountingPolicy, so its rows share keys

    def __init__(self, down):
        super().__init__()
        self.down = set(down)

    def generate(self, observations, n=1):
        out = super().generate(observations, n)
        return [
            [Completion("", finish_reason="error") for _ in row]
            if o["task_id"] in self.down
            else row
            for o, row in zip(observations, out, strict=True)
        ]


def test_resume_retries_failed_rows_and_keeps_finished_ones(tmp_path):
    from vector_gym.summary import summarize

    out = tmp_path / "r.jsonl"
    first = rollout(make_env(), FlakyPolicy({"t0", "t3"}), out, batch_size=2, progress=False)
    assert [r["finish_reason"] for r in first] == ["error", "stop", "stop", "error", "stop"]
    (s,) = summarize(first)
    assert (s.full, s.err) == (0.4, 0.4)  # t0 would pass: it is counted as an error, not a 0
    before = out.read_bytes()

    pol = CountingPolicy()  # the server is back
    again = rollout(make_env(), pol, out, batch_size=2, progress=False)
    assert pol.seen == ["t0", "t3"]  # only the failed rows are attempted again
    assert out.read_bytes().startswith(before)  # append-only: earlier rows untouched
    raw = read_rows(out, latest=False)
    assert [r["task_id"] for r in raw] == ["t0", "t1", "t2", "t3", "t4", "t0", "t3"]
    assert [r["task_id"] for r in read_rows(out)] == ["t0", "t1", "t2", "t3", "t4"]
    assert read_rows(out) == again  # the newest row of each key, in task order
    assert [r["reward"] for r in again] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert [r["finish_reason"] for r in again] == ["stop"] * 5
    (s,) = summarize(raw)  # summaries count the newest row per key
    assert (s.n, s.full, s.err) == (5, 0.6, 0.0)

    # all finished now: a third run calls nothing and appends nothing
    pol = CountingPolicy()
    assert rollout(make_env(), pol, out, progress=False) == again and pol.calls == 0
    assert len(read_rows(out, latest=False)) == 7


def test_a_row_that_fails_again_stays_failed(tmp_path):
    out = tmp_path / "r.jsonl"
    rollout(make_env(), FlakyPolicy({"t1"}), out, n=2, progress=False)
    pol = FlakyPolicy({"t1"})
    rows = rollout(make_env(), pol, out, n=2, progress=False)
    assert pol.seen == ["t1"]
    assert [(r["task_id"], r["sample_index"], r["finish_reason"]) for r in rows[2:4]] == [
        ("t1", 0, "error"),
        ("t1", 1, "error"),
    ]
    assert len(read_rows(out, latest=False)) == 12 and len(read_rows(out)) == 10


def test_rows_record_the_policy_token_budget(tmp_path):
    class Budgeted(CountingPolicy):
        def token_budget(self, observation):
            return 100 + int(observation["task_id"][1:])

    rows = rollout(make_env(), Budgeted(), tmp_path / "r.jsonl", batch_size=2, progress=False)
    assert [r["max_tokens"] for r in rows] == [100, 101, 102, 103, 104]


def test_progress_bar_with_eta_on_stderr(tmp_path, capsys):
    rollout(make_env(), CountingPolicy(), tmp_path / "r.jsonl", batch_size=2, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert "counting on EditEnv" in err  # the bar's description: policy on env
    # tqdm's default format: "n/total [elapsed<remaining, rate]"; remaining is the ETA
    assert re.search(r"\b5/5 \[\d\d:\d\d<\d\d:\d\d", err)
    assert re.search(r"\b2/5 \[", err)  # updated after the first batch of two
    # no bar when disabled, or when nothing is left to do
    rollout(make_env(), CountingPolicy(), tmp_path / "s.jsonl", progress=False)
    rollout(make_env(), CountingPolicy(), tmp_path / "r.jsonl", progress=True)
    assert capsys.readouterr().err == ""


def test_torn_last_line_is_truncated_and_reported_rows_are_complete(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text(
        json.dumps({"env": "e", "task_id": "a", "policy": "p", "sample_index": 0})
        + '\n{"env": "e", "ta'
    )
    rows = read_rows(out)
    assert [r["task_id"] for r in rows] == ["a"]
    assert out.read_text().endswith("}\n")
    # a torn line with no complete line before it empties the file
    out.write_text('{"env": "e"')
    assert read_rows(out) == [] and out.read_bytes() == b""
    # a final line that ends in a newline was written whole: not JSON is an error, never cut
    out.write_text('{"task_id": "a"}\n{"task_id": \n')
    with pytest.raises(CorpusError, match=r"r\.jsonl:2: not valid JSON"):
        read_rows(out)
    assert out.read_text() == '{"task_id": "a"}\n{"task_id": \n'


def test_corrupt_middle_line_raises(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text('{"task_id": "a"}\nnot json\n{"task_id": "b"}\n')
    with pytest.raises(CorpusError, match=r"r\.jsonl:2"):
        read_rows(out)


def test_missing_file_reads_empty(tmp_path):
    assert read_rows(tmp_path / "none.jsonl") == []


def test_rows_of_other_policies_and_envs_are_kept_apart(tmp_path):
    out = tmp_path / "r.jsonl"
    rollout(make_env(), CountingPolicy(), out, progress=False)

    class Other(CountingPolicy):
        name = "other"

    pol = Other()
    rows = rollout(make_env(), pol, out, progress=False)
    assert len(pol.seen) == 5 and {r["policy"] for r in rows} == {"other"}
    assert len(read_rows(out)) == 10


def test_task_subset_and_unknown_task(tmp_path):
    pol = CountingPolicy()
    rows = rollout(make_env(), pol, tmp_path / "r.jsonl", task_ids=["t3", "t1"], progress=False)
    assert [r["task_id"] for r in rows] == ["t3", "t1"] and pol.seen == ["t3", "t1"]
    with pytest.raises(UnknownTaskError):
        rollout(make_env(), pol, tmp_path / "r.jsonl", task_ids=["zz"], progress=False)


def test_observations_carry_task_id_and_no_hidden_fields(tmp_path):
    class Spy(CountingPolicy):
        def generate(self, observations, n=1):
            for obs in observations:
                assert set(obs) == {"instruction", "svg", "task_id", "family"}
            return super().generate(observations, n)

    rollout(make_env(), Spy(), tmp_path / "r.jsonl", progress=False)


def test_wrong_number_of_completions_raises(tmp_path):
    class Short(CountingPolicy):
        def generate(self, observations, n=1):
            return super().generate(observations, n)[:-1]

    with pytest.raises(RuntimeError, match="expected 2 lists"):
        rollout(make_env(), Short(), tmp_path / "r.jsonl", batch_size=2, progress=False)


@pytest.mark.parametrize("kw", [{"batch_size": 0}, {"n": 0}])
def test_bad_arguments(tmp_path, kw):
    with pytest.raises(ConfigError):
        rollout(make_env(), CountingPolicy(), tmp_path / "r.jsonl", progress=False, **kw)


def test_env_must_be_an_edit_env(tmp_path):
    with pytest.raises(ConfigError, match="EditEnv"):
        rollout(
            gymnasium.make("CartPole-v1"), CountingPolicy(), tmp_path / "r.jsonl", progress=False
        )


def test_env_name_prefers_the_registered_id():
    import vector_gym  # noqa: F401

    assert ROW_KEY_FIELDS == ("env", "task_id", "policy", "sample_index")
    assert env_name(make_env()) == "EditEnv"
    from vector_gym.envs.vector_bench import VectorBenchEnv

    assert VectorBenchEnv.env_id == "vector_gym/VectorBench-v0"


def test_example_baseline_rollout_prints_table_2(tmp_path, capsys):
    """examples/baseline_rollout.py: the four controls through rollout (Vector-Bench Table 2)."""
    import runpy
    from pathlib import Path

    script = Path(__file__).parents[1] / "examples" / "baseline_rollout.py"
    ns = runpy.run_path(str(script), run_name="example")
    ns["main"](str(tmp_path))
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "Policy",
        "identity",
        "oracle",
        "protected-mutation",
        "malformed-target",
    ]
    assert lines[2].split()[1:3] == ["20", "100.0"]  # oracle: 100 full
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "identity.jsonl",
        "malformed-target.jsonl",
        "oracle.jsonl",
        "protected-mutation.jsonl",
    ]


# ------------------------------------------------------------------ multi-turn episodes
class SecondTimeLucky:
    """Answers prose (no SVG) on a first turn, the target once the env gives feedback."""

    name = "second-time"

    def __init__(self, fail_turn2=()):
        self.batches: list[list[dict]] = []
        self.fail_turn2 = set(fail_turn2)

    def generate(self, observations, n=1):
        self.batches.append([dict(o) for o in observations])
        out = []
        for obs in observations:
            i = int(obs["task_id"][1:])
            if not obs.get("feedback"):
                out.append([Completion("I would fix it.", 5, 3, "stop") for _ in range(n)])
            elif obs["task_id"] in self.fail_turn2:
                out.append([Completion("", None, None, "error")])
            else:
                out.append([Completion(f"<svg>{i + 1}</svg>", 9, 4, "stop")])
        return out


def test_multi_turn_rows_play_each_episode_to_its_end(tmp_path):
    """Invalid first answer, target second: 2 turns, terminated, return = R_2 = 1 (EditEnv.step)."""
    env = wrap(EditEnv(TASKS, ExactScorer()), max_turns=3)
    pol = SecondTimeLucky()
    rows = rollout(env, pol, tmp_path / "r.jsonl", batch_size=10, n=2, progress=False)
    assert len(rows) == 10 and len(pol.batches) == 2
    first, second = pol.batches
    assert len(first) == 5 and all(o["feedback"] == "" for o in first)
    # turn 2: 10 episodes (5 tasks x 2 samples), each with the editor feedback and current SVG
    assert len(second) == 10
    assert second[0]["feedback"] == "The document could not be read."
    assert second[0]["svg"] == TASKS[0].source_svg  # no SVG in the answer: document unchanged
    assert set(second[0]) == {"instruction", "svg", "feedback", "task_id", "family"}
    r = rows[0]
    assert r["turns"] == 2 and r["terminated"] is True
    assert r["responses"] == ["I would fix it.", "<svg>1</svg>"] and r["response"] == "<svg>1</svg>"
    assert r["answer_rewards"] == [0.0, 1.0] and r["reward"] == 1.0
    assert r["report"] == {"reward": 1.0, "failure_reasons": []}
    assert (r["prompt_tokens"], r["completion_tokens"], r["finish_reason"]) == (14, 7, "stop")
    assert read_rows(tmp_path / "r.jsonl") == rows
    again = SecondTimeLucky()
    assert rollout(env, again, tmp_path / "r.jsonl", n=2, progress=False) == rows
    assert again.batches == []


def test_multi_turn_truncates_after_k_answers_and_failed_turns_are_retried(tmp_path):
    env = wrap(EditEnv(TASKS, ExactScorer()), max_turns=3)
    rows = rollout(env, CountingPolicy(), tmp_path / "c.jsonl", batch_size=2, progress=False)
    # odd tasks answer their (current) SVG every time: three answers, no pass
    assert [r["turns"] for r in rows] == [1, 3, 1, 3, 1]
    assert rows[1]["terminated"] is False and rows[1]["answer_rewards"] == [0.0, 0.0, 0.0]
    assert rows[1]["reward"] == 0.0 and rows[0]["reward"] == 1.0
    out = tmp_path / "e.jsonl"
    rows = rollout(env, SecondTimeLucky(fail_turn2={"t3"}), out, progress=False)
    assert rows[3]["turns"] == 2 and rows[3]["finish_reason"] == "error"  # the episode stops
    pol = SecondTimeLucky()
    rows = rollout(env, pol, out, progress=False)
    assert [len(b) for b in pol.batches] == [1, 1]  # only t3 is played again
    assert rows[3]["terminated"] is True and rows[3]["reward"] == 1.0


def test_patch_format_observations_name_the_action_format(tmp_path):
    class Spy(CountingPolicy):
        def generate(self, observations, n=1):
            for obs in observations:
                assert obs["action_format"] == "patch"
            return super().generate(observations, n)

    rows = rollout(
        wrap(EditEnv(TASKS, ExactScorer()), action_format="patch"),
        Spy(),
        tmp_path / "r.jsonl",
        progress=False,
    )
    assert "turns" not in rows[0]  # single-turn rows keep their fields
