"""Nested viewports (contract item 8): a nested ``<svg>`` becomes a clipped ``<g>`` with the viewBox transform (SVG 1.1 §7.8)."""

from __future__ import annotations

from lxml import etree

from vector_gym.svg.normalise.common import _S, IDENTITY, Matrix, _fmt, _matrix_str, _mul
from vector_gym.svg.normalise.context import _Ctx, _State
from vector_gym.svg.normalise.units import _length
from vector_gym.svg.viewbox import parse_viewbox


def _viewbox_matrix(vb, par: str | None, w: float, h: float) -> Matrix:
    """The viewBox-to-viewport transform of SVG 1.1 §7.8 (preserveAspectRatio)."""
    vx, vy, vw, vh = vb
    sx, sy = w / vw, h / vh
    parts = (par or "xMidYMid meet").split()
    align = parts[0] if parts else "xMidYMid"
    if align == "defer" and len(parts) > 1:
        parts = parts[1:]
        align = parts[0]
    slice_ = len(parts) > 1 and parts[1] == "slice"
    if align == "none":
        return (sx, 0.0, 0.0, sy, -vx * sx, -vy * sy)
    s = max(sx, sy) if slice_ else min(sx, sy)
    tx = -vx * s
    ty = -vy * s
    ax = align[1:4] if len(align) >= 8 else "Mid"
    ay = align[5:8] if len(align) >= 8 else "Mid"
    if ax == "Mid":
        tx += (w - vw * s) / 2
    elif ax == "Max":
        tx += w - vw * s
    if ay == "Mid":
        ty += (h - vh * s) / 2
    elif ay == "Max":
        ty += h - vh * s
    return (s, 0.0, 0.0, s, tx, ty)


def _nested_viewport(el, ctx: _Ctx, state: _State) -> tuple[object, tuple[float, float]] | None:
    """Turn a nested <svg> into <g clip><g transform>…; return (container for children, ctx)."""
    x = _length(el.get("x"), ctx.vw, ctx.fs) or 0.0
    y = _length(el.get("y"), ctx.vh, ctx.fs) or 0.0
    w = _length(el.get("width") or "100%", ctx.vw, ctx.fs)
    h = _length(el.get("height") or "100%", ctx.vh, ctx.fs)
    if w is None:
        w = ctx.vw
    if h is None:
        h = ctx.vh
    if w <= 0 or h <= 0:
        return None
    vb = parse_viewbox(el.get("viewBox") or "")
    if vb is None and el.get("viewBox"):
        z = parse_viewbox(el.get("viewBox"), require_positive=False)
        if z is not None and (z[2] == 0 or z[3] == 0) and z[2] >= 0 and z[3] >= 0:
            return None  # a zero-size viewBox disables rendering (SVG 1.1 §7.7)
    m = (1.0, 0.0, 0.0, 1.0, x, y)
    if vb is not None:
        m = _mul(m, _viewbox_matrix(vb, el.get("preserveAspectRatio"), w, h))
    overflow = (el.get("overflow") or "hidden").strip().lower()
    for k in ("x", "y", "width", "height", "viewBox", "preserveAspectRatio", "overflow"):
        if k in el.attrib:
            del el.attrib[k]
    el.tag = _S + "g"
    inner = etree.Element(_S + "g")
    if m != IDENTITY:
        inner.set("transform", _matrix_str(m))
    for ch in list(el):
        inner.append(ch)
    el.append(inner)
    if overflow not in ("visible", "auto"):
        cid = state.new_id()
        cp = etree.Element(_S + "clipPath", id=cid)
        state.ids[cid] = cp
        cp.set("clipPathUnits", "userSpaceOnUse")
        etree.SubElement(cp, _S + "rect", x=_fmt(x), y=_fmt(y), width=_fmt(w), height=_fmt(h))
        state.add_def(cp)
        if el.get("clip-path") is not None:  # keep the element's own clip on an extra wrapper
            outer = etree.Element(_S + "g")
            outer.set("clip-path", f"url(#{cid})")
            for ch in list(el):
                outer.append(ch)
            el.append(outer)
        else:
            el.set("clip-path", f"url(#{cid})")
    return inner, ((vb[2], vb[3]) if vb is not None else (w, h))
