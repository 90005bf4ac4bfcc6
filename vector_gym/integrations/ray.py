"""Ray scale-out (layer 7): score, generate and evaluate over a cluster, resumable, with results
identical to one process.

Install with ``pip install "vector-gym[ray]"`` (Ray Data, pinned to the tested release);
``ray`` is imported when a function here runs, never at module import. The GPU generation path
(:func:`rollout_dataset` with ``vllm:MODEL``) also needs Ray's vLLM processor
(``ray.data.llm``: ``pip install "ray[llm]"`` on the GPU machines).

What runs where
---------------
Scoring runs on CPUs: :func:`score_dataset` maps batches of rows through a stateful scorer
class with ``map_batches`` (one Ray actor per CPU, ``num_cpus=1`` each), so every per-task
cache (parsed targets, masks, baseline distances, the report cache) is built once per actor and
reused by every later batch. Generation runs where its policy runs: the controls and
``hf:PATH`` (:class:`~vector_gym.policies.transformers_policy.TransformersPolicy`) in CPU actors,
``vllm:MODEL`` through Ray Data's vLLM processor on GPUs (``ray.data.llm``) with our prompt
templates, sampling parameters and token budget; its outputs are then scored on CPUs.

Rows on the wire
----------------
Arrow cannot hold a report's values losslessly (a check's ``before`` is a number, a string, a
list or a bool), nor the heterogeneous rows of published outcome files, so every dataset here
has three string columns (:data:`WIRE_COLUMNS`): ``key`` (the row's key as canonical JSON,
:func:`row_key`), ``task_id`` and ``row`` (the whole row as JSON). :func:`score_dataset` also
accepts any other dataset with ``task_id`` and ``response`` or ``produced_svg`` columns (carried
columns pass through). A scored row is the input row less its stale verdict fields, plus
``reward`` (the suite's scalar reward, :meth:`vector_gym.suites.Suite.reward`) and ``report``
(the report's ``to_dict()``): the layout of our run files, so ``summary``, ``report`` and
``rescore`` read it unchanged. ``produced_svg`` rows are scored as is (the stored extraction,
spec-reward.md section 12: null = provider error); ``response`` rows are extracted first.
Generated RepairGen tasks are regenerated on the worker from their ids
(:meth:`~vector_gym.suites.Suite.get_task`), never shipped; corpus tasks given as a suite option
(``tasks=``) are shipped once per actor.

Resume and exactly once
-----------------------
:func:`score_run` writes a run directory: ``manifest.jsonl`` (a header, then one line per
finished partition with its keys) and ``part-NNNNNN.jsonl`` partitions. The driver writes
each partition to a temporary file, fsyncs, renames it, and only then appends its manifest line
(fsynced): a partition is finished exactly when the manifest lists it. Re-running after a killed
driver drops a torn last manifest line and every partition the manifest does not list, and
scores only the keys not finished. A killed worker's batch is retried by Ray (actors restart,
``max_restarts=-1``, and their tasks are retried); its lost output never reached the driver, so
no row is written twice. Only the driver writes, so no shared file system is needed.

Examples
--------
>>> from vector_gym.integrations import ray as vray       # doctest: +SKIP
>>> vray.connect("auto")                                  # doctest: +SKIP
>>> ds = vray.read_outcomes("tests/data/outcomes_sv001_020.jsonl.gz")   # doctest: +SKIP
>>> result = vray.score_run(ds, "vector_bench", "runs/rescored")        # doctest: +SKIP
>>> rows = vray.read_run("runs/rescored")                               # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vector_gym.errors import ConfigError, CorpusError

__all__ = [
    "KEY_FIELDS",
    "WIRE_COLUMNS",
    "LocalCluster",
    "RunResult",
    "SuiteRef",
    "connect",
    "decode_rows",
    "finished_keys",
    "from_rows",
    "read_outcomes",
    "read_parquet",
    "policy_name",
    "read_run",
    "rescore_outcomes",
    "rollout_dataset",
    "rollout_to_file",
    "row_key",
    "score_dataset",
    "score_run",
    "suite_ref",
    "vllm_postprocess",
    "vllm_preprocess",
    "write_jsonl",
    "write_parquet",
]

#: The string columns of every dataset this module builds (module docstring).
WIRE_COLUMNS = ("key", "task_id", "row")

#: Fields that identify one outcome (those a row has, in this order): rollout rows
#: ``(env, task_id, policy, sample_index)``, published outcomes ``(task_id, model)``.
KEY_FIELDS = ("env", "task_id", "policy", "model", "sample_index")

#: Ray release this module is tested with (the ``[ray]`` extra pins it).
TESTED_RAY = "2.60.0"

_MANIFEST = "manifest.jsonl"
_FORMAT = 1


def _ray() -> Any:
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised where Ray is absent
        raise ConfigError(
            f'vector_gym.integrations.ray needs Ray Data: pip install "vector-gym[ray]" (ray {TESTED_RAY})'
        ) from exc
    return ray


def connect(address: str | None = "auto", *, loopback: bool = False, **init_kwargs: Any) -> Any:
    """Connect this process (the driver) to a Ray cluster; returns the ``ray`` module.

    Parameters
    ----------
    address : str, optional
        ``"auto"`` (default): the cluster started on this machine with ``ray start``;
        ``HOST:PORT``: the head node's GCS address; None: start a local single-node Ray.
        Does nothing when this process is already connected.
    loopback : bool
        Keep ``127.0.0.1`` as given: Ray otherwise replaces a loopback address by the machine's
        outward one (``resolve_ip_for_localhost``), for clusters on one machine
        (:class:`LocalCluster`); the substitution is restored after ``ray.init``.
    **init_kwargs
        Passed to ``ray.init`` (``runtime_env``, ``namespace`` ...).

    Raises
    ------
    ConfigError
        Ray is not installed.
    """
    ray = _ray()
    if not ray.is_initialized():
        init_kwargs.setdefault("log_to_driver", False)
        init_kwargs.setdefault("configure_logging", False)
        import ray._private.services as services

        original = services.resolve_ip_for_localhost
        if loopback:
            services.resolve_ip_for_localhost = _keep_host
        try:
            ray.init(address=address, **init_kwargs)
        finally:
            services.resolve_ip_for_localhost = original
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    return ray


# ----------------------------------------------------------------------------- suites on workers
@dataclass(frozen=True)
class SuiteRef:
    """A picklable handle that rebuilds a suite on a worker.

    ``name`` and ``options`` go through :func:`vector_gym.suites.get_suite` (built-in or
    registered suites); ``factory`` (a zero-argument callable returning a
    :class:`~vector_gym.suites.Suite`, pickled by value) serves suites registered only in the
    driver. The worker's copy has ``processes=1`` (one actor is one CPU: the specification reward
    scores in the actor, raster suites render through one isolated render process).
    """

    name: str
    options: tuple[tuple[str, Any], ...] = ()
    factory: Callable[[], Any] | None = None

    def build(self) -> Any:
        """Return the suite (cached per process by :func:`~vector_gym.suites.get_suite`)."""
        if self.factory is not None:
            return self.factory()
        from vector_gym.suites import get_suite

        return get_suite(self.name, **dict(self.options))


def suite_ref(suite: Any, **options: Any) -> SuiteRef:
    """Turn a suite name, a :class:`~vector_gym.suites.Suite` or a factory into a :class:`SuiteRef`.

    ``options`` configure the suite (``parity=True``, ``tasks=[...]``, RepairGen ``config=``,
    ``seed=`` ...); ``processes`` is always 1 on workers.

    Raises
    ------
    ConfigError
        Unknown suite name or invalid options.
    """
    if isinstance(suite, SuiteRef):
        return suite
    from vector_gym.suites import Suite, get_suite

    if callable(suite) and not isinstance(suite, Suite):
        s = suite()
        return SuiteRef(s.name, (), suite)
    s = get_suite(suite, **options)
    opts = {k: v for k, v in s.options.items() if k != "processes"}
    opts["processes"] = 1  # one actor is one CPU: specification scoring in the actor, one renderer
    return SuiteRef(s.name, tuple(sorted(opts.items())))


def _score(suite: Any, tasks: list[Any], outputs: list[Any], extracted: bool) -> list[Any]:
    """Score raw responses (``Suite.score_many``) or stored extracted SVGs, as is
    (``Suite.score_extracted``)."""
    return list(suite.score_extracted(tasks, outputs) if extracted else suite.score_many(tasks, outputs))


# ----------------------------------------------------------------------------- rows
def row_key(row: Mapping[str, Any], key_fields: Sequence[str] | None = None) -> str:
    """The key of a row as canonical JSON: ``{field: value}`` of the key fields it has.

    Examples
    --------
    >>> row_key({"task_id": "sv_001", "model": "m", "produced_svg": "<svg/>"})
    '{"model":"m","task_id":"sv_001"}'
    """
    fields = KEY_FIELDS if key_fields is None else key_fields
    return json.dumps(
        {f: row[f] for f in fields if f in row}, sort_keys=True, separators=(",", ":"),
        ensure_ascii=False,
    )


_ORJSON: Any = None  # the orjson module, False where it is not installed (set on first use)


def _orjson() -> Any:
    global _ORJSON
    if _ORJSON is None:
        try:
            import orjson
        except ImportError:  # pragma: no cover - the [ray] extra installs it
            orjson = False
        _ORJSON = orjson
    return _ORJSON or None


def _dumps(row: Mapping[str, Any]) -> str:
    """A wire row's JSON text, as the run files write rows (:func:`vector_gym.runfile.encode_row`:
    non-finite floats as null, lone surrogates escaped, NumPy scalars as numbers).

    orjson (the ``[ray]`` extra) writes it 3-4x faster than ``json`` (compact separators); what
    it refuses (integers past 64 bits, lone surrogates) goes through ``encode_row``.
    """
    fast = _orjson()
    if fast is not None:
        try:
            return fast.dumps(row, default=_json_default).decode()
        except TypeError:  # orjson.JSONEncodeError
            pass
    from vector_gym.runfile import encode_row

    return encode_row(row)[:-1].decode()


def _json_default(o: Any) -> Any:
    from vector_gym.runfile import _default

    return _default(o)


def _loads(text: str) -> Any:
    """Decode a wire row: the values ``json.loads`` gives, 2-3x faster on orjson's texts.

    orjson reads an integer past 64 bits as a float, and only :func:`_dumps`'s fallback writes
    such integers, in ``json``'s layout (``"key": value``); so texts holding ``": `` (that
    fallback, rows written before orjson, a value that contains it) are read by ``json``, and
    compact ones (orjson's) by orjson.
    """
    fast = _orjson()
    if fast is not None and '": ' not in text:
        try:
            return fast.loads(text)
        except fast.JSONDecodeError:  # NaN literals: json reads them
            pass
    return json.loads(text)


def _wire_table(keys: Sequence[str], task_ids: Sequence[Any], rows: Sequence[str]) -> Any:
    import pyarrow as pa

    return pa.table(
        {"key": pa.array(keys, pa.string()), "task_id": pa.array(task_ids, pa.string()),
         "row": pa.array(rows, pa.string())}
    )


def _to_wire(rows: Sequence[Mapping[str, Any]], key_fields: Sequence[str] | None) -> Any:
    for i, r in enumerate(rows):
        if not isinstance(r.get("task_id"), str):
            raise CorpusError(f"row {i}: expected a string 'task_id', got {r.get('task_id')!r}")
    return _wire_table(
        [row_key(r, key_fields) for r in rows], [r["task_id"] for r in rows], [_dumps(r) for r in rows]
    )


def from_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    key_fields: Sequence[str] | None = None,
    rows_per_block: int = 512,
) -> Any:
    """A Ray dataset (wire layout) of in-memory rows, in blocks of ``rows_per_block``.

    Raises
    ------
    CorpusError
        A row has no string ``task_id``, or two rows share a key.
    """
    ray = _ray()
    rows = [dict(r) for r in rows]
    keys = [row_key(r, key_fields) for r in rows]
    if len(set(keys)) != len(keys):
        seen: set[str] = set()
        dup = next(k for k in keys if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise CorpusError(f"two rows share the key {dup}; pass key_fields that identify each row")
    size = max(1, int(rows_per_block))
    tables = [_to_wire(rows[i : i + size], key_fields) for i in range(0, len(rows), size)]
    if not tables:
        tables = [_wire_table([], [], [])]
    # from_blocks: the blocks' metadata is read here. ray.data.from_arrow reads it in one
    # remote task per block, which on a cluster whose head has no CPU starts a task worker on
    # a worker node and ships every block there once more (benchmarks/ray_scaling.py).
    return ray.data.from_blocks(tables)


def read_outcomes(
    path: str | Path, *, key_fields: Sequence[str] | None = None, rows_per_block: int = 512
) -> Any:
    """Read stored outcomes into a dataset (wire layout).

    ``path`` is what ``vector-gym rescore`` reads (:func:`vector_gym.rescore.load_outcomes`): our
    run files (JSON Lines, plain or gzip; the newest row of each key) or the published
    ``data/model-results/*.json`` layout.
    """
    from vector_gym.rescore import load_outcomes

    return from_rows(load_outcomes(path), key_fields=key_fields, rows_per_block=rows_per_block)


def read_parquet(path: str | Path) -> Any:
    """Read Parquet files written by :func:`write_parquet` (wire layout)."""
    return _ray().data.read_parquet(str(path))


def decode_rows(source: Any) -> Iterator[dict[str, Any]]:
    """Yield the rows (dicts) of a wire dataset or of an iterable of wire batches, streaming."""
    # batch_size=None: the blocks as they come (re-slicing them into batches is driver CPU)
    batches = (source.iter_batches(batch_size=None, batch_format="pyarrow")
               if hasattr(source, "iter_batches") else source)
    for batch in batches:
        for text in batch.column("row").to_pylist():
            yield _loads(text)


def write_jsonl(ds: Any, path: str | Path) -> int:
    """Write the rows of a wire dataset as JSON Lines (one object per line); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for row in decode_rows(ds):
            fh.write(_dumps(row) + "\n")
            n += 1
    return n


def write_parquet(ds: Any, path: str | Path) -> None:
    """Write a wire dataset as Parquet files under ``path`` (readable by :func:`read_parquet`)."""
    ds.select_columns(list(WIRE_COLUMNS)).write_parquet(str(path))


# ----------------------------------------------------------------------------- scoring
_STALE = ("reward", "report")


class _ScoreBatch:
    """Ray Data stateful UDF: one per actor; scores wire batches (module docstring)."""

    def __init__(self, ref: SuiteRef, key_fields: Sequence[str] | None = None,
                 skip: frozenset[str] = frozenset()) -> None:
        self.suite = ref.build()
        self.key_fields = key_fields
        self.skip = skip

    def __call__(self, batch: Any) -> Any:
        names = set(batch.column_names)
        if set(WIRE_COLUMNS) <= names:
            keys = batch.column("key").to_pylist()
            rows = [_loads(t) for t in batch.column("row").to_pylist()]
        else:
            rows = batch.to_pylist()
            keys = [row_key(r, self.key_fields) for r in rows]
        if self.skip:
            kept = [(k, r) for k, r in zip(keys, rows, strict=True) if k not in self.skip]
            keys, rows = [k for k, _ in kept], [r for _, r in kept]
        return _wire_table(keys, [r.get("task_id") for r in rows], self.score_rows(rows))

    def score_rows(self, rows: list[dict[str, Any]]) -> list[str]:
        suite = self.suite
        reports: list[Any] = [None] * len(rows)
        groups: dict[bool, list[int]] = {True: [], False: []}
        for i, r in enumerate(rows):
            if "produced_svg" in r:
                groups[True].append(i)
            elif "response" in r:
                groups[False].append(i)
            else:
                raise CorpusError(f"row {row_key(r)}: expected 'produced_svg' or 'response'")
        for extracted, idx in groups.items():
            if not idx:
                continue
            tasks = [suite.get_task(rows[i]["task_id"]) for i in idx]
            field_name = "produced_svg" if extracted else "response"
            outs = _score(suite, tasks, [rows[i][field_name] for i in idx], extracted)
            for i, rep in zip(idx, outs, strict=True):
                reports[i] = rep
        out = []
        for r, rep in zip(rows, reports, strict=True):
            d = rep.to_dict()
            row = {k: v for k, v in r.items() if k not in d and k not in _STALE}
            row["reward"] = float(suite.reward(rep))
            row["report"] = d
            out.append(_dumps(row))
        return out


def _cluster_cpus() -> int:
    ray = _ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def score_dataset(
    ds: Any,
    suite: Any,
    *,
    batch_size: int = 512,
    concurrency: int | tuple[int, int] | None = None,
    num_cpus: float = 1.0,
    key_fields: Sequence[str] | None = None,
    skip_keys: Iterable[str] = (),
    **suite_options: Any,
) -> Any:
    """Score a dataset of rows with a suite's scorer over the cluster (lazy).

    Parameters
    ----------
    ds : ray.data.Dataset
        Wire rows (:func:`from_rows`, :func:`read_outcomes`, :func:`rollout_dataset`) or any
        dataset with ``task_id`` and ``response`` (raw text) or ``produced_svg`` (stored
        extracted SVG, null = provider error) columns; other columns are carried.
    suite : str, Suite, SuiteRef or callable
        The suite (``"vector_bench"``, ``"repairgen"``, ...; see :func:`suite_ref`).
    batch_size : int
        Rows per scorer call (about 0.2 s of scoring at 512). Each call is one Ray task
        (scheduling, object store transfers, one Arrow table each way, block statistics):
        with the scoring taken out (a cached scorer, ``benchmarks/ray_scaling.py``), Ray and
        the wire cost 0.23-0.27 ms of CPU per row at 128 rows, 0.16-0.25 at 512 and 0.19-0.21
        at 1024 (2 loaded cores); at 32 rows about 0.3 ms more. Blocks of the same size
        (:func:`from_rows` ``rows_per_block``) are scored without re-slicing.
    concurrency : int or (min, max), optional
        Scorer actors: an autoscaling pool of 1 to ``concurrency`` (default one per CPU of the
        cluster), or exactly ``(min, max)``.
    num_cpus : float
        CPUs reserved per actor.
    key_fields : sequence of str, optional
        Key fields of plain-column rows (default :data:`KEY_FIELDS`).
    skip_keys : iterable of str
        Keys (:func:`row_key`) to drop before scoring (resume).
    **suite_options
        Suite options (``parity=True``, ``tasks=...`` ...).

    Returns
    -------
    ray.data.Dataset
        Wire rows: each input row (less stale verdict fields) plus ``reward`` and ``report``;
        order not preserved (join on ``key``).

    Raises
    ------
    ConfigError
        Ray missing, unknown suite. Errors inside a batch (a row without an output field,
        :class:`CorpusError`; a task id the suite does not know,
        :class:`~vector_gym.errors.UnknownTaskError`) fail the dataset when it executes.
    """
    _ray()
    ref = suite_ref(suite, **suite_options)
    if concurrency is None:
        concurrency = max(1, int(_cluster_cpus() // max(num_cpus, 1e-9)))
    from ray.data import ActorPoolStrategy

    lo, hi = (1, concurrency) if isinstance(concurrency, int) else concurrency
    return ds.map_batches(
        _ScoreBatch,
        fn_constructor_kwargs={"ref": ref, "key_fields": key_fields, "skip": frozenset(skip_keys)},
        batch_size=int(batch_size),
        batch_format="pyarrow",
        compute=ActorPoolStrategy(min_size=lo, max_size=hi),
        num_cpus=num_cpus,
    )


# ----------------------------------------------------------------------------- runs (resume)
@dataclass
class RunResult:
    """What :func:`score_run` did: rows ``scored`` now, ``skipped`` (finished before), the
    ``partitions`` written now, ``total`` finished rows in the run, and the run ``path``."""

    path: Path
    scored: int
    skipped: int
    partitions: int
    total: int
    elapsed_s: float = 0.0
    partition_files: list[str] = field(default_factory=list)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_manifest(out_dir: Path, repair: bool) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Header and partition entries; a torn last line is dropped (and truncated when repairing)."""
    path = out_dir / _MANIFEST
    if not path.exists():
        return None, []
    from vector_gym.rollout import read_rows

    # An append-only JSON Lines file, like a rollout file: a torn last line is dropped.
    entries = read_rows(path, repair=repair, latest=False)
    if not entries:
        return None, []
    header, parts = entries[0], entries[1:]
    if header.get("vector_gym_run") != _FORMAT:
        raise CorpusError(f"{path}: not a vector_gym run manifest (first line {header!r})")
    return header, parts


def finished_keys(out_dir: str | Path) -> set[str]:
    """Keys of every row the run directory's manifest lists as finished."""
    _, parts = _read_manifest(Path(out_dir), repair=False)
    return {k for p in parts for k in p["keys"]}


def read_run(out_dir: str | Path) -> list[dict[str, Any]]:
    """Every finished row of a run directory (partitions in manifest order).

    Raises
    ------
    CorpusError
        A listed partition is missing or holds other keys than the manifest says.
    """
    out_dir = Path(out_dir)
    _, parts = _read_manifest(out_dir, repair=False)
    rows: list[dict[str, Any]] = []
    for p in parts:
        f = out_dir / p["partition"]
        if not f.exists():
            raise CorpusError(f"{out_dir}: manifest lists {p['partition']}, which is missing")
        got = [_loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line]
        if len(got) != p["rows"]:
            raise CorpusError(f"{f}: expected {p['rows']} rows, found {len(got)}")
        rows.extend(got)
    return rows


def _open_run(out_dir: Path, header: dict[str, Any]) -> tuple[set[str], int]:
    """Create or resume a run directory; returns (finished keys, next partition number)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    old, parts = _read_manifest(out_dir, repair=True)
    if old is None:
        with open(out_dir / _MANIFEST, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(header, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        _fsync_dir(out_dir)
    elif any(old.get(k) != header[k] for k in ("suite", "options")):
        raise ConfigError(
            f"{out_dir}: the run was started with suite {old.get('suite')!r} options "
            f"{old.get('options')}; this run uses {header['suite']!r} {header['options']}. "
            "Use another directory."
        )
    listed = {p["partition"] for p in parts}
    for f in out_dir.iterdir():  # orphans of a killed driver: unlisted partitions, temp files
        if f.name != _MANIFEST and f.name not in listed and (
            f.name.startswith("part-") or f.name.startswith(".tmp-")
        ):
            f.unlink()
    nxt = 1 + max((int(p["partition"].split("-")[1].split(".")[0]) for p in parts), default=-1)
    return {k for p in parts for k in p["keys"]}, nxt


def _options_fingerprint(ref: SuiteRef) -> dict[str, str]:
    out = {}
    for k, v in ref.options:
        if k == "processes":
            continue
        if isinstance(v, list | tuple) and v and hasattr(v[0], "integrity_hash"):
            from vector_gym.tasks.task import corpus_hash

            out[k] = "corpus:" + corpus_hash(v)
        else:
            out[k] = repr(v)
    return out


def score_run(
    ds: Any,
    suite: Any,
    out_dir: str | Path,
    *,
    partition_rows: int = 1000,
    on_partition: Callable[[str, int], None] | None = None,
    **score_kwargs: Any,
) -> RunResult:
    """Score ``ds`` into a resumable run directory (module docstring, "Resume").

    Parameters
    ----------
    ds : ray.data.Dataset
        As for :func:`score_dataset`.
    suite : str, Suite, SuiteRef or callable
    out_dir : path
        Run directory (created; resumed when it holds a manifest).
    partition_rows : int
        Rows per partition file (the unit of finished work).
    on_partition : callable, optional
        ``on_partition(name, rows)`` after each partition is recorded (progress reporting).
    **score_kwargs
        :func:`score_dataset` keywords and suite options.

    Returns
    -------
    RunResult

    Raises
    ------
    ConfigError
        The directory holds a run of another suite or other options.
    CorpusError
        A key arrives twice (the input has duplicate keys).
    """
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    suite_keys = {"batch_size", "concurrency", "num_cpus", "key_fields", "skip_keys"}
    options = {k: v for k, v in score_kwargs.items() if k not in suite_keys}
    ref = suite_ref(suite, **options)
    header = {"vector_gym_run": _FORMAT, "suite": ref.name, "options": _options_fingerprint(ref)}
    done, nxt = _open_run(out_dir, header)
    kwargs = {k: v for k, v in score_kwargs.items() if k in suite_keys}
    kwargs["skip_keys"] = frozenset(done) | frozenset(kwargs.get("skip_keys", ()))
    scored_ds = score_dataset(ds, ref, **kwargs)
    scored = parts = 0
    names: list[str] = []
    seen = set(done)
    with open(out_dir / _MANIFEST, "a", encoding="utf-8") as manifest:
        for batch in scored_ds.iter_batches(batch_size=int(partition_rows), batch_format="pyarrow"):
            keys = batch.column("key").to_pylist()
            if not keys:
                continue
            dup = next((k for k in keys if k in seen), None)
            if dup is not None or len(set(keys)) != len(keys):
                raise CorpusError(f"{out_dir}: key {dup} arrived twice; the input has duplicate keys")
            seen.update(keys)
            name = f"part-{nxt:06d}.jsonl"
            tmp = out_dir / f".tmp-{name}-{uuid.uuid4().hex[:8]}"
            with open(tmp, "w", encoding="utf-8") as fh:
                for text in batch.column("row").to_pylist():
                    fh.write(text + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, out_dir / name)
            _fsync_dir(out_dir)
            manifest.write(json.dumps({"partition": name, "rows": len(keys), "keys": keys}) + "\n")
            manifest.flush()
            os.fsync(manifest.fileno())
            nxt += 1
            parts += 1
            scored += len(keys)
            names.append(name)
            if on_partition is not None:
                on_partition(name, len(keys))
    return RunResult(out_dir, scored, len(done), parts, len(done) + scored,
                     time.perf_counter() - t0, names)


# ----------------------------------------------------------------------------- generation
_TARGET_READING = ("oracle", "protected-mutation", "malformed-target", "patch-oracle", "scripted")


class _GenerateBatch:
    """Ray Data stateful UDF: a policy held in an actor answers batches of task rows."""

    def __init__(self, ref: SuiteRef, policy_spec: str, n: int, action_format: str,
                 policy_options: Mapping[str, Any], env_id: str,
                 fingerprint: Mapping[str, Any] | None = None) -> None:
        self.suite = ref.build()
        self.env_id = env_id
        self.fingerprint = fingerprint
        self.spec = policy_spec
        self.n = n
        self.action_format = action_format
        self.options = dict(policy_options)
        self.policy = None
        if policy_spec.partition(":")[0] not in _TARGET_READING:
            from vector_gym.policies import make_policy

            self.policy = make_policy(policy_spec, (), **self.options)

    def __call__(self, batch: Any) -> Any:
        from vector_gym.policies import make_policy
        from vector_gym.policies.templates import task_observation

        rows = [_loads(t) for t in batch.column("row").to_pylist()]
        tasks = [self.suite.get_task(r["task_id"]) for r in rows]
        # The target-reading controls know only the tasks they are given: this batch's.
        policy = self.policy or make_policy(self.spec, tasks)
        obs = [task_observation(t, self.action_format) for t in tasks]
        budget = getattr(policy, "token_budget", None)
        t0 = time.perf_counter()
        completions = policy.generate(obs, n=self.n)
        share = (time.perf_counter() - t0) / max(1, len(obs) * self.n)
        keys, ids, out = [], [], []
        for r, o, comps in zip(rows, obs, completions, strict=True):
            wanted = set(r.get("sample_indices", range(self.n)))
            for i, c in enumerate(comps):
                if i not in wanted:
                    continue
                row = {
                    "env": self.env_id, "task_id": o["task_id"], "policy": str(policy.name),
                    "sample_index": i, "response": c.text, "prompt_tokens": c.prompt_tokens,
                    "completion_tokens": c.completion_tokens, "finish_reason": c.finish_reason,
                    "truncated": c.truncated,
                    "max_tokens": int(budget(o)) if callable(budget) else None,
                    "elapsed_s": round(share, 6),
                }
                row.update(_run_fields(self.fingerprint))
                keys.append(row_key(row))
                ids.append(row["task_id"])
                out.append(_dumps(row))
        return _wire_table(keys, ids, out)


def vllm_preprocess(row: Mapping[str, Any], *, suite: Any, action_format: str = "svg",
                    sampling: Mapping[str, Any] | None = None, max_tokens: int | None = None,
                    ) -> dict[str, Any]:
    """One ``ray.data.llm`` request from a task row: ``messages`` and ``sampling_params``.

    ``row`` holds ``task_id``, ``sample_index`` and ``seed``; ``suite`` is a built suite. The
    prompt is the suite's chat template (:meth:`vector_gym.suites.Suite.template`), the
    budget its token budget (or ``max_tokens``), always sent (vLLM's default is 16 tokens);
    ``sampling`` adds ``temperature``, ``top_p`` ... Carried keys: ``task_id``,
    ``sample_index``, ``max_tokens``.
    """
    from vector_gym.policies.templates import task_observation

    task = suite.get_task(row["task_id"])
    obs = task_observation(task, action_format)
    budget = int(max_tokens) if max_tokens is not None else int(suite.token_budget(obs))
    messages = suite.template(action_format).messages(obs)
    params = {**dict(sampling or {}), "max_tokens": budget, "seed": int(row["seed"])}
    return {"task_id": row["task_id"], "sample_index": int(row["sample_index"]),
            "max_tokens": budget, "messages": messages, "sampling_params": params}


def vllm_postprocess(row: Mapping[str, Any], *, env_id: str, policy_name: str,
                     fingerprint: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Our rollout row (wire layout) from one ``ray.data.llm`` output row.

    Reads ``generated_text``, ``num_input_tokens``, ``num_generated_tokens`` (Ray's vLLM
    output) and ``__inference_error__`` (set with ``should_continue_on_error``): a failed
    request becomes an empty ``finish_reason "error"`` row (retried on resume, counted in Err.);
    an output that used its whole budget is ``"length"`` (truncated), else ``"stop"``.
    """
    error = row.get("__inference_error__")
    n_out = row.get("num_generated_tokens")
    max_tokens = int(row["max_tokens"])
    if error:
        reason, text = "error", ""
    else:
        text = str(row.get("generated_text") or "")
        reason = "length" if n_out is not None and int(n_out) >= max_tokens else "stop"
    out = {
        "env": env_id, "task_id": row["task_id"], "policy": policy_name,
        "sample_index": int(row["sample_index"]), "response": text,
        "prompt_tokens": None if error else int(row.get("num_input_tokens") or 0),
        "completion_tokens": None if error else int(n_out or 0),
        "finish_reason": reason, "truncated": reason == "length", "max_tokens": max_tokens,
        "elapsed_s": None,
        **_run_fields(fingerprint),
    }
    return {"key": row_key(out), "task_id": out["task_id"], "row": _dumps(out)}


def _run_fields(fingerprint: Mapping[str, Any] | None) -> dict[str, Any]:
    """``run_id`` and ``run`` as :class:`vector_gym.runfile.RunWriter` records them."""
    if fingerprint is None:
        return {}
    from vector_gym.runfile import fingerprint_id

    return {"run_id": fingerprint_id(fingerprint), "run": dict(fingerprint)}


def run_fingerprint_for(suite: Any, tasks: Sequence[Any], policy_spec: str, *,
                        env: Any = None, env_id: str | None = None,
                        policy_options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The run fingerprint (:func:`vector_gym.runfile.run_fingerprint`) of a Ray rollout.

    The evaluator controls are built on the driver (cheap), so their fingerprint equals the
    one a local ``vector-gym eval`` writes; model policies are described by their spec and
    sampling options (the model's weights are fingerprinted from a local ``hf:PATH`` folder),
    without loading them on the driver.
    """
    from types import SimpleNamespace

    from vector_gym.runfile import run_fingerprint

    options = dict(policy_options or {})
    kind = policy_spec.partition(":")[0]
    if kind in _TARGET_READING or kind in ("identity",):
        from vector_gym.policies import make_policy

        policy: Any = make_policy(policy_spec, list(tasks))
    else:
        keep = ("temperature", "top_p", "seed", "native_n", "max_tokens", "max_new_tokens")
        policy = SimpleNamespace(name=_policy_name(policy_spec),
                                 **{k: options[k] for k in keep if options.get(k) is not None})
    if env is None:  # a stand-in with what the fingerprint reads of an env
        tasks = [suite.get_task(t) if isinstance(t, str) else t for t in tasks]
        env = SimpleNamespace(env_id=env_id or suite.env_id, suite=suite, tasks=tasks)
    return run_fingerprint(env, policy, spec=policy_spec)


def _task_rows(tasks: Any, n: int, done: set[str], env_id: str, policy_name: str,
               base_seed: int) -> list[dict[str, Any]]:
    ids = [t.task_id if hasattr(t, "task_id") else str(t) for t in tasks]
    out = []
    for pos, tid in enumerate(ids):
        todo = [i for i in range(n) if row_key({"env": env_id, "task_id": tid,
                                                "policy": policy_name, "sample_index": i}) not in done]
        if todo:
            out.append({"task_id": tid, "sample_indices": todo, "position": pos,
                        "seed": base_seed + pos * n})
    return out


def rollout_dataset(
    tasks: Sequence[Any] | None,
    suite: Any,
    policy_spec: str,
    *,
    n: int = 1,
    action_format: str = "svg",
    batch_size: int = 8,
    concurrency: int | tuple[int, int] | None = None,
    num_cpus: float = 1.0,
    policy_options: Mapping[str, Any] | None = None,
    policy_name: str | None = None,
    skip_keys: Iterable[str] = (),
    vllm: Mapping[str, Any] | None = None,
    score: bool = True,
    env_id: str | None = None,
    fingerprint: Mapping[str, Any] | None = None,
    **suite_options: Any,
) -> Any:
    """Generate answers for tasks with a policy over the cluster, then score them (lazy).

    Parameters
    ----------
    tasks : sequence of Task or task ids, optional
        Default: the suite's default split (:meth:`~vector_gym.suites.Suite.tasks`).
    suite : str, Suite, SuiteRef or callable
    policy_spec : str
        As ``vector-gym eval --policy``: the controls and ``hf:PATH`` run in CPU actors
        (``num_cpus`` each); ``vllm:MODEL`` runs through Ray Data's vLLM processor on GPUs
        (``vllm``: ``vLLMEngineProcessorConfig`` keywords such as ``engine_kwargs``,
        ``concurrency``, ``batch_size``; ``policy_options``: ``temperature``, ``top_p``,
        ``max_tokens``, ``seed``). Sample ``j`` of the task at position ``p`` is seeded
        ``seed + p * n + j``, as :class:`~vector_gym.policies.vllm_policy.VLLMPolicy` seeds one
        call over the same tasks.
    n : int
        Samples per task (rows get ``sample_index`` 0..n-1).
    action_format : {"svg", "patch"}
    skip_keys : iterable of str
        Row keys already finished (resume): they are neither generated nor scored.
    score : bool
        False returns the generated rows unscored.
    env_id : str, optional
        The rows' ``env`` (default the suite's env id).

    Returns
    -------
    ray.data.Dataset
        Wire rows with the keys of ``vector-gym eval`` rows (``env``, ``task_id``, ``policy``,
        ``sample_index``, ``response``, ``prompt_tokens``, ``completion_tokens``,
        ``finish_reason``, ``truncated``, ``max_tokens``, ``elapsed_s`` (the row's share of its
        batch's generation time; None on the vLLM path), ``reward``, ``report``).

    Raises
    ------
    ConfigError
        ``n`` < 1, an unknown policy or suite, or ``vllm:MODEL`` without ``ray.data.llm``.
    """
    _ray()
    if not isinstance(n, int) or n < 1:
        raise ConfigError(f"n: expected an int >= 1, got {n!r}")
    ref = suite_ref(suite, **suite_options)
    s = ref.build()
    if tasks is None:
        tasks = s.tasks()
    kind, _, arg = policy_spec.partition(":")
    options = dict(policy_options or {})
    policy_name = policy_name or _policy_name(policy_spec)
    env_id = env_id or s.env_id
    if fingerprint is None:  # rows carry run_id and run, as vector-gym eval writes them
        fingerprint = run_fingerprint_for(s, list(tasks), policy_spec, env_id=env_id,
                                          policy_options=options)
    done = set(skip_keys)
    rows = _task_rows(tasks, n, done, env_id, policy_name, int(options.get("seed", 0)))
    ds = from_rows(rows, rows_per_block=batch_size)
    if kind == "vllm":
        gen = _vllm_stage(ds, ref, arg, action_format, options, policy_name, dict(vllm or {}), env_id,
                          fingerprint)
    else:
        if concurrency is None:
            concurrency = max(1, int(_cluster_cpus() // max(num_cpus, 1e-9)))
        lo, hi = (1, concurrency) if isinstance(concurrency, int) else concurrency
        from ray.data import ActorPoolStrategy

        gen = ds.map_batches(
            _GenerateBatch,
            fn_constructor_kwargs={"ref": ref, "policy_spec": policy_spec, "n": n,
                                   "action_format": action_format, "policy_options": options,
                                   "env_id": env_id, "fingerprint": fingerprint},
            batch_size=int(batch_size), batch_format="pyarrow",
            compute=ActorPoolStrategy(min_size=lo, max_size=hi), num_cpus=num_cpus,
        )
    if not score:
        return gen
    return score_dataset(gen, ref, skip_keys=done)


def _vllm_stage(ds: Any, ref: SuiteRef, model: str, action_format: str,
                options: Mapping[str, Any], policy_name: str, config: dict[str, Any], env_id: str,
                fingerprint: Mapping[str, Any] | None = None) -> Any:
    try:
        from ray.data.llm import build_processor, vLLMEngineProcessorConfig
    except ImportError as exc:
        raise ConfigError(
            'vllm:MODEL on Ray needs Ray\'s vLLM processor: pip install "ray[llm]" (GPU machines)'
        ) from exc
    if not model:
        raise ConfigError("policy 'vllm' expects a model id or path: vllm:MODEL")
    sampling = {k: options[k] for k in ("temperature", "top_p") if options.get(k) is not None}
    max_tokens = options.get("max_tokens")

    def expand(row: dict[str, Any]) -> list[dict[str, Any]]:
        r = _loads(row["row"])
        return [{"task_id": r["task_id"], "sample_index": j, "seed": r["seed"] + j}
                for j in r["sample_indices"]]

    built: dict[str, Any] = {}  # one suite per worker process (unpickled with the function)

    def pre(row: dict[str, Any]) -> dict[str, Any]:
        if "suite" not in built:
            built["suite"] = ref.build()
        return vllm_preprocess(row, suite=built["suite"], action_format=action_format,
                               sampling=sampling, max_tokens=max_tokens)

    def post(row: dict[str, Any]) -> dict[str, Any]:
        return vllm_postprocess(row, env_id=env_id, policy_name=policy_name, fingerprint=fingerprint)

    config.setdefault("concurrency", 1)
    config.setdefault("batch_size", 32)
    processor = build_processor(vLLMEngineProcessorConfig(model_source=model, **config),
                                preprocess=pre, postprocess=post)
    return processor(ds.flat_map(expand))


def _policy_name(spec: str) -> str:
    kind, sep, arg = spec.partition(":")
    return spec if sep and arg else kind


def policy_name(spec: str) -> str:
    """The ``policy`` label rows of ``spec`` get (as the policy's own ``name``).

    Examples
    --------
    >>> policy_name("oracle"), policy_name("hf:models/tiny")
    ('oracle', 'hf:models/tiny')
    """
    return _policy_name(spec)


# ----------------------------------------------------------------------------- CLI back ends
def _ref_with_tasks(suite: Any, tasks: Sequence[Any], **options: Any) -> SuiteRef:
    """A corpus suite scoring exactly ``tasks`` (``--tasks``); a generator suite as it is."""
    try:
        return suite_ref(suite, tasks=list(tasks), **options)
    except (ConfigError, TypeError):  # no tasks option: tasks are regenerated from their ids
        return suite_ref(suite, **options)


def rescore_outcomes(rows: Sequence[Mapping[str, Any]], tasks: Sequence[Any], *,
                     parity: bool = False, suite: Any = "vector_bench",
                     address: str | None = "auto", batch_size: int | None = None) -> list[dict[str, Any]]:
    """``vector-gym rescore --ray``: :func:`vector_gym.rescore.rescore_rows` over a cluster.

    Same rows (layout and order) as the local command; corpus tasks are shipped once per
    scorer actor, generated ones regenerated there.

    Raises
    ------
    CorpusError, UnknownTaskError
        As :func:`vector_gym.rescore.rescore_rows` (checked on the driver before any work).
    """
    from vector_gym.rescore import _rescored_row, check_outcomes

    check_outcomes(rows, tasks)
    ref = _ref_with_tasks(suite, tasks, **({"parity": True} if parity else {}))
    connect(address)
    if batch_size is None:  # large batches (per-call overhead), at least about four per actor
        batch_size = min(512, max(16, -(-len(rows) // (4 * _cluster_cpus()))))
    ds = from_rows(({**r, "_row": i} for i, r in enumerate(rows)), key_fields=("_row",),
                   rows_per_block=batch_size)
    out: list[dict[str, Any] | None] = [None] * len(rows)
    for row in decode_rows(score_dataset(ds, ref, batch_size=batch_size, key_fields=("_row",))):
        i = row["_row"]
        out[i] = _rescored_row(rows[i], row["report"])
    return [r for r in out if r is not None]


def rollout_to_file(env: Any, suite: Any, spec: str, out_path: str | Path, *,
                    tasks: Sequence[Any] | None = None, n: int = 1,
                    address: str | None = "auto", batch_size: int = 8,
                    policy_options: Mapping[str, Any] | None = None,
                    force: bool = False) -> list[dict[str, Any]]:
    """``vector-gym eval --ray``: :func:`vector_gym.rollout.rollout` over a cluster.

    Appends the rows to the same run file, resumes the same way (finished keys are skipped,
    failed ones played again, the newest row of a key wins) and returns the same rows, in task
    then sample order. ``env`` names the rows' ``env``; single-turn SVG answers only.

    Raises
    ------
    ConfigError
        A patch-action or multi-turn env (those episodes run in the env: use ``eval`` without
        ``--ray``).
    """
    from vector_gym.rollout import env_name
    from vector_gym.rollout import row_key as rollout_key
    from vector_gym.runfile import RunWriter
    from vector_gym.summary import is_error_row

    base = getattr(env, "unwrapped", env)
    if getattr(base, "action_format", "svg") != "svg" or int(getattr(base, "max_turns", 1)) != 1:
        raise ConfigError("--ray runs single-turn SVG answers; run patch or multi-turn evals without --ray")
    name = env_name(env)
    tasks = list(base.tasks) if tasks is None else list(tasks)
    ref = _ref_with_tasks(suite, tasks)
    pname = _policy_name(spec)
    fp = run_fingerprint_for(base.suite if hasattr(base, "suite") else ref.build(), tasks, spec,
                             env=env, policy_options=policy_options)
    # The one writer of the file (lock, torn-line repair, fingerprint check), as the local eval.
    writer = RunWriter(out_path, fp, force=force)
    try:
        writer.check_fingerprint(name, pname)
        have = {rollout_key(r): r for r in writer.rows}
        done = {row_key(r) for r in have.values() if not is_error_row(r)}
        connect(address)
        ds = rollout_dataset(tasks, ref, spec, n=n, batch_size=batch_size, skip_keys=done,
                             policy_options=policy_options, policy_name=pname, env_id=name,
                             fingerprint=fp)
        for batch in ds.iter_batches(batch_format="pyarrow"):
            for text in batch.column("row").to_pylist():
                row = writer.append(_loads(text))
                have[rollout_key(row)] = row
    finally:
        writer.close()
    return [have[(name, t.task_id, pname, i)] for t in tasks for i in range(n)]


# ----------------------------------------------------------------------------- local clusters
def _keep_host(host: str) -> str:
    return host


_PATCH = "import ray._private.services as _s; _s.resolve_ip_for_localhost = lambda h: h; "
_LAUNCH = _PATCH + (
    "import sys; from ray.scripts.scripts import main; sys.argv[0] = 'ray'; sys.exit(main())"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalCluster:
    """A Ray cluster of separate nodes on this machine, on 127.0.0.1 (tests, benchmarks, trials).

    ``ray start --head`` and ``workers`` times ``ray start --address=127.0.0.1:PORT``, each node
    with ``cpus`` CPUs and a small object store, every process tagged with a marker in its
    environment. :meth:`stop` (also on ``__exit__``, whatever happened) ends exactly these
    processes: each node's process group, then any process still carrying the marker, by pid;
    it never runs ``ray stop``, which would end every Ray process of the user. It then removes
    the cluster's temporary directory (session files and logs; a failed start's log tail is in
    its error message).

    Parameters
    ----------
    workers : int
        Worker nodes besides the head (the head has ``head_cpus`` CPUs).
    cpus, head_cpus : int
        CPUs of each worker node and of the head node.
    object_store_mb : int
        Object store per node (MiB; Ray's minimum is 75). Size it to hold a run's input and
        output blocks: past 70% full Ray triggers garbage collection in every worker, when
        full it spills blocks to disk (spill worker processes), both counted as Ray's CPU.
    log_monitor : bool
        Start Ray's log monitor on each node (default False: it tails every worker's log file
        to forward it to the driver, which :func:`connect` turns off with
        ``log_to_driver=False``; the logs stay in the session directory).
    timeout_s : float
        Seconds to wait for the nodes to join.

    Raises
    ------
    RuntimeError
        A node did not start or join in time (its log tail is in the message).
    """

    def __init__(self, workers: int = 1, cpus: int = 1, head_cpus: int = 1,
                 object_store_mb: int = 80, timeout_s: float = 120.0,
                 log_monitor: bool = False) -> None:
        self.workers = int(workers)
        self.cpus = int(cpus)
        self.head_cpus = int(head_cpus)
        self.object_store = int(object_store_mb) << 20
        self.timeout_s = float(timeout_s)
        self.log_monitor = bool(log_monitor)
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.marker = f"vgray-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        # One authentication mode for every node and the driver: ``ray start --head`` turns
        # token authentication on by itself when ~/.ray/auth_token exists (a local ray.init()
        # writes one), while worker nodes and an explicit-address driver do not, and then
        # cannot join (InvalidAuthToken). RAY_AUTH_MODE=token, where set, applies to all.
        self.auth_mode = os.environ.get("RAY_AUTH_MODE") or "disabled"
        self.temp_dir = Path(tempfile.mkdtemp(prefix="vgray-"))
        self.nodes: list[subprocess.Popen] = []
        self._logs: list[Path] = []

    def _ray_cmd(self) -> list[str]:
        # ``ray start`` with Ray's loopback substitution turned off in the launcher (see start()).
        return [sys.executable, "-c", _LAUNCH]

    def _start_node(self, args: list[str], cpus: int, env_extra: dict[str, str]) -> None:
        log = self.temp_dir / f"node{len(self.nodes)}.log"
        env = dict(os.environ, VECTOR_GYM_RAY_CLUSTER=self.marker, RAY_USAGE_STATS_ENABLED="0",
                   RAY_AUTH_MODE=self.auth_mode, **env_extra)
        cmd = [*self._ray_cmd(), "start", *args, f"--num-cpus={cpus}", "--num-gpus=0",
               f"--object-store-memory={self.object_store}", "--disable-usage-stats", "--block"]
        fh = open(log, "wb")
        try:
            proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True, stdin=subprocess.DEVNULL)
        finally:
            fh.close()
        self.nodes.append(proc)
        self._logs.append(log)

    def _log_tail(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-1500:] for p in self._logs if p.exists())

    def start(self) -> LocalCluster:
        """Start the nodes and wait until all have joined; returns self."""
        try:
            # Ray replaces 127.0.0.1 by the machine's outward address
            # (ray/_private/services.py, resolve_ip_for_localhost); the launcher (_LAUNCH) and
            # connect() turn that off, so every node and the driver stay on the loopback.
            self._start_node(
                ["--head", f"--port={self.port}", "--include-dashboard=false",
                 f"--include-log-monitor={str(self.log_monitor).lower()}",
                 f"--temp-dir={self.temp_dir}", "--node-ip-address=127.0.0.1"], self.head_cpus, {},
            )
            self._wait(lambda: self._gcs_up(), "the head node")
            for i in range(self.workers):  # one at a time: a raylet has 30 s to register
                for attempt in range(2):
                    self._start_node([f"--address={self.address}", "--node-ip-address=127.0.0.1",
                                      f"--include-log-monitor={str(self.log_monitor).lower()}"],
                                     self.cpus, {})
                    try:
                        self._wait(lambda i=i: self._alive_nodes() >= 2 + i, f"worker node {i + 1}")
                        break
                    except RuntimeError:
                        if attempt or self.nodes[-1].poll() is None:
                            raise
                        self.nodes.pop()  # it gave up registering (a loaded machine): once more
        except BaseException:
            self.stop()
            raise
        return self

    def _gcs_up(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.5).close()
            return True
        except OSError:
            return False

    def connect(self, **init_kwargs: Any) -> Any:
        """Connect this process to the cluster on the loopback (:func:`connect`); returns ``ray``."""
        return connect(self.address, loopback=True, **init_kwargs)

    def _alive_nodes(self) -> int:
        code = (_PATCH + "import ray,sys; ray.init(address=sys.argv[1], log_to_driver=False);"
                "print(sum(1 for n in ray.nodes() if n['Alive']))")
        env = dict(os.environ, VECTOR_GYM_RAY_CLUSTER=self.marker, RAY_AUTH_MODE=self.auth_mode)
        try:
            out = subprocess.run([sys.executable, "-c", code, self.address], capture_output=True,
                                 text=True, timeout=60, env=env)
            return int(out.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, ValueError, IndexError):
            return 0

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.nodes):  # a node gave up
                raise RuntimeError(f"a Ray node exited while starting {what}:\n{self._log_tail()}")
            if ready():
                return
            time.sleep(0.3)
        raise RuntimeError(f"{what} did not start within {self.timeout_s:.0f} s:\n{self._log_tail()}")

    def marked_pids(self) -> list[int]:
        """Pids of this machine's processes that carry this cluster's marker (ours)."""
        needle = f"VECTOR_GYM_RAY_CLUSTER={self.marker}".encode()
        pids = []
        for d in Path("/proc").iterdir():
            if not d.name.isdigit() or int(d.name) == os.getpid():
                continue
            try:
                if needle in (d / "environ").read_bytes().split(b"\0"):
                    pids.append(int(d.name))
            except OSError:
                continue
        return pids

    def stop(self) -> None:
        """End every process of this cluster (node process groups, then marked pids)."""
        for p in self.nodes:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 5
        for p in self.nodes:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in self.nodes:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        for _ in range(3):
            pids = self.marked_pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.3)
        self.nodes = []
        # The nodes' session directories (sockets, object spill, logs): tens of MiB per cluster.
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
