"""Issue 10: the default mode's spelling equivalences against headless Chromium.

Each pair is hand-written and draws something visible. Default-mode V(S) calls the two documents
equal exactly when Chromium draws them identically; two negative controls (a changed value, a
different alpha) show that the pixel comparison can tell documents apart. All documents are drawn
by one Chromium run as ``<img>`` tiles of one page (Debian's ``chromium`` package; ``.ci/run``
installs it where missing).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from vector_gym.svg.canonical import SVG2, to_node
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.semantic import semantic_equal

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
TILE = 100


def svg(body: str) -> str:
    return f'<svg {NS} width="100" height="100" viewBox="0 0 100 100">{body}</svg>'


USE_DEFS = (
    '<defs><circle id="c" cx="50" cy="50" r="30" fill="#f0f"/>'
    '<rect id="d" x="10" y="10" width="80" height="80" fill="#0f0"/></defs>'
)

# name: (a, b, equal) — equal is both the expected V verdict and the expected Chromium verdict.
PAIRS = {
    "packed-path": (svg('<path d="M10 10L80.5.5 80 80z"/>'), svg('<path d="M10 10 L80.5 0.5 80 80 z"/>'), True),
    "compact-arc-flags": (
        svg('<path d="M20 50a30 30 0 0160 0z" fill="#00f"/>'),
        svg('<path d="M20 50 a30 30 0 0 1 60 0 z" fill="#00f"/>'),
        True,
    ),
    "exponent-and-implicit-repeats": (
        svg('<path d="M1e1 10 9e1 10 90 9E1" fill="#a50"/>'),
        svg('<path d="M10 10 L90 10 L90 90" fill="#a50"/>'),
        True,
    ),
    "hsl-and-percent-rgb": (
        svg('<rect width="50" height="100" fill="hsl(0,100%,50%)"/>'
            '<rect x="50" width="50" height="100" fill="rgb(0%,100%,0%)"/>'),
        svg('<rect width="50" height="100" fill="#ff0000"/><rect x="50" width="50" height="100" fill="#0f0"/>'),
        True,
    ),
    "named-case-and-hex-alpha": (
        svg('<rect width="50" height="100" fill="CRIMSON"/><rect x="50" width="50" height="100" fill="#f008"/>'),
        svg('<rect width="50" height="100" fill="#dc143c"/>'
            '<rect x="50" width="50" height="100" fill="rgba(255 0 0 / 53.333333%)"/>'),
        True,
    ),
    "style-important-and-presentation": (
        svg('<rect x="20" y="20" width="60" height="60" stroke="#000" style="fill: #0a0 !important; stroke-width:8"/>'),
        svg('<rect x="20" y="20" width="60" height="60" stroke="#000" fill="#0a0" stroke-width="8"/>'),
        True,
    ),
    "xlink-href-equals-href": (svg(USE_DEFS + '<use xlink:href="#c"/>'), svg(USE_DEFS + '<use href="#c"/>'), True),
    "plain-href-wins": (svg(USE_DEFS + '<use href="#c" xlink:href="#d"/>'), svg(USE_DEFS + '<use href="#c"/>'), True),
    "px-lengths-and-numbers": (
        svg('<rect x="1e1" y="10px" width="5E1" height="50.0px" fill="#333"/>'),
        svg('<rect x="10" y="10" width="50" height="50" fill="#333"/>'),
        True,
    ),
    "implied-transform-arguments": (
        svg('<g transform="translate(20)scale(2)"><rect width="20" height="20"/></g>'),
        svg('<g transform="translate(20 0) scale(2 2)"><rect width="20" height="20"/></g>'),
        True,
    ),
    "percent-opacity": (
        svg('<rect width="80" height="80" fill="#000" opacity="50%"/>'),
        svg('<rect width="80" height="80" fill="#000" opacity="0.5"/>'),
        True,
    ),
    "currentcolor-any-case": (
        svg('<g color="#c00"><rect width="80" height="80" fill="CurrentColor"/></g>'),
        svg('<g color="#c00"><rect width="80" height="80" fill="currentColor"/></g>'),
        True,
    ),
    "transparent": (
        svg('<rect width="100" height="100" fill="#00f"/><rect width="80" height="80" fill="Transparent"/>'),
        svg('<rect width="100" height="100" fill="#00f"/><rect width="80" height="80" fill="rgba(0,0,0,0)"/>'),
        True,
    ),
    # review of issue 10
    "css-transform-units": (
        svg('<g style="transform: ROTATE(0.125turn) translate(10px, 0)"><rect x="30" width="40" height="20" fill="#05a"/></g>'),
        svg('<g transform="rotate(45) translate(10)"><rect x="30" width="40" height="20" fill="#05a"/></g>'),
        True,
    ),
    "css-transform-unitless-angle-is-dropped": (
        svg('<g style="transform:rotate(45)"><rect x="30" width="40" height="20" fill="#05a"/></g>'),
        svg('<g transform="rotate(45)"><rect x="30" width="40" height="20" fill="#05a"/></g>'),
        False,
    ),
    "gradient-transform-list": (
        svg('<linearGradient id="g" gradientTransform="rotate( 45 )scale(.5)"><stop offset="0" stop-color="#f00"/>'
            '<stop offset="1" stop-color="#00f"/></linearGradient><rect width="100" height="100" fill="url(#g)"/>'),
        svg('<linearGradient id="g" gradientTransform="rotate(45) scale(0.5 0.5)"><stop offset="0" stop-color="#f00"/>'
            '<stop offset="1" stop-color="#00f"/></linearGradient><rect width="100" height="100" fill="url(#g)"/>'),
        True,
    ),
    "keyword-case": (
        svg('<path d="M20 50H80" stroke="#000" stroke-width="20" stroke-linecap="ROUND"/>'),
        svg('<path d="M20 50H80" stroke="#000" stroke-width="20" stroke-linecap="round"/>'),
        True,
    ),
    "dasharray-px-and-commas": (
        svg('<path d="M0 50H100" stroke="#000" stroke-width="20" stroke-dasharray="10px,5 1e1"/>'),
        svg('<path d="M0 50H100" stroke="#000" stroke-width="20" stroke-dasharray="10 5 10"/>'),
        True,
    ),
    "control-changed-value": (
        svg('<rect x="10" width="50" height="50"/>'), svg('<rect x="30" width="50" height="50"/>'), False,
    ),
    "control-different-alpha": (
        svg('<rect width="80" height="80" fill="rgba(255,0,0,0.5)"/>'), svg('<rect width="80" height="80" fill="red"/>'), False,
    ),
}  # fmt: skip


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "Debian's chromium package is required (apt-get install -y chromium; .ci/run does it)"
    return exe


@pytest.fixture(scope="module")
def tiles(tmp_path_factory) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    tmp = tmp_path_factory.mktemp("forms_chromium")
    names = sorted(PAIRS)
    cells = []
    for row, name in enumerate(names):
        a, b, _ = PAIRS[name]
        for col, text in enumerate((a, b)):
            f = tmp / f"{row}_{col}.svg"
            f.write_text(text, encoding="utf-8")
            cells.append(
                f'<img src="{f.name}" width="{TILE}" height="{TILE}" '
                f'style="position:absolute;left:{col * TILE}px;top:{row * TILE}px">'
            )
    page = tmp / "page.html"
    page.write_text(
        "<!doctype html><html><body style='margin:0;background:#fff'>" + "".join(cells) + "</body></html>",
        encoding="utf-8",
    )
    png = tmp / "shot.png"
    cmd = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        f"--user-data-dir={tmp / 'profile'}", f"--window-size={2 * TILE},{len(names) * TILE}",
        "--force-device-scale-factor=1", f"--screenshot={png}", page.as_uri(),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and png.exists(), proc.stderr[-2000:]
    img = np.asarray(Image.open(png).convert("RGB"), dtype=np.int16)
    out = {}
    for row, name in enumerate(names):
        y = row * TILE
        out[name] = (img[y : y + TILE, 0:TILE], img[y : y + TILE, TILE : 2 * TILE])
    return out


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_default_equivalence_matches_chromium(name, tiles):
    a, b, equal = PAIRS[name]
    ta, tb = tiles[name]
    assert ta.std() > 0 or tb.std() > 0  # something is drawn
    drawn_equal = int(np.abs(ta - tb).max()) <= 1
    assert drawn_equal == equal
    na = to_node(parse_svg(a), dialect=SVG2)
    nb = to_node(parse_svg(b), dialect=SVG2)
    assert semantic_equal(na, nb) == equal
