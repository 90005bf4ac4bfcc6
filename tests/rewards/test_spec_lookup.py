"""Locating parts, reading produced values and masking (spec-reward.md §6, §7, §8.4, §9)."""

from __future__ import annotations

import pytest
from spec_docs import TARGET, make_task, sub

from vector_gym.rewards._spec_lookup import IdIndex, corresponding, read_value
from vector_gym.rewards._spec_mask import mask_produced, style_remove, style_set, target_states
from vector_gym.rewards.spec import score
from vector_gym.svg.canonical import REFERENCE, Node, to_node
from vector_gym.svg.parse import parse_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


def node(markup: str) -> Node:
    return to_node(parse_svg(markup))


# -- §7 reading order ----------------------------------------------------------------------------


# Each row: markup, attribute, the reference's reading (parity, spec §7), default mode's reading
# (issue 10: the SVG 2 / CSS grammars of vector_gym.svg).
@pytest.mark.parametrize(
    ("markup", "attr", "ref", "svg2"),
    [
        ('<rect x=" 12.50 "/>', "x", 12.5, 12.5),  # step 10, scalar reading (folded, float)
        ('<rect x="12.0"/>', "x", 12, 12),  # integral → int
        ('<rect x="10px"/>', "x", "10px", 10),  # reference: not a number; SVG 2: px = user units
        ('<rect x="10mm"/>', "x", "10mm", "10mm"),  # other units stay text in both
        ('<rect style="x: 5; x: 7" x="9"/>', "x", 5, 7),  # first declaration vs CSS last-wins
        ('<rect style="x: 5 !important; x: 7"/>', "x", "5 !important", 5),  # !important
        ('<rect style="X: 5" x="9"/>', "x", 9, 5),  # reference case-sensitive; CSS names are not
        ('<g transform="translate(4, 6)"/>', "y", 6, 6),  # step 6: translate
        ('<g transform="translate(4)"/>', "y", 0, 0),  # ty absent → 0
        ('<g transform="translate(1e1)"/>', "x", None, 10),  # step-5 grammar: no exponent
        ('<g transform="translate(3)" style="x:9"/>', "x", 3, 3),  # translate beats style
        ('<rect strokeWidth="2"/>', "stroke-width", 2, 2),  # step 11: camelCase
        ('<rect style="color: Red "/>', "color", "Red", "Red"),  # step 8: raw trimmed value
        ('<polygon points="1,2 3,4"/>', "points", [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]),
        ('<polygon points="1,2 3.5.5"/>', "points", None, [[1.0, 2.0], [3.5, 0.5]]),  # packed
        ('<polygon points="1,2 3,x"/>', "points", None, None),  # conversion failure → missing
        ('<svg viewBox="0,0 10 20"/>', "viewBox", [0.0, 0.0, 10.0, 20.0], [0.0, 0.0, 10.0, 20.0]),
        ('<g transform="scale(0.5)"/>', "size", 12.0, 12.0),  # step 5: round(24·k, 4)
        ('<rect x="1_0"/>', "x", 10, "1_0"),  # Python float() quirk [parity][bug]; not a number
        ('<rect x="\uff11\uff10"/>', "x", 10, "\uff11\uff10"),  # §15 Unicode digits; SVG: ASCII
    ],
)
@pytest.mark.parametrize("parity", [True, False], ids=["parity", "default"])
def test_read_value(markup, attr, ref, svg2, parity):
    expected = ref if parity else svg2
    got = read_value(node(markup), attr, parity)
    assert got == expected and type(got) is type(expected)


def test_corresponding_positional_fallback():
    # §6: a renamed element is found through the same child-index path...
    t = IdIndex(node(f'<svg {NS}><g><rect id="a"/></g><circle/></svg>'))
    p = IdIndex(node(f'<svg {NS}><g><rect id="b"/></g><circle/></svg>'))
    assert corresponding(p, t, "a").attrib == {"id": "b"}
    # ...but one extra sibling anywhere on the path makes it unfindable.
    p2 = IdIndex(node(f'<svg {NS}><g><rect id="b"/></g><circle/><line/></svg>'))
    assert corresponding(p2, t, "a") is None
    # and the final tags must match.
    p3 = IdIndex(node(f'<svg {NS}><g><circle id="b"/></g><circle/></svg>'))
    assert corresponding(p3, t, "a") is None


# -- §8.4 progress corner ---------------------------------------------------------------------------


def test_passing_check_with_zero_baseline_has_zero_progress():
    # §8.4: δ ≤ 1e-9 → q = 1 if d ≤ 1e-9 else 0, so a passing check with before == after can
    # have q = 0; t = min(c, f) = 0.75 (§8.2).
    task = make_task(
        source=TARGET, edits=[{"part": "box", "attribute": "x", "before": 30, "after": 30}]
    )
    c = score(task, sub(TARGET, 'x="30"', 'x="30.5"')).checks[0]
    assert (c.passed, c.tolerance, c.progress) == (True, 0.75, 0.0)


def test_unknown_baseline():
    # §8.4: δ unknown → q = 1 if d ≤ 1e-9, else undefined; t = cap.
    task = make_task(
        source=TARGET, edits=[{"part": "box", "attribute": "x", "before": "?", "after": 30}]
    )
    c = score(task, sub(TARGET, 'x="30"', 'x="31"')).checks[0]
    assert (c.passed, c.tolerance, c.baseline_distance, c.progress) == (True, 5.0, None, None)


# -- §9 masking ----------------------------------------------------------------------------------------


def test_style_remove_and_set():
    # §9 STYLE_REMOVE / STYLE_SET (parity trees): tolerant reader, entries re-joined sorted by name.
    n = to_node(parse_svg('<rect style="stroke: red; fill:blue ;Fill:x"/>'), dialect=REFERENCE)
    style_remove(n, "fill")
    assert n.attrib["style"] == "Fill:x;stroke:red"
    style_set(n, "fill", "#fff")
    assert n.attrib["style"] == "Fill:x;fill:#fff;stroke:red"
    untouched = to_node(parse_svg('<rect style="a : b"/>'), dialect=REFERENCE)
    style_remove(untouched, "fill")
    assert untouched.attrib["style"] == "a : b"  # key absent → byte-for-byte untouched
    # Default-mode trees: CSS reading, so every declaration of the property goes, any case.
    n = node('<rect style="stroke: red; fill:blue ;Fill:x !important"/>')
    style_remove(n, "fill")
    assert n.attrib["style"] == "stroke:red"
    untouched = node('<rect style="a : b"/>')
    style_remove(untouched, "fill")
    assert untouched.attrib["style"] == "a : b"


def test_mask_copies_target_spelling_and_style():
    # §9: the produced field is replaced by the target's raw value, from the same storage.
    target = node(f'<svg {NS}><rect id="r" strokeWidth="2" style="fill:red"/></svg>')
    produced = node(
        f'<svg {NS}><rect id="r" stroke-width="9" style="fill: blue; opacity: 1"/></svg>'
    )
    edits = [
        make_task(
            edits=[{"part": "r", "attribute": "stroke-width", "before": 1, "after": 2}]
        ).requested_edits[0],
        make_task(
            edits=[{"part": "r", "attribute": "fill", "before": "blue", "after": "red"}]
        ).requested_edits[0],
    ]
    mask_produced(produced, edits, target_states(target, edits))
    assert produced.children[0].attrib == {
        "id": "r",
        "style": "fill:red;opacity:1",
        "strokeWidth": "2",
    }


def test_mask_removes_inserted_node_with_tail():
    # §9 REMOVE: the node goes with its tail text.
    target = node(f'<svg {NS}><rect id="n"/>tail<circle/></svg>')
    edits = make_task(
        edits=[{"part": "n", "attribute": "exists", "before": False, "after": True}]
    ).requested_edits
    states = target_states(target, edits)
    assert len(states[-1].root.children) == 1 and states[-1].root.text == ""
    produced = node(f'<svg {NS}><rect id="n"/>tail<circle/></svg>')
    mask_produced(produced, edits, states)
    assert [c.tag.split("}")[1] for c in produced.children] == ["circle"]
    assert "tail" not in produced.text + "".join(c.tail for c in produced.children)


def test_exact_string_match():
    # §11.2: exact = whitespace-folded strings equal (attribute order matters).
    task = make_task()
    assert score(task, "  " + TARGET.replace("\n", "\n\n ")).exact
    swapped = sub(TARGET, 'x="30" y="10"', 'y="10" x="30"')
    r = score(task, swapped)
    assert not r.exact and r.structural and r.reward == 1.0


@pytest.mark.parametrize("parity", [False, True])
def test_exact_folds_every_python_whitespace(parity):
    # fold_ws is str.split(): the ASCII separators \x0b \x0c \x1c-\x1f and NBSP are whitespace
    # too, so these spellings are exact; moving a separator inside a token is not.
    task = make_task()
    for ws in ("\x0b", "\x0c", "\x1c", "\x1f", "\u00a0", "\u2003"):
        assert score(task, TARGET.replace(" ", ws + " ", 3), parity).exact, repr(ws)
    assert score(task, "\u00a0" + TARGET, parity).exact
    moved = sub(TARGET, 'x="30" y="10"', 'x="30"y ="10"')  # same characters, other tokens
    assert not score(task, moved, parity).exact


def test_default_masking_removes_what_the_default_lookup_reads():
    # Issue 10: in default mode ``FILL:`` in style is the fill (CSS names are case-insensitive),
    # so masking must remove it too; a wrong fill there fails the edit but is not also blamed on
    # unintended changes, and a right one passes.
    wrong = sub(TARGET, 'fill="#6a1a1a"', 'style="FILL: #000000"')
    r = score(make_task(edits=[{"part": "box", "attribute": "fill", "before": "#000000",
                                "after": "#6a1a1a"}]), wrong)  # fmt: skip
    assert not r.repair_pass and r.preservation_pass
    right = sub(TARGET, 'fill="#6a1a1a"', 'style="FILL: #6A1A1A !important"')
    r = score(make_task(edits=[{"part": "box", "attribute": "fill", "before": "#000000",
                                "after": "#6a1a1a"}]), right)  # fmt: skip
    assert r.reward == 1.0
