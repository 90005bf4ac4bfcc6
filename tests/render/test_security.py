"""Bounded everywhere (issue 11, item 3): CSS href, SVG in data: URIs, selectors, raster headers.

Each case proves that no file is opened or stat'ed (a FIFO canary, whose ``open()`` would block
until the test's timeout, and ``strace`` of every backend in a child process), that rendering
in this process (``processes=0``) does not crash, and that the failure has its named reason.
"""

from __future__ import annotations

import base64
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pytest
from lxml import etree
from render_helpers import GOOD, NS, svg

from vector_gym.render import RenderLimits, render_many, render_one
from vector_gym.render import reasons as R
from vector_gym.svg.normalise import simplify
from vector_gym.svg.normalise.style import SELECTOR_BUDGET, CSSTooComplex, check_selectors
from vector_gym.svg.parse import parse_svg

BACKENDS = ("skia", "skia-strict", "resvg", "cairosvg")
CSS_HREF_SPELLINGS = ("href", "HREF", "xlink\\:href", "\\68ref", "x\\6c ink\\3a href")


def _css_href_docs(target: str) -> list[str]:
    docs = []
    for name in CSS_HREF_SPELLINGS:
        docs.append(svg(f'<image width="2" height="2" style="{name}: url({target})"/>' + GOOD[GOOD.index(">") + 1 : -6]))
        docs.append(
            svg(f'<style>image {{ {name}: "{target}" }} use {{ {name}: url({target}) }}</style>'
                '<image width="2" height="2"/><use/>' + GOOD[GOOD.index(">") + 1 : -6])
        )
    return docs


def _data_svg(inner: str, mime: str = "image/svg+xml") -> str:
    return f"data:{mime};base64," + base64.b64encode(inner.encode()).decode()


def _png_header(w: int, h: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + chunk
        + struct.pack(">I", zlib.crc32(chunk))
        + b"\x00\x00\x00\x00IEND\xaeB`\x82"
    )


def _jpeg_header(w: int, h: int) -> bytes:
    sof = struct.pack(">BHHB", 8, h, w, 3) + b"\x01\x11\x00\x02\x11\x00\x03\x11\x00"
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + (
        b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xd9"
    )


def test_simplify_never_emits_a_css_href(tmp_path):
    canary = tmp_path / "canary.png"
    for doc in _css_href_docs(str(canary)):
        out = simplify(doc)
        assert str(canary) not in out, doc
        root = etree.fromstring(out.encode())
        assert not root.xpath("//@*[local-name() = 'href']"), out


@pytest.mark.parametrize("backend", BACKENDS)
def test_css_href_opens_no_file_with_processes_0(tmp_path, backend):
    # A FIFO canary: any open() of it would block this test until pytest is killed.
    fifo = tmp_path / "canary.png"
    os.mkfifo(fifo)
    docs = _css_href_docs(str(fifo))
    batch = render_many(docs, (16, 16), backend=backend, processes=0)
    assert batch.errors == (None,) * len(docs)
    for img in batch.images:  # the rest is drawn: the red left half
        assert (img[:, :8] == [255, 0, 0]).all() and (img[:, 8:] == 255).all()


_STRACE_CHILD = textwrap.dedent(
    """
    import sys
    from vector_gym.render import render_many
    docs = [open(p, encoding="utf-8").read() for p in sys.argv[2:]]
    for backend in ("skia", "skia-strict", "resvg", "cairosvg"):
        b = render_many(docs, (16, 16), backend=backend, processes=0)
        print(backend, b.errors, flush=True)
    """
)


def test_no_backend_opens_or_stats_a_named_path(tmp_path):
    assert shutil.which("strace"), "strace is needed (.ci/run installs it)"
    canary = tmp_path / "canary-never-touched"
    canary.write_text("x")
    deep = "<g>" * 5000 + "</g>" * 5000
    inner_refs = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'xml:base="file://{canary}/"><image href="{canary}" width="5" height="5"/>'
        f'<use xlink:href="{canary}#a"/><rect fill="url({canary}#g)" width="5" height="5"/></svg>'
    )
    docs = _css_href_docs(str(canary))
    for mime in ("image/svg+xml", "image/png", "text/plain", "application/octet-stream"):
        docs.append(svg(f'<image width="2" height="2" href="{_data_svg(inner_refs, mime)}"/>'))
        docs.append(svg(f'<image width="2" height="2" href="{_data_svg(deep, mime)}"/>'))
    paths = []
    for i, d in enumerate(docs):
        p = tmp_path / f"doc{i}.svg"
        p.write_text(d, encoding="utf-8")
        paths.append(str(p))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    log = tmp_path / "strace.log"
    proc = subprocess.run(
        ["strace", "-f", "-qq", "-o", str(log), "-e", "trace=%file",
         sys.executable, "-c", _STRACE_CHILD, "x", *paths],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("None") == 4 * len(docs), proc.stdout
    touched = [line for line in log.read_text().splitlines() if str(canary) in line]
    assert touched == []


def test_svg_in_a_data_uri_is_not_drawn_and_does_not_crash_in_process():
    # 5,000 nested groups inside a data: SVG crashed resvg in this process (issue 11).
    deep = '<svg xmlns="http://www.w3.org/2000/svg">' + "<g>" * 5000 + "</g>" * 5000 + "</svg>"
    drawn = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" height="9" fill="blue"/></svg>'
    for mime in ("image/svg+xml", "image/png", "text/plain", ""):
        for inner in (deep, drawn):
            doc = svg(f'<image width="2" height="2" href="{_data_svg(inner, mime)}"/>'
                      '<rect width="1" height="2" fill="red"/>')
            for backend in BACKENDS:
                img, err = render_one(doc, (8, 8), backend=backend, processes=0)
                assert err is None, (mime, backend)
                assert (img[:, :4] == [255, 0, 0]).all() and (img[:, 4:] == 255).all(), (mime, backend)


def test_a_raster_data_image_is_still_drawn_under_a_raster_or_text_mime_type():
    # 1 x 1 red (the PNG of test_render_many.test_skia_falls_back_to_resvg_for_text_and_images)
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAABHNCSVQICAgIfAhkiAAAAA1JREFUCJlj+M/A8B8ABQAB/6vONokAAAAASUVORK5CYII="
    for mime in ("image/png", "text/plain"):  # resvg sniffs text/plain, as browsers do
        doc = svg(f'<image width="2" height="2" preserveAspectRatio="none" href="data:{mime};base64,{png}"/>')
        batch = render_many([doc], (4, 4), processes=0)
        assert batch.errors == (None,) and batch.drawn_by == ("resvg",)
        assert (batch.images[0] == [255, 0, 0]).all(), mime


@pytest.mark.parametrize("header", ["png", "jpeg"])
def test_raster_header_over_the_pixel_limit_fails_before_decoding(header):
    big = _png_header(100_000, 100_000) if header == "png" else _jpeg_header(60_000, 60_000)
    small = _png_header(4, 4) if header == "png" else _jpeg_header(4, 4)
    mime = "image/png" if header == "png" else "image/jpeg"
    docs = [
        svg(f'<image width="2" height="2" href="data:{mime};base64,{base64.b64encode(b).decode()}"/>')
        for b in (big, small)
    ]
    for processes in (0, 1):
        t0 = time.monotonic()
        batch = render_many(docs, (8, 8), processes=processes)
        assert time.monotonic() - t0 < 20
        assert batch.errors[0] == R.IMAGE_TOO_LARGE
        assert batch.errors[1] in (None, R.RENDER_FAILED)  # a truncated image: never a crash


def _exponential_sheet() -> str:
    # About 1 KB: 250 descendant combinators, matched against 120 nested groups.
    return "<style>" + "g " * 250 + "rect { fill: red }</style>" + "<g>" * 120 + "<rect/>" + "</g>" * 120


@pytest.mark.parametrize("backend", BACKENDS)
def test_exponential_selector_fails_fast_with_a_named_reason(backend):
    doc = svg(_exponential_sheet())
    assert len(doc) < 2000
    t0 = time.monotonic()
    batch = render_many([doc, GOOD], (8, 8), backend=backend, processes=0)
    assert time.monotonic() - t0 < 10
    assert batch.errors == (R.CSS_TOO_COMPLEX, None)


def test_selector_budget_counts_work_not_size():
    root = parse_svg(svg(_exponential_sheet()))
    with pytest.raises(CSSTooComplex) as exc:
        check_selectors(root)
    assert exc.value.reason == "css_too_complex"
    # An ordinary sheet on a big document stays under budget.
    ok = parse_svg(svg("<style>g > rect.a, #x { fill: red }</style>" + '<g><rect class="a"/></g>' * 2000))
    check_selectors(ok, SELECTOR_BUDGET)


def test_no_svg_namespace_is_a_named_reason():
    docs = [
        '<svg viewBox="0 0 2 2"><rect width="1" height="2" fill="red"/></svg>',
        '<svg xmlns="http://example.org/not-svg" viewBox="0 0 2 2"/>',
        GOOD,
    ]
    for processes in (0, 1):
        batch = render_many(docs, (4, 4), processes=processes)
        assert batch.errors == (R.NO_SVG_NAMESPACE, R.NO_SVG_NAMESPACE, None)
        assert batch.drawn_by == (None, None, "skia")
    assert R.NO_SVG_NAMESPACE in R.REASONS and R.CSS_TOO_COMPLEX in R.REASONS


def test_a_cyclic_use_is_skipped_alone():
    doc = svg('<rect width="1" height="2" fill="red"/><g id="a"><use href="#a"/></g>'
              '<use id="u" href="#u"/>')
    # Default (issue 11): as browsers and resvg, every backend, in process and in the pool.
    assert RenderLimits().use_cycles == "skip"
    for backend in ("skia", "resvg", "cairosvg"):
        for processes in (0, 1):
            img, err = render_one(doc, (4, 4), backend=backend, processes=processes)
            assert err is None, backend
            assert (img[:, :2] == [255, 0, 0]).all() and (img[:, 2:] == 255).all(), backend
    # "fail" (the SVGEditBench papers' CairoSVG recurses to death on it) fails by name.
    fail = RenderLimits(use_cycles="fail")
    assert render_one(doc, (4, 4), processes=0, limits=fail)[1] == R.USE_CYCLE


def test_routing_is_recorded_per_document():
    docs = [
        GOOD,
        svg('<text x="0" y="2" font-size="2">a</text>'),
        svg('<rect width="2" height="2" fill="red" style="mix-blend-mode: multiply"/>'),
        svg('<filter id="f"><feTile/></filter><rect width="2" height="2" filter="url(#f)"/>'),
        svg('<rect width="2" height="2" style="filter: blur(1px)"/>'),
        "<svg",
    ]
    for processes in (0, 1):
        batch = render_many(docs, (4, 4), processes=processes)
        assert batch.drawn_by == ("skia", "resvg", "resvg", "resvg", "resvg", None)
        strict = render_many(docs, (4, 4), backend="skia-strict", processes=processes)
        assert strict.drawn_by == ("skia",) * 5 + (None,)


def test_resvg_draws_on_transparent_then_composites():
    # multiply over nothing is the colour itself; over a white background it would be too, but
    # over a blue background a blend with the background would darken it: it must not.
    doc = svg('<rect width="2" height="2" fill="#ff8000" style="mix-blend-mode: multiply"/>')
    img, err = render_one(doc, (4, 4), background=(0, 0, 255), processes=0)
    assert err is None
    assert np.abs(img.astype(int) - [255, 128, 0]).max() <= 1
    assert NS  # the helpers' namespaces are what the documents use
