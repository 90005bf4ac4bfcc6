"""verl 0.9.1: RLHFDataset reads our parquet, the naive reward manager scores a real DataProto
through compute_score (loaded by pkg:// path as verl's config does), and the agent loop runs a
3-turn episode against a scripted server to a pass.

verl caps transformers below 5.11, so it has its own environment: ``.ci/run`` runs this file in
``.venv-verl`` (``pip install -e ".[test,verl]"``); in an environment without verl the module is
skipped at import (everything else in this file needs verl itself).
"""

from __future__ import annotations

import asyncio

import pytest

verl = pytest.importorskip("verl", reason="verl is tested in its own environment (.ci/run: .venv-verl)")

from vector_gym.integrations.verl import (  # noqa: E402
    AGENT_LOOP_NAME,
    compute_score,
    parquet_rows,
    task_from_ground_truth,
    write_agent_loop_yaml,
    write_parquet,
)
from vector_gym.suites import get_suite  # noqa: E402


@pytest.fixture(scope="module")
def tokenizer(tiny_lm_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_lm_dir)


def test_rlhf_dataset_loads_our_parquet(tmp_path, tokenizer):
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    suite = get_suite("repairgen", config={"visibility": "geometric"})
    path = write_parquet(suite, tmp_path / "train.parquet", split="train", n=4)
    ds = RLHFDataset(str(path), tokenizer, OmegaConf.create({"max_prompt_length": 100_000,
                                                             "cache_dir": str(tmp_path / "cache")}))
    assert len(ds) == 4
    row = ds[1]
    tasks = suite.tasks("train", n=4)
    assert row["data_source"] == "repairgen" and row["ability"] == "svg-editing"
    assert row["raw_prompt"] == suite.template("svg").messages(suite.observation(tasks[1]))
    assert row["extra_info"]["task_id"] == tasks[1].task_id and row["index"] == 1
    back = task_from_ground_truth(row["reward_model"]["ground_truth"], row["extra_info"]["task_hash"])
    assert back == tasks[1]


def _data_proto(tokenizer, rows, responses):
    import numpy as np
    import torch
    from verl import DataProto

    prompts = [tokenizer.encode("prompt")] * len(rows)
    resp = [tokenizer.encode(r) for r in responses]
    p_len, r_len = max(map(len, prompts)), max(map(len, resp))
    pad = tokenizer.pad_token_id
    p = torch.tensor([[pad] * (p_len - len(x)) + x for x in prompts])  # left-padded prompts
    r = torch.tensor([x + [pad] * (r_len - len(x)) for x in resp])
    mask = torch.tensor([[0] * (p_len - len(a)) + [1] * len(a) + [1] * len(b) + [0] * (r_len - len(b))
                         for a, b in zip(prompts, resp, strict=True)])
    return DataProto.from_dict(
        tensors={"prompts": p, "responses": r, "attention_mask": mask, "input_ids": torch.cat([p, r], 1)},
        non_tensors={k: np.array([row[k] for row in rows], dtype=object)
                     for k in ("data_source", "reward_model", "extra_info")},
    )


def test_reward_manager_scores_a_data_proto_through_compute_score(tokenizer):
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.naive import NaiveRewardManager

    config = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": "pkg://vector_gym.integrations.verl", "name": "compute_score", "reward_kwargs": {}}}})
    fn = get_custom_reward_fn(config)
    suite = get_suite("vector_bench")
    tasks = suite.tasks()[:2]
    rows = parquet_rows(suite, tasks)
    responses = [tasks[0].target_svg, "no svg here"]
    manager = NaiveRewardManager(tokenizer, num_examine=0, compute_score=fn)
    out = manager(_data_proto(tokenizer, rows, responses), return_dict=True)
    totals = out["reward_tensor"].sum(dim=1).tolist()
    assert totals == pytest.approx([1.2, 0.0])
    assert out["reward_extra_info"]["acc"] == [True, False]
    assert out["reward_extra_info"]["specification_pass"] == [True, False]
    # raster suite and patch answers through the same function
    raster = get_suite("svgeditbench_v2", dino_model=None, clip_model=None)
    rt = raster.tasks()[0]
    row = parquet_rows(raster, [rt])[0]
    assert compute_score(row["data_source"], rt.target_svg, row["reward_model"]["ground_truth"],
                         row["extra_info"], dino_model=None, clip_model=None)["score"] == 1.0


class _ScriptedServer:
    """An LLM server that answers with the next scripted text (token ids of the tiny tokenizer)."""

    def __init__(self, tokenizer, answers):
        self.tokenizer, self.answers, self.prompts = tokenizer, list(answers), []

    async def generate(self, request_id, prompt_ids, sampling_params, **kwargs):
        from verl.workers.rollout.replica import TokenOutput

        self.prompts.append(list(prompt_ids))
        text = self.answers.pop(0)
        return TokenOutput(token_ids=self.tokenizer.encode(text) + [self.tokenizer.eos_token_id])


def test_agent_loop_three_turns_to_a_pass(tmp_path, tokenizer):
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import DictConfigWrap, _agent_loop_registry
    from verl.utils.dataset.rl_dataset import RLHFDataset

    import vector_gym.integrations.verl as vverl

    loop_cls = vverl.VectorGymAgentLoop
    assert _agent_loop_registry[AGENT_LOOP_NAME]["_target_"] == "vector_gym.integrations.verl.VectorGymAgentLoop"
    assert "vector_gym_agent" in write_agent_loop_yaml(tmp_path / "agent.yaml").read_text()
    suite = get_suite("vector_bench")
    task = suite.get_task("sv_004")
    row = parquet_rows(suite, [task], multi_turn=True, max_turns=3)[0]
    assert row["agent_name"] == AGENT_LOOP_NAME and "may answer again" in row["prompt"][0]["content"]
    server = _ScriptedServer(tokenizer, ["I am not sure.", "<svg><g></svg>", task.target_svg])
    config = OmegaConf.create({"actor_rollout_ref": {"rollout": {"prompt_length": 100_000,
                                                                 "response_length": 100_000}}})

    async def run():
        loop = loop_cls(trainer_config=DictConfigWrap(config), server_manager=server, tokenizer=tokenizer,
                        processor=None, dataset_cls=RLHFDataset, data_config=DictConfigWrap(OmegaConf.create({})))
        return await loop.run({"temperature": 1.0}, raw_prompt=row["prompt"], data_source=row["data_source"],
                              reward_model=row["reward_model"], extra_info=row["extra_info"])

    out = asyncio.run(run())
    assert out.reward_score == pytest.approx(1.2)
    assert out.extra_fields["passed"] is True
    assert out.extra_fields["turn_scores"] == pytest.approx([0.0, 0.0, 1.2])
    assert len(server.prompts) == 3 and not server.answers
    # one conversation: each later prompt extends the previous one (feedback appended, never rebuilt)
    assert server.prompts[1][: len(server.prompts[0])] == server.prompts[0]
    assert server.prompts[2][: len(server.prompts[1])] == server.prompts[1]
    text = tokenizer.decode(out.response_ids)
    assert "not well-formed" in text and "Editor feedback" in text
    # model tokens are trained on (mask 1), feedback tokens are not (mask 0)
    assert 0 in out.response_mask and 1 in out.response_mask
    assert len(out.response_ids) == len(out.response_mask)
