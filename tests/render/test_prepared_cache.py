"""The per-process cache of prepared documents and the reference checks' text pre-test."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import GOOD, NS, svg

import vector_gym.render.backends as backends
import vector_gym.render.precheck as precheck
from vector_gym.render import RenderLimits, render_many
from vector_gym.render import reasons as R

STYLED = svg('<style>.a{fill:#00f}</style><rect class="a" width="4" height="4"/>')  # full normaliser


@pytest.fixture(autouse=True)
def _empty_cache():
    backends.clear_caches()
    yield
    backends.clear_caches()


def _count_prepares(monkeypatch) -> list:
    calls = []
    real = backends._prepare_begin  # the first stage of every preparation, staged or not

    def counting(*args):
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(backends, "_prepare_begin", counting)
    return calls


def test_a_document_is_prepared_once_per_size_backend_and_limits(monkeypatch):
    calls = _count_prepares(monkeypatch)
    docs = [GOOD, STYLED, GOOD.encode("utf-8")]
    first = render_many(docs, (8, 8), processes=0)
    again = render_many(docs, (8, 8), processes=0)
    np.testing.assert_array_equal(first.images, again.images)
    assert first.errors == again.errors == (None, None, None)
    assert len(calls) == 2  # GOOD as str and as bytes share one entry (same UTF-8 digest)
    render_many([GOOD], (9, 9), processes=0)
    render_many([GOOD], (8, 8), backend="resvg", processes=0)
    render_many([GOOD], (8, 8), processes=0, limits=RenderLimits(max_path_numbers=10**6 - 1))
    assert len(calls) == 5
    backends.clear_caches()
    render_many([GOOD], (8, 8), processes=0)
    assert len(calls) == 6


def test_a_cached_rejection_is_served_only_under_the_same_limits():
    doc = svg('<path d="M0 0' + " L1 1" * 20 + '"/>')
    tight = RenderLimits(max_path_numbers=10)
    assert render_many([doc], (8, 8), processes=0, limits=tight).errors == (R.TOO_MANY_PATH_SEGMENTS,)
    assert render_many([doc], (8, 8), processes=0).errors == (None,)
    assert render_many([doc], (8, 8), processes=0, limits=tight).errors == (R.TOO_MANY_PATH_SEGMENTS,)


def test_outcomes_of_the_moment_are_not_cached(monkeypatch):
    real = backends._check_tree
    state = {"fail": True}

    def flaky(svg_text, limits):
        if state.pop("fail", False):
            raise MemoryError
        return real(svg_text, limits)

    monkeypatch.setattr(backends, "_check_tree", flaky)
    assert render_many([GOOD], (8, 8), processes=0).errors == (R.OUT_OF_MEMORY,)
    assert render_many([GOOD], (8, 8), processes=0).errors == (None,)


def test_the_cache_is_bounded_in_bytes(monkeypatch):
    monkeypatch.setattr(backends, "PREPARED_CACHE_BYTES", 4000)
    docs = [svg(f'<rect width="{i + 1}" height="2" fill="#f00"/>') for i in range(60)]
    render_many(docs, (8, 8), processes=0)
    kept = sum(len(e[1]) + 200 for e in backends._prepared.values())
    assert kept == backends._prepared_bytes <= 4000
    assert 0 < len(backends._prepared) < 60


@pytest.mark.parametrize(
    "doc",
    [
        svg('<rect width="2" height="2" fill="&#117;rl(file:///etc/passwd#g)"/>'),  # char ref
        svg('<rect width="2" height="2" fill="url(file:///etc/passwd#g)"/>'),
        svg("<style>@IMPORT 'http://example.com/a.css';</style>"),
        svg('<linearGradient id="g" HREF="x"/><linearGradient id="h" href="/etc/passwd"/>'),
        svg('<g xml:base="file:///etc/"><rect id="base" width="2" height="2"/></g>'),
    ],
)
def test_documents_with_a_reference_marker_still_get_the_reference_checks(doc):
    assert precheck._may_refer(doc) and precheck._may_refer(doc.encode("utf-8"))
    assert render_many([doc], (8, 8), processes=0).errors == (R.EXTERNAL_REFERENCE,)


def test_documents_without_a_marker_skip_the_reference_scans(monkeypatch):
    def boom(*args):
        raise AssertionError("reference scan run on a document that cannot refer")

    monkeypatch.setattr(precheck, "external_references", boom)
    assert not precheck._may_refer(GOOD)
    assert not precheck._may_refer(svg('<rect id="baseline" width="2" height="2"/>'))
    assert render_many([GOOD], (8, 8), processes=0).errors == (None,)
    with pytest.raises(AssertionError):
        precheck.check_tree(f"<svg {NS}><rect fill='url(#x)'/></svg>")
