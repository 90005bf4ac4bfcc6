"""parse_node: parse_svg + to_node in one walk, with the same trees and the same limit verdicts."""

from __future__ import annotations

import pytest

from vector_gym.errors import SVGParseError
from vector_gym.svg.canonical import REFERENCE, SVG2, Node, parse_node, release, to_node
from vector_gym.svg.parse import ParseLimits, parse_svg
from vector_gym.tasks.vector_bench import load_vector_bench

NS = 'xmlns="http://www.w3.org/2000/svg"'
MANY = " ".join(f'a{i}="{i}"' for i in range(40))  # above read_attributes' 32


def _shape(n: Node) -> tuple:
    return (n.tag, n.attrib, list(n.attrib), n.text, n.tail, n.dialect, [_shape(c) for c in n.children])


def _reason(fn, text, limits):
    try:
        fn(text, limits)
    except SVGParseError as exc:
        return exc.reason, str(exc)
    return None


DOCS = [
    f"<svg {NS}/>",
    f"<svg {NS}>a<!--c-->b<g id='x'><rect/>t<?pi?></g>tail<![CDATA[<&>]]></svg>",
    f'<svg {NS} xmlns:x="http://www.w3.org/1999/xlink"><use x:href="#a" href="#b"/></svg>',
    f"<svg {NS}><g {MANY}/></svg>",
    f"<svg {NS}><g {MANY}/>" + '<rect x="1"/>' * 400 + "</svg>",  # > 1024 '=': per-element reads
    "<svg>" + "<g>" * 127 + "</g>" * 127 + "</svg>",
    *(t.target_svg for t in load_vector_bench()[:5]),
]


@pytest.mark.parametrize("text", DOCS)
@pytest.mark.parametrize("dialect", [SVG2, REFERENCE])
def test_same_tree_as_parse_then_to_node(text, dialect):
    root, nodes, keys = parse_node(text, dialect=dialect)
    assert _shape(root) == _shape(to_node(parse_svg(text), dialect=dialect))
    assert nodes == list(root.iter())  # document order, root first
    assert keys == [tuple(n.attrib.items()) for n in nodes]
    release(nodes)
    assert all(n.parent is None for n in nodes) and _shape(root)[0] == root.tag


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("<svg>" + "<g>" * 128 + "</g>" * 128 + "</svg>", None),  # depth 129
        ("<svg>" + "<g>" * 3 + "</g>" * 3 + "</svg>", ParseLimits(max_depth=3)),
        ("<svg>" + "<g/>" * 5 + "</svg>", ParseLimits(max_elements=5)),
        ("<svg>" + "<g>" * 9 + "</g>" * 9 + "</svg>", ParseLimits(max_depth=3, max_elements=5)),
        ("<svg>" + "<g><g/></g>" * 4 + "</svg>", ParseLimits(max_depth=2, max_elements=5)),
        ("<svg>" + "<g>" * 300 + "</g>" * 300 + "</svg>", None),  # libxml2's own limit
        ("<svg>" + "<g/>" * 10 + "</svg>", ParseLimits(max_bytes=20)),
        ("<svg><g></svg>", None),
        ("", None),
    ],
)
def test_same_verdicts_as_parse_svg(text, limits):
    # Too many elements wins over too deep, as in parse_svg (count first, then depth).
    expected = _reason(parse_svg, text, limits)
    assert expected is not None
    assert _reason(lambda t, lim: parse_node(t, lim), text, limits) == expected


# Start tags whose raw text repeats across documents: the attribute memo must give lxml's own
# reading every time (different prefix bindings, '>' and quotes inside values, entities and
# whitespace normalisation in values, tags inside comments and PIs, CDATA and DOCTYPE documents).
MEMO_DOCS = [
    f'<svg {NS} xmlns:a="urn:one"><rect a:b="1" x="2"/></svg>',
    f'<svg {NS} xmlns:a="urn:two"><rect a:b="1" x="2"/></svg>',
    f'<svg {NS}><rect title="a>b" x="1"/><rect title="a>b" x="1"/></svg>',
    f'<svg {NS}><rect title=\'say "hi"\' x="1"/><rect title=\'say "hi"\' x="1"/></svg>',
    f"<svg {NS}><rect title='a\">b' x=\"1\"/></svg>",
    f'<svg {NS}><rect title="a>b" x="1"/><rect title="a>c" x="2"/></svg>',  # same text up to '>'
    f"<svg {NS}><rect t='a\"' u=\"b>c\" x=\"1\"/><rect t='a\"' u=\"b>d\" x=\"2\"/></svg>",
    f'<svg {NS}><rect title="a&amp;b&#62;" d="M0\n0\tL1 1"/><rect title="a&amp;b&#62;" d="M0\n0\tL1 1"/></svg>',
    f'<svg {NS}><!-- <rect x="9"/> --><?pi <rect x="8"/> ?><rect x="1"/></svg>',
    f'<svg {NS}><![CDATA[<rect x="7"/>]]><rect x="1"/></svg>',
    f'<!DOCTYPE svg><svg {NS}><rect x="1"/></svg>',
    f'<svg {NS} xml:space="preserve"><rect xml:space="default" x="1"/></svg>',
    f'<svg {NS}>\r\n<rect\r\n x="1"\r\n/></svg>',
    # The expanded tag stored with a start tag is reused only in the same namespace context.
    '<svg xmlns="urn:a"><rect x="1"/><g><rect x="1"/></g></svg>',
    '<svg xmlns="urn:b"><rect x="1"/><g><rect x="1"/></g></svg>',
    '<svg><rect x="1"/><g><rect x="1"/></g></svg>',
    '<svg xmlns="urn:a"><g xmlns="urn:b"><rect x="1"/></g><rect x="1"/></svg>',
    '<svg xmlns="urn:a"><g xmlns="urn:b"><rect y="5"/></g><rect y="5"/></svg>',
    '<svg xmlns="urn:a"><rect z="1"/><g xmlns="urn:b"><rect z="1"/></g></svg>',
    '<svg xmlns="urn:a" xmlns:p="urn:p"><p:rect x="1"/><rect x="1"/></svg>',
    '<svg xmlns="urn:a" xmlns:p="urn:q"><p:rect x="1"/><rect x="1"/></svg>',
    '<!-- xmlns="urn:b" --><svg xmlns="urn:a"><rect x="1"/></svg>',
    '<svg xmlns="urn:a"><g x="1">t<rect x="1"/>u</g>v<g x="1"/>w<g x="1" ></g></svg>',
]


@pytest.mark.parametrize("order", [1, -1])
def test_repeated_start_tags_read_as_lxml_reads_them(order):
    for text in [*MEMO_DOCS, *MEMO_DOCS][::order]:
        root, nodes, keys = parse_node(text)
        assert _shape(root) == _shape(to_node(parse_svg(text))), text
        assert keys == [tuple(n.attrib.items()) for n in nodes]
    root, _nodes, _keys = parse_node(MEMO_DOCS[1])
    assert root.children[0].attrib == {"{urn:two}b": "1", "x": "2"}


def test_start_tag_scan_disagreeing_with_lxml_falls_back(monkeypatch):
    # Defensive path: a scan that found a different number of start tags than lxml has elements
    # (not expected for any well-formed text) gives lxml's own reading, and the memo is emptied.
    import vector_gym.svg.canonical as canonical

    text = f'<svg {NS}><rect x="1"/><rect x="2"/></svg>'
    real = canonical._start_tags
    monkeypatch.setattr(canonical, "_start_tags", lambda t: (real(t) or [None])[:-1] or None)
    root, nodes, keys = parse_node(text)
    assert _shape(root) == _shape(to_node(parse_svg(text)))
    assert keys == [tuple(n.attrib.items()) for n in nodes]
    assert canonical._ATTRIBUTES_MEMO == {}


@pytest.mark.parametrize("text", DOCS)
def test_walk_by_lxml_parents_gives_the_same_tree(text):
    # The defensive walk (each parent asked of lxml), taken if an element's child count ever
    # disagreed with its element children, builds the tree parse_node builds with its stack.
    from vector_gym.svg.canonical import _parse_node_by_parents
    from vector_gym.svg.parse import parse_svg_unprobed

    lim = ParseLimits()
    for dialect in (SVG2, REFERENCE):
        root, nodes, keys = parse_node(text, dialect=dialect)
        root2, nodes2, keys2 = _parse_node_by_parents(parse_svg_unprobed(text, lim)[0], lim, dialect)
        assert _shape(root2) == _shape(root) and keys2 == keys
        assert [n.tag for n in nodes2] == [n.tag for n in nodes]
    deep = "<svg>" + "<g>" * 128 + "</g>" * 128 + "</svg>"
    with pytest.raises(SVGParseError) as exc:
        _parse_node_by_parents(parse_svg_unprobed(deep, lim)[0], lim, SVG2)
    assert exc.value.reason == "too_deep"


def test_start_tag_with_many_attributes_read_linearly(monkeypatch):
    # The '=' count of a whole start tag bounds its attribute count: above 1024 the element is
    # read with read_attributes (linear) instead of lxml's quadratic items(), in a document whose
    # other start tags still go through the memo; the tree is lxml's either way.
    import vector_gym.svg.canonical as canonical

    big = " ".join(f'a{i}="{i}"' for i in range(1100))
    text = f'<svg {NS}><g {big}/><rect x="1"/><rect title="a>b" x="2"/></svg>'
    calls = []
    real = canonical.read_attributes
    monkeypatch.setattr(canonical, "read_attributes", lambda el: calls.append(el.tag) or real(el))
    root, nodes, keys = parse_node(text)
    # the big start tag and the one cut short at the '>' inside a value: read_attributes
    assert calls == ["{http://www.w3.org/2000/svg}g", "{http://www.w3.org/2000/svg}rect"]
    assert _shape(root) == _shape(to_node(parse_svg(text)))
    assert keys == [tuple(n.attrib.items()) for n in nodes]
    assert len(nodes[1].attrib) == 1100 and list(nodes[1].attrib)[:2] == ["a0", "a1"]


BLANK_DOCS = [
    "<svg> <!--c--> x <a/> <?p?> <b> </b> y <![CDATA[ ]]> <c>z</c>\n</svg>",
    '<svg xml:space="preserve"> <a> </a> <b/>\t</svg>',
    "<svg>&#32; <a/>&#32;\r\n</svg>",
    "<svg>\n  <text>x <tspan>a</tspan> <tspan>b</tspan> </text>\r\n  <g>\n    <rect/>\n  </g>\n</svg>",
]


@pytest.mark.parametrize("text", BLANK_DOCS + MEMO_DOCS + DOCS)
def test_without_blank_text_the_folded_tree_is_the_same(text):
    # blank_text=False drops whitespace-only runs that start a text or a tail (libxml2's
    # ignorable blanks): every text and tail folds as before, and nothing else changes.
    from vector_gym.svg.parse import fold_ws

    full = parse_node(text)
    lean = parse_node(text, blank_text=False)
    assert len(full[1]) == len(lean[1]) and full[2] == lean[2]
    for a, b in zip(full[1], lean[1], strict=True):
        assert (a.tag, a.attrib, len(a.children)) == (b.tag, b.attrib, len(b.children))
        for x, y in ((a.text, b.text), (a.tail, b.tail)):
            assert fold_ws(x) == fold_ws(y)
            assert y == x or (x.endswith(y) and not x[: len(x) - len(y)].strip())
    lean_root = parse_node(BLANK_DOCS[3], blank_text=False)[0]
    assert lean_root.text == "" and lean_root.children[0].tail == ""  # the indentation is gone
    assert lean_root.children[0].text == "x "
    assert [c.tail for c in lean_root.children[0].children] == [" ", " "]  # mixed content kept


def test_plain_start_tag_scan_equals_the_general_scan():
    """Documents without "<!" or "<?" are scanned with the plain pattern: same start tags.

    Every task document and bundled output (and each with its comments, PIs and declarations
    stripped, so the plain pattern applies to all of them), plus crafted tags ('>' inside a
    quoted value, '/' inside a value, self-closing tags, end tags with blanks).
    """
    import gzip
    import json
    import re
    from pathlib import Path

    from vector_gym.svg import canonical as C

    path = Path(__file__).resolve().parents[1] / "data" / "outcomes_sv001_020.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        docs = [json.loads(line)["produced_svg"] for line in fh if line.strip()]
    docs = [d for d in docs if d]
    docs += [d for t in load_vector_bench() for d in (t.source_svg, t.target_svg)]
    docs = [re.sub(r"<!--.*?-->|<\?.*?\?>", "", d, flags=re.DOTALL) for d in docs]
    docs += [
        '<svg a="x>y"><g/></svg >',
        '<svg><path d="M0 0/1"/><g ></g\n><rect/></svg>',
        "<svg>a</svg>",
    ]
    plain = 0
    for d in docs:
        if "<!" in d or "<?" in d:
            continue
        plain += 1
        general = list(filter(None, C._START_TAG_RE.findall(d)))
        assert C._start_tags(d) == general
    assert plain > 500
    # With a comment or a PI the general scan is used (a "<" inside them opens no tag).
    assert C._start_tags("<svg><!-- <g> --><?p <a>?><rect/></svg>") == ["svg", "rect/"]
