"""Drawing and generating from several threads at once gives what one thread gives.

A library call may come from any thread: a web server's worker threads serving OpenEnv
sessions, a trainer's reward threads, the rollout's scoring threads. Each thread must draw on
its own canvas: one canvas per process, shared by the threads, let a thread read pixels
another had just drawn over (a wrong image, so a wrong raster reward; a wrong visibility verdict,
so a different RepairGen task for the same seed). A tiny switch interval makes the threads
interleave between drawing and reading back, where that showed.
"""

from __future__ import annotations

import hashlib
import sys
import threading

import numpy as np
import pytest

from vector_gym.render import render_one
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator


@pytest.fixture
def fast_switching():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run_threads(work, n: int = 2) -> None:
    errors: list[BaseException] = []

    def guarded(k: int) -> None:
        try:
            work(k)
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_in_process_renders_from_two_threads_equal_one_thread(fast_switching):
    colours = ["f00", "0f0", "00f", "ff0", "0ff", "f0f", "000", "888"]
    docs = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
        f'<rect width="{i % 10 + 1}" height="{(3 * i) % 10 + 1}" fill="#{c}"/></svg>'
        for i, c in enumerate(colours * 5)
    ]
    alone = [render_one(d, (24, 24), processes=0) for d in docs]
    assert all(err is None for _img, err in alone)
    wrong = [0]

    def work(k: int) -> None:
        for _round in range(25):
            for i in range(k, len(docs), 2):
                img, err = render_one(docs[i], (24, 24), processes=0)
                if err is not None or not np.array_equal(img, alone[i][0]):
                    wrong[0] += 1

    _run_threads(work)
    assert wrong[0] == 0, f"{wrong[0]} of {25 * len(docs)} images differ from the one-thread render"


def _digest(task) -> str:
    return hashlib.sha256("\0".join((task.source_svg, task.target_svg, task.instruction)).encode()).hexdigest()


def test_repairgen_in_two_threads_gives_the_one_thread_tasks(fast_switching):
    n = 40
    alone = {s: [_digest(RepairGenerator(RepairGenConfig(split="all"), seed=s)[i]) for i in range(n)] for s in (0, 1)}
    got: dict[int, list[str]] = {}

    def work(s: int) -> None:
        gen = RepairGenerator(RepairGenConfig(split="all"), seed=s)
        got[s] = [_digest(gen[i]) for i in range(n)]

    _run_threads(work)
    for s in (0, 1):
        differ = [i for i in range(n) if got[s][i] != alone[s][i]]
        assert differ == [], f"seed {s}: tasks {differ} differ from one thread's"



def test_a_visibility_trial_is_not_seen_by_another_threads_trial_on_the_same_source(monkeypatch):
    # Prepared sources are shared by every generator of the process (prepare_source is cached),
    # and so is each one's render form, which a visibility trial edits in place (the changed
    # element spliced in, here a deleted one taken out) and restores. Thread B runs a trial on
    # the same source while thread A's trial is drawing its edited form: B must get the share
    # it gets alone (A's deleted element back in place), and A its own.
    import vector_gym.tasks.repairgen_visibility as vis
    from vector_gym.tasks.repairgen_sources import prepare_source

    source = RepairGenerator(RepairGenConfig(split="all", sources=("vector_bench",)))._sources[0]

    def fresh():
        prep = prepare_source.__wrapped__(source)  # not the cached one: a form of its own
        assert vis.clean_image(prep) is not None and prep.render_form
        return prep

    alone = fresh()
    shares = {c.id: vis.changed_fraction(alone, None, c.id) for c in alone.candidates}
    a, b = sorted(shares, key=lambda i: -shares[i])[:2]  # the two most visible deletions
    want_a, want_b = shares[a], shares[b]
    assert want_a > 0.01 and want_b > 0.01

    prep = fresh()
    draw = vis._draw
    got: dict[str, float] = {}
    helper: list[threading.Thread] = []

    def drawing(*args, **kwargs):  # A's trial: the form holds A's change now
        if not helper:
            t = threading.Thread(target=lambda: got.update(b=vis.changed_fraction(prep, None, b)))
            helper.append(t)
            t.start()
            t.join(timeout=1.0)  # B runs now, or waits until A's trial is done
        return draw(*args, **kwargs)

    monkeypatch.setattr(vis, "_draw", drawing)
    got["a"] = vis.changed_fraction(prep, None, a)
    helper[0].join()
    assert (got["a"], got["b"]) == (want_a, want_b)



def test_a_thread_never_sees_a_half_built_element_index_of_a_prepared_source():
    # _elements builds a prepared source's id index and its cache of partial copies on first
    # use, in two assignments. Another thread is run between them (a trace hook makes the
    # interleaving certain): its _partial_copy must work with what it finds.
    import vector_gym.tasks.repairgen as rg
    from vector_gym.tasks.repairgen_sources import prepare_source

    source = RepairGenerator(RepairGenConfig(split="all", sources=("vector_bench",)))._sources[0]
    prep = prepare_source.__wrapped__(source)  # a fresh one: nothing built yet
    ids = [c.id for c in prep.candidates[:2]]
    errors: list[BaseException] = []
    lines = [0]

    def other() -> None:
        try:
            rg._partial_copy(prep, ids[1])
        except BaseException as exc:
            errors.append(exc)

    def local(frame, event, arg):
        if event == "line":
            lines[0] += 1
            if lines[0] == 3:  # before the build's second assignment (line 1 is its test)
                t = threading.Thread(target=other)
                t.start()
                t.join()
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is rg._elements.__code__ else None

    sys.settrace(tracer)
    try:
        copy = rg._partial_copy(prep, ids[0])
    finally:
        sys.settrace(None)
    assert lines[0] >= 3 and errors == [], errors
    assert copy is not None and prep.elements is not None and prep.partials is not None
