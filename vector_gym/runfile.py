"""Run files: the JSON Lines outcome files :func:`vector_gym.rollout.rollout` writes.

Layer 7 (with :mod:`vector_gym.rollout`). Everything that reads or writes a run file goes
through this module: row keys, the run fingerprint, the one-writer lock, torn-line repair,
text-safe row encoding, the stored-response bound and the named errors of corrupt files.

Row keys
--------
A row is keyed by ``(env, task_id, policy, sample_index)`` (:data:`ROW_KEY_FIELDS`); the
newest row of a key wins (a retried failure replaces the failed row,
:func:`vector_gym.summary.latest_rows`).

Run fingerprint
---------------
Every row written records ``run`` (the fingerprint: a JSON object) and ``run_id`` (its
short hash, :func:`fingerprint_id`). The fingerprint (:func:`run_fingerprint`) holds what
decides an outcome: the env id, the suite and its scoring options (parity mode, render backend, ...), the corpus hash
(:func:`vector_gym.tasks.task.corpus_hash`), the action format, the turns per episode, the
observation mode (``{"mode": "text"}``, or ``{"mode": "image", "size": [H, W], "backend"}``
for rendered image observations), the env's variant wrappers, the
policy's name, its model fingerprint (:func:`model_fingerprint`: the weights' file
hashes for a local model directory, the served model id and server for a model server), its
sampling parameters (temperature, top_p, seed, native_n), its token budget, its chat
template and the vector_gym version. Resuming a file whose rows of the same env and policy
carry another fingerprint raises :class:`RunMismatchError`, naming each field that changed;
``force=True`` (``eval --force``) resumes anyway, and :func:`new_run_path` (``eval
--new-run``) gives a new file named after the new fingerprint. Default run paths carry the
short hash (``vector-gym eval``), so a changed setting starts a new file on its own.

One writer, repairs under the lock
----------------------------------
:class:`RunWriter` holds an exclusive advisory lock (``flock``) on the run file for as long
as it is open; a second writer gets :class:`RunLockedError` (after waiting up to
:data:`WRITER_LOCK_WAIT_S` for the brief lock of a repairing reader). A write is one
``write(2)`` of a whole line followed by ``fsync`` (or, for a batch, one ``fsync`` after its
rows: :meth:`RunWriter.sync`), so a process killed mid-write leaves at most one torn last
line (no final newline). The torn line is cut away only under the lock:
by the next writer before it appends, or by :func:`read_rows` with ``repair=True`` when no
writer holds the file (while a writer is live its unfinished line is skipped, never cut). A
complete last line (one that ends in a newline) that is not a valid row is an error, never
silently dropped. A non-empty file that does not look like a run file (its first line is not
a row object) is refused by the writer (``eval --out`` never erases another file).

Text safety and the stored-response bound
-----------------------------------------
Rows are UTF-8 JSON; text that UTF-8 cannot carry (a lone surrogate in a completion) is
written with JSON ``\\uXXXX`` escapes, so every row reads back equal to what was written.
Non-finite floats are stored as null. A ``response`` (and each of ``responses``) longer
than :data:`MAX_STORED_RESPONSE_CHARS` characters is stored truncated to that bound with
``response_truncated: true`` and ``response_chars`` (the full length); the row's
``reward`` and ``report`` are always computed on the full response before it is stored.
The bound is twice the envs' default answer limit (``max_response_chars``, 131,072), so
every answer a default env scores is stored whole and can be re-scored exactly.

Named errors
------------
A corrupt run file raises :class:`RunFileError` (a :class:`~vector_gym.errors.CorpusError`)
naming the file, the line and what is wrong: invalid UTF-8, JSON that is not valid or
nested too deeply, a truncated gzip stream, a line that is not an object, a key field of the
wrong type (a list-valued ``task_id``, a dict-valued ``policy``, a ``sample_index`` that is
not a non-negative int), or a list field (``unexpected_changed_parts``, ``failure_reasons``,
``detail``, ``responses``) that is not a list. Broken *outcomes* (a response that is not
text, a report that is not an object) are not file corruption: they read as error rows.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import json
import math
import os
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from vector_gym.errors import ConfigError, CorpusError, VectorGymError
from vector_gym.summary import ROLLOUT_KEY_FIELDS, latest_rows

try:  # POSIX advisory locks; elsewhere the writer works without the lock
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MAX_STORED_RESPONSE_CHARS",
    "ROW_KEY_FIELDS",
    "RunFileError",
    "RunInterrupted",
    "RunLockedError",
    "WRITER_LOCK_WAIT_S",
    "RunMismatchError",
    "RunWriter",
    "action_format",
    "encode_row",
    "fingerprint_diff",
    "fingerprint_id",
    "model_fingerprint",
    "new_run_path",
    "read_rows",
    "replay_patches",
    "row_key",
    "run_fingerprint",
]

#: Fields that identify one outcome in a run file.
ROW_KEY_FIELDS = ROLLOUT_KEY_FIELDS

#: Longest response stored per answer, characters (module docstring).
MAX_STORED_RESPONSE_CHARS = 262_144

#: Report fields that must be lists of strings.
_REPORT_LIST_FIELDS = ("unexpected_changed_parts", "failure_reasons", "detail")


class RunFileError(CorpusError):
    """A run file is corrupt or is not a run file; the message names the file and line."""


class RunLockedError(ConfigError):
    """Another process is writing the run file (one writer per file)."""


class RunMismatchError(ConfigError):
    """The run file holds rows of another run fingerprint; ``changes`` lists what differs."""

    def __init__(self, message: str, changes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.changes = tuple(changes)


class RunInterrupted(VectorGymError):
    """A run stopped early (Ctrl-C, a full disk); the rows saved so far resume.

    Attributes
    ----------
    rows_saved : int
        Finished rows of this run in the file.
    path : str
        The run file.
    cause : str
        ``"interrupt"`` (Ctrl-C) or the OS error's text.
    """

    def __init__(self, rows_saved: int, path: str | Path, cause: str = "interrupt") -> None:
        self.rows_saved = int(rows_saved)
        self.path = str(path)
        self.cause = cause
        extra = "" if cause == "interrupt" else f" ({cause})"
        super().__init__(
            f"interrupted: {self.rows_saved} rows saved, re-run to resume{extra} [{self.path}]"
        )


def row_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """Return ``(env, task_id, policy, sample_index)`` of a run row."""
    return tuple(row.get(k) for k in ROW_KEY_FIELDS)


# ---------------------------------------------------------------------------- fingerprint
def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)


def fingerprint_id(fingerprint: Mapping[str, Any]) -> str:
    """Short hash (12 hex digits) of a fingerprint: SHA-256 of its canonical JSON."""
    return hashlib.sha256(_canonical(fingerprint).encode("ascii")).hexdigest()[:12]


def _file_digest(path: Path, whole_below: int = 64 * 1024 * 1024, piece: int = 1 << 20) -> str:
    """SHA-256 of a file; over ``whole_below`` bytes, of its size, first and last MiB."""
    h = hashlib.sha256()
    size = path.stat().st_size
    with open(path, "rb") as fh:
        if size < whole_below:
            for block in iter(lambda: fh.read(piece), b""):
                h.update(block)
        else:
            h.update(str(size).encode("ascii"))
            h.update(fh.read(piece))
            fh.seek(size - piece)
            h.update(fh.read(piece))
    return h.hexdigest()[:16]


def _dir_fingerprint(folder: Path) -> dict[str, str]:
    """File name -> digest of the weights, config and tokenizer files of a model directory."""
    wanted = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".json", ".model", ".txt", ".jinja")
    out: dict[str, str] = {}
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.name.endswith(wanted):
            out[p.name] = _file_digest(p)
    return out


def model_fingerprint(policy: Any, spec: str | None = None) -> dict[str, Any] | None:
    """What identifies a policy's model: weights' file digests, or the served model id.

    A local model directory (``hf:PATH``, or a ``model``/``model_path`` attribute naming a
    folder) gives ``{"files": {name: digest}}`` over its weights, config and tokenizer files
    (SHA-256, first 16 hex digits; files of 64 MiB and more are hashed over their size and
    their first and last MiB, so a multi-GB checkpoint costs milliseconds while a further
    trained checkpoint still differs). A server policy gives ``{"model": id, "server": url}``.
    The evaluator controls give None.
    """
    candidates: list[Any] = []
    if spec and ":" in spec:
        candidates.append(spec.partition(":")[2])
    for attr in ("model_path", "model"):
        value = getattr(policy, attr, None)
        if isinstance(value, (str, os.PathLike)):
            candidates.append(value)
    for c in candidates:
        try:
            p = Path(c)
            if p.is_dir():
                return {"path": str(p.resolve()), "files": _dir_fingerprint(p)}
        except (OSError, ValueError):
            continue
    model = getattr(policy, "model", None)
    url = getattr(policy, "url", None) or getattr(policy, "base_url", None)
    if isinstance(model, str):
        return {"model": model, **({"server": str(url)} if url else {})}
    cfg = getattr(model, "config", None)  # a loaded transformers model
    if cfg is not None and hasattr(cfg, "to_json_string"):
        try:
            digest = hashlib.sha256(cfg.to_json_string().encode("utf-8")).hexdigest()[:16]
        except Exception:  # noqa: BLE001 - a config that cannot be serialised
            digest = type(model).__name__
        return {"class": type(model).__name__, "config": digest}
    return None


def _template_fingerprint(policy: Any) -> str | None:
    parts = []
    for attr in ("template", "templates", "chat_template"):
        value = getattr(policy, attr, None)
        if value is not None:
            if isinstance(value, Mapping):
                value = {str(k): repr(v) for k, v in value.items()}
            parts.append(f"{attr}={_canonical(value) if isinstance(value, dict) else repr(value)}")
    if not parts:
        return None
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def run_fingerprint(
    env: Any, policy: Any, *, spec: str | None = None, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Return the fingerprint of running ``policy`` on ``env`` (module docstring).

    Parameters
    ----------
    env : EditEnv or a Gymnasium wrapper of one
    policy : Policy
        Read for ``name``, ``model``/``model_path``/``url``, ``temperature``, ``top_p``,
        ``seed``, ``native_n``, ``max_tokens``/``max_new_tokens`` and its template; a policy
        may add fields of its own with a ``fingerprint()`` method returning a mapping.
    spec : str, optional
        The policy spec it was built from (``hf:PATH``, ``openai:MODEL``): where to look
        for a local model directory (the spec itself is not recorded: the policy name and
        the model fingerprint identify it).
    extra : mapping, optional
        More fields (merged last).

    Returns
    -------
    dict
        JSON-serialisable; equal settings give equal dicts.
    """
    from vector_gym import __version__
    from vector_gym.tasks.task import corpus_hash

    base = getattr(env, "unwrapped", env)
    spec_env = getattr(env, "spec", None) or getattr(base, "spec", None)
    env_id = getattr(spec_env, "id", None) or getattr(base, "env_id", "") or type(base).__name__
    suite = getattr(base, "suite", None)
    options = getattr(suite, "options", None) or {}
    wrappers = []
    observation: dict[str, Any] = {"mode": "text"}
    cur = env
    while cur is not base and hasattr(cur, "env"):  # our variant wrappers change the outcome
        if type(cur).__module__.startswith("vector_gym."):
            wrappers.append(type(cur).__name__)
            if type(cur).__name__ == "ImageObservation":  # what a vision-language policy sees
                observation = {"mode": "image", "size": [int(v) for v in cur.size],
                               "backend": str(cur.backend)}
        cur = cur.env
    fp: dict[str, Any] = {
        "env": env_id,
        "suite": getattr(suite, "name", None),
        "suite_options": {
            str(k): _json_value(v)
            for k, v in sorted(options.items())
            if k not in ("processes", "timeout_s", "device")  # how, not what, is scored
        },
        "corpus": corpus_hash(list(base.tasks))[:16],
        "action_format": _wrapper_attr(env, "action_format", "svg"),
        "turns": int(_wrapper_attr(env, "max_turns", 1)),
        "observation": observation,
        "wrappers": wrappers[::-1],
        "policy": str(getattr(policy, "name", type(policy).__name__)),
        "model": model_fingerprint(policy, spec),
        "sampling": {
            k: _json_value(getattr(policy, k, None))
            for k in ("temperature", "top_p", "seed", "native_n")
            if getattr(policy, k, None) is not None
        },
        "token_budget": _json_value(
            getattr(policy, "max_tokens", None) or getattr(policy, "max_new_tokens", None)
        )
        if (getattr(policy, "max_tokens", None) or getattr(policy, "max_new_tokens", None))
        else (_protocol_budget(suite) if callable(getattr(policy, "token_budget", None)) else None),
        "template": _template_fingerprint(policy),
        "version": __version__,
    }
    own = getattr(policy, "fingerprint", None)
    if callable(own):
        fp["policy_extra"] = {str(k): _json_value(v) for k, v in dict(own()).items()}
    if extra:
        fp.update({str(k): _json_value(v) for k, v in extra.items()})
    return fp


def _protocol_budget(suite: Any) -> Any:
    """``"protocol"``, or ``{"protocol": N}`` for a suite whose own budget is a fixed N tokens
    (``{"protocol": "module.rule"}`` for a rule of its own): a suite re-registered with another
    budget writes another run file."""
    own = getattr(suite, "_token_budget", None)
    if own is None:
        return "protocol"
    if isinstance(own, int):
        return {"protocol": own}
    return {"protocol": f"{getattr(own, '__module__', '?')}.{getattr(own, '__qualname__', type(own).__name__)}"}


def _wrapper_attr(env: Any, name: str, default: Any) -> Any:
    getter = getattr(env, "get_wrapper_attr", None)
    try:
        return getter(name) if callable(getter) else getattr(env, name, default)
    except AttributeError:
        return default


def _json_value(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else str(v)
    if isinstance(v, Mapping):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    return str(v)


def fingerprint_diff(old: Any, new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Human-readable list of what changed between two fingerprints (``field: old -> new``)."""
    if not isinstance(old, Mapping):
        return ["run fingerprint: none recorded (rows written by an older vector_gym) -> "
                f"{fingerprint_id(new)}"]
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out.extend(fingerprint_diff(a, b, f"{prefix}{k}."))
        else:
            out.append(f"{prefix}{k}: {_short(a)} -> {_short(b)}")
    return out


def _short(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else v
    return text if len(text) <= 80 else text[:77] + "..."


def new_run_path(path: str | Path, fingerprint: Mapping[str, Any]) -> Path:
    """``runs/x.jsonl`` -> ``runs/x-<fingerprint id>.jsonl`` (``eval --new-run``)."""
    p = Path(path)
    fid = fingerprint_id(fingerprint)
    name = p.name
    stem, dot, ext = name.partition(".")
    if stem.endswith("-" + fid):
        return p
    return p.with_name(f"{stem}-{fid}{dot}{ext}")


def action_format(row: Mapping[str, Any]) -> str | None:
    """The action format a row was played in, from its fingerprint; None when not recorded."""
    run = row.get("run")
    fmt = run.get("action_format") if isinstance(run, Mapping) else None
    return fmt if fmt in ("svg", "patch") else None


def replay_patches(row: Mapping[str, Any], source_svg: str) -> tuple[str, bool, bool]:
    """Replay a patch-format row's edit scripts on the source, as the env did.

    A multi-turn row's ``responses`` are applied in order; a script that fails leaves the
    document as it was (:mod:`vector_gym.envs.base`).

    Returns
    -------
    (document, last_ok, any_ok) : (str, bool, bool)
        The document after the scripts, whether the last one applied (the env scored the
        document then, else an empty answer) and whether any did. Never raises.
    """
    from vector_gym.envs.patch import decode_patch_action

    answers = row.get("responses")
    if not isinstance(answers, list) or not answers:
        answers = [row.get("response")]
    current, last_ok, any_ok = source_svg, False, False
    for answer in answers:
        try:
            res = decode_patch_action(answer if isinstance(answer, str) else "", current)
        except Exception:  # noqa: BLE001 - a hostile stored answer never stops a reader
            res = None
        last_ok = res is not None and res.ok
        if last_ok:
            current, any_ok = res.svg, True
    return current, last_ok, any_ok


# -------------------------------------------------------------------------------- reading
def _check_row(row: Any, where: str) -> dict[str, Any]:
    """Validate the types readers rely on; raise RunFileError naming ``where``."""
    if not isinstance(row, dict):
        raise RunFileError(f"{where}: expected a JSON object per line, got {type(row).__name__}")
    for k in ("env", "task_id", "policy", "model", "name"):
        v = row.get(k)
        if v is not None and not isinstance(v, str):
            raise RunFileError(f"{where}: {k}: expected a string, got {type(v).__name__} {_short(v)}")
    si = row.get("sample_index")
    if si is not None and (not isinstance(si, int) or isinstance(si, bool) or si < 0):
        raise RunFileError(f"{where}: sample_index: expected an int >= 0, got {_short(si)}")
    rs = row.get("responses")
    if rs is not None and not isinstance(rs, list):
        raise RunFileError(f"{where}: responses: expected a list, got {type(rs).__name__}")
    rep = row.get("report")
    rep = rep if isinstance(rep, dict) else {}  # a non-object report reads as an error row
    for holder, label in ((rep, "report."), (row, "")):
        for k in _REPORT_LIST_FIELDS:
            v = holder.get(k)
            if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
                raise RunFileError(
                    f"{where}: {label}{k}: expected a list of strings, got {type(v).__name__} {_short(v)}"
                )
    return row


def _decode_line(line: bytes, where: str) -> dict[str, Any]:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunFileError(f"{where}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        obj = json.loads(text)
    except RecursionError:
        raise RunFileError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, and integers over the digit limit
        raise RunFileError(f"{where}: not valid JSON ({exc})") from None
    return _check_row(obj, where)


def _parse(data: bytes, path: Path, live_writer: bool) -> tuple[list[dict[str, Any]], int]:
    """Rows of a plain run file and the byte length of its complete part."""
    good_end = len(data)
    if data and not data.endswith(b"\n"):
        good_end = data.rfind(b"\n") + 1  # 0 when there is no complete line at all
        tail = data[good_end:]
        if not live_writer and not tail.lstrip().startswith(b"{"):
            raise RunFileError(
                f"{path}: the last line is not a run row (no final newline, does not start "
                "with '{'); this does not look like a run file written by vector-gym eval"
            )
    rows: list[dict[str, Any]] = []
    lineno = 0
    for line in data[:good_end].split(b"\n")[:-1] if good_end else []:
        lineno += 1
        if not line.strip():
            continue
        rows.append(_decode_line(line, f"{path}:{lineno}"))
    return rows, good_end


def _read_gzip(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        with gzip.open(path, "rb") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    rows.append(_decode_line(line.rstrip(b"\n"), f"{path}:{lineno}"))
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise RunFileError(f"{path}: truncated or corrupt gzip file ({exc})") from None
    return rows


WRITER_LOCK_WAIT_S = 2.0
"""Seconds a :class:`RunWriter` waits for the run lock before refusing: a reader repairing a
torn tail (:func:`read_rows`) holds it only for its read, a second writer for its whole run."""


def _lock_within(fd: int, seconds: float) -> bool:
    """Take the exclusive run lock, polling every 10 ms for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not _try_lock(fd):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def _try_lock(fd: int, exclusive: bool = True) -> bool:
    if fcntl is None:  # pragma: no cover
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as exc:  # a file system without locks
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            return True
        raise


def read_rows(path: str | Path, repair: bool = True, latest: bool = True) -> list[dict[str, Any]]:
    """Read a run file (plain or gzip JSON Lines), skipping a torn last line.

    Parameters
    ----------
    path : path
        A run file; a missing file reads as empty.
    repair : bool
        Cut a torn last line (no final newline) off the file, under the run lock. When a
        writer holds the file the line is its row in flight: it is skipped and left alone.
        Gzip files are never modified.
    latest : bool
        Keep only the newest row of each key (:func:`vector_gym.summary.latest_rows`);
        False returns every complete row.

    Returns
    -------
    list of dict
        Complete rows in file order.

    Raises
    ------
    RunFileError
        A corrupt file (module docstring): the message names the file, line and problem.
    """
    path = Path(path)
    if not path.exists():
        return []
    if path.is_dir():
        raise RunFileError(f"{path}: is a folder, expected a run file (JSON Lines)")
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        rows = _read_gzip(path)
        return latest_rows(rows) if latest else rows  # type: ignore[return-value]
    fd = os.open(path, os.O_RDWR if repair else os.O_RDONLY)
    try:
        locked = repair and _try_lock(fd)
        data = _read_all(fd)
        rows, good_end = _parse(data, path, live_writer=not locked)
        if locked and good_end < len(data):
            os.ftruncate(fd, good_end)
            os.fsync(fd)
    finally:
        os.close(fd)  # releases the lock
    return latest_rows(rows) if latest else rows  # type: ignore[return-value]


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        b = os.read(fd, 1 << 20)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


# -------------------------------------------------------------------------------- writing
def _finite(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _default(o: Any) -> Any:
    item = getattr(o, "item", None)  # numpy scalars
    if callable(item):
        return item()
    if isinstance(o, (set, frozenset)):
        return sorted(o, key=str)
    return str(o)


def encode_row(row: Mapping[str, Any]) -> bytes:
    """One row as a UTF-8 JSON line (with its newline); never raises on text.

    Text UTF-8 cannot carry (lone surrogates) is written as ``\\uXXXX`` escapes and
    non-finite floats as null, so ``json.loads`` gives the row back (module docstring).
    """
    try:
        text = json.dumps(row, ensure_ascii=False, allow_nan=False, default=_default)
    except ValueError:  # NaN or infinity somewhere
        row = _finite(dict(row))
        text = json.dumps(row, ensure_ascii=False, allow_nan=False, default=_default)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them (JSON \\ud800 round-trips)
        return (json.dumps(row, ensure_ascii=True, allow_nan=False, default=_default) + "\n").encode(
            "ascii"
        )


def bound_responses(row: dict[str, Any], limit: int = MAX_STORED_RESPONSE_CHARS) -> dict[str, Any]:
    """Truncate ``response``/``responses`` over ``limit`` characters, flagging the row."""
    full = 0
    resp = row.get("response")
    if isinstance(resp, str) and len(resp) > limit:
        full = max(full, len(resp))
        row["response"] = resp[:limit]
    resps = row.get("responses")
    if isinstance(resps, list) and any(isinstance(r, str) and len(r) > limit for r in resps):
        full = max(full, max(len(r) for r in resps if isinstance(r, str)))
        row["responses"] = [r[:limit] if isinstance(r, str) else r for r in resps]
    if full:
        row["response_truncated"] = True
        row["response_chars"] = full
    return row


class RunWriter:
    """The one writer of a run file: lock, repair, fingerprint check, safe appends.

    Parameters
    ----------
    path : path
        The run file (created with its parent folders).
    fingerprint : mapping, optional
        This run's fingerprint (:func:`run_fingerprint`); rows appended get ``run`` and
        ``run_id``. Existing rows of the same ``env`` and ``policy`` must carry the same
        ``run_id`` unless ``force``.
    force : bool
        Resume despite a fingerprint mismatch.

    Attributes
    ----------
    rows : list of dict
        Every complete row of the file when it was opened (file order, all rows).
    written : int
        Rows appended by this writer.

    Durability: every :meth:`append` hands its whole line to the kernel before it returns
    (one ``write``), so a killed process loses at most the row in flight. ``append(row)`` also
    fsyncs (the row survives an OS crash or power loss); ``append(row, sync=False)`` leaves
    the fsync to the next :meth:`sync` (or :meth:`close`), so a batch of rows costs one fsync
    and an OS crash can take at most the rows since the last sync.

    Raises
    ------
    RunLockedError
        Another process has the file open for writing (the lock stayed taken for
        :data:`WRITER_LOCK_WAIT_S` seconds).
    RunFileError
        The file is not a run file, or is corrupt.
    RunMismatchError
        Rows of this env and policy were written with another fingerprint.
    """

    def __init__(
        self,
        path: str | Path,
        fingerprint: Mapping[str, Any] | None = None,
        *,
        force: bool = False,
    ) -> None:
        self.path = Path(path)
        self.fingerprint = dict(fingerprint) if fingerprint is not None else None
        self.run_id = fingerprint_id(self.fingerprint) if self.fingerprint is not None else None
        self.written = 0
        self._unsynced = 0
        if self.path.is_dir():
            raise RunFileError(f"{self.path}: is a folder; --out expects a run file (FILE.jsonl)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab"):
            pass
        with open(self.path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                raise RunFileError(
                    f"{self.path}: is gzip-compressed; runs append to plain JSON Lines "
                    "(decompress it, or pass another --out)"
                )
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_APPEND)
        try:
            if not _lock_within(self._fd, WRITER_LOCK_WAIT_S):
                raise RunLockedError(
                    f"{self.path} is being written by another vector-gym process (one writer "
                    "per run file); wait for it to finish or pass another --out"
                )
            data = _read_all(self._fd)
            first = data.lstrip()[:1]
            if data.strip() and first != b"{":
                raise RunFileError(
                    f"{self.path}: exists and is not a run file (its first line is not a JSON "
                    "object); refusing to append to it: pass another --out"
                )
            try:
                rows, good_end = _parse(data, self.path, live_writer=False)
            except RunFileError as exc:
                raise RunFileError(f"{exc}; refusing to append (pass another --out)") from None
            if rows and not any(isinstance(r.get("task_id"), str) for r in rows):
                raise RunFileError(
                    f"{self.path}: exists and holds no run rows (no task_id); refusing to append"
                )
            if good_end < len(data):  # a torn last line: cut it under the lock
                os.ftruncate(self._fd, good_end)
                os.fsync(self._fd)
            self.rows = rows
        except BaseException:
            self.close()
            raise
        self._force = force

    def check_fingerprint(self, env: str, policy: str) -> None:
        """Raise RunMismatchError when rows of ``(env, policy)`` carry another fingerprint."""
        if self.fingerprint is None or self._force:
            return
        for r in self.rows:
            if r.get("env") == env and r.get("policy") == policy and r.get("run_id") != self.run_id:
                changes = fingerprint_diff(r.get("run"), self.fingerprint)
                raise RunMismatchError(
                    f"{self.path} holds rows of {policy!r} on {env} from another run "
                    f"(run_id {r.get('run_id')} != {self.run_id}): "
                    + "; ".join(changes or ["fingerprint differs"])
                    + ". Pass --new-run to start a new file, or --force to resume anyway",
                    changes,
                )

    def append(self, row: dict[str, Any], *, sync: bool = True) -> dict[str, Any]:
        """Append one row (fingerprinted, responses bounded); return the row as stored.

        ``sync=False`` skips the fsync (class docstring: :meth:`sync` does it for a batch).

        Raises
        ------
        OSError
            The write failed (a full disk); the file is cut back to its last whole row.
        """
        if self._fd is None:
            raise ConfigError(f"{self.path}: the run writer is closed")
        row = dict(row)
        if self.fingerprint is not None:
            row["run_id"] = self.run_id
            row["run"] = self.fingerprint
        row = bound_responses(row)
        data = encode_row(row)
        start = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                k = os.write(self._fd, view)
                view = view[k:]
            if sync:
                os.fsync(self._fd)
            else:
                self._unsynced += 1
        except BaseException:
            try:  # never leave a torn line behind a failed write
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise
        self.written += 1
        return row

    def sync(self) -> None:
        """fsync the rows appended with ``sync=False`` since the last sync (no-op if none)."""
        if self._fd is not None and self._unsynced:
            os.fsync(self._fd)
            self._unsynced = 0

    def close(self) -> None:
        """fsync what is pending, release the lock and close the file (idempotent)."""
        if getattr(self, "_fd", None) is not None:
            try:
                self.sync()
            except OSError:
                pass  # the rows are written; only their durability against an OS crash is lost
            os.close(self._fd)  # type: ignore[arg-type]
            self._fd = None

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)
