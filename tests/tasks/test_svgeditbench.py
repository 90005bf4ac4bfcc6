"""Tests of vector_gym.tasks.svgeditbench (v1 cases, v1 generator, V2 triplets, emoji names).

Counts and transformation rules: ``data/svgeditbench_v1/README.md`` and
``data/svgeditbench_v2/README.md``; emoji names: ``metrics-svgeditbench.md`` "CLIPScore"
(upstream ``src/emojinames.py``, SVGEditBenchV2 7e7879a).
"""

from __future__ import annotations

from collections import Counter

import pytest

from vector_gym.errors import ConfigError
from vector_gym.tasks.svgeditbench import (
    V1_KINDS,
    SVGEditBenchV1Config,
    SVGEditBenchV1Generator,
    apply_v1_edit,
    codepoint_name,
    distinct_fills,
    emoji_name,
    load_svgeditbench_v1,
    load_svgeditbench_v2,
    parse_v1_prompt,
    v1_prompt,
)

SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
    '<path fill="#FFCC4D" d="M0 0h36v36H0z"/><g fill="#000"><circle cx="9" cy="9" r="3"/></g>'
    '<path d="M1 1h3v3z" fill="#FFCC4D"/></svg>'
)


def test_v1_counts_and_fields():
    """600 cases, 100 per kind, ordered by kind (v1 README, "File")."""
    tasks = load_svgeditbench_v1()
    assert len(tasks) == 600
    assert Counter(t.meta()["edit_kind"] for t in tasks) == {k: 100 for k in V1_KINDS}
    assert [t.meta()["edit_kind"] for t in tasks[::100]] == list(V1_KINDS)
    t = tasks[0]
    assert t.task_id == "ChangeColor/1f199"
    assert t.family == "svgeditbench-v1"
    assert t.meta()["emoji_name"] == "squared up with exclamation mark"
    assert t.meta()["fill"] == "#FFF" and t.meta()["color"] == "red"
    assert t.source_svg in t.instruction
    assert len({t.task_id for t in tasks}) == 600
    assert len(load_svgeditbench_v1(kinds=("CropToHalf",))) == 100


def test_v1_answers_regenerate_byte_for_byte():
    """Every answer is reproduced from its source and the prompt's choices (v1 README:
    "All 600 answers reproduce exactly")."""
    for t in load_svgeditbench_v1():
        m = t.meta()
        assert apply_v1_edit(t.source_svg, m["edit_kind"], m["fill"], m["color"]) == t.target_svg, t.task_id
        assert v1_prompt(m["edit_kind"], t.source_svg, m["emoji_name"], m["fill"], m["color"]) == t.instruction


def test_v1_edit_kinds_by_hand():
    """Hand-computed answers for the rules of v1 README "The six transformations"."""
    assert apply_v1_edit(SVG, "Compression") == SVG
    assert apply_v1_edit(SVG, "ChangeColor", "#FFCC4D", "blue") == SVG.replace("#FFCC4D", "blue")
    contour = apply_v1_edit(SVG, "SetContour", "#FFCC4D")
    assert contour.count('stroke="black" stroke-width="1"') == 2
    assert '<circle cx="9" cy="9" r="3" />' in contour  # inherits only: untouched, ET layout
    assert apply_v1_edit(SVG, "UpSideDown").startswith(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36" transform="translate(0,36) scale(1,-1)">'
    )
    assert 'opacity="0.5"' in apply_v1_edit(SVG, "Transparency")
    assert 'viewBox="0 0 18 36"' in apply_v1_edit(SVG, "CropToHalf")
    # non-Twemoji boxes: H = 2*y + h, half width
    other = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 10 128 100"/>'
    assert 'transform="translate(0,120) scale(1,-1)"' in apply_v1_edit(other, "UpSideDown")
    assert 'viewBox="0 10 64 100"' in apply_v1_edit(other, "CropToHalf")
    with pytest.raises(ConfigError):
        apply_v1_edit('<svg xmlns="http://www.w3.org/2000/svg"/>', "CropToHalf")
    with pytest.raises(ConfigError):
        apply_v1_edit(SVG, "Rotate")
    with pytest.raises(ConfigError):
        apply_v1_edit("<svg", "UpSideDown")


def test_distinct_fills_and_prompt_roundtrip():
    assert distinct_fills(SVG) == ("#FFCC4D", "#000")
    p = parse_v1_prompt(v1_prompt("SetContour", SVG, "grinning face", "#000"))
    assert (p.kind, p.fill, p.color, p.source_svg) == ("SetContour", "#000", None, SVG)
    assert parse_v1_prompt("The following code is nothing") is None


def test_v1_generator_is_pure_in_seed_and_idx():
    gen = SVGEditBenchV1Generator([("a", SVG), ("b", SVG.replace("#000", "#123"))], seed=7)
    tasks = [gen[i] for i in range(30)]
    assert [t.to_dict() for t in tasks] == [SVGEditBenchV1Generator(gen.sources, seed=7)[i].to_dict() for i in range(30)]
    assert gen[0].to_dict() != SVGEditBenchV1Generator(gen.sources, seed=8)[0].to_dict() or gen[1].to_dict() != SVGEditBenchV1Generator(gen.sources, seed=8)[1].to_dict()
    assert {t.meta()["edit_kind"] for t in tasks} == set(V1_KINDS)
    for t in tasks:
        m = t.meta()
        assert (m["seed"], m["generator"]) == (7, "svgeditbench-v1")
        p = parse_v1_prompt(t.instruction)
        assert p.kind == m["edit_kind"] and p.source_svg == t.source_svg
        # the target is recomputable from what the prompt says
        assert apply_v1_edit(t.source_svg, p.kind, p.fill, p.color) == t.target_svg
    with pytest.raises(ConfigError):
        SVGEditBenchV1Config(kinds=("Nope",))
    with pytest.raises(ConfigError):
        SVGEditBenchV1Generator([])


def test_v1_generator_on_bundled_sources_reproduces_kinds():
    """Generating from the 100 bundled sources: each drawn target equals the bundled answer
    whenever the same kind, fill and colour were drawn for the same emoji."""
    v1 = load_svgeditbench_v1()
    by_key = {(t.meta()["edit_kind"], t.source_svg, t.meta()["fill"], t.meta()["color"]): t.target_svg for t in v1}
    sources = sorted({(t.meta()["emoji_name"], t.source_svg) for t in v1})
    gen = SVGEditBenchV1Generator(sources, SVGEditBenchV1Config(kinds=("Compression", "UpSideDown", "Transparency", "CropToHalf")), seed=0)
    for i in range(40):
        t = gen[i]
        m = t.meta()
        assert by_key[(m["edit_kind"], t.source_svg, None, None)] == t.target_svg


def test_v2_counts_and_names():
    """1,683 triplets, 2,201 distinct SVGs (V2 README, "Counts")."""
    tasks = load_svgeditbench_v2()
    assert len(tasks) == 1683
    assert tasks[0].task_id == "v2-0000"
    assert tasks[0].instruction == "Rotate the hour hand to 8 and the minute hand to 12."
    assert tasks[0].meta()["target_name"] == "eight oclock"
    assert len({t.meta()["before_name"] for t in tasks} | {t.meta()["after_name"] for t in tasks}) == 2201
    assert Counter(t.meta()["before_source"] for t in tasks)["twemoji"] == 499
    assert all(t.meta()["target_name"] for t in tasks)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("noto-emoji_emoji_u1f552.svg", "CLOCK FACE THREE OCLOCK"),  # metrics doc example
        ("twemoji_1f552.svg", "CLOCK FACE THREE OCLOCK"),
        ("fluentui_flat_eight_oclock_flat.svg", "eight oclock"),  # metrics doc example
        ("fluentui_highcontrast_eight_oclock_high_contrast.svg", "eight oclock"),
        ("twemoji_2a-20e3.svg", "keycap: ASTERISK"),  # keycaps are not ZWJ sequences
        ("noto-emoji_emoji_u0031_20e3.svg", "keycap: DIGIT ONE"),
        ("twemoji_2764-fe0f-200d-1f525.svg", "heart on fire"),  # emoji-zwj-sequences.txt 16.0
        ("twemoji_1f468-200d-1f469-200d-1f466.svg", "family: man, woman, boy"),
        ("noto-emoji_emoji_u1f471_200d_2640.svg", "PERSON WITH BLOND HAIR + FEMALE SIGN"),  # not RGI
        ("twemoji_1f574-fe0f-200d-2642-fe0f.svg", "MAN IN BUSINESS SUIT LEVITATING + MALE SIGN"),
        ("noto-emoji_emoji_u1fa75.svg", "LIGHT BLUE HEART"),  # Unicode 15.0
    ],
)
def test_emoji_name(name, expected):
    assert emoji_name(name) == expected


def test_emoji_name_errors():
    with pytest.raises(ValueError):
        emoji_name("other_1f600.svg")
    with pytest.raises(ValueError):
        codepoint_name(["e000"])
    with pytest.raises(ValueError):
        codepoint_name(["1f600", "1f600"])


def test_v1_edit_sources_go_through_parse_svg_limits():
    # Issue 10: the v1 edit reader used a bare ElementTree parse that bypassed parse_svg's
    # limits; a nesting bomb or an entity declaration is now refused like everywhere else.
    from vector_gym.errors import ConfigError
    from vector_gym.tasks.svgeditbench import apply_v1_edit

    ns = 'xmlns="http://www.w3.org/2000/svg"'
    deep = f"<svg {ns}>" + "<g>" * 200 + "</g>" * 200 + "</svg>"
    bomb = f'<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg {ns}><text>&a;</text></svg>'
    for text in (deep, bomb):
        with pytest.raises(ConfigError, match="source_svg"):
            apply_v1_edit(text, "CropToHalf")
