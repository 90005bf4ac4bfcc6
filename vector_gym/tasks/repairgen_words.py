"""Plain-language wording for RepairGen instructions: nouns, colour words, amounts, phrasings.

Vector-Bench instructions "describe visible defects without exposing element identifiers,
coordinates, color codes, or path data" (Gupta & Hebbar 2026, section 3: "Instructions ...
without SVG IDs, numeric coordinates, hex colors, path commands, or attribute names"). This
module holds every word RepairGen may put into an instruction, so that rule can be checked
in one place (:func:`instruction_leaks`).

- Object nouns come from an element's ``<title>``, its ``class``, its ``id`` (``pear-2`` →
  "pear", ``signal-amber`` → "amber signal") or, for generated ids, from its colour and
  shape ("yellow shape"), qualified by the scene name ("in the grinning face").
- Colour words are the nearest entry of :data:`COLOR_WORDS` by CIE76 ΔE in Lab
  (spec-reward.md §8.8 conversion, :func:`vector_gym.svg.color.hex_to_lab`).
- Amounts and directions are words ("slightly", "well", "down and to the left").
- Each operator has several phrasings; the generator's RNG picks one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from vector_gym.svg.color import delta_e76, hex_to_lab

__all__ = [
    "COLOR_WORDS",
    "NUMBER_WORDS",
    "DIRECTION_WORDS",
    "color_word",
    "noun_from_label",
    "number_word",
    "direction_phrase",
    "amount_word",
    "PHRASINGS",
    "CLOSINGS",
    "join_clauses",
    "instruction_leaks",
]

#: Common colour names and a representative sRGB value for each (CSS named-colour values where
#: one exists). The palette also serves as the corruption colours of the recolour operator.
COLOR_WORDS: tuple[tuple[str, str], ...] = (
    ("red", "#dc2626"),
    ("dark red", "#7f1d1d"),
    ("orange", "#f97316"),
    ("amber", "#f59e0b"),
    ("yellow", "#facc15"),
    ("lime green", "#a3e635"),
    ("light green", "#86efac"),
    ("green", "#16a34a"),
    ("dark green", "#14532d"),
    ("teal", "#0d9488"),
    ("light blue", "#7dd3fc"),
    ("blue", "#2563eb"),
    ("navy", "#1e3a8a"),
    ("purple", "#7e22ce"),
    ("pink", "#f472b6"),
    ("magenta", "#d946ef"),
    ("brown", "#78350f"),
    ("tan", "#d2b48c"),
    ("white", "#ffffff"),
    ("light grey", "#d1d5db"),
    ("grey", "#6b7280"),
    ("black", "#000000"),
)

NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
)

DIRECTION_WORDS = {(1, 0): "to the right", (-1, 0): "to the left", (0, 1): "down", (0, -1): "up"}

_COLOR_LABS = tuple((name, hex_to_lab(h)) for name, h in COLOR_WORDS)

# Words an id may carry that describe a position or variant; they read better in front
# ("window-left" -> "left window", "signal-amber" -> "amber signal").
_FRONT_WORDS = (
    frozenset(
        "left right center centre middle top bottom front back upper lower inner outer small big "
        "large little main tall short long wide thin".split()
    )
    | frozenset(w for name, _ in COLOR_WORDS for w in name.split())
    | frozenset("amber gold silver cyan violet crimson pale bright dark light".split())
)
# Tokens that carry no meaning for a person.
# ("variant", "identity", "skin" prefix the per-task objects of the Vector-Bench scenes.)
_DROP_WORDS = frozenset(
    "dup copy stray extra rg el elem node obj svg g grp id variant identity skin".split()
)
_ABBREV = {"bg": "background", "fg": "foreground", "btn": "button", "img": "picture"}


@lru_cache(maxsize=65536)
def color_word(hex6: str) -> str:
    """Return the name in :data:`COLOR_WORDS` nearest to ``hex6`` by ΔE76 (spec §8.8).

    Examples
    --------
    >>> color_word("#a3e635"), color_word("#f59e0b"), color_word("#FFFFFF")
    ('lime green', 'amber', 'white')
    >>> color_word("#dc2626"), color_word("#111827"), color_word("#e0f2fe")
    ('red', 'black', 'white')
    """
    lab = hex_to_lab(hex6)
    return min(_COLOR_LABS, key=lambda item: delta_e76(lab, item[1]))[0]


def number_word(n: int) -> str:
    """Spell a small count in words (``3`` → ``"three"``); counts above ten become ``"several"``."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else "several"


def noun_from_label(label: str) -> str | None:
    """Turn an id, class or title into a plain noun phrase, or None if nothing is left.

    Digits, separators, repeats and meaningless tokens are dropped; position and colour words
    move to the front.

    Examples
    --------
    >>> noun_from_label("pear-2"), noun_from_label("signal-amber"), noun_from_label("__bg")
    ('pear', 'amber signal', 'background')
    >>> noun_from_label("trainDoor"), noun_from_label("path-17") is None
    ('train door', True)
    >>> noun_from_label("right-awning-blue-2"), noun_from_label("identity-05-balloon-blue")
    ('right blue awning', 'blue balloon')
    """
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", label)
    words = [w.lower() for w in re.split(r"[^A-Za-z]+", text) if w]
    words = [_ABBREV.get(w, w) for w in words if w not in _DROP_WORDS and len(w) > 1]
    words = [w for w in words if w not in _SHAPE_TAG_WORDS]
    if not words:
        return None
    words = list(dict.fromkeys(words))  # "right-post-right" -> "right post"
    front = [w for w in words if w in _FRONT_WORDS]
    rest = [w for w in words if w not in _FRONT_WORDS]
    return " ".join(front + rest) if rest else " ".join(words)


_SHAPE_TAG_WORDS = frozenset(
    "path rect circle ellipse line polyline polygon text use image tspan".split()
)


def direction_phrase(dx: float, dy: float) -> str:
    """Describe a displacement (SVG axes: y grows downwards) in words.

    Examples
    --------
    >>> direction_phrase(5, 0), direction_phrase(-4, 6), direction_phrase(0, -3)
    ('to the right', 'down and to the left', 'up')
    """
    parts = []
    if dy:
        parts.append("down" if dy > 0 else "up")
    if dx:
        parts.append("to the right" if dx > 0 else "to the left")
    return " and ".join(parts)


def amount_word(fraction: float) -> str:
    """Describe a displacement as a fraction of the picture size: slightly / noticeably / well."""
    if fraction < 0.07:
        return "slightly"
    if fraction < 0.13:
        return "noticeably"
    return "well"


#: Phrasings per operator kind. Fields: ``{the}`` noun phrase with article ("the pear",
#: "one pear"), ``{noun}`` bare noun, ``{bad}``/``{good}`` colour words, ``{dir}`` direction
#: of the defect, ``{back}`` direction of the repair, ``{amount}``, ``{scene}``.
PHRASINGS: dict[str, tuple[str, ...]] = {
    "recolor_fill": (
        "{the} is {bad} instead of {good}",
        "{the} has turned {bad} and should be {good} again",
        "{the} should be {good}, not {bad}",
        "make {the} {good} again instead of {bad}",
    ),
    "recolor_stroke": (
        "the outline of {the} is {bad} instead of {good}",
        "{the} is outlined in {bad} but should be outlined in {good}",
        "give {the} its {good} outline back instead of the {bad} one",
    ),
    "displace": (
        "{the} has drifted {amount} {dir}",
        "{the} is sitting {amount} too far {dir_far}",
        "move {the} back {back}",
        "{the} has slipped {dir} and needs to go back {back}",
    ),
    "resize_larger": (
        "{the} is much too big",
        "{the} has grown too large",
        "shrink {the} back to its proper size",
    ),
    "resize_smaller": (
        "{the} is much too small",
        "{the} has shrunk",
        "enlarge {the} back to its proper size",
    ),
    "delete": (
        "{the} is missing",
        "{the} has disappeared",
        "put back the missing {noun}",
        "restore the missing {noun}",
    ),
    "insert_duplicate": (
        "there is an extra {noun}",
        "remove the duplicate {noun}",
        "a second copy of {the} has appeared",
        "delete the extra {noun}",
    ),
    "insert_stray": (
        "a stray {bad} {noun} has appeared",
        "remove the stray {bad} {noun}",
        "there is an unwanted {bad} {noun} in the picture",
    ),
    "distort": (
        "{the} has a distorted outline",
        "the outline of {the} is warped",
        "restore the original outline of {the}",
        "{the} looks bent out of shape",
    ),
    "stroke_heavier": (
        "{the} is drawn much too heavily",
        "the line of {the} is far too thick",
        "thin {the} back down",
    ),
    "stroke_lighter": (
        "{the} is drawn far too thinly",
        "the line of {the} is almost invisible",
        "make the line of {the} heavier again",
    ),
    "opacity": (
        "{the} has faded and looks see-through",
        "make {the} solid again",
        "{the} has become translucent",
    ),
}

#: Closing sentences; ``{count}`` is a number word, ``{scene}`` the scene noun.
CLOSINGS: tuple[str, ...] = (
    "Fix {those} and leave the rest of the {scene} alone.",
    "Repair {those} while keeping everything else in the {scene} unchanged.",
    "Put {those} right and do not touch anything else.",
    "Correct {those} and leave every other part of the {scene} exactly as it is.",
)


def join_clauses(clauses: Sequence[str]) -> str:
    """Join defect clauses into one sentence with an Oxford comma, capitalised, with a full stop.

    Examples
    --------
    >>> join_clauses(["the pear is red instead of green", "the moon is missing"])
    'The pear is red instead of green, and the moon is missing.'
    """
    if not clauses:
        return ""
    if len(clauses) == 1:
        body = clauses[0]
    elif len(clauses) == 2:
        body = f"{clauses[0]}, and {clauses[1]}"
    else:
        body = ", ".join(clauses[:-1]) + f", and {clauses[-1]}"
    return body[0].upper() + body[1:] + "."


_HEX_RE = re.compile(r"#[0-9a-fA-F]{3,8}\b")
_PLAIN_WORD_RE = re.compile(r"[a-z]+")


def instruction_leaks(
    instruction: str, ids: Iterable[str], attributes: Iterable[str], task_id: str = ""
) -> list[str]:
    """Return what an instruction gives away, empty when it is clean.

    Checked: a digit, a hex colour code, any requested attribute name as a whole word
    (``fill``, ``x``, ``stroke-width`` ...), the task id, and any element id that is not a
    plain lower-case word. Ids that are plain words (``moon``) cannot be told apart from the
    noun a person would use, exactly as in Vector-Bench (sv_008 says "the moon" for id
    ``moon``), so they are allowed.

    Returns
    -------
    list of str
        Reasons such as ``"digit"``, ``"hex:#fff"``, ``"attribute:fill"``, ``"id:pear-2"``.

    Examples
    --------
    >>> instruction_leaks("The moon is red instead of green.", ["moon", "pear-2"], ["fill"])
    []
    >>> instruction_leaks("Set fill of pear-2 to #a3e635.", ["pear-2"], ["fill"])
    ['digit', 'hex:#a3e635', 'attribute:fill', 'id:pear-2']
    """
    out = []
    if any(ch.isdigit() for ch in instruction):
        out.append("digit")
    out.extend(f"hex:{m.group()}" for m in _HEX_RE.finditer(instruction))
    lower = instruction.lower()
    for attr in sorted(set(attributes)):
        if attr == "exists":
            continue
        if re.search(rf"(?<![\w-]){re.escape(attr.lower())}(?![\w-])", lower):
            out.append(f"attribute:{attr}")
    if task_id and task_id in instruction:
        out.append(f"task_id:{task_id}")
    for i in sorted(set(ids)):
        if not i or _PLAIN_WORD_RE.fullmatch(i):
            continue
        if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", instruction):
            out.append(f"id:{i}")
    return out
