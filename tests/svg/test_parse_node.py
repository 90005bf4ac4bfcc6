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
