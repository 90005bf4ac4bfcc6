"""Basic shapes (contract item 10): circles and ellipses as paths (skia draws a gradient on an ellipse black)."""

from __future__ import annotations

from vector_gym.svg.normalise.common import _fmt


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    f = _fmt
    x0, y0, x1, y1 = f(cx), f(cy), f(cx + rx), f(cy + ry)
    arc = f"A{f(rx)} {f(ry)} 0 0 1 "
    return (
        f"M{x1} {y0}{arc}{x0} {y1}{arc}{f(cx - rx)} {y0}{arc}{x0} {f(cy - ry)}{arc}{x1} {y0}Z"
    )
