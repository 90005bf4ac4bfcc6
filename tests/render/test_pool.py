"""The isolated process pool: hostile documents fail alone, workers and segments never leak."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from render_helpers import GOOD, NS, svg

from vector_gym.render import RenderLimits, RenderPool, render_many
from vector_gym.render import reasons as R

# The hostile list of issue 3 (and the first Vector-Bench issue's): each must fail with this name.
HOSTILE = {
    "nested_10000_groups": (svg("<g>" * 10_000 + "</g>" * 10_000), R.TOO_DEEP),
    "use_fanout_1e9": (
        f"<svg {NS}><defs><rect id='a0' width='1' height='1'/>"
        + "".join(f"<g id='a{i + 1}'>" + f"<use href='#a{i}'/>" * 10 + "</g>" for i in range(9))
        + "</defs><use href='#a9'/></svg>",
        R.USE_EXPANSION,
    ),
    "path_million_segments": (
        svg('<path d="M0 0' + "h1" * 1_000_000 + '"/>'),
        R.TOO_MANY_PATH_SEGMENTS,
    ),
    "self_use": (svg('<use id="u" href="#u"/>'), R.USE_CYCLE),
    "mutual_use": (
        svg('<g id="a"><use xlink:href="#b"/></g><g id="b"><use xlink:href="#a"/></g>'),
        R.USE_CYCLE,
    ),
    "external_entity_local_file": (
        f'<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg {NS}><text>&x;</text></svg>',
        R.ENTITY_DECLARATION,
    ),
    "entity_bomb": (
        '<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
        f"<svg {NS}><desc>&c;&c;&c;</desc></svg>",
        R.ENTITY_DECLARATION,
    ),
    "invalid_utf8": (b'<svg xmlns="http://www.w3.org/2000/svg">\xff\xfe</svg>', R.INVALID_UTF8),
    "lone_surrogate": (svg("<desc>\ud800</desc>"), R.INVALID_UTF8),
    "50_mb": (svg(" " * 50_000_000), R.TOO_LARGE),
    "image_local_file": (
        svg('<image href="file:///etc/passwd" width="2" height="2"/>'),
        R.EXTERNAL_REFERENCE,
    ),
    "css_import": (
        svg("<style>@import url(http://example.com/a.css);</style>"),
        R.EXTERNAL_REFERENCE,
    ),
    "not_svg": ("<html/>", R.NOT_SVG),
    "not_text": (12345, R.NOT_TEXT),
}


def _red_left(img: np.ndarray) -> bool:
    h, w = img.shape[:2]
    return bool((img[:, : w // 2] == [255, 0, 0]).all() and (img[:, w // 2 :] == 255).all())


def test_hostile_batch_fails_alone_and_pool_keeps_serving(pool):
    names = list(HOSTILE)
    docs = [GOOD]
    for name in names:
        docs += [HOSTILE[name][0], GOOD]
    # width="1e9" is not hostile once fitted: it renders (the root is refitted to the canvas).
    docs.append(svg('<rect width="1e9" height="1e9" fill="red"/>', 'width="1e9" height="1e9"'))
    t0 = time.monotonic()
    batch = pool.render(docs, (16, 16), timeout_s=10.0)
    images, ok, errors = batch
    assert time.monotonic() - t0 < 30  # bounded time (the whole batch, 2 workers)
    assert errors[0] is None and _red_left(images[0])
    for k, name in enumerate(names):
        assert errors[1 + 2 * k] == HOSTILE[name][1], name
        assert (images[1 + 2 * k] == 255).all(), name  # failed items are plain white
        assert errors[2 + 2 * k] is None and _red_left(images[2 + 2 * k]), name
    assert errors[-1] is None and (images[-1] == [255, 0, 0]).all()
    images2, ok2, errors2 = pool.render([GOOD] * 4, (8, 8))
    assert ok2.all() and all(_red_left(im) for im in images2)


def test_watchdog_kills_a_stuck_worker_and_respawns():
    # A path that takes ~0.2 s in skia, with a 20 ms watchdog: the worker is killed mid-draw.
    slow = svg(
        '<path stroke="black" fill="none" d="M0 0' + " l1 1 l-1 0" * 100_000 + '"/>',
        'viewBox="0 0 9 9"',
    )
    with RenderPool(1, memory_mb=1024) as pool:
        before = pool.worker_pids()
        images, ok, errors = pool.render([GOOD, slow, GOOD], (16, 16), timeout_s=0.02)
        assert errors == (None, R.TIMEOUT, None)
        assert ok.tolist() == [True, False, True]
        assert pool.worker_pids() != before  # replaced
        assert _red_left(images[2])


def test_memory_limit_names_out_of_memory_and_pool_recovers():
    # A 4096 x 4096 canvas needs 64 MiB of scratch plus 48 MiB of batch on top of the ~190 MiB
    # address space of an idle worker: over a 256 MiB limit.
    with RenderPool(1, memory_mb=256) as pool:
        _, ok, errors = pool.render([GOOD], (4096, 4096))
        assert errors == (R.OUT_OF_MEMORY,)
        images, ok, errors = pool.render([GOOD], (8, 8))
        assert errors == (None,) and _red_left(images[0])


def test_close_leaves_no_process_or_segment():
    pool = RenderPool(2, memory_mb=1024)
    pool.render([GOOD], (4, 4))
    pids = pool.worker_pids()
    name = pool._shm.name
    pool.close()
    assert pool.closed
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not os.path.exists("/dev/shm/" + name.lstrip("/"))
    with pytest.raises(RuntimeError):
        pool.render([GOOD], (4, 4))
    pool.close()  # idempotent


def test_worker_runs_in_an_empty_directory_with_a_memory_limit(tmp_path):
    # An <image> naming a relative file must not find it: the worker's cwd is empty and the
    # pre-check refuses non-#id, non-data: references anyway.
    (tmp_path / "x.png").write_bytes(b"not a png")
    doc = svg('<image href="x.png" width="2" height="2"/>')
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        batch = render_many([doc], (4, 4), processes=1)
    finally:
        os.chdir(old)
    assert batch.errors == (R.EXTERNAL_REFERENCE,)


def test_limits_are_configurable(pool):
    doc = svg("<g><g><g><rect width='1' height='2' fill='red'/></g></g></g>")
    _, _, errors = pool.render([doc], (4, 4), limits=RenderLimits(max_depth=3))
    assert errors == (R.TOO_DEEP,)
    _, _, errors = pool.render([doc], (4, 4), limits=RenderLimits(max_depth=5))
    assert errors == (None,)


def test_a_worker_that_dies_mid_document_fails_it_as_crashed():
    import signal
    import threading

    slow = svg(
        '<path stroke="black" fill="none" d="M0 0' + " l1 1 l-1 0" * 200_000 + '"/>',
        'viewBox="0 0 9 9"',
    )
    with RenderPool(1, memory_mb=1024) as pool:
        pool.render([GOOD], (8, 8))  # the worker is up and idle
        pid = pool.worker_pids()[0]
        killer = threading.Timer(0.1, os.kill, (pid, signal.SIGKILL))  # the document takes ~1 s
        killer.start()
        try:
            _, ok, errors = pool.render([slow], (64, 64), timeout_s=30.0)
        finally:
            killer.cancel()
        assert errors == (R.WORKER_CRASHED,)
        images, ok, errors = pool.render([GOOD], (8, 8))
        assert errors == (None,) and _red_left(images[0]) and pool.worker_pids()[0] != pid
