"""Closed set of reasons why one document of a render batch failed.

Every failed item of :class:`vector_gym.render.RenderBatch` carries exactly one of these names in
``errors`` (and is drawn as a plain background image). The first eight are the parse reasons of
:mod:`vector_gym.svg.parse` passed through unchanged; the rest are the renderer's own. Tests assert
on these names, never on message text.
"""

from __future__ import annotations

from vector_gym.svg.parse import (
    EMPTY,
    ENTITY_DECLARATION,
    INVALID_UTF8,
    NOT_TEXT,
    NOT_WELL_FORMED,
    TOO_DEEP,
    TOO_LARGE,
    TOO_MANY_ELEMENTS,
    USE_EXPANSION,
)

__all__ = [
    "NOT_TEXT",
    "INVALID_UTF8",
    "TOO_LARGE",
    "EMPTY",
    "ENTITY_DECLARATION",
    "NOT_WELL_FORMED",
    "TOO_DEEP",
    "TOO_MANY_ELEMENTS",
    "NOT_SVG",
    "NO_SVG_NAMESPACE",
    "EXTERNAL_REFERENCE",
    "USE_CYCLE",
    "USE_EXPANSION",
    "TOO_MANY_PATH_SEGMENTS",
    "TOO_MANY_ATTRIBUTES",
    "CSS_TOO_COMPLEX",
    "IMAGE_TOO_LARGE",
    "TIMEOUT",
    "OUT_OF_MEMORY",
    "WORKER_CRASHED",
    "RENDER_FAILED",
    "REASONS",
]

NOT_SVG = "not_svg"
"""The root element is not an SVG ``<svg>`` element (any namespace prefix is accepted)."""
NO_SVG_NAMESPACE = "no_svg_namespace"
"""The root is an ``<svg>`` element outside the SVG namespace (no ``xmlns``, or another one):
an XML document, not SVG, which browsers do not draw as SVG."""
EXTERNAL_REFERENCE = "external_reference"
"""An ``href``, ``url()``, ``xml:base`` or CSS ``@import`` names something other than ``#id`` or a
``data:`` URI (an external ``<image>``, ``<feImage>`` or ``<use>`` does not fail: it draws nothing,
see :mod:`vector_gym.render.precheck`)."""
USE_CYCLE = "use_cycle"
"""A ``<use>`` refers to itself or to an ancestor, directly or through other ``<use>`` elements."""
# USE_EXPANSION (more elements after expanding every <use> than RenderLimits.max_use_expansion,
# default vector_gym.svg.parse.MAX_USE_EXPANSION) is defined once in vector_gym.svg.parse, shared
# with the specification reward's validity gate.
TOO_MANY_PATH_SEGMENTS = "too_many_path_segments"
"""The path data and point lists hold more numbers than ``RenderLimits.max_path_numbers``."""
TOO_MANY_ATTRIBUTES = "too_many_attributes"
"""An element has more attributes than ``RenderLimits.max_attributes``."""
CSS_TOO_COMPLEX = "css_too_complex"
"""Matching the ``<style>`` selectors against the document needs more than
``vector_gym.svg.normalise.style.SELECTOR_BUDGET`` steps (an exponential selector)."""
IMAGE_TOO_LARGE = "image_too_large"
"""A raster ``data:`` image's header declares more pixels than ``RenderLimits.max_image_pixels``
(read before any decoder runs)."""
TIMEOUT = "timeout"
"""The worker took longer than the per-document watchdog allows; it was killed and respawned."""
OUT_OF_MEMORY = "out_of_memory"
"""The worker hit its address-space limit (``memory_mb``) while drawing this document."""
WORKER_CRASHED = "worker_crashed"
"""The worker process died while drawing this document (a native crash); it was respawned."""
RENDER_FAILED = "render_failed"
"""The rasteriser rejected the normalised document or raised an error."""

REASONS: tuple[str, ...] = (
    NOT_TEXT,
    INVALID_UTF8,
    TOO_LARGE,
    EMPTY,
    ENTITY_DECLARATION,
    NOT_WELL_FORMED,
    TOO_DEEP,
    TOO_MANY_ELEMENTS,
    NOT_SVG,
    NO_SVG_NAMESPACE,
    EXTERNAL_REFERENCE,
    USE_CYCLE,
    USE_EXPANSION,
    TOO_MANY_PATH_SEGMENTS,
    TOO_MANY_ATTRIBUTES,
    CSS_TOO_COMPLEX,
    IMAGE_TOO_LARGE,
    TIMEOUT,
    OUT_OF_MEMORY,
    WORKER_CRASHED,
    RENDER_FAILED,
)
"""Every name that can appear in ``RenderBatch.errors``."""
