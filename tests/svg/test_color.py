"""Tests for vector_gym.svg.color (spec-reward.md §4.6, §8.8)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vector_gym.svg.color import (
    BASIC_COLORS,
    color_keyword,
    delta_e76,
    hex_to_lab,
    is_current_color,
    is_none,
    normalise_color,
    parse_css_color,
    rgb_to_lab,
)


def test_basic_colors_are_the_18_of_spec_4_6():
    assert sorted(BASIC_COLORS) == sorted(
        "aqua black blue fuchsia gray grey green lime maroon navy olive orange purple red "
        "silver teal white yellow".split()
    )
    # Each basic name agrees with the CSS definition (tinycss2's table).
    for name, hx in BASIC_COLORS.items():
        r, g, b, a = parse_css_color(name)
        assert f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}" == hx


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # spec §4.6: white ≡ #FFF ≡ rgb(255, 255,255) ≡ #ffffff, NONE ≡ none
        ("white", "#ffffff"),
        ("#FFF", "#ffffff"),
        ("rgb(255, 255,255)", "#ffffff"),
        ("#ffffff", "#ffffff"),
        ("NONE", "none"),
        ("  Grey ", "#808080"),
        ("rgb(1 2 3)", "#010203"),
        ("rgb( 10 ,20, 30 )", "#0a141e"),
        # everything else: lower-cased, otherwise unchanged
        ("transparent", "transparent"),
        ("currentColor", "currentcolor"),
        ("Crimson", "crimson"),
        ("rgba(1,2,3,0.5)", "rgba(1,2,3,0.5)"),
        ("hsl(0,0%,0%)", "hsl(0,0%,0%)"),
        ("rgb(10%,20%,30%)", "rgb(10%,20%,30%)"),
        ("#ABCD", "#abcd"),
        ("#AABBCCDD", "#aabbccdd"),
        ("#yellow", "#yellow"),
        ("rgb(256,0,0)", "rgb(256,0,0)"),
        ("rgb(1,2,3,4)", "rgb(1,2,3,4)"),
        ("rgb(1,,2,3)", "rgb(1,,2,3)"),
    ],
)
def test_normalise_color(raw, expected):
    assert normalise_color(raw) == expected


@pytest.mark.parametrize(
    ("raw", "rgba"),
    [
        ("rebeccapurple", (0x66 / 255, 0x33 / 255, 0x99 / 255, 1.0)),
        ("crimson", (220 / 255, 20 / 255, 60 / 255, 1.0)),
        ("#f00", (1.0, 0.0, 0.0, 1.0)),
        ("#f008", (1.0, 0.0, 0.0, 0x88 / 255)),
        ("#FF0000", (1.0, 0.0, 0.0, 1.0)),
        ("#ff000080", (1.0, 0.0, 0.0, 128 / 255)),
        ("rgb(255, 0, 0)", (1.0, 0.0, 0.0, 1.0)),
        ("rgb(255 0 0)", (1.0, 0.0, 0.0, 1.0)),
        ("rgb(100%, 0%, 0%)", (1.0, 0.0, 0.0, 1.0)),
        ("rgb(255 0 0 / 0.25)", (1.0, 0.0, 0.0, 0.25)),
        ("rgba(255, 0, 0, 0.5)", (1.0, 0.0, 0.0, 0.5)),
        ("hsl(120, 100%, 50%)", (0.0, 1.0, 0.0, 1.0)),
        ("hsla(240, 100%, 50%, 0.3)", (0.0, 0.0, 1.0, 0.3)),
        ("hsl(0 0% 100% / 50%)", (1.0, 1.0, 1.0, 0.5)),
        ("transparent", (0.0, 0.0, 0.0, 0.0)),
        (" RED ", (1.0, 0.0, 0.0, 1.0)),
        ("rgb(300, -5, 0)", (1.0, 0.0, 0.0, 1.0)),  # clipped to the gamut
    ],
)
def test_parse_css_color(raw, rgba):
    got = parse_css_color(raw)
    assert got is not None
    assert np.allclose(got, rgba, atol=1e-12)


@pytest.mark.parametrize("raw", ["none", "NONE", "currentColor", "#ggg", "#12", "bogus", "", "red blue",
                                 "url(#a)", "rgb(1,2)"])
def test_parse_css_color_not_a_colour(raw):
    assert parse_css_color(raw) is None


def test_keywords():
    assert is_none(" None ") and not is_none("red")
    assert is_current_color("CurrentColor") and not is_current_color("none")
    assert color_keyword("transparent") is None


def test_hex_to_lab_reference_values():
    # spec §8.8: #f59e0b → (72.1585, 23.4931, 75.2246); #000000 → (0, 0, 0)
    L, a, b = hex_to_lab("#f59e0b")
    assert (round(L, 4), round(a, 4), round(b, 4)) == (72.1585, 23.4931, 75.2246)
    assert hex_to_lab("#000000") == (0.0, 0.0, 0.0)
    assert hex_to_lab("F59E0B") == hex_to_lab("#f59e0b")


def test_delta_e76_reference_values():
    # spec §8.8: ΔE76(#6a1a1a, #6b1a1a) = 0.504482; §14 sv_005 pear-2 δ = 120.950239,
    # sv_001 signal-amber δ = 106.852806.
    assert round(delta_e76(hex_to_lab("#6a1a1a"), hex_to_lab("#6b1a1a")), 6) == 0.504482
    assert round(delta_e76(hex_to_lab("#dc2626"), hex_to_lab("#a3e635")), 6) == 120.950239
    assert round(delta_e76(hex_to_lab("#000000"), hex_to_lab("#f59e0b")), 6) == 106.852806


def test_hex_to_lab_rejects_non_hex():
    for bad in ("#fff", "#gggggg", "white", "#ffffff0"):
        with pytest.raises(ValueError):
            hex_to_lab(bad)


def _independent_lab(hx: str) -> tuple[float, float, float]:
    """CIE Lab from first principles: the RGB→XYZ matrix derived from the sRGB primaries'
    chromaticities (IEC 61966-2-1) and the ASTM E308 D65 white XYZ (0.95047, 1, 1.08883), as in
    B. Lindbloom's derivation; exact CIE ε = 216/24389 and κ = 24389/27; the cube root by
    np.cbrt. Only the sRGB transfer function is shared with the code under test."""
    prim = np.array([[0.64, 0.33], [0.30, 0.60], [0.15, 0.06]])
    xyz_cols = np.array([[x / y, 1.0, (1 - x - y) / y] for x, y in prim]).T
    white = np.array([0.95047, 1.0, 1.08883])
    m = xyz_cols * np.linalg.solve(xyz_cols, white)
    c = np.array([int(hx[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = m @ lin / white
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


@pytest.mark.parametrize("hx", ["#f59e0b", "#6a1a1a", "#ffffff", "#808080", "#0000ff", "#a3e635", "#dc2626",
                                "#010101", "#123456"])
def test_lab_matches_independent_formula(hx):
    assert np.allclose(hex_to_lab(hx), _independent_lab(hx), atol=1e-3)


def test_rgb_to_lab_white():
    L, a, b = rgb_to_lab(1.0, 1.0, 1.0)
    assert math.isclose(L, 100.0, abs_tol=1e-3) and abs(a) < 1e-2 and abs(b) < 1e-2


def _tinycss2_reading(value):
    # _parse_css_color's reading through tinycss2's tokenizer (the path before the hex fast path).
    from tinycss2.color4 import parse_color

    from vector_gym.svg.color import _clip01

    c = parse_color(value.strip())
    if c is None or isinstance(c, str) or c.space not in ("srgb", "hsl", "hwb"):
        return None
    return tuple(_clip01(x) for x in c.to("srgb"))


def test_hex_fast_path_matches_tinycss2():
    # The '#' fast path of _parse_css_color gives tinycss2's floats bit for bit: every 3-digit
    # colour, every channel value at every position of 4-, 6- and 8-digit colours, mixed case
    # and surrounding whitespace, and random colours of each length.
    import random

    from vector_gym.svg.color import _parse_css_color

    hexd = "0123456789abcdef"
    values = [f"#{a}{b}{c}" for a in hexd for b in hexd for c in hexd]
    for n in (4, 6, 8):
        for pos in range(0, n, 1 if n == 4 else 2):
            for v in range(16 if n == 4 else 256):
                digits = ["7"] * n
                digits[pos : pos + (1 if n == 4 else 2)] = f"{v:x}" if n == 4 else f"{v:02x}"
                values.append("#" + "".join(digits))
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.choice((3, 4, 6, 8))
        values.append("#" + "".join(rng.choice(hexd + "ABCDEF") for _ in range(n)))
    values += [" \t#AbC\n", "#FFFFFF", "#00000000", "\u00a0#123456\u2003"]
    assert len(values) > 8000
    for value in values:
        _parse_css_color.cache_clear()
        got = _parse_css_color(value)
        want = _tinycss2_reading(value)
        assert want is not None and [x.hex() for x in got] == [x.hex() for x in want], value
    # Spellings outside the fast path still go through tinycss2.
    for value in ("#12345", "#1234567", "#ggg", "#abc ;", "# abc", "#abcd1234ff"):
        _parse_css_color.cache_clear()
        assert _parse_css_color(value) == _tinycss2_reading(value), value


def test_opaque_hex_shortcut_equals_reading_the_channels():
    """canonical_color's #rgb / #rrggbb shortcut equals the channel reading for every channel
    value in every position, every 3-digit colour, in both cases (and never for other texts)."""
    from vector_gym.svg.color import _canonical_color_read, canonical_color

    hexd = "0123456789abcdef"
    values = ["#" + a + b + c for a in hexd for b in hexd for c in hexd]
    for v in range(256):
        h = f"{v:02x}"
        values += [f"#{h}0000", f"#00{h}00", f"#0000{h}", f"#{h}{h}{h}", f"#{h}7f{h}"]
    values += [v.upper() for v in values]
    for v in values:
        assert canonical_color(v) == _canonical_color_read(v), v
    for v in ("#abcd", "#abcdef12", " #abc", "#abc ", "#abcde", "#ggg", "#", "abc"):
        assert canonical_color(v) == _canonical_color_read(v), v
