"""Issue 10 property: spelling-only rewrites score 1, one changed drawn value scores 0 (default mode).

Documents: the bundled Vector-Bench targets (scored with their own requested edits E and
protected ids U, the target being the answer), the distinct SVGEditBench V2 and V1 targets and
RepairGen scenes (scored as tasks with no E and no U, so the reward is validity ∧ V-equality).
The rewrite re-spells every number (exponents, signs, trailing zeros, dropped leading zeros),
respaces and packs path data and number lists (``1.5.5``, ``2e1.5``, compact arc flags,
implicit repeated commands), respells every colour in another CSS Color 4 spelling, swaps
``xlink:href`` and ``href``, writes lengths with ``px`` and moves presentation attributes into
``style`` and back (only where no ``<style>`` sheet could change the cascade).
"""

from __future__ import annotations

import colorsys
import functools
import random
import re
from decimal import Decimal

import pytest
from lxml import etree

from vector_gym.rewards.spec import score
from vector_gym.svg.canonical import LENGTH_ATTRIBUTES, LENGTH_LIST_ATTRIBUTES, NUMBER_ATTRIBUTES
from vector_gym.svg.color import COLOR_ATTRIBUTES, parse_css_color
from vector_gym.svg.numbers import SVG_NUMBER_RE, parse_length, scan_numbers
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.path_data import PathSyntaxError, parse_path_data
from vector_gym.svg.references import XLINK_HREF
from vector_gym.svg.style import parse_style_declarations
from vector_gym.svg.transform import parse_transform
from vector_gym.tasks import load_vector_bench
from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator
from vector_gym.tasks.svgeditbench import load_svgeditbench_v1, load_svgeditbench_v2
from vector_gym.tasks.vector_bench import task_from_vector_bench

SVG_NS = "http://www.w3.org/2000/svg"
PRESENTATION = (
    "fill", "stroke", "stroke-width", "opacity", "fill-opacity", "stroke-opacity",
    "stroke-linecap", "stroke-linejoin", "stroke-miterlimit", "fill-rule", "stop-color",
    "stop-opacity", "display", "visibility",
)  # fmt: skip
N_DOCUMENTS = 2000


# -- spellings -----------------------------------------------------------------------------------


def respell_number(text: str, rng: random.Random) -> str:
    """Another spelling of the same decimal value (so the same IEEE double)."""
    d = Decimal(text)
    if d.is_zero():
        return rng.choice(["0", "0.0", "-0", "+0", ".0e5", "0e0"])
    sign, digits, exp = d.as_tuple()
    s = "-" if sign else ""
    mant = "".join(map(str, digits))
    plain = format(d, "f")
    choice = rng.randrange(6)
    if choice == 0:
        return f"{s}{mant}e{exp}"
    if choice == 1:
        return f"{s}{mant}E{'+' if exp >= 0 else ''}{exp}"
    if choice == 2:
        return (plain if "." in plain else plain + ".") + "00"
    if choice == 3 and plain.lstrip("-").startswith("0."):
        return plain.replace("0.", ".", 1)
    if choice == 4 and not sign:
        return "+" + plain
    return f"{s}{mant}0e{exp - 1}"


def float_text(x: float, rng: random.Random) -> str:
    return respell_number(repr(float(x)), rng)


def join_numbers(tokens: list[str], rng: random.Random, packable: list[bool] | None = None) -> str:
    """Join number tokens, dropping the separator wherever the grammar allows it."""
    out = [tokens[0]] if tokens else []
    for i in range(1, len(tokens)):
        a, b = tokens[i - 1], tokens[i]
        can_pack = b[0] in "+-" or (b[0] == "." and ("." in a or "e" in a.lower()))
        if packable is not None and packable[i]:
            can_pack = True
        if can_pack and rng.random() < 0.8:
            out.append(b)
        else:
            out.append(rng.choice([" ", ",", " , ", "\n", "  ", ", "]) + b)
    return "".join(out)


def respell_path(d: str, rng: random.Random) -> str:
    parsed = parse_path_data(d)
    pieces: list[str] = []
    prev = ""
    for cmd, args in zip(parsed.commands, parsed.args, strict=True):
        implicit_ok = prev == cmd or (prev == "M" and cmd == "L") or (prev == "m" and cmd == "l")
        prev = cmd
        if cmd in "Zz":
            pieces.append(cmd)
            continue
        if cmd in "Aa":
            rx, ry, rot, large, sweep, x, y = args
            toks = [float_text(rx, rng), float_text(ry, rng), float_text(rot, rng)]
            toks += [str(int(large)), str(int(sweep)), float_text(x, rng), float_text(y, rng)]
            packable = [False, False, False, False, True, True, False]  # after a flag: no separator
        else:
            toks = [float_text(v, rng) for v in args]
            packable = None
        body = join_numbers(toks, rng, packable)
        letter = "" if implicit_ok and rng.random() < 0.5 else cmd
        if not letter:
            pieces.append(rng.choice([" ", ","]) + body)
        else:
            pieces.append(letter + rng.choice(["", " ", "  "]) + body)
    text = ""
    for p in pieces:
        text += p if not text or rng.random() < 0.6 or p[0] in " ," else " " + p
    return text


def respell_list(value: str, rng: random.Random) -> str:
    nums = scan_numbers(value)
    if not nums:
        return value
    return rng.choice(["", " "]) + join_numbers([float_text(v, rng) for v in nums], rng)


def respell_transform(value: str, rng: random.Random) -> str:
    items = parse_transform(value)
    out = []
    for name, args in items:
        if name == "translate" and len(args) == 1 and rng.random() < 0.5:
            args = (args[0], 0.0)
        inner = join_numbers([float_text(v, rng) for v in args], rng)
        out.append(name + rng.choice(["", " "]) + "(" + rng.choice(["", " "]) + inner + ")")
    return rng.choice([" ", "", ",", " , "]).join(out) if out else value


@functools.lru_cache(maxsize=1)
def _names() -> dict[tuple[int, int, int], list[str]]:
    import tinycss2.color4 as c4

    out: dict[tuple[int, int, int], list[str]] = {}
    for name, _rgb in c4._BASIC_COLOR_KEYWORDS + c4._EXTENDED_COLOR_KEYWORDS:
        rgba = parse_css_color(name)
        out.setdefault(tuple(round(x * 255) for x in rgba[:3]), []).append(name)
    return out


def respell_color(value: str, rng: random.Random) -> str:
    v = value.strip()
    if v.lower() in ("none", "currentcolor"):
        return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in v)
    rgba = parse_css_color(v)
    if rgba is None:
        return value
    r, g, b, a = rgba
    ints = [round(c * 255) for c in (r, g, b)]
    if any(abs(c * 255 - i) > 1e-9 for c, i in zip((r, g, b), ints, strict=True)):
        return value  # not 8-bit: keep (none in the corpora)
    ri, gi, bi = ints
    alpha = "" if a == 1.0 else f" / {a!r}"
    options = [
        f"rgb({ri}, {gi},{bi})" if a == 1.0 else f"rgba({ri},{gi},{bi},{a!r})",
        f"rgb({ri} {gi} {bi}{alpha})",
        f"RGB({ri / 2.55:.10f}% {gi / 2.55:.10f}% {bi / 2.55:.10f}%{alpha})",
    ]
    h, light, s = colorsys.rgb_to_hls(r, g, b)
    options.append(f"hsl({h * 360:.10f}deg {s * 100:.10f}% {light * 100:.10f}%{alpha})")
    options.append(f"hsla({h:.12f}turn, {s * 100:.10f}%, {light * 100:.10f}%, {a!r})")
    if a == 1.0:
        options.append(f"#{ri:02X}{gi:02x}{bi:02X}")
        options.append(f"#{ri:02x}{gi:02x}{bi:02x}ff")
        if all(c % 17 == 0 for c in ints):
            options.append("#" + "".join(f"{c // 17:x}" for c in ints) + rng.choice(["", "F"]))
        for name in _names().get((ri, gi, bi), []):
            options.append(name.upper() if rng.random() < 0.5 else name.title())
    elif a == 0.0 and ints == [0, 0, 0]:
        options.append("Transparent")
    return rng.choice(options)


def respell_value(name: str, value: str, rng: random.Random) -> str:
    if name in COLOR_ATTRIBUTES and not value.strip().lower().startswith("url("):
        return respell_color(value, rng)
    if name == "d":
        try:
            return respell_path(value, rng)
        except PathSyntaxError:
            return value
    if name in ("points", "viewBox", "stroke-dasharray"):
        return respell_list(value, rng)
    if name == "transform":
        try:
            return respell_transform(value, rng)
        except ValueError:
            return value
    v = value.strip()
    if SVG_NUMBER_RE.fullmatch(v):
        if name in LENGTH_ATTRIBUTES and rng.random() < 0.3:
            return respell_number(v, rng) + rng.choice(["px", "PX"])
        return respell_number(v, rng)
    if name in LENGTH_ATTRIBUTES or name in LENGTH_LIST_ATTRIBUTES or name in NUMBER_ATTRIBUTES:
        length = parse_length(v)
        if length is not None and length[1] == "":
            return float_text(length[0], rng)
    return value


def rewrite(svg: str, seed: int) -> str:
    """A spelling-only rewrite of ``svg`` (module docstring)."""
    rng = random.Random(seed)
    root = parse_svg(svg)
    has_sheet = any(etree.QName(el).localname == "style" for el in root.iter("{*}style"))
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        attrib = el.attrib
        for key in list(attrib):
            if key[0] == "{" and key != XLINK_HREF:
                continue
            name = "href" if key == XLINK_HREF else key
            if name == "style":
                decls = parse_style_declarations(attrib[key])
                if decls is None:
                    continue
                parts = []
                for prop, val, imp in decls:
                    if (
                        not has_sheet
                        and not imp
                        and prop in PRESENTATION
                        and prop not in attrib
                        and len([1 for p, _, _ in decls if p == prop]) == 1
                        and rng.random() < 0.5
                    ):
                        attrib[prop] = respell_value(prop, val, rng)
                        continue
                    parts.append(f"{prop.upper() if rng.random() < 0.3 else prop}"
                                 f"{rng.choice([':', ': ', ' :'])}{respell_value(prop, val, rng)}"
                                 f"{' !important' if imp else ''}")
                if parts:
                    attrib["style"] = rng.choice([";", "; ", " ;"]).join(parts) + rng.choice(["", ";"])
                else:
                    del attrib["style"]
                continue
            attrib[key] = respell_value(name, attrib[key], rng)
        # xlink:href <-> href
        if XLINK_HREF in attrib and "href" not in attrib and rng.random() < 0.7:
            attrib["href"] = attrib.pop(XLINK_HREF)
        elif "href" in attrib and XLINK_HREF not in attrib and rng.random() < 0.5:
            attrib[XLINK_HREF] = attrib.pop("href")
        # presentation attribute -> style declaration
        if not has_sheet:
            style = attrib.get("style")
            decls = parse_style_declarations(style) if style is not None else ()
            if decls is not None:
                declared = {p for p, _, _ in decls}
                for prop in PRESENTATION:
                    if prop in attrib and prop not in declared and rng.random() < 0.4:
                        add = f"{prop}:{respell_value(prop, attrib.pop(prop), rng)}"
                        attrib["style"] = (attrib["style"] + ";" + add) if attrib.get("style") else add
    return etree.tostring(root, encoding="unicode")


_NUMBER_IN = re.compile(r"-?(?:[0-9]*\.[0-9]+|[0-9]+)")
_DRAWN = ("d", "points", "x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1",
          "x2", "y2", "fill", "stroke", "stop-color", "offset", "transform")  # fmt: skip


def change_one_value(svg: str, seed: int) -> str | None:
    """Change one number (+1) or one colour channel of a drawn attribute; None if none found."""
    rng = random.Random(seed)
    root = parse_svg(svg)
    sites = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for key, value in el.attrib.items():
            if key in _DRAWN and value.strip():
                sites.append((el, key))
    rng.shuffle(sites)
    for el, key in sites:
        value = el.attrib[key]
        if key in COLOR_ATTRIBUTES:
            rgba = parse_css_color(value)
            if rgba is None:
                continue
            c = [round(x * 255) for x in rgba[:3]]
            c[0] = c[0] + 1 if c[0] < 255 else c[0] - 1
            el.attrib[key] = f"#{c[0]:02x}{c[1]:02x}{c[2]:02x}"
            return etree.tostring(root, encoding="unicode")
        nums = list(_NUMBER_IN.finditer(value))
        if not nums:
            continue
        if key == "d":  # never an arc flag: change the last number of the path (an end point)
            m = nums[-1]
        else:
            m = rng.choice(nums)
        new = repr(float(m.group()) + 1.0)
        el.attrib[key] = value[: m.start()] + new + value[m.end() :]
        return etree.tostring(root, encoding="unicode")
    return None


# -- the corpus ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def documents() -> tuple[tuple[str, object], ...]:
    """(label, task) pairs: Vector-Bench tasks as they are, other targets as E = U = ∅ tasks."""
    out: list[tuple[str, object]] = [(t.task_id, t) for t in load_vector_bench()]
    seen = {t.target_svg for _, t in out}
    others = [t.target_svg for t in load_svgeditbench_v2()]
    gen = RepairGenerator(RepairGenConfig(split="all", min_repairs=1, max_repairs=2), seed=11)
    others += [gen[i].target_svg for i in range(120)]
    others += [t.target_svg for t in load_svgeditbench_v1()]
    for svg in others:
        if svg in seen:
            continue
        seen.add(svg)
        task = task_from_vector_bench(
            {
                "task_id": f"doc{len(out)}",
                "instruction": "Keep the drawing.",
                "initial_svg": svg,
                "target_svg": svg,
                "expected_diff": [],
                "should_preserve": [],
            }
        )
        out.append((f"doc{len(out)}", task))
        if len(out) == N_DOCUMENTS:
            break
    return tuple(out)


def _check(indices: range) -> None:
    docs = documents()
    bad_rewrite, bad_change, changed = [], [], 0
    for i in indices:
        label, task = docs[i]
        produced = rewrite(task.target_svg, seed=i)
        r = score(task, produced)
        if r.reward != 1.0:
            bad_rewrite.append((label, r.detail, r.unexpected_changed_parts[:3]))
        other = change_one_value(task.target_svg, seed=i)
        if other is None:
            continue
        changed += 1
        r = score(task, other)
        if r.reward != 0.0:
            bad_change.append(label)
    assert not bad_rewrite, bad_rewrite[:5]
    assert not bad_change, bad_change[:5]
    assert changed >= 0.95 * len(indices)


def test_corpus_size():
    docs = documents()
    assert len(docs) == N_DOCUMENTS
    assert sum(1 for label, _ in docs if not label.startswith("doc")) == 20


def test_rewrite_is_spelling_only_on_a_sample():
    # Every 10th document (200) in the quick suite; the full 2,000 in the slow test below.
    _check(range(0, N_DOCUMENTS, 10))


@pytest.mark.slow
def test_rewrite_is_spelling_only_on_2000_documents():
    _check(range(N_DOCUMENTS))


def test_rewriter_really_rewrites():
    # The property is only meaningful if the rewrite touches the spellings it claims to.
    svg = (
        f'<svg xmlns="{SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">'
        '<defs><path id="p" d="M10.5 0.5 L20 0.5 A20 20 0 0 1 30 0"/></defs>'
        '<use xlink:href="#p" fill="red" stroke-width="2"/></svg>'
    )
    seen_packed = seen_flags = seen_href = seen_color = False
    for seed in range(40):
        out = rewrite(svg, seed)
        assert score(task_from_vector_bench({
            "task_id": "t", "instruction": "", "initial_svg": svg, "target_svg": svg,
            "expected_diff": [], "should_preserve": [],
        }), out).reward == 1.0, out  # fmt: skip
        seen_packed |= bool(re.search(r"\d\.\d+\.\d", out))
        seen_flags |= bool(re.search(r"[Aa][^A-Za-z]*\s0(?:1|,1| 1)\S", out)) or "01" in out
        seen_href |= ' href="#p"' in out
        seen_color |= "fill=\"red\"" not in out
    assert seen_packed and seen_flags and seen_href and seen_color
