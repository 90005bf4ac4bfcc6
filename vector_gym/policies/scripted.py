"""A scripted SVGEditBench v1 baseline: read the prompt, edit the SVG text.

The V2 authors note that simple heuristics solve the rule-based v1 tasks; this policy is
that heuristic, written as plain text edits (no model, no target):

* ChangeColor: every occurrence of the prompt's fill value becomes the colour keyword;
* SetContour: every start tag whose own ``fill`` attribute equals the prompt's value gets
  ``stroke="black" stroke-width="1"`` (existing stroke attributes of that tag replaced);
* Compression: :func:`minify_svg` (whitespace between tags dropped, numbers rounded to
  ``decimals`` places and written without redundant zeros, ``version``/``xml:space``
  attributes, comments and the XML declaration dropped);
* UpSideDown: ``transform="translate(0,2y+h) scale(1,-1)"`` on the root (viewBox
  ``x y w h``);
* Transparency: ``opacity="0.5"`` on the root;
* CropToHalf: the root viewBox width halved.

Observations that are not v1 prompts are answered with the source SVG unchanged; the
``scripted`` factory (``eval --policy scripted``) refuses a task list without a v1 prompt.
Layer 5: imports only :mod:`vector_gym.tasks` (for the prompt grammar).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from vector_gym.errors import ConfigError
from vector_gym.policies.base import Completion
from vector_gym.tasks.svgeditbench import parse_v1_prompt

__all__ = ["ScriptedV1Policy", "edit_v1", "minify_svg"]

_ROOT_TAG = re.compile(r"<svg\b[^>]*>")
_START_TAG = re.compile(r"<[A-Za-z][^<>]*>")
_VIEWBOX = re.compile(r'\sviewBox\s*=\s*(["\'])([^"\']*)\1')
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _fmt(value: float) -> str:
    text = f"{value:.10g}"
    return "0" if text == "-0" else text


def _set_root_attribute(svg: str, name: str, value: str, prepend_to_existing: bool = False) -> str:
    m = _ROOT_TAG.search(svg)
    if m is None:
        return svg
    tag = m.group(0)
    attr = re.compile(r"\s" + re.escape(name) + r'\s*=\s*(["\'])([^"\']*)\1')
    am = attr.search(tag)
    if am is not None:
        new_value = f"{value} {am.group(2)}" if prepend_to_existing and am.group(2).strip() else value
        tag = tag[: am.start()] + f' {name}="{new_value}"' + tag[am.end() :]
    else:
        end = len(tag) - (2 if tag.endswith("/>") else 1)
        tag = tag[:end] + f' {name}="{value}"' + tag[end:]
    return svg[: m.start()] + tag + svg[m.end() :]


def _viewbox(svg: str) -> tuple[float, float, float, float] | None:
    m = _ROOT_TAG.search(svg)
    if m is None:
        return None
    vb = _VIEWBOX.search(m.group(0))
    if vb is None:
        return None
    parts = [p for p in re.split(r"[\s,]+", vb.group(2).strip()) if p]
    try:
        x, y, w, h = (float(p) for p in parts)
    except ValueError:
        return None
    return x, y, w, h


def _add_contour(svg: str, fill: str) -> str:
    fill_attr = re.compile(r'\sfill\s*=\s*(["\'])' + re.escape(fill) + r"\1")
    stroke_attrs = re.compile(r'\sstroke(?:-width)?\s*=\s*(["\'])[^"\']*\1')

    def repl(m: re.Match[str]) -> str:
        tag = m.group(0)
        if not fill_attr.search(tag):
            return tag
        tag = stroke_attrs.sub("", tag)
        end = len(tag) - (2 if tag.endswith("/>") else 1)
        return tag[:end] + ' stroke="black" stroke-width="1"' + tag[end:]

    return _START_TAG.sub(repl, svg)


def minify_svg(svg: str, decimals: int = 2) -> str:
    """Return a smaller SVG text that renders (almost) the same.

    Numbers in the geometry and presentation attributes are rounded to ``decimals``
    places (0.01 user units is 1/3,600 of a Twemoji box) and written without leading or
    trailing zeros; whitespace between tags, comments and the XML declaration are dropped.

    Examples
    --------
    >>> minify_svg('<svg xmlns="http://www.w3.org/2000/svg">\\n  <path d="M 0.500 10.004 L -0.25,3"/>\\n</svg>')
    '<svg xmlns="http://www.w3.org/2000/svg"><path d="M.5 10L-.25 3"/></svg>'
    """
    text = re.sub(r"<\?xml[^>]*\?>", "", svg)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r">\s+<", "><", text).strip()

    def short(num: str) -> str:
        v = round(float(num), decimals)
        s = f"{v:.{decimals}f}".rstrip("0").rstrip(".") if decimals > 0 else str(int(v))
        if s in ("-0", ""):
            s = "0"
        if s.startswith("0.") and len(s) > 2:
            s = s[1:]
        elif s.startswith("-0.") and len(s) > 3:
            s = "-" + s[2:]
        return s

    def compact_numbers(value: str) -> str:
        out = _NUMBER.sub(lambda m: " " + short(m.group(0)), value)
        out = re.sub(r"\s*,\s*", " ", out)
        out = re.sub(r"\s+", " ", out).strip()
        out = re.sub(r" (?=-)", "", out)  # "1 -2" -> "1-2"
        out = re.sub(r"([A-Za-z]) ", r"\1", out)  # "M 1" -> "M1"
        out = re.sub(r" ([A-Za-z])", r"\1", out)  # "1 L" -> "1L"
        out = re.sub(r"(\.\d+) (?=\.)", r"\1", out)  # ".5 .5" -> ".5.5"
        return out

    def attr_repl(m: re.Match[str]) -> str:
        name, q, value = m.group(1), m.group(2), m.group(3)
        if name in ("d", "points"):
            value = compact_numbers(value)
        elif name in ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height", "stroke-width", "opacity", "fill-opacity"):
            if _NUMBER.fullmatch(value.strip()):
                value = short(value.strip())
        elif name == "transform":
            value = re.sub(r"\(([^)]*)\)", lambda t: "(" + compact_numbers(t.group(1)).replace(" ", ",").replace(",-", "-") + ")", value)
            value = re.sub(r"\)\s+", ")", value)
        return f" {name}={q}{value}{q}"

    text = re.sub(r'\s([A-Za-z_:][\w:.-]*)\s*=\s*(["\'])(.*?)\2', attr_repl, text, flags=re.S)
    text = re.sub(r'\s(?:version|xml:space)="[^"]*"', "", text)
    return text


def edit_v1(prompt: str, svg: str | None = None) -> str:
    """Answer one v1 prompt with the edited SVG text (the source unchanged if not a v1 prompt).

    Parameters
    ----------
    prompt : str
        The v1 prompt (which embeds the source SVG).
    svg : str, optional
        The source SVG; defaults to the one inside the prompt.

    Returns
    -------
    str
        The edited SVG (no Markdown).
    """
    parsed = parse_v1_prompt(prompt)
    if svg is None:
        svg = parsed.source_svg if parsed is not None else ""
    if parsed is None:
        return svg
    kind = parsed.kind
    if kind == "ChangeColor" and parsed.fill and parsed.color:
        return svg.replace(parsed.fill, parsed.color)
    if kind == "SetContour" and parsed.fill:
        return _add_contour(svg, parsed.fill)
    if kind == "Compression":
        small = minify_svg(svg)
        return small if len(small) < len(svg) else svg
    if kind == "Transparency":
        return _set_root_attribute(svg, "opacity", "0.5")
    vb = _viewbox(svg)
    if vb is None:
        return svg
    x, y, w, h = vb
    if kind == "UpSideDown":
        return _set_root_attribute(svg, "transform", f"translate(0,{_fmt(2 * y + h)}) scale(1,-1)", prepend_to_existing=True)
    if kind == "CropToHalf":
        return _set_root_attribute(svg, "viewBox", f"{_fmt(x)} {_fmt(y)} {_fmt(w / 2)} {_fmt(h)}")
    return svg


class ScriptedV1Policy:
    """Scripted SVGEditBench v1 baseline (see the module docstring).

    Examples
    --------
    >>> from vector_gym.tasks.svgeditbench import v1_prompt
    >>> src = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><path fill="#FFF" d="M0 0h9v9z"/></svg>'
    >>> obs = {"instruction": v1_prompt("ChangeColor", src, "box", "#FFF", "red"), "svg": src}
    >>> ScriptedV1Policy().generate([obs])[0][0].text
    '```svg\\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><path fill="red" d="M0 0h9v9z"/></svg>\\n```'
    """

    name = "scripted"

    def generate(self, observations: Sequence[Mapping[str, Any]], n: int = 1) -> list[list[Completion]]:
        """Answer each observation with ``n`` copies of the edited SVG in a ```` ```svg ```` block."""
        if not isinstance(n, int) or n < 1:
            raise ConfigError(f"n: expected an int >= 1, got {n!r}")
        out = []
        for obs in observations:
            svg = edit_v1(str(obs.get("instruction", "")), obs.get("svg"))
            text = "```svg\n" + svg + "\n```"
            out.append([Completion(text=text, finish_reason="stop") for _ in range(n)])
        return out


def _make_scripted(arg: str | None, tasks: Sequence[Any]) -> ScriptedV1Policy:
    """Build the baseline; refuse tasks it has no script for (it would answer the source)."""
    if arg:
        raise ConfigError(f"policy 'scripted' takes no argument, got scripted:{arg}")
    tasks = list(tasks)
    if tasks and not any(parse_v1_prompt(str(getattr(t, "instruction", ""))) for t in tasks):
        raise ConfigError(
            f"policy 'scripted' is the SVGEditBench v1 baseline and has a script for none of the "
            f"{len(tasks)} tasks (not v1 prompts; it would answer every one with the source "
            "unchanged): use it with --env svgeditbench-v1, or use --policy identity for that control"
        )
    return ScriptedV1Policy()
