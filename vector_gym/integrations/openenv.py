"""OpenEnv: a suite served as an OpenEnv environment (``reset`` / ``step`` / ``state``).

Layer 7. ``openenv-core`` (0.3.0) and ``uvicorn`` are imported only when the classes or the app
are built (``pip install "vector-gym[openenv]"``)::

    python -m vector_gym.integrations.openenv --suite vector_bench --port 8000 [--max-turns 3]

serves openenv-core's app (``create_app``: HTTP ``/reset`` ``/step`` ``/state`` ``/schema``
``/health`` and the ``/ws`` WebSocket); every WebSocket session gets its own environment
instance, so its own episode. Any OpenEnv client works, e.g. the generic one::

    from openenv.core.generic_client import GenericEnvClient
    with GenericEnvClient(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(task_id="sv_001")          # or seed=K: task K mod n of the split
        messages = r.observation["prompt"]      # the opening conversation
        r = env.step({"answer": "<svg ...>...</svg>"})
        r.observation["passed"], r.observation["report"], r.observation["message"]

Action: ``{"answer": str}`` (the model's raw response; an edit script with
``--action-format patch``). Observation fields (declared in the schema, so the report travels
with every step; OpenEnv drops ``metadata``): ``task_id``, ``suite``, ``instruction``, ``svg``
(the current document), ``prompt`` (reset: the opening messages), ``message`` (the user
message to append to the conversation after an answer that is not a pass, None otherwise),
``feedback``, ``report`` (the answer's report dict), ``answer_reward`` (R_t =
``suite.reward``), ``passed`` (absolute gate), ``turn``. ``reward`` is the step reward
R_t - R_(t-1) (the episode's return is the last answer's reward, as in the Gymnasium env);
``done`` on a pass or after ``max_turns`` answers.
"""

from __future__ import annotations

import argparse
import functools
import uuid
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.integrations._episode import EditSession, check_action_format, resolve_suite

__all__ = ["build_app", "environment_factory", "main", "models"]


@functools.lru_cache(maxsize=1)
def models() -> tuple[type, type, type]:
    """``(EditAction, EditObservation, EditState)``: the pydantic models (openenv imported here)."""
    from openenv.core.env_server.types import Action, Observation, State
    from pydantic import Field

    class EditAction(Action):
        """One answer: the model's raw response (an SVG document, or an edit script)."""

        answer: str = Field(..., description="The model's response (SVG document or JSON edit script)")

    class EditObservation(Observation):
        """What the policy sees after reset/step; ``report`` is the absolute report of the last answer."""

        task_id: str = Field(default="", description="Task id")
        suite: str = Field(default="", description="Suite name")
        instruction: str = Field(default="", description="The editing request")
        svg: str = Field(default="", description="The current SVG document")
        prompt: list[dict[str, Any]] = Field(default_factory=list, description="Opening chat messages (reset)")
        message: dict[str, Any] | None = Field(default=None, description="User message to append (feedback)")
        feedback: str = Field(default="", description="Editor feedback on the last answer")
        report: dict[str, Any] | None = Field(default=None, description="Report of the last answer")
        answer_reward: float = Field(default=0.0, description="suite.reward of the last answer (R_t)")
        passed: bool = Field(default=False, description="The last answer passes (report.reward >= 1)")
        turn: int = Field(default=0, description="Answers given so far")

    class EditState(State):
        """Server-side state: the episode id, steps, task and last reward."""

        task_id: str | None = None
        suite: str | None = None
        answer_reward: float = 0.0
        passed: bool = False

    for cls in (EditAction, EditObservation, EditState):
        cls.__module__ = __name__
    return EditAction, EditObservation, EditState


def _environment_class() -> type:
    from openenv.core.env_server.interfaces import Environment

    EditAction, EditObservation, EditState = models()

    class SuiteEnvironment(Environment):
        """One suite as an OpenEnv environment (module docstring)."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self, suite: Any, *, split: str | None = None, action_format: str = "svg",
                     max_turns: int = 1) -> None:
            super().__init__()
            self.suite = resolve_suite(suite)
            self.split = split
            self.action_format = check_action_format(action_format)
            self.max_turns = int(max_turns)
            self.session: EditSession | None = None
            self._state = EditState(episode_id=None, step_count=0)

        def reset(self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None,
                  **kwargs: Any) -> Any:
            if task_id is not None:
                task = self.suite.get_task(task_id)
            else:
                tasks = self.suite.tasks(self.split)
                task = tasks[(seed or 0) % len(tasks)]
            self.session = EditSession(self.suite, task, action_format=self.action_format, max_turns=self.max_turns)
            self._state = EditState(episode_id=episode_id or uuid.uuid4().hex, step_count=0,
                                    task_id=task.task_id, suite=self.suite.name)
            obs = self.suite.observation(task)
            return EditObservation(task_id=task.task_id, suite=self.suite.name, instruction=obs["instruction"],
                                   svg=obs["svg"], prompt=self.session.messages(), done=False, reward=None)

        def step(self, action: Any, timeout_s: float | None = None, **kwargs: Any) -> Any:
            s = self.session
            if s is None or s.done:
                raise ConfigError("expected reset() before step(): the episode has ended or not started")
            answer = action.answer if hasattr(action, "answer") else action.get("answer", "")
            r = s.answer(answer)
            self._state.step_count += 1
            self._state.answer_reward, self._state.passed = r.reward, r.passed
            return EditObservation(
                task_id=s.task.task_id, suite=self.suite.name, instruction=s.task.instruction, svg=s.current_svg,
                message=r.message, feedback=r.feedback, report=r.report, answer_reward=r.reward,
                passed=r.passed, turn=r.turn, done=r.done, reward=r.step_reward,
            )

        @property
        def state(self) -> Any:
            return self._state

    SuiteEnvironment.__module__ = __name__
    return SuiteEnvironment


def environment_factory(suite: Any, *, split: str | None = None, action_format: str = "svg",
                        max_turns: int = 1) -> Any:
    """A zero-argument factory of :class:`SuiteEnvironment` instances (one per session)."""
    cls = _environment_class()
    suite = resolve_suite(suite)
    check_action_format(action_format)
    return functools.partial(cls, suite, split=split, action_format=action_format, max_turns=max_turns)


def build_app(suite: Any, *, split: str | None = None, action_format: str = "svg", max_turns: int = 1,
              max_concurrent_envs: int = 64) -> Any:
    """openenv-core's FastAPI app for a suite (``create_app``), one environment per WebSocket session."""
    from openenv.core.env_server.http_server import create_app

    EditAction, EditObservation, _ = models()
    factory = environment_factory(suite, split=split, action_format=action_format, max_turns=max_turns)
    return create_app(factory, EditAction, EditObservation, env_name=f"vector_gym-{resolve_suite(suite).name}",
                      max_concurrent_envs=max_concurrent_envs)


def main(argv: list[str] | None = None) -> None:
    """``python -m vector_gym.integrations.openenv --suite NAME --port N``."""
    p = argparse.ArgumentParser(prog="python -m vector_gym.integrations.openenv",
                                description="Serve a vector_gym suite as an OpenEnv environment.")
    p.add_argument("--suite", required=True, help="suite name, alias or env id (vector_bench, repairgen, ...)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--split", default=None, help="split for reset(seed=K) (default: the suite's)")
    p.add_argument("--action-format", choices=("svg", "patch"), default="svg")
    p.add_argument("--max-turns", type=int, default=1)
    p.add_argument("--max-concurrent", type=int, default=64, help="most concurrent WebSocket sessions")
    args = p.parse_args(argv)
    import uvicorn

    app = build_app(args.suite, split=args.split, action_format=args.action_format, max_turns=args.max_turns,
                    max_concurrent_envs=args.max_concurrent)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
