"""OpenAICompatiblePolicy against a real HTTP server on 127.0.0.1 started by the test.

The server answers in the OpenAI chat-completions format and scripts failures
from the instruction text: ``fail429`` answers 429 with ``Retry-After: 0.25`` to
the first attempt, ``fail500x2`` answers 500 to the first two, ``always503``
always fails, ``badrequest`` answers 400. It counts requests in flight.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Policy
from vector_gym.policies.openai_policy import OpenAICompatiblePolicy, _parse_retry_after
from vector_gym.policies.templates import content_text


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, honour_n: bool = True, status: int | None = None, handler=None):
        super().__init__(("127.0.0.1", 0), handler or _Handler)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.attempts: Counter = Counter()
        self.bodies: list[dict] = []
        self.headers_seen: list[dict] = []
        self.honour_n = honour_n
        self.status = status

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, status: int, payload: dict, headers: dict | None = None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self._leave()  # before the client can see the answer and send its next request
        self.wfile.write(data)

    def _leave(self):
        srv: _Server = self.server
        with srv.lock:
            if getattr(self, "_in", False):
                srv.in_flight -= 1
                self._in = False

    def do_POST(self):
        srv: _Server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with srv.lock:
            srv.in_flight += 1
            self._in = True
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
            srv.bodies.append(body)
            srv.headers_seen.append(dict(self.headers))
            user = content_text(body["messages"][-1]["content"])  # image messages: their text
            key = (user, body.get("seed"))
            srv.attempts[key] += 1
            attempt = srv.attempts[key]
        try:
            time.sleep(0.03)  # overlap requests so the concurrency bound is exercised
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            if srv.status is not None:
                return self._send(srv.status, {"error": {"message": "scripted"}})
            if "fail429" in user and attempt == 1:
                return self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": "0.25"})
            if "fail500x2" in user and attempt <= 2:
                return self._send(500, {"error": {"message": "boom"}})
            if "always503" in user:
                return self._send(503, {"error": {"message": "overloaded"}})
            if "badrequest" in user:
                return self._send(400, {"error": {"message": "context too long"}})
            n = body.get("n", 1) if srv.honour_n else 1
            length = body.get("max_tokens", 100) < 10
            choices = [
                {
                    "index": k,
                    "message": {
                        "role": "assistant",
                        "content": f"<svg id='s{body.get('seed')}-{k}'/>",
                    },
                    "finish_reason": "length" if length else "stop",
                }
                for k in range(n)
            ]
            usage = {
                "prompt_tokens": len(user),
                "completion_tokens": 7 * n,
                "total_tokens": len(user) + 7 * n,
            }
            return self._send(
                200,
                {
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": choices,
                    "usage": usage,
                },
            )
        finally:
            self._leave()


@pytest.fixture
def server_factory():
    servers = []

    def make(**kwargs) -> _Server:
        srv = _Server(**kwargs)
        threading.Thread(
            target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        servers.append(srv)
        return srv

    yield make
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def _obs(instruction: str) -> dict:
    return {"instruction": instruction, "svg": "<svg/>", "family": "svgeditbench-v2"}


def test_retries_concurrency_usage(server_factory, monkeypatch):
    srv = server_factory()
    monkeypatch.setenv("VG_TEST_KEY", "sk-test")
    sleeps: list[float] = []

    def sleep(seconds):
        sleeps.append(seconds)
        time.sleep(min(seconds, 0.01))

    policy = OpenAICompatiblePolicy(
        "tiny-model",
        srv.base_url,
        api_key_env="VG_TEST_KEY",
        max_concurrency=3,
        max_retries=3,
        backoff_base_s=0.02,
        backoff_max_s=0.05,
        seed=100,
        max_tokens=64,
        sleep=sleep,
    )
    assert isinstance(policy, Policy) and policy.name == "openai:tiny-model"
    obs = [_obs(f"ok {i}") for i in range(4)] + [_obs("fail429"), _obs("fail500x2")]
    rows = policy.generate(obs, n=2)

    assert [len(r) for r in rows] == [2] * 6
    flat = [c for r in rows for c in r]
    assert all(c.finish_reason == "stop" and c.completion_tokens == 7 for c in flat)
    # usage.prompt_tokens is echoed per completion (the server reports len(user message)).
    user0 = "The following is the SVG code representing an image. ok 0 Only return the output SVG code.\n\n```svg\n<svg/>\n```"
    assert [c.prompt_tokens for c in rows[0]] == [len(user0)] * 2
    # Seeds: seed + i * n + j, distinct across the batch.
    assert [c.text for c in rows[0]] == ["<svg id='s100-0'/>", "<svg id='s101-0'/>"]
    assert len({c.text for c in flat}) == 12

    # Retries: fail429 twice (first attempt of each of its 2 completions), fail500x2 four times.
    assert policy.stats.retries == 2 + 4
    assert policy.stats.status_counts == {200: 12, 429: 2, 500: 4}
    assert policy.stats.requests == len(srv.bodies) == 18
    assert sleeps.count(0.25) == 2  # Retry-After honoured exactly
    backoffs = [s for s in sleeps if s != 0.25]
    assert len(backoffs) == 4 and all(0 <= s <= 0.05 for s in backoffs)
    # Same model on every request, retries included; key from the env var.
    assert {b["model"] for b in srv.bodies} == {"tiny-model"}
    assert {h["Authorization"] for h in srv.headers_seen} == {"Bearer sk-test"}
    # The concurrency bound held and was used.
    assert 2 <= srv.max_in_flight <= 3


def test_default_budget_is_sent_per_request(server_factory):
    """Without max_tokens every request carries its observation's protocol budget, never none."""
    srv = server_factory()
    policy = OpenAICompatiblePolicy("m", srv.base_url, sleep=lambda s: None)
    long = {"instruction": "ok long", "svg": "x" * 30_000, "family": "vector-bench"}
    rows = policy.generate([_obs("ok v2"), long])
    by_user = {b["messages"][-1]["content"]: b["max_tokens"] for b in srv.bodies}
    assert sorted(by_user.values()) == [8192, 17_048]  # V2: 8,192; 30,000 // 2 + 2,048
    assert policy.token_budget(long) == 17_048 and policy.token_budget(_obs("x")) == 8192
    assert all(r[0].finish_reason == "stop" for r in rows)
    assert OpenAICompatiblePolicy("m", srv.base_url, max_tokens=64).token_budget(long) == 64


def test_exhausted_retries_and_bad_request_become_error_completions(server_factory):
    srv = server_factory()
    policy = OpenAICompatiblePolicy(
        "m", srv.base_url, max_retries=2, backoff_base_s=0.001, max_tokens=5, sleep=lambda s: None
    )
    rows = policy.generate([_obs("always503"), _obs("badrequest"), _obs("fine")])
    assert [(c.text, c.finish_reason) for c in rows[0]] == [("", "error")]
    assert [(c.text, c.finish_reason) for c in rows[1]] == [("", "error")]
    assert (
        rows[2][0].finish_reason == "length" and rows[2][0].truncated
    )  # max_tokens < 10 in the script
    assert policy.stats.status_counts == {503: 3, 400: 1, 200: 1}
    assert policy.stats.failed == 2 and policy.stats.retries == 2


def test_native_n_and_servers_that_ignore_it(server_factory):
    srv = server_factory()
    policy = OpenAICompatiblePolicy("m", srv.base_url, native_n=True, seed=0)
    (row,) = policy.generate([_obs("x")], n=3)
    assert len(srv.bodies) == 1 and srv.bodies[0]["n"] == 3
    assert [c.text for c in row] == ["<svg id='s0-0'/>", "<svg id='s0-1'/>", "<svg id='s0-2'/>"]
    assert all(c.completion_tokens is None and c.prompt_tokens is not None for c in row)

    deaf = server_factory(honour_n=False)
    policy = OpenAICompatiblePolicy("m", deaf.base_url, native_n=True, seed=0)
    (row,) = policy.generate([_obs("x")], n=3)
    assert len(deaf.bodies) == 3  # asked again for the missing choices
    assert [c.completion_tokens for c in row] == [7, 7, 7]
    assert len({c.text for c in row}) == 3  # each re-ask moved the seed on


def test_auth_errors_raise_at_once(server_factory):
    srv = server_factory(status=401)
    policy = OpenAICompatiblePolicy("m", srv.base_url, max_retries=5, sleep=lambda s: None)
    with pytest.raises(ConfigError, match="HTTP 401"):
        policy.generate([_obs("x")])
    assert policy.stats.retries == 0


def test_connection_refused_on_the_first_tries_stops_the_run(server_factory):
    from vector_gym.policies.openai_policy import ServerUnreachableError

    srv = server_factory()
    url = srv.base_url
    srv.shutdown()
    srv.server_close()
    policy = OpenAICompatiblePolicy("m", url, max_retries=1, timeout_s=2, sleep=lambda s: None)
    with pytest.raises(ServerUnreachableError, match="cannot reach the server"):
        policy.generate([_obs("x")] * 5)
    assert policy.stats.status_counts[0] <= 2 * policy.max_concurrency


def test_retry_after_forms():
    assert _parse_retry_after("0.25") == 0.25
    assert _parse_retry_after("-3") == 0.0
    assert _parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert _parse_retry_after("") is None


class _Rogue(BaseHTTPRequestHandler):
    """A misbehaving server: the user message names what goes wrong with the answer."""

    def log_message(self, *args):
        pass

    def _raw(self, status: int, data: bytes, length: int | None = None):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.end_headers()
        self.wfile.write(data)

    def _choice(self, choice) -> bytes:
        return json.dumps({"choices": [choice], "usage": {"prompt_tokens": 3}}).encode()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]  # the v1 template: the instruction only
        try:
            if user == "content_null":
                return self._raw(200, self._choice({"message": {"content": None}}))
            if user == "content_parts":
                parts = [{"type": "text", "text": "<svg"}, {"type": "text", "text": "/>"}]
                return self._raw(200, self._choice({"message": {"content": parts}}))
            if user == "content_number":
                return self._raw(200, self._choice({"message": {"content": 7}, "finish_reason": 3}))
            if user == "message_string":
                return self._raw(200, self._choice({"message": "hi", "finish_reason": "stop"}))
            if user == "choice_string":
                return self._raw(200, json.dumps({"choices": ["hi"]}).encode())
            if user == "index_null":
                data = {
                    "choices": [{"index": None, "message": {"content": "a"}}],
                    "usage": [1, 2],
                }
                return self._raw(200, json.dumps(data).encode())
            if user == "error_body":
                return self._raw(200, b'{"error": {"message": "overloaded"}}')
            if user == "not_json":
                return self._raw(200, b"{not json")
            if user == "deep_json":
                return self._raw(200, b"[" * 40_000 + b"]" * 40_000)
            if user == "cut_short":  # promises 1000 bytes, sends 13, closes
                self._raw(200, b'{"choices": [', length=1000)
                self.close_connection = True
                return self.connection.shutdown(socket.SHUT_RDWR)
            if user == "not_http":
                self.wfile.write(b"HELLO\r\n\r\n")
                self.close_connection = True
                return None
            if user == "huge":
                content = "<svg>" + "a" * 300_000 + "</svg>"
                return self._raw(200, self._choice({"message": {"content": content}}))
            if user == "drip":  # headers at once, then one byte every 50 ms for 3 s
                self.send_response(200)
                self.send_header("Content-Length", "100000")
                self.end_headers()
                for _ in range(60):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.05)
                return None
            return self._raw(200, self._choice({"message": {"content": "<svg/>"}}))
        except OSError:  # the client hung up (drip, huge): expected
            return None


@pytest.mark.parametrize(
    ("kind", "text", "finish_reason", "prompt_tokens", "requests"),
    [
        ("content_null", "", None, 3, 1),
        ("content_parts", "<svg/>", None, 3, 1),
        ("content_number", "", None, 3, 1),
        ("message_string", "", "stop", 3, 1),
        ("index_null", "a", None, None, 1),
        # Dropped choices are asked for once more (native_n=False asks for one).
        ("choice_string", "", "error", None, 1),
        # Retried (max_retries=1), then an error completion.
        ("error_body", "", "error", None, 2),
        ("not_json", "", "error", None, 2),
        ("deep_json", "", "error", None, 2),
        ("cut_short", "", "error", None, 2),
        ("not_http", "", "error", None, 2),
        ("drip", "", "error", None, 2),
        # Over max_response_bytes: not retried.
        ("huge", "", "error", None, 1),
    ],
)
def test_misbehaving_server_never_raises(
    server_factory, kind, text, finish_reason, prompt_tokens, requests
):
    """Whatever the server sends, generate returns one str completion; bad bodies become errors."""
    srv = server_factory(handler=_Rogue)
    policy = OpenAICompatiblePolicy(
        "m",
        srv.base_url,
        max_retries=1,
        timeout_s=0.5,  # the drip server needs 3 s for its body
        max_response_bytes=100_000,
        sleep=lambda s: None,
    )
    ((c,),) = policy.generate([{"instruction": kind, "svg": "<svg/>", "family": "svgeditbench-v1"}])
    assert isinstance(c.text, str)
    assert (c.text, c.finish_reason, c.prompt_tokens) == (text, finish_reason, prompt_tokens)
    assert policy.stats.requests == requests
    assert policy.stats.failed == (finish_reason == "error")


def test_seeds_never_repeat_when_n_changes(server_factory):
    srv = server_factory()
    policy = OpenAICompatiblePolicy("m", srv.base_url, seed=0)
    policy.generate([_obs("a"), _obs("b")], n=3)  # seeds 0..5
    policy.generate([_obs("c"), _obs("d")], n=1)  # seeds 6, 7
    assert sorted(b["seed"] for b in srv.bodies) == list(range(8))


def test_image_observations_send_a_png_data_uri_before_the_text(server_factory):
    """An observation with an ``image`` is sent as [image_url (PNG data URI), text]; the PNG
    decodes to the observation's pixels exactly; a text observation in the same batch stays text."""
    import base64
    import io

    import numpy as np
    from PIL import Image

    srv = server_factory()
    policy = OpenAICompatiblePolicy("vlm", srv.base_url, max_tokens=64, sleep=lambda s: None)
    image = np.zeros((6, 10, 3), np.uint8)
    image[:3] = (255, 0, 0)  # red top half on black
    rows = policy.generate([{**_obs("ok image"), "image": image}, _obs("ok text")])
    assert [r[0].finish_reason for r in rows] == ["stop", "stop"]
    by_text = {content_text(b["messages"][-1]["content"]): b for b in srv.bodies}
    text_only = policy.generate([_obs("ok image")])  # the same prompt without the image
    assert len(srv.bodies) == 3
    plain = srv.bodies[-1]["messages"]
    sent = by_text[plain[-1]["content"]]["messages"]
    assert sent[:-1] == plain[:-1]  # the system message (if any) is unchanged
    picture, text = sent[-1]["content"]
    assert text == {"type": "text", "text": plain[-1]["content"]}
    assert picture["type"] == "image_url"
    prefix, b64 = picture["image_url"]["url"].split(",", 1)
    assert prefix == "data:image/png;base64"
    decoded = np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB"))
    assert np.array_equal(decoded, image)
    other = next(b for b in srv.bodies[:2] if b is not by_text[plain[-1]["content"]])
    assert isinstance(other["messages"][-1]["content"], str)
    assert text_only[0][0].prompt_tokens == len(plain[-1]["content"])  # the server saw the text
