"""Hostile policy outputs: reward 0 with a named reason, never an exception (brief; spec §3, §10).

Time and memory bounds come from the implementation (parse limits checked before parsing,
linear-time extraction); there are no timed assertions here, but every case runs.
"""

from __future__ import annotations

import json

import pytest
from spec_docs import TARGET, make_task, sub

from vector_gym.rewards.spec import score, score_response

TASK = make_task()
NS = 'xmlns="http://www.w3.org/2000/svg"'


def test_external_entity_is_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    text = f'<!DOCTYPE svg [<!ENTITY x SYSTEM "file://{secret}">]><svg {NS}><text>&x;</text></svg>'
    for parity in (False, True):
        r = score(TASK, text, parity)
        assert r.reward == 0.0 and r.detail == ("entity_declaration",) and not r.produced_parse_ok
        assert "TOP-SECRET" not in repr(r.to_dict())


def test_entity_expansion_bomb():
    lol = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
    r = score(TASK, f"<!DOCTYPE svg [{lol}]><svg {NS}><text>&l9;</text></svg>")
    assert r.reward == 0.0 and r.detail == ("entity_declaration",)


def test_fifty_megabyte_response():
    huge = f"<svg {NS}>" + "<g/>" * (50 * 1024 * 1024 // 4) + "</svg>"
    r = score(TASK, huge)
    assert r.reward == 0.0 and r.detail == ("too_large",) and not r.exact
    r = score_response(TASK, "Here you go:\n" + huge)
    assert r.reward == 0.0 and "too_large" in r.detail


@pytest.mark.parametrize("parity", [False, True])
def test_response_over_the_length_cap_is_not_extracted(parity, monkeypatch):
    # Review F1: 48 MB of backticks took ~2 s in parity mode because the reference extraction
    # scanned it before any size check. A response over MAX_RESPONSE_CHARS (4 MiB) now scores
    # "too_large" without extraction; one at the cap is extracted and scored as usual.
    import vector_gym.rewards.spec as spec

    assert spec.MAX_RESPONSE_CHARS == 4 * 1024 * 1024
    padded = TARGET + " " * (spec.MAX_RESPONSE_CHARS - len(TARGET))
    assert score_response(TASK, padded, parity).reward == 1.0  # at the cap: the target passes

    def boom(*args, **kwargs):
        raise AssertionError("extract_svg must not run on an oversized response")

    monkeypatch.setattr(spec, "extract_svg", boom)
    for huge in (padded + " ", "`" * (48 << 20)):
        r = score_response(TASK, huge, parity)
        assert r.reward == 0.0 and r.detail == ("too_large",) and r.status == "INVALID"
        assert r.failure_reasons == (
            "invalid_svg",
            "requested_repairs_incomplete",
            "unintended_document_changes",
        )
        assert not r.produced_parse_ok and not r.exact and r.unintended_change_rate == 1.0
        # the same verdict as an SVG over the produced-SVG parse limit
        oversized_svg = f"<svg {NS}>" + " " * (1 << 18) + "</svg>"
        assert r.to_dict() == score(TASK, oversized_svg, parity).to_dict()


def test_ten_thousand_nested_groups():
    deep = f"<svg {NS}>" + "<g>" * 10_000 + "</g>" * 10_000 + "</svg>"
    r = score(TASK, deep)
    assert r.reward == 0.0 and r.detail == ("too_deep",)


@pytest.mark.parametrize("parity", [False, True])
def test_nan_and_infinity_path_coordinates(parity):
    produced = sub(TARGET, "</svg>", '<path d="M NaN 0 L Infinity 10"/></svg>')
    r = score(TASK, produced, parity)
    assert r.reward == 0.0 and "invalid_path_syntax" in r.detail


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-inf", "1e999"])
@pytest.mark.parametrize("parity", [False, True])
def test_non_finite_requested_coordinate(value, parity):
    r = score(TASK, sub(TARGET, 'x="30"', f'x="{value}"'), parity)
    if parity:
        assert r.reward == 0.0 and r.failure_reasons == ("requested_repairs_incomplete",)
    else:  # default mode: not an SVG number in a numeric attribute, a named validity failure
        assert r.reward == 0.0 and r.failure_reasons[0] == "invalid_svg"
        assert r.detail == ("invalid_number",)
    json.dumps(r.to_dict(), allow_nan=False)  # no NaN/inf float anywhere in the report dict


def test_invalid_utf8_bytes():
    r = score(TASK, b"<svg>\xff\xfe</svg>")
    assert r.reward == 0.0 and r.detail == ("invalid_utf8",)
    ok = score(TASK, TARGET.encode("utf-8"))  # valid UTF-8 bytes are scored normally
    assert ok.reward == 1.0


def test_lone_surrogate_string():
    r = score(TASK, f"<svg {NS}>\ud800</svg>")
    assert r.reward == 0.0 and r.detail == ("invalid_utf8",)


@pytest.mark.parametrize("junk", ["", "   ", "no svg here", "<svg", "```svg\n<svg", "\x00\x01"])
def test_junk_responses(junk):
    r = score_response(TASK, junk)
    assert r.reward == 0.0 and r.failure_reasons[0] == "invalid_svg"


def test_no_svg_found():
    # Brief: the default extraction finds no SVG → reward 0, failure_reasons ("invalid_svg",),
    # detail "no_svg_found".
    r = score_response(TASK, "I cannot help with that.")
    assert (r.reward, r.failure_reasons, r.detail) == (0.0, ("invalid_svg",), ("no_svg_found",))


def test_not_text():
    r = score(TASK, 12345)  # type: ignore[arg-type]
    assert r.reward == 0.0 and r.detail == ("not_text",)


def test_provider_error_defaults():
    # §12: reward 0, every pass flag false, ratios 0.0, UCR 1.0, status ERR.
    r = score(TASK, None)
    assert r.status == "ERR" and r.detail == ("provider_error",) and r.unintended_change_rate == 1.0
    assert (r.edit_completion, r.repair_progress, r.preservation, r.source_preservation) == (
        0.0,
        0.0,
        0.0,
        0.0,
    )
    assert not any(
        (r.validity_pass, r.repair_pass, r.preservation_pass, r.near_pass, r.exact, r.structural)
    )


@pytest.mark.parametrize("parity", [False, True])
def test_overflowing_points(parity):
    # (1e308 − 10)² overflows a double: the RMS becomes inf instead of raising (spec §8.7).
    target = sub(TARGET, "</svg>", '<polygon id="tri" points="0,0 10,0 10,10"/></svg>')
    edit = {
        "part": "tri",
        "attribute": "points",
        "before": [[0, 0], [12, 0], [12, 12]],
        "after": [[0, 0], [10, 0], [10, 10]],
    }
    task = make_task(target=target, source=target, edits=[edit])
    r = score(task, sub(target, 'points="0,0 10,0 10,10"', 'points="1e308,0 10,0 10,10"'), parity)
    assert r.reward == 0.0 and not r.checks[0].passed


def test_many_unique_paths():
    # 8,000 distinct path strings (near the 256 KiB limit of a produced SVG, PRODUCED_LIMITS):
    # linear work, reward 0 (side effects).
    paths = "".join(f'<path d="M0 0 L{i} {i}"/>' for i in range(8_000))
    assert 200_000 < len(paths) < 250_000
    r = score(TASK, sub(TARGET, "</svg>", paths + "</svg>"))
    assert r.reward == 0.0 and r.validity_pass and not r.preservation_pass


def test_random_mutations_never_raise():
    # Fuzz: random SVG-ish edits of bundled targets and sources score without raising, and
    # every report serialises to strict JSON (no NaN). Fixed seed, both modes.
    import random

    from vector_gym.tasks.vector_bench import load_vector_bench

    tasks = load_vector_bench()
    alphabet = ['"', "<", ">", "/", "=", " ", "#", "url(#", ")", ";", ":", "nan", "1e999", "-", ".",
                ",", "M", "Z", "A", "0", "1", "\u00a0", "&amp;", 'id="x" ', "<g>", "</g>", 'href="#']  # fmt: skip
    rng = random.Random(20261129)
    for _ in range(150):
        task = rng.choice(tasks)
        text = rng.choice([task.target_svg, task.source_svg])
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(text))
            tok = rng.choice(alphabet)
            text = rng.choice(
                [text[:i] + tok + text[i:], text[:i] + text[i + rng.randint(1, 20) :]]
            )
        for parity in (False, True):
            r = score(task, text, parity)
            json.dumps(r.to_dict(), allow_nan=False)
            assert r.reward in (0.0, 1.0)


@pytest.mark.parametrize("parity", [False, True])
def test_many_attributes_on_one_element(parity):
    # lxml's items() is quadratic in the attribute count: 24,000 attributes took seconds (200,000
    # took minutes) before to_node read attribute-heavy elements through XPath (review R1).
    # Unrequested attributes are side effects.
    many = " ".join(f'a{i:x}="1"' for i in range(24_000))
    r = score(TASK, sub(TARGET, "<svg ", f"<svg {many} "), parity)
    assert r.reward == 0.0 and r.validity_pass and not r.preservation_pass
    assert r.failure_reasons == ("unintended_document_changes",)


def test_report_cache_is_bounded_across_scorers():
    # Review R1: each scorer used to keep 256 reports keyed by outputs of up to 1 MiB, and up to
    # 4,096 scorers are cached, so distinct large outputs over many tasks grew without bound.
    # The report cache is now one LRU owned by the response scorer, bounded in bytes (issue 9).
    from vector_gym.rewards.spec import SpecRewardScorer

    scorer = SpecRewardScorer(cache_bytes=8 << 20)
    pad = "x" * 200_000
    for i in range(10):
        task = make_task(task_id=f"cache-{i}")
        outs = [f"<svg {NS}><desc>{i}-{j}{pad}</desc></svg>" for j in range(10)]
        scorer.score_many([task] * len(outs), outs)
    assert 0 < scorer.cache.nbytes <= 8 << 20
    assert len(scorer.cache) == (8 << 20) // len(outs[0])  # entries of ~200 KB each fit the bound
    again = scorer.score_response(TASK, TARGET)
    assert scorer.score_response(TASK, TARGET) is again  # repeated outputs are served from the cache


@pytest.mark.parametrize("parity", [False, True])
def test_produced_svg_size_limit(parity):
    # Review R1: at the generic 4 MB parse limit one path of 1,000,000 segments cost ~620 MB and
    # 100,000 arcs ~9 s; a produced SVG is limited to 256 KiB (PRODUCED_LIMITS).
    from vector_gym.rewards.spec import PRODUCED_LIMITS

    assert PRODUCED_LIMITS.max_bytes == 1 << 18
    arcs = "a1 2 0 0 1 1 1" * 19_000  # 266,000 characters
    r = score(TASK, sub(TARGET, "</svg>", f'<path d="M0 0{arcs}"/></svg>'), parity)
    assert r.reward == 0.0 and r.detail == ("too_large",) and not r.produced_parse_ok
    r = score(TASK, sub(TARGET, "</svg>", f'<path d="M0 0{arcs[:140_000]}"/></svg>'), parity)
    assert r.produced_parse_ok and r.validity_pass and "too_large" not in r.detail


@pytest.mark.parametrize("parity", [False, True])
def test_produced_svg_limit_scales_with_the_task(parity):
    # Issue 16 item 3: a fixed 256 KiB limit rejected the correct answer of any task whose
    # target is larger (about 2,600 Vector-Bench-sized elements) as too_large. The limit is now
    # 4x the larger of source and target, with the 256 KiB floor and a hard ceiling.
    from vector_gym.rewards.spec import PRODUCED_LIMITS, PRODUCED_MAX_BYTES, SpecScorer

    rows = "".join(
        f'<rect id="r{i}" x="{i % 97}" y="{i % 89}" width="3" height="4" fill="#{i % 4096:03x}"/>'
        for i in range(5_000)
    )
    target = sub(TARGET, "</svg>", rows + "</svg>")
    size = len(target.encode("utf-8"))
    assert size > PRODUCED_LIMITS.max_bytes  # ~330 KB: over the old fixed limit
    task = make_task(target=target, source=target.replace('x="30"', 'x="10"', 1))
    scorer = SpecScorer(task, parity)
    assert scorer.produced_limits.max_bytes == 4 * size
    r = scorer.score(target)
    assert r.reward == 1.0 and r.produced_parse_ok and "too_large" not in r.detail
    # 4x the task is still a hard bound: one byte more is too_large, before parsing
    over = sub(target, "</svg>", "<desc>" + "x" * (4 * size - size) + "</desc></svg>")
    r = scorer.score(over)
    assert r.reward == 0.0 and r.detail == ("too_large",) and not r.produced_parse_ok
    # small tasks keep the floor; the ceiling is the generic parse limit of any document
    assert SpecScorer(TASK, parity).produced_limits == PRODUCED_LIMITS
    from vector_gym.rewards.spec import produced_limits

    assert produced_limits("<svg/>", "<svg/>").max_bytes == 1 << 18
    assert produced_limits("a" * 100_000, "b" * 70_000).max_bytes == 400_000
    assert produced_limits("a" * 1_500_000, "").max_bytes == PRODUCED_MAX_BYTES == 4_000_000


@pytest.mark.parametrize("depth", [127, 128, 129])
def test_scorer_and_renderer_share_one_depth_limit(depth):
    # Issue 10: a document the scorer accepts is one the renderer's precheck accepts, and the
    # reverse (the scorer used to take 200 levels, the renderer 128).
    from vector_gym.render.precheck import RenderRejected, check_tree
    from vector_gym.svg.parse import MAX_DEPTH

    doc = f"<svg {NS}>" + "<g>" * (depth - 1) + "</g>" * (depth - 1) + "</svg>"
    scored = score(make_task(), doc)
    try:
        check_tree(doc)
        rendered = True
    except RenderRejected:
        rendered = False
    assert rendered == (depth <= MAX_DEPTH) == ("too_deep" not in scored.detail)


@pytest.mark.parametrize("style", ["fill:" + "(" * 100_000, "fill:" + "{[" * 50_000, "a:b(" * 30_000])
@pytest.mark.parametrize("parity", [False, True])
def test_deeply_nested_style_value_is_a_named_failure(style, parity):
    # Review of issue 10: tinycss2 serialises nested blocks recursively, so a style value of
    # 100,000 "(" raised RecursionError out of score() in default mode.
    r = score(TASK, sub(TARGET, 'fill="#6a1a1a"', f'style="{style}"'), parity)
    assert r.reward == 0.0
    if parity:  # the reference's own ';'/':' split reads it as a (changed) fill: §4.5, §5.2
        assert r.failure_reasons == ("unintended_document_changes",)
    else:
        assert r.failure_reasons[0] == "invalid_svg" and r.detail == ("invalid_attribute_syntax",)


@pytest.mark.parametrize("number", ["1e999", "-1e400", "1E99999999999"])
def test_overflowing_path_number_is_invalid_in_default_mode(number):
    # Review of issue 10: x="1e999" was invalid_number but d="M1e999 0" passed validity
    # (the path grammar read it as +inf) and scored 1 against itself.
    produced = sub(TARGET, "</svg>", f'<path d="M{number} 0 L 10 10"/></svg>')
    r = score(TASK, produced)
    assert r.reward == 0.0 and r.failure_reasons[0] == "invalid_svg"
    assert r.detail == ("invalid_path_syntax",)
    target_task = make_task(target=produced, source=produced, edits=[], protected=[])
    assert score(target_task, produced).reward == 0.0


def _use_fanout(levels: int) -> str:
    """A target whose ``<defs>`` fan out: each level uses the one below 10 times (10**levels)."""
    defs = "".join(
        f'<g id="f{i + 1}">' + f'<use href="#f{i}"/>' * 10 + "</g>" for i in range(levels)
    )
    return sub(TARGET, "</defs>", f'<rect id="f0" width="1" height="1"/>{defs}</defs><use href="#f{levels}"/>')


def test_use_fanout_bomb_is_invalid_by_the_renderers_limit():
    # Issue 10 "Left": one <use> expansion limit for scorer and renderer (svg.parse). 10**9
    # elements after expansion (the renderer's use_expansion case): validity fails by name,
    # counting stops at the limit, in both the answer and a whole response; the same document
    # under the limit stays valid.
    from vector_gym.render import RenderLimits, render_one
    from vector_gym.svg.parse import MAX_USE_EXPANSION, USE_EXPANSION

    assert RenderLimits().max_use_expansion == MAX_USE_EXPANSION == 200_000
    bomb = _use_fanout(9)
    assert render_one(bomb, (8, 8), processes=0)[1] == USE_EXPANSION
    r = score(TASK, bomb)
    assert r.reward == 0.0 and not r.validity_pass and r.detail == (USE_EXPANSION,)
    assert r.failure_reasons[0] == "invalid_svg" and r.status == "INVALID"
    assert score_response(TASK, "```svg\n" + bomb + "\n```").detail == (USE_EXPANSION,)
    # parity keeps the reference's verdict (it never expands <use>: reference_dialect.py item 8)
    assert USE_EXPANSION not in score(TASK, bomb, parity=True).detail
    fine = _use_fanout(4)  # 10**4 elements after expansion
    assert render_one(fine, (8, 8), processes=0)[1] is None
    assert score(TASK, fine).validity_pass

PATH_TARGET = TARGET.replace("</svg>", '<path id="curve" d="M10 10 L50 50"/></svg>')
PATH_SOURCE = PATH_TARGET.replace("L50 50", "L60 40")
PATH_TASK = make_task(
    target=PATH_TARGET,
    source=PATH_SOURCE,
    edits=[{"part": "curve", "attribute": "d", "before": "M10 10 L60 40", "after": "M10 10 L50 50"}],
    protected=["keep"],
)


@pytest.mark.parametrize(
    "d",
    [
        "M0 0 L1e200 1e200",  # a line whose squared length overflows a float
        "M1e200 0 L0 0 Z",  # the closing line of Z
        "M0 0 H1e200 V1e200",
        "M0 0 Q1e200 0 1e200 1e200",  # a quadratic's closed form
        "M0 0 Q1e200 0 0 0",  # the collinear fallback
        "M0 0 C1e200 0 0 1e200 1 1",
        "M0 0 A1e200 1e200 0 0 1 1e200 0",
    ],
)
@pytest.mark.parametrize("parity", [False, True])
@pytest.mark.filterwarnings("error")
def test_huge_finite_path_coordinates(d, parity):
    # Coordinates near 1e200 are finite SVG numbers, but Python's float ``**`` raised
    # OverflowError out of the line and quadratic lengths (the reference crashes the same way).
    # Nor may numpy warn on the way (squares overflowing to inf in D(A, B)): a trainer running
    # with warnings as errors would get an exception instead of the report.
    r = score(PATH_TASK, PATH_TARGET.replace("M10 10 L50 50", d), parity)
    assert r.reward == 0.0 and r.repair_pass is False
    (check,) = r.checks
    assert check.comparison == "path-shape" and check.passed is False
    json.dumps(r.to_dict(), allow_nan=False)


@pytest.mark.parametrize("parity", [False, True])
def test_reports_without_a_tree_are_shared_per_failure_kind(parity):
    # An output that gives no tree scores to a report that depends only on its detail codes and
    # the §11.2 exact match, built once per such pair: repeated, reordered or recomputed after
    # the store is emptied, every report is the same; texts that fold to the target (an XML
    # declaration after leading whitespace is not well-formed) keep exact=True apart.
    from vector_gym.rewards.spec import SpecScorer

    target = '<?xml version="1.0"?>' + TARGET
    scorer = SpecScorer(make_task(target=target, source=target), parity=parity)
    too_long = "x" * (scorer.produced_limits.max_bytes + 1)
    outputs = ["", "   ", "<svg><g></svg>", "<svg", b"\xff\xfe", 42, " " + target, "\n" + target, too_long]
    first = [scorer.score(o) for o in outputs]
    again = [scorer.score(o) for o in outputs]
    scorer._unparsed.clear()
    fresh = [scorer.score(o) for o in reversed(outputs)][::-1]
    assert first == again == fresh
    assert [r.exact for r in first] == [False] * 6 + [True, True, False]
    assert [r.detail for r in first[:6]] == [("empty",), ("empty",), ("not_well_formed",),
                                             ("not_well_formed",), ("invalid_utf8",), ("not_text",)]  # fmt: skip
    assert first[8].detail == ("too_large",) and first[6].detail == ("not_well_formed",)
    assert first[0] is first[1] and first[2] is first[3] and first[6] is first[7]
    assert first[3] is not first[6] and all(r.reward == 0.0 and not r.produced_parse_ok for r in first)
