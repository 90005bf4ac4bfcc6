"""The inherited context of the walk (viewport size, colour, paints, opacities, font size) and the per-document state (ids, generated defs)."""

from __future__ import annotations

from lxml import etree

from vector_gym.svg.normalise.common import _S, _log
from vector_gym.svg.parse import MANY_ATTRIBUTES, read_attributes


class _Ctx:
    __slots__ = ("vw", "vh", "color", "fill", "stroke", "fo", "so", "fs", "hidden", "sw0")

    def __init__(self, vw, vh, color, fill, stroke, fo, so, fs, hidden=False, sw0=False):
        self.vw = vw
        self.vh = vh
        self.color = color
        self.fill = fill
        self.stroke = stroke
        self.fo = fo
        self.so = so
        self.fs = fs
        self.hidden = hidden  # inherited visibility is hidden or collapse
        self.sw0 = sw0  # inherited stroke-width is 0 (no stroke; skia would draw a hairline)

    def child(self):
        return _Ctx(
            self.vw, self.vh, self.color, self.fill, self.stroke, self.fo, self.so, self.fs,
            self.hidden, self.sw0,
        )


class _State:
    def __init__(self, root, ids):
        self.root = root
        self.ids = ids
        self.defs = None
        self.n = 0

    def new_id(self) -> str:
        self.n += 1
        while f"__vg{self.n}" in self.ids:
            self.n += 1
        return f"__vg{self.n}"

    def add_def(self, el) -> None:
        if self.defs is None:
            self.defs = etree.Element(_S + "defs")
            self.root.insert(0, self.defs)
        self.defs.append(el)


def _drop(el, name: str) -> None:
    _log.debug(
        "dropped <%s id=%r>: nothing to render (bad size, radius or path data)", name, el.get("id")
    )
    el.getparent().remove(el)


def _store(el, attrib: dict) -> None:
    """Make ``el``'s attributes equal to ``attrib`` (order aside).

    Each lxml ``set``/``del`` searches the element's attribute list, so rewriting every attribute
    is quadratic in their number. An element with many attributes gets only the difference
    written when that is the smaller job (the common case: many attributes kept verbatim).
    """
    src = el.attrib
    if len(src) > MANY_ATTRIBUTES:
        old = read_attributes(el)
        gone = [k for k in old if k not in attrib]
        new = [(k, v) for k, v in attrib.items() if old.get(k) != v]
        if (len(gone) + len(new)) * len(old) < len(attrib) ** 2 // 2:
            for k in gone:
                del src[k]
            for k, v in new:
                src[k] = v
            return
    src.clear()
    src.update(attrib)
