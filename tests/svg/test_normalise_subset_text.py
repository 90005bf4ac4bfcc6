"""The skia-subset lowering on the text: the pixels of the tree lowering, and never a document it would refuse."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from test_normalise_subset import NS, _pixels, _svg  # the same helpers

from vector_gym.render import backends
from vector_gym.render.backends import _subset_bytes
from vector_gym.render.precheck import DEFAULT_LIMITS, RenderRejected, _check_tree
from vector_gym.svg.normalise.subset import lower_skia_subset
from vector_gym.svg.normalise.subset_text import lower_skia_subset_text


def _both(text: str, size: int):
    """(text lowering's bytes or None, tree lowering's bytes or None) of an accepted document."""
    root, checked = _check_tree(text, DEFAULT_LIMITS)
    fast = None
    if checked is not None:
        fast = lower_skia_subset_text(checked if isinstance(checked, str) else checked.decode(), (size, size))
    tree = copy.deepcopy(root)
    slow = _subset_bytes(tree) if lower_skia_subset(tree, (size, size)) else None
    return fast, slow


def _assert_same_drawing(text: str, size: int) -> bool:
    fast, slow = _both(text, size)
    if fast is None:
        return False
    assert slow is not None, f"the text lowering took a document the tree refuses: {text[:300]!r}"
    np.testing.assert_array_equal(_pixels(fast, size), _pixels(slow, size), err_msg=text[:300])
    return True


def _corpus() -> list[str]:
    from vector_gym.tasks.repairgen_sources import load_sources

    return [s.svg for s in load_sources(("vector_bench", "svgeditbench"))]


@pytest.mark.parametrize("size", [24, 96])
def test_corpus_documents_draw_exactly_as_with_the_tree_lowering(size):
    docs = _corpus()[:: 2 if size == 24 else 5]
    hits = sum(_assert_same_drawing(text, size) for text in docs)
    # the Vector-Bench scenes (a fifth of the sources) are all of the grammar, and many emoji
    assert hits >= 0.3 * len(docs), (hits, len(docs))


def test_every_vector_bench_scene_takes_the_text_path():
    from vector_gym.tasks import load_vector_bench

    docs = [t.source_svg for t in load_vector_bench()][::4]
    for text in docs:
        assert lower_skia_subset_text(text, (72, 72)) is not None, text[:200]


ACCEPTED = [
    ('<circle cx="5.5" cy="4.25" r="2.125" fill="#f00"/>', 'viewBox="0 0 10 10"'),
    ('<circle cx="-0" cy="-3.5" r="7.75" stroke="#000" stroke-width="0.5" fill="none"/>', 'viewBox="-10 -10 20 20"'),
    ('<circle cx="5" cy="5" r="0"/><circle cx="1" cy="1" r="-2"/><rect width="2" height="2"/>', 'viewBox="0 0 10 10"'),
    ('<circle cx="1999999999.5" cy="5" r="1e0"/>', 'viewBox="0 0 10 10"'),  # exponent: the tree
    ('<circle cx="1234567890123" cy="5" r="3"/><circle cx="0.1" cy="0.2" r="0.30000001"/>', 'viewBox="0 0 10 10"'),
    ('<ellipse cx="5" cy="5" rx="4"/><ellipse cx="5" cy="5" ry="1.5"/><ellipse cx="5" cy="5"/>', 'viewBox="0 0 10 10"'),
    ('<ellipse cx="5" cy="5" rx="4.5" ry="2.25" fill="white" stroke="black" opacity=".5"/>', 'width="20" height="10"'),
    ('<line x1="0" y1="0" x2="10" y2="10" stroke="#00f" fill="#f00" fill-opacity="0.5" stroke-width="2"/>', 'viewBox="0 0 10 10"'),
    ('<path d="M1 1L9 1L5 9z L"/><path d="L1 1"/><path d="M0 0a5 5 0 015 5" stroke="#000" fill="none"/>', 'viewBox="0 0 10 10"'),
    ('<g fill="#0f0" opacity="1"><g/><rect x="1" y="1" width="3" height="4"/></g>', 'viewBox="0 0 10 10"'),
    ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" fill="#f0f" opacity="0.5" x="3" y="2"'),
    ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" transform="scale(2)"'),
    ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" transform="scale(1)"'),
    ('<rect width="4" height="4"/>', 'width="10mm" height="20"'),
    ('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" style="enable-background:new 0 0 10 10;" xml:space="preserve"'),
    ('<polygon points="1,1 9,1 5,9" fill="#abc" fill-rule="evenodd"/><polyline points="1 1 2 2" stroke="#000"/>', 'viewBox="0 0 10 10"'),
    ('<rect\n\twidth="4"\n  height="4" rx="1" ry="0.5"\n/>\n', 'viewBox="0 0 10\n10"\n width="10"'),
    ('<rect width="4" height="4" stroke-dasharray="1 2" stroke="#000" stroke-linecap="round"/>', 'viewBox="0 0 10 10" preserveAspectRatio="xMinYMin slice"'),
    ('<rect id="a>b" width="4" height="4"/><path id="c>d" d="M1 1L9 1L5 9z L"/><circle id=">" r="2.5"/>', 'viewBox="0 0 10 10"'),
    # A value ending in ' id=' (its closing quote then reads as an id's opening one): the id
    # removal must not take the next attribute with it.
    ('<path fill-rule="x id=" d="M1 1L9 1L5 9z"/><rect stroke-linecap="a id=" width="4" height="4"/>', 'viewBox="0 0 10 10"'),
    ('<g fill-rule=" id=" fill="#f00"><circle cx="5" cy="5" r="3" clip-rule=" id=" fill="#00f"/></g>', 'viewBox="0 0 10 10"'),
    # circles whose cx, cy and r follow one another (read apart by the rewrite's regex) and
    # circles whose do not, or that carry an rx, ry or d the path leaves out
    ('<circle fill="#f00" cx="5" cy="5" r="2.5" stroke="#000"/><circle cx="1"\n\tcy="2" r="0"/>', 'viewBox="0 0 10 10"'),
    ('<circle cy="5" cx="4" r="3"/><circle cx="5" cy="5" r="3" rx="1"/><circle rx="1" cx="5" cy="5" r="2" d="M0 0"/>', 'viewBox="0 0 10 10"'),
    # a rect's width and height in either order, with other attributes around them
    ('<rect height="4" x="1" fill="#f00" width="3" y="2"/><rect fill="#00f" width="2" y="6" height="1"/>', 'viewBox="0 0 10 10"'),
    # lines without a fill of their own (one substitution) and with one (rewritten one by one)
    ('<line x1="0" y1="0" x2="10" y2="10" stroke="#00f" fill-opacity="0.5"/><line\tx1="1" x2="9" stroke="#000"/>', 'viewBox="0 0 10 10"'),
    ('<g fill="#f00"><line x1="0" y1="0" x2="10" y2="10" stroke="#00f"/><line x1="1" x2="9" fill="#0f0"/></g>', 'viewBox="0 0 10 10"'),
    # plain styles kept as they are (skia reads them as the tree lowering's attributes), on
    # paths, polygons, circles, ellipses and groups with no presentation attribute
    ('<path style="fill:#0f0;" d="M1 1H9V9z"/><polygon style="fill:none;stroke:#00f;stroke-width:1.5;'
     'stroke-miterlimit:10;stroke-linecap:round;stroke-linejoin:bevel" points="1,9 9,9 5,1"/>', 'viewBox="0 0 10 10"'),
    ('<g style="opacity:0.5;fill:#f00"><circle style="fill:#00f;fill-opacity:.5" cx="5" cy="5" r="3"/>'
     '<ellipse id="e" style="stroke:#000;stroke-opacity:1;fill-rule:evenodd" cx="5" cy="5" rx="4" ry="2"/>'
     '<path style="fill:#0f0;fill:#ff0" d="M1 1H4V4z"/><circle style="fill:#000" cx="1" cy="1" r="0"/></g>',
     'viewBox="0 0 10 10"'),
    # lines with a plain style (no fill but none), with other lines with or without a fill
    ('<line style="fill:none;stroke:#000;stroke-width:2;stroke-miterlimit:10;" x1="1" y1="1" x2="9" y2="9"/>'
     '<line style="stroke:#f00;opacity:0.5" x1="1" y1="9" x2="9" y2="1"/>', 'viewBox="0 0 10 10"'),
    ('<g fill="#f00"><line style="stroke:#00f" x1="0" y1="5" x2="10" y2="5"/><line x1="1" y2="9" fill="#0f0"'
     ' stroke="#000"/></g>', 'viewBox="0 0 10 10"'),
    # Illustrator's enable-background: kept for skia (it reads no such property), or dropped
    ('<g style="enable-background:new    ;"><path style="opacity:0.5;fill:#B4E1ED;enable-background:new    ;"'
     ' d="M1 1L9 1L5 9z"/><path style="enable-background:new 0 0 1 1;stroke:#000" d="M1 1H9"/></g>'
     '<rect style="enable-background:new;fill:#f00" width="3" height="3"/>', 'viewBox="0 0 10 10"'),
    # other styles applied over the attributes (the declarations win) and removed
    ('<path fill="#f00" style="fill:#00f" d="M1 1H9V9z"/><path style="fill:#00f" stroke="#f00" d="M2 2H8"/>',
     'viewBox="0 0 10 10"'),
    ('<path style="fill:#f00;;stroke:#000;" d="M1 1H9V9z"/>', 'viewBox="0 0 10 10"'),  # skia stops at ";;"
    ('<rect x="1" style=" fill : #0f0 ;\n\tstroke:#000; " width="4" height="4"/><line style="stroke:#00f;'
     'fill:#f00" x1="0" y1="0" x2="10" y2="10"/><circle style="fill:white" cx="5" cy="5" r="2.5"/>'
     '<g style="stroke-dasharray:1 2;stroke:black" opacity="0.5"><line x1="0" x2="10" y2="5"/></g>', 'viewBox="0 0 10 10"'),
    # an Illustrator export: a comment before the root, x, y, style and xml:space on it
    ('<g><g><path style="fill:#427687;" d="M9,1H1v8h8V1z"/></g></g>\n<path style="opacity:0.5;fill:#B4E1ED;" d="M2,2h3\n\tv3z"/>',
     'version="1.1" id="Layer_1" x="0px" y="0px"\n\t viewBox="0 0 10 10" style="enable-background:new 0 0 10 10;"'
     ' xml:space="preserve"'),
]


def test_the_rewrites_write_circles_and_lines_as_the_tree_lowering_does():
    text = _svg('<circle fill="#f00" cx="5" cy="5" r="2.5" stroke="#000"/><line x1="1" x2="9" stroke="#000"/>')
    assert lower_skia_subset_text(text, (8, 8)).endswith(
        b'><path fill="#f00" stroke="#000" d="M7.5 5A2.5 2.5 0 0 1 5 7.5A2.5 2.5 0 0 1 2.5 5A2.5 2.5 0 0 1 5'
        b' 2.5A2.5 2.5 0 0 1 7.5 5Z"/><line fill="none" x1="1" x2="9" stroke="#000"/></svg>'
    )
    # a line with a fill of its own: every line is rewritten, its fill left out
    text = _svg('<line x1="1" x2="9" stroke="#000"/><line x1="1" fill="#f00" fill-opacity="0.5"/>')
    assert lower_skia_subset_text(text, (8, 8)).endswith(
        b'><line x1="1" x2="9" stroke="#000" fill="none"/><line x1="1" fill="none"/></svg>'
    )


@pytest.mark.parametrize("body, root", ACCEPTED)
@pytest.mark.parametrize("size", [16, 48])
def test_documents_of_the_grammar_draw_exactly_as_with_the_tree_lowering(body, root, size):
    for text in (
        _svg(body, root),
        '<?xml version="1.0" encoding="UTF-8"?>\n<?pi x?>' + _svg(body, root) + "\n",
        '<?xml version="1.0" encoding="utf-8"?>\n<!-- Generator: Plug-In . 6.00 Build 0)  -->\n' + _svg(body, root),
    ):
        fast, slow = _both(text, size)
        if "1e0" in text:
            assert fast is None and slow is not None
            continue
        assert fast is not None and slow is not None
        np.testing.assert_array_equal(_pixels(fast, size), _pixels(slow, size))


def test_an_empty_root_and_a_root_without_viewbox():
    for text, size in ((f"<svg {NS}/>", 8), (f'<svg {NS} width="4" height="2" fill="#f00"/>', 8)):
        assert _assert_same_drawing(text, size)


LEFT_TO_THE_TREE = [
    # styles the tree lowering refuses (a property or value outside the subset)
    '<path style="fill:#f00;enable-background:url(#a)" d="M1 1H9V9z"/>',
    '<rect width="4" height="4" style="fill:red"/>',
    '<circle cx="5" cy="5" r="2" style="fill:url(#a)"/>',
    '<path style="fill:#f00 !important" d="M1 1H9V9z"/>',
    '<path style="/* c */fill:#f00" d="M1 1H9V9z"/>',
    '<path style="stroke-width:0" d="M1 1H9V9z"/>',
    '<rect width="4" height="4" transform="rotate(3)"/>',
    "<title>t</title><rect width='4' height='4'/>",
    '<rect width="4" height="4" fill="#f00" opacity="1e-1"/>',
    "<rect width='4' height='4'/>",
    '<rect width = "4" height="4"/>',
    '<rect width="4" height="4"/><!-- c -->',
    '<rect width="4" height="4">\r</rect>',
    '<rect width="4" height="4"></rect>',  # shapes are empty elements in the grammar
    '<rect width="0" height="4"/>',
    '<rect width="4"/>',
    '<rect width="4" id=" height=" fill="#f00"/>',  # a name inside a value is no attribute
    '<rect height="4" stroke-width="4"/>',
    '<rect width="4" height="4" fill="red"/>',
    '<rect width="4" height="4" opacity="1.5"/>',
    '<rect width="4" height="4" stroke-width="0"/>',
    '<rect width="4" height="4" stroke-width="-1"/>',
    '<rect width="4" height="4" x="1px"/>',
    '<rect width="4" height="4" x=""/>',
    '<rect width="4" height="4" fill="#ff"/>',
    '<rect width="4" height="4" class="a"/>',
    '<rect width="4" height="4" xmlns="http://www.w3.org/2000/svg"/>',
    '<g>text</g>',
    '<g>\u00a0</g>',
    '<defs><rect width="4" height="4"/></defs>',
    '<linearGradient id="g"/><rect width="4" height="4"/>',
    '<rect width="4" height="4" fill="url(#g)"/>',
    '<rect width="4" height="4" stroke-width="0.000000000000000000000001"/>',
    # a plain style the tree's style reader refuses (no "+" in a declaration's value)
    '<polygon style="stroke:#000;stroke-miterlimit:+4" points="1,9 9,8 1,7"/>',
    '<line style="stroke:#000;stroke-miterlimit:+10" x1="1" y1="1" x2="9" y2="9"/>',
]


@pytest.mark.parametrize("body", LEFT_TO_THE_TREE)
def test_what_the_grammar_does_not_cover_is_left_to_the_tree(body):
    text = _svg(body)
    try:
        root, checked = _check_tree(text, DEFAULT_LIMITS)
    except RenderRejected:
        return
    if checked is not None:
        assert lower_skia_subset_text(checked, (8, 8)) is None


@pytest.mark.parametrize(
    "root",
    [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 0 10">',  # zero-size viewBox
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 a 10">',
        '<svg xmlns="http://www.w3.org/2000/svg" style="fill:#f00">',
        '<svg xmlns="http://www.w3.org/2000/svg" class="a">',
        '<svg xmlns="http://www.w3.org/2000/svg" opacity="2">',
        "<svg xmlns='http://www.w3.org/2000/svg'>",
        '<svg:svg xmlns:svg="http://www.w3.org/2000/svg">',
    ],
)
def test_roots_outside_the_subset_are_left_to_the_tree(root):
    end = "</svg:svg>" if root.startswith("<svg:") else "</svg>"
    assert lower_skia_subset_text(root + '<rect width="1" height="1"/>' + end, (8, 8)) is None


def test_hostile_values_are_matched_in_linear_time():
    # Every quantifier of the grammar is possessive: these take milliseconds, not hours.
    n = 20000
    for bad in (f'width="{"1" * n}x"', f'x="{"1" * n}.{"2" * n}x"', f'opacity="{"0" * n}x"'):
        assert lower_skia_subset_text(_svg(f'<rect {bad} height="1" width="1"/>'), (8, 8)) is None
    many = _svg('<rect width="1" height="1"/>' * 5000 + '<rect width="1" height="1" q="1"/>')
    assert lower_skia_subset_text(many, (8, 8)) is None
    # styles: long ones, and many styled elements before one the grammars refuse
    for body in (
        '<path style="' + "fill:#fff;" * n + 'x" d="M0 0"/>',
        '<path style="fill:#fff' + "f" * n + '" d="M0 0"/>',
        "<path" + ' id="a"' * n + ' style="fill:#f00" q="1"/>',
        '<path style="fill:#f00"/>' * 5000 + '<path style="fill:red"/>',
    ):
        assert lower_skia_subset_text(_svg(body), (8, 8)) is None
    # a rect's attributes are read once for each order of width and height, at most
    for rect in ('<rect width="1"' + ' x="1"' * n + "/>", '<rect height="1"' + ' x="1"' * n + ' width="0"/>'):
        assert lower_skia_subset_text(_svg(rect * 20), (8, 8)) is None


def _mutants(docs: list[str], n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    edits = [
        "", "e", "-", ".", "0", " ", "\n", '"', "'", "<", ">", "/", "=", "&amp;", "#", "x",
        ' style="fill:#fff"', ' transform="scale(2)"', " r=\"0\"", ' width="0"', "<g>", "</g>",
        "<title>", "<!---->", 'xmlns="x"', "1e5", "url(#a)", "\t", "\u00a0",
    ]
    out = []
    for _ in range(n):
        text = rng.choice(docs)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(edits) + text[i + rng.randint(0, 2):]
        out.append(text)
    return out


def test_mutated_documents_the_text_path_takes_draw_as_with_the_tree_lowering():
    docs = [d for d in _corpus()[::9] if lower_skia_subset_text(d, (8, 8)) is not None]
    taken = 0
    for text in _mutants(docs, 600):
        try:
            taken += _assert_same_drawing(text, 24)
        except RenderRejected:
            continue
    assert taken > 100  # the mutants that stay in the grammar are many, and were compared


def test_prepare_uses_the_text_path_and_falls_back_to_the_tree(monkeypatch):
    backends.clear_caches()
    calls = []
    real = backends.lower_skia_subset

    def tree(root, size):
        calls.append(size)
        return real(root, size)

    monkeypatch.setattr(backends, "lower_skia_subset", tree)
    grammar = _svg('<circle cx="5" cy="5" r="2.5" fill="#f00"/>')
    transformed = _svg('<circle cx="5" cy="5" r="2.5" fill="#f00" transform="translate(0)"/>')
    a = backends._prepare(grammar, 8, 8, "skia", DEFAULT_LIMITS)
    assert a[0] == backends._SKIA_UNPROVEN and b'd="M7.5 5A2.5 2.5 0 0 1 5 7.5' in a[1] and calls == []
    b = backends._prepare(transformed, 8, 8, "skia", DEFAULT_LIMITS)
    assert b[0] == "skia" and calls == [(8, 8)]
    np.testing.assert_array_equal(_pixels(a[1], 8), _pixels(b[1], 8))
    # styles are read on the text: a plain one kept (skia's parse proves the text), another
    # applied over the attributes (expat proves it: two styles would merge)
    plain = _svg('<circle cx="5" cy="5" r="2.5" style="fill:#f00"/>')
    applied = _svg('<circle cx="5" cy="5" r="2.5" style="fill: #f00"/>')
    c = backends._prepare(plain, 8, 8, "skia", DEFAULT_LIMITS)
    assert c == (backends._SKIA_UNPROVEN, a[1].replace(b'<path fill="#f00"', b'<path style="fill:#f00"'))
    assert backends._prepare(applied, 8, 8, "skia", DEFAULT_LIMITS) == ("skia", a[1])
    assert calls == [(8, 8)]
    # a document that may refer to something is never read from its text
    ref = _svg('<circle cx="5" cy="5" r="2.5" fill="#f00" id="a&amp;b"/>')
    assert backends._prepare(ref, 8, 8, "skia", DEFAULT_LIMITS)[0] == "skia" and len(calls) == 2


def _settled(entry, text, size, limits):
    """An entry as end_document settles it: one left to skia's parse ("skia?") is "skia" when
    skia parses it, else the outcome of the checked path."""
    if entry[0] != backends._SKIA_UNPROVEN:
        return entry
    if backends._draw_skia(entry[1], np.zeros((size, size, 3), np.uint8), (255, 255, 255)) is None:
        return "skia", entry[1]
    return backends._prepare(text, size, size, "skia", limits, prove=True)


def _prepared_both_ways(text, monkeypatch, limits=DEFAULT_LIMITS, size=24):
    """_prepare's outcome with the parse-free acceptance and with the parse always run."""
    fast = _settled(backends._prepare(text, size, size, "skia", limits), text, size, limits)
    with monkeypatch.context() as m:
        m.setattr(backends, "may_skip_parse", lambda svg, lim: False)
        slow = backends._prepare(text, size, size, "skia", limits)
    return fast, slow


EDGE_TEXTS = [
    _svg('<rect width="4" height="4"/>'),
    '<?xml version="1.0" encoding="UTF-8"?>\n' + _svg('<rect width="4" height="4"/>'),
    '<?xml version="2.0"?>' + _svg('<rect width="4" height="4"/>'),  # libxml2 refuses it
    ' <?xml version="1.0"?>' + _svg('<rect width="4" height="4"/>'),
    '<?xml version="1.0" encoding="latin-1"?>' + _svg('<rect width="4" height="4"/>'),
    '<svg viewBox="0 0 10 10"><rect width="4" height="4"/></svg>',  # no namespace
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><rect width="1" height="1"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="urn:x"><rect width="1" height="1"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve"><rect width="1" height="1"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xml:space="weird"><rect width="1" height="1"/></svg>',
    _svg('<rect width="4" height="4" x="1" x="2"/>'),  # a duplicate attribute
    _svg('<rect width="4" height="4" id="a\x01"/>'),  # a character XML forbids
    _svg('<rect width="4" height="4" id="a\x7f"/>'),
    _svg('<rect width="4" height="4" id="a<b"/>'),
    _svg('<rect width="4" height="4"/></g>'),
    _svg('<g><rect width="4" height="4"/>'),
    _svg("<g>" * 130 + '<rect width="1" height="1"/>' + "</g>" * 130),  # deeper than 128
    _svg("<g>" * 300 + "</g>" * 300),
    _svg('<rect width="4" height="4"/>') + "<?pi?>",
    _svg('<rect width="4" height="4"/>') + "x",
    _svg('<rect width="4" height="4" id="\u00e9"/>'),  # not ASCII: parsed
    _svg('<rect width="4" height="4"/>').replace("<svg ", "<svg\n\t"),
    # a name that starts with "xmlns" and is no namespace declaration: no namespace on the root
    '<svg xmlnsxmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="4"/></svg>',
    _svg('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" xmlnsfoo="urn:x"'),
    # what the acceptance leaves to the grammar (and expat) below the root
    _svg('<rect width="4" height="4"/><!-- a comment -->'),
    _svg('<rect width="4" height="4"/><![CDATA[x]]>'),
    _svg('<!DOCTYPE svg><rect width="4" height="4"/>'),
    _svg('<rect width="4" height="4" id="<!x"/>'),
    _svg('<rect width="4" height="4"/><use/>'),
    _svg('<rect width="4" height="4" id="house"/><g id="x:use xmlns xml:lang"/>'),
    _svg('<rect width="4" height="4" xml:space="preserve"/>'),
    _svg('<g xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></g>'),
    _svg('<g xmlns:x="urn:x"><rect width="4" height="4"/></g>'),
    _svg('<rect width="4" height="4"/>', 'viewBox="0 0 10 10" xml:lang="en"'),
    _svg('<rect width="1" height="1"/>' * 300),  # more tags than the depth bound, no group
    _svg('<g><rect width="1" height="1"/></g>' * 150),
    # comments before the root: well-formed ones, and what XML refuses in one
    '<?xml version="1.0" encoding="utf-8"?>\n<!-- Generator: Plug-In 1.0)  -->\n<!---->'
    + _svg('<path style="fill:#f00;" d="M1 1H9V9z"/>'),
    "<!-- a -- b -->" + _svg('<rect width="4" height="4"/>'),
    "<!-- a --->" + _svg('<rect width="4" height="4"/>'),
    "<!--->" + _svg('<rect width="4" height="4"/>'),
    "<!-- a <svg b -->" + _svg('<rect width="4" height="4"/>'),
    "<!-- a -->" + '<?xml version="1.0"?>' + _svg('<rect width="4" height="4"/>'),
    "<!-- a -- >" + _svg('<rect width="4" height="4"/>') + "-->",
    # styles: two on one element (ill-formed), plain and applied ones
    _svg('<path style="fill:#f00" style="stroke:#000" d="M1 1H9V9z"/>'),
    _svg('<path style="fill:#f00" fill="#00f" d="M1 1H9V9z"/><rect style="stroke:#000" width="1" height="1"/>'),
    _svg('<path style="fill:#f00" d="M1 1H9V9z" d="M1 1"/>'),
]


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_the_parse_free_acceptance_gives_the_parsed_outcome(text, monkeypatch):
    fast, slow = _prepared_both_ways(text, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize(
    "limits",
    [
        dict(max_depth=3),
        dict(max_elements=3),
        dict(max_use_expansion=3),
        dict(max_path_numbers=20),
        dict(max_attributes=2),
        dict(max_bytes=30),
    ],
)
def test_the_parse_free_acceptance_keeps_every_limit(limits, monkeypatch):
    from vector_gym.render.precheck import RenderLimits

    text = _svg('<g><rect width="4" height="4" x="1" y="1"/><circle r="2"/></g>')
    fast, slow = _prepared_both_ways(text, monkeypatch, RenderLimits(**limits))
    assert fast == slow


def test_mutated_documents_get_the_parsed_outcome_without_the_parse(monkeypatch):
    docs = [d for d in _corpus()[::9] if lower_skia_subset_text(d, (8, 8)) is not None]
    skipped = 0
    for text in _mutants(docs, 400, seed=1):
        fast, slow = _prepared_both_ways(text, monkeypatch, size=12)
        assert fast == slow, text[:300]
        try:
            skipped += text.isascii() and backends.may_skip_parse(text, DEFAULT_LIMITS)
        except RenderRejected:
            pass
    assert skipped > 100


def test_tree_lowering_draws_shapes_it_rewrites_under_an_svg_prefix_alias(monkeypatch):
    # A root that also binds a prefix to SVG's namespace: the path a circle becomes must
    # still be written unprefixed (skia draws no <svg:path>), as the text lowering writes it.
    body = '<ellipse cx="5" cy="5" rx="4" ry="2"/><circle cx="5" cy="5" r="2" fill="#f00"/>'
    plain = _svg(body)
    alias = plain.replace("<svg ", '<svg xmlns:svg="http://www.w3.org/2000/svg" ', 1)
    monkeypatch.setattr(backends, "lower_skia_subset_text", lambda text, size: None)
    monkeypatch.setattr(backends, "lower_skia_subset_text_intact", lambda text, size: (None, False))
    backends.clear_caches()
    want = backends._prepare(plain, 16, 16, "skia", DEFAULT_LIMITS)
    got = backends._prepare(alias, 16, 16, "skia", DEFAULT_LIMITS)
    assert want[0] == got[0] == "skia"
    assert b"svg:" not in got[1]
    np.testing.assert_array_equal(_pixels(got[1], 16), _pixels(want[1], 16))


@pytest.mark.parametrize(
    "body",
    [
        '<circle cx="5" cy="5" r="3" d="M1 1L2 2"/>',  # a d on a circle: ignored, replaced
        '<ellipse d="" cx="5" cy="5" rx="4" ry="2" fill="#f00"/>',
        # an attribute's text inside another's value is no attribute
        '<circle id=" r=" cx="5" cy="5" r="3" fill="#f00"/>',
        '<ellipse id="x cx=" cx="5" cy="5" rx="4" ry="2"/>',
        '<line id=" fill=" x1="2" y1="8" x2="10" y2="10" stroke="#000" stroke-width="2"/>',
    ],
)
def test_rewritten_shapes_draw_as_with_the_tree_lowering(body, monkeypatch):
    from vector_gym.render import render_many

    text = _svg(body)
    backends.clear_caches()
    fast = render_many([text], size=(16, 16), processes=0)
    with monkeypatch.context() as m:
        m.setattr(backends, "may_skip_parse", lambda svg, lim: False)
        m.setattr(backends, "lower_skia_subset_text", lambda t, s: None)
        backends.clear_caches()
        tree = render_many([text], size=(16, 16), processes=0)
    assert tree.errors == (None,) and fast.errors == tree.errors
    np.testing.assert_array_equal(fast.images, tree.images)
    assert (tree.images < 128).any()  # the shape is drawn


_ODD_VALUES = {
    "x": ["1", "-2.5", "+.5", "1e1", "NaN", "1e308", "9" * 60], "width": ["4", "0", "-1", ".5", "1e308", "inf"],
    "height": ["4", "3.", "0"], "cx": ["5", "."], "cy": ["5", "x"], "r": ["3", "0", "-1", "9" * 400],
    "rx": ["1", "-1", "auto"], "ry": ["2"], "d": ["M1 1L9 1L5 9z", "L1 1", "M1 1 L", "", "M1e308 1L2 2"],
    "points": ["1,1 9,1 5,9", "1"], "fill": ["#f00", "none", "red", "#ff000080", "currentColor"],
    "stroke": ["#000", "none"], "stroke-width": ["1", "0", "-1", "1px"], "opacity": [".5", "1", "1.5", "01"],
    "id": [" r=", "a>b", "/>", " r=", " fill=", " d=", " cx=", " width=", "\tr=", "x:use"], "x1": ["0"], "y1": ["0"], "x2": ["10"], "y2": ["10"],
}


def _odd_document(rng: random.Random) -> str:
    names = ["rect", "circle", "ellipse", "line", "path", "polygon", "g", "RECT", "svg:rect"]
    values = {**_ODD_VALUES, "style": ["fill:#f00"], "transform": ["scale(2)"], "Fill": ["#f00"]}
    keys = list(values if rng.random() < 0.1 else _ODD_VALUES)  # a few with what the tree needs

    def element(depth: int) -> str:
        name = rng.choices(names, weights=[8, 6, 3, 3, 5, 2, 4, 0.3, 0.3])[0]
        attrs = "".join(  # mostly the first (plain) value, so that many stay in the grammar
            rng.choice([" ", "\n", "\t"]) + k + '="' + (rng.choice(values[k]) if rng.random() < 0.25 else values[k][0]) + '"'
            for k in rng.sample(keys, rng.randint(0, 4))
        )
        if name == "g" and depth < 3:
            return f"<g{attrs}>" + "".join(element(depth + 1) for _ in range(rng.randint(0, 3))) + "</g>"
        name = "rect" if name == "g" else name
        return f"<{name}{attrs}></{name}>" if rng.random() < 0.1 else f"<{name}{attrs}/>"

    root = rng.choice(['viewBox="0 0 10 10"', 'width="10" height="10" fill="#f00"', 'viewBox="0 0 10 10" xmlns:svg="http://www.w3.org/2000/svg"',
                       'viewBox="0 0 10 10" xmlns:xlink="http://www.w3.org/1999/xlink" opacity="0.5"', 'viewBox="0 0 10 10" xmlnsx="urn:x"'])
    prolog = rng.choice(["", '<?xml version="1.0" encoding="UTF-8"?>\n', "<!-- c -->", "<?pi x?>", "\ufeff"])
    body = "".join(element(0) for _ in range(rng.randint(1, 6)))
    return f'{prolog}<svg xmlns="http://www.w3.org/2000/svg" {root}>{body}</svg>'


def test_odd_documents_render_as_with_the_tree_normaliser_in_process_and_in_the_pool(monkeypatch):
    """Differential: render_many with the parse-free acceptance and the text lowering, in this
    process and in a pool, against the same documents forced through the parse and the tree."""
    from vector_gym.render import render_many

    rng = random.Random(7)
    docs = [_odd_document(rng) for _ in range(600)]
    backends.clear_caches()
    fast = render_many(docs, size=(12, 12), processes=0)
    pooled = render_many(docs, size=(12, 12), processes=1)
    with monkeypatch.context() as m:
        m.setattr(backends, "may_skip_parse", lambda svg, lim: False)
        m.setattr(backends, "lower_skia_subset_text", lambda t, s: None)
        backends.clear_caches()
        tree = render_many(docs, size=(12, 12), processes=0)
    for i, text in enumerate(docs):
        assert fast.errors[i] == pooled.errors[i] == tree.errors[i], text
        np.testing.assert_array_equal(fast.images[i], tree.images[i], err_msg=text)
        np.testing.assert_array_equal(pooled.images[i], tree.images[i], err_msg=text)
    assert sum(e is None for e in tree.errors) > 300  # most are drawn, not refused
    assert sum(backends.lower_skia_subset_text(t, (12, 12)) is not None for t in docs) > 40  # of the grammar


def test_ids_after_a_space_are_left_out_and_draw_the_same():
    # the document refers to nothing, so no id is used; skia would file each in its id map
    text = _svg(
        '<g id="layer"><rect id="r" width="4" height="4" fill="#f00"/>'
        '<circle id="c" cx="5" cy="5" r="2" fill="#00f"/><path\tid="tab" d="M0 0L9 9" stroke="#000"/></g>'
    )
    fast = lower_skia_subset_text(text, (24, 24))
    assert b' id="' not in fast and b"\tid=" in fast  # after a tab: kept (changes nothing)
    assert b'<g><rect width="4" height="4" fill="#f00"/>' in fast
    assert _assert_same_drawing(text, 24)


def _circle_matches(texts):
    from vector_gym.svg.normalise import subset_text as st

    for text in texts:
        body = text[text.find(">", text.find("<svg")) + 1 : text.rfind("</svg")]
        for m in st._REWRITE.finditer(body):
            if m.group(2) is not None:
                yield m


def _circle_slow(m) -> str:
    """The circle rewrite before its inlined fast path: :func:`.subset._round_d` on a dict."""
    from vector_gym.svg.normalise.subset import _round_d

    d = _round_d("circle", {"cx": m.group(2), "cy": m.group(3), "r": m.group(4)})
    return "" if d is None else f'<path{m.group(1)}{m.group(5)} d="{d}"/>'


def test_the_inlined_circle_rewrite_writes_what_round_d_writes():
    from vector_gym.svg.normalise.subset_text import _rewrite
    from vector_gym.tasks import load_vector_bench

    texts = [t.source_svg for t in load_vector_bench()] + [t.target_svg for t in load_vector_bench()]
    matches = list(_circle_matches(texts))
    assert len(matches) > 500
    assert sum(not m.group(4).isdigit() for m in matches) > 100  # both forms of radius
    for m in matches:
        assert _rewrite(m) == _circle_slow(m), m.group(0)
    # edge cases: zero, leading zeros, large and tiny values, negative and decimal centres
    rng = random.Random(3)
    values = ["0", "00", "007", "1", "999999999", "1000000000", "123456789012345", "0.5", "1.25",
              "2.05", ".5", "5.", "-3", "+4", "-0", "1e-30", "0.000001", "999999999.5"]
    bodies = []
    for _ in range(400):
        cx, cy, r = (rng.choice(values) for _ in range(3))
        bodies.append(f'<circle fill="#f00" cx="{cx}" cy="{cy}" r="{r}" stroke="#000"/>')
    matches = list(_circle_matches([_svg("".join(bodies))]))
    assert len(matches) == 400
    for m in matches:
        assert _rewrite(m) == _circle_slow(m), m.group(0)


def _ellipse_slow(m) -> str:
    """The ellipse rewrite before its inlined fast path: :func:`.subset._round_d` on a dict."""
    from vector_gym.svg.normalise.subset import _round_d

    d = _round_d("ellipse", {"cx": m.group(7), "cy": m.group(8), "rx": m.group(9), "ry": m.group(10)})
    return "" if d is None else f'<path{m.group(6)}{m.group(11)} d="{d}"/>'


def test_the_inlined_ellipse_rewrite_writes_what_round_d_writes():
    from vector_gym.svg.normalise import subset_text as st
    from vector_gym.tasks import load_vector_bench

    def matches(texts):
        for text in texts:
            for m in st._REWRITE.finditer(text):
                if m.group(7) is not None:
                    yield m

    texts = [t.source_svg for t in load_vector_bench()] + [t.target_svg for t in load_vector_bench()]
    found = list(matches(texts))
    assert len(found) > 50
    for m in found:
        assert st._rewrite(m) == _ellipse_slow(m), m.group(0)
    rng = random.Random(4)
    values = ["0", "00", "007", "1", "999999999", "1000000000", "123456789012345", "0.5", "1.25",
              "2.05", ".5", "5.", "-3", "+4", "-0", "1e-30", "0.000001", "999999999.5"]
    bodies = []
    for _ in range(400):
        cx, cy, rx, ry = (rng.choice(values) for _ in range(4))
        bodies.append(f'<ellipse fill="#f00" cx="{cx}" cy="{cy}" rx="{rx}" ry="{ry}" opacity="0.5"/>')
    found = list(matches([_svg("".join(bodies))]))
    assert len(found) == 400
    for m in found:
        assert st._rewrite(m) == _ellipse_slow(m), m.group(0)
    # and the whole document draws as with the tree lowering
    assert _assert_same_drawing(_svg('<ellipse fill="#f00" cx="5" cy="4" rx="2.5" ry="1.25"/>'), 16)


def test_plain_paths_left_out_of_the_rewrite_are_those_it_would_write_unchanged():
    """The rewrite regex skips a path whose d is plain (.paths.PLAIN_D): the same output as
    with every path matched and checked in Python, on the corpus and on mutated path data."""
    import re

    from vector_gym.svg.normalise import subset_text as st
    from vector_gym.svg.normalise.paths import PLAIN_D, sanitize_path_data

    every = {
        rx: re.compile(rx.pattern.replace(st._PATH, "path")) for rx in (st._REWRITE, st._REWRITE_NO_LINE)
    }
    assert all(e.pattern != rx.pattern for rx, e in every.items())
    texts = _corpus()
    rng = random.Random(6)
    alphabet = "0123456789.-+eE ,\t\nMmLlHhVvCcSsQqTtAaZz"
    ds = [m for t in texts for m in re.findall(r'\sd="([^"]*)"', t)]
    extra = []
    for _ in range(3000):
        d = rng.choice(ds)
        i = rng.randrange(len(d) + 1)
        noise = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 4)))
        extra.append(d[:i] + noise + d[i + rng.randrange(0, 3) :])
    extra += [" M0 0", "M0 0 ", "M0 0\n", "", "M", "M0 0a1 1 0 0 1 2 2", "M0 0L1 1z", "m1-2.5.5e3"]
    plain = re.compile(PLAIN_D)
    for d in ds + extra:
        if plain.fullmatch(d):
            assert sanitize_path_data(d) == d, d
    texts = texts + [_svg("".join(f'<path fill="#f00" d="{d}" stroke="#000"/>' for d in extra[i : i + 50]))
                     for i in range(0, len(extra), 50)]
    skipped = 0
    for text in texts:
        body = text[text.find(">", text.find("<svg")) + 1 : text.rfind("</svg")]
        for rx, e in every.items():
            assert rx.sub(st._rewrite, body) == e.sub(st._rewrite, body), text[:200]
        skipped += len(e.findall(body)) - len(rx.findall(body))
    assert skipped > 1000


def _ill_formed_mutants(docs: list[str], n: int, seed: int) -> list[str]:
    """Documents of the grammar made ill-formed (or not) where the text lowering leaves text
    out: a second attribute on a rewritten, removed or kept element, a second id, a control
    character or a "<" in a value, unbalanced groups, a second root attribute."""
    rng = random.Random(seed)
    extra = [' id="q"', ' fill="#000"', ' cx="1"', ' r="0"', ' r="2"', ' rx="1"', ' d="M0 0"',
             ' stroke="#000"', ' fill-opacity="0.5"', ' id="a\x01"', ' id="a<b"', ' x="\x0b"',
             ' opacity="0.5"', '\tid="t"', ' width="3"', ' height="2"']
    out = []
    for _ in range(n):
        text = rng.choice(docs)
        for _ in range(rng.randint(1, 2)):
            kind = rng.random()
            if kind < 0.7:  # an attribute after an element's name or before its end
                names = ("<circle", "<ellipse", "<line", "<path", "<rect", "<g", "<polygon", "<svg")
                tags = [i for i in range(len(text)) if text.startswith(names, i)]
                i = rng.choice(tags)
                j = text.find(" ", i) if rng.random() < 0.5 else text.find("/>", i)
                if j < 0:
                    j = text.find(" ", i)
                text = text[:j] + rng.choice(extra) + text[j:]
            elif kind < 0.85:
                i = text.find("<", text.find(">", text.find("<svg")) + 1)
                removed = '<circle cx="1" cy="1" r="0" fill="#000" fill="#fff"/>'
                text = text[:i] + rng.choice(["<g>", "</g>", "<g/>", removed]) + text[i:]
            else:
                i = rng.randrange(len(text))
                text = text[:i] + rng.choice(["\x01", "\x1f", "\r", "\x7f"]) + text[i:]
        out.append(text)
    return out


def test_ill_formed_texts_left_to_skias_parse_get_the_outcome_of_expat(monkeypatch):
    """What the text lowering leaves out is never where an error hides: every mutant gets the
    outcome (error, drawer, pixels) it gets with expat run on the text."""
    from vector_gym.render.backends import draw_document
    from vector_gym.tasks import load_vector_bench

    docs = [d for t in load_vector_bench() for d in (t.source_svg, t.target_svg)]
    docs += [d for d in _corpus()[::7] if lower_skia_subset_text(d, (8, 8)) is not None][:40]
    docs.append(_svg('<circle fill="#f00" cx="5" cy="5" r="2.5"/><ellipse cx="2" cy="2" rx="1" ry="2"/>'
                     '<line x1="1" x2="9" stroke="#000"/><path d="M0 0L5 5x" stroke="#000"/>'))
    unproven = refused = 0
    for text in _ill_formed_mutants(docs, 3000, seed=2):
        backends.clear_caches()
        a = np.zeros((12, 12, 3), np.uint8)
        got = draw_document(text, a)
        try:
            entry = backends._prepare(text, 12, 12, "skia", DEFAULT_LIMITS)
        except RenderRejected:
            entry = (None, None)
        unproven += entry[0] == backends._SKIA_UNPROVEN
        with monkeypatch.context() as m:
            m.setattr(backends, "_SKIA_PROVES", False)
            backends.clear_caches()
            b = np.zeros((12, 12, 3), np.uint8)
            want = draw_document(text, b)
        assert got == want, text[:300]
        np.testing.assert_array_equal(a, b, err_msg=text[:300])
        refused += want[0] is not None and entry[0] == backends._SKIA_UNPROVEN
    assert unproven > 200 and refused > 80, (unproven, refused)
