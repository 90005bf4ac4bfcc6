"""A policy that calls any OpenAI-compatible ``/v1/chat/completions`` server.

Layer 5. Works with ``vllm serve``, SGLang, llama.cpp's server, hosted APIs and
anything else that speaks the chat-completions format. Standard library only
(``http.client``; ``HTTP(S)_PROXY`` and ``NO_PROXY`` are honoured): requests run
on a bounded thread pool (network I/O releases the GIL), failed requests are
retried against the same model with capped exponential backoff and full jitter,
honouring ``Retry-After``.

Retry policy
------------
* HTTP 429, any 5xx, a connection error (reset, closed early, not HTTP), a
  timeout or an unreadable body (not JSON, no ``choices`` list, a 200 carrying
  an ``error`` object): retried up to ``max_retries`` times, then recorded as a
  completion with ``finish_reason "error"`` (the rollout goes on).
* A server never reached (connection refused, unknown host, unreachable
  network, no connection within ``timeout_s``) on the first 3 tries (fewer
  when ``max_retries`` is lower) raises :class:`ServerUnreachableError` (a
  :class:`~vector_gym.errors.ConfigError`): the run stops with a clear message
  instead of recording every task as an error. Once the server has answered,
  later refusals are retried as above (a restart mid-run).
* HTTP 401, 403, 404: raised at once as :class:`~vector_gym.errors.ConfigError`
  (wrong key, URL or model name: every other request would fail the same way).
* A redirect (3xx) is never followed (the ``Authorization`` header is never
  sent to another address): raised at once as ConfigError naming the target.
* Any other 4xx (a prompt over the context window, ...), a body over
  ``max_response_bytes`` (refused from its ``Content-Length`` before it is
  read, else cut off while reading) or one holding more than 10,000 + 64 n JSON
  objects (parsing stops there): not retried, recorded as a ``finish_reason
  "error"`` completion.

Malformed parts of a readable body never raise: a choice that is not an object
is dropped (and asked for again), a ``content`` that is null or not text gives
``""`` (a list of content parts gives their joined ``text``), token counts that
are not non-negative integers give None, a ``finish_reason`` that is not a
string gives None; choices beyond the ``n`` asked for are ignored.

Time bound: one attempt (connect, request, status line, headers, any number of
``100 Continue`` interim responses, body) ends by ``timeout_s``: a watchdog
shuts the socket down at the deadline, so a server that drips its status line,
headers or body, or never answers, is cut off. One completion therefore takes
at most ``(max_retries + 1) * timeout_s`` plus the waits, each at most
``max(backoff_max_s, retry_after_max_s)``: with the defaults, a server that
answers 429 with ``Retry-After: 300`` forever costs each request 6 waits of
300 s and then an ``"error"`` completion. At most ``max_concurrency`` requests
of one policy are in flight at once, however many threads call
:meth:`OpenAICompatiblePolicy.generate`.
"""

from __future__ import annotations

import dataclasses
import email.utils
import errno
import hashlib
import http.client
import json
import logging
import os
import random
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion
from vector_gym.policies.budget import BudgetDecision, fit_budget, minimum_budget
from vector_gym.policies.multimodal import build_chat
from vector_gym.policies.templates import (
    ChatTemplate,
    content_text,
    default_max_tokens,
)

__all__ = ["OpenAICompatiblePolicy", "RequestStats", "ServerUnreachableError", "make_openai_policy"]

log = logging.getLogger(__name__)

_FATAL_STATUS = frozenset({401, 403, 404})


@dataclass
class RequestStats:
    """Counters over the life of a policy (thread-safe updates).

    Attributes
    ----------
    requests : int
        HTTP requests sent, retries included.
    retries : int
        Requests that were retries of a failed one.
    status_counts : dict of int to int
        HTTP status -> count (0 for connection errors and timeouts).
    failed : int
        Completions recorded with ``finish_reason "error"``.
    """

    requests: int = 0
    retries: int = 0
    failed: int = 0
    status_counts: dict[int, int] = field(default_factory=dict)


class _RetryableError(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _PermanentError(Exception):
    pass


class _Unreachable(_RetryableError):
    """No connection at all (refused, unknown host, unreachable network, connect timeout)."""


class _TooManyObjects(Exception):
    pass


class ServerUnreachableError(ConfigError):
    """The server could not be reached on the first tries: the run stops (no error rows)."""


#: Connection attempts (refused, unknown host, ...) before a server never reached stops the run.
_UNREACHABLE_TRIES = 3

#: JSON objects a response body may hold (plus 64 per requested choice) before parsing stops.
_MAX_OBJECTS = 10_000


def _parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    Examples
    --------
    >>> _parse_retry_after("3")
    3.0
    >>> _parse_retry_after(None) is None
    True
    >>> _parse_retry_after("soon") is None
    True
    """
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class OpenAICompatiblePolicy:
    """Generate answers through an OpenAI-compatible chat-completions endpoint.

    An observation that carries an ``"image"`` (``vector-gym eval --observation image``) is
    sent with an ``image_url`` content part holding the image as a PNG data URI before the
    text of its first user message (:mod:`vector_gym.policies.multimodal`); the server's
    model must read images (a vision-language model behind ``vllm serve``, ...).

    Parameters
    ----------
    model : str
        The served model name sent in every request (never changed on retry).
    base_url : str
        Server root including ``/v1``, e.g. ``"http://127.0.0.1:8000/v1"``.
    api_key : str, optional
        Bearer token. Default: the environment variable ``api_key_env``; no
        ``Authorization`` header when neither is set (local servers).
    api_key_env : str
        Environment variable read for the key, default ``"OPENAI_API_KEY"``.
    max_tokens : int, optional
        ``max_tokens`` sent with every request. None (default): each request
        carries the protocol's budget of its observation,
        :func:`~vector_gym.policies.templates.default_max_tokens` (Vector-Bench:
        ``max(8192, len(source) // 2 + 2048)``), never the server's default.
        Either is fitted to the server's context (``fit_context``).
    fit_context : bool
        True (default): send ``min(budget, max_model_len - prompt tokens)``
        (:func:`~vector_gym.policies.budget.fit_budget`), so a server with a
        context smaller than the budget is not asked for the impossible (HTTP
        400 on every row). ``max_model_len`` is read once from the server's
        ``GET /v1/models`` (vLLM's model cards carry it) unless given; prompt
        tokens come from vLLM's ``POST /tokenize`` (server root, the served
        chat template applied). A server without either gets the budget
        unchanged. A prompt that alone fills the context is not sent: its
        completions are ``"error"`` with the reason ``prompt_too_long``.
    max_model_len : int, optional
        The server's context window, tokens, when known (skips ``/v1/models``).
    temperature, top_p : float, optional
        Sampling settings; None leaves the server's defaults (the Vector-Bench
        protocol sets no temperature). Temperature 0 (greedy) sends one request
        per observation and repeats its answer ``n`` times (servers reject
        ``n > 1`` with greedy decoding, and n greedy answers are one answer).
    seed : int, optional
        Base seed. Completion j of observation i in a call is requested with
        ``seed + offset + i * n + j``, where ``offset`` counts the completions
        of earlier calls, so seeds never repeat across a run (even when ``n``
        changes between calls).
    max_concurrency : int
        Requests in flight at once (>= 1), across all callers of this policy.
    max_retries : int
        Retries per request after the first attempt (>= 0).
    timeout_s : float
        Time limit of one attempt, seconds: connect, status line, headers and
        the whole body must be done by then (module docstring).
    backoff_base_s, backoff_max_s : float
        Retry k waits ``uniform(0, min(backoff_max_s, backoff_base_s * 2**k))``
        seconds (full jitter), or the server's ``Retry-After`` when it sends
        one (capped at ``retry_after_max_s``).
    retry_after_max_s : float
        Longest ``Retry-After`` honoured, seconds.
    max_response_bytes : int
        Largest response body read, bytes (default 8 MiB; an SVG answer of
        8192 tokens is well under 100 kB); a larger body becomes an
        ``"error"`` completion without retry.
    native_n : bool
        False (default): one request per completion, so usage is exact per
        completion and servers without ``n`` support work. True: one request
        with ``"n": n`` per observation (prompt sent once); per-completion
        ``completion_tokens`` is then None when several choices share a usage.
    template, templates
        Chat template choice, see :func:`vector_gym.policies.templates.select_template`.
    extra_body : mapping, optional
        Extra JSON fields merged into every request body (``top_k``, ...).
    name : str, optional
        Label for rollouts; default ``"openai:<model>"``.
    sleep : callable, optional
        Replaces :func:`time.sleep` for backoff waits (tests).

    Attributes
    ----------
    stats : RequestStats
        Requests, retries, statuses and failures so far.

    Raises
    ------
    ConfigError
        For out-of-range arguments; from :meth:`generate` on HTTP 401/403/404.
    """

    def __init__(
        self,
        model: str,
        base_url: str = "http://127.0.0.1:8000/v1",
        *,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        max_concurrency: int = 8,
        max_retries: int = 6,
        timeout_s: float = 600.0,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 60.0,
        retry_after_max_s: float = 300.0,
        max_response_bytes: int = 8 * 1024 * 1024,
        native_n: bool = False,
        fit_context: bool = True,
        max_model_len: int | None = None,
        template: ChatTemplate | None = None,
        templates: Mapping[str, ChatTemplate] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        name: str | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if not model:
            raise ConfigError("model: expected a served model name, got an empty string")
        if int(max_concurrency) < 1:
            raise ConfigError(f"max_concurrency: expected >= 1, got {max_concurrency}")
        if int(max_retries) < 0:
            raise ConfigError(f"max_retries: expected >= 0, got {max_retries}")
        if max_tokens is not None and int(max_tokens) < 1:
            raise ConfigError(f"max_tokens: expected >= 1 or None, got {max_tokens}")
        if timeout_s <= 0:
            raise ConfigError(f"timeout_s: expected > 0, got {timeout_s}")
        if int(max_response_bytes) < 1:
            raise ConfigError(f"max_response_bytes: expected >= 1, got {max_response_bytes}")
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key if api_key is not None else os.environ.get(api_key_env)
        self.max_tokens = None if max_tokens is None else int(max_tokens)
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.max_concurrency = int(max_concurrency)
        self.max_retries = int(max_retries)
        self.timeout_s = float(timeout_s)
        self.backoff_base_s = float(backoff_base_s)
        self.backoff_max_s = float(backoff_max_s)
        self.retry_after_max_s = float(retry_after_max_s)
        self.max_response_bytes = int(max_response_bytes)
        self.native_n = bool(native_n)
        if max_model_len is not None and int(max_model_len) < 1:
            raise ConfigError(f"max_model_len: expected >= 1 or None, got {max_model_len}")
        self.fit_context = bool(fit_context)
        self.max_model_len = None if max_model_len is None else int(max_model_len)
        self._root = base_url.rstrip("/").removesuffix("/v1")
        self._models_url = base_url.rstrip("/") + "/models"
        self._context_probed = self.max_model_len is not None or not self.fit_context
        self._can_tokenize = self.fit_context
        self._prompt_tokens: dict[str, int] = {}
        self.template = template
        self.templates = templates
        self.extra_body = dict(extra_body or {})
        self.name = name or f"openai:{model}"
        self.stats = RequestStats()
        self._sleep = sleep or time.sleep
        self._lock = threading.Lock()
        self._rng = random.Random(seed)
        self._seed_offset = 0
        self._inflight = threading.BoundedSemaphore(self.max_concurrency)
        self._abort = threading.Event()
        self._reached = False  # any HTTP response seen: later refusals are retried as usual

    # -- public API -------------------------------------------------------------------------

    @property
    def greedy(self) -> bool:
        """True when ``temperature`` is 0 (greedy decoding: one answer per observation)."""
        return self.temperature is not None and float(self.temperature) == 0.0

    def budget(
        self, observation: Mapping[str, Any], messages: list[dict[str, Any]] | None = None
    ) -> BudgetDecision:
        """The budget of one observation's requests: ``max_tokens`` (else the protocol's)
        fitted to the server's context after the prompt (``fit_context``)."""
        requested = (
            self.max_tokens if self.max_tokens is not None else default_max_tokens(observation)
        )
        context = prompt = None
        if self.fit_context:
            context = self._context()
            if context is not None:
                if messages is None:
                    messages = build_chat([observation], self.template, self.templates)[0]
                prompt = self._count_prompt(messages)
        return fit_budget(requested, prompt, context, minimum_budget(observation))

    def token_budget(self, observation: Mapping[str, Any]) -> int:
        """Output token budget sent for ``observation`` (:meth:`budget`'s ``used``; 0 when
        the prompt alone fills the context and nothing is sent)."""
        return max(0, self.budget(observation).used)

    def generate(
        self, observations: Sequence[Mapping[str, Any]], n: int = 1
    ) -> list[list[Completion]]:
        """Answer each observation with ``n`` completions.

        Parameters
        ----------
        observations : sequence of mapping
            Length B; see :mod:`vector_gym.policies.templates` for the keys.
        n : int
            Completions per observation (>= 1).

        Returns
        -------
        list of list of Completion
            Shape (B, n), input order, with the server's ``usage`` token
            counts and ``finish_reason`` (``"stop"``, ``"length"`` ...), or
            ``finish_reason "error"`` and empty text for a request that failed
            after its retries.

        Raises
        ------
        ConfigError
            On HTTP 401, 403 or 404, a redirect, or a server never reached
            (:class:`ServerUnreachableError`).
        """
        if n < 1:
            raise ConfigError(f"n: expected >= 1, got {n}")
        conversations = build_chat(observations, self.template, self.templates)
        with self._lock:
            offset = self._seed_offset
            self._seed_offset += len(conversations) * n
        out: list[list[Completion | None]] = [[None] * n for _ in conversations]
        self._abort.clear()
        with ThreadPoolExecutor(
            max_workers=self.max_concurrency, thread_name_prefix="vg-openai"
        ) as pool:
            if self.fit_context:
                self._context()  # one probe, before the threads need it
            decisions = list(pool.map(self.budget, observations, conversations))
            jobs: list[tuple[int, int, int]] = []  # (observation, first completion index, count)
            for i, decision in enumerate(decisions):
                if not decision.fits:
                    failed = Completion(
                        text="",
                        prompt_tokens=decision.prompt_tokens,
                        finish_reason="error",
                        error=decision.error(),
                        budget=decision.to_dict(),
                    )
                    out[i] = [failed] * n
                    self._errors(n)
                elif self.greedy:  # one greedy answer, repeated n times
                    jobs.append((i, 0, 1))
                elif self.native_n:
                    jobs.append((i, 0, n))
                else:
                    jobs.extend((i, j, 1) for j in range(n))

            def run(job: tuple[int, int, int]) -> None:
                i, j0, count = job
                seed = None if self.seed is None else self.seed + offset + i * n + j0
                budget = decisions[i].to_dict()
                results = self._complete(conversations[i], count, seed, decisions[i].used)
                results = [dataclasses.replace(c, budget=budget) for c in results]
                if self.greedy:
                    results = results * n
                for k, completion in enumerate(results):
                    out[i][j0 + k] = completion

            futures = [pool.submit(run, job) for job in jobs]
            try:
                for future in futures:
                    future.result()  # re-raises ConfigError
            except BaseException:
                self._abort.set()  # the others stop at their next attempt
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return [list(row) for row in out]  # type: ignore[arg-type]

    # -- context window (fit_context) -------------------------------------------------------

    def _context(self) -> int | None:
        """The server's ``max_model_len`` from ``GET /v1/models`` (once), or the given one."""
        with self._lock:
            if self._context_probed:
                return self.max_model_len
            self._context_probed = True
        body = self._probe("GET", self._models_url, None)
        cards = body.get("data") if isinstance(body, Mapping) else None
        for card in cards if isinstance(cards, list) else []:
            if isinstance(card, Mapping) and card.get("id") == self.model:
                self.max_model_len = _nonneg_int(card.get("max_model_len")) or None
        if self.max_model_len is None:
            log.info("%s gives no max_model_len for %s: budgets not fitted", self._models_url, self.model)
        return self.max_model_len

    def _count_prompt(self, messages: list[dict[str, Any]]) -> int | None:
        """Prompt tokens of one conversation from vLLM's ``POST /tokenize``; cached, and
        None (no fitting) for a server without that route."""
        # a digest: an image observation's data URI is tens of kB
        key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8", "surrogatepass")).hexdigest()
        with self._lock:
            if key in self._prompt_tokens:
                return self._prompt_tokens[key]
            if not self._can_tokenize:
                return None
        body = self._probe(
            "POST",
            self._root + "/tokenize",
            {"model": self.model, "messages": messages, "add_generation_prompt": True},
        )
        count = _nonneg_int(body.get("count")) if isinstance(body, Mapping) else None
        with self._lock:
            if count is None:
                if self._can_tokenize:
                    log.info("%s/tokenize unavailable: budgets not fitted to prompts", self._root)
                self._can_tokenize = False
                return None
            if len(self._prompt_tokens) >= 65536:  # bounded memory over a long run
                self._prompt_tokens.clear()
            self._prompt_tokens[key] = count
        return count

    def _probe(self, method: str, url: str, body: Mapping[str, Any] | None) -> Any:
        """One JSON request for the budget probes through :meth:`_exchange` (bounded, no
        redirect followed, not counted in ``stats``): no retries, None on any failure."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        try:
            return json.loads(self._exchange(method, url, data, count=False))
        except (ConfigError, _RetryableError, _PermanentError, ValueError, RecursionError):
            return None

    def _complete(
        self, messages: list[dict[str, Any]], count: int, seed: int | None, max_tokens: int
    ) -> list[Completion]:
        """Return ``count`` completions for one conversation, asking again for missing choices."""
        got: list[Completion] = []
        attempts_left = count  # a server that ignores "n" answers one choice per request
        while len(got) < count and attempts_left > 0:
            attempts_left -= 1
            want = count - len(got)
            try:
                body = self._post_with_retries(self._body(messages, want, seed, max_tokens))
            except _PermanentError as exc:
                log.warning("request failed without retry: %s", exc)
                return got + self._errors(count - len(got))
            except _RetryableError as exc:
                log.warning("request failed after %d retries: %s", self.max_retries, exc)
                return got + self._errors(count - len(got))
            got.extend(self._parse(body, want))
            if seed is not None:
                seed += want
        return got + self._errors(count - len(got))

    def _errors(self, k: int) -> list[Completion]:
        if k > 0:
            with self._lock:
                self.stats.failed += k
        return [Completion(text="", finish_reason="error") for _ in range(k)]

    def _body(
        self, messages: list[dict[str, Any]], n: int, seed: int | None, max_tokens: int
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if n != 1:
            body["n"] = n
        for key, value in (
            ("max_tokens", max_tokens),
            ("temperature", self.temperature),
            ("top_p", self.top_p),
            ("seed", seed),
        ):
            if value is not None:
                body[key] = value
        body.update(self.extra_body)
        return body

    @staticmethod
    def _parse(body: Mapping[str, Any], want: int) -> list[Completion]:
        """Completions from a chat.completion body; malformed parts never raise (module doc)."""
        choices = [c for c in body.get("choices") or [] if isinstance(c, Mapping)]
        choices = sorted(choices, key=lambda c: _nonneg_int(c.get("index")) or 0)[:want]
        usage = body.get("usage")
        usage = usage if isinstance(usage, Mapping) else {}
        prompt_tokens = _nonneg_int(usage.get("prompt_tokens"))
        completion_tokens = (
            _nonneg_int(usage.get("completion_tokens")) if len(choices) == 1 else None
        )
        out = []
        for choice in choices:
            message = choice.get("message")
            message = message if isinstance(message, Mapping) else {}
            finish_reason = choice.get("finish_reason")
            out.append(
                Completion(
                    text=content_text(message.get("content")),
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    finish_reason=finish_reason if isinstance(finish_reason, str) else None,
                )
            )
        return out

    # -- HTTP ------------------------------------------------------------------------------

    def _post_with_retries(self, body: Mapping[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode("utf-8")
        unreachable = 0
        for attempt in range(self.max_retries + 1):
            if self._abort.is_set():  # another request of this call stopped the run
                raise _PermanentError("aborted: another request failed for good")
            if attempt:
                with self._lock:
                    self.stats.retries += 1
            try:
                return self._post_once(data, body)
            except _RetryableError as exc:
                if isinstance(exc, _Unreachable) and not self._reached:
                    unreachable += 1
                    if unreachable > min(self.max_retries, _UNREACHABLE_TRIES - 1):
                        raise ServerUnreachableError(
                            f"cannot reach the server at {self.url} ({exc}); is it running? "
                            "Start it, or pass the right --base-url"
                        ) from None
                if attempt == self.max_retries:
                    raise
                if exc.retry_after is not None:
                    delay = min(exc.retry_after, self.retry_after_max_s)
                else:
                    with self._lock:
                        jitter = self._rng.random()
                    delay = jitter * min(self.backoff_max_s, self.backoff_base_s * 2**attempt)
                log.info("retrying in %.2fs after: %s", delay, exc)
                self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _post_once(self, data: bytes, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One chat-completions attempt: :meth:`_exchange`, then a bounded parse."""
        want = int((body or {}).get("n", 1) or 1)
        return self._decode(self._exchange("POST", self.url, data), want)

    def _exchange(
        self, method: str, url: str, data: bytes | None, *, count: bool = True
    ) -> bytes:
        """One bounded HTTP exchange with the server; returns the body of a 200.

        Connect, request, status line, headers (``100 Continue`` included) and body end by
        ``timeout_s``; at most ``max_concurrency`` exchanges are in flight; a redirect is
        never followed; a body over ``max_response_bytes`` is refused (module docstring).
        Every request to the server (budget probes included) should go through here.

        Raises
        ------
        ConfigError
            HTTP 401/403/404 or a redirect.
        _Unreachable, _RetryableError, _PermanentError
            As classified in the module docstring.
        """
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        parts = urllib.parse.urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        tally = self._count if count else (lambda status: None)
        with self._inflight:  # requests in flight across every thread using this policy
            conn, path = _connection(parts, path, self.timeout_s)
            expired = threading.Event()

            def cut_off() -> None:  # the attempt's deadline: wake any blocked read or write
                expired.set()
                sock = conn.sock
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

            timer = threading.Timer(self.timeout_s, cut_off)
            timer.daemon = True
            timer.start()
            status = 0
            try:
                try:
                    conn.connect()
                except (ConnectionRefusedError, socket.gaierror) as exc:
                    raise _Unreachable(f"{type(exc).__name__} for {url}: {exc}") from None
                except OSError as exc:
                    if expired.is_set() or isinstance(exc, TimeoutError):
                        raise _Unreachable(f"no connection to {url} within {self.timeout_s}s") from None
                    if exc.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL):
                        raise _Unreachable(f"{type(exc).__name__} for {url}: {exc}") from None
                    raise
                if expired.is_set():
                    raise TimeoutError("deadline")
                conn.request(method, path, body=data, headers=headers)
                response = conn.getresponse()  # skips 100 Continue; bounded by the deadline
                status = response.status
                with self._lock:
                    self._reached = True
                if status != 200:
                    tally(status)
                    self._raise_for_status(response, status, url)
                length = response.getheader("Content-Length")
                if length and length.strip().isdigit() and int(length) > self.max_response_bytes:
                    raise _PermanentError(
                        f"response from {url} announces {int(length)} bytes, over "
                        f"max_response_bytes={self.max_response_bytes} (not read)"
                    )
                raw = self._read_body(response)
                if expired.is_set():
                    raise TimeoutError("deadline")
            except (_PermanentError, _RetryableError, ConfigError) as exc:
                if status == 200 or isinstance(exc, _Unreachable):  # others counted above
                    tally(status)
                raise
            except (http.client.HTTPException, OSError) as exc:
                # OSError covers TimeoutError and ConnectionError; HTTPException covers a
                # body cut short (IncompleteRead), a reply that is not HTTP (BadStatusLine)
                # and oversized header lines (LineTooLong).
                tally(status)
                if expired.is_set():
                    raise _RetryableError(
                        f"no complete response from {url} within timeout_s={self.timeout_s}"
                    ) from None
                raise _RetryableError(f"{type(exc).__name__} for {url}: {exc}") from None
            finally:
                timer.cancel()
                conn.close()
        tally(status)
        return raw

    def _raise_for_status(self, response: Any, status: int, url: str | None = None) -> None:
        try:
            detail = response.read(2000).decode("utf-8", "replace")
        except (OSError, http.client.HTTPException):
            detail = ""
        url = url or self.url
        message = f"HTTP {status} from {url}: {detail}"
        if 300 <= status < 400:
            where = response.getheader("Location") or "?"
            raise ConfigError(
                f"HTTP {status} from {url} redirects to {where}: redirects are not followed "
                "(the API key is never sent to another address); pass the address that answers "
                "as --base-url"
            )
        if status in _FATAL_STATUS:
            raise ConfigError(f"{message} (check base_url, model name and API key)")
        if status == 429 or status >= 500:
            raise _RetryableError(message, _parse_retry_after(response.getheader("Retry-After")))
        raise _PermanentError(message)

    def _decode(self, raw: bytes, want: int) -> dict[str, Any]:
        """Parse a body with bounded memory: at most ``_MAX_OBJECTS + 64 * n`` JSON objects."""
        limit = _MAX_OBJECTS + 64 * max(1, want)
        count = 0

        def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            nonlocal count
            count += 1
            if count > limit:
                raise _TooManyObjects
            return dict(pairs)

        try:
            parsed = json.loads(raw, object_pairs_hook=hook)
        except _TooManyObjects:
            raise _PermanentError(
                f"response from {self.url} holds more than {limit} JSON objects (asked for "
                f"{want} choice(s)); not parsed further"
            ) from None
        except (ValueError, RecursionError):
            raise _RetryableError(f"unreadable JSON body from {self.url}") from None
        if not isinstance(parsed, dict) or not isinstance(parsed.get("choices"), list):
            raise _RetryableError(
                f"expected a chat.completion object from {self.url}, got {raw[:200]!r}"
            )
        parsed["choices"] = parsed["choices"][: max(1, want)]  # never more than asked for
        return parsed

    def _read_body(self, response: Any) -> bytes:
        """Read the body in pieces, at most ``max_response_bytes`` (the deadline cuts it off)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = response.read1(65536)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > self.max_response_bytes:
                raise _PermanentError(
                    f"response from {self.url} is over max_response_bytes={self.max_response_bytes}"
                )
            chunks.append(chunk)

    def _count(self, status: int) -> None:
        with self._lock:
            self.stats.requests += 1
            self.stats.status_counts[status] = self.stats.status_counts.get(status, 0) + 1


def _connection(parts: Any, path: str, timeout: float) -> tuple[Any, str]:
    """An unconnected ``http.client`` connection for a URL, through the environment's proxy.

    ``HTTP(S)_PROXY`` / ``NO_PROXY`` are honoured as urllib does (``urllib.request.getproxies``,
    ``proxy_bypass``): an https URL is tunnelled through the proxy (CONNECT), an http URL is
    sent to the proxy with its absolute URL. Returns the connection and the request target.
    """
    https = parts.scheme == "https"
    cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
    host, port = parts.hostname or "", parts.port
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(parts.netloc):
        pp = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        conn = cls(pp.hostname or "", pp.port or 8080, timeout=timeout)
        if https:
            conn.set_tunnel(host, port or 443)
            return conn, path
        return conn, urllib.parse.urlunsplit(parts._replace(fragment=""))
    return cls(host, port, timeout=timeout), path


def _nonneg_int(value: Any) -> int | None:
    """A token count or index: a non-negative int (not a bool), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def make_openai_policy(
    arg: str | None, tasks: Sequence[Any] = (), **options: Any
) -> OpenAICompatiblePolicy:
    """Registry factory for ``--policy openai:MODEL --base-url URL``.

    ``options`` are :class:`OpenAICompatiblePolicy` keyword arguments
    (``base_url``, ``max_tokens``, ``temperature``, ``seed`` ...); ``tasks`` is ignored.
    """
    if not arg:
        raise ConfigError("policy 'openai' expects a served model name: openai:MODEL")
    return OpenAICompatiblePolicy(arg, **options)
