"""Resumable rollouts: run a policy over an env's tasks, one JSON line per outcome.

Layer 7. :func:`rollout` asks the policy for a batch of answers at a time
(``policy.generate``), scores the whole batch with one ``suite.score_many`` call
(:meth:`~vector_gym.envs.base.EditEnv.prescore`: one render batch for a raster suite), plays
each answer as one episode (``env.reset(options={"task_id": ...})`` then
``env.step(response)``, which takes the batch's report) and appends one row per outcome to a
JSON Lines file: each row is written as its episode ends, and the file is fsynced once per
batch.

Overlap. For a suite whose scoring mostly waits on other processes
(``suite.concurrent_scoring``: the raster suites with a render pool) a batch of at least 8
answers is scored in up to 4 parts, each one ``score_many`` call
(:meth:`~vector_gym.envs.base.EditEnv.score_batch`) in one of 2 threads: while the pool draws
one part, a thread finishes the part before (MSEs, reports) and this thread steps the episodes
of the part before that and writes their rows, so rows are written part by part, in order. A
batch's fsync (batches of more than one row) runs in a thread while the next batch is generated
and scored; that batch's first row waits for it, so at most one batch's rows are unsynced at any
time, as with an inline fsync.

Resume and crash safety
-----------------------
Rows are keyed by ``(env, task_id, policy, sample_index)``. Re-running with the same
output file skips every key whose newest row is finished, so finished outcomes are
never redone or duplicated. A key whose newest row *failed* (its completion has
``finish_reason == "error"``: connection refused, HTTP 429 after every retry, ...;
:func:`vector_gym.summary.is_error_row`) is attempted again, and the new row is
appended after the failed one: the file stays append-only, and every reader takes
the newest row of each key (:func:`read_rows` by default,
:func:`vector_gym.summary.summarize` always), so a retried outcome replaces its
failure in every table, and a run that never reached its model shows up in the
``Err.`` column instead of as silent zeros. Each resume retries a failed row once. A run killed mid-write leaves at most one torn last line (no final newline); the
next writer cuts it away under the run lock before it appends. A killed run therefore
loses at most the row in flight; an OS crash or power loss, at most the rows of the batch in
flight (one fsync per batch, :class:`~vector_gym.runfile.RunWriter`). Run-file I/O (the one-writer lock, the run
fingerprint every row records, text-safe encoding, the stored-response bound, named
errors of corrupt files) lives in :mod:`vector_gym.runfile`; a second writer, a file of
another run fingerprint or a file that is not a run file is refused, and Ctrl-C or a
full disk raises :class:`~vector_gym.runfile.RunInterrupted` ("interrupted: N rows
saved, re-run to resume").

Row fields
----------
``env`` (Gymnasium id), ``task_id``, ``policy`` (``policy.name``), ``sample_index``
(0..n-1), ``response`` (raw text), ``prompt_tokens``, ``completion_tokens``,
``finish_reason``, ``truncated`` (``finish_reason == "length"``), ``max_tokens``
(the output token budget the policy used for this observation, from its
``token_budget(observation)`` method, or the ``used`` budget of the completion's
``budget``; None for policies without one, such as the evaluator controls;
protocols.md: report the budget with every result), ``elapsed_s``
(seconds: this row's share of the batch's ``generate`` wall time plus its own
scoring time), ``reward`` (the env's scalar step reward), ``report`` (the
scorer report's ``to_dict()``), ``run_id`` and ``run`` (the run fingerprint and its
short hash, :func:`vector_gym.runfile.run_fingerprint`), and for a response stored
truncated (over :data:`vector_gym.runfile.MAX_STORED_RESPONSE_CHARS`)
``response_truncated`` and ``response_chars``. From model policies that report them:
``error`` (the named reason of a failed completion, e.g. ``prompt_too_long``) and
``budget`` (:meth:`vector_gym.policies.budget.BudgetDecision.to_dict`: requested and
used budget, prompt tokens, context, ``below_minimum`` when under the protocol's minimum).

Observations
------------
Each observation the policy gets is the env's (``instruction``, ``svg``, and
``feedback`` in multi-turn episodes) plus ``task_id``, ``family`` (it picks the chat
template, :mod:`vector_gym.policies.templates`) and, for an env built with
``action_format="patch"``, ``"action_format": "patch"`` (absent means ``"svg"``), so
that model policies ask for a JSON edit script.

Multi-turn episodes
-------------------
For an env built with ``max_turns=k > 1`` each row is one whole episode: after an
answer that neither terminates nor truncates the episode, the policy is called again
(``n=1``, batched over the batch's live episodes) with the next observation (the
current SVG and the editor feedback), until the env terminates (full pass) or
truncates (k answers). Each episode's state is kept between turns
(:func:`vector_gym.envs.wrappers.episode_state`), so a turn scores only its own answers (one
``score_many`` per turn batch; nothing is replayed). Such rows also hold
``turns`` (answers given), ``responses`` (every answer, in order; ``response`` is the
last), ``answer_rewards`` (R_1..R_T, each answer's scalar reward), ``terminated``
(ended on a full pass) and ``reward`` = the episode return (sum of the step rewards
R_t - R_(t-1), which equals R_T); ``report`` is the last answer's report,
``prompt_tokens`` and ``completion_tokens`` are sums over the turns (None when a turn
has no count), ``finish_reason`` and ``truncated`` those of the last answer. An answer
whose completion failed (``finish_reason == "error"``) ends the episode, so the row is
retried on resume.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vector_gym.envs.base import EditEnv
from vector_gym.envs.wrappers import answer_text, episode_state, restore_episode
from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion, Policy
from vector_gym.runfile import (  # re-exported: run-file I/O lives in vector_gym.runfile
    ROW_KEY_FIELDS,
    RunInterrupted,
    RunWriter,
    read_rows,
    row_key,
    run_fingerprint,
)
from vector_gym.summary import is_error_row, latest_rows

__all__ = ["ROW_KEY_FIELDS", "env_name", "read_rows", "rollout", "row_key"]

def env_name(env: Any) -> str:
    """Return the name rollout rows use for ``env``: its Gymnasium id, else the class's ``env_id``."""
    spec = getattr(env, "spec", None) or getattr(getattr(env, "unwrapped", None), "spec", None)
    if spec is not None and getattr(spec, "id", None):
        return spec.id
    base = getattr(env, "unwrapped", env)
    return getattr(base, "env_id", "") or type(base).__name__


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def rollout(
    env: Any,
    policy: Policy,
    out_path: str | Path,
    *,
    batch_size: int = 8,
    n: int = 1,
    task_ids: Sequence[str] | None = None,
    progress: bool = True,
    fingerprint: Mapping[str, Any] | None = None,
    force: bool = False,
) -> list[dict[str, Any]]:
    """Run ``policy`` on every task of ``env`` and append one JSON line per outcome.

    Parameters
    ----------
    env : EditEnv or a Gymnasium wrapper of one
        For a task list with a custom scorer, pass ``EditEnv(tasks, scorer)`` or
        ``EditEnv(suite)``.
    policy : Policy
        ``generate(observations, n)`` is called with up to ``batch_size``
        observations ``{"instruction", "svg", "task_id", "family"}`` at a time
        (plus ``"action_format"`` and ``"feedback"`` where the env has them; module
        docstring). In multi-turn envs the later turns call ``generate(..., n=1)``.
    out_path : path
        JSON Lines output (created with its parent folders; appended to; resumed).
    batch_size : int
        Observations per ``generate`` call (>= 1).
    n : int
        Samples per task (>= 1); rows get ``sample_index`` 0..n-1.
    task_ids : sequence of str, optional
        Restrict to these tasks (default: all, in env order; generated RepairGen ids too).
    progress : bool
        Show a tqdm bar on stderr (rows done of rows to do, elapsed time, estimated
        time left and rate), redrawn at least after every ``generate`` call.
    fingerprint : mapping, optional
        The run fingerprint recorded in every row (default
        :func:`vector_gym.runfile.run_fingerprint` of ``env`` and ``policy``).
    force : bool
        Resume even when the file's rows of this env and policy carry another
        fingerprint (default: refuse, :class:`~vector_gym.runfile.RunMismatchError`).

    Returns
    -------
    list of dict
        Every row of this env and policy for the selected tasks and sample indices,
        from the file (earlier runs) and from this run, in task then sample order.

    Raises
    ------
    ConfigError
        ``batch_size`` or ``n`` < 1, or ``env`` is not an :class:`EditEnv`.
    UnknownTaskError
        A requested task id is not in the env.
    RuntimeError
        The policy returned the wrong number of completions.
    RunLockedError, RunMismatchError, RunFileError
        Another writer holds the file; its rows are of another run; it is not a run file
        or is corrupt (:mod:`vector_gym.runfile`).
    RunInterrupted
        Ctrl-C or a failed write (full disk) stopped the run; the rows saved resume.
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigError(f"batch_size: expected an int >= 1, got {batch_size!r}")
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"n: expected an int >= 1, got {n!r}")
    base = getattr(env, "unwrapped", env)
    if not isinstance(base, EditEnv):
        raise ConfigError(
            f"env: expected an EditEnv (or a wrapper of one), got {type(base).__name__}"
        )
    name = env_name(env)
    pname = str(policy.name)
    tasks = list(base.tasks) if task_ids is None else [base.get_task(t) for t in task_ids]

    out_path = Path(out_path)
    if fingerprint is None:
        fingerprint = run_fingerprint(env, policy)
    writer = RunWriter(out_path, fingerprint, force=force)  # locks; repairs a torn last line
    try:
        writer.check_fingerprint(name, pname)
    except BaseException:
        writer.close()
        raise
    existing = latest_rows(writer.rows)
    # Newest row per key; a key is finished unless that row failed (module docstring).
    have: dict[tuple[Any, ...], dict[str, Any]] = {row_key(r): r for r in existing}
    done = {k for k, r in have.items() if not is_error_row(r)}

    def key(task_id: str, i: int) -> tuple[Any, ...]:
        return (name, task_id, pname, i)

    pending = [t for t in tasks if any(key(t.task_id, i) not in done for i in range(n))]
    todo = sum(1 for t in pending for i in range(n) if key(t.task_id, i) not in done)
    budget = getattr(policy, "token_budget", None)
    fmt = _wrapper_attr(env, "action_format", "svg")
    multi = int(_wrapper_attr(env, "max_turns", 1)) > 1

    def observe(obs: Mapping[str, Any], t: Any) -> dict[str, Any]:
        obs = dict(obs)
        obs["task_id"] = t.task_id
        # The family picks the benchmark's chat template (the suite's, passed to the policy).
        obs.setdefault("family", t.family or base.default_family)
        if fmt != "svg":  # the action format picks the edit-script template
            obs.setdefault("action_format", fmt)
        return obs

    def write(row: dict[str, Any], k: tuple[Any, ...], fh: Any) -> None:
        syncer.wait()  # the batch before is on disk before this batch's first row is written
        row = writer.append(row, sync=False)  # scored on the full response; stored bounded
        have[k] = row
        if not is_error_row(row):
            done.add(k)
        if bar is not None:
            bar.update(1)

    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=todo, desc=f"{pname} on {name}", unit="row", leave=False)
    fh = None
    scorer = _TurnScorer(base, bool(getattr(base.suite, "concurrent_scoring", False)))
    syncer = _Syncer(background=batch_size > 1)
    try:
        with writer:  # one writer (the lock) for the whole run
            for batch in _chunks(pending, batch_size):
                observations = [observe(env.reset(options={"task_id": t.task_id})[0], t) for t in batch]
                max_tokens = {
                    o["task_id"]: (int(budget(o)) if callable(budget) else None)
                    for o in observations
                }
                completions, gen_s = _generate(policy, pname, observations, n)
                share = gen_s / (len(batch) * n)
                episodes = [
                    _Episode(t, i, max_tokens[t.task_id], [comp], share, multi=multi)
                    for t, comps in zip(batch, completions, strict=True)
                    for i, comp in enumerate(comps)
                    if key(t.task_id, i) not in done
                ]
                _play_episodes(
                    env,
                    policy,
                    pname,
                    episodes,
                    batch_size,
                    observe,
                    lambda ep: write(ep.row(name, pname), key(ep.task.task_id, ep.index), fh),
                    scorer,
                )
                syncer.sync(writer)  # one fsync per batch (module docstring)
                if bar is not None:
                    # tqdm redraws at most every 0.1 s of *row* updates; redraw once per batch
                    # so the count and the time left show after every policy call.
                    bar.refresh()
            syncer.wait()
    except KeyboardInterrupt:
        raise RunInterrupted(_saved(have, done, name, pname), out_path) from None
    except OSError as exc:  # a full disk, a vanished folder: the rows written so far resume
        raise RunInterrupted(
            _saved(have, done, name, pname), out_path, f"{type(exc).__name__}: {exc}"
        ) from None
    finally:
        scorer.close()
        syncer.close()
        writer.close()
        if bar is not None:
            bar.close()
    return [have[key(t.task_id, i)] for t in tasks for i in range(n)]


def _saved(have: Mapping[Any, Any], done: set[Any], name: str, pname: str) -> int:
    """Finished rows of ``(env, policy)`` in the file."""
    return sum(1 for k in done if k[0] == name and k[2] == pname)


def _wrapper_attr(env: Any, name: str, default: Any) -> Any:
    try:
        return env.get_wrapper_attr(name)
    except AttributeError:
        return default


def _generate(policy: Policy, pname: str, observations: list[dict[str, Any]], n: int) -> tuple[list, float]:
    """``policy.generate`` with its wall time; checks the shape of the answer."""
    t0 = time.perf_counter()
    completions = policy.generate(observations, n=n)
    gen_s = time.perf_counter() - t0
    if len(completions) != len(observations) or any(len(c) != n for c in completions):
        raise RuntimeError(
            f"policy {pname!r}: expected {len(observations)} lists of {n} completion(s), "
            f"got {[len(c) for c in completions]}"
        )
    for comps in completions:
        for comp in comps:
            _check_completion(comp, pname)
    return completions, gen_s


def _check_completion(comp: Any, pname: str) -> None:
    if not isinstance(comp, Completion):
        raise RuntimeError(
            f"policy {pname!r}: expected Completion objects, got {type(comp).__name__}"
        )


def _sum_tokens(values: Sequence[int | None]) -> int | None:
    return None if any(v is None for v in values) else int(sum(values))  # type: ignore[arg-type]


@dataclass
class _Episode:
    """One episode in flight: its answers so far, what the env said, and the env's state."""

    task: Any
    index: int
    max_tokens: int | None
    comps: list[Completion]
    gen_s: float
    multi: bool = False
    score_s: float = 0.0
    step_rewards: list[float] = field(default_factory=list)
    answer_rewards: list[float] = field(default_factory=list)
    report: Any = None
    terminated: bool = False
    finished: bool = False
    obs: dict[str, Any] | None = None
    state: Any = None

    def row(self, name: str, pname: str) -> dict[str, Any]:
        last = self.comps[-1]
        row = {
            "env": name,
            "task_id": self.task.task_id,
            "policy": pname,
            "sample_index": self.index,
            "response": last.text,
            "prompt_tokens": _sum_tokens([c.prompt_tokens for c in self.comps]),
            "completion_tokens": _sum_tokens([c.completion_tokens for c in self.comps]),
            "finish_reason": last.finish_reason,
            "truncated": last.truncated,
            "max_tokens": self.max_tokens,
            "elapsed_s": round(self.gen_s + self.score_s, 6),
            "reward": float(sum(self.step_rewards)),
            "report": self.report,
        }
        if self.multi:
            row.update(
                turns=len(self.comps),
                responses=[c.text for c in self.comps],
                answer_rewards=list(self.answer_rewards),
                terminated=self.terminated,
            )
        row.update(_completion_extras(last))
        return row


#: Parts a turn's batch is scored in when the suite scores concurrently (at most one per 4 rows),
#: and how many parts are scored at once: the render pool draws one part while the scoring
#: threads finish the part before (its MSEs and reports) and this thread records the one before.
_OVERLAP_PARTS = 4
_OVERLAP_MIN_ROWS = 4
_OVERLAP_AHEAD = 2


class _TurnScorer:
    """Scores a turn's answers with ``env.score_batch``, in parts: with ``concurrent`` (the
    suite's ``concurrent_scoring``) up to ``_OVERLAP_AHEAD`` parts are scored in threads while
    the episodes of the part before are stepped and their rows written, so this process's work
    overlaps the render processes' drawing; otherwise the whole turn is one call, made inline."""

    def __init__(self, base: EditEnv, concurrent: bool) -> None:
        self.base = base
        self.concurrent = concurrent
        self._pool: Any = None

    def parts(self, n: int) -> list[tuple[int, int]]:
        k = min(_OVERLAP_PARTS, n // _OVERLAP_MIN_ROWS) if self.concurrent else 1
        if k <= 1:
            return [(0, n)]
        # the last part half the others: the pool idles while its rows are recorded
        bounds = [round(n * min(2 * i, 2 * k - 1) / (2 * k - 1)) for i in range(k + 1)]
        return list(zip(bounds[:-1], bounds[1:], strict=True))

    def _timed(self, tasks: list[Any], texts: list[Any]) -> tuple[Any, float, float]:
        t0 = time.perf_counter()
        reports = self.base.score_batch(tasks, texts)
        return reports, t0, time.perf_counter()

    def submit(self, tasks: list[Any], texts: list[Any], inline: bool) -> Any:
        """A handle whose ``result()`` is ``(reports, start, end)`` (``perf_counter`` times):
        scored now in a thread, or (``inline``) when ``result()`` is called."""
        if inline:
            return _Later(self._timed, tasks, texts)
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(_OVERLAP_AHEAD, thread_name_prefix="vector-gym-score")
        return self._pool.submit(self._timed, tasks, texts)

    def close(self) -> None:
        """Wait for the parts in flight (bounded by the render watchdog) and stop the threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class _Syncer:
    """A batch's fsync, in a thread with ``background`` (batches of more than one row): the next
    batch's policy call and scoring go on meanwhile, and its first row waits for it (``wait``),
    so at most the rows of one batch are ever unsynced, as with an inline fsync."""

    def __init__(self, background: bool) -> None:
        self.background = background
        self._pool: Any = None
        self._pending: Any = None

    def sync(self, writer: RunWriter) -> None:
        if not self.background:
            writer.sync()
            return
        self.wait()
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="vector-gym-fsync")
        self._pending = self._pool.submit(writer.sync)

    def wait(self) -> None:
        """Wait for the fsync in flight; raises its OSError (a full disk)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


class _Later:
    """A call made when its result is asked for (the inline case of :meth:`_TurnScorer.submit`)."""

    def __init__(self, fn: Any, *args: Any) -> None:
        self.fn, self.args = fn, args

    def result(self) -> Any:
        return self.fn(*self.args)


def _play_turn(env: Any, live: list[_Episode], observe: Any, finish: Any, scorer: _TurnScorer) -> None:
    """Score the live episodes' last answers in batches, step each, finish the ended ones."""
    base = env.unwrapped
    texts = []
    for ep in live:
        restore_episode(ep.state)
        texts.append(answer_text(env, ep.comps[-1].text))
    tasks = [ep.task for ep in live]
    parts = scorer.parts(len(live))
    inline = len(parts) == 1
    handles: collections.deque[Any] = collections.deque()
    last_end = 0.0
    for j, (a, b) in enumerate(parts):
        while len(handles) < (1 if inline else _OVERLAP_AHEAD) and j + len(handles) < len(parts):
            c, d = parts[j + len(handles)]  # the parts after this one are scored meanwhile
            handles.append(scorer.submit(tasks[c:d], texts[c:d], inline))
        reports, start, end = handles.popleft().result()
        base.use_reports(tasks[a:b], texts[a:b], reports)
        # a part's own time: from its start, or the end of the part before, to its end
        batch_share = (end - max(start, last_end)) / (b - a)
        last_end = end
        for ep in live[a:b]:
            _step(env, ep, observe, finish, batch_share)


def _step(env: Any, ep: _Episode, observe: Any, finish: Any, batch_share: float) -> None:
    comp = ep.comps[-1]
    t0 = time.perf_counter()
    restore_episode(ep.state)
    obs, reward, term, trunc, info = env.step(comp.text)
    ep.state = episode_state(env)
    ep.score_s += batch_share + time.perf_counter() - t0
    ep.step_rewards.append(float(reward))
    ep.answer_rewards.append(float(info.get("answer_reward", reward)))
    ep.report = info["report"]
    ep.terminated = bool(term)
    ep.finished = bool(term or trunc) or comp.finish_reason == "error"
    ep.obs = None if ep.finished else observe(obs, ep.task)
    if ep.finished:
        finish(ep)


def _play_episodes(
    env: Any,
    policy: Policy,
    pname: str,
    episodes: list[_Episode],
    batch_size: int,
    observe: Any,
    finish: Any,
    scorer: _TurnScorer,
) -> None:
    """Play episodes to their end, one batched turn at a time; ``finish(episode)`` as each ends."""
    for ep in episodes:
        env.reset(options={"task_id": ep.task.task_id})
        ep.state = episode_state(env)
    live = list(episodes)
    while live:
        _play_turn(env, live, observe, finish, scorer)
        live = [ep for ep in live if not ep.finished]
        for chunk in _chunks(live, batch_size):
            completions, gen_s = _generate(policy, pname, [ep.obs for ep in chunk], 1)
            for ep, (comp,) in zip(chunk, completions, strict=True):
                ep.comps.append(comp)
                ep.gen_s += gen_s / len(chunk)


def _completion_extras(comp: Completion) -> dict[str, Any]:
    """Row fields a policy may add: ``error`` (named failure reason) and ``budget``
    (the budget fitted to the context window; its ``used`` is then ``max_tokens``)."""
    extras: dict[str, Any] = {}
    if comp.error:
        extras["error"] = str(comp.error)
    if comp.budget is not None:
        extras["budget"] = dict(comp.budget)
        if comp.budget.get("used") is not None:
            extras["max_tokens"] = int(comp.budget["used"])
    return extras
