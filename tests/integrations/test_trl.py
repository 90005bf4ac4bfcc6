"""TRL hooks: reward functions in GRPOTrainer's protocol and a 2-step GRPO run on CPU.

The model is a tiny random Llama and the tokenizer is trained in the test
(``tests/_tiny_models.py``): nothing is downloaded.
"""

from __future__ import annotations

import pickle
import time

import pytest

from vector_gym.integrations.trl import (
    build_dataset,
    completion_text,
    repair_progress_reward_func,
    spec_reward_func,
)
from vector_gym.policies.templates import VECTOR_BENCH
from vector_gym.tasks.vector_bench import load_vector_bench


@pytest.fixture(scope="module")
def tasks():
    return load_vector_bench()[:2]


class _Counting:
    """Wraps a reward function, counting calls and keeping the trainer's last keyword arguments."""

    def __init__(self, inner):
        self.inner = inner
        self.__name__ = inner.__name__
        self.calls = 0
        self.last_kwargs = None

    def __call__(self, **kwargs):
        self.calls += 1
        self.last_kwargs = kwargs
        return self.inner(**kwargs)


def _conv(text):
    return [{"role": "assistant", "content": text}]


def test_dataset_rows_are_conversational_prompts(tasks):
    ds = build_dataset(tasks)
    assert ds.column_names == ["prompt", "task_id", "family"]
    assert ds["task_id"] == ["sv_001", "sv_002"]
    assert ds[0]["prompt"] == VECTOR_BENCH.messages(
        {"instruction": tasks[0].instruction, "svg": tasks[0].source_svg}
    )
    assert tasks[0].target_svg not in str(ds[0]["prompt"])


def test_reward_functions_standard_and_conversational(tasks):
    """spec-reward.md §11: the target passes all gates (1); a cut-off document fails validity (0)."""
    spec = spec_reward_func(tasks)
    progress = repair_progress_reward_func(tasks)
    oracle, broken = tasks[0].target_svg, tasks[0].target_svg[: len(tasks[0].target_svg) // 2]
    ids = ["sv_001", "sv_001", "sv_001", "not_in_corpus"]
    assert spec(completions=[oracle, broken, tasks[0].source_svg, oracle], task_id=ids) == [
        1.0,
        0.0,
        0.0,
        None,
    ]
    assert spec(
        completions=[_conv(oracle), _conv(broken), _conv(""), _conv(oracle)], task_id=ids
    ) == [
        1.0,
        0.0,
        0.0,
        None,
    ]
    dense = progress(completions=[oracle, broken, tasks[0].source_svg, "x"], task_id=ids)
    assert dense[0] == 1.0 and dense[1] == 0.0 and dense[3] is None
    # The unrepaired source makes no progress on its own requested edits.
    assert dense[2] == 0.0
    assert (spec.__name__, progress.__name__) == ("spec_reward", "repair_progress")
    clone = pickle.loads(pickle.dumps(spec))
    assert clone.__name__ == "spec_reward" and clone(completions=[oracle], task_id=["sv_001"]) == [
        1.0
    ]
    assert (
        completion_text(
            [{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
        )
        == "ab"
    )


def test_odd_inputs_give_floats_or_none(tasks):
    """Odd completions and task ids never raise: a float in [0, 1] or None per completion."""
    spec = spec_reward_func(tasks)
    oracle = tasks[0].target_svg
    parts = [{"role": "assistant", "content": [{"type": "text", "text": oracle}]}]
    completions = [oracle, _conv(oracle), parts, None, "", [], 5, oracle.encode(), oracle, oracle]
    ids = ["sv_001"] * 8 + [["sv_001"], None]
    assert spec(completions=completions, task_id=ids, environments=None, extra=1) == [
        1.0,
        1.0,
        1.0,  # multimodal content parts are read
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,  # bytes are not a completion format
        None,  # unhashable task id
        None,
    ]


def test_diagnostics_go_through_log_extra_and_log_metric(tasks):
    spec = spec_reward_func(tasks)
    extra, metrics = {}, {}
    oracle = tasks[1].target_svg
    spec(
        completions=[oracle, "no svg", oracle],
        task_id=["sv_002", "sv_002", "elsewhere"],
        log_extra=lambda column, values: extra.__setitem__(column, values),
        log_metric=lambda name, value: metrics.__setitem__(name, value),
        trainer_state=None,
        some_future_argument=1,
    )
    assert extra["spec_reward/failure_reasons"] == ["", "invalid_svg", None]
    assert extra["spec_reward/validity_pass"] == [True, False, None]
    assert extra["spec_reward/specification_pass"] == [True, False, None]
    assert metrics["spec_reward/validity_pass_rate"] == 0.5
    assert metrics["spec_reward/specification_pass_rate"] == 0.5


def test_grpo_two_steps_on_cpu(tiny_lm_dir, tasks, tmp_path):
    """GRPOTrainer (trl 1.16) calls our reward functions; called with its kwargs they give 1 / 0."""
    from trl import GRPOConfig, GRPOTrainer

    spec = _Counting(spec_reward_func(tasks))
    progress = _Counting(repair_progress_reward_func(tasks))
    config = GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=2,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8,
        learning_rate=1e-3,
        reward_weights=[1.0, 0.5],
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        seed=0,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=str(tiny_lm_dir),
        reward_funcs=[spec, progress],
        args=config,
        train_dataset=build_dataset(tasks),
    )
    t0 = time.perf_counter()
    trainer.train()
    elapsed = time.perf_counter() - t0
    print(f"GRPO 2 steps: {elapsed:.1f}s")

    assert trainer.state.global_step == 2
    assert spec.calls == 2 and progress.calls == 2  # one generation batch per step
    logged = {k for entry in trainer.state.log_history for k in entry}
    assert {"rewards/spec_reward/mean", "rewards/repair_progress/mean"} <= logged
    assert "spec_reward/validity_pass_rate" in logged  # our log_metric reached the trainer's logs

    kwargs = dict(spec.last_kwargs)
    assert {
        "prompts",
        "completions",
        "completion_ids",
        "task_id",
        "trainer_state",
        "log_extra",
        "log_metric",
    } <= set(kwargs)
    assert len(kwargs["completions"]) == 2 and isinstance(
        kwargs["completions"][0], list
    )  # conversational
    tid = kwargs["task_id"][0]
    target = next(t.target_svg for t in tasks if t.task_id == tid)
    kwargs["completions"] = [_conv(target), _conv(target[:-40])]
    kwargs["task_id"] = [tid, tid]
    assert spec.inner(**kwargs) == [1.0, 0.0]


def test_scoring_in_worker_processes_matches_in_process(tasks):
    """processes=2 sends the batch through score_many's process pool; the rewards are the same."""
    oracle, source = tasks[1].target_svg, tasks[1].source_svg
    # Distinct texts (trailing prose after </svg> is ignored by extraction), so nothing is cached.
    completions = [f"{oracle}\npool {k}" for k in range(3)] + [
        f"{source}\npool {k}" for k in range(3)
    ]
    ids = ["sv_002"] * 6
    spec = spec_reward_func(tasks, processes=2)
    pooled = spec(completions=completions, task_id=ids)
    assert pooled == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    progress = repair_progress_reward_func(tasks)(completions=completions, task_id=ids)
    assert progress[:3] == [1.0, 1.0, 1.0] and progress[3:] == [0.0, 0.0, 0.0]

    # The pool is kept between calls (its workers keep their scorers), never pickled,
    # and a broken pool falls back to scoring in this process.
    pool = spec._executor
    assert pool is not None
    again = [f"{source}\nagain {k}" for k in range(3)]
    assert spec(completions=again, task_id=ids[:3]) == [0.0, 0.0, 0.0]
    assert spec._executor is pool
    assert pickle.loads(pickle.dumps(spec))._executor is None

    from concurrent.futures.process import BrokenProcessPool

    def broken(*args, **kwargs):
        raise BrokenProcessPool("a worker was killed")

    pool.submit = broken
    fallback = [f"{oracle}\nfallback {k}" for k in range(3)]
    assert spec(completions=fallback, task_id=ids[:3]) == [1.0, 1.0, 1.0]
    assert spec._executor is None


def test_spec_reward_refuses_svgeditbench_instead_of_scoring_zero():
    """Issue 9: SVGEditBench tasks used to be scored by the specification reward (hidden v1
    targets scored 0.0, silently); a raster suite is now refused with a clear error."""
    from vector_gym.errors import ConfigError
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v1

    with pytest.raises(ConfigError, match="svgeditbench_v1"):
        spec_reward_func(load_svgeditbench_v1(kinds=("ChangeColor",))[:3])
    with pytest.raises(ConfigError, match="svgeditbench_v2"):
        repair_progress_reward_func("svgeditbench_v2")


def test_spec_reward_of_the_repairgen_env_resolves_every_generated_id():
    """Issue 9: spec_reward_func(gymnasium.make("vector_gym/RepairGen-v0")) saw a corpus of one
    task and returned None for every other generated task."""
    import gymnasium

    import vector_gym  # noqa: F401
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator

    env = gymnasium.make("vector_gym/RepairGen-v0")
    spec = spec_reward_func(env)
    others = list(RepairGenerator(RepairGenConfig(split="train"), seed=0).tasks(3, start=100))
    rewards = spec(completions=[t.target_svg for t in others], task_id=[t.task_id for t in others])
    assert rewards == [1.0, 1.0, 1.0]
    assert spec(completions=["x"], task_id=["sv_001"]) == [None]
