"""The routing report of the skia path: the one-pass first test reports what the XPath union did."""

from __future__ import annotations

import pytest
from lxml import etree

from vector_gym.svg.normalise.capability import (
    _CHECKS,
    _CSS_BLEND,
    _CSS_CONTEXT,
    _CSS_FILTER_FN,
    _CSS_MARKER,
    _CSS_MASK_ALPHA,
    _PRIMS,
    _STYLE_TEXT,
    SKIA_UNSUPPORTED,
    skia_unsupported,
)
from vector_gym.svg.parse import parse_svg

# The first test of skia_unsupported before session 8: one XPath union, then every check.
_ANY_XPATH = etree.XPath(
    "boolean(//*[local-name() = 'image' or local-name() = 'style' or local-name() = 'text'"
    f" or {_PRIMS}] | //@mix-blend-mode | //@style | //@filter[not(starts-with(normalize-space(.), 'url('))]"
    " | //@in | //@in2 | //@fill[contains(., 'context-')] | //@stroke[contains(., 'context-')]"
    " | //@paint-order | //@marker-start | //@marker-mid | //@marker-end | //@marker"
    " | //@mask-type | //@fr | //*[local-name() = 'pattern'])"
)


def _reference(root) -> tuple[str, ...]:
    if not _ANY_XPATH(root):
        return ()
    found = {name for name, test in _CHECKS if test(root)}
    for text in _STYLE_TEXT(root):
        for name, word, rx in (
            ("blend_mode", "mix-blend-mode", _CSS_BLEND),
            ("filter_function", "filter", _CSS_FILTER_FN),
            ("context_paint", "context-", _CSS_CONTEXT),
            ("marker", "marker", _CSS_MARKER),
            ("mask_alpha", "mask-type", _CSS_MASK_ALPHA),
        ):
            if word in text and rx.search(text):
                found.add(name)
    return tuple(name for name in SKIA_UNSUPPORTED if name in found)


NS = 'xmlns="http://www.w3.org/2000/svg"'
CASES = [
    ("<rect/>", ()),
    ('<rect style="fill:url(#g)"/><linearGradient id="g"/>', ()),
    ('<rect style="filter: blur(2px)"/><text>a</text>', ("text", "filter_function")),
    ('<style>rect { mix-blend-mode: multiply }</style><rect/>', ("blend_mode",)),
    ('<rect style="fill:#f00"/><path marker-end="url(#m)"/>', ("marker",)),
    ('<path fill="context-stroke"/>', ("context_paint",)),
    ('<path stroke=" context-fill"/>', ("context_paint",)),
    ('<g><rect filter="url(#f)"/></g>', ()),
    ('<rect filter="blur(2px)"/>', ("filter_function",)),
    ('<filter><feTile/><feBlend in="BackgroundImage"/></filter>', ("filter_primitive", "filter_input")),
    ('<pattern id="p"/>', ("pattern_units",)),
    ('<pattern id="p" patternUnits="userSpaceOnUse"/>', ()),
    ('<radialGradient fr="0.2"/><mask mask-type="alpha"/>', ("mask_alpha", "focal_radius")),
    # each feature alone, with a style elsewhere (the checks run only on the markup's hint)
    ('<radialGradient fr="0.2"/><rect style="fill:#f00"/>', ("focal_radius",)),
    ('<mask mask-type=" alpha"/><rect style="fill:#f00"/>', ("mask_alpha",)),
    ('<filter><feComposite in2="BackgroundAlpha"/></filter><rect style="fill:#f00"/>', ("filter_input",)),
    ('<filter><feDropShadow/></filter><rect style="fill:#f00"/>', ("filter_primitive",)),
    ('<rect mix-blend-mode="screen" style="fill:#f00"/>', ("blend_mode",)),
    ('<path marker-start="url(#m)" style="fill:#f00"/>', ("marker",)),
    ('<path marker-mid="url(#m)"/>', ("marker",)),
    ('<path paint-order="stroke" marker="url(#m)"/>', ("marker_paint_order", "marker")),
    ('<image/><!-- c --><?pi x?>', ("image",)),
    ('<x:image xmlns:x="urn:x"/><rect x:fill="context-fill" xmlns:x="urn:x"/>', ("image",)),
    ('<style/><text/>', ()),
]


@pytest.mark.parametrize("body, expected", CASES)
def test_features_are_reported_as_before(body, expected):
    root = parse_svg(f"<svg {NS}>{body}</svg>")
    assert skia_unsupported(root) == expected == _reference(root)


def test_bundled_documents_are_reported_as_before():
    from vector_gym.tasks.repairgen_sources import load_sources

    docs = [s.svg for s in load_sources(("vector_bench", "svgeditbench"))]
    routed = 0
    for text in docs:
        root = parse_svg(text)
        got = skia_unsupported(root)
        assert got == _reference(root), text[:200]
        routed += bool(got)
    assert len(docs) > 1000 and routed > 0
