"""A big batch is returned as its own shared segment: no copy in the parent, nothing left behind."""

from __future__ import annotations

import glob
import time

import numpy as np
from render_helpers import GOOD, svg

import vector_gym.render.pool as pool_module
from vector_gym.render import RenderPool, render_many
from vector_gym.render import reasons as R


def _segments() -> set[str]:
    return set(glob.glob("/dev/shm/vg_*"))


def _mapped(pid: int, prefix: str = "/dev/shm/vg_") -> list[str]:
    """The worker's mappings of batch segments, once it has read its "release" message (<= 5 s)."""
    deadline = time.monotonic() + 5.0
    while True:
        with open(f"/proc/{pid}/maps") as fh:
            found = [line for line in fh if prefix in line]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


def test_a_big_batch_is_its_own_segment_unlinked_and_unmapped_in_the_workers(monkeypatch):
    # Regression (issue 16): the parent held each batch twice (the copy out of the segment and
    # the segment itself, which stayed allocated): 287 MiB for 1,000 images of 224 px.
    monkeypatch.setattr(pool_module, "_OWN_SEGMENT_BYTES", 1000)
    docs = [GOOD, "<svg", GOOD, svg('<circle cx="4" cy="4" r="3" fill="#00f"/>')] * 8
    before = _segments()
    with RenderPool(2, memory_mb=1024) as pool:
        images, ok, errors = pool.render(docs, (16, 16))
        assert images.nbytes >= 1000
        # the array views the batch's own mapping: no copy was made, and it is writable
        assert not images.flags.owndata
        assert images.flags.writeable
        assert _segments() == before  # unlinked already; the mapping lives with the array
        for pid in pool.worker_pids():
            assert _mapped(pid) == []  # the workers unmapped it
        reference = render_many(docs, (16, 16), processes=0)
        assert errors == reference.errors
        assert errors[1] == R.NOT_WELL_FORMED
        np.testing.assert_array_equal(images, reference.images)
        assert (images[1] == 255).all()  # a failed item is plain background
        # the next batch (own segment again) does not disturb the first one's pixels
        kept = images.copy()
        pool.render(docs[::-1], (16, 16))
        np.testing.assert_array_equal(images, kept)
    assert _segments() == before


def test_a_small_batch_still_uses_the_reused_segment():
    assert 3 * 8 * 8 * 3 < pool_module._OWN_SEGMENT_BYTES
    with RenderPool(1, memory_mb=1024) as pool:
        a, ok, _ = pool.render([GOOD] * 3, (8, 8))
        name = pool._shm.name
        b, ok2, _ = pool.render([GOOD] * 3, (8, 8))
        assert pool._shm.name == name
        np.testing.assert_array_equal(a, b)
        assert ok.all() and ok2.all()
        a[:] = 0  # a copy: the pool's segment is not the caller's array
        c, _, _ = pool.render([GOOD] * 3, (8, 8))
        np.testing.assert_array_equal(c, b)


def test_parent_memory_is_the_pixels_once(monkeypatch):
    # 120 images of 224 px = 17.2 MiB: the parent's resident memory grows by about that, once
    # (it grew by twice that before: copy + segment).
    monkeypatch.setattr(pool_module, "_OWN_SEGMENT_BYTES", 16 << 20)
    def rss_kib() -> int:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))

    docs = [GOOD] * 120
    with RenderPool(1, memory_mb=1024) as pool:
        pool.render(docs[:2], (224, 224))
        before = rss_kib()
        images = pool.render(docs, (224, 224))[0]
        int(images[..., 0].max())  # touch every page
        grown = (rss_kib() - before) * 1024
        assert grown < 1.3 * images.nbytes, (grown, images.nbytes)
        assert images[:, 0, 0].tolist() == [[255, 0, 0]] * 120
