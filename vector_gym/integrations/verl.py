"""verl: ``compute_score`` for the reward manager, parquet in verl's column layout, and a
multi-turn editing agent loop.

Layer 7. ``verl`` is imported only by :class:`VectorGymAgentLoop` (built on first attribute
access); ``compute_score`` and :func:`write_parquet` need only this package and ``datasets``
(``pip install "vector-gym[verl]"``, verl 0.9.1).

Data (:func:`write_parquet`)
----------------------------
One row per task with verl's columns::

    data_source   suite name ("vector_bench", "repairgen", ...; verl's reward_fn_key)
    prompt        chat messages (the suite's template; multi-turn instructions with multi_turn=True)
    ability       "svg-editing"
    reward_model  {"style": "rule", "ground_truth": <the task as JSON (task_json)>}
    extra_info    {"index", "task_id", "task_hash", "split", "action_format", "max_turns"}
    agent_name    "vector_gym_agent" (multi_turn=True only: verl picks the agent loop by it)

``ground_truth`` holds the whole task (Python :mod:`json`, floats exact), so ``compute_score``
needs no lookup: generated tasks of any configuration, and user tasks, score the same; the
``task_hash`` is checked.

Config (``trainer`` CLI overrides)::

    data.train_files=train.parquet data.val_files=test.parquet
    reward.custom_reward_function.path=pkg://vector_gym.integrations.verl
    reward.custom_reward_function.name=compute_score
    # multi-turn editing (the agent loop below):
    actor_rollout_ref.rollout.mode=async
    actor_rollout_ref.rollout.agent.agent_loop_config_path=vector_gym_agent.yaml

with ``vector_gym_agent.yaml`` (:data:`AGENT_LOOP_YAML`)::

    - name: vector_gym_agent
      _target_: vector_gym.integrations.verl.VectorGymAgentLoop

Reward: ``score`` is ``suite.reward(report)`` (the env's step reward; Vector-Bench 1.2 for a
pass); ``acc`` is the absolute pass gate (``report.reward >= 1``), never a per-turn delta.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vector_gym.errors import ConfigError, CorpusError, IntegrityError
from vector_gym.integrations._episode import (
    EditSession,
    apply_answers,
    check_action_format,
    first_messages,
    is_pass,
    resolve_suite,
)
from vector_gym.integrations.datasets import task_from_row, task_to_row
from vector_gym.tasks.task import Task

__all__ = [
    "ABILITY",
    "AGENT_LOOP_NAME",
    "AGENT_LOOP_YAML",
    "compute_score",
    "parquet_rows",
    "task_from_ground_truth",
    "task_json",
    "write_parquet",
    "write_agent_loop_yaml",
]

ABILITY = "svg-editing"
AGENT_LOOP_NAME = "vector_gym_agent"
AGENT_LOOP_YAML = f"- name: {AGENT_LOOP_NAME}\n  _target_: vector_gym.integrations.verl.VectorGymAgentLoop\n"

_SPEC_GATES = ("validity_pass", "repair_pass", "preservation_pass", "specification_pass", "near_pass")
_RASTER_GATES = ("extraction_error", "parsing_error")


def task_json(task: Task) -> str:
    """The ``ground_truth`` of a task: its lossless dataset row
    (:func:`vector_gym.integrations.datasets.task_to_row`) as JSON text."""
    return json.dumps(task_to_row(task), ensure_ascii=False)


def task_from_ground_truth(ground_truth: Any, task_hash: Any = None) -> Task:
    """The task of a ``reward_model.ground_truth`` (JSON text or mapping); hash checked.

    Raises
    ------
    ConfigError
        Not a task.
    IntegrityError
        ``task_hash`` given and different.
    """
    obj = ground_truth
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except ValueError:
            raise ConfigError("ground_truth: expected the task as JSON (write_parquet's layout)") from None
    if not isinstance(obj, Mapping):
        raise ConfigError(f"ground_truth: expected a task JSON object, got {type(obj).__name__}")
    try:
        task = task_from_row(obj)
    except CorpusError as exc:
        raise ConfigError(f"ground_truth: not a task ({exc})") from None
    if isinstance(task_hash, str) and task_hash and task.integrity_hash != task_hash:
        raise IntegrityError(f"ground_truth of task {task.task_id!r} does not match its recorded integrity hash")
    return task


def _extra(extra_info: Any) -> dict[str, Any]:
    return dict(extra_info) if isinstance(extra_info, Mapping) else {}


def _score_dict(suite: Any, report: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"score": float(suite.reward(report)), "acc": is_pass(report)}
    data = report.to_dict()
    for gate in (*_SPEC_GATES, *_RASTER_GATES):
        if gate in data:
            out[gate] = bool(data[gate])
    return out


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **suite_options: Any,
) -> dict[str, Any]:
    """verl's ``compute_score``: the suite's scalar reward of one response, with its gates.

    Parameters
    ----------
    data_source : str
        The suite (name, alias or env id), the ``data_source`` column.
    solution_str : str
        The decoded response.
    ground_truth : str or mapping
        The task (``reward_model.ground_truth`` of :func:`write_parquet`).
    extra_info : mapping, optional
        ``task_hash`` (checked), ``action_format`` (``"patch"``: the response is an edit script
        applied to the source).
    **suite_options
        ``custom_reward_function.reward_kwargs`` (``parity``, ``progress_weight`` ...).

    Returns
    -------
    dict
        ``score`` (``suite.reward``), ``acc`` (the absolute pass gate) and the report's gates
        (``validity_pass`` ... for spec suites, ``extraction_error``/``parsing_error`` for
        raster suites). A response that is not text scores 0.

    Examples
    --------
    >>> from vector_gym.suites import get_suite
    >>> t = get_suite("vector_bench").tasks()[0]
    >>> gt = task_json(t)
    >>> compute_score("vector_bench", t.target_svg, gt)["score"], compute_score("vector_bench", "no", gt)["acc"]
    (1.2, False)
    """
    suite = resolve_suite(data_source, **suite_options)
    info = _extra(extra_info)
    task = task_from_ground_truth(ground_truth, info.get("task_hash"))
    fmt = check_action_format(info.get("action_format") or "svg")
    batch = apply_answers([solution_str if isinstance(solution_str, str) else ""], [task.source_svg], fmt)
    report = suite.score_many([task], batch.responses)[0]
    return _score_dict(suite, report)


def parquet_rows(
    suite: Any,
    tasks: Sequence[Task],
    *,
    split: str = "train",
    action_format: str = "svg",
    multi_turn: bool = False,
    max_turns: int = 3,
) -> list[dict[str, Any]]:
    """The rows :func:`write_parquet` writes (module docstring layout)."""
    suite = resolve_suite(suite)
    check_action_format(action_format)
    rows = []
    for i, t in enumerate(tasks):
        row = {
            "data_source": suite.name,
            "prompt": first_messages(suite, t, action_format=action_format, multi_turn=multi_turn),
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": task_json(t)},
            "extra_info": {
                "index": i,
                "task_id": t.task_id,
                "task_hash": t.integrity_hash,
                "split": split,
                "action_format": action_format,
                "max_turns": max_turns if multi_turn else 1,
            },
        }
        if multi_turn:
            row["agent_name"] = AGENT_LOOP_NAME
        rows.append(row)
    return rows


def write_parquet(
    suite: Any,
    path: str | Path,
    *,
    split: str | None = None,
    tasks: Sequence[Task] | None = None,
    action_format: str = "svg",
    multi_turn: bool = False,
    max_turns: int = 3,
    **task_options: Any,
) -> Path:
    """Write a suite's tasks as a verl parquet file (module docstring layout); returns the path.

    ``tasks`` or ``suite.tasks(split, **task_options)`` (RepairGen: ``n=``, ``start=``, ``seed=``).
    """
    from datasets import Dataset

    suite = resolve_suite(suite)
    task_list = list(tasks) if tasks is not None else suite.tasks(split, **task_options)
    rows = parquet_rows(suite, task_list, split=split or suite.default_split, action_format=action_format,
                        multi_turn=multi_turn, max_turns=max_turns)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Dataset.from_list(rows).to_parquet(str(path))
    return path


def write_agent_loop_yaml(path: str | Path) -> Path:
    """Write :data:`AGENT_LOOP_YAML` (``rollout.agent.agent_loop_config_path``); returns the path."""
    path = Path(path)
    path.write_text(AGENT_LOOP_YAML, encoding="utf-8")
    return path


def _make_agent_loop() -> type:
    """Build the agent loop class (verl imported here, on first use)."""
    from uuid import uuid4

    from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

    class VectorGymAgentLoop(AgentLoopBase):
        """Multi-turn SVG editing in verl: generate, score, append the editor feedback, repeat.

        Each turn the model's answer is scored (``EditSession``); on a full pass or after
        ``extra_info.max_turns`` answers the episode ends. The feedback message is appended to the
        conversation (response mask 0 for its tokens). ``reward_score`` is ``suite.reward`` of the
        last answer; ``extra_fields``: ``turn_scores`` (R_t per turn), ``passed`` (absolute gate),
        ``report`` (the last report's dict).
        """

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.response_length = self.rollout_config.response_length

        async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
            info = _extra(kwargs.get("extra_info"))
            suite = resolve_suite(str(kwargs.get("data_source")))
            task = task_from_ground_truth(dict(kwargs["reward_model"])["ground_truth"], info.get("task_hash"))
            session = EditSession(suite, task, action_format=info.get("action_format") or "svg",
                                  max_turns=int(info.get("max_turns") or 3))
            messages = [dict(m) for m in kwargs["raw_prompt"]]
            prompt_ids = await self.ct_build_initial_tokens(messages)
            runtime_ids = list(prompt_ids)
            mask: list[int] = []
            logprobs: list[float] | None = None
            scores: list[float] = []
            while not session.done and len(mask) < self.response_length:
                out = await self.server_manager.generate(request_id=uuid4().hex, prompt_ids=runtime_ids,
                                                         sampling_params=sampling_params)
                merged, mask, logprobs = await self.ct_merge_assistant_token(
                    runtime_ids, out.token_ids, mask, logprobs, assistant_logprobs=out.log_probs or None)
                runtime_ids = list(merged.token_ids)
                text = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
                result = session.answer(text)
                scores.append(result.reward)
                messages = [*messages, {"role": "assistant", "content": text}]
                if result.message is not None and len(mask) < self.response_length:
                    updated = [*messages, result.message]
                    merged, mask, logprobs = await self.ct_merge_context_msg(messages, updated, runtime_ids, mask,
                                                                             logprobs)
                    runtime_ids, messages = list(merged.token_ids), updated
            n = len(mask)
            response_ids = runtime_ids[len(runtime_ids) - n:] if n else []
            output = AgentLoopOutput(
                prompt_ids=runtime_ids[: len(runtime_ids) - n],
                response_ids=response_ids[: self.response_length],
                response_mask=mask[: self.response_length],
                response_logprobs=logprobs[: self.response_length] if logprobs else None,
                reward_score=session.reward,
                num_turns=len(messages),
                metrics={},
                extra_fields={"turn_scores": scores, "tool_rewards": [], "passed": session.passed,
                              "report": session.last.report if session.last else None},
            )
            return output

    VectorGymAgentLoop.__module__ = __name__
    VectorGymAgentLoop.__qualname__ = "VectorGymAgentLoop"
    return register(AGENT_LOOP_NAME)(VectorGymAgentLoop)


def __getattr__(name: str) -> Any:
    if name == "VectorGymAgentLoop":
        cls = _make_agent_loop()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
