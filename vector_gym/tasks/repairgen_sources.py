"""Clean SVG sources for RepairGen: bundled scenes and emoji, or a folder; train/test split.

A source is a clean SVG with a stable identity. ``prepare_source`` turns it into a clean
*target template*: every element without an id gets a stable generated id (``rect-3``:
tag and document-order count, avoiding existing ids), path data is respelled with
single spaces (``0.5.5`` and packed arc flags are legal SVG that the evaluator's validity gate
rejects, spec-reward.md §4.3 / §10), and the result must pass the structural checks of the
validity gate (unique ids, well-formed attribute values, resolvable references). The shape
elements are analysed once (:func:`vector_gym.tasks.repairgen_ops.analyse_element`).

Split (``split_of``): by a SHA-256 of the source's *split key* (the scene, not the file), so
that all variants of one scene land on the same side. Vector-Bench's 20 bundled targets are
five variants each of four scene templates (station, harbour, campsite, market): the split key
is the template, so a test scene is never seen in training. Emoji are keyed by the emoji they
draw (Unicode name), so one emoji's drawings from different sets stay together.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from lxml import etree

from vector_gym.errors import ConfigError, SVGParseError
from vector_gym.svg import reference_dialect as _rd
from vector_gym.svg.canonical import is_invalid, normalise_attribute
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.viewbox import parse_viewbox, viewport_size
from vector_gym.tasks.repairgen_ops import Candidate, analyse_element, local
from vector_gym.tasks.repairgen_paths import path_points, respell_path, scan_points
from vector_gym.tasks.repairgen_words import color_word, noun_from_label

__all__ = [
    "BUNDLED_SOURCES",
    "CleanSource",
    "PreparedSource",
    "load_sources",
    "prepare_source",
    "serialise",
    "split_of",
]

#: Names of the bundled source sets accepted in ``RepairGenConfig.sources``.
BUNDLED_SOURCES = ("vector_bench", "svgeditbench")

_NO_ID_TAGS = frozenset({"title", "desc", "metadata", "style", "script"})
_HIDDEN_CONTAINERS = frozenset(
    {
        "defs",
        "clipPath",
        "mask",
        "pattern",
        "marker",
        "symbol",
        "linearGradient",
        "radialGradient",
        "filter",
    }
)
# The four scene templates of Vector-Bench sv_001-sv_020 and an id only that template has.
_SCENES = (
    ("station", 'id="train-body"'),
    ("harbor", 'id="mast"'),
    ("campsite", 'id="tent-flap"'),
    ("market", "awning"),
)
_URL_REF = re.compile(r"url\(\s*['\"]?#([^\s)'\"]+)['\"]?\s*\)", re.IGNORECASE)
_SHAPE_WORDS = {
    "path": "shape",
    "polygon": "shape",
    "rect": "block",
    "circle": "circle",
    "ellipse": "oval",
    "line": "line",
    "polyline": "line",
}
# words never allowed in a noun: attribute names an operator may request
_ATTRIBUTE_WORDS = frozenset(
    "fill stroke opacity width height points x y cx cy r rx ry d transform exists x1 x2 y1 y2 style".split()
)


def _clean_scene(name: str) -> str:
    """Scene words safe for an instruction: digits spelled out, attribute words and symbols dropped."""
    from vector_gym.tasks.repairgen_words import number_word

    text = re.sub(
        r"[0-9]+",
        lambda m: f" {number_word(int(m.group()))} " if int(m.group()) <= 10 else " ",
        name,
    )
    text = re.sub(r"[^A-Za-z' -]+", " ", text)
    words = list(
        dict.fromkeys(text.lower().split())
    )  # "man man boy boy" (a ZWJ family) -> "man boy"
    return _clean_noun(" ".join(words)) or "picture"


@dataclass(frozen=True, slots=True)
class CleanSource:
    """A clean SVG and its identity.

    Attributes
    ----------
    source_id : str
        Unique and stable, e.g. ``"vector-bench:sv_001"``, ``"svgeditbench:twemoji_1f55d.svg"``.
    svg : str
        The clean SVG text.
    scene : str
        Plain-language name of the picture ("station", "grinning face").
    split_key : str
        What the train/test split hashes (the scene template or emoji, see module docstring).
    """

    source_id: str
    svg: str
    scene: str
    split_key: str


@dataclass
class PreparedSource:
    """A clean target template with generated ids and analysed candidate elements."""

    source: CleanSource
    root: Any  # lxml root of the template (never mutated after preparation)
    width: float
    height: float
    origin: tuple[float, float]
    candidates: list[Candidate]
    ids: frozenset[str]
    image: Any = None  # clean render for the visibility rule (False when it cannot render)
    words: Any = None  # per-source tables of the instruction writer (built on first use)
    by_op: Any = None  # operator -> candidates it may apply to (repairgen_ops.eligible), lazily
    render_form: Any = None  # clean render form for incremental trial renders (repairgen_visibility)
    elements: Any = None  # id -> element of ``root`` (built on first use)
    #: id -> reduced copy of ``root`` holding that element (kept pristine); (id, "insert") -> the
    #: copy for an insertion trial on it (repairgen._insertion_copy; False: the whole scene)
    partials: Any = None
    text: Any = None  # serialise(root), kept (the target text of most tasks)
    referencing: Any = None  # ids holding a local reference, and their ancestors (repairgen)
    #: held while a visibility trial edits ``render_form`` in place (repairgen_visibility): a
    #: prepared source is shared by every generator and thread of the process (prepare_source
    #: is cached)
    lock: Any = field(default_factory=threading.RLock, repr=False, compare=False)


def split_of(split_key: str, test_fraction: float) -> str:
    """Return ``"test"`` or ``"train"`` from a SHA-256 of the split key.

    Examples
    --------
    >>> split_of("vector-bench:station", 0.0)
    'train'
    >>> split_of("vector-bench:station", 1.0)
    'test'
    """
    h = int.from_bytes(hashlib.sha256(split_key.encode("utf-8")).digest()[:8], "big") / 2**64
    return "test" if h < test_fraction else "train"


def _emoji_name(file_name: str) -> str | None:
    stem = file_name.rsplit(".", 1)[0]
    m = re.search(r"(?:emoji_u|twemoji_)([0-9a-f_]+)$", stem)
    if m:
        try:
            names = [
                unicodedata.name(chr(int(cp, 16)))
                for cp in m.group(1).split("_")
                if cp not in ("200d", "fe0f")
            ]
        except (ValueError, OverflowError):
            return None
        return " ".join(n.lower() for n in names) or None
    for prefix in ("fluentui_flat_", "fluentui_highcontrast_"):
        if stem.startswith(prefix):
            base = stem[len(prefix) :]
            base = re.sub(r"_(flat|high_contrast)$", "", base)
            return base.replace("_", " ")
    return None


@cache
def _bundled(name: str) -> tuple[CleanSource, ...]:
    if name == "vector_bench":
        from vector_gym.tasks.vector_bench import load_vector_bench

        out = []
        for t in load_vector_bench():
            scene = next((name for name, marker in _SCENES if marker in t.target_svg), "picture")
            out.append(
                CleanSource(
                    f"vector-bench:{t.task_id}", t.target_svg, scene, f"vector-bench:{scene}"
                )
            )
        return tuple(out)
    if name == "svgeditbench":
        base = resources.files("vector_gym.tasks") / "data"
        out = []
        seen: set[str] = set()
        v2 = base / "svgeditbench_v2" / "triplets.jsonl.gz"
        if v2.is_file():
            with gzip.open(str(v2), "rt", encoding="utf-8") as fh:
                for line in fh:
                    row = json.loads(line)
                    for side in ("before", "after"):
                        fname = row[f"{side}_name"]
                        if fname in seen:
                            continue
                        seen.add(fname)
                        scene = _emoji_name(fname)
                        if not scene:
                            continue
                        out.append(
                            CleanSource(
                                f"svgeditbench:{fname}",
                                row[f"{side}_svg"],
                                _clean_scene(scene),
                                f"emoji:{scene}",
                            )
                        )
        v1 = base / "svgeditbench_v1" / "cases.jsonl.gz"
        if v1.is_file():
            with gzip.open(str(v1), "rt", encoding="utf-8") as fh:
                for line in fh:
                    row = json.loads(line)
                    fname = f"twemoji14_{row['emoji']}.svg"
                    if fname in seen:
                        continue
                    seen.add(fname)
                    m = re.search(r"emoji '([^']+)'", row["prompt"])
                    scene = m.group(1) if m else (_emoji_name(f"twemoji_{row['emoji']}") or "emoji")
                    out.append(
                        CleanSource(
                            f"svgeditbench:{fname}",
                            row["source_svg"],
                            _clean_scene(scene),
                            f"emoji:{scene}",
                        )
                    )
        out.sort(key=lambda s: s.source_id)
        return _same_drawing_same_key(out)
    raise ConfigError(
        f"sources: unknown bundled source set {name!r}; expected one of {BUNDLED_SOURCES} or a folder"
    )


def _same_drawing_same_key(sources: list[CleanSource]) -> tuple[CleanSource, ...]:
    """Give sources with the same drawing (SVG text up to whitespace) one split key, the
    smallest of theirs: SVGEditBench files the same Twemoji drawing under two names
    ("angry face", "pouting face"), which split_of put on opposite sides."""
    first: dict[str, str] = {}
    for s in sources:
        text = " ".join(s.svg.split())
        first[text] = min(first.get(text, s.split_key), s.split_key)
    return tuple(
        s
        if first[" ".join(s.svg.split())] == s.split_key
        else CleanSource(s.source_id, s.svg, s.scene, first[" ".join(s.svg.split())])
        for s in sources
    )


@lru_cache(maxsize=64)
def _folder(path: str) -> tuple[CleanSource, ...]:
    folder = Path(path)
    files = sorted(folder.rglob("*.svg"))
    if not files:
        raise ConfigError(f"sources: folder {path!r} holds no .svg files")
    out = []
    for f in files:
        rel = f.relative_to(folder).as_posix()
        scene = _clean_scene(noun_from_label(f.stem) or "picture")
        out.append(
            CleanSource(
                f"folder:{rel}",
                f.read_text(encoding="utf-8", errors="replace"),
                scene,
                f"folder:{rel}",
            )
        )
    return _same_drawing_same_key(out)


def load_sources(names: tuple[str, ...]) -> tuple[CleanSource, ...]:
    """Load clean sources: bundled set names (:data:`BUNDLED_SOURCES`) and/or folder paths.

    A bundled set whose data is not installed contributes nothing.

    Raises
    ------
    ConfigError
        An unknown name that is not a folder, or a folder without SVG files.
    """
    out: list[CleanSource] = []
    for name in names:
        if name in BUNDLED_SOURCES:
            out.extend(_bundled(name))
        elif Path(name).is_dir():
            out.extend(_folder(str(Path(name).resolve())))
        else:
            raise ConfigError(
                f"sources: expected a bundled set {BUNDLED_SOURCES} or an existing folder, got {name!r}"
            )
    return tuple(out)


def _in_hidden(el: Any) -> bool:
    node = el.getparent()
    while node is not None:
        if local(node.tag) in _HIDDEN_CONTAINERS:
            return True
        node = node.getparent()
    return False


def _has_transform(el: Any) -> bool:
    node = el
    while node is not None:
        if node.get("transform") is not None:
            return True
        node = node.getparent()
    return False


def _clean_noun(noun: str | None) -> str | None:
    if not noun:
        return None
    words = [w for w in noun.split() if w not in _ATTRIBUTE_WORDS]
    return " ".join(words) or None


def _noun(el: Any, generated: bool, tag: str) -> str:
    for child in el:
        if local(child.tag) == "title" and (child.text or "").strip():
            n = _clean_noun(noun_from_label(child.text.strip()))
            if n:
                return n
    cls = el.get("class")
    if cls:
        n = _clean_noun(noun_from_label(cls.split()[0]))
        if n:
            return n
    if not generated:
        n = _clean_noun(noun_from_label(el.get("id")))
        if n:
            return n
    shape = _SHAPE_WORDS.get(tag, "shape")
    from vector_gym.svg.color import normalise_color

    for attr in ("fill", "stroke"):
        node = el
        value = None
        while node is not None and value is None:
            value = node.get(attr)
            node = node.getparent()
        if value:
            hexv = normalise_color(value)
            if re.fullmatch(r"#[0-9a-f]{6}", hexv):
                return f"{color_word(hexv)} {shape}"
    return shape


def _structurally_valid(root: Any, valid_d: set[str] = frozenset()) -> bool:
    """The validity-gate checks of spec §10 that a clean source can fail (cheap, no sampling).

    ``valid_d``: path data already read as valid by the caller (not read again).
    """
    if local(root.tag) != "svg":
        return False
    ids = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        i = el.get("id")
        if i is not None:
            if not i or i in ids:
                return False
            ids.add(i)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for key, value in el.attrib.items():
            name = local(key)
            if not (name == "d" and value in valid_d) and is_invalid(normalise_attribute(name, value)):
                return False
            if name == "points" and value.strip() and scan_points(value) is None:
                return False
            if name == "viewBox" and parse_viewbox(value) is None:
                return False
            if name == "href" and value.strip().startswith("#") and value.strip()[1:] not in ids:
                return False
            # (a reference needs "url(": most values, path data above all, hold no "(")
            for m in _URL_REF.finditer(value) if "(" in value else ():
                if m.group(1) not in ids:
                    return False
        if local(el.tag) == "style" and el.text:
            for m in _URL_REF.finditer(el.text):
                if m.group(1) not in ids:
                    return False
    return True


def _reference_valid_d(d: str) -> bool:
    """Whether the reference reading of path data ``d`` reads it (no invalid token): the check
    of :func:`vector_gym.svg.reference_dialect.path_data_reads`; ``tests/tasks/
    test_repairgen_sources.py`` checks it against the full normalisation."""
    return _rd.path_data_reads(d)


@lru_cache(maxsize=4096)
def prepare_source(source: CleanSource) -> PreparedSource | None:
    """Build the clean target template of a source; None if it cannot be a valid target.

    Rejected: unparseable text, a root that is not ``svg``, a path that does not read cleanly
    (spec §8.9.1), duplicate ids, invalid attribute values or unresolved references (§10).
    """
    try:
        root = parse_svg(source.svg)
    except SVGParseError:
        return None
    if local(root.tag) != "svg":
        return None
    existing = {el.get("id") for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    counters: dict[str, int] = {}
    generated: set[str] = set()
    valid_d: set[str] = set()
    for el in root.iter():
        if not isinstance(el.tag, str) or el is root:
            continue
        tag = local(el.tag)
        if tag == "path" and el.get("d") is not None:
            d = el.get("d")
            if d.strip():
                if path_points(d) is None:  # respell_path's own check (scan_path's reading)
                    return None
                if not _reference_valid_d(d):
                    d = respell_path(d)
                    el.set("d", d)
                    # the respelled text is read by the same check (tested equal to the full
                    # normalisation on respelled bundled paths) instead of normalised again
                    if _reference_valid_d(d):
                        valid_d.add(d)
                else:
                    valid_d.add(d)  # _structurally_valid need not read it again
        if el.get("id") or tag in _NO_ID_TAGS:
            continue
        while True:
            counters[tag] = counters.get(tag, 0) + 1
            new_id = f"{tag}-{counters[tag]}"
            if new_id not in existing:
                break
        el.set("id", new_id)
        existing.add(new_id)
        generated.add(new_id)
    if not _structurally_valid(root, valid_d):
        return None
    width, height = viewport_size(root)
    vb = parse_viewbox(root.get("viewBox") or "") if root.get("viewBox") else None
    origin = (vb[0], vb[1]) if vb else (0.0, 0.0)
    referenced: set[str] = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for key, value in el.attrib.items():
            if "(" in value:  # as in _structurally_valid
                referenced.update(m.group(1) for m in _URL_REF.finditer(value))
            if key.rsplit("}", 1)[-1] == "href" and value.strip().startswith("#"):
                referenced.add(value.strip()[1:])
    candidates = []
    for el in root.iter():
        if not isinstance(el.tag, str) or el is root or _in_hidden(el) or _has_transform(el):
            continue
        if el.get("display") == "none" or el.get("visibility") == "hidden":
            continue
        tag = local(el.tag)
        cand = analyse_element(el, _noun(el, el.get("id") in generated, tag), referenced)
        if cand is not None:
            candidates.append(cand)
    return PreparedSource(
        source, root, float(width), float(height), origin, candidates, frozenset(existing)
    )


def serialise(root: Any) -> str:
    """Serialise an lxml root as SVG text (no XML declaration)."""
    return etree.tostring(root, encoding="unicode")
