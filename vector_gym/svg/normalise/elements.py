"""Element and attribute tables of the walk: what draws, what is dropped, which attributes are lengths of which viewport axis."""

from __future__ import annotations

_DRAWING = frozenset(
    {
        "path",
        "rect",
        "circle",
        "ellipse",
        "line",
        "polyline",
        "polygon",
        "text",
        "tspan",
        "textPath",
    }
)


_DROP = frozenset(
    {
        "title",
        "desc",
        "metadata",
        "script",
        "foreignObject",
        "style",
        "cursor",
        "view",
        "animate",
        "animateTransform",
        "animateMotion",
        "set",
        "discard",
    }
)


_DROP_ATTRS = frozenset(
    {
        "mix-blend-mode",
        "isolation",
        "paint-order",
        "color-interpolation",
        "color-rendering",
        "enable-background",
        "overflow",
        "style",
        "class",
        "version",
        "baseProfile",
    }
)


_LEN_X = ("x", "x1", "x2", "cx", "fx", "dx")


_LEN_Y = ("y", "y1", "y2", "cy", "fy", "dy")


_GEOMETRY = {
    "rect": ("x", "y", "width", "height", "rx", "ry"),
    "circle": ("cx", "cy", "r"),
    "ellipse": ("cx", "cy", "rx", "ry"),
    "line": ("x1", "y1", "x2", "y2"),
    "image": ("x", "y", "width", "height"),
    "pattern": ("x", "y", "width", "height"),
    "mask": ("x", "y", "width", "height"),
    "filter": ("x", "y", "width", "height"),
    "linearGradient": ("x1", "y1", "x2", "y2"),
    "radialGradient": ("cx", "cy", "r", "fx", "fy", "fr"),
    "text": (),
}


_UNITS_ATTR = {
    "linearGradient": "gradientUnits",
    "radialGradient": "gradientUnits",
    "pattern": "patternUnits",
    "mask": "maskUnits",
    "filter": "filterUnits",
    "clipPath": "clipPathUnits",
}


_OBB_DEFAULT = {
    "linearGradient": True,
    "radialGradient": True,
    "pattern": True,
    "mask": True,
    "filter": True,
}


_TEXTUAL = frozenset({"text", "tspan", "textPath"})
