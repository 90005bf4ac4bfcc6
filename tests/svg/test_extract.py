"""Tests for vector_gym.svg.extract (spec-reward.md §2, §16 item 11, §18 extraction cases)."""

from __future__ import annotations

import random
import re

import pytest

from vector_gym.svg.extract import MAX_SVG_TAGS, extract_svg

FENCE = "```"
A = '<svg xmlns="http://www.w3.org/2000/svg"><rect id="a"/></svg>'
B = '<svg xmlns="http://www.w3.org/2000/svg"><circle id="b"/></svg>'


def ref(text):
    return extract_svg(text, rule="reference")


# ---------------------------------------------------------------- reference rule (spec §2) ----


def test_reference_fenced_beats_earlier_inline():
    # spec §18: fenced ```svg beats an earlier inline SVG
    assert ref(f"draft {A}\n{FENCE}svg\n{B}\n{FENCE}") == B


def test_reference_first_inline_wins_without_fence():
    # spec §2 consequence: a draft before the final answer wins
    assert ref(f"<think>{A}</think> final: {B}") == A


def test_reference_html_fence_falls_back_to_first_inline():
    # spec §18: ```html falls through to rule 2 (first inline SVG)
    assert ref(f"x {A} y\n{FENCE}html\n{B}\n{FENCE}") == A


def test_reference_nested_truncates_outside_fence_survives_inside():
    nested = "<svg><svg><g/></svg><rect/></svg>"
    assert ref(f"here: {nested}") == "<svg><svg><g/></svg>"  # spec §2: truncated
    assert ref(f"{FENCE}svg\n{nested}\n{FENCE}") == nested  # spec §2 rule 1: survives


def test_reference_uppercase_tags_and_fence_label():
    assert ref("<SVG><g/></SVG>") == "<SVG><g/></SVG>"  # extracted, then invalid (§2)
    assert ref(f"{FENCE}SVG\n{A}\n{FENCE}") == A  # spec §18: upper-case fence label accepted
    assert ref('<svgx a="1"></svg>') == '<svgx a="1"></svg>'  # §2: <svgx also matches rule 2


def test_reference_xml_declaration_in_fence_drops_to_rule2():
    decl = '<?xml version="1.0"?>'
    text = f"{FENCE}xml\n{decl}\n{A}\n{FENCE}"
    assert ref(text) == A  # rule 1 fails (declaration before <svg), rule 2 drops it


def test_reference_self_closing_returns_whole_response():
    assert ref("  <svg/>  ") == "<svg/>"  # spec §2: rule 3, trimmed
    assert ref("Sure! <svg/> done") == "Sure! <svg/> done"


def test_reference_fences_with_prose_between_merge():
    # spec §2: prose between two fenced blocks can be swallowed into one span
    text = f"{FENCE}svg\n<svg><g/>\n{FENCE}\nprose </svg> more\n{FENCE}svg\n{B}\n{FENCE}"
    got = ref(text)
    assert got.startswith("<svg><g/>") and got.endswith("</svg>") and "prose" in got


def test_reference_earliest_qualifying_close():
    text = f"{FENCE}svg\n<svg><svg></svg></svg>\n{FENCE} and {FENCE}\n<svg/></svg>\n{FENCE}"
    assert ref(text) == "<svg><svg></svg></svg>"


def test_reference_no_svg_whole_response():
    assert ref("  I cannot do that.\n") == "I cannot do that."
    assert ref("") == ""
    assert extract_svg(None, rule="reference") is None


_R1 = re.compile(r"```(?:svg|xml)?\s*(<svg[\s\S]*?</svg>)\s*```", re.IGNORECASE)
_R2 = re.compile(r"<svg[\s\S]*?</svg>", re.IGNORECASE)


def _runner_regexes(text):
    """The runner's rule as spec §2 words it, with regular expressions (quadratic, test only)."""
    m = _R1.search(text)
    if m:
        return m.group(1).strip()
    m = _R2.search(text)
    if m:
        return m.group(0).strip()
    return text.strip()


def test_reference_equals_regex_formulation_on_random_strings():
    rng = random.Random(20261129)
    toks = [FENCE, FENCE + "svg", FENCE + "XML", FENCE + "html", "<svg", "<SVG", "</svg>", "</SVG>",
            " ", "\n", "x", "<svgx", "<g/>", ">", "``", "\u00a0"]
    for _ in range(20_000):
        text = "".join(rng.choice(toks) for _ in range(rng.randint(0, 14)))
        assert ref(text) == _runner_regexes(text), text


# ---------------------------------------------------------------------- default rule (ours) ----


def test_default_last_fenced_block_wins():
    text = f"{FENCE}svg\n{A}\n{FENCE}\nwait, fix:\n{FENCE}svg\n{B}\n{FENCE}"
    assert extract_svg(text) == B


def test_default_fence_labels():
    assert extract_svg(f"{FENCE}\n{A}\n{FENCE}") == A
    assert extract_svg(f"{FENCE}XML\n{A}\n{FENCE}") == A
    # An html block is not an answer block; the last complete root overall is used instead.
    assert extract_svg(f"{FENCE}svg\n{A}\n{FENCE}\n{FENCE}html\n{B}\n{FENCE}") == A
    assert extract_svg(f"{FENCE}html\n{B}\n{FENCE}") == B


def test_default_reasoning_dropped():
    assert extract_svg(f"<think>draft {A}</think>\nAnswer: {B}") == B
    assert extract_svg(f"draft {A}</think>\nAnswer: {B}") == B  # template-opened block
    assert extract_svg(f"Answer: {B}<think>maybe {A}") == B  # unclosed block dropped
    assert extract_svg(f"<think>only a draft {A}") is None


def test_default_last_inline_and_nested():
    nested = "<svg><svg><g/></svg><rect/></svg>"
    assert extract_svg(f"{A} then {nested}") == nested
    assert extract_svg(f"{A} then <svg x='1'/> end") == "<svg x='1'/>"


def test_default_truncated_is_none():
    assert extract_svg('Here it is: <svg xmlns="http://www.w3.org/2000/svg"><rect') is None
    assert extract_svg("<svg><svg></svg>") is None  # the outer root never closes
    assert extract_svg("no markup") is None
    assert extract_svg("") is None
    assert extract_svg(None) is None


def test_default_keeps_xml_declaration_and_doctype():
    decl = '<?xml version="1.0" encoding="UTF-8"?>'
    assert extract_svg(f"ok\n{decl}\n{A}") == f"{decl}\n{A}"
    dt = '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">'
    assert extract_svg(f"{FENCE}xml\n{decl}\n{dt}\n{A}\n{FENCE}") == f"{decl}\n{dt}\n{A}"


def test_default_gt_inside_attribute_and_case_sensitivity():
    doc = '<svg data-x="a>b/"><g/></svg>'
    assert extract_svg(f"x {doc} y") == doc
    assert extract_svg("<SVG><g/></SVG>") is None  # XML is case-sensitive: not an svg root


def test_default_hostile_tag_count():
    assert extract_svg("<svg></svg>" * (MAX_SVG_TAGS // 2 + 1)) is None
    assert extract_svg("<svg></svg>" * 10) == "<svg></svg>"


def test_unknown_rule():
    with pytest.raises(ValueError, match="rule"):
        extract_svg(A, rule="first")
