"""Gymnasium wrappers for the variants of :class:`~vector_gym.envs.base.EditEnv` (layer 6).

Each wrapper is small and does one thing; :func:`wrap` composes them in the one order that
works for every combination (inside out): :class:`ProgressShaping` (the answer reward),
:class:`PatchActions` (what an answer is), :class:`MultiTurn` (episodes of several answers),
:class:`ImageObservation` (what the policy sees).

- :class:`PatchActions`: the answer is a JSON edit script (:mod:`vector_gym.svg.patch`) applied
  to the current document before scoring; an unreadable or unappliable script scores as the
  empty answer (reward 0) with ``info["action_error"] = {"reason", "message"}`` (None otherwise).
- :class:`MultiTurn`: after an answer that is not a full pass (``report.reward < 1``) the episode
  continues; the next observation holds the current document (the document the suite's rule
  extracted and scored) and ``"feedback"`` (``suite.feedback``: parse and validity errors, never
  the target or the failing checks). Step reward ``R_t - R_(t-1)`` with ``R_0 = 0`` and ``R_t``
  the t-th answer's reward, so the undiscounted return is the last answer's reward. Terminated
  on a full pass, truncated after ``max_turns`` answers; ``info["turn"]`` (1-based) and
  ``info["answer_reward"]`` (R_t). An answer that is not text, over ``max_response_chars``, holds
  no SVG, or holds characters the observation space cannot carry leaves the previous document
  current, and the feedback says which.
- :class:`ImageObservation`: adds ``obs["image"]``, the current document rendered on white as an
  ``(H, W, 3)`` uint8 array (:func:`vector_gym.render.render_many`; a document that fails to
  render gives a white image), for vision-language policies.
- :class:`ProgressShaping`: step reward ``report.reward + weight * report.repair_progress`` (the
  specification reward plus dense repair progress, spec-reward.md §8.4, §11), for suites whose
  reports carry ``repair_progress``.

Every wrapper forwards the env's public attributes (``tasks``, ``get_task``, ``suite``, ...).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import RecordConstructorArgs

from vector_gym.envs.base import BASE_CHARSET, EditEnv
from vector_gym.errors import ConfigError

__all__ = ["ACTION_FORMATS", "answer_text", "env_factory", "episode_state", "restore_episode", "ImageObservation", "MultiTurn", "PatchActions", "ProgressShaping", "wrap"]

ACTION_FORMATS: tuple[str, ...] = ("svg", "patch")

#: Longest multi-turn feedback (characters).
FEEDBACK_CHARS = 4096


class _Forward:
    """Forward public attribute reads to the wrapped env (Gymnasium 1.x wrappers do not)."""

    def __getattr__(self, name: str) -> Any:
        env = self.__dict__.get("env")
        if env is None or name.startswith("_"):
            raise AttributeError(name)
        return getattr(env, name)


def _edit_env(env: gym.Env) -> EditEnv:
    base = env.unwrapped
    if not isinstance(base, EditEnv):
        raise ConfigError(f"env: expected an EditEnv (or a wrapper of one), got {type(base).__name__}")
    return base


class PatchActions(_Forward, gym.Wrapper, RecordConstructorArgs):
    """Answers are JSON edit scripts applied to the current document (module docstring)."""

    action_format = "patch"

    @staticmethod
    def decode(action: Any, current_svg: str, max_chars: int) -> tuple[Any, dict[str, str] | None]:
        """``(what the env scores, action_error)`` of one answer on ``current_svg``."""
        from vector_gym.envs.patch import decode_patch_action

        if not isinstance(action, str) or len(action) > max_chars:
            return action, None
        patched = decode_patch_action(action, current_svg)
        if patched.ok:
            return patched.svg, None
        return "", {"reason": patched.reason, "message": patched.message}

    def __init__(self, env: gym.Env) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        _edit_env(env)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply the script, then score the patched document (module docstring)."""
        base = self.env.unwrapped
        action, error = self.decode(action, base.current_svg, base.max_response_chars)
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["action_error"] = error
        return obs, reward, terminated, truncated, info


class MultiTurn(_Forward, gym.Wrapper, RecordConstructorArgs):
    """Episodes of up to ``max_turns`` answers with editor feedback (module docstring).

    Raises
    ------
    ConfigError
        ``max_turns`` not an int >= 1.
    """

    #: Per-episode state (:func:`episode_state`).
    EPISODE_FIELDS = ("_turn", "_last", "_feedback")

    def __init__(self, env: gym.Env, max_turns: int = 3) -> None:
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise ConfigError(f"max_turns: expected an int >= 1, got {max_turns!r}")
        RecordConstructorArgs.__init__(self, max_turns=max_turns)
        gym.Wrapper.__init__(self, env)
        base = _edit_env(env)
        self.max_turns = max_turns
        # the current document is an earlier answer (at most max_response_chars) or a patched
        # document (the source plus at most max_turns patches), in the action charset
        svg_len = base.observation_chars + max_turns * base.max_response_chars
        self.observation_space = spaces.Dict({
            **env.observation_space.spaces,
            "svg": spaces.Text(max_length=svg_len, min_length=0, charset=base.charset),
            "feedback": spaces.Text(max_length=FEEDBACK_CHARS, min_length=0, charset=BASE_CHARSET),
        })
        self._turn = 0
        self._last = 0.0
        self._feedback = ""

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: turn 0, empty feedback."""
        obs, info = self.env.reset(**kwargs)
        self._turn, self._last, self._feedback = 0, 0.0, ""
        return {**obs, "feedback": ""}, info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Score one answer; continue the episode unless it passed or was the last turn."""
        obs, answer_reward, _, _, info = self.env.step(action)
        base = self.env.unwrapped
        self._turn += 1
        terminated = float(getattr(base.last_report, "reward", 0.0) or 0.0) >= 1.0
        truncated = not terminated and self._turn >= self.max_turns
        reward, self._last = answer_reward - self._last, answer_reward
        info["turn"], info["answer_reward"] = self._turn, answer_reward
        feedback = self._advance(base, info)
        self._feedback = "".join(c if c in BASE_CHARSET else "?" for c in feedback)[:FEEDBACK_CHARS]
        if not (terminated or truncated):
            base.resume()
        return {**obs, "svg": base.current_svg, "feedback": self._feedback}, reward, terminated, truncated, info

    def _advance(self, base: EditEnv, info: dict[str, Any]) -> str:
        """Make the scored document current when it can be shown; return the feedback."""
        from vector_gym.suites._feedback import not_scored_feedback

        if "response_not_text" in info:
            return not_scored_feedback(f"not_text:{info['response_not_text']}")
        if info.get("response_too_long"):
            return not_scored_feedback("too_long", base.max_response_chars)
        error = info.get("action_error")
        candidate = None if error else base.answer_svg
        if candidate is not None and self.observation_space["svg"].contains(candidate):
            base.current_svg = candidate
        return base.suite.feedback(base.last_report, error)


class ImageObservation(_Forward, gym.ObservationWrapper, RecordConstructorArgs):
    """Add ``obs["image"]``: the current document rendered at ``size = (H, W)`` (module docstring).

    Raises
    ------
    ConfigError
        ``size`` not two ints in 1..4096.
    """

    def __init__(self, env: gym.Env, size: tuple[int, int] = (224, 224), backend: str = "skia") -> None:
        from vector_gym.render.batch import _check_size

        h, w = _check_size(size, "render_observation", 4096)
        RecordConstructorArgs.__init__(self, size=(h, w), backend=backend)
        gym.ObservationWrapper.__init__(self, env)
        self.size, self.backend = (h, w), backend
        self.observation_space = spaces.Dict(
            {**env.observation_space.spaces, "image": spaces.Box(0, 255, (h, w, 3), np.uint8)}
        )
        self._images: OrderedDict[str, np.ndarray] = OrderedDict()

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The observation plus the rendered ``"svg"`` (renders cached per document)."""
        svg = observation["svg"]
        img = self._images.get(svg)
        if img is None:
            from vector_gym.render import render_many

            img = render_many([svg], size=self.size, backend=self.backend).images[0].copy()
            img.setflags(write=False)
            self._images[svg] = img
            while len(self._images) > 64:
                self._images.popitem(last=False)
        return {**observation, "image": img.copy()}


class ProgressShaping(_Forward, gym.Wrapper, RecordConstructorArgs):
    """Step reward ``report.reward + weight * report.repair_progress`` (module docstring).

    Raises
    ------
    ConfigError
        ``weight`` negative or not finite, or a suite whose reports carry no repair progress.
    """

    def __init__(self, env: gym.Env, weight: float = 0.2) -> None:
        from vector_gym.suites.vector_bench import _check_weight

        RecordConstructorArgs.__init__(self, weight=weight)
        gym.Wrapper.__init__(self, env)
        self.weight = _check_weight(weight)
        if _edit_env(env).suite.summary != "spec":
            raise ConfigError("progress shaping needs a suite scored by the specification reward (repair_progress)")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Score, then replace the reward by the shaped one."""
        from vector_gym.suites.vector_bench import spec_reward

        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, spec_reward(info["report"], self.weight), terminated, truncated, info


def wrap(
    env: gym.Env,
    *,
    action_format: str = "svg",
    max_turns: int = 1,
    render_observation: tuple[int, int] | None = None,
    render_backend: str = "skia",
    progress_weight: float | None = None,
) -> gym.Env:
    """Apply the variant wrappers in their one order (module docstring); defaults add none.

    Raises
    ------
    ConfigError
        Unknown ``action_format``, or a wrapper's own error.
    """
    if action_format not in ACTION_FORMATS:
        raise ConfigError(f"action_format: expected 'svg' or 'patch', got {action_format!r}")
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
        raise ConfigError(f"max_turns: expected an int >= 1, got {max_turns!r}")
    if progress_weight is not None:
        env = ProgressShaping(env, progress_weight)
    if action_format == "patch":
        env = PatchActions(env)
    if max_turns > 1:
        env = MultiTurn(env, max_turns)
    if render_observation is not None:
        env = ImageObservation(env, render_observation, render_backend)
    return env


def env_factory(cls: type[EditEnv]) -> Any:
    """A registered id's entry point: ``cls(**kwargs)`` with the variant wrappers of :func:`wrap`.

    The returned callable takes ``action_format``, ``max_turns`` and ``render_observation`` (the
    image is rendered with the env's ``backend`` keyword when it has one) and passes every other
    keyword to ``cls``.
    """

    def make(action_format: str = "svg", max_turns: int = 1, render_observation: tuple[int, int] | None = None,
             **kwargs: Any) -> gym.Env:
        return wrap(cls(**kwargs), action_format=action_format, max_turns=max_turns,
                    render_observation=render_observation, render_backend=kwargs.get("backend", "skia"))

    make.__name__ = make.__qualname__ = f"make_{cls.__name__}"
    make.__doc__ = f"Entry point of ``{cls.env_id}``: :class:`{cls.__name__}` with the variant wrappers."
    return make


def _layers(env: gym.Env) -> list[Any]:
    out = [env]
    while isinstance(out[-1], gym.Wrapper):
        out.append(out[-1].env)
    return out


def episode_state(env: gym.Env) -> list[tuple[Any, dict[str, Any]]]:
    """The episode in flight of ``env`` (every layer's ``EPISODE_FIELDS``), for :func:`restore_episode`.

    Lets one env hold many episodes in turn (a rollout plays a batch of multi-turn episodes
    without replaying earlier answers).
    """
    return [(layer, {f: getattr(layer, f) for f in layer.EPISODE_FIELDS}) for layer in _layers(env)
            if getattr(type(layer), "EPISODE_FIELDS", None)]


def restore_episode(state: list[tuple[Any, dict[str, Any]]]) -> None:
    """Make a saved episode (:func:`episode_state`) the env's current one."""
    for layer, fields in state:
        for name, value in fields.items():
            setattr(layer, name, value)


def answer_text(env: gym.Env, action: Any) -> Any:
    """What ``env.step(action)`` hands the scorer (a patch applied to the current document)."""
    base = env.unwrapped
    if any(isinstance(layer, PatchActions) for layer in _layers(env)):
        action = PatchActions.decode(action, base.current_svg, base.max_response_chars)[0]
    if not isinstance(action, str) or len(action) > base.max_response_chars:
        return ""
    return action
