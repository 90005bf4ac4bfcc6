"""Colours: the reference's normalisation, CSS parsing to sRGB, and CIE Lab ΔE76 (spec §4.6, §8.8).

Three readings of a colour value, for three purposes:

- :func:`normalise_color` is the reference's spelling normalisation (spec §4.6), used by the
  canonical form C(S) and by the colour check to decide whether a value is ``#rrggbb``.
- :func:`parse_css_color` reads every CSS colour spelling SVG accepts (all named colours,
  ``#rgb``/``#rgba``/``#rrggbb``/``#rrggbbaa``, ``rgb()``/``rgba()``/``hsl()``/``hsla()``/``hwb()``
  in comma or space syntax, ``transparent``) into sRGB + alpha, via tinycss2's CSS Color 4 parser.
  The keywords ``none`` and ``currentColor`` are not colours: :func:`color_keyword` names them.
- :func:`hex_to_lab` and :func:`delta_e76` are the reference's Lab pipeline in its exact
  operation order (spec §8.8, §15).
"""

from __future__ import annotations

import functools
import math
import re

from tinycss2.color4 import parse_color as _tinycss2_parse_color

__all__ = [
    "BASIC_COLORS",
    "COLOR_ATTRIBUTES",
    "RGBA",
    "normalise_color",
    "canonical_color",
    "COLOR_KEYWORDS",
    "parse_css_color",
    "color_keyword",
    "is_none",
    "is_current_color",
    "hex_to_lab",
    "rgb_to_lab",
    "delta_e76",
]

RGBA = tuple[float, float, float, float]
"""sRGB red, green, blue in [0, 1] (gamma-encoded) and alpha in [0, 1]."""

BASIC_COLORS: dict[str, str] = {
    "aqua": "#00ffff",
    "black": "#000000",
    "blue": "#0000ff",
    "fuchsia": "#ff00ff",
    "gray": "#808080",
    "green": "#008000",
    "grey": "#808080",
    "lime": "#00ff00",
    "maroon": "#800000",
    "navy": "#000080",
    "olive": "#808000",
    "orange": "#ffa500",
    "purple": "#800080",
    "red": "#ff0000",
    "silver": "#c0c0c0",
    "teal": "#008080",
    "white": "#ffffff",
    "yellow": "#ffff00",
}
"""The 18 colour names the reference maps to hex (spec §4.6); every other name stays a word."""

COLOR_ATTRIBUTES: frozenset[str] = frozenset(
    {"color", "fill", "stroke", "stop-color", "flood-color", "lighting-color"}
)
"""Attributes whose values are colours in the reference (spec §4.1 rule 2, §8.1 rule 5)."""

_HEX3_RE = re.compile(r"#[0-9a-f]{3}")
_HEX6_RE = re.compile(r"#[0-9a-f]{6}")
# ``\d`` is any Unicode decimal digit, as in the reference's regex (spec §15); int() reads them.
_RGB_INT_RE = re.compile(r"rgb\(\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*\)")


def normalise_color(value: str) -> str:
    """Normalise a colour spelling exactly as the reference does (spec §4.6).

    Trim (Unicode whitespace) and lower-case, then: the 18 :data:`BASIC_COLORS` → hex;
    ``#rgb`` → ``#rrggbb``; ``#rrggbb`` stays; ``rgb(r g b)`` with three 1–3 digit integers
    0–255 separated by a comma or a space (optional surrounding whitespace) → ``#rrggbb``;
    anything else is returned lower-cased but otherwise unchanged.

    Parameters
    ----------
    value : str

    Returns
    -------
    str

    Examples
    --------
    >>> normalise_color(" White "), normalise_color("#FFF"), normalise_color("rgb(255, 255,255)")
    ('#ffffff', '#ffffff', '#ffffff')
    >>> normalise_color("NONE"), normalise_color("Crimson"), normalise_color("#ABCD")
    ('none', 'crimson', '#abcd')
    >>> normalise_color("rgb(256,0,0)"), normalise_color("rgb(10%,0%,0%)")
    ('rgb(256,0,0)', 'rgb(10%,0%,0%)')
    """
    v = value.strip().lower()
    hit = BASIC_COLORS.get(v)
    if hit is not None:
        return hit
    if _HEX3_RE.fullmatch(v):
        return "#" + v[1] * 2 + v[2] * 2 + v[3] * 2
    if _HEX6_RE.fullmatch(v):
        return v
    m = _RGB_INT_RE.fullmatch(v)
    if m is not None:
        comps = [int(g) for g in m.groups()]
        if all(0 <= c <= 255 for c in comps):
            return "#" + "".join(f"{c:02x}" for c in comps)
    return v


def color_keyword(value: str) -> str | None:
    """Return ``"none"`` or ``"currentcolor"`` if ``value`` is that keyword (any case), else None.

    Examples
    --------
    >>> color_keyword(" None "), color_keyword("currentColor"), color_keyword("red")
    ('none', 'currentcolor', None)
    """
    v = value.strip().lower()
    return v if v in ("none", "currentcolor") else None


def is_none(value: str) -> bool:
    """Return whether ``value`` is the paint keyword ``none`` (case-insensitive, trimmed)."""
    return color_keyword(value) == "none"


def is_current_color(value: str) -> bool:
    """Return whether ``value`` is the keyword ``currentColor`` (case-insensitive, trimmed)."""
    return color_keyword(value) == "currentcolor"


def _clip01(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def parse_css_color(value: str) -> RGBA | None:
    """Parse any CSS colour spelling SVG accepts into sRGB and alpha.

    Uses tinycss2's CSS Color Level 4 parser: every CSS named colour (``rebeccapurple``
    included), ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``/``rgba()`` with numbers
    or percentages in comma or space syntax with ``/ alpha``, ``hsl()``/``hsla()``, ``hwb()`` and
    ``transparent``. Case-insensitive; surrounding whitespace allowed.

    Parameters
    ----------
    value : str

    Returns
    -------
    tuple of 4 float or None
        (r, g, b, alpha), each in [0, 1] (channels clipped to the sRGB gamut). ``None`` for the
        keywords ``none`` and ``currentColor`` (see :func:`color_keyword`), for colour spaces
        other than sRGB/HSL/HWB (``lab()``, ``color(display-p3 …)``), and for anything that is
        not a colour.

    Examples
    --------
    >>> parse_css_color("rebeccapurple")
    (0.4, 0.2, 0.6, 1.0)
    >>> parse_css_color("rgb(100% 0% 0% / 50%)")
    (1.0, 0.0, 0.0, 0.5)
    >>> parse_css_color("transparent")
    (0.0, 0.0, 0.0, 0.0)
    >>> parse_css_color("none") is None, parse_css_color("currentColor") is None
    (True, True)
    >>> parse_css_color("#ggg") is None
    True
    """
    if not isinstance(value, str):
        return None
    if len(value) > 256:  # no CSS colour is this long; keeps the cache from pinning huge texts
        return None
    return _parse_css_color(value)


_HEX_COLOR_RE = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def _parse_hex_color(v: str) -> RGBA:
    """tinycss2's reading of a ``#`` colour of 3, 4, 6 or 8 hex digits, without its tokenizer.

    The same arithmetic as ``tinycss2.color4.parse_color`` (each channel ``int(hh, 16) / 255``,
    alpha 1 without an alpha digit pair), so the same floats
    (``tests/svg/test_color.py::test_hex_fast_path_matches_tinycss2``).
    """
    h = v[1:]
    if len(h) <= 4:
        ch = [int(c + c, 16) / 255 for c in h]
    else:
        ch = [int(h[i : i + 2], 16) / 255 for i in range(0, len(h), 2)]
    a = ch[3] if len(ch) == 4 else 1.0
    return (_clip01(ch[0]), _clip01(ch[1]), _clip01(ch[2]), _clip01(a))


@functools.lru_cache(maxsize=4096)
def _parse_css_color(value: str) -> RGBA | None:
    v = value.strip()
    if v[:1] == "#" and _HEX_COLOR_RE.fullmatch(v) is not None:
        return _parse_hex_color(v)  # the commonest spelling, ~10x cheaper than tokenizing it
    try:
        c = _tinycss2_parse_color(v)
    except Exception:  # tinycss2 should not raise, but a policy wrote this text
        return None
    if c is None or isinstance(c, str):
        return None
    if c.space not in ("srgb", "hsl", "hwb"):
        return None
    r, g, b, a = c.to("srgb")
    return (_clip01(r), _clip01(g), _clip01(b), _clip01(a))


COLOR_KEYWORDS: frozenset[str] = frozenset(
    {"none", "currentcolor", "inherit", "initial", "unset", "revert", "context-fill", "context-stroke"}
)
"""Paint/colour keywords that are not colours (ASCII case-insensitive, CSS Values 4 §6.1)."""


def canonical_color(value: str) -> str:
    """Default-mode canonical spelling of a colour value: equal iff same sRGB colour and alpha.

    Every CSS Color 4 spelling :func:`parse_css_color` reads (any named colour in any case,
    ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``/``rgba()`` with numbers or
    percentages, comma or space syntax with ``/ alpha``, ``hsl()``/``hsla()`` with hue units,
    ``hwb()``, ``transparent``) becomes ``#rrggbb`` when opaque with 8-bit channels, else
    ``rgba(r g b / a)`` with channels on the 0–255 scale rounded to 1e-4 and alpha to 1e-6 (so
    ``hsl(120 100% 25%)`` ≡ ``#008000`` despite binary rounding of the conversion). Keywords
    (:data:`COLOR_KEYWORDS`, ``currentColor`` included) become lower case; anything else is
    returned trimmed and lower-cased.

    Examples
    --------
    >>> canonical_color("hsl(0,100%,50%)"), canonical_color("rgb(100%,0%,0%)"), canonical_color("RED")
    ('#ff0000', '#ff0000', '#ff0000')
    >>> canonical_color("#f008") == canonical_color("rgba(255 0 0 / 53.33333333%)")
    True
    >>> canonical_color("transparent"), canonical_color("CurrentColor"), canonical_color("Bogus")
    ('rgba(0 0 0 / 0)', 'currentcolor', 'bogus')
    """
    if value[:1] == "#" and _HEX_OPAQUE_RE.fullmatch(value) is not None:
        # #rgb / #rrggbb: each channel int(hh, 16) / 255 comes back as hh (every channel value
        # is checked in tests/svg/test_color.py), alpha 1: the lower-cased six digits.
        low = value.lower()
        return low if len(low) == 7 else "#" + low[1] * 2 + low[2] * 2 + low[3] * 2
    return _canonical_color_read(value)


_HEX_OPAQUE_RE = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")


def _canonical_color_read(value: str) -> str:
    """:func:`canonical_color` by reading the colour's channels (every spelling)."""
    v = value.strip()
    low = v.lower()
    if low in COLOR_KEYWORDS:
        return low
    rgba = parse_css_color(v)
    if rgba is None:
        return low
    r, g, b = (round(c * 255.0, 4) for c in rgba[:3])
    a = round(rgba[3], 6)
    if a == 1.0 and r.is_integer() and g.is_integer() and b.is_integer():
        return f"#{int(r):02x}{int(g):02x}{int(b):02x}"
    return f"rgba({_trim(f'{r:.4f}')} {_trim(f'{g:.4f}')} {_trim(f'{b:.4f}')} / {_trim(f'{a:.6f}')})"


def _trim(s: str) -> str:
    s = s.rstrip("0").rstrip(".")
    return "0" if s in ("", "-0") else s


# Lab pipeline of spec §8.8, operation order as the reference evaluates it (spec §15).
def _linearise(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _pivot(u: float) -> float:
    return u ** (1 / 3) if u > 0.008856 else 7.787 * u + 16 / 116


def rgb_to_lab(r: float, g: float, b: float) -> tuple[float, float, float]:
    """Convert gamma-encoded sRGB channels in [0, 1] to CIE Lab (D65) per spec §8.8.

    Steps 1–4 of spec §8.8 in the reference's operation order: linearise, the sRGB→XYZ matrix
    summed left to right, divide X by 0.95047 and Z by 1.08883, the pivot
    ``u^(1/3)`` if ``u > 0.008856`` else ``7.787·u + 16/116``, then L, a, b.

    Parameters
    ----------
    r, g, b : float
        sRGB channels (``hex/255``).

    Returns
    -------
    tuple of 3 float
        (L, a, b).
    """
    rl = _linearise(r)
    gl = _linearise(g)
    bl = _linearise(b)
    x = (rl * 0.4124564 + gl * 0.3575761 + bl * 0.1804375) / 0.95047
    y = rl * 0.2126729 + gl * 0.7151522 + bl * 0.0721750
    z = (rl * 0.0193339 + gl * 0.1191920 + bl * 0.9503041) / 1.08883
    fx = _pivot(x)
    fy = _pivot(y)
    fz = _pivot(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


@functools.lru_cache(maxsize=65536)
def hex_to_lab(hex6: str) -> tuple[float, float, float]:
    """Convert ``#rrggbb`` (or ``rrggbb``, any case) to CIE Lab per spec §8.8.

    Parameters
    ----------
    hex6 : str
        Six hex digits, optionally prefixed by ``#``.

    Returns
    -------
    tuple of 3 float
        (L, a, b); D65 white, the reference's constants.

    Raises
    ------
    ValueError
        If ``hex6`` is not six hex digits.

    Examples
    --------
    >>> [round(v, 4) for v in hex_to_lab("#f59e0b")]
    [72.1585, 23.4931, 75.2246]
    >>> hex_to_lab("#000000")
    (0.0, 0.0, 0.0)
    """
    h = hex6[1:] if hex6[:1] == "#" else hex6
    if len(h) != 6 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
        raise ValueError(f"expected a #rrggbb colour, got {hex6!r}")
    return rgb_to_lab(int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255)


def delta_e76(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """Return the CIE76 colour difference ΔE76: the Euclidean distance in Lab (spec §8.8).

    Summed left to right (L, a, b) as the reference does under CPython 3.11.

    Examples
    --------
    >>> round(delta_e76(hex_to_lab("#6a1a1a"), hex_to_lab("#6b1a1a")), 6)
    0.504482
    """
    d0 = lab1[0] - lab2[0]
    d1 = lab1[1] - lab2[1]
    d2 = lab1[2] - lab2[2]
    return math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
