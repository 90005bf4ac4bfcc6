"""The validity gate and parse failures (spec-reward.md §3, §10, §17, §18)."""

from __future__ import annotations

import pytest
from spec_docs import TARGET, make_task, sub

from vector_gym.rewards.spec import score

TASK = make_task()
NS = 'xmlns="http://www.w3.org/2000/svg"'


def with_extra(markup: str) -> str:
    return sub(TARGET, "</svg>", markup + "</svg>")


INVALID = {
    # §17 "Validity" list, each with its detail code (vector_gym.rewards.failures).
    "duplicate-id": (sub(TARGET, 'id="stop"', 'id="keep"'), "duplicate_id"),
    "path-bare-command": (with_extra('<path d="M0 0 L"/>'), "invalid_path_syntax"),
    "odd-points": (with_extra('<polyline points="0,0 10"/>'), "odd_points"),
    "zero-width-viewbox": (with_extra('<svg viewBox="0 0 0 10"/>'), "invalid_viewbox"),
    "url-missing": (with_extra('<rect fill="url(#missing)"/>'), "unresolved_reference"),
    "url-quoted-missing": (with_extra("<rect fill='url(\"#missing\")'/>"), "unresolved_reference"),
    "href-missing": (with_extra('<use href="#missing"/>'), "unresolved_reference"),
    "href-empty-fragment": (with_extra('<use href="#"/>'), "unresolved_reference"),
    "empty-id": (with_extra('<rect id=""/>'), "empty_id"),
    "empty-viewbox": (with_extra('<svg viewBox=""/>'), "invalid_viewbox"),
    "bad-transform": (with_extra('<g transform="rotate(1 2)"/>'), "invalid_attribute_syntax"),
    "bad-style": (with_extra('<g style="fill red"/>'), "invalid_attribute_syntax"),
    "root-not-svg": (TARGET.replace("<svg ", "<SVG ").replace("</svg>", "</SVG>"), "not_svg_root"),
    # §18 paths
    "missing-argument": (with_extra('<path d="M0 0 L1"/>'), "invalid_path_syntax"),
    "z-first": (with_extra('<path d="Z"/>'), "invalid_path_syntax"),  # reference crash (§16 item 8)
    "z-before-moveto": (with_extra('<path d="L10 10 Z"/>'), "invalid_path_syntax"),
    "arc-flag-2": (with_extra('<path d="M0 0 A5 5 0 2 1 10 10"/>'), "invalid_path_syntax"),
    "nbsp-in-path": (with_extra('<path d="M0\u00a00 L1 1"/>'), "invalid_path_syntax"),
    "style-url-missing": (with_extra('<rect style="fill:url(#nope)"/>'), "unresolved_reference"),
    "style-element-url-missing": (
        with_extra("<style>rect { fill: url(#nope) }</style>"),
        "unresolved_reference",
    ),
}


@pytest.mark.parametrize("parity", [False, True], ids=["default", "parity"])
@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid(case, parity):
    produced, code = INVALID[case]
    r = score(TASK, produced, parity)
    assert r.produced_parse_ok and not r.validity_pass and r.reward == 0.0
    assert r.failure_reasons[0] == "invalid_svg" and r.status == "INVALID"
    assert code in r.detail
    assert all(not c.passed and c.progress == 0.0 for c in r.checks)  # §8.1: invalid → q 0


VALID = {
    # §17: a resolved quoted reference to an existing filter.
    "quoted-filter-reference": with_extra(
        '<filter id="shadow"/><rect filter="url(&quot;#shadow&quot;)"/>'
    ),
    # §18 paths / §10.
    "signed-packing": with_extra('<path d="M0 0-1-1"/>'),
    "no-moveto": with_extra('<path d="L 10 10"/>'),
    "moveto-only": with_extra('<path d="M 10 10"/>'),
    "empty-d": with_extra('<path d=""/>'),
    "forward-reference": sub(TARGET, "<defs>", '<rect fill="url(#later)"/><defs>').replace(
        "</svg>", '<pattern id="later"/></svg>'
    ),
    "external-href": with_extra('<use href="other.svg#x"/>'),
    "unknown-element-and-attribute": with_extra('<blob wibble="?"/>'),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid(case):
    r = score(TASK, VALID[case])
    assert r.validity_pass, r.detail


def test_truncated_repeat_valid_only_in_parity():
    # §10 / §16 item 22: "M0 0 1 1 1" and "M10 10 L30 30 5 L90 90" pass in parity, fail by default.
    for d in ("M0 0 1 1 1", "M10 10 L30 30 5 L90 90"):
        produced = with_extra(f'<path d="{d}"/>')
        assert score(TASK, produced, parity=True).validity_pass
        assert not score(TASK, produced).validity_pass


def test_malformed_output():
    # §17: <svg><g></svg> → reward 0, not parsed, completion 0, UCR 1.0.
    r = score(TASK, "<svg><g></svg>")
    assert (r.reward, r.produced_parse_ok, r.edit_completion, r.unintended_change_rate) == (
        0.0,
        False,
        0.0,
        1.0,
    )
    assert r.detail == ("not_well_formed",)
    assert r.failure_reasons == (
        "invalid_svg",
        "requested_repairs_incomplete",
        "unintended_document_changes",
    )


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("\n<?xml version='1.0'?>" + TARGET, False),  # §18: declaration not at position 0
        (f"<svg {NS}>&nbsp;</svg>", False),  # §18: undefined HTML entity
        ("\ufeff" + TARGET, True),  # §18: BOM + svg parses
        ("<?xml version='1.0' encoding='latin-1'?>" + TARGET, True),  # §3: any declared encoding
        ("   " + TARGET, True),  # §3: leading whitespace without a declaration
        (TARGET + "<svg/>", False),  # §3: two top-level elements
        (f"<svg {NS}><a:b/></svg>", False),  # §3: undeclared prefix
        (f'<svg {NS} x="1" x="2"/>', False),  # §3: duplicate attribute
        ("", False),
    ],
)
def test_parse_cases(text, parsed):
    assert score(TASK, text).produced_parse_ok is parsed


def test_viewport_fallback_for_unit_width():
    # §18 / §8.3: target width="300px" → 100×100 fallback, so the x cap is max(0.75, 0.025·100) = 2.5.
    target = TARGET.replace(' viewBox="0 0 200 100"', ' width="300px" height="50"')
    task = make_task(target=target, source=sub(target, 'x="30"', 'x="10"'))
    r = score(task, sub(target, 'x="30"', 'x="32"'))
    assert r.checks[0].tolerance == 2.5 and r.checks[0].passed


@pytest.mark.parametrize(
    "d", ["M0.5.5 L1 1", "M1.5.5", "M2e1.5 1e1 1", "M-.5.5.5 0"]
)
def test_packed_numbers_valid_only_in_default(d):
    # Issue 10: packed numbers and compact arc flags are SVG 2 path grammar and the path reader
    # parses them, so default-mode validity agrees; the reference's token stream (§4.3) rejects
    # two unsigned numbers without a separator, which parity keeps.
    produced = with_extra(f'<path d="{d}"/>')
    assert score(TASK, produced).validity_pass
    r = score(TASK, produced, parity=True)
    assert not r.validity_pass and "invalid_path_syntax" in r.detail


def test_every_svgeditbench_v2_target_the_path_reader_parses_is_valid():
    # Issue 10: 433 of the 1,683 V2 targets hold packed numbers (``M1.5.5``, ``2e1.5``) that the
    # path reader parses; validity used to reject them. Now validity agrees with the reader.
    import re

    from vector_gym.rewards._spec_validity import check_validity
    from vector_gym.svg.canonical import REFERENCE, SVG2, to_node
    from vector_gym.svg.parse import parse_svg
    from vector_gym.svg.path_data import path_syntax_ok
    from vector_gym.tasks.svgeditbench import load_svgeditbench_v2

    tasks = load_svgeditbench_v2()
    packed = re.compile(r'\sd="[^"]*(?:\.[0-9]+\.[0-9]|[eE][+-]?[0-9]+\.[0-9])')
    n_packed = n_checked = 0
    failing, parity_rejects = [], 0
    for task in tasks:
        root = parse_svg(task.target_svg)
        if not all(path_syntax_ok(d) for d in root.xpath("//@d")):
            continue
        n_checked += 1
        is_packed = packed.search(task.target_svg) is not None
        n_packed += is_packed
        valid, detail, _ = check_validity(to_node(root, dialect=SVG2), False)
        if not valid:
            failing.append((task.task_id, detail))
        if is_packed and not check_validity(to_node(root, dialect=REFERENCE), True)[0]:
            parity_rejects += 1
    assert not failing, failing[:5]
    assert n_checked == len(tasks) and n_packed == 433  # all 1,683 parse; 433 are packed
    assert parity_rejects == n_packed  # the reference's token stream still rejects every one


@pytest.mark.parametrize(
    "body",
    [
        '<rect id="a"/><use href="#a"/><use href="#a"/>',
        '<g id="a"><rect/><circle/></g><g id="b"><use href="#a"/><use href="#a"/></g>'
        '<use href="#b"/><use xlink:href="#b" href="#a"/><use href="#missing"/>',
        '<defs><rect id="f0"/>'
        + "".join(f'<g id="f{i + 1}">' + f'<use href="#f{i}"/>' * 3 + "</g>" for i in range(5))
        + '</defs><use href="#f5"/><use href="#f3"/>',
    ],
)
def test_use_expansion_counts_as_the_renderer_counts(body):
    # One limit, one count: the scorer's gate flips exactly where the renderer's count does.
    from vector_gym.rewards._spec_validity import check_validity, use_expansion_over
    from vector_gym.svg.canonical import SVG2, to_node
    from vector_gym.svg.normalise.bounds import use_expansion_count
    from vector_gym.svg.parse import parse_svg
    from vector_gym.svg.references import local_href

    text = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
            f"{body}</svg>")
    n = use_expansion_count(parse_svg(text), 10**9)
    root = to_node(parse_svg(text), dialect=SVG2)
    _, _, by_id = check_validity(root, False)
    uses = []
    for node in _walk(root):
        if node.tag.endswith("}use"):
            h = node.attrib.get("href", node.attrib.get("{http://www.w3.org/1999/xlink}href"))
            if local_href(h):
                uses.append((node, local_href(h)))
    assert n > 5
    assert not use_expansion_over(root, by_id, uses, budget=n)
    assert use_expansion_over(root, by_id, uses, budget=n - 1)


def _walk(node):
    yield node
    for c in node.children:
        yield from _walk(c)
