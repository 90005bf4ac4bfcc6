"""SVGEditBench (v1) and SVGEditBench V2 corpora, and the six v1 edit kinds for any SVG.

* :func:`load_svgeditbench_v1` returns the 600 bundled v1 cases (six rule-based edit
  kinds on the same 100 Twemoji emoji) as :class:`~vector_gym.tasks.task.Task` records of
  family ``"svgeditbench-v1"``. The instruction is the stored prompt (which already holds
  the source SVG), the target is the reference answer.
* :func:`apply_v1_edit` performs one v1 edit kind on any SVG exactly as the v1 answers
  were made (``data/svgeditbench_v1/README.md``, section "The six transformations"), and
  :class:`SVGEditBenchV1Generator` turns any SVG into a v1-style task, seeded with
  ``numpy.random.default_rng([seed, idx])``.
* :func:`load_svgeditbench_v2` returns the 1,683 V2 triplets (family
  ``"svgeditbench-v2"``); ``metadata["target_name"]`` is the after-emoji's name used by
  CLIPScore, computed by :func:`emoji_name` as the V2 evaluation defines it.

References
----------
Nishina & Matsui, *SVGEditBench*, CVPR 2024 Workshop GDUG, arXiv:2404.13710
(repository mti-lab/SVGEditBench 5744bd4). Nishina & Matsui, *SVGEditBench V2*,
arXiv:2502.19453 (repository mti-lab/SVGEditBenchV2 7e7879a; names:
``src/emojinames.py``); ``docs/metrics-svgeditbench.md``.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from vector_gym.errors import ConfigError, CorpusError, SVGParseError, UnknownTaskError
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.viewbox import parse_viewbox
from vector_gym.tasks.task import Task
from vector_gym.tasks.vector_bench import read_jsonl

__all__ = [
    "V1_FAMILY",
    "V2_FAMILY",
    "V1_KINDS",
    "V1_COLOR_KEYWORDS",
    "load_svgeditbench_v1",
    "load_svgeditbench_v2",
    "apply_v1_edit",
    "v1_prompt",
    "parse_v1_prompt",
    "V1Prompt",
    "distinct_fills",
    "SVGEditBenchV1Config",
    "SVGEditBenchV1Generator",
    "emoji_name",
    "codepoint_name",
]

V1_FAMILY = "svgeditbench-v1"
V2_FAMILY = "svgeditbench-v2"

#: The six v1 edit kinds, in the order of the v1 repository's folders (1_ChangeColor ...).
V1_KINDS = ("ChangeColor", "SetContour", "Compression", "UpSideDown", "Transparency", "CropToHalf")

#: The eight CSS colour keywords of v1 ChangeColor (v1 README, "ChangeColor").
V1_COLOR_KEYWORDS = ("red", "green", "blue", "yellow", "cyan", "magenta", "white", "black")

SVG_NS = "http://www.w3.org/2000/svg"

# ---------------------------------------------------------------------------------------
# v1 prompts (wording copied from the 600 stored prompts; one pattern per kind)
# ---------------------------------------------------------------------------------------

_V1_REQUEST = {
    "ChangeColor": "Please generate an SVG code that changes the part of the emoji with a {fill} color to {color}.",
    "SetContour": "Please generate an SVG code that draws a black line around the part of the emoji with a {fill} color.",
    "Compression": "Please generate a more compact SVG code that represents the same emoji.",
    "UpSideDown": "Please flip this emoji upside down.",
    "Transparency": "Please make this emoji transparent by half.",
    "CropToHalf": "Please trim the right half and keep the left half.",
}
_V1_HEAD = "The following code is the SVG code for the emoji '{name}'. "
_V1_TAIL = "\n```\n\nPlease respond in the following format. Only return the SVG code. \n\n```svg\n<svg>...</svg>\n```"

_V1_PROMPT_RE = re.compile(
    r"\AThe following code is the SVG code for the emoji '(?P<name>.*?)'\. (?P<request>[^\n]*)\n\n```svg\n",
    re.S,
)
_V1_FILL_RE = re.compile(r"with a (?P<fill>.+?) color(?: to (?P<color>[a-z]+))?\.\Z")


def v1_prompt(kind: str, source_svg: str, emoji: str, fill: str | None = None, color: str | None = None) -> str:
    """Build the v1 prompt for one edit kind, byte-identical to the stored prompts.

    Parameters
    ----------
    kind : str
        One of :data:`V1_KINDS`.
    source_svg : str
        The SVG shown to the model (embedded verbatim in a ```` ```svg ```` fence).
    emoji : str
        The emoji's lower-cased Unicode name (any short description for other SVGs).
    fill, color : str, optional
        The fill value (ChangeColor, SetContour) and the colour keyword (ChangeColor).

    Raises
    ------
    ConfigError
        Unknown kind, or a required ``fill``/``color`` is missing.
    """
    if kind not in _V1_REQUEST:
        raise ConfigError(f"kind: expected one of {V1_KINDS}, got {kind!r}")
    if kind in ("ChangeColor", "SetContour") and not fill:
        raise ConfigError(f"fill: {kind} needs the fill value to edit, got {fill!r}")
    if kind == "ChangeColor" and not color:
        raise ConfigError(f"color: ChangeColor needs a colour keyword, got {color!r}")
    request = _V1_REQUEST[kind].format(fill=fill, color=color)
    return _V1_HEAD.format(name=emoji) + request + "\n\n```svg\n" + source_svg + _V1_TAIL


@dataclass(frozen=True, slots=True)
class V1Prompt:
    """What a v1 prompt says: the kind, emoji name, source SVG and the edit's parameters."""

    kind: str
    emoji_name: str
    source_svg: str
    fill: str | None = None
    color: str | None = None


def parse_v1_prompt(prompt: str) -> V1Prompt | None:
    """Read a v1 prompt back into its parts; ``None`` if it is not in the v1 layout.

    The source SVG is the text between the first ```` ```svg ```` line and its closing
    fence (v1 README, "Prompt layout").

    Examples
    --------
    >>> p = parse_v1_prompt(v1_prompt("ChangeColor", "<svg/>", "star", "#FFF", "red"))
    >>> (p.kind, p.emoji_name, p.source_svg, p.fill, p.color)
    ('ChangeColor', 'star', '<svg/>', '#FFF', 'red')
    >>> parse_v1_prompt("hello") is None
    True
    """
    m = _V1_PROMPT_RE.match(prompt)
    if m is None:
        return None
    rest = prompt[m.end():]
    end = rest.find("\n```")
    if end < 0:
        return None
    source = rest[:end]
    request = m.group("request")
    fill = color = None
    kind = None
    for k, template in _V1_REQUEST.items():
        if "{fill}" not in template:
            if request == template:
                kind = k
                break
            continue
        prefix = template.split("{fill}")[0]
        if request.startswith(prefix):
            fm = _V1_FILL_RE.search(request)
            if fm is None:
                continue
            if (k == "ChangeColor") != (fm.group("color") is not None):
                continue
            kind, fill, color = k, fm.group("fill"), fm.group("color")
            break
    if kind is None:
        return None
    return V1Prompt(kind=kind, emoji_name=m.group("name"), source_svg=source, fill=fill, color=color)


# ---------------------------------------------------------------------------------------
# v1 edit kinds on any SVG
# ---------------------------------------------------------------------------------------


def _et_root(svg: str) -> ET.Element:
    """The ElementTree model the v1 edits serialise from, after :func:`parse_svg`'s checks.

    ``parse_svg`` (size, depth and element-count limits, no entity expansion) decides whether the
    text is acceptable; ElementTree only provides the tree whose serialisation the v1 answers
    use (its default-namespace spelling).
    """
    try:
        parse_svg(svg)
    except SVGParseError as exc:
        raise ConfigError(f"source_svg: expected a well-formed SVG document, got a parse error ({exc})") from exc
    ET.register_namespace("", SVG_NS)
    try:
        return ET.fromstring(svg)
    except ET.ParseError as exc:  # pragma: no cover - parse_svg accepted it
        raise ConfigError(f"source_svg: expected a well-formed SVG document, got a parse error ({exc})") from exc


def _et_serialise(root: ET.Element) -> str:
    ET.register_namespace("", SVG_NS)
    return ET.tostring(root, encoding="unicode")


def _fmt(value: float) -> str:
    """Shortest plain spelling of a user-unit number (``18.0`` -> ``"18"``)."""
    text = f"{value:.10g}"
    return "0" if text == "-0" else text


def _viewbox(root: ET.Element) -> tuple[float, float, float, float] | None:
    vb = root.get("viewBox")
    if vb is None:
        return None
    return parse_viewbox(vb, require_positive=False)


def distinct_fills(svg: str) -> tuple[str, ...]:
    """Return the distinct ``fill`` attribute values of ``svg`` in document order.

    Only ``fill`` attributes count (not ``style``), as in the v1 generator (v1 README,
    "ChangeColor": "one of the distinct ``fill`` attribute values in the source"). The
    value ``none`` is left out (there is no painted part to change).

    Raises
    ------
    ConfigError
        ``svg`` is not well-formed XML.
    """
    seen: dict[str, None] = {}
    for el in _et_root(svg).iter():
        value = el.get("fill")
        if value is not None and value.strip() and value.strip() != "none":
            seen.setdefault(value, None)
    return tuple(seen)


def apply_v1_edit(source_svg: str, kind: str, fill: str | None = None, color: str | None = None) -> str:
    """Apply one v1 edit kind to ``source_svg`` and return the answer SVG text.

    Each kind is performed as the v1 answers were made (v1 README, "The six
    transformations"; all 600 bundled answers are reproduced byte for byte):

    ``ChangeColor``
        Text replacement of every occurrence of the ``fill`` string by the colour
        keyword ``color``; no re-serialisation.
    ``SetContour``
        Every element whose own ``fill`` attribute equals ``fill`` gets
        ``stroke="black" stroke-width="1"``; the tree is re-serialised with
        ElementTree (default SVG namespace, no XML declaration, ``<path ... />``).
    ``Compression``
        The source unchanged (a response is judged on looking the same and being smaller).
    ``UpSideDown``
        ``transform="translate(0,H) scale(1,-1)"`` on the root, with H = 2 y + h of the
        viewBox ``x y w h`` (36 for Twemoji), a vertical mirror about the box's middle
        (an existing root transform is kept after it); re-serialised.
    ``Transparency``
        ``opacity="0.5"`` on the root (multiplied into an existing root opacity); re-serialised.
    ``CropToHalf``
        Only the viewBox width halved (``0 0 36 36`` -> ``0 0 18 36``); re-serialised.

    Parameters
    ----------
    source_svg : str
        Any well-formed SVG document. UpSideDown and CropToHalf need a viewBox.
    kind : str
        One of :data:`V1_KINDS`.
    fill : str, optional
        The fill value to edit (ChangeColor, SetContour).
    color : str, optional
        The colour keyword to write (ChangeColor).

    Returns
    -------
    str
        The answer SVG.

    Raises
    ------
    ConfigError
        Unknown kind, missing ``fill``/``color``, unparseable source, or no usable viewBox.

    Examples
    --------
    >>> apply_v1_edit('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"/>', "CropToHalf")
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 18 36" />'
    """
    if kind not in V1_KINDS:
        raise ConfigError(f"kind: expected one of {V1_KINDS}, got {kind!r}")
    if kind == "Compression":
        return source_svg
    if kind == "ChangeColor":
        if not fill or not color:
            raise ConfigError(f"ChangeColor needs fill and color, got fill={fill!r}, color={color!r}")
        return source_svg.replace(fill, color)
    root = _et_root(source_svg)
    if kind == "SetContour":
        if not fill:
            raise ConfigError(f"fill: SetContour needs the fill value, got {fill!r}")
        for el in root.iter():
            if el.get("fill") == fill:
                el.set("stroke", "black")
                el.set("stroke-width", "1")
        return _et_serialise(root)
    if kind == "Transparency":
        old = root.get("opacity")
        value = "0.5"
        if old is not None:
            try:
                value = _fmt(0.5 * float(old))
            except ValueError:
                value = "0.5"
        root.set("opacity", value)
        return _et_serialise(root)
    vb = _viewbox(root)
    if vb is None:
        raise ConfigError(f"{kind}: expected a root viewBox of four numbers, got {root.get('viewBox')!r}")
    x, y, w, h = vb
    if kind == "UpSideDown":
        flip = f"translate(0,{_fmt(2 * y + h)}) scale(1,-1)"
        old = root.get("transform")
        root.set("transform", flip if not old else f"{flip} {old}")
        return _et_serialise(root)
    # CropToHalf: only the viewBox width changes.
    root.set("viewBox", f"{_fmt(x)} {_fmt(y)} {_fmt(w / 2)} {_fmt(h)}")
    return _et_serialise(root)


@dataclass(frozen=True, slots=True)
class SVGEditBenchV1Config:
    """Configuration of :class:`SVGEditBenchV1Generator`.

    Parameters
    ----------
    kinds : tuple of str
        Edit kinds to draw from (default all six, :data:`V1_KINDS`).
    colors : tuple of str
        Colour keywords for ChangeColor (default the eight of v1).
    """

    kinds: tuple[str, ...] = V1_KINDS  # edit kinds drawn uniformly
    colors: tuple[str, ...] = V1_COLOR_KEYWORDS  # ChangeColor keywords drawn uniformly

    def __post_init__(self) -> None:
        if not self.kinds:
            raise ConfigError("kinds: expected at least one edit kind, got ()")
        bad = [k for k in self.kinds if k not in V1_KINDS]
        if bad:
            raise ConfigError(f"kinds: expected a subset of {V1_KINDS}, got unknown {bad}")
        if not self.colors:
            raise ConfigError("colors: expected at least one colour keyword, got ()")


class SVGEditBenchV1Generator:
    """Make v1-style tasks from any SVGs (item ``idx`` is a pure function of ``(seed, idx)``).

    Item ``idx`` uses ``numpy.random.default_rng([seed, idx])`` to pick a source SVG,
    an edit kind, and for ChangeColor/SetContour a fill value (from
    :func:`distinct_fills`, uniformly) and a colour keyword. Sources that cannot take the
    drawn kind (no fill; no viewBox for UpSideDown/CropToHalf) are replaced by the next
    draw from the same generator.

    Parameters
    ----------
    sources : sequence of (name, svg) pairs
        The SVGs to edit; ``name`` fills the prompt's emoji name.
    config : SVGEditBenchV1Config, optional
    seed : int
        Corpus seed.

    Examples
    --------
    >>> svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><path fill="#FFF" d="M0 0h9v9z"/></svg>'
    >>> gen = SVGEditBenchV1Generator([("box", svg)], seed=3)
    >>> gen[0] == gen[0]
    True
    """

    version = "1"

    def __init__(self, sources: list[tuple[str, str]] | tuple[tuple[str, str], ...], config: SVGEditBenchV1Config | None = None, seed: int = 0) -> None:
        if not sources:
            raise ConfigError("sources: expected at least one (name, svg) pair, got none")
        self.sources = tuple((str(n), str(s)) for n, s in sources)
        self.config = config or SVGEditBenchV1Config()
        self.seed = int(seed)

    def __getitem__(self, idx: int) -> Task:
        return self.generate(idx)

    def generate(self, idx: int) -> Task:
        """Return task ``idx`` (deterministic in ``(seed, idx)``).

        Raises
        ------
        ConfigError
            No source can take any configured kind after 1,000 draws.
        """
        rng = np.random.default_rng([self.seed, int(idx)])
        for _ in range(1000):
            src_i = int(rng.integers(len(self.sources)))
            name, svg = self.sources[src_i]
            kind = self.config.kinds[int(rng.integers(len(self.config.kinds)))]
            fill = color = None
            try:
                if kind in ("ChangeColor", "SetContour"):
                    fills = distinct_fills(svg)
                    if not fills:
                        continue
                    fill = fills[int(rng.integers(len(fills)))]
                    if kind == "ChangeColor":
                        color = self.config.colors[int(rng.integers(len(self.config.colors)))]
                target = apply_v1_edit(svg, kind, fill, color)
            except ConfigError:
                continue
            meta: dict[str, Any] = {
                "edit_kind": kind,
                "emoji_name": name,
                "fill": fill,
                "color": color,
                "source_index": src_i,
                "generator": "svgeditbench-v1",
                "generator_version": self.version,
                "seed": self.seed,
                "idx": int(idx),
            }
            return Task(
                task_id=f"v1gen-{self.seed}-{int(idx)}",
                family=V1_FAMILY,
                instruction=v1_prompt(kind, svg, name, fill, color),
                source_svg=svg,
                target_svg=target,
                metadata=tuple(meta.items()),
            )
        raise ConfigError(f"sources: no source can take any of the kinds {self.config.kinds} (seed {self.seed}, idx {idx})")


# ---------------------------------------------------------------------------------------
# Bundled corpora
# ---------------------------------------------------------------------------------------


def _data_path(folder: str, name: str) -> Path:
    return Path(str(resources.files("vector_gym.tasks") / "data" / folder / name))


_V1_CACHE: list[Task] | None = None
_V2_CACHE: list[Task] | None = None


def _task_from_v1_row(row: dict[str, Any], origin: str) -> Task:
    for key in ("task", "emoji", "prompt", "source_svg", "answer_svg"):
        if not isinstance(row.get(key), str):
            raise CorpusError(f"{origin}: field {key!r} expected str, got {type(row.get(key)).__name__}")
    if row["task"] not in V1_KINDS:
        raise CorpusError(f"{origin}: field 'task' expected one of {V1_KINDS}, got {row['task']!r}")
    parsed = parse_v1_prompt(row["prompt"])
    if parsed is None or parsed.kind != row["task"]:
        raise CorpusError(f"{origin}: prompt is not in the v1 layout for {row['task']}")
    meta: dict[str, Any] = {
        "edit_kind": row["task"],
        "emoji": row["emoji"],
        "emoji_name": parsed.emoji_name,
        "fill": parsed.fill,
        "color": parsed.color,
    }
    return Task(
        task_id=f"{row['task']}/{row['emoji']}",
        family=V1_FAMILY,
        instruction=row["prompt"],
        source_svg=row["source_svg"],
        target_svg=row["answer_svg"],
        metadata=tuple(meta.items()),
    )


def load_svgeditbench_v1(source: str | Path | None = None, kinds: tuple[str, ...] | None = None) -> list[Task]:
    """Load the SVGEditBench v1 cases.

    Parameters
    ----------
    source : path, optional
        ``None`` for the bundled 600 cases (``data/svgeditbench_v1/cases.jsonl.gz``), or a
        JSON Lines file (plain or gzip) with the fields ``task, emoji, prompt,
        source_svg, answer_svg``.
    kinds : tuple of str, optional
        Keep only these edit kinds.

    Returns
    -------
    list of Task
        Task ids ``"<Kind>/<emoji code>"`` (e.g. ``"ChangeColor/1f199"``), ordered by kind
        then emoji code. ``metadata``: ``edit_kind``, ``emoji``, ``emoji_name``, ``fill``
        and ``color`` (``None`` where the kind has none).

    Raises
    ------
    CorpusError
        A row is malformed (the message names the file and line).
    """
    global _V1_CACHE
    if source is None:
        if _V1_CACHE is None:
            path = _data_path("svgeditbench_v1", "cases.jsonl.gz")
            _V1_CACHE = [_task_from_v1_row(r, f"{path}:{i + 1}") for i, r in enumerate(read_jsonl(path))]
        tasks = list(_V1_CACHE)
    else:
        tasks = [_task_from_v1_row(r, f"{source}:{i + 1}") for i, r in enumerate(read_jsonl(source))]
    if kinds is not None:
        bad = [k for k in kinds if k not in V1_KINDS]
        if bad:
            raise ConfigError(f"kinds: expected a subset of {V1_KINDS}, got unknown {bad}")
        tasks = [t for t in tasks if t.meta()["edit_kind"] in kinds]
    return tasks


def _task_from_v2_row(row: dict[str, Any], origin: str) -> Task:
    for key in ("instruction", "before_name", "after_name", "before_svg", "after_svg"):
        if not isinstance(row.get(key), str):
            raise CorpusError(f"{origin}: field {key!r} expected str, got {type(row.get(key)).__name__}")
    if not isinstance(row.get("id"), int):
        raise CorpusError(f"{origin}: field 'id' expected int, got {type(row.get('id')).__name__}")
    try:
        target_name = emoji_name(row["after_name"])
    except ValueError as exc:
        raise CorpusError(f"{origin}: cannot name the target emoji {row['after_name']!r} ({exc})") from exc
    meta: dict[str, Any] = {
        "triplet_id": row["id"],
        "before_name": row["before_name"],
        "after_name": row["after_name"],
        "target_name": target_name,
        "before_source": row.get("before_source"),
        "after_source": row.get("after_source"),
        "distance": row.get("distance"),
    }
    return Task(
        task_id=f"v2-{row['id']:04d}",
        family=V2_FAMILY,
        instruction=row["instruction"],
        source_svg=row["before_svg"],
        target_svg=row["after_svg"],
        metadata=tuple(meta.items()),
    )


def load_svgeditbench_v2(source: str | Path | None = None) -> list[Task]:
    """Load the SVGEditBench V2 triplets.

    Parameters
    ----------
    source : path, optional
        ``None`` for the bundled 1,683 triplets (``data/svgeditbench_v2/triplets.jsonl.gz``),
        or a JSON Lines file with the same fields (``id, instruction, before_name,
        after_name, before_svg, after_svg``, ...).

    Returns
    -------
    list of Task
        Task ids ``"v2-NNNN"`` (the upstream triplet id, zero-padded), in id order. The
        instruction is the bare editing instruction (the environment wraps it in the V2
        prompt). ``metadata``: ``triplet_id``, ``before_name``, ``after_name``,
        ``target_name`` (the CLIPScore text, :func:`emoji_name`), ``before_source``,
        ``after_source``, ``distance``.

    Raises
    ------
    CorpusError
        A row is malformed or its target emoji cannot be named.
    """
    global _V2_CACHE
    if source is None:
        if _V2_CACHE is None:
            path = _data_path("svgeditbench_v2", "triplets.jsonl.gz")
            _V2_CACHE = [_task_from_v2_row(r, f"{path}:{i + 1}") for i, r in enumerate(read_jsonl(path))]
        return list(_V2_CACHE)
    return [_task_from_v2_row(r, f"{source}:{i + 1}") for i, r in enumerate(read_jsonl(source))]


def get_task(tasks: list[Task], task_id: str) -> Task:
    """Return the task with ``task_id``; raises :class:`UnknownTaskError` naming a few ids."""
    for t in tasks:
        if t.task_id == task_id:
            return t
    raise UnknownTaskError(f"unknown task id {task_id!r}; ids look like {[t.task_id for t in tasks[:3]]}")


# ---------------------------------------------------------------------------------------
# Emoji names (CLIPScore text of V2)
# ---------------------------------------------------------------------------------------

#: Names of the fully-qualified RGI emoji ZWJ sequences that occur among the V2 targets,
#: keyed by space-separated upper-case code points as in Unicode's
#: ``emoji-zwj-sequences.txt`` (Emoji 16.0, the version the V2 scripts read). Derived
#: offline from the PyPI packages demoji 2.0.0 (``codes.json``: the names of Unicode's
#: ``emoji-test.txt`` 16.0) and emoji 2.16.0 (``status == fully_qualified``): the
#: fully-qualified ZWJ entries of emoji-test.txt are exactly the RGI ZWJ sequences, with
#: the same CLDR names as emoji-zwj-sequences.txt. Sequences that are not
#: fully qualified (e.g. Noto's ``1f471_200d_2640`` without FE0F) are absent from that
#: file, so the V2 fallback rules name them.
ZWJ_SEQUENCE_NAMES: dict[str, str] = {
    "1F3C4 200D 2640 FE0F": "woman surfing",
    "1F3F3 FE0F 200D 1F308": "rainbow flag",
    "1F408 200D 2B1B": "black cat",
    "1F468 200D 1F37C": "man feeding baby",
    "1F468 200D 1F3A8": "man artist",
    "1F468 200D 1F466": "family: man, boy",
    "1F468 200D 1F466 200D 1F466": "family: man, boy, boy",
    "1F468 200D 1F467": "family: man, girl",
    "1F468 200D 1F467 200D 1F466": "family: man, girl, boy",
    "1F468 200D 1F467 200D 1F467": "family: man, girl, girl",
    "1F468 200D 1F468 200D 1F466 200D 1F466": "family: man, man, boy, boy",
    "1F468 200D 1F468 200D 1F467": "family: man, man, girl",
    "1F468 200D 1F468 200D 1F467 200D 1F466": "family: man, man, girl, boy",
    "1F468 200D 1F468 200D 1F467 200D 1F467": "family: man, man, girl, girl",
    "1F468 200D 1F469 200D 1F466": "family: man, woman, boy",
    "1F468 200D 1F469 200D 1F466 200D 1F466": "family: man, woman, boy, boy",
    "1F468 200D 1F469 200D 1F467": "family: man, woman, girl",
    "1F468 200D 1F469 200D 1F467 200D 1F466": "family: man, woman, girl, boy",
    "1F468 200D 1F469 200D 1F467 200D 1F467": "family: man, woman, girl, girl",
    "1F468 200D 1F4BC": "man office worker",
    "1F468 200D 1F52C": "man scientist",
    "1F468 200D 1F692": "man firefighter",
    "1F468 200D 1F9AF": "man with white cane",
    "1F468 200D 1F9B0": "man: red hair",
    "1F468 200D 1F9B1": "man: curly hair",
    "1F468 200D 1F9B2": "man: bald",
    "1F468 200D 1F9BD": "man in manual wheelchair",
    "1F468 200D 2695 FE0F": "man health worker",
    "1F468 200D 2764 FE0F 200D 1F48B 200D 1F468": "kiss: man, man",
    "1F469 200D 1F373": "woman cook",
    "1F469 200D 1F3A4": "woman singer",
    "1F469 200D 1F3A8": "woman artist",
    "1F469 200D 1F3EB": "woman teacher",
    "1F469 200D 1F3ED": "woman factory worker",
    "1F469 200D 1F466": "family: woman, boy",
    "1F469 200D 1F466 200D 1F466": "family: woman, boy, boy",
    "1F469 200D 1F467": "family: woman, girl",
    "1F469 200D 1F467 200D 1F466": "family: woman, girl, boy",
    "1F469 200D 1F467 200D 1F467": "family: woman, girl, girl",
    "1F469 200D 1F469 200D 1F466": "family: woman, woman, boy",
    "1F469 200D 1F469 200D 1F466 200D 1F466": "family: woman, woman, boy, boy",
    "1F469 200D 1F469 200D 1F467": "family: woman, woman, girl",
    "1F469 200D 1F469 200D 1F467 200D 1F466": "family: woman, woman, girl, boy",
    "1F469 200D 1F469 200D 1F467 200D 1F467": "family: woman, woman, girl, girl",
    "1F469 200D 1F4BB": "woman technologist",
    "1F469 200D 1F4BC": "woman office worker",
    "1F469 200D 1F527": "woman mechanic",
    "1F469 200D 1F680": "woman astronaut",
    "1F469 200D 1F9AF": "woman with white cane",
    "1F469 200D 1F9B1": "woman: curly hair",
    "1F469 200D 1F9B2": "woman: bald",
    "1F469 200D 1F9B3": "woman: white hair",
    "1F469 200D 2695 FE0F": "woman health worker",
    "1F469 200D 2696 FE0F": "woman judge",
    "1F469 200D 2764 FE0F 200D 1F48B 200D 1F469": "kiss: woman, woman",
    "1F470 200D 2642 FE0F": "man with veil",
    "1F471 200D 2642 FE0F": "man: blond hair",
    "1F473 200D 2642 FE0F": "man wearing turban",
    "1F477 200D 2640 FE0F": "woman construction worker",
    "1F481 200D 2642 FE0F": "man tipping hand",
    "1F62E 200D 1F4A8": "face exhaling",
    "1F645 200D 2640 FE0F": "woman gesturing NO",
    "1F646 200D 2640 FE0F": "woman gesturing OK",
    "1F647 200D 2640 FE0F": "woman bowing",
    "1F64B 200D 2642 FE0F": "man raising hand",
    "1F64D 200D 2642 FE0F": "man frowning",
    "1F64E 200D 2640 FE0F": "woman pouting",
    "1F64E 200D 2642 FE0F": "man pouting",
    "1F6A3 200D 2642 FE0F": "man rowing boat",
    "1F6B4 200D 2640 FE0F": "woman biking",
    "1F6B6 200D 2640 FE0F": "woman walking",
    "1F6B6 200D 2642 FE0F": "man walking",
    "1F926 200D 2642 FE0F": "man facepalming",
    "1F935 200D 2640 FE0F": "woman in tuxedo",
    "1F937 200D 2640 FE0F": "woman shrugging",
    "1F937 200D 2642 FE0F": "man shrugging",
    "1F939 200D 2640 FE0F": "woman juggling",
    "1F93D 200D 2640 FE0F": "woman playing water polo",
    "1F9B8 200D 2640 FE0F": "woman superhero",
    "1F9B9 200D 2642 FE0F": "man supervillain",
    "1F9CD 200D 2640 FE0F": "woman standing",
    "1F9CE 200D 2640 FE0F": "woman kneeling",
    "1F9CE 200D 2642 FE0F": "man kneeling",
    "1F9CF 200D 2640 FE0F": "deaf woman",
    "1F9D1 200D 1F33E": "farmer",
    "1F9D1 200D 1F37C": "person feeding baby",
    "1F9D1 200D 1F393": "student",
    "1F9D1 200D 1F3EB": "teacher",
    "1F9D1 200D 1F4BB": "technologist",
    "1F9D1 200D 1F527": "mechanic",
    "1F9D1 200D 1F52C": "scientist",
    "1F9D1 200D 1F692": "firefighter",
    "1F9D1 200D 1F9AF": "person with white cane",
    "1F9D1 200D 1F9B2": "person: bald",
    "1F9D1 200D 1F9B3": "person: white hair",
    "1F9D1 200D 1F9BC": "person in motorized wheelchair",
    "1F9D1 200D 2696 FE0F": "judge",
    "1F9D1 200D 2708 FE0F": "pilot",
    "1F9D4 200D 2640 FE0F": "woman: beard",
    "1F9D6 200D 2640 FE0F": "woman in steamy room",
    "1F9D7 200D 2640 FE0F": "woman climbing",
    "1F9D8 200D 2640 FE0F": "woman in lotus position",
    "1F9D8 200D 2642 FE0F": "man in lotus position",
    "1F9D9 200D 2642 FE0F": "man mage",
    "1F9DC 200D 2640 FE0F": "mermaid",
    "1F9DD 200D 2640 FE0F": "woman elf",
    "2764 FE0F 200D 1F525": "heart on fire",
}

#: Character names newer than some Pythons' ``unicodedata`` (Python 3.11 ships Unicode
#: 14.0); from the Unicode Character Database (UnicodeData.txt, Unicode 15.0).
_NEWER_CHARACTER_NAMES: dict[int, str] = {
    0x1FA75: "LIGHT BLUE HEART",
}


def codepoint_name(codepoints: list[str] | tuple[str, ...]) -> str:
    """Name an emoji given as hex code points, as SVGEditBench V2 does.

    One code point: its Unicode character name. A sequence: its name in
    :data:`ZWJ_SEQUENCE_NAMES`; failing that a trailing keycap (20E3) gives
    ``"keycap: "`` + the base's name, a trailing FE0F is dropped, and an unknown ZWJ
    sequence joins the parts' names with ``" + "`` (``metrics-svgeditbench.md``,
    "CLIPScore"; upstream ``src/emojinames.py``).

    Raises
    ------
    ValueError
        A private-use or unnamed code point, or an unknown sequence without ZWJ.

    Examples
    --------
    >>> codepoint_name(["1f552"])
    'CLOCK FACE THREE OCLOCK'
    >>> codepoint_name(["2a", "20e3"])
    'keycap: ASTERISK'
    >>> codepoint_name(["1f471", "200d", "2640"])
    'PERSON WITH BLOND HAIR + FEMALE SIGN'
    """
    cps = [c.upper() for c in codepoints]
    if not cps:
        raise ValueError("empty code point sequence")
    if len(cps) == 1:
        c = int(cps[0], 16)
        if 0xE000 <= c <= 0xF8FF or 0xF0000 <= c <= 0xFFFFF:
            raise ValueError("emoji in a private use area")
        try:
            return unicodedata.name(chr(c))
        except ValueError:
            if c in _NEWER_CHARACTER_NAMES:
                return _NEWER_CHARACTER_NAMES[c]
            raise
    key = " ".join(cps)
    if key in ZWJ_SEQUENCE_NAMES:
        return ZWJ_SEQUENCE_NAMES[key]
    if cps[-1] == "20E3":
        try:
            return "keycap: " + codepoint_name(cps[:-1])
        except ValueError:
            pass
    if cps[-1] == "FE0F":
        try:
            return codepoint_name(cps[:-1])
        except ValueError:
            pass
    if "200D" not in cps:
        raise ValueError(f"unknown emoji sequence {key}")
    parts: list[str] = []
    current: list[str] = []
    for c in cps + ["200D"]:
        if c == "200D":
            parts.append(codepoint_name(current))
            current = []
        else:
            current.append(c)
    return " + ".join(parts)


def emoji_name(file_name: str) -> str:
    """Return the CLIPScore text for a V2 emoji file name (``metrics-svgeditbench.md``).

    * ``twemoji_<cp>-<cp>...svg`` and ``noto-emoji_emoji_u<cp>_<cp>...svg``:
      :func:`codepoint_name` of the code points;
    * ``fluentui_flat_<words>_flat.svg``: the words without the style suffix, joined by
      spaces; ``fluentui_highcontrast_<words>_high_contrast.svg``: the last two words dropped.

    Raises
    ------
    ValueError
        An unknown set prefix, or a code point that cannot be named.

    Examples
    --------
    >>> emoji_name("fluentui_flat_eight_oclock_flat.svg")
    'eight oclock'
    >>> emoji_name("noto-emoji_emoji_u1f552.svg")
    'CLOCK FACE THREE OCLOCK'
    """
    parts = file_name.split(".")[0].split("_")
    if parts[0] == "fluentui":
        if len(parts) > 1 and parts[1] == "flat":
            return " ".join(parts[2:-1])
        if len(parts) > 1 and parts[1] == "highcontrast":
            return " ".join(parts[2:-2])
        raise ValueError(f"unknown Fluent style in {file_name!r}")
    if parts[0] == "noto-emoji":
        return codepoint_name([c.removeprefix("u") for c in parts[2:]])
    if parts[0] == "twemoji":
        return codepoint_name(parts[1].split("-"))
    raise ValueError(f"unknown emoji set in {file_name!r}")
