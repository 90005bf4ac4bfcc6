"""Paint servers (contract items 4 and 11): gradient templates flattened, paint references resolved to a server, a colour or ``none``."""

from __future__ import annotations

import copy

from vector_gym.svg.normalise.common import _S, _XLINK_HREF, _fmt, _href, _ref_id
from vector_gym.svg.normalise.context import _Ctx, _State
from vector_gym.svg.normalise.paint import _BLACK, _CURRENT, _NONE, _paint
from vector_gym.svg.normalise.units import _LEADING_NUMBER_RE, _number_or_pct
from vector_gym.svg.parse import local_name

_GRAD_COMMON = ("gradientUnits", "gradientTransform", "spreadMethod")


_GRAD_OWN = {
    "linearGradient": ("x1", "y1", "x2", "y2"),
    "radialGradient": ("cx", "cy", "r", "fx", "fy", "fr"),
}


def _flatten_gradients(root, ids: dict) -> None:
    grads = [
        el
        for el in root.iter(
            _S + "linearGradient", _S + "radialGradient", "linearGradient", "radialGradient"
        )
    ]
    for el in grads:
        kind = local_name(el.tag)
        href = _href(el)
        has_stops = any(isinstance(c.tag, str) and local_name(c.tag) == "stop" for c in el)
        seen = {el}
        t = ids.get(_ref_id(href))
        while t is not None and t not in seen and len(seen) < 32:
            seen.add(t)
            tkind = local_name(t.tag)
            if tkind not in _GRAD_OWN:
                break
            names = _GRAD_COMMON + (_GRAD_OWN[kind] if tkind == kind else ())
            for k in names:
                if el.get(k) is None and t.get(k) is not None:
                    el.set(k, t.get(k))
            if not has_stops:
                stops = [c for c in t if isinstance(c.tag, str) and local_name(c.tag) == "stop"]
                if stops:
                    for s in stops:
                        el.append(copy.deepcopy(s))
                    has_stops = True
            t = ids.get(_ref_id(_href(t)))
        for k in ("href", _XLINK_HREF):
            if k in el.attrib:
                del el.attrib[k]
        last = 0.0
        for c in el:
            if isinstance(c.tag, str) and local_name(c.tag) == "stop":
                off = _number_or_pct(c.get("offset"), 0.0)
                last = max(last, off)
                c.set("offset", _fmt(last))


def _resolve_paint(p, ctx: _Ctx, state: _State):
    """Resolve currentColor and url() into ('none',) | ('color', hex, a) | ('url', id, None)."""
    if p is _CURRENT or p == _CURRENT:
        return ctx.color
    if p[0] == "url":
        target = state.ids.get(p[1])
        if target is not None and local_name(target.tag) in (
            "linearGradient",
            "radialGradient",
            "pattern",
        ):
            if local_name(target.tag) != "pattern":
                stops = [
                    c for c in target if isinstance(c.tag, str) and local_name(c.tag) == "stop"
                ]
                if not stops:
                    return _NONE
                if len(stops) == 1:
                    s = stops[0]
                    sc = _paint(s.get("stop-color", "black")) or _BLACK
                    if sc == _CURRENT or sc == "inherit" or sc[0] != "color":
                        sc = ctx.color if sc == _CURRENT else _BLACK
                    return ("color", sc[1], sc[2] * _number_or_pct(s.get("stop-opacity"), 1.0))
            elif not _pattern_paints(target, state.ids):
                return _NONE
            return ("url", p[1], None)
        fb = p[2]
        if fb is None:
            return _NONE
        return _resolve_paint(fb, ctx, state)
    return p


def _pattern_paints(pattern, ids: dict) -> bool:
    """Whether a ``<pattern>`` (with its ``href`` templates) paints anything (SVG 1.1 §13.3).

    A missing, zero or negative ``width`` or ``height`` disables the paint (no paint is applied,
    not black), as does a pattern without content.
    """
    size = {}
    content = False
    seen = set()
    el = pattern
    while el is not None and el not in seen and len(seen) < 32 and local_name(el.tag) == "pattern":
        seen.add(el)
        for k in ("width", "height"):
            if k not in size and el.get(k) is not None:
                size[k] = el.get(k)
        content = content or any(isinstance(c.tag, str) for c in el)
        el = ids.get(_ref_id(_href(el)))
    for k in ("width", "height"):
        m = _LEADING_NUMBER_RE.match(size.get(k, "0"))
        if m is None or not float(m.group(0)) > 0:
            return False
    return content
