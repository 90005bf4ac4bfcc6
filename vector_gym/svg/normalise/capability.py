"""What the skia path cannot draw faithfully: the routing report of the render path (issue 11).

The normaliser lowers a document to the dialect skia's SVG module draws like resvg and the
browsers. Some features it cannot lower; :func:`skia_unsupported` names each one a document
uses, and :func:`vector_gym.render.render_many` (backend ``"skia"``) draws such a document with
resvg instead, recording the backend that drew it (``RenderBatch.drawn_by``).

Features (each measured against resvg-py 0.5 at 64 px; ``tests/data/render/``):

``text``
    non-empty ``<text>`` (skia-python has no font manager: glyphs never draw).
``image``
    ``<image>`` (skia's SVG module draws none, not even a ``data:`` URI).
``blend_mode``
    ``mix-blend-mode`` other than ``normal`` (skia's SVG module has no blend modes).
``filter_primitive``
    a filter primitive skia draws wrongly or not at all: ``feDisplacementMap`` (mean
    difference 63/255), ``feTile`` (47), ``feImage`` (20), ``feTurbulence`` (3-5),
    ``feDropShadow`` (its shadow colour and offset region).
``filter_input``
    a primitive input skia does not provide: ``BackgroundImage``, ``BackgroundAlpha``,
    ``FillPaint``, ``StrokePaint``.
``filter_function``
    a CSS filter function (``filter: blur(2px)``, ``drop-shadow(...)``), ignored by skia.
``context_paint``
    ``context-fill`` / ``context-stroke`` (SVG 2 marker paints).
``marker``
    markers (``marker-start``/``-mid``/``-end``, the ``marker`` shorthand): skia places and
    scales them about 4/255 off resvg and Chromium, which agree.
``pattern_units``
    a pattern in ``objectBoundingBox`` units (the default), with ``objectBoundingBox``
    content units or a ``viewBox`` (skia draws its tiles at the wrong size: 35-135/255).
``mask_alpha``
    ``mask-type: alpha`` (skia applies the luminance).
``focal_radius``
    a radial gradient's ``fr`` (skia ignores it).
``marker_paint_order``
    markers on an element with a ``paint-order`` (the skia path draws a stroke-first element as
    two copies, which would draw its markers twice, and skia has no marker order).

Everything else (paths, shapes, transforms, gradients, patterns, clips, masks, markers, the
other filter primitives) stays on skia, the hot path.
"""

from __future__ import annotations

import re

from lxml import etree

__all__ = ["SKIA_UNSUPPORTED", "ROUTED_PRIMITIVES", "skia_unsupported"]

SKIA_UNSUPPORTED = (
    "text",
    "image",
    "blend_mode",
    "filter_primitive",
    "filter_input",
    "filter_function",
    "context_paint",
    "marker_paint_order",
    "marker",
    "pattern_units",
    "mask_alpha",
    "focal_radius",
)
"""Every feature name :func:`skia_unsupported` can report, in report order."""

ROUTED_PRIMITIVES = frozenset({"feDisplacementMap", "feTile", "feImage", "feTurbulence", "feDropShadow"})
"""Filter primitives drawn by resvg (see the module docstring for the measured differences)."""

_PRIMS = " or ".join(f"local-name() = '{p}'" for p in sorted(ROUTED_PRIMITIVES))
# The element local names and attribute names (no namespace) that every check of _CHECKS
# needs one of, for the cheap first pass (:func:`_markup_and_css`).
_MARKUP_TAGS = frozenset({"image", "text", "pattern", *ROUTED_PRIMITIVES})
_MARKUP_ATTRS = frozenset(
    {
        "mix-blend-mode", "filter", "in", "in2", "paint-order", "marker-start", "marker-mid",
        "marker-end", "marker", "mask-type", "fr",
    }
)


def _markup_and_css(root) -> tuple[bool, bool]:
    """``(may use a feature in its markup, has CSS text)``: one pass over the elements.

    The first is False only when every check of :data:`_CHECKS` is (none of the element names
    and attribute names they test, no ``context-`` in a ``fill`` or ``stroke``); the second is
    whether a ``<style>`` element or a ``style`` attribute is there. About 0.5 us an element:
    the XPath union this replaces walked the tree once per branch (about 90 us on a 22-element
    emoji), and a document with styles then ran all twelve checks (300 us more).
    """
    markup = css = False
    for el in root.iter():
        tag = el.tag
        if type(tag) is not str:
            continue  # a comment or processing instruction
        name = tag.rpartition("}")[2]
        if name in _MARKUP_TAGS:
            markup = True
        elif name == "style":
            css = True
        keys = el.keys()
        if keys:
            if not _MARKUP_ATTRS.isdisjoint(keys):
                markup = True
            if "style" in keys:
                css = True
            fill = el.get("fill")
            stroke = el.get("stroke")
            if (fill is not None and "context-" in fill) or (stroke is not None and "context-" in stroke):
                markup = True
        if markup and css:
            break
    return markup, css
_CHECKS = (
    ("text", etree.XPath("boolean(//*[local-name() = 'text'][normalize-space(.) != ''])")),
    ("image", etree.XPath("boolean(//*[local-name() = 'image'])")),
    ("blend_mode", etree.XPath("boolean(//@mix-blend-mode[normalize-space(.) != 'normal'])")),
    ("filter_primitive", etree.XPath(f"boolean(//*[{_PRIMS}])")),
    (
        "filter_input",
        etree.XPath(
            "boolean((//@in | //@in2)[normalize-space(.) = 'BackgroundImage'"
            " or normalize-space(.) = 'BackgroundAlpha' or normalize-space(.) = 'FillPaint'"
            " or normalize-space(.) = 'StrokePaint'])"
        ),
    ),
    (
        "filter_function",
        etree.XPath(
            "boolean(//@filter[contains(., '(') and not(starts-with(normalize-space(.), 'url('))])"
        ),
    ),
    (
        "context_paint",
        etree.XPath("boolean((//@fill | //@stroke)[contains(., 'context-')])"),
    ),
    ("marker", etree.XPath("boolean(//@marker-start | //@marker-mid | //@marker-end | //@marker)")),
    (
        "pattern_units",
        etree.XPath(
            "boolean(//*[local-name() = 'pattern'][not(@patternUnits = 'userSpaceOnUse')"
            " or @patternContentUnits = 'objectBoundingBox' or @viewBox])"
        ),
    ),
    ("mask_alpha", etree.XPath("boolean(//@mask-type[normalize-space(.) = 'alpha'])")),
    ("focal_radius", etree.XPath("boolean(//*[local-name() = 'radialGradient']/@fr)")),
    (
        "marker_paint_order",
        etree.XPath(
            "boolean(//*[@paint-order][@marker-start or @marker-mid or @marker-end or @marker])"
        ),
    ),
)
_STYLE_TEXT = etree.XPath("//*[local-name() = 'style']/text() | //@style", smart_strings=False)
_CSS_BLEND = re.compile(r"mix-blend-mode\s*:\s*(?!normal\b)[a-z]", re.I)
_CSS_FILTER_FN = re.compile(r"(?<![-\w])filter\s*:\s*(?!url\()[^;}]*\(", re.I)
_CSS_CONTEXT = re.compile(r"context-(?:fill|stroke)", re.I)
_CSS_MARKER = re.compile(r"marker(?:-start|-mid|-end)?\s*:", re.I)
_CSS_MASK_ALPHA = re.compile(r"mask-type\s*:\s*alpha", re.I)


def skia_unsupported(root) -> tuple[str, ...]:
    """Name the features of a parsed document that the skia path cannot draw faithfully.

    Parameters
    ----------
    root : lxml.etree._Element
        The document as parsed (before normalisation: ``<style>`` sheets and ``style``
        attributes are read as text).

    Returns
    -------
    tuple of str
        Names from :data:`SKIA_UNSUPPORTED`, in that order; empty when skia draws the document
        right. A feature mentioned only in CSS text counts (a sheet's selector may match
        nothing: the document is then drawn by resvg, which is never wrong, only slower).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> skia_unsupported(parse_svg('<svg><rect style="filter: blur(2px)"/><text>a</text></svg>'))
    ('text', 'filter_function')
    >>> skia_unsupported(parse_svg('<svg><rect filter="url(#f)"/></svg>'))
    ()
    """
    markup, css = _markup_and_css(root)
    found = {name for name, test in _CHECKS if test(root)} if markup else set()
    for text in _STYLE_TEXT(root) if css else ():
        if "mix-blend-mode" in text and _CSS_BLEND.search(text):
            found.add("blend_mode")
        if "filter" in text and _CSS_FILTER_FN.search(text):
            found.add("filter_function")
        if "context-" in text and _CSS_CONTEXT.search(text):
            found.add("context_paint")
        if "marker" in text and _CSS_MARKER.search(text):
            found.add("marker")
        if "mask-type" in text and _CSS_MASK_ALPHA.search(text):
            found.add("mask_alpha")
    return tuple(name for name in SKIA_UNSUPPORTED if name in found)
