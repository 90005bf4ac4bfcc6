"""Basic shapes (contract item 10): circles and ellipses as paths (skia draws a gradient on an ellipse black)."""

from __future__ import annotations


from vector_gym.svg.normalise.common import _fmt


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    f = _fmt
    return (
        f"M{f(cx + rx)} {f(cy)}A{f(rx)} {f(ry)} 0 0 1 {f(cx)} {f(cy + ry)}"
        f"A{f(rx)} {f(ry)} 0 0 1 {f(cx - rx)} {f(cy)}A{f(rx)} {f(ry)} 0 0 1 {f(cx)} {f(cy - ry)}"
        f"A{f(rx)} {f(ry)} 0 0 1 {f(cx + rx)} {f(cy)}Z"
    )
