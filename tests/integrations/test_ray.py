"""Ray scale-out on a real two-node cluster on this machine (vector_gym.integrations.ray).

One module-scoped :class:`LocalCluster`: ``ray start --head`` and one ``ray start
--address=127.0.0.1:PORT``, one CPU each, started here and stopped in a ``finally`` (also when a
test fails): every process of the cluster is ended by pid, never with ``ray stop``. Needs the
``[ray]`` extra (CI installs it); skipped, saying so, where Ray is not installed. Results are
compared field by field with in-process scoring (``vector_gym.rewards.spec.score_many``, the
suites' ``score_many``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("ray.data", reason='Ray scale-out tests need the [ray] extra: pip install -e ".[ray]"')

from vector_gym.cli import load_outcomes, main  # noqa: E402
from vector_gym.integrations import ray as vray  # noqa: E402
from vector_gym.rewards.spec import score_many  # noqa: E402
from vector_gym.rollout import read_rows  # noqa: E402
from vector_gym.suites import get_suite  # noqa: E402
from vector_gym.tasks.vector_bench import load_vector_bench  # noqa: E402

OUTCOMES = Path(__file__).resolve().parents[1] / "data" / "outcomes_sv001_020.jsonl.gz"
ROOT = Path(__file__).resolve().parents[2]


def _canon(obj):
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


@pytest.fixture(scope="module")
def cluster():
    c = vray.LocalCluster(workers=1, cpus=1, head_cpus=1)
    try:
        c.start()
        ray = c.connect()
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
        # the README's scoring-cluster settings: no log monitor on any node (log_to_driver off)
        cmds = [_cmdline(pid) for pid in c.marked_pids()]
        assert sum(b"/raylet" in cmd for cmd in cmds) == 2
        assert not any(b"log_monitor" in cmd for cmd in cmds)
        yield c
    finally:
        try:
            import ray

            ray.shutdown()
        finally:
            c.stop()
    assert c.marked_pids() == []


def _published_reference():
    rows = load_outcomes(OUTCOMES)
    by_id = {t.task_id: t for t in load_vector_bench()}
    reports = score_many([by_id[r["task_id"]] for r in rows], [r["produced_svg"] for r in rows])
    return rows, reports


def _repairgen_rows(n: int, start: int = 0):
    suite = get_suite("repairgen")
    tasks = suite.tasks("train", n=n, start=start)
    return tasks, [{"task_id": t.task_id, "model": "oracle", "produced_svg": t.target_svg} for t in tasks]


def _check_identical(scored: list[dict], rows: list[dict], reports, suite) -> None:
    by_key = {}
    for r in scored:
        k = vray.row_key(r)
        assert k not in by_key, f"row {k} came back twice"
        by_key[k] = r
    assert len(by_key) == len(rows)
    for r, rep in zip(rows, reports, strict=True):
        got = by_key[vray.row_key(r)]
        want = json.loads(json.dumps(rep.to_dict()))
        assert _canon(got["report"]) == _canon(want), r["task_id"]
        assert got["reward"] == suite.reward(rep)
        for k in ("task_id", "model", "produced_svg"):
            assert got[k] == r[k]


def test_local_cluster_joins_where_a_ray_auth_token_file_exists(tmp_path, monkeypatch):
    """A local ray.init() leaves ~/.ray/auth_token behind; ``ray start --head`` then turns token
    authentication on by itself, and worker nodes must still join (first in the module, before
    the shared cluster starts)."""
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("0123456789abcdef" * 4)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    c = vray.LocalCluster(workers=1, cpus=1, head_cpus=0, timeout_s=60)
    try:
        c.start()
        assert c._alive_nodes() == 2
    finally:
        c.stop()
    assert c.marked_pids() == []
    assert not c.temp_dir.exists()  # the nodes' session directories and logs go with them


def test_published_outcomes_identical_to_in_process(cluster):
    rows, reports = _published_reference()
    assert len(rows) == 680
    scored = list(vray.decode_rows(vray.score_dataset(vray.read_outcomes(OUTCOMES), "vector_bench")))
    _check_identical(scored, rows, reports, get_suite("vector_bench"))
    # Vector-Bench data README / spec section 13: 10 of the 680 published outcomes pass.
    assert sum(r["report"]["reward"] for r in scored) == 10
    # stale verdict fields of the stored layout are replaced by the report, carried ones kept
    one = next(r for r in scored if r["task_id"] == "sv_001")
    assert "status" not in one and "expected_changes" in one and "name" in one


def test_repairgen_oracle_outputs_identical_to_in_process(cluster):
    # Tasks are regenerated on the workers from their ids. The 10,000-task check (too slow for
    # CI on two shared cores) is benchmarks/ray_scaling.py --repairgen 10000.
    tasks, rows = _repairgen_rows(300)
    reports = score_many(tasks, [r["produced_svg"] for r in rows])
    scored = list(vray.decode_rows(vray.score_dataset(vray.from_rows(rows), "repairgen")))
    _check_identical(scored, rows, reports, get_suite("repairgen"))
    assert all(r["report"]["reward"] == 1.0 for r in scored)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _scorer_actor_pids(c: vray.LocalCluster) -> list[int]:
    return [pid for pid in c.marked_pids() if b"MapBatches(_ScoreBatch)" in _cmdline(pid)]


def _replicated_outcomes(copies: int) -> list[dict]:
    rows = load_outcomes(OUTCOMES)
    return [{**r, "sample_index": k} for k in range(copies) for r in rows]


def test_killed_worker_every_row_exactly_once(cluster, tmp_path):
    rows = _replicated_outcomes(3)  # 2,040 rows
    killed: list[int] = []

    def kill_one(name, n):
        if killed:
            return
        pids = _scorer_actor_pids(cluster)
        assert pids, "no scorer actor process found"
        os.kill(pids[-1], signal.SIGKILL)
        killed.append(pids[-1])

    result = vray.score_run(vray.from_rows(rows, rows_per_block=60), "vector_bench", tmp_path / "run",
                            partition_rows=100, batch_size=20, on_partition=kill_one)
    assert killed and not Path(f"/proc/{killed[0]}").exists()
    assert result.scored == result.total == len(rows) and result.skipped == 0
    out = vray.read_run(tmp_path / "run")
    keys = [vray.row_key(r) for r in out]
    assert len(keys) == len(set(keys)) == len(rows)
    assert set(keys) == {vray.row_key(r) for r in rows}
    by_id = {t.task_id: t for t in load_vector_bench()}
    want = score_many([by_id[r["task_id"]] for r in rows], [r["produced_svg"] for r in rows])
    _check_identical(out, rows, want, get_suite("vector_bench"))


_DRIVER = textwrap.dedent(
    """
    import os, signal, sys
    from vector_gym.integrations import ray as vray
    from vector_gym.suites import get_suite
    address, out, kill_after = sys.argv[1], sys.argv[2], int(sys.argv[3])
    vray.connect(address, loopback=True)
    tasks = get_suite("repairgen").tasks("train", n=400)
    rows = [{"task_id": t.task_id, "model": "oracle", "produced_svg": t.target_svg} for t in tasks]
    seen = []
    def on_partition(name, n):
        seen.append(name)
        if kill_after and len(seen) == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)   # the driver dies right after a partition
    r = vray.score_run(vray.from_rows(rows, rows_per_block=50), "repairgen", out,
                       partition_rows=100, batch_size=25, on_partition=on_partition)
    print("RESULT", r.scored, r.skipped, r.total)
    """
)


def _driver(cluster, out, kill_after):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", _DRIVER, cluster.address, str(out), str(kill_after)],
                          capture_output=True, text=True, timeout=400, env=env)


def test_killed_driver_rerun_scores_only_unfinished_keys(cluster, tmp_path):
    out = tmp_path / "run"
    first = _driver(cluster, out, kill_after=2)
    assert first.returncode == -signal.SIGKILL, first.stderr[-2000:]
    finished = vray.finished_keys(out)
    assert len(finished) == 200  # two partitions of 100 recorded before the kill
    # A partition renamed into place but never recorded (a kill between the two) is an orphan.
    (out / "part-000099.jsonl").write_text('{"task_id": "orphan"}\n')
    second = _driver(cluster, out, kill_after=0)
    assert second.returncode == 0, second.stderr[-2000:]
    scored, skipped, total = map(int, second.stdout.split("RESULT")[1].split())
    assert (scored, skipped, total) == (200, 200, 400)
    assert not (out / "part-000099.jsonl").exists()
    rows = vray.read_run(out)
    keys = [vray.row_key(r) for r in rows]
    assert len(keys) == len(set(keys)) == 400
    # the re-run's partitions hold exactly the keys the first run had not finished
    manifest = [json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()[1:]]
    rerun_keys = {k for p in manifest[2:] for k in p["keys"]}
    assert rerun_keys.isdisjoint(finished) and len(rerun_keys) == 200
    tasks, want_rows = _repairgen_rows(400)
    reports = score_many(tasks, [r["produced_svg"] for r in want_rows])
    _check_identical(rows, want_rows, reports, get_suite("repairgen"))


def _eval_row_keys(tmp_path) -> set[str]:
    from vector_gym.rollout import read_rows

    f = tmp_path / "local.jsonl"
    assert main(["eval", "--policy", "oracle", "--limit", "2", "--out", str(f), "--no-progress",
                 "--json"]) == 0
    return set(read_rows(f)[0])


def test_rollout_dataset_oracle_rows_read_by_rescore_and_report(cluster, tmp_path, capsys):
    ds = vray.rollout_dataset(None, "vector_bench", "oracle", batch_size=4)
    path = tmp_path / "oracle.jsonl"
    assert vray.write_jsonl(ds, path) == 20
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert set(rows[0]) == _eval_row_keys(tmp_path)
    assert all(r["report"]["reward"] == 1.0 and r["reward"] == pytest.approx(1.2) for r in rows)
    assert {r["env"] for r in rows} == {"vector_gym/VectorBench-v0"}
    capsys.readouterr()
    assert main(["rescore", str(path), "--json", "--no-progress"]) == 0
    (summary,) = json.loads(capsys.readouterr().out)
    assert summary["policy"] == "oracle" and summary["n"] == 20 and summary["full"] == 100.0
    assert main(["report", str(path), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "index.html").exists()


def test_rollout_dataset_tiny_transformers_model_on_cpu_actors(cluster, tmp_path, capsys):
    sys.path.insert(0, str(ROOT / "tests"))
    from _tiny_models import build_tiny_lm

    model = build_tiny_lm(tmp_path / "tiny")
    tasks = load_vector_bench()[:3]
    ds = vray.rollout_dataset(tasks, "vector_bench", f"hf:{model}", n=2, batch_size=3,
                              concurrency=1, policy_options={"max_tokens": 6})
    path = tmp_path / "tiny.jsonl"
    assert vray.write_jsonl(ds, path) == 6
    rows = sorted((json.loads(x) for x in path.read_text().splitlines()),
                  key=lambda r: (r["task_id"], r["sample_index"]))
    assert [(r["task_id"], r["sample_index"]) for r in rows] == [
        (t.task_id, i) for t in tasks for i in range(2)]
    assert all(r["policy"] == f"hf:{model}" and r["max_tokens"] == 6 for r in rows)
    assert all(r["completion_tokens"] <= 6 and r["report"]["reward"] == 0.0 for r in rows)
    capsys.readouterr()
    assert main(["rescore", str(path), "--json", "--no-progress"]) == 0
    (summary,) = json.loads(capsys.readouterr().out)
    assert summary["n"] == 6 and summary["full"] == 0.0
    assert main(["report", str(path), "--out", str(tmp_path / "report")]) == 0


def test_cli_rescore_ray_prints_the_local_table(cluster, tmp_path, capsys):
    assert main(["rescore", str(OUTCOMES), "--no-progress", "--out", str(tmp_path / "a.jsonl")]) == 0
    local = capsys.readouterr().out
    assert main(["rescore", str(OUTCOMES), "--no-progress", "--ray", cluster.address,
                 "--out", str(tmp_path / "b.jsonl")]) == 0
    assert capsys.readouterr().out == local
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


def test_cli_eval_ray_same_table_and_resumes(cluster, tmp_path, capsys):
    args = ["eval", "--policy", "oracle", "--policy", "identity", "--limit", "6", "--no-progress"]
    assert main([*args, "--runs-dir", str(tmp_path / "local")]) == 0
    local = capsys.readouterr().out
    ray_dir = tmp_path / "ray"
    assert main([*args, "--runs-dir", str(ray_dir), "--ray", cluster.address]) == 0
    assert capsys.readouterr().out == local
    files = sorted(ray_dir.rglob("*.jsonl"))
    local_files = sorted((tmp_path / "local").rglob("*.jsonl"))
    # same run fingerprint as the local eval: same fingerprinted file names and run ids
    assert [f.name for f in files] == [f.name for f in local_files]
    assert [f.name.split("-")[0] for f in files] == ["identity", "oracle"]
    assert [{r["run_id"] for r in read_rows(f)} for f in files] == [
        {r["run_id"] for r in read_rows(f)} for f in local_files]
    before = [f.read_text() for f in files]
    assert main([*args, "--runs-dir", str(ray_dir), "--ray", cluster.address]) == 0  # resume
    assert capsys.readouterr().out == local
    assert [f.read_text() for f in files] == before  # nothing redone
