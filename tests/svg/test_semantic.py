"""Tests of the semantic form V(S) and alias alignment (spec-reward.md §5; §17 behaviours)."""

from __future__ import annotations

from vector_gym.svg.canonical import to_node
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.semantic import (
    aliases,
    semantic_attributes,
    semantic_differences,
    semantic_equal,
    semantic_form,
    semantic_text,
)

NS = 'xmlns="http://www.w3.org/2000/svg"'


def tree(text: str):
    return to_node(parse_svg(text))


def v_equal(a: str, b: str) -> bool:
    return semantic_equal(tree(a), tree(b))


GRAD = (
    "<svg " + NS + '><defs><linearGradient id="{g}"><stop offset="0" stop-color="#000"/>'
    '</linearGradient></defs><circle id="c" r="5" fill="{ref}"/></svg>'
)


def test_renamed_gradient_with_updated_url_is_v_equal():
    # §17: renaming a gradient and updating url(...) (quoted #id inside) → V-equal.
    a = GRAD.format(g="paint", ref="url(#paint)")
    b = GRAD.format(g="gradient", ref="url('#gradient')")
    assert v_equal(a, b)


def test_renamed_gradient_with_stale_url_is_not_v_equal():
    # §17: renaming the gradient but leaving the old url(#paint) → not V-equal.
    a = GRAD.format(g="paint", ref="url(#paint)")
    b = GRAD.format(g="gradient", ref="url(#paint)")
    assert not v_equal(a, b)


def test_alias_walk_stops_at_child_count_mismatch():
    # §5.1: the node keeps its token, its children get none.
    p = tree(f'<svg {NS}><g id="g1"><rect id="a"/></g></svg>')
    t = tree(f'<svg {NS}><g id="g2"><rect id="b"/><rect id="c"/></g></svg>')
    assert aliases(p, t) == ({"g1": "@0"}, {"g2": "@0"})


def test_style_overrides_attribute_and_ids_aria_are_dropped():
    # §5.2 consequences: fill="#000" style="fill:#6a1a1a" ≡ fill="#6a1a1a"; id/aria-* invisible.
    assert v_equal(
        f'<svg {NS}><rect fill="#000" style="fill:#6a1a1a"/></svg>',
        f'<svg {NS}><rect id="r" aria-label="box" fill="#6A1A1A"/></svg>',
    )
    # data-*, class and camelCase spellings count.
    assert not v_equal(f"<svg {NS}><rect/></svg>", f'<svg {NS}><rect data-k="1"/></svg>')
    assert not v_equal(
        f'<svg {NS}><rect stroke-width="2"/></svg>', f'<svg {NS}><rect strokeWidth="2"/></svg>'
    )


def test_xlink_href_equals_href_in_v():
    # §5.2 / §16 item 14: equal in V (different in C).
    xl = 'xmlns:xlink="http://www.w3.org/1999/xlink"'
    a = f'<svg {NS} {xl}><rect id="k"/><use href="#k"/></svg>'
    b = f'<svg {NS} {xl}><rect id="k"/><use xlink:href="#k"/></svg>'
    assert v_equal(a, b)


def test_malformed_style_is_one_invalid_entry():
    n = tree(f'<svg {NS} style="fill red"/>')
    assert list(semantic_attributes(n, {})) == ["style"]


def test_style_element_text_uses_aliases():
    # §5.4: '#id' in <style> text is replaced by the alias token.
    a = f'<svg {NS}><style>#a {{ fill: red }}</style><rect id="a"/></svg>'
    b = f'<svg {NS}><style>#b {{ fill: red }}</style><rect id="b"/></svg>'
    assert v_equal(a, b)


def test_strictness():
    # §5.3: added <title>, wrapper <g>, added root attribute and element order all differ.
    base = f"<svg {NS}><rect/><circle/></svg>"
    assert not v_equal(base, f"<svg {NS}><title>t</title><rect/><circle/></svg>")
    assert not v_equal(base, f'<svg {NS} width="10"><rect/><circle/></svg>')
    assert not v_equal(base, f"<svg {NS}><circle/><rect/></svg>")
    assert not v_equal(base, f"<svg {NS}><g><rect/></g><circle/></svg>")


def test_difference_labels():
    # §11.2 labels: id, else __svg, else parent-label/tag[index]; +id/-id on a count mismatch.
    t = tree(f'<svg {NS}><g id="g"><rect/><rect id="k"/></g><line/></svg>')
    p = tree(f'<svg {NS}><g id="g"><rect x="1"/><rect id="k"/></g><line x1="2"/></svg>')
    assert semantic_differences(p, t) == ["g/rect[0]", "__svg/line[1]"]
    p2 = tree(f'<svg {NS}><g id="g"><rect/><rect id="k"/><circle id="new"/></g><line/></svg>')
    assert semantic_differences(p2, t) == ["+new"]
    p3 = tree(f'<svg {NS}><g id="g"><rect/></g><line/></svg>')
    assert semantic_differences(p3, t) == ["-k"]
    assert semantic_differences(None, t) == ["__document__"]


def test_semantic_form():
    text = f'<svg {NS}><defs><linearGradient id="p"/></defs><rect id="r" style="fill:url(#p)" fill="red"/></svg>'
    assert semantic_form(tree(text)).splitlines() == [
        "<{http://www.w3.org/2000/svg}svg>",
        "  <{http://www.w3.org/2000/svg}defs>",
        "    <{http://www.w3.org/2000/svg}linearGradient>",
        '  <{http://www.w3.org/2000/svg}rect fill="url(@0/0)">',
    ]


def test_style_text_longest_id_first():
    # §5.4: longest IDs first, so "#ab" is not read as "#a" + "b".
    n = tree(f"<style {NS}>#ab{{}} #a{{}} #abc{{}}</style>")
    assert semantic_text(n, {"a": "@1", "ab": "@2"}) == "@2{} @1{} @2c{}"


def test_style_text_many_ids_is_bounded():
    # Hostile: thousands of IDs and a long <style> text; the pass is linear per '#', not per ID.
    ids = {f"id{i}": f"@{i}" for i in range(5000)}
    n = tree(f"<style {NS}>" + "#id1{fill:red} " * 20000 + "</style>")
    assert semantic_text(n, ids).startswith("@1{fill:red} @1{fill:red}")


def test_differences_and_canonical_equal_in_one_walk():
    # The fused walk gives semantic_differences' labels and canonical_equal's verdict on the
    # same pairs: every bundled target and source against each other and against edited copies
    # (attribute values respelled or changed, whitespace in text and tails, children added or
    # removed, tags renamed), in both dialects.
    import random

    from vector_gym.svg.canonical import REFERENCE, SVG2, canonical_equal, parse_node
    from vector_gym.svg.semantic import (
        lazy_aliases,
        semantic_differences,
        semantic_differences_and_canonical_equal,
    )
    from vector_gym.tasks.vector_bench import load_vector_bench

    rng = random.Random(3)
    edits = [
        ('fill="', 'fill=" '), ("<rect ", "<rect opacity='1' "), ("</g>", "<circle r='1'/></g>"),
        ('="0"', '="0.0"'), ('="1"', '="2"'), ("<g ", "<path d='M0 0'/><g "), (">\n", ">  \n"),
        ("<path ", "<line "), ("#", "#0"), ("/>", "> t </path>"),
    ]  # fmt: skip
    docs = []
    for task in load_vector_bench():
        docs += [task.source_svg, task.target_svg]
    pairs = [(a, b) for a in docs[:8] for b in docs[:8]]
    for doc in docs:
        for _ in range(6):
            old, new = rng.choice(edits)
            pairs.append((doc.replace(old, new, rng.randint(1, 3)), doc))
    seen = {True: 0, False: 0}
    for dialect in (SVG2, REFERENCE):
        for a, b in pairs:
            try:
                p = parse_node(a, dialect=dialect)[0]
                t = parse_node(b, dialect=dialect)[0]
            except Exception:
                continue
            ap, at = lazy_aliases(p, t)
            labels, c_eq = semantic_differences_and_canonical_equal(p, t, ap, at)
            assert labels == semantic_differences(p, t, ap, at)
            assert c_eq == canonical_equal(p, t)
            seen[c_eq] += 1
    assert seen[True] > 20 and seen[False] > 200


def test_semantic_maps_read_through_the_c_map_equal_the_normalised_values():
    """_base_svg2 takes N(key, value) from a node's C map when the validity gate made one: on
    every element of the bundled outputs and task documents (after check_validity, as the
    reward runs), the V map and reference keys equal those normalised afresh, and the C map is
    really used (a wrong C map value shows up in the V map)."""

    from bundled_texts import vector_bench_texts

    from vector_gym.rewards._spec_validity import check_validity
    from vector_gym.svg.canonical import SVG2, parse_node
    from vector_gym.svg.semantic import _base_svg2

    texts = vector_bench_texts()
    checked = 0
    for text in texts:
        try:
            top, nodes, keys = parse_node(text, None, SVG2, blank_text=False)
        except Exception:
            continue
        check_validity(top, False, nodes, keys)
        for node in nodes:
            assert node._c is not None
            fast = _base_svg2(node)
            c = node._c
            node._c = None
            slow = _base_svg2(node)
            node._c = c
            assert fast == slow
            assert list(fast[0]) == list(slow[0])
            checked += 1
    assert checked > 20000
    node = next(n for n in nodes if "fill" in n.attrib)
    node._c = dict(node._c, fill="#123456")
    assert _base_svg2(node)[0]["fill"] == "#123456"
