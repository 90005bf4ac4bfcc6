"""``paint-order`` (contract item 12): stroke-first drawn as two copies."""

from __future__ import annotations

import copy

from lxml import etree

from vector_gym.svg.normalise.common import _S
from vector_gym.svg.normalise.context import _State


def _split_paint_order(el, state: _State) -> None:
    """paint-order: stroke first → <g (el's transform, opacity...)> stroke copy, fill copy </g>."""
    parent = el.getparent()
    g = etree.Element(_S + "g")
    for k in ("transform", "opacity", "clip-path", "mask", "filter", "id"):
        v = el.get(k)
        if v is not None:
            g.set(k, v)
            del el.attrib[k]
    stroke_copy = copy.deepcopy(el)
    stroke_copy.set("fill", "none")
    stroke_copy.attrib.pop("fill-opacity", None)
    el.set("stroke", "none")
    el.attrib.pop("stroke-opacity", None)
    g.tail = el.tail
    el.tail = None
    parent.replace(el, g)
    g.append(stroke_copy)
    g.append(el)
