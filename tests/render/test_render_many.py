"""render_many / render_one / RenderCache: shapes, fitting, backgrounds, backends, errors."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import GOOD, NS, svg

from vector_gym.errors import ConfigError
from vector_gym.render import RenderCache, render_many, render_one
from vector_gym.render import reasons as R


def test_batch_shapes_dtypes_and_pixels_in_process():
    batch = render_many([GOOD, "<svg", GOOD], size=(4, 6), processes=0)
    assert batch.images.shape == (3, 4, 6, 3) and batch.images.dtype == np.uint8
    assert batch.ok.dtype == bool and batch.ok.tolist() == [True, False, True]
    assert batch.errors == (None, R.NOT_WELL_FORMED, None)
    assert len(batch) == 3
    # viewBox 2x2 on a 6x4 canvas: xMidYMid meet -> a centred 4x4 square, left half red.
    img = batch.images[0]
    assert (img[:, 1:3] == [255, 0, 0]).all() and (img[:, 3:5] == 255).all()
    assert (img[:, 0] == 255).all() and (img[:, 5] == 255).all()
    assert (batch.images[1] == 255).all()  # failed item: plain background


def test_pool_and_in_process_give_identical_pixels():
    docs = [GOOD, svg('<circle cx="1" cy="1" r="0.7" fill="#123456" opacity="0.5"/>')]
    a = render_many(docs, (32, 32), processes=0)
    b = render_many(docs, (32, 32), processes=1)
    assert np.array_equal(a.images, b.images) and a.errors == b.errors


def test_absolute_width_height_fill_the_canvas():
    # No viewBox, width/height in px: the drawing is scaled to fill the canvas (not cut).
    doc = f'<svg {NS} width="10" height="10"><rect width="5" height="10" fill="red"/></svg>'
    img = render_many([doc], (20, 20), processes=0).images[0]
    assert (img[:, :10] == [255, 0, 0]).all() and (img[:, 10:] == 255).all()
    # width="1e9": still fitted, still drawn.
    doc = f'<svg {NS} width="1e9" height="1e9"><rect width="5e8" height="1e9" fill="red"/></svg>'
    img = render_many([doc], (8, 8), processes=0).images[0]
    assert (img[:, :4] == [255, 0, 0]).all()


# A 2x1 viewBox (left half blue, right half red) on a 4x4 canvas, as a browser fits the root:
# SVG 1.1 section 7.8 (preserveAspectRatio); rows top to bottom, "." is the white background.
_PAR_BODY = '<rect width="2" height="1" fill="red"/><rect width="1" height="1" fill="blue"/>'
_PAR_CASES = {
    'viewBox="0 0 2 1"': "....|BBRR|BBRR|....",  # default xMidYMid meet: letterboxed
    'viewBox="0 0 2 1" preserveAspectRatio="none"': "BBRR|BBRR|BBRR|BBRR",
    'viewBox="0 0 2 1" preserveAspectRatio="xMinYMin"': "BBRR|BBRR|....|....",
    'viewBox="0 0 2 1" preserveAspectRatio="xMaxYMax slice"': "RRRR|RRRR|RRRR|RRRR",
    'width="2" height="1"': "....|BBRR|BBRR|....",  # absolute size: fitted like a viewBox
    'width="2" height="1" preserveAspectRatio="none"': "BBRR|BBRR|BBRR|BBRR",
}


@pytest.mark.parametrize("backend", ["skia", "resvg", "cairosvg"])
@pytest.mark.parametrize("attrs", list(_PAR_CASES))
def test_root_preserve_aspect_ratio_variants(attrs, backend):
    img = render_many([svg(_PAR_BODY, attrs)], (4, 4), backend=backend, processes=0).images[0]
    colours = {(255, 0, 0): "R", (0, 0, 255): "B", (255, 255, 255): "."}
    got = "|".join("".join(colours.get(tuple(p), "?") for p in row) for row in img.tolist())
    assert got == _PAR_CASES[attrs]


def test_background_colour_and_validation():
    img = render_many([svg("")], (2, 2), background="#102030", processes=0).images[0]
    assert (img == [16, 32, 48]).all()
    img = render_many([svg("")], (2, 2), background=(1, 2, 3), processes=0).images[0]
    assert (img == [1, 2, 3]).all()
    with pytest.raises(ConfigError):
        render_many([GOOD], (2, 2), background="rgba(0,0,0,0.5)", processes=0)
    with pytest.raises(ConfigError):
        render_many([GOOD], (0, 2), processes=0)
    with pytest.raises(ConfigError):
        render_many([GOOD], (2, 2), backend="chrome", processes=0)
    with pytest.raises(ConfigError):
        render_many([GOOD], (2, 2), processes=-1)


def test_empty_batch():
    batch = render_many([], (4, 4), processes=0)
    assert batch.images.shape == (0, 4, 4, 3) and batch.errors == ()
    batch = render_many([], (4, 4), processes=1)
    assert batch.images.shape == (0, 4, 4, 3) and batch.errors == ()


@pytest.mark.parametrize("backend", ["resvg", "cairosvg"])
def test_other_backends_draw_the_same_simple_picture(backend):
    img = render_many([GOOD], (8, 8), backend=backend, processes=0).images[0]
    assert (img[:, :4] == [255, 0, 0]).all() and (img[:, 4:] == 255).all()


def test_cairosvg_crop_to_half_shows_the_centred_window():
    # SVGEditBench v1 README (CropToHalf): viewBox 0 0 18 36 at 72x72 shows x in [-9, 27]:
    # a white quarter, the left half, then the first quarter of the right half.
    body = (
        '<rect width="18" height="36" fill="red"/><rect x="18" width="18" height="36" fill="blue"/>'
    )
    doc = f'<svg {NS} viewBox="0 0 18 36">{body}</svg>'
    for backend in ("cairosvg", "skia", "resvg"):
        img = render_many([doc], (72, 72), backend=backend, processes=0).images[0]
        assert (img[:, :18] == 255).all(), backend
        assert (img[:, 18:54] == [255, 0, 0]).all(), backend
        assert (img[:, 54:] == [0, 0, 255]).all(), backend


def test_skia_falls_back_to_resvg_for_text_and_images():
    doc = svg('<text x="0" y="1.5" font-size="2" fill="black">W</text>')
    fallback = render_many([doc], (32, 32), processes=0).images[0]
    strict = render_many([doc], (32, 32), backend="skia-strict", processes=0).images[0]
    assert (strict == 255).all()  # skia-python draws no glyph
    assert (fallback < 128).any()  # resvg does
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAABHNCSVQICAgIfAhkiAAAAA1JREFUCJlj+M/A8B8ABQAB/6vONokAAAAASUVORK5CYII="
    doc = svg(
        f'<image href="data:image/png;base64,{png}" width="2" height="2" preserveAspectRatio="none"/>'
    )
    fallback = render_many([doc], (8, 8), processes=0).images[0]
    strict = render_many([doc], (8, 8), backend="skia-strict", processes=0).images[0]
    assert (strict == 255).all()  # skia's SVG module draws no image
    assert (fallback[2:6, 2:6] == [255, 0, 0]).all()  # a 1x1 red PNG stretched over the canvas


def test_render_one():
    image, error = render_one(GOOD, (2, 2), processes=0)
    assert error is None and image.tolist() == [[[255, 0, 0], [255, 255, 255]]] * 2
    image, error = render_one(b"\xff", (2, 2), processes=0)
    assert error == R.INVALID_UTF8 and (image == 255).all()


def test_render_cache_draws_each_document_once():
    cache = RenderCache(max_items=2, processes=0)
    other = svg('<rect width="2" height="1" fill="blue"/>')
    b1 = cache.get_many([GOOD, other, GOOD], (4, 4))
    assert cache.misses == 3 and cache.hits == 0 and len(cache) == 2
    assert np.array_equal(b1.images[0], b1.images[2])
    b2 = cache.get_many([other, GOOD], (4, 4))
    assert cache.hits == 2 and np.array_equal(b2.images[1], b1.images[0])
    image, err = cache.get(GOOD, (4, 4))
    assert err is None and not image.flags.writeable
    cache.get(GOOD, (8, 8))  # a new size is a new key; the oldest entry is evicted
    assert len(cache) == 2


def test_render_cache_get_with_draws_extra_in_the_same_batch_uncached(monkeypatch):
    import vector_gym.render.cache as cache_mod

    calls = []
    real = cache_mod.render_many

    def counting(svgs, *a, **k):
        calls.append(list(svgs))
        return real(svgs, *a, **k)

    monkeypatch.setattr(cache_mod, "render_many", counting)
    cache = RenderCache(processes=0)
    other = svg('<rect width="2" height="1" fill="blue"/>')
    entries, extra = cache.get_with([GOOD, GOOD], [other, "<svg", GOOD], (4, 4))
    assert calls == [[GOOD, other, "<svg", GOOD]]  # misses (once each) then every extra
    assert len(cache) == 1 and cache.misses == 2  # the extras are never cached
    ref = real([GOOD, other, "<svg"], (4, 4), processes=0)
    assert [e[1] for e in entries] == [None, None] and not entries[0][0].flags.writeable
    assert np.array_equal(entries[0][0], ref.images[0]) and entries[1][0] is entries[0][0]
    assert extra.errors == (None, R.NOT_WELL_FORMED, None) and extra.ok.tolist() == [True, False, True]
    assert np.array_equal(extra.images[:2], ref.images[1:]) and np.array_equal(extra.images[2], ref.images[0])
    entries, extra = cache.get_with([GOOD], [], (4, 4))  # all cached, nothing extra: no render
    assert len(calls) == 1 and cache.hits == 1 and len(extra) == 0 and extra.images.shape == (0, 4, 4, 3)


def test_render_cache_does_not_keep_transient_failures():
    # Regression (review of issue 3): a target that once timed out (a busy machine, a killed
    # worker) stayed failed for the cache's lifetime, failing that task's every later step.
    slow = svg(
        '<path stroke="black" fill="none" d="M0 0' + " l1 1 l-1 0" * 100_000 + '"/>',
        'viewBox="0 0 9 9"',
    )
    cache = RenderCache(processes=1, timeout_s=0.02)
    for attempt in (1, 2):
        image, err = cache.get(slow, (16, 16))
        assert err == R.TIMEOUT and (image == 255).all()
        assert cache.misses == attempt and cache.hits == 0 and len(cache) == 0
    batch = cache.get_many([GOOD, "<svg"], (4, 4))  # deterministic outcomes are kept
    assert batch.errors == (None, R.NOT_WELL_FORMED) and len(cache) == 2
