"""Bounded OpenAI-compatible client against hostile servers on 127.0.0.1 (issue 12).

Each server is a raw socket server started and stopped by the test; each attempt must end
within ``timeout_s`` + 1 s, a redirect must not carry the key anywhere, a huge body must not
cost memory, an unreachable server must stop the run, and requests in flight stay bounded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc

import pytest

from vector_gym.errors import ConfigError
from vector_gym.policies.openai_policy import OpenAICompatiblePolicy

OBS = {"instruction": "x", "svg": "<svg/>", "family": "svgeditbench-v1"}
OK = json.dumps({"choices": [{"message": {"content": "<svg/>"}, "finish_reason": "stop"}]}).encode()


class RawServer:
    """Accepts connections on 127.0.0.1 and hands each socket to ``behave(conn, request_bytes)``."""

    def __init__(self, behave):
        self.behave = behave
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.1)
        self.stop = threading.Event()
        self.requests: list[bytes] = []
        self.active = 0
        self.max_active = 0
        self.live: set = set()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def leave(self, conn):
        """Count ``conn`` as no longer in flight (call before the last bytes of an answer)."""
        with self.lock:
            if conn in self.live:
                self.live.discard(conn)
                self.active -= 1

    def _one(self, conn):
        with self.lock:
            self.live.add(conn)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, rest = data.partition(b"\r\n\r\n")
            length = int(next((ln.split(b":")[1] for ln in head.split(b"\r\n")
                               if ln.lower().startswith(b"content-length")), b"0"))
            while len(rest) < length:
                rest += conn.recv(65536)
            self.requests.append(head)
            self.behave(self, conn)
        except OSError:
            pass
        finally:
            self.leave(conn)
            conn.close()

    def drip(self, conn, data: bytes, every: float = 0.2, seconds: float = 8.0):
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end and not self.stop.is_set():
            conn.sendall(data[i % len(data): i % len(data) + 1])
            i += 1
            time.sleep(every)

    def close(self):
        self.stop.set()
        self.sock.close()
        self.thread.join(2)


@pytest.fixture
def serve():
    servers = []

    def make(behave):
        s = RawServer(behave)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


def _answer(conn, body=OK, extra=b""):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(body)).encode() + b"\r\n" + extra + b"\r\n")
    conn.sendall(body)  # not concatenated: the server shares the test's traced memory


BEHAVIOURS = {
    "silent": lambda srv, conn: srv.stop.wait(8),
    "drip_status_line": lambda srv, conn: srv.drip(conn, b"HTTP/1.1 200 OK\r\n"),
    "drip_headers": lambda srv, conn: (conn.sendall(b"HTTP/1.1 200 OK\r\n"),
                                      srv.drip(conn, b"X-Slow: aaaaaaaaaaaa\r\n")),
    "endless_100_continue": lambda srv, conn: srv.drip(conn, b"HTTP/1.1 100 Continue\r\n\r\n" * 50, every=0.01),
    "drip_body": lambda srv, conn: (conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"),
                                   srv.drip(conn, b" ")),
}


@pytest.mark.parametrize("kind", sorted(BEHAVIOURS))
def test_each_attempt_ends_within_timeout_plus_one_second(serve, kind):
    srv = serve(BEHAVIOURS[kind])
    policy = OpenAICompatiblePolicy("m", srv.url, timeout_s=1.0, max_retries=0, sleep=lambda s: None)
    t0 = time.monotonic()
    ((c,),) = policy.generate([OBS])
    elapsed = time.monotonic() - t0
    assert c.finish_reason == "error" and elapsed < 2.0, (kind, elapsed)
    # with retries: each attempt bounded, so the whole call is bounded by attempts * (timeout + 1)
    policy = OpenAICompatiblePolicy("m", srv.url, timeout_s=0.5, max_retries=2, sleep=lambda s: None)
    t0 = time.monotonic()
    ((c,),) = policy.generate([OBS])
    assert c.finish_reason == "error" and time.monotonic() - t0 < 3 * 1.5
    assert policy.stats.requests == 3


def test_redirects_are_not_followed_and_the_key_goes_nowhere_else(serve):
    other = serve(lambda srv, conn: _answer(conn))
    location = other.url + "/chat/completions"
    first = serve(lambda srv, conn: conn.sendall(
        b"HTTP/1.1 302 Found\r\nLocation: " + location.encode() + b"\r\nContent-Length: 0\r\n\r\n"))
    policy = OpenAICompatiblePolicy("m", first.url, api_key="sk-secret", max_retries=0, timeout_s=2)
    with pytest.raises(ConfigError, match="redirects are not followed"):
        policy.generate([OBS])
    assert other.requests == []  # the second server never saw a request, let alone the key
    assert b"sk-secret" in first.requests[0]


def _traced(policy):
    """One completion and the peak traced memory (bytes) of getting it."""
    tracemalloc.start()
    try:
        ((c,),) = policy.generate([OBS])
        return c, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_body_of_millions_of_choices_costs_no_memory(serve):
    huge = b'{"choices": [' + b",".join([b"{}"] * 10_000_000) + b"]}"
    srv = serve(lambda srv, conn: _answer(conn, huge))
    c, peak = _traced(OpenAICompatiblePolicy("m", srv.url, max_retries=0, timeout_s=5))
    assert c.finish_reason == "error" and peak < 5_000_000  # refused from Content-Length
    # under the byte cap: the object bound stops the parse, and only n choices are kept
    within = b'{"choices": [' + b",".join([b'{"message": {"content": "a"}}'] * 3 + [b"{}"] * 1_000_000) + b"]}"
    srv2 = serve(lambda srv, conn: _answer(conn, within))
    c, peak = _traced(OpenAICompatiblePolicy("m", srv2.url, max_retries=0, timeout_s=5))
    assert c.finish_reason == "error" and peak < 30_000_000
    few = b'{"choices": [' + b",".join([b'{"message": {"content": "a"}}'] * 50) + b"]}"
    srv3 = serve(lambda srv, conn: _answer(conn, few))
    policy = OpenAICompatiblePolicy("m", srv3.url, max_retries=0, timeout_s=5, native_n=True)
    (cs,) = policy.generate([OBS], n=2)
    assert [c.text for c in cs] == ["a", "a"]


def test_an_unreachable_server_stops_the_run_with_a_clear_error(capsys, tmp_path):
    from vector_gym.cli import main

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connection refused
    t0 = time.monotonic()
    code = main(["eval", "--policy", "openai:m", "--base-url", f"http://127.0.0.1:{port}/v1",
                 "--limit", "5", "--out", str(tmp_path / "run.jsonl"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "cannot reach the server" in err and "Traceback" not in err
    assert time.monotonic() - t0 < 10
    assert (tmp_path / "run.jsonl").read_text() == ""  # no rows of errors were recorded


def test_requests_in_flight_are_bounded_across_callers(serve):
    def slow(srv, conn):
        time.sleep(0.15)
        srv.leave(conn)  # before the client can read the answer and start its next request
        _answer(conn)

    srv = serve(slow)
    policy = OpenAICompatiblePolicy("m", srv.url, max_concurrency=2, max_retries=0, timeout_s=5)
    threads = [threading.Thread(target=policy.generate, args=([OBS] * 4,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert policy.stats.requests == 12 and srv.max_active <= 2


def test_http_proxy_from_the_environment_is_used(serve, monkeypatch):
    proxy = serve(lambda srv, conn: _answer(conn))
    monkeypatch.setenv("http_proxy", proxy.url.rsplit("/", 1)[0])
    monkeypatch.setenv("no_proxy", "")
    policy = OpenAICompatiblePolicy("m", "http://api.invalid:9/v1", max_retries=0, timeout_s=2)
    ((c,),) = policy.generate([OBS])
    assert c.text == "<svg/>"
    assert proxy.requests[0].startswith(b"POST http://api.invalid:9/v1/chat/completions HTTP/1.1")
