"""A persistent pool of isolated render worker processes writing into shared memory.

Why processes: skia holds the GIL while drawing (two threads gave 0.97x, two processes 1.83x,
issue 3). Why shared memory: pickling images back costs 10-40 % of throughput, so each worker
draws straight into its item's slot of one preallocated ``(N, H, W, 3)`` uint8 array in a
:class:`multiprocessing.shared_memory.SharedMemory` segment owned by the pool; only the document
text and a short reply per document (index, error name) cross the pipe. A batch of 64 MiB or
more gets a segment of its own, which is the array returned (no copy out of it; the segment is
unlinked and unmapped in the workers when the batch ends, and its memory goes with the array),
so the parent holds a batch's pixels once (issue 16). Smaller batches share one reused segment
and are copied out. A batch bigger than 256 MiB, or than the free space of ``/dev/shm``, is
drawn in chunks that fit, through a segment freed when the batch ends.

Isolation (the second layer; the first is :mod:`vector_gym.render.precheck`):

* every worker runs with ``RLIMIT_AS`` = ``memory_mb`` and in a fresh empty working directory;
* each worker draws one document at a time, with a deadline of ``timeout_s`` seconds from the
  moment it starts (the worker reports each document as it finishes it; the bounded first
  stage of every document of a message, the pre-check and the text lowering of
  :func:`vector_gym.render.backends.begin_documents`, runs before the first is drawn, so
  the first one's deadline also covers those few milliseconds); a worker past its
  deadline is killed (``SIGKILL``) and replaced, and its document fails as ``timeout``; a worker
  that dies fails its document as ``worker_crashed`` (or ``out_of_memory`` when it could still
  report the ``MemoryError``); the documents queued behind it are re-sent;
* documents travel several to a message (at most 64 KiB of text together; the batch's segment,
  shape, background, backend and limits once per batch), and a worker holds at most one
  message waiting behind the one it draws; a document over 64 KiB travels alone and only to an
  idle worker, so that ``send`` never blocks the watchdog;
* the other documents of the batch carry on, and the pool keeps serving.

Workers are fresh interpreters started with :mod:`subprocess` (``python -c``), talking over an
inherited socket: safe next to threads, torch or CUDA in the parent, and unlike
multiprocessing's ``spawn`` they never re-import the caller's ``__main__`` (a script without an
``if __name__ == "__main__"`` guard still works). The pool closes its workers and unlinks its segment on :meth:`RenderPool.close`, on
leaving a ``with`` block, on garbage collection and at interpreter exit.
"""

from __future__ import annotations

import atexit
import collections
import multiprocessing as mp
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from multiprocessing import connection as mp_connection
from multiprocessing import shared_memory

import numpy as np

from vector_gym.render import reasons
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderLimits, RenderRejected, check_text

__all__ = ["RenderPool"]

_STARTUP_TIMEOUT_S = 60.0
_MAX_MESSAGES = 2  # messages of documents queued per worker (one being drawn, one waiting)
_MESSAGE_DOCS = 16  # most documents in one message
# The parent sleeps this long before waiting on its workers when each has at least
# _NAP_MIN_QUEUED documents queued (at 224 px a corpus document takes about 0.6 ms), and then
# reads their replies in one go. Waking for every reply, with one document per message, cost the
# parent 0.10 ms of CPU per image at 224 px with two workers on two cores, against 0.6 ms in a
# worker; it now costs about 0.035 ms, most of it the final copy out of the segment.
_NAP_S = 0.004
_NAP_MIN_QUEUED = 8
_FRAME = struct.Struct("!i")  # the length before each message of Connection.send_bytes
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MAX_START_FAILURES = 3
# A document is queued behind a busy worker only when its message surely fits in the socket
# buffer (Linux: about 180 KiB for an AF_UNIX pair). A larger one would block ``send`` until the
# worker finished its current document, and a blocked parent runs no watchdog: a slow document
# followed by a big one then ran to completion, past ``timeout_s``. Big documents wait until the
# worker is idle (it is then reading its socket), which costs nothing next to their draw time.
# Two such messages, what may wait in the buffer at once (the next is sent when the worker has
# answered for every document of the one it read), hold at most 128 KiB: a socket pair here takes
# 180 KiB in 4 KiB writes and 228 KiB in 64 KiB ones before a write would block. 64 KiB rather
# than 32: ten Vector-Bench scenes a message instead of five, about 6 % less worker CPU per cold
# image at 72 px (its first stage runs on more documents at once, fewer messages) and a fifth
# less in the parent.
_QUEUE_MAX_BYTES = 64 * 1024
# Largest shared-memory segment (a bigger batch is drawn in chunks of this size, see
# RenderPool._segment_budget): 256 MiB is 1,780 images of 224 px.
_MAX_SEGMENT_BYTES = 256 << 20
# A batch of at least this many bytes that fits in one segment gets a segment of its own, and
# the images returned are that segment (no copy; freed with the array). Smaller batches share
# one reused segment and are copied out: a fresh segment costs its page faults in the workers
# (60 SVGEditBench emoji at 512 px, 47 MiB: 909 images per CPU-second in a segment of their
# own against 1,690 through the reused one), which only big batches repay in memory.
_OWN_SEGMENT_BYTES = 64 << 20


def _new_segment(nbytes: int):
    """Create a POSIX shared-memory segment of ``nbytes``: ``(name, mmap)``.

    Registered with the resource tracker (unlinked if this process dies), as
    :class:`multiprocessing.shared_memory.SharedMemory` does; :func:`_unlink_segment` unlinks
    it, after which the mapping (and so the memory) lives as long as the arrays viewing it.
    """
    import _posixshmem
    import mmap
    import secrets
    from multiprocessing import resource_tracker

    while True:
        name = "/vg_" + secrets.token_hex(8)
        try:
            fd = _posixshmem.shm_open(name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
        except FileExistsError:
            continue
        break
    try:
        resource_tracker.register(name, "shared_memory")
        os.ftruncate(fd, nbytes)
        mm = mmap.mmap(fd, nbytes)
    except BaseException:
        _unlink_segment(name)
        raise
    finally:
        os.close(fd)
    return name, mm


def _unlink_segment(name: str) -> None:
    import _posixshmem
    from multiprocessing import resource_tracker

    try:
        _posixshmem.shm_unlink(name)
    except FileNotFoundError:
        pass
    resource_tracker.unregister(name, "shared_memory")


def _wire_bytes(svg: str | bytes) -> int:
    """An upper bound of a document's size on the wire (a str is pickled as UTF-8)."""
    if isinstance(svg, str) and not svg.isascii():
        return 4 * len(svg)
    return len(svg)


def _attach(name: str):
    """Map the parent's segment without registering it with a resource tracker.

    ``SharedMemory(name)`` would register the segment with this worker's own tracker (Python <
    3.13), which unlinks it when the worker exits, under the parent's feet.
    """
    import _posixshmem
    import mmap

    fd = _posixshmem.shm_open("/" + name.lstrip("/"), os.O_RDWR, mode=0o600)
    try:
        size = os.fstat(fd).st_size
        return mmap.mmap(fd, size)
    finally:
        os.close(fd)


def _worker_entry(fd: int, memory_mb: int, workdir: str | None = None) -> None:  # in the child
    """Entry point of a worker process: adopt the socket ``fd`` and serve until told to stop."""
    _worker_main(mp_connection.Connection(fd), memory_mb or None, workdir)


def _worker_main(conn, memory_mb: int | None, workdir: str | None = None) -> None:  # in the child
    import resource
    import shutil
    import signal
    import tempfile

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and closes us
    if workdir is None:
        workdir = tempfile.mkdtemp(prefix="vector-gym-render-")
    os.chdir(workdir)
    try:
        if memory_mb:
            limit = int(memory_mb) * 1024 * 1024
            _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        import skia  # noqa: F401 - warm the import before reporting ready

        from vector_gym.render.backends import begin_documents, clear_caches, end_document

        conn.send_bytes(b"ready %d" % os.getpid())
        shm = None
        shm_name = None
        batch = None
        background = backend = limits = None
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                break
            if msg is None:
                break
            if type(msg) is str:
                if msg == "clear":  # forget the prepared documents
                    clear_caches()
                else:  # "release": the batch's own segment is done; unmap it
                    batch = None
                    if shm is not None:
                        shm.close()
                    shm = shm_name = None
                continue
            if type(msg) is tuple:  # a batch's settings, sent once per batch
                name, shape, background, backend, limits = msg
                if name != shm_name:
                    batch = None
                    if shm is not None:
                        shm.close()
                    shm = _attach(name)
                    shm_name = name
                if batch is None or batch.shape != shape:
                    batch = np.ndarray(shape, dtype=np.uint8, buffer=shm)
                continue
            # documents: a list of (index, text); one reply per document, as it is finished.
            # The bounded first stage of every document of the message runs first (better use
            # of the processor's caches; see backends.begin_documents), the rest in turn.
            try:
                staged = begin_documents([svg for _, svg in msg], shape[1:3], backend, limits)
            except MemoryError:
                staged = [None] * len(msg)
            for (index, _svg), item in zip(msg, staged, strict=True):
                try:
                    if item is None:
                        raise MemoryError
                    err, drawn_by = end_document(item, batch[index], background, backend, limits)
                except MemoryError:
                    err, drawn_by = reasons.OUT_OF_MEMORY, None
                # A reply is a short ASCII line (no pickle): "<index> <error or -> <drawn_by or ->".
                conn.send_bytes(b"%d %s %s" % (index, (err or "-").encode(), (drawn_by or "-").encode()))
        batch = None
        if shm is not None:
            shm.close()
    finally:
        os.chdir("/")
        shutil.rmtree(workdir, ignore_errors=True)


class _Worker:
    __slots__ = (
        "proc", "conn", "workdir", "poller", "ready", "queue", "msgs", "run", "deadline", "unread"
    )

    def __init__(self, proc, conn, workdir: str) -> None:
        self.proc = proc
        self.conn = conn
        self.workdir = workdir  # made by the parent, which removes it (a killed worker cannot)
        # ``conn.poll()`` builds a selector per call; one poll object per worker is a syscall.
        self.poller = select.poll()
        self.poller.register(conn.fileno(), select.POLLIN)
        self.ready = False
        self.queue: collections.deque[int] = collections.deque()  # documents sent, in order
        self.msgs: collections.deque[int] = collections.deque()  # documents left per message
        self.run = None  # the run whose settings this worker holds
        self.deadline = 0.0  # for queue[0]
        self.unread = b""  # the start of a reply not read whole yet


_live_pools: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _close_all_pools() -> None:
    for pool in list(_live_pools):
        pool.close()


class RenderPool:
    """A persistent pool of render worker processes.

    Parameters
    ----------
    processes : int, optional
        Number of worker processes; defaults to ``os.cpu_count()``. Must be >= 1.
    memory_mb : int or None, default 2048
        Address-space limit (``RLIMIT_AS``) of each worker in MiB; ``None`` for no limit.

    Raises
    ------
    ValueError
        For ``processes < 1`` or ``memory_mb < 256``.

    Notes
    -----
    One batch runs at a time (``render`` holds a lock). A pool belongs to the process that
    made it: after ``os.fork`` the child cannot use it (``render`` raises ``RuntimeError``) and
    its ``close`` leaves the parent's workers alone.

    Examples
    --------
    >>> with RenderPool(1) as pool:
    ...     images, ok, errors = pool.render(['<svg xmlns="http://www.w3.org/2000/svg"/>', '<svg'], (8, 8))
    >>> images.shape, ok.tolist(), errors
    ((2, 8, 8, 3), [True, False], (None, 'not_well_formed'))
    """

    def __init__(self, processes: int | None = None, *, memory_mb: int | None = 2048) -> None:
        n = (os.cpu_count() or 1) if processes is None else processes
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"processes: expected an int >= 1, got {processes!r}")
        if memory_mb is not None and memory_mb < 256:
            raise ValueError(f"memory_mb: expected None or >= 256 MiB, got {memory_mb!r}")
        self.processes = n
        self.memory_mb = memory_mb
        self._owner_pid = os.getpid()
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._shm: shared_memory.SharedMemory | None = None
        self._closed = False
        self._start_failures = 0
        _live_pools.add(self)
        for _ in range(n):
            self._workers.append(self._spawn())

    # -- lifecycle -------------------------------------------------------------------------
    def _spawn(self) -> _Worker:
        parent_conn, child_conn = mp.Pipe(duplex=True)
        fd = child_conn.fileno()
        env = dict(os.environ)
        # One thread per BLAS/OpenMP pool: the worker does no linear algebra, and every thread
        # reserves address space under RLIMIT_AS.
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = "1"
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
        workdir = tempfile.mkdtemp(prefix="vector-gym-render-")
        code = (
            "from vector_gym.render.pool import _worker_entry; "
            f"_worker_entry({fd}, {self.memory_mb or 0}, {workdir!r})"
        )
        try:
            # Started in its own empty working directory: ``python -c`` puts the working
            # directory first on sys.path, and a vector_gym package in the parent's (another
            # checkout) would be imported instead of the one at _PACKAGE_ROOT.
            proc = subprocess.Popen(
                [sys.executable, "-c", code],
                pass_fds=(fd,),
                close_fds=True,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=workdir,
            )
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            parent_conn.close()
            raise
        finally:
            child_conn.close()
        return _Worker(proc, parent_conn, workdir)

    def _retire(self, worker: _Worker) -> None:
        """Kill one worker (if alive) and release its pipe."""
        if worker.proc.poll() is None:
            worker.proc.kill()
        try:
            worker.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL
            pass
        worker.conn.close()
        shutil.rmtree(worker.workdir, ignore_errors=True)

    def _replace(self, worker: _Worker) -> _Worker:
        self._retire(worker)
        new = self._spawn()
        self._workers[self._workers.index(worker)] = new
        return new

    def close(self) -> None:
        """Stop every worker and unlink the shared-memory segment; idempotent."""
        if self._closed:
            return
        self._closed = True
        if (
            os.getpid() != self._owner_pid
        ):  # a forked child: the workers and segment are the parent's
            self._workers = []
            self._shm = None
            return
        for w in self._workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 2.0
        for w in self._workers:
            try:
                w.proc.wait(timeout=max(0.01, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            self._retire(w)
        self._workers = []
        self._release_shm()
        _live_pools.discard(self)

    def _release_shm(self) -> None:
        if self._shm is not None:
            self._shm.close()
            try:
                self._shm.unlink()
            except FileNotFoundError:
                pass
            self._shm = None

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return self._closed

    def clear_caches(self) -> None:
        """Make every worker forget the documents it prepared (for cold-start measurements)."""
        with self._lock:
            for w in self._workers:
                try:
                    w.conn.send("clear")
                except (OSError, ValueError):
                    pass

    def worker_pids(self) -> tuple[int, ...]:
        """Return the process ids of the current workers (for tests and monitoring)."""
        return tuple(w.proc.pid for w in self._workers)

    # -- work ------------------------------------------------------------------------------
    def _buffer(self, nbytes: int) -> shared_memory.SharedMemory:
        nbytes = max(nbytes, 1)
        if self._shm is None or self._shm.size < nbytes:
            self._release_shm()
            self._shm = shared_memory.SharedMemory(create=True, size=max(nbytes, 1 << 20))
        return self._shm

    def _handle_start_failure(self) -> None:
        self._start_failures += 1
        if self._start_failures > _MAX_START_FAILURES * self.processes:
            raise RuntimeError(
                "render workers keep dying before they are ready; is memory_mb="
                f"{self.memory_mb} too small for Python + skia?"
            )

    def render(
        self,
        svgs,
        size: tuple[int, int],
        background: tuple[int, int, int] = (255, 255, 255),
        backend: str = "skia",
        timeout_s: float = 10.0,
        limits: RenderLimits = DEFAULT_LIMITS,
        *,
        with_drawn_by: bool = False,
    ) -> tuple:
        """Render a batch in the workers; see :func:`vector_gym.render.render_many`.

        Returns
        -------
        images : numpy.ndarray
            ``(N, H, W, 3)`` uint8, sRGB on ``background``; failed items are plain background.
        ok : numpy.ndarray
            ``(N,)`` bool.
        errors : tuple of (str or None)
            One name from :data:`vector_gym.render.reasons.REASONS` per failed item.
        drawn_by : tuple of (str or None)
            Only with ``with_drawn_by=True``: the backend that drew each item (``"skia"``,
            ``"resvg"`` or ``"cairosvg"``; ``None`` where it failed).

        Raises
        ------
        RuntimeError
            If the pool is closed, or workers cannot start at all.
        """
        if self._closed:
            raise RuntimeError("render pool is closed")
        if os.getpid() != self._owner_pid:
            raise RuntimeError(
                "a RenderPool cannot be used after fork; make a new one in this process"
            )
        with self._lock:
            result = self._render(svgs, size, background, backend, timeout_s, limits)
        return result if with_drawn_by else result[:3]

    def _segment_budget(self) -> int:
        """Bytes one batch segment may take: ``_MAX_SEGMENT_BYTES`` or what ``/dev/shm`` has free.

        A segment larger than the free space of its tmpfs is created without complaint, and the
        first worker write past that space dies of SIGBUS (a container's default ``/dev/shm`` is
        64 MiB, about 440 images of 224 px): larger batches are drawn in chunks instead.
        """
        own = self._shm.size if self._shm is not None else 0  # reused when big enough
        try:
            st = os.statvfs("/dev/shm")
        except OSError:
            return max(_MAX_SEGMENT_BYTES, own)
        return min(_MAX_SEGMENT_BYTES, max(st.f_bavail * st.f_frsize, own))

    def _render(self, svgs, size, background, backend, timeout_s, limits):
        h, w = size
        n = len(svgs)
        errors: list[str | None] = [None] * n
        drawn: list[str | None] = [None] * n
        if n == 0:
            return np.zeros((0, h, w, 3), np.uint8), np.zeros(0, bool), (), ()
        svgs = list(svgs)
        passed = [False] * n
        for i, svg in enumerate(svgs):
            try:
                svgs[i] = check_text(svg, limits)  # a bytearray or memoryview becomes bytes
                passed[i] = True
            except RenderRejected as exc:
                errors[i] = exc.reason
        per_image = max(1, h * w * 3)
        budget = self._segment_budget()
        chunk = max(1, min(n, budget // per_image))
        own = chunk == n and n * per_image >= _OWN_SEGMENT_BYTES
        images = None if own else np.empty((n, h, w, 3), dtype=np.uint8)
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            shape = (b - a, h, w, 3)
            if own:
                name, mm = _new_segment(n * per_image)
                view = np.frombuffer(mm, dtype=np.uint8).reshape(shape)
                del mm  # the array keeps the mapping alive, and frees it when it goes
            else:
                shm = self._buffer((b - a) * per_image)
                name = shm.name
                view = np.ndarray(shape, dtype=np.uint8, buffer=shm.buf)
            # Longest first (by length, a proxy of draw time): the batch then ends with short
            # documents on every worker instead of one long one on a single worker.
            todo = [j for j in range(b - a) if passed[a + j]]
            todo.sort(key=lambda j: len(svgs[a + j]), reverse=True)
            pending = collections.deque(todo)
            sub_errors = errors[a:b]
            sub_drawn = drawn[a:b]
            try:
                self._run(
                    pending,
                    svgs[a:b],
                    sub_errors,
                    name,
                    shape,
                    background,
                    backend,
                    timeout_s,
                    limits,
                    sub_drawn,
                )
                if own:
                    images = view
                else:
                    images[a:b] = view
            except BaseException:
                # An interrupted batch leaves workers mid-document: replace them all.
                for wk in list(self._workers):
                    if wk.queue:
                        wk.queue.clear()
                        self._replace(wk)
                raise
            finally:
                if own:
                    _unlink_segment(name)
                    for wk in self._workers:  # unmap it in the workers too
                        if wk.run is not None:
                            try:
                                wk.conn.send("release")
                            except (OSError, ValueError):
                                pass
                            wk.run = None
                del view
            errors[a:b] = sub_errors
            drawn[a:b] = sub_drawn
        if chunk < n:
            self._release_shm()  # a batch drawn in chunks: do not keep its big segment
        ok = np.array([e is None for e in errors], dtype=bool)
        if not ok.all():
            images[~ok] = np.asarray(background, dtype=np.uint8)
        return images, ok, tuple(errors), tuple(d if e is None else None for d, e in zip(drawn, errors, strict=True))

    def _run(
        self, pending, svgs, errors, name, shape, background, backend, timeout_s, limits, drawn
    ) -> None:
        settings = (name, shape, background, backend, limits)  # sent once per worker and run
        run = object()
        startup_deadline = time.monotonic() + _STARTUP_TIMEOUT_S
        workers = self._workers
        while True:
            # Dispatch: keep up to _MAX_MESSAGES messages of documents queued per ready worker,
            # so that a worker never waits for the parent between two documents. The watchdog
            # runs on the first queued document only (the one being drawn); its clock starts
            # when it reaches the head.
            for _ in range(_MAX_MESSAGES):  # one message per worker and pass: all start early
                if not pending:
                    break
                for wk in list(workers):
                    if wk.ready and len(wk.msgs) < _MAX_MESSAGES:
                        self._dispatch(wk, run, settings, pending, svgs, errors, timeout_s)
            busy = [wk for wk in workers if wk.queue]
            if not pending and not busy:
                return
            now = time.monotonic()
            waiting = [wk for wk in workers if not wk.ready]
            if waiting:
                if not busy and now > startup_deadline:
                    raise RuntimeError(
                        f"render workers did not start within {_STARTUP_TIMEOUT_S:.0f} s"
                    )
                watched = busy + waiting
            else:
                watched = busy
            deadline = min(wk.deadline for wk in busy) if busy else now + 1.0
            if not waiting and all(len(wk.queue) >= _NAP_MIN_QUEUED for wk in workers):
                # Every worker has work for a while: let replies pile up and read them in one
                # go, instead of waking for each (the parent shares the cores with the workers).
                # A reply, a death or a deadline is then noticed at most _NAP_S late.
                nap = min(_NAP_S, deadline - now)
                if nap > 0:
                    time.sleep(nap)
            # A worker's death closes its end of the socket, which makes ours readable (EOF).
            ready = mp_connection.wait(
                [wk.conn for wk in watched], timeout=max(0.0, deadline - time.monotonic())
            )
            now = time.monotonic()
            if ready:
                for wk in watched:
                    if wk.conn in ready:
                        self._receive(wk, pending, errors, now + timeout_s, drawn)
            for wk in list(workers):
                if wk.queue and now > wk.deadline:
                    self._fail_worker(wk, pending, errors, reasons.TIMEOUT)

    def _dispatch(self, wk: _Worker, run, settings, pending, svgs, errors, timeout_s) -> None:
        """Send ``wk`` one message of documents from the front of ``pending``.

        A message holds one document bigger than ``_QUEUE_MAX_BYTES`` (sent only to an idle
        worker) or several smaller ones of at most ``_QUEUE_MAX_BYTES`` together, and at most a
        fair share of what is left (so that the batch ends on all workers at about once).
        """
        share = 2 * len(self._workers)
        if pending and len(wk.msgs) < _MAX_MESSAGES:
            size = _wire_bytes(svgs[pending[0]])
            if size > _QUEUE_MAX_BYTES:
                if wk.queue:
                    return  # would block send() while the worker draws: wait until idle
                docs = [pending.popleft()]
            else:
                cap = min(_MESSAGE_DOCS, max(1, len(pending) // share))
                docs = [pending.popleft()]
                while pending and len(docs) < cap:
                    size += _wire_bytes(svgs[pending[0]])
                    if size > _QUEUE_MAX_BYTES:
                        break
                    docs.append(pending.popleft())
            try:
                if wk.run is not run:
                    wk.conn.send(settings)
                    wk.run = run
                wk.conn.send([(i, svgs[i]) for i in docs])
            except (OSError, ValueError):
                pending.extendleft(reversed(docs))
                self._fail_worker(wk, pending, errors, None)
                return
            if not wk.queue:
                wk.deadline = time.monotonic() + timeout_s
            wk.queue.extend(docs)
            wk.msgs.append(len(docs))

    def _receive(self, wk: _Worker, pending, errors, deadline: float, drawn) -> None:
        """Read every reply ``wk`` has sent; a new head document gets ``deadline``.

        The replies are read from the socket in one ``read`` per wake-up and split by the
        framing of :meth:`multiprocessing.connection.Connection.send_bytes` (a 4-byte length
        before each), where ``recv`` took two reads and an unpickling per reply (issue 16: the
        parent's CPU per image at 72 px).
        """
        fd = wk.conn.fileno()
        try:
            while True:
                data = os.read(fd, 1 << 16)
                if not data:
                    break  # EOF: the worker died
                buf = wk.unread + data if wk.unread else data
                at = 0
                end = len(buf)
                while end - at >= 4:
                    size = _FRAME.unpack_from(buf, at)[0]
                    if end - at - 4 < size:
                        break
                    msg = buf[at + 4 : at + 4 + size].split()
                    at += 4 + size
                    if msg[0] == b"ready":
                        wk.ready = True
                        self._start_failures = 0
                        continue
                    index = int(msg[0])
                    errors[index] = None if msg[1] == b"-" else msg[1].decode()
                    drawn[index] = None if msg[2] == b"-" else msg[2].decode()
                    wk.queue.popleft()
                    wk.msgs[0] -= 1
                    if not wk.msgs[0]:
                        wk.msgs.popleft()
                    wk.deadline = deadline
                wk.unread = buf[at:]
                if not wk.poller.poll(0):
                    return
        except OSError:
            pass
        # The worker died: the document it was drawing failed; the rest go back.
        if not wk.ready and not wk.queue:
            self._handle_start_failure()
        self._fail_worker(wk, pending, errors, reasons.WORKER_CRASHED)

    def _fail_worker(self, wk: _Worker, pending, errors, reason: str | None) -> None:
        """Replace a dead or stuck worker: its head document fails with ``reason``, the others
        it had queued go back to the front of ``pending``."""
        if wk.queue:
            head = wk.queue.popleft()
            if reason is None:
                pending.appendleft(head)
            else:
                errors[head] = reason
            pending.extendleft(reversed(wk.queue))
            wk.queue.clear()
        self._replace(wk)
