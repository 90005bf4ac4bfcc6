"""Paint values (contract item 3): CSS colours to ``#rrggbb`` plus an opacity, ``currentColor``, ``url()`` with fallback."""

from __future__ import annotations

from functools import lru_cache

from vector_gym.svg.color import parse_css_color
from vector_gym.svg.normalise.common import _URL_RE, _fmt, _ref_id, _url

_NONE = ("none",)


_BLACK = ("color", "#000000", 1.0)


_CURRENT = ("current",)


@lru_cache(maxsize=8192)
def _color(value: str) -> tuple[str, float] | None:
    rgba = parse_css_color(value)
    if rgba is None:
        return None
    r, g, b, a = rgba
    return (f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}", a)


def _paint(value: str):
    """Parse a paint value: ('none',) | ('color', hex, a) | ('url', id, fallback) | ('current',) | 'inherit' | None."""
    v = value.strip()
    low = v.lower()
    if low == "none":
        return _NONE
    if low == "currentcolor":
        return _CURRENT
    if low == "inherit":
        return "inherit"
    if low.startswith("url("):
        m = _URL_RE.match(v)
        if m is None:
            return None
        rid = _ref_id(_url(m))
        rest = v[m.end() :].strip()
        fb = _paint(rest) if rest else None
        if fb is not None and (fb == "inherit" or fb[0] == "url"):
            fb = None
        return ("url", rid, fb)
    c = _color(v)
    if c is None:
        return None
    return ("color", c[0], c[1])


def _set_paint(attrib: dict, name: str, p, opacity: float) -> None:
    if p[0] == "none":
        attrib[name] = "none"
        return
    if p[0] == "url":
        attrib[name] = f"url(#{p[1]})"
        a = 1.0
    else:
        attrib[name] = p[1]
        a = p[2]
    op = opacity * a
    if op < 1.0:
        attrib[name + "-opacity"] = _fmt(round(op, 6))
    else:
        attrib.pop(name + "-opacity", None)


_CCOLOR_OPACITY = {
    "stop-color": "stop-opacity",
    "flood-color": "flood-opacity",
    "lighting-color": None,
}
