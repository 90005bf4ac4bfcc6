"""Tests of the canonical form C(S) (spec-reward.md §4; reference suite behaviours of §17)."""

from __future__ import annotations

import pytest

from vector_gym.svg.canonical import (
    INVALID_MARKER,
    canonical_equal,
    canonical_form,
    is_invalid,
    normalise_attribute,
    normalise_number,
    normalise_style,
    normalise_transform,
    number_tokens,
    path_tokens,
    to_node,
)
from vector_gym.svg.parse import parse_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


def c_equal(a: str, b: str) -> bool:
    return canonical_equal(to_node(parse_svg(a)), to_node(parse_svg(b)))


# -- §4.2 numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("1.000", "1"),  # §4.2 examples
        ("-0", "0"),
        ("1e2", "100"),
        (".5", "0.5"),
        ("5.", "5"),
        ("+5", "5"),
        ("-0.0e-3", "0"),
        ("1.25E-3", "0.00125"),
        ("-120.50", "-120.5"),
        ("\uff11\uff10", "10"),  # §15: \d is any Unicode digit; x="１０" normalises to 10
        ("0.1234567890123456789012345678901", "0.1234567890123456789012345678901"),  # no rounding
    ],
)
def test_number_spelling(spelling, expected):
    assert normalise_number(spelling) == expected


def test_numbers_never_rounded():
    # §4.2 / §17: 0.123456789 vs 0.123456788 are not C-equal.
    assert normalise_attribute("x", "0.123456789") != normalise_attribute("x", "0.123456788")


def test_huge_exponent_is_bounded_and_exact():
    # Our bounded-cost spelling (module docstring): still a function of the exact value.
    a = normalise_number("1e999999999")
    assert len(a) < 40 and a == normalise_number("10e999999998")
    assert a != normalise_number("1e999999998")


# -- §4.3 token streams ---------------------------------------------------------------------------


def test_path_tokens():
    # §4.3 example: both spellings → "M 0 0 L 1 1".
    assert (
        normalise_attribute("d", "M0,0L1,1")
        == normalise_attribute("d", "M 0 0 L 1.0 1.00")
        == "M 0 0 L 1 1"
    )
    assert path_tokens("M0 0-1-1") == ["M", "0", "0", "-1", "-1"]  # signed numbers may touch
    assert path_tokens("A5 5 0 0110") == ["A", "5", "5", "0", "110"]  # §4.3: flag run = one number
    assert path_tokens("M0.5.5 L1 1") is None  # §4.3: packed numbers fail
    assert is_invalid(normalise_attribute("d", "M0 0; L1 1"))  # §4.3: ';' fails
    assert normalise_attribute("d", "") == ""  # §4.3: empty value is accepted


def test_no_geometric_canonicalisation():
    # §4.3: relative vs absolute, H vs L, implicit repeats stay distinct.
    assert normalise_attribute("d", "M0 0 L10 0") != normalise_attribute("d", "M0 0 H10")
    assert normalise_attribute("d", "M0 0 L1 1 2 2") != normalise_attribute("d", "M0 0 L1 1 L2 2")
    assert normalise_attribute("d", "M0 0 l1 1") != normalise_attribute("d", "M0 0 L1 1")


def test_numeric_lists():
    assert normalise_attribute("viewBox", "0,0,200,100") == "0 0 200 100"  # §17 commas vs spaces
    assert normalise_attribute("stroke-dasharray", "4,2") == normalise_attribute(
        "stroke-dasharray", "4 2"
    )  # §4.1 rule 7
    assert number_tokens("0 0 2.5.5") is None  # §4.3
    assert is_invalid(normalise_attribute("points", "0,0 10px"))
    assert normalise_attribute("width", "10px") == "10px"  # §4.1 rule 8: units kept verbatim
    assert normalise_attribute("width", "50%") == "50%"


# -- §4.4 transform ---------------------------------------------------------------------------------


def test_transform_rule():
    assert normalise_transform("translate(10,20)") == normalise_transform(
        "translate(10 20)"
    )  # §4.4
    assert normalise_transform("translate(10)") != normalise_transform("translate(10 0)")  # §4.4
    assert normalise_transform("scale(2)") != normalise_transform("scale(2 2)")  # §4.4
    for bad in (
        "Translate(1)",
        "rotate(1 2)",
        "matrix(1 2 3)",
        "scale()",
        "translate(1);scale(2)",
        "skew(1)",
    ):
        assert normalise_transform(bad) is None, bad  # §4.4: unknown name, arity, separators
    assert is_invalid(normalise_attribute("transform", "rotate(1 2)"))
    # §4.4: gradientTransform is never syntax-checked
    assert not is_invalid(normalise_attribute("gradientTransform", "bogus(1)"))


# -- §4.5 style, §4.6 colours ---------------------------------------------------------------------------


def test_style_rule():
    assert normalise_style("stroke: Blue; Fill: white;;") == "fill:#ffffff;stroke:#0000ff"  # §4.5
    assert (
        normalise_style("fill:red;fill:blue") == "fill:#ff0000;fill:#0000ff"
    )  # duplicates kept in order
    assert is_invalid(normalise_attribute("style", "fill:red; stroke"))  # chunk without ':'
    assert is_invalid(normalise_attribute("style", "fill:"))  # empty value
    # §4.5 [parity]: an invalid nested value does not invalidate the style itself
    assert not is_invalid(normalise_attribute("style", "d: path(M0 0 x)"))


def test_colour_spellings():
    # §4.6: white ≡ #FFF ≡ rgb(255, 255,255) ≡ #ffffff, NONE ≡ none; other names stay words.
    spellings = ["white", "#FFF", "rgb(255, 255,255)", "#ffffff", " White "]
    assert {normalise_attribute("fill", s) for s in spellings} == {"#ffffff"}
    assert normalise_attribute("stroke", "NONE") == "none"
    assert normalise_attribute("fill", "Crimson") == "crimson"
    assert normalise_attribute("fill", "url(#A)") == "url(#A)"  # §4.1 rule 2: url() keeps case


def test_invalid_marker_keeps_text():
    # §4.1: two invalid values are equal only if their raw text is identical.
    a = normalise_attribute("d", "M0 0; L1 1")
    assert a == INVALID_MARKER + "M0 0; L1 1"
    assert a != normalise_attribute("d", "M0 0;L1 1")


# -- §4 tree equality (reference suite, §17 "Canonicalisation") ----------------------------------------


def test_reordered_and_respelled_attributes_are_c_equal():
    a = f'<svg {NS} viewBox="0 0 200 100"><rect x="10" y="1.000" fill="white"/></svg>'
    b = f'<svg {NS} viewBox="0,0,200,100"><rect fill="#ffffff" y="1" x="10.0"/></svg>'
    assert c_equal(a, b)


def test_namespace_prefix_irrelevant_but_missing_namespace_differs():
    a = f'<svg {NS}><path d="M0 0 L10 10"/></svg>'
    b = '<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:path d="M0,0,L10,10"/></s:svg>'
    c = '<svg><path d="M0 0 L10 10"/></svg>'
    assert c_equal(a, b)
    assert not c_equal(a, c)


def test_semicolon_in_path_is_not_c_equal():
    assert not c_equal(
        f'<svg {NS}><path d="M0 0 L1 1"/></svg>', f'<svg {NS}><path d="M0 0; L1 1"/></svg>'
    )


def test_style_order_and_tails():
    a = f'<svg {NS}><rect style="fill: white; stroke: #000"/></svg>'
    b = f'<svg {NS}><rect style="stroke:black;fill:#FFF"/></svg>'
    assert c_equal(a, b)  # §17: reordered declarations, equivalent colours
    assert not c_equal(a, f'<svg {NS}><rect style="stroke:black;fill"/></svg>')  # chunk without ':'
    assert not c_equal(
        f"<svg {NS}><rect/>x</svg>", f"<svg {NS}><rect/>y</svg>"
    )  # tail text differs
    assert c_equal(f"<svg {NS}><rect/>  a   b </svg>", f"<svg {NS}><rect/>a b</svg>")  # folded


def test_comments_and_indentation_are_c_equal():
    a = f'<svg {NS}><g><rect x="1"/></g></svg>'
    b = f'<svg {NS}>\n  <!-- note -->\n  <g>\n    <rect x="1"/>\n  </g>\n</svg>'
    assert c_equal(a, b)


def test_c_strictness():
    # §4: xlink:href ≠ href, id counts, child order counts.
    xl = 'xmlns:xlink="http://www.w3.org/1999/xlink"'
    assert not c_equal(
        f'<svg {NS} {xl}><use href="#a"/></svg>', f'<svg {NS} {xl}><use xlink:href="#a"/></svg>'
    )
    assert not c_equal(f"<svg {NS}><rect/></svg>", f'<svg {NS}><rect id="r"/></svg>')
    assert not c_equal(f"<svg {NS}><rect/><circle/></svg>", f"<svg {NS}><circle/><rect/></svg>")


def test_canonical_form_golden():
    text = (
        f'<svg {NS} viewBox="0,0,10,10"><g id="a"><rect y="1.0" x="+2" fill="White"/>tail</g></svg>'
    )
    assert canonical_form(parse_svg(text)) == "\n".join(
        [
            '<{http://www.w3.org/2000/svg}svg viewBox="0 0 10 10">',
            '  <{http://www.w3.org/2000/svg}g id="a">',
            '    <{http://www.w3.org/2000/svg}rect fill="#ffffff" x="2" y="1">',
            "    #tail tail",
        ]
    )


def test_to_node_reads_many_attributes_like_items():
    # Elements above MANY_ATTRIBUTES are read through XPath ``@*`` (lxml's items() is quadratic
    # in the attribute count); the result must be the same mapping, namespaced names included.
    from vector_gym.svg.parse import MANY_ATTRIBUTES

    attrs = " ".join(f'a{i}="{i} &amp; &#65;"' for i in range(MANY_ATTRIBUTES + 5))
    text = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="urn:x" '
        f'x:k="v" xml:space="preserve" {attrs}><g {attrs} id="g"><rect id="r" x="1"/></g></svg>'
    )
    root = parse_svg(text)
    node = to_node(root)
    assert node.attrib == dict(root.items())
    assert node.attrib["{urn:x}k"] == "v" and node.attrib["a3"] == "3 & A"
    assert node.children[0].attrib == dict(root[0].items())
    assert node.children[0].children[0].attrib == {"id": "r", "x": "1"}


def test_keyword_properties_fold_case_but_keep_number_spellings():
    # Review of issue 10: lower-casing keyword properties must not lose the number reading the
    # generic rule gave them (font-weight: 700 = 700.0 = 7e2, CSS Fonts 4 §2.2).
    from vector_gym.svg.canonical import normalise_attribute_svg

    assert normalise_attribute_svg("font-weight", "700.0") == normalise_attribute_svg("font-weight", "7e2") == "700"
    assert normalise_attribute_svg("font-weight", "Bold") == "bold"
    assert normalise_attribute_svg("stroke-linecap", " ROUND ") == "round"


def test_short_number_shortcuts_of_n_equal_the_grammar_readings():
    """N's shortcuts for short numbers (numbers, lengths, length lists) and lists of them
    (``points``, ``viewBox``) equal the grammar readings on every attribute value of the bundled
    outputs and task documents and on respelled variants of them."""
    import random
    import re

    from bundled_texts import vector_bench_texts

    from vector_gym.svg import canonical as C
    from vector_gym.svg.numbers import format_number, normalise_length, scan_numbers

    texts = vector_bench_texts()
    values = sorted({v for s in texts for v in re.findall(r'\s[-\w:]+="([^"]*)"', s) if len(v) < 300})
    rng = random.Random(3)
    spellings = ["0", "-0", "0.0", "10.0", "010", ".5", "0.50", "1e1", "0.00001", "1234567", "-2.25",
                 "+3", "1e999", "7.", "0.30000000000000004", "5px", "50%", " 1", "1,", ",1"]  # fmt: skip
    number = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
    out = list(values)
    for v in values:
        for _ in range(3):
            out.append(number.sub(lambda m: rng.choice(spellings) if rng.random() < 0.3 else m.group(), v))
        out.append(v.replace(" ", ", ", 1))
    hits = {"number": 0, "length": 0, "list": 0, "points": 0}
    for v in out:
        v = C.fold_ascii_ws(v)
        if not v:
            continue
        n = C._normalise_svg("opacity", v)
        assert n == C._svg_number_value("opacity", v) or v.lower() in C._CSS_WIDE, v
        hits["number"] += C.SHORT_NUMBER_RE.fullmatch(v) is not None
        length = normalise_length(v)
        if v.lower() not in C._CSS_WIDE and v.lower() != "auto":
            assert C._normalise_svg("cx", v) == (length if length is not None else C.INVALID_NUMBER_MARKER + v), v
            lst = C._svg_length_list(v)
            assert C._normalise_svg("x", v) == (lst if lst is not None else C.INVALID_NUMBER_MARKER + v), v
            nums = scan_numbers(v)
            want = " ".join(map(format_number, nums)) if nums is not None else C.INVALID_MARKER + v
            assert C._normalise_svg("points", v) == want, v
            assert C._normalise_svg("viewBox", v) == want, v
            hits["points"] += C.SHORT_NUMBER_LIST_RE.fullmatch(v) is not None
    assert hits["number"] > 500 and hits["points"] > 500, hits
