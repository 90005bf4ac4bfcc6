"""OpenAICompatiblePolicy: budgets fitted to the server's context, greedy with n > 1.

Against a server on 127.0.0.1 started by the test that behaves like vLLM's
OpenAI-compatible one where it matters here: ``GET /v1/models`` lists the model with
its ``max_model_len``, ``POST /tokenize`` counts a chat prompt (one token per
character of the messages' content), and ``/v1/chat/completions`` answers HTTP 400
when prompt + ``max_tokens`` exceed the context or when ``n > 1`` with temperature 0
(vLLM: "n must be 1 when using greedy sampling"). The real server is exercised in
``test_vllm_engine.py``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vector_gym.policies.openai_policy import OpenAICompatiblePolicy
from vector_gym.policies.templates import build_messages


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, models=True, tokenize=True):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.models, self.tokenize = models, tokenize
        self.chat_bodies: list[dict] = []
        self.paths: list[str] = []

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def _count(messages):
    return sum(len(m["content"]) for m in messages)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        srv = self.server
        with srv.lock:
            srv.paths.append("GET " + self.path)
        if self.path == "/v1/models" and srv.models:
            return self._send(200, {"data": [{"id": "m", "max_model_len": CONTEXT}]})
        return self._send(404, {"error": "not found"})

    def do_POST(self):
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with srv.lock:
            srv.paths.append("POST " + self.path)
        if self.path == "/tokenize" and srv.tokenize:
            return self._send(200, {"count": _count(body["messages"]), "max_model_len": CONTEXT})
        if self.path != "/v1/chat/completions":
            return self._send(404, {"error": "not found"})
        with srv.lock:
            srv.chat_bodies.append(body)
        n = body.get("n", 1)
        prompt = _count(body["messages"])
        if body.get("temperature") == 0 and n > 1:
            return self._send(400, {"error": {"message": "n must be 1 when using greedy sampling"}})
        if prompt + body["max_tokens"] > CONTEXT:
            return self._send(400, {"error": {"message": "maximum context length exceeded"}})
        choices = [
            {"index": k, "message": {"content": f"<svg k='{k}' s='{body.get('seed')}'/>"},
             "finish_reason": "stop"}
            for k in range(n)
        ]
        usage = {"prompt_tokens": prompt, "completion_tokens": 5 * n}
        return self._send(200, {"choices": choices, "usage": usage})


@pytest.fixture
def server():
    srv = _Server()
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _obs(svg="<svg/>", i=0):
    return {"instruction": f"fix {i}", "svg": svg, "family": "vector-bench", "task_id": f"t{i}"}


def _prompt_len(policy, obs):
    return _count(build_messages([obs])[0])


#: The server's context: room for 100 tokens after the shortest prompt of these tests.
CONTEXT = _count(build_messages([_obs()])[0]) + 100


def test_budget_clamped_to_context_no_http_400(server):
    policy = OpenAICompatiblePolicy("m", server.base_url, native_n=True, temperature=1.0, seed=1)
    obs = [_obs(i=0), _obs("<svg>" + "x" * 40 + "</svg>", i=1)]
    rows = policy.generate(obs, n=2)
    assert policy.stats.status_counts == {200: 2}
    assert policy.max_model_len == CONTEXT
    for o, row in zip(obs, rows, strict=True):
        room = CONTEXT - _prompt_len(policy, o)
        b = row[0].budget
        assert (b["requested"], b["used"], b["prompt_tokens"], b["context"]) == (
            8192, room, CONTEXT - room, CONTEXT
        )
        assert b["clamped"] and b["below_minimum"] and row[0].finish_reason == "stop"
        assert policy.token_budget(o) == room  # what a rollout records
    assert sorted(b["max_tokens"] for b in server.chat_bodies) == sorted(
        CONTEXT - _prompt_len(policy, o) for o in obs
    )
    # /v1/models is read once; each prompt is tokenized once (cached for token_budget).
    assert server.paths.count("GET /v1/models") == 1
    assert server.paths.count("POST /tokenize") == 2


def test_prompt_over_context_is_a_named_error_and_not_sent(server):
    policy = OpenAICompatiblePolicy("m", server.base_url, max_tokens=50)
    rows = policy.generate([_obs(i=0), _obs("<svg>" + "x" * 4000 + "</svg>", i=1)], n=2)
    assert [c.finish_reason for c in rows[1]] == ["error", "error"]
    assert rows[1][0].error.startswith("prompt_too_long:") and f"is {CONTEXT}" in rows[1][0].error
    assert [c.finish_reason for c in rows[0]] == ["stop", "stop"]
    assert len(server.chat_bodies) == 2 and policy.stats.failed == 2
    assert all(b["max_tokens"] == 50 for b in server.chat_bodies)  # 50 fits: not clamped
    assert rows[0][0].budget["clamped"] is False


def test_greedy_native_n_sends_one_request_and_repeats(server):
    for native in (True, False):
        server.chat_bodies.clear()
        policy = OpenAICompatiblePolicy("m", server.base_url, native_n=native, temperature=0.0)
        rows = policy.generate([_obs(i=0), _obs(i=1)], n=3)
        assert policy.stats.status_counts == {200: 2}
        assert len(server.chat_bodies) == 2 and all("n" not in b for b in server.chat_bodies)
        assert all(len(r) == 3 and len({c.text for c in r}) == 1 for r in rows)


def test_servers_without_models_or_tokenize_get_the_budget_unchanged():
    srv = _Server(models=False)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        policy = OpenAICompatiblePolicy("m", srv.base_url, max_tokens=10)
        (row,) = policy.generate([_obs()], n=1)
        assert row[0].budget["used"] == 10 and row[0].budget["context"] is None
        assert "POST /tokenize" not in srv.paths
        # Context given, no /tokenize route: no count, the budget is sent as is.
        srv.tokenize = False
        policy = OpenAICompatiblePolicy("m", srv.base_url, max_tokens=10, max_model_len=CONTEXT)
        (row,), _ = policy.generate([_obs(), _obs(i=1)], n=1)
        tried = srv.paths.count("POST /tokenize")
        assert 1 <= tried <= 2  # the batch's concurrent first tries, then never again
        policy.generate([_obs(i=2)], n=1)
        assert srv.paths.count("POST /tokenize") == tried
        assert srv.paths.count("GET /v1/models") == 1  # max_model_len given: not read
        assert row.budget["used"] == 10 and row.budget["prompt_tokens"] is None
        # fit_context=False: no probe at all.
        srv.paths.clear()
        OpenAICompatiblePolicy("m", srv.base_url, max_tokens=10, fit_context=False).generate([_obs()])
        assert srv.paths == ["POST /v1/chat/completions"]
    finally:
        srv.shutdown()
        srv.server_close()
