"""The walk over the tree: each element's attributes normalised in one pass, children visited with the inherited context."""

from __future__ import annotations

from vector_gym.svg.normalise.common import (
    _S,
    _URL_RE,
    _XLINK_HREF,
    IDENTITY,
    _fmt,
    _matrix_str,
    _mul,
    _ref_id,
    _url,
)
from vector_gym.svg.normalise.context import _Ctx, _drop, _State, _store
from vector_gym.svg.normalise.elements import (
    _DRAWING,
    _DROP,
    _DROP_ATTRS,
    _GEOMETRY,
    _LEN_X,
    _LEN_Y,
    _OBB_DEFAULT,
    _TEXTUAL,
    _UNITS_ATTR,
)
from vector_gym.svg.normalise.paint import _CCOLOR_OPACITY, _CURRENT, _NONE, _paint, _set_paint
from vector_gym.svg.normalise.paint_order import _split_paint_order
from vector_gym.svg.normalise.paint_server import _resolve_paint
from vector_gym.svg.normalise.paths import sanitize_path_data
from vector_gym.svg.normalise.shapes import _ellipse_path
from vector_gym.svg.normalise.switch import _switch_ok
from vector_gym.svg.normalise.transforms import (
    parse_transform_lenient,
    read_transform,
    transform_origin,
)
from vector_gym.svg.normalise.units import (
    _PLAIN_NUMBER_RE,
    _length,
    _number_or_pct,
    viewport_diagonal,
)
from vector_gym.svg.normalise.use_node import _CLIP_CONTENT
from vector_gym.svg.normalise.viewport import _nested_viewport
from vector_gym.svg.parse import read_attributes

(
    _K_DROP,
    _K_HREF,
    _K_FS,
    _K_COLOR,
    _K_FILL,
    _K_STROKE,
    _K_FO,
    _K_SO,
    _K_OPACITY,
    _K_CCOLOR,
    _K_URL,
    _K_TF,
    _K_SW,
    _K_PO,
    _K_TO,
    _K_VIS,
) = range(16)


_KIND = {k: _K_DROP for k in _DROP_ATTRS}
_KIND.update(
    {
        "href": _K_HREF,
        _XLINK_HREF: _K_HREF,
        "font-size": _K_FS,
        "color": _K_COLOR,
        "fill": _K_FILL,
        "stroke": _K_STROKE,
        "fill-opacity": _K_FO,
        "stroke-opacity": _K_SO,
        "opacity": _K_OPACITY,
        "stop-opacity": _K_OPACITY,
        "flood-opacity": _K_OPACITY,
        "stop-color": _K_CCOLOR,
        "flood-color": _K_CCOLOR,
        "lighting-color": _K_CCOLOR,
        "clip-path": _K_URL,
        "mask": _K_URL,
        "filter": _K_URL,
        "marker-start": _K_URL,
        "marker-mid": _K_URL,
        "marker-end": _K_URL,
        "marker": _K_URL,
        "transform": _K_TF,
        "gradientTransform": _K_TF,
        "patternTransform": _K_TF,
        "stroke-width": _K_SW,
        "paint-order": _K_PO,
        "transform-origin": _K_TO,
        "visibility": _K_VIS,
    }
)


def _stroke_before_fill(value: str) -> bool:
    """``paint-order`` (SVG 2 §13.5): the listed layers first, the others in normal order."""
    order = [t for t in value.lower().split() if t in ("fill", "stroke", "markers")]
    if not order:
        return False
    order += [t for t in ("fill", "stroke", "markers") if t not in order]
    return order.index("stroke") < order.index("fill")


def _shape_geometry(el, name: str, attrib: dict) -> bool:
    """Rewrite a drawing element's geometry in ``attrib`` (contract item 10), in the walk's way.

    Circles and ellipses become ``<path>`` (``el.tag`` changes), path data is cut after its
    last valid segment. Returns False when the element cannot render (a zero or negative
    radius or size, no valid path segment): the caller drops it.
    """
    if name in ("circle", "ellipse"):
        try:
            cx = float(attrib.get("cx", 0) or 0)
            cy = float(attrib.get("cy", 0) or 0)
            if name == "circle":
                rx = ry = float(attrib.get("r", 0))
            else:
                rxs, rys = attrib.get("rx", "auto"), attrib.get("ry", "auto")
                rx = float(rxs) if rxs != "auto" else None
                ry = float(rys) if rys != "auto" else None
                rx = ry if rx is None else rx
                ry = rx if ry is None else ry
        except ValueError:
            rx = ry = None
        if not (rx is not None and ry is not None and rx > 0 and ry > 0):
            return False
        for k in ("cx", "cy", "r", "rx", "ry"):
            attrib.pop(k, None)
        el.tag = _S + "path"
        attrib["d"] = _ellipse_path(cx, cy, rx, ry)
    elif name == "path":
        d = attrib.get("d")
        d2 = sanitize_path_data(d) if d is not None else ""
        if not d2:
            return False
        if d2 != d:
            attrib["d"] = d2
    elif name == "rect":
        try:
            ok = float(attrib.get("width", 0)) > 0 and float(attrib.get("height", 0)) > 0
        except ValueError:
            ok = False
        if not ok:
            return False
    return True


def _attrs(el, name: str, ctx: _Ctx, state: _State) -> _Ctx | None:
    """Normalise ``el``'s own attributes; return the context its children inherit.

    One pass over the attributes dispatches on their names (:data:`_KIND`); the result is
    written back at once. Returns ``None`` when the element was removed (a shape that cannot
    render).
    """
    c = ctx.child()
    attrib: dict = {}
    paint_order = None
    origin = None
    ccolors = None
    color_v = fill_v = stroke_v = None
    for k, v in read_attributes(el).items():
        kind = _KIND.get(k)
        if kind is None:
            if k[0] == "{" or k[:2] == "on":
                continue  # foreign namespace (editor data), event handlers
            attrib[k] = v
        elif kind == _K_FILL:
            fill_v = v
        elif kind == _K_STROKE:
            stroke_v = v
        elif kind == _K_TF:
            m = read_transform(v)
            if m != IDENTITY:
                attrib[k] = _matrix_str(m)
        elif kind == _K_OPACITY:
            val = _number_or_pct(v, 1.0)
            if val < 1.0:
                attrib[k] = _fmt(val)
        elif kind == _K_FO:
            c.fo = _number_or_pct(v, 1.0)
        elif kind == _K_SO:
            c.so = _number_or_pct(v, 1.0)
        elif kind == _K_HREF:
            if k == "href" or _XLINK_HREF not in attrib:  # plain href wins (SVG 2 §5.3.3)
                attrib[_XLINK_HREF] = v
        elif kind == _K_URL:
            if "url(" in v:
                m = _URL_RE.search(v)
                rid = _ref_id(_url(m)) if m is not None else None
                if (rid is None or rid not in state.ids) and k in ("clip-path", "mask"):
                    continue  # a dangling clip or mask is ignored by browsers and resvg
                attrib[k] = f"url(#{rid})"
                if k == "filter":
                    target = state.ids.get(rid)
                    if target is not None and not any(isinstance(t.tag, str) for t in target):
                        attrib["opacity"] = "0"  # an empty filter's result is transparent
            else:
                attrib[k] = v
        elif kind == _K_SW:
            x = _length(v, viewport_diagonal(ctx.vw, ctx.vh), ctx.fs)
            if x is not None and x >= 0:
                attrib[k] = v if _PLAIN_NUMBER_RE.fullmatch(v) else _fmt(x)
                c.sw0 = x == 0
        elif kind == _K_COLOR:
            color_v = v
        elif kind == _K_CCOLOR:
            if ccolors is None:
                ccolors = []
            ccolors.append((k, v))
        elif kind == _K_FS:
            attrib[k] = v
            x = _length(v, ctx.fs, ctx.fs)
            if x is not None:
                c.fs = x
        elif kind == _K_PO:
            paint_order = v
        elif kind == _K_TO:
            origin = v
        elif kind == _K_VIS:
            vis = v.strip().lower()
            if vis in ("visible", "hidden", "collapse"):
                c.hidden = vis != "visible"
        # _K_DROP: dropped
    if origin is not None and "transform" in attrib:
        o = transform_origin(origin, ctx.vw, ctx.vh, ctx.fs)
        if o is not None and o != (0.0, 0.0):
            m = parse_transform_lenient(attrib["transform"])
            m = _mul(_mul((1.0, 0.0, 0.0, 1.0, o[0], o[1]), m), (1.0, 0.0, 0.0, 1.0, -o[0], -o[1]))
            attrib["transform"] = _matrix_str(m)
    if color_v is not None:
        p = _paint(color_v)
        if p is not None and p != "inherit" and p[0] == "color":
            c.color = p
    if fill_v is not None:
        p = _paint(fill_v)
        if p is not None and p != "inherit":
            c.fill = p  # currentColor inherits as a keyword, resolved where it is drawn
    if stroke_v is not None:
        p = _paint(stroke_v)
        if p is not None and p != "inherit":
            c.stroke = p
    if ccolors is not None:
        for k, v in ccolors:
            p = _paint(v)
            if p == _CURRENT:
                p = c.color
            if p is None or p == "inherit" or p[0] != "color":
                continue
            attrib[k] = p[1]
            oname = _CCOLOR_OPACITY[k]
            if oname is not None and p[2] < 1.0:
                base = _number_or_pct(attrib.get(oname), 1.0)
                attrib[oname] = _fmt(round(base * p[2], 6))
    if name == "feFlood":
        # skia converts the flood colour to linear RGB itself and then again for a linearRGB
        # primitive (issue 11): a flood is one colour, the same in either space, so sRGB.
        attrib["color-interpolation-filters"] = "sRGB"
    geo = _GEOMETRY.get(name)
    if geo:
        units_attr = _UNITS_ATTR.get(name)
        obb = False
        if units_attr is not None:
            u = attrib.get(units_attr)
            obb = (u is None and _OBB_DEFAULT.get(name, False)) or (
                u is not None and u.strip() == "objectBoundingBox"
            )
        diag = None
        for k in geo:
            v = attrib.get(k)
            if v is None or _PLAIN_NUMBER_RE.fullmatch(v):
                continue
            if obb:
                s = v.strip()
                if s.endswith("%"):
                    try:
                        attrib[k] = _fmt(float(s[:-1]) / 100)
                    except ValueError:
                        del attrib[k]
                continue
            if k in _LEN_X or k in ("width", "rx"):
                ref = c.vw
            elif k in _LEN_Y or k in ("height", "ry"):
                ref = c.vh
            else:
                if diag is None:
                    diag = viewport_diagonal(c.vw, c.vh)
                ref = diag
            x = _length(v, ref, c.fs)
            if x is None:
                if v.strip() != "auto":
                    del attrib[k]
            else:
                attrib[k] = _fmt(x)
    if name not in _DRAWING:
        _store(el, attrib)
        return c
    # Drawing elements: shapes to paths, then explicit paint.
    if not _shape_geometry(el, name, attrib):
        _drop(el, name)
        return None
    fill = _NONE if name == "line" else _resolve_paint(c.fill, c, state)
    stroke = _NONE if c.sw0 else _resolve_paint(c.stroke, c, state)
    if c.hidden:
        attrib["visibility"] = "hidden"  # written where it draws: a child may be visible
    _set_paint(attrib, "fill", fill, c.fo)
    _set_paint(attrib, "stroke", stroke, c.so)
    _store(el, attrib)
    if (
        paint_order is not None
        and _stroke_before_fill(paint_order)
        and fill[0] != "none"
        and stroke[0] != "none"
        and name not in _TEXTUAL
    ):
        _split_paint_order(el, state)
    return c


def _children(el, ctx: _Ctx, state: _State) -> None:
    clip = el.tag == _S + "clipPath"
    for ch in list(el):
        if not isinstance(ch.tag, str) or not ch.tag.startswith(_S):
            el.remove(ch)
            continue
        name = ch.tag[len(_S) :]
        if name in _DROP or name == "use":  # a use left here is dangling, cyclic or over budget
            el.remove(ch)
            continue
        if clip and name not in _CLIP_CONTENT:  # browsers and resvg ignore other clipPath children
            el.remove(ch)
            continue
        if name == "a":
            ch.tag = _S + "g"
            name = "g"
        elif name == "switch":
            ch.tag = _S + "g"
            name = "g"
            chosen = None
            for gc in list(ch):
                if (
                    chosen is None
                    and isinstance(gc.tag, str)
                    and gc.tag.startswith(_S)
                    and _switch_ok(gc)
                ):
                    chosen = gc
                else:
                    ch.remove(gc)
        elif name == "symbol":
            ch.tag = _S + "defs"
            name = "defs"
            for k in list(ch.attrib):
                if k != "id":
                    del ch.attrib[k]
        elif name == "svg":
            res = _nested_viewport(ch, ctx, state)
            if res is None:
                el.remove(ch)
                continue
            inner, (vw, vh) = res
            c = _attrs(ch, "g", ctx, state)
            c.vw, c.vh = vw, vh
            _children(inner, c, state)
            continue
        c = _attrs(ch, name, ctx, state)
        if c is not None and len(ch):
            _children(ch, c, state)
