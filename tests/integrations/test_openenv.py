"""OpenEnv (openenv-core 0.3.0): the server on 127.0.0.1, 8 concurrent WebSocket sessions
stepping to a pass, started and stopped by the test."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from vector_gym.suites import get_suite

pytest.importorskip("openenv", reason="openenv-core is installed by .ci/run (vector-gym[openenv])")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(suite: str, max_turns: int = 2):
    """Start ``python -m vector_gym.integrations.openenv`` on 127.0.0.1 (bounded start), yield its
    URL, stop it."""
    port = _free_port()
    env = dict(os.environ, ENABLE_WEB_INTERFACE="false")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vector_gym.integrations.openenv", "--suite", suite, "--port", str(port),
         "--max-turns", str(max_turns), "--max-concurrent", "16"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.poll() is not None else ""
                pytest.fail(f"OpenEnv server did not start: {out[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture()
def server():
    with serve("vector_bench", max_turns=2) as url:
        yield url


def test_eight_concurrent_sessions_step_to_a_pass(server):
    from openenv.core.generic_client import GenericEnvClient

    tasks = get_suite("vector_bench").tasks()[:8]

    async def episode(task):
        async with GenericEnvClient(base_url=server, message_timeout_s=60) as env:
            r = await env.reset(task_id=task.task_id)
            assert r.observation["task_id"] == task.task_id and r.done is False
            assert r.observation["prompt"][-1]["role"] == "user"
            assert task.target_svg not in str(r.observation)
            first = await env.step({"answer": "<svg><g></svg>"})
            assert first.done is False and first.observation["passed"] is False
            assert first.observation["message"]["role"] == "user"
            assert "not well-formed" in first.observation["message"]["content"]
            second = await env.step({"answer": task.target_svg})
            state = await env.state()
            return first, second, state

    async def run_all():
        return await asyncio.wait_for(asyncio.gather(*(episode(t) for t in tasks)), timeout=120)

    results = asyncio.run(run_all())
    for task, (first, second, state) in zip(tasks, results, strict=True):
        assert second.done is True and second.observation["passed"] is True
        assert second.observation["answer_reward"] == pytest.approx(1.2)
        assert second.reward == pytest.approx(1.2) and first.reward == 0.0  # step rewards sum to R_T
        assert second.observation["report"]["specification_pass"] is True
        assert state["task_id"] == task.task_id and state["step_count"] == 2
    assert len({s["episode_id"] for _, _, s in results}) == 8  # one episode per session


def test_environment_in_process():
    from vector_gym.integrations.openenv import environment_factory, models

    EditAction, _, _ = models()
    env = environment_factory("vector_bench")()
    obs = env.reset(seed=21)
    assert obs.task_id == "sv_002"  # seed 21 mod 20 tasks
    step = env.step(EditAction(answer=get_suite("vector_bench").get_task("sv_002").target_svg))
    assert step.done and step.passed and step.reward == pytest.approx(1.2) and step.message is None
