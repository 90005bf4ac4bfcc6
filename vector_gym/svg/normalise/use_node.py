"""``<use>`` and ``<symbol>`` (contract item 5): each use replaced by a copy of its target."""

from __future__ import annotations

import copy

from lxml import etree

from vector_gym.svg.normalise.common import (
    _S,
    _XLINK_HREF,
    IDENTITY,
    _href,
    _log,
    _matrix_str,
    _mul,
    _ref_id,
)
from vector_gym.svg.normalise.transforms import read_transform
from vector_gym.svg.normalise.units import _length
from vector_gym.svg.parse import local_name, read_attributes

_USE_SKIP = frozenset({"x", "y", "width", "height", "href", _XLINK_HREF})


_CLIP_CONTENT = frozenset(
    {"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text"}
)


def _strip_ids(el) -> None:
    for e in el.iter():
        if isinstance(e.tag, str) and "id" in e.attrib:
            del e.attrib["id"]


def _expand_uses(root, ids: dict, budget: int) -> None:
    count = [0]

    def expand(use, chain: tuple) -> None:
        parent = use.getparent()
        if parent is None:
            return
        target = ids.get(_ref_id(_href(use)))
        anc = set()
        a = use
        while a is not None:
            anc.add(a)
            a = a.getparent()
        if target is None or target in chain or target in anc or count[0] > budget:
            _log.debug(
                "dropped <use id=%r href=%r>: dangling, cyclic or over budget",
                use.get("id"),
                _href(use),
            )
            parent.remove(use)
            return
        x = _length(use.get("x"), 0.0) or 0.0
        y = _length(use.get("y"), 0.0) or 0.0
        tname = local_name(target.tag)
        if isinstance(parent.tag, str) and local_name(parent.tag) == "clipPath":
            # A clipPath may hold shapes, text and uses of them, not <g> (SVG 1.1 §14.3.5):
            # put the copy itself in place, the use's transform and translation merged.
            if tname not in _CLIP_CONTENT or count[0] > budget:
                parent.remove(use)
                return
            clone = copy.deepcopy(target)
            _strip_ids(clone)
            m = _mul(read_transform(use.get("transform", "")), (1.0, 0.0, 0.0, 1.0, x, y))
            m = _mul(m, read_transform(clone.get("transform", "")))
            for k, v in read_attributes(use).items():
                if k not in _USE_SKIP and k not in ("id", "transform") and k not in clone.attrib:
                    clone.set(k, v)
            if m != IDENTITY:
                clone.set("transform", _matrix_str(m))
            elif "transform" in clone.attrib:
                del clone.attrib["transform"]
            clone.tail = use.tail
            count[0] += 1
            parent.replace(use, clone)
            return
        g = etree.Element(_S + "g")
        for k, v in read_attributes(use).items():
            if k not in _USE_SKIP:
                g.set(k, v)
        if x or y:
            base = read_transform(use.get("transform", ""))
            g.set("transform", _matrix_str(_mul(base, (1.0, 0.0, 0.0, 1.0, x, y))))
        if tname == "symbol":
            inner = etree.SubElement(g, _S + "svg")
            for k in ("viewBox", "preserveAspectRatio", "overflow"):
                if target.get(k) is not None:
                    inner.set(k, target.get(k))
            inner.set("width", use.get("width") or target.get("width") or "100%")
            inner.set("height", use.get("height") or target.get("height") or "100%")
            for k, v in read_attributes(target).items():
                if k not in (
                    "viewBox",
                    "preserveAspectRatio",
                    "overflow",
                    "width",
                    "height",
                    "x",
                    "y",
                    "id",
                ):
                    inner.set(k, v)
            for ch in target:
                inner.append(copy.deepcopy(ch))
        else:
            inner = copy.deepcopy(target)
            inner.tail = None
            if tname == "svg":
                for k in ("width", "height"):
                    if use.get(k) is not None:
                        inner.set(k, use.get(k))
            g.append(inner)
        _strip_ids(inner)
        count[0] += sum(1 for _ in inner.iter())
        g.tail = use.tail
        parent.replace(use, g)
        for u in list(inner.iter(_S + "use", "use")):
            expand(u, chain + (target,))

    for use in list(root.iter(_S + "use", "use")):
        expand(use, ())
