"""TRL: reward functions over every suite, the dataset builder, the tool environment, and 2-step
GRPOTrainer runs on CPU (spec suite, raster suite, tool environment).

The models are tiny random Llamas with tokenizers trained in the test (``tests/_tiny_models.py``,
``_tool_model.py``): nothing is downloaded.
"""

from __future__ import annotations

import json
import pickle

import pytest

from vector_gym.errors import ConfigError
from vector_gym.integrations.trl import (
    RASTER_METRICS,
    build_dataset,
    check_completion_length,
    completion_text,
    grpo_trainer,
    repair_progress_reward_func,
    reward_funcs,
    reward_weights,
    spec_reward_func,
    suite_reward_func,
    tool_environment,
)
from vector_gym.suites import get_suite, suite_names
from vector_gym.svg.patch import diff_patch


def _conv(text):
    return [{"role": "assistant", "content": text}]


def _raster():
    return get_suite("svgeditbench_v2", dino_model=None, clip_model=None)


def _suite(name):
    if name == "svgeditbench_v2":
        return _raster()
    if name == "repairgen":
        return get_suite("repairgen", config={"visibility": "geometric"})
    return get_suite(name)


class _Counting:
    """Wraps a reward function, counting calls and keeping the trainer's last keyword arguments."""

    def __init__(self, inner):
        self.inner = inner
        self.__name__ = inner.__name__
        self.weight = inner.weight
        self.calls = 0
        self.last_kwargs = None

    def __call__(self, **kwargs):
        self.calls += 1
        self.last_kwargs = kwargs
        return self.inner(**kwargs)


@pytest.mark.parametrize("name", ["vector_bench", "svgeditbench_v1", "svgeditbench_v2", "repairgen"])
def test_every_suite_oracle_one_broken_zero_weights_reproduce_suite_reward(name):
    suite = _suite(name)
    task = suite.tasks()[0]
    funcs = reward_funcs(suite)
    broken = task.target_svg[: len(task.target_svg) // 2]
    completions = [_conv(task.target_svg), _conv(broken), task.source_svg]
    ids = [task.task_id] * 3
    values = [f(completions=completions, task_id=ids) for f in funcs]
    assert values[0][:2] == [1.0, 0.0]  # the oracle passes, a cut-off document scores 0
    assert all(v is not None for row in values for v in row)
    # TRL's weighted sum of the parts is the suite's one scalar reward.
    reports = suite.score_many([task] * 3, [task.target_svg, broken, task.source_svg])
    weights = reward_weights(funcs)
    for j, report in enumerate(reports):
        mixed = sum(w * v[j] for w, v in zip(weights, values, strict=True))
        assert mixed == pytest.approx(suite.reward(report), abs=1e-12)
    scalar = suite_reward_func(suite)(completions=completions, task_id=ids)
    assert scalar == [suite.reward(r) for r in reports]


def test_spec_weights_and_names():
    funcs = reward_funcs("vector_bench")
    assert [f.__name__ for f in funcs] == ["spec_reward", "repair_progress"]
    assert reward_weights(funcs) == [1.0, 0.2]
    raster = reward_funcs(_raster(), metrics=True)
    assert [f.__name__ for f in raster] == ["raster_reward", *RASTER_METRICS]
    assert reward_weights(raster) == [1.0] + [0.0] * len(RASTER_METRICS)
    assert set(suite_names()) >= {"vector_bench", "svgeditbench_v1", "svgeditbench_v2", "repairgen"}


def test_raster_metrics_logged_none_only_where_nothing_renders():
    suite = _raster()
    task = suite.tasks()[0]
    mse = next(f for f in reward_funcs(suite, metrics=True) if f.__name__ == "mse")
    assert mse(completions=[task.target_svg, "no svg"], task_id=[task.task_id] * 2) == [0.0, None]


@pytest.mark.parametrize("name", ["vector_bench", "svgeditbench_v2"])
def test_patch_answers_score_like_the_env(name):
    """The issue: a patch answer scored 0.0 in spec_reward_func while the env scored it 1.2."""
    from vector_gym.integrations._episode import EditSession
    from vector_gym.svg.patch import apply_patch

    suite = _suite(name)
    task = suite.tasks()[0]
    if name == "vector_bench":
        patch, expected = json.dumps(diff_patch(task.source_svg, task.target_svg)), 1.2
    else:  # the emoji have no ids: a root edit, scored as the patched document would be
        patch = '[{"set": "__svg", "opacity": "0.5"}]'
        patched = apply_patch(task.source_svg, patch).svg
        expected = suite.reward(suite.score_many([task], [patched])[0])
        assert 0.0 < expected < 1.0 or expected == 0.0
    scalar = suite_reward_func(suite, action_format="patch")
    values = scalar(completions=[f"```json\n{patch}\n```", "I would fix it.", task.target_svg],
                    task_id=[task.task_id] * 3)
    assert values == [pytest.approx(expected), 0.0, 0.0]
    assert EditSession(suite, task, action_format="patch").answer(patch).reward == pytest.approx(expected)


def test_guard_other_suite_raises_own_rows_never_none():
    vb = reward_funcs("vector_bench")[0]
    raster = _raster()
    other = raster.tasks()[0]
    with pytest.raises(ConfigError, match="suite 'vector_bench' was handed task"):
        vb(completions=["x"], task_id=[other.task_id])
    # Rows labelled with another suite (a mixed dataset) are left to that suite's function.
    assert vb(completions=["x", "y"], task_id=[other.task_id, "sv_001"], suite=[raster.name, "vector_bench"]) == [
        None, 0.0]
    # A task of the same id but other content (another suite configuration) is caught by hash.
    with pytest.raises(ConfigError, match="integrity hash mismatch"):
        vb(completions=["x"], task_id=["sv_001"], task_hash=["0" * 64])


def test_generated_repairgen_ids_resolve_without_listing():
    """Ids of a stream that the reward function never saw regenerate (no lookup misses)."""
    suite = get_suite("repairgen", config={"visibility": "geometric"})
    ds = build_dataset(suite, split="train", n=40, start=5000)
    spec = reward_funcs(suite)[0]
    fresh = type(suite)(config=suite.config)  # an identical suite that has generated nothing
    fresh_spec = reward_funcs(fresh)[0]
    targets = [suite.get_task(i).target_svg for i in ds["task_id"]]
    for f in (spec, fresh_spec):
        assert f(completions=targets, task_id=ds["task_id"], task_hash=ds["task_hash"]) == [1.0] * 40


def test_dataset_columns_patch_and_multi_turn():
    suite = get_suite("vector_bench")
    ds = build_dataset(suite)
    assert ds.column_names == ["prompt", "task_id", "suite", "task_hash", "family"]
    tasks = suite.tasks()
    assert ds["task_id"] == [t.task_id for t in tasks]
    assert ds[0]["prompt"] == suite.template("svg").messages(suite.observation(tasks[0]))
    assert ds["task_hash"][0] == tasks[0].integrity_hash
    assert tasks[0].target_svg not in str(ds["prompt"])
    patch = build_dataset(suite, action_format="patch", multi_turn=True)
    text = patch[0]["prompt"][0]["content"]
    assert "JSON" in text and "may answer again" in text
    # a task list finds its suite
    assert build_dataset(tasks[:2])["suite"] == ["vector_bench"] * 2


def test_completion_text_reads_tool_call_arguments():
    call = {"type": "function", "function": {"name": "submit_svg", "arguments": '{"svg": "<svg id=\\"b\\"/>"}'}}
    msgs = [{"role": "assistant", "content": "thinking", "tool_calls": [call]},
            {"role": "tool", "content": "ok"}]
    assert completion_text(msgs) == '<svg id="b"/>'
    patch_call = {"function": {"name": "apply_patch", "arguments": {"patch": [{"delete": "x"}]}}}
    assert completion_text([{"role": "assistant", "tool_calls": [patch_call]}]) == '[{"delete": "x"}]'
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]) == "ab"
    # The reward function scores an answer given as a tool call.
    suite = get_suite("vector_bench")
    task = suite.tasks()[0]
    call = {"function": {"name": "submit_svg", "arguments": {"svg": task.target_svg}}}
    assert reward_funcs(suite)[0](completions=[[{"role": "assistant", "content": "", "tool_calls": [call]}]],
                                  task_id=[task.task_id]) == [1.0]


def test_odd_completions_never_raise():
    spec = spec_reward_func(get_suite("vector_bench").tasks()[:2])
    oracle = get_suite("vector_bench").tasks()[0].target_svg
    parts = [{"role": "assistant", "content": [{"type": "text", "text": oracle}]}]
    completions = [oracle, _conv(oracle), parts, None, "", [], 5, oracle.encode()]
    assert spec(completions=completions, task_id=["sv_001"] * 8, environments=None, extra=1) == [
        1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]


def test_diagnostics_and_pickling():
    spec = spec_reward_func(get_suite("vector_bench"))
    extra, metrics = {}, {}
    oracle = get_suite("vector_bench").get_task("sv_002").target_svg
    spec(completions=[oracle, "no svg"], task_id=["sv_002", "sv_002"],
         log_extra=lambda c, v: extra.__setitem__(c, v), log_metric=lambda n, v: metrics.__setitem__(n, v),
         trainer_state=None)
    assert extra["spec_reward/failure_reasons"] == ["", "invalid_svg"]
    assert extra["spec_reward/specification_pass"] == [True, False]
    assert metrics["spec_reward/validity_pass_rate"] == 0.5
    clone = pickle.loads(pickle.dumps(repair_progress_reward_func(get_suite("vector_bench", parity=True))))
    assert clone.suite is get_suite("vector_bench", parity=True) and clone.weight == 0.2
    assert clone(completions=[oracle], task_id=["sv_002"]) == [1.0]


def test_processes_give_the_same_rewards():
    suite = get_suite("vector_bench")
    t = suite.get_task("sv_002")
    completions = [f"{t.target_svg}\npool {k}" for k in range(3)] + [f"{t.source_svg}\npool {k}" for k in range(3)]
    pooled = spec_reward_func(suite, processes=2)(completions=completions, task_id=["sv_002"] * 6)
    assert pooled == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]


def test_warning_when_completion_length_is_below_the_budget():
    suite = get_suite("vector_bench")
    with pytest.warns(UserWarning, match="below suite 'vector_bench'"):
        assert check_completion_length(suite, 512, suite.tasks()) == 20
    assert check_completion_length(suite, 100_000, suite.tasks()) == 0


def test_tool_environment_episode():
    suite = get_suite("vector_bench")
    task = suite.get_task("sv_003")
    env = tool_environment(suite, max_turns=3)()
    assert env.reset(task_id=task.task_id, suite="vector_bench", prompt=[]) is None
    assert env.get_reward() == 0.0
    assert "not well-formed" in env.submit_svg("<svg><g></svg>")
    assert env.get_reward() == 0.0
    assert env.submit_svg(task.target_svg).startswith("Accepted")
    assert env.get_reward() == pytest.approx(1.2)
    assert "ended" in env.submit_svg(task.source_svg)
    penv = tool_environment(suite, action_format="patch")()
    penv.reset(task_id=task.task_id)
    reply = penv.apply_patch('[{"delete": "nope"}]')
    assert "could not be applied" in reply and "Current document" in reply
    assert penv.apply_patch(json.dumps(diff_patch(task.source_svg, task.target_svg))).startswith("Accepted")
    with pytest.raises(ConfigError, match="got a row of suite"):
        penv.reset(task_id="x", suite="other")


def _config(tmp_path, **kw):
    from trl import GRPOConfig

    base = dict(output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2, num_generations=2,
                max_completion_length=8, learning_rate=1e-3, logging_steps=1, save_strategy="no",
                report_to=[], use_cpu=True, bf16=False, seed=0, dataloader_num_workers=0, disable_tqdm=True)
    base.update(kw)
    return GRPOConfig(**base)


@pytest.mark.parametrize("name", ["vector_bench", "svgeditbench_v2"])
def test_grpo_two_steps_on_a_spec_and_a_raster_suite(tiny_lm_dir, tmp_path, name):
    suite = _suite(name)
    funcs = [_Counting(f) for f in reward_funcs(suite)]
    train = build_dataset(suite, tasks=suite.tasks()[:2])
    with pytest.warns(UserWarning, match="max_completion_length=8 is below"):
        trainer = grpo_trainer(suite, str(tiny_lm_dir), _config(tmp_path), train_dataset=train, reward_funcs=funcs)
    assert list(trainer.args.reward_weights) == reward_weights(funcs)
    trainer.train()
    assert trainer.state.global_step == 2
    assert all(f.calls == 2 for f in funcs)
    logged = {k for entry in trainer.state.log_history for k in entry}
    assert {f"rewards/{f.__name__}/mean" for f in funcs} <= logged
    kwargs = dict(funcs[0].last_kwargs)
    assert {"prompts", "completions", "completion_ids", "task_id", "suite", "task_hash", "trainer_state",
            "log_extra", "log_metric"} <= set(kwargs)
    # Called with the trainer's own keyword arguments, the oracle scores 1 and a cut answer 0.
    tid = kwargs["task_id"][0]
    target = suite.get_task(tid).target_svg
    kwargs["completions"] = [_conv(target), _conv(target[:-40])]
    kwargs["task_id"], kwargs["suite"], kwargs["task_hash"] = [tid] * 2, [suite.name] * 2, [kwargs["task_hash"][0]] * 2
    assert funcs[0].inner(**kwargs) == [1.0, 0.0]


def test_grpo_two_steps_with_the_tool_environment(tmp_path, tmp_path_factory, monkeypatch):
    from _tool_model import build_tool_lm
    from trl import GRPOTrainer

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    model_dir = build_tool_lm(tmp_path_factory.mktemp("tool_lm"))
    suite = get_suite("vector_bench")
    Env = tool_environment(suite, max_turns=2)
    made = []

    def factory():
        env = Env()
        made.append(env)
        return env

    trainer = GRPOTrainer(
        model=str(model_dir),
        environment_factory=factory,
        args=_config(tmp_path, max_completion_length=16, max_tool_calling_iterations=2),
        train_dataset=build_dataset(suite, tasks=suite.tasks()[:2], multi_turn=True),
    )
    trainer.train()
    assert trainer.state.global_step == 2
    logged = {k for entry in trainer.state.log_history for k in entry}
    assert f"rewards/{Env.__name__}/mean" in logged  # get_reward is the reward source
    assert made and all(e.session is not None for e in made)  # every rollout was reset onto a task
    assert {e.session.task.task_id for e in made} <= {"sv_001", "sv_002"}


def test_spec_reward_refuses_svgeditbench_instead_of_scoring_zero():
    """Issue 9: SVGEditBench tasks used to be scored by the specification reward (hidden v1
    targets scored 0.0, silently); a raster suite is now refused with a clear error."""
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v1

    with pytest.raises(ConfigError, match="svgeditbench_v1"):
        spec_reward_func(load_svgeditbench_v1(kinds=("ChangeColor",))[:3])
    with pytest.raises(ConfigError, match="svgeditbench_v2"):
        repair_progress_reward_func("svgeditbench_v2")


def test_spec_reward_of_the_repairgen_env_resolves_every_generated_id():
    """Issue 9: spec_reward_func(gymnasium.make("vector_gym/RepairGen-v0")) saw a corpus of one
    task and returned None for every other generated task. The task-list functions keep TRL's
    None for ids outside their suite; reward_funcs(suite) raises instead (the guard)."""
    import gymnasium

    import vector_gym  # noqa: F401
    from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator

    env = gymnasium.make("vector_gym/RepairGen-v0")
    spec = spec_reward_func(env)
    others = list(RepairGenerator(RepairGenConfig(split="train"), seed=0).tasks(3, start=100))
    rewards = spec(completions=[t.target_svg for t in others], task_id=[t.task_id for t in others])
    assert rewards == [1.0, 1.0, 1.0]
    assert spec(completions=["x"], task_id=["sv_001"]) == [None]
    with pytest.raises(ConfigError, match="was handed task 'sv_001'"):
        reward_funcs("repairgen")[0](completions=["x"], task_id=["sv_001"])
