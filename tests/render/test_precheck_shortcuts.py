"""The pre-check's text-level shortcuts give the verdicts of the full tree checks."""

from __future__ import annotations

import pytest
from render_helpers import NS

from vector_gym.render import RenderLimits
from vector_gym.render import reasons as R
from vector_gym.render.precheck import RenderRejected, _may_refer, check_tree

_OLD_MARKERS = ("&", "\\", "url(", "href", ":base", "@")


def _old_may_refer(text):
    low = text.lower()
    if isinstance(low, str):
        return any(m in low for m in _OLD_MARKERS)
    return any(m.encode() in low for m in _OLD_MARKERS)


@pytest.mark.parametrize(
    "text",
    ["<svg/>", "HREF", "xml:BaSe", "URL(", "&amp;", "@import", "\\41", "plain", "İ", "K", "hre f"],
)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_reference_markers_are_found_as_before(text, as_bytes):
    doc = text.encode() if as_bytes else text
    if _old_may_refer(doc):
        assert _may_refer(doc)
    if as_bytes or text.isascii():
        assert _may_refer(doc) == _old_may_refer(doc)


def _reason(doc, limits):
    try:
        check_tree(doc, limits)
    except RenderRejected as exc:
        return exc.reason
    return None


def test_attribute_count_is_still_checked_when_the_text_has_enough_equals_signs():
    doc = f'<svg {NS}><rect x="1" y="2" width="3" height="4"/></svg>'
    assert _reason(doc, RenderLimits(max_attributes=3)) == R.TOO_MANY_ATTRIBUTES
    assert _reason(doc, RenderLimits(max_attributes=4)) is None
    assert _reason(doc.encode(), RenderLimits(max_attributes=3)) == R.TOO_MANY_ATTRIBUTES


def test_path_numbers_are_still_counted_in_a_text_longer_than_the_budget():
    doc = f'<svg {NS}><path d="M0 0 1 1 2 2 3 3"/></svg>'
    assert _reason(doc, RenderLimits(max_path_numbers=7)) == R.TOO_MANY_PATH_SEGMENTS
    assert _reason(doc, RenderLimits(max_path_numbers=8)) is None


def test_use_expansion_is_still_counted_when_it_may_be_below_the_element_count():
    doc = f'<svg {NS}><g/><g/><g/><g/></svg>'  # no <use>: 5 elements
    assert _reason(doc, RenderLimits(max_use_expansion=4)) == R.USE_EXPANSION
    assert _reason(doc, RenderLimits(max_use_expansion=5)) is None
    fanout = f'<svg {NS} xmlns:x="http://www.w3.org/1999/xlink"><g id="a"/><use x:href="#a"/></svg>'
    assert _reason(fanout, RenderLimits(max_use_expansion=4)) is None
    assert _reason(fanout, RenderLimits(max_use_expansion=3)) == R.USE_EXPANSION


def test_element_count_and_depth_are_still_checked_when_the_text_has_enough_tags():
    doc = f'<svg {NS}>' + "<g>" * 5 + "</g>" * 5 + "</svg>"  # 6 elements, depth 6
    assert _reason(doc, RenderLimits(max_elements=5)) == R.TOO_MANY_ELEMENTS
    assert _reason(doc, RenderLimits(max_depth=5)) == R.TOO_DEEP
    assert _reason(doc, RenderLimits(max_elements=6, max_depth=6)) is None
    assert _reason(doc.encode(), RenderLimits(max_depth=5)) == R.TOO_DEEP


def test_a_long_text_without_markers_refers_to_nothing_and_one_marker_is_found():
    plain = b"<svg>" + b"x" * 100_000 + b"</svg>"
    assert not _may_refer(plain)
    assert _may_refer(plain[:-6] + b"uRl(</svg>")


def _xpath_too_many(doc, limit: int) -> bool:
    from lxml import etree

    root = etree.fromstring(doc.encode() if isinstance(doc, str) else doc)
    return bool(root.xpath(f"boolean(//*[count(@*) > {limit}])"))


@pytest.mark.parametrize(
    "doc",
    [
        f'<svg {NS}>' + '<rect x="1" y="2" width="3"/>' * 120 + "</svg>",  # many "=", short tags
        f'<svg {NS}>' + '<rect x="1" y="2" width="3"/>' * 120 + '<path d="' + "M0 0 " * 400 + '"/></svg>',
        f'<svg {NS}><g id="' + "=" * 2000 + '"/>' + '<rect x="1"/>' * 10 + "</svg>",  # "=" in a value
        f'<svg {NS}><rect ' + " ".join(f'a{i}="{i}"' for i in range(300)) + "/></svg>",
        f'<svg {NS}><rect ' + " ".join(f'a{i}=""' for i in range(257)) + "/></svg>",  # 5 chars each
        f'<svg {NS}><rect ' + " ".join(f'a{i}=""' for i in range(256)) + "/></svg>",
    ],
)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_the_attribute_count_proof_on_the_text_gives_the_tree_verdict(doc, as_bytes):
    expected = R.TOO_MANY_ATTRIBUTES if _xpath_too_many(doc, 256) else None
    assert _reason(doc.encode() if as_bytes else doc, RenderLimits()) == expected


def test_use_elements_are_found_by_their_tag_and_ids_alone_prove_nothing():
    house = f'<svg {NS}><g id="house"><rect id="user" width="1" height="1"/></g></svg>'
    assert _reason(house, RenderLimits(use_cycles="fail")) is None
    for use in ('<use href="#a"/>', '<x:use xmlns:x="http://www.w3.org/2000/svg" href="#a"/>'):
        cyclic = f'<svg {NS}><g id="a">{use}</g></svg>'
        assert _reason(cyclic, RenderLimits(use_cycles="fail")) == R.USE_CYCLE
        assert _reason(cyclic.encode(), RenderLimits(use_cycles="fail")) == R.USE_CYCLE
