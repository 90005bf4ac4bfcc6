"""Write the normaliser's golden files ``tests/data/normalise/<concern>/<name>.svg`` (issue 11).

One behaviour per file, in the usvg test-file style: ``<name>.svg`` is the input,
``<name>-expected.svg`` the normalised render form :func:`vector_gym.svg.normalise.simplify`
gives at 64 x 64 px. ``tests/svg/test_normalise_golden.py`` checks that the output is unchanged
and that the expected file, drawn by raw skia, matches resvg's picture of the input within
2/255. Rerun after an intended change of the normalised form and review the diff.

Usage::

    python benchmarks/make_normalise_goldens.py
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "normalise"
NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def doc(title: str, body: str, attrs: str = 'viewBox="0 0 64 64"') -> str:
    return f"<svg {NS} {attrs}>\n<title>{title}</title>\n{body}\n</svg>\n"


CASES = {
    "style": {
        "sheet-specificity": doc("id over class over type", '<style>#x { fill: green } .a { fill: red } rect { fill: blue }</style><rect id="x" class="a" x="8" y="8" width="48" height="48"/>'),
        "style-over-attribute": doc("style over presentation attribute", '<rect x="8" y="8" width="48" height="48" fill="red" style="fill: green"/>'),
        "important": doc("!important in a sheet over style", '<style>.a { fill: green !important }</style><rect class="a" x="8" y="8" width="48" height="48" style="fill: red"/>'),
        "css-transform": doc("CSS transform property with units", '<rect x="16" y="16" width="32" height="32" fill="gold" style="transform: rotate(45deg)"/>'),
        "css-href-stripped": doc("a CSS href never becomes a link", '<image width="64" height="64" style="href: url(/etc/passwd)"/><circle cx="32" cy="32" r="10"/>'),
    },
    "paint": {
        "hex-rgba": doc("#rgba becomes #rrggbb plus opacity", '<rect x="8" y="8" width="48" height="48" fill="#f008"/>'),
        "currentcolor-keyword": doc("currentColor inherits as a keyword", '<g fill="currentColor" color="red"><rect x="8" y="8" width="48" height="48" color="green"/></g>'),
        "transparent": doc("transparent", '<rect x="8" y="8" width="48" height="48" fill="transparent" stroke="navy" stroke-width="4"/>'),
    },
    "references": {
        "external-image": doc("an external image draws nothing", '<image href="https://example.org/x.png" width="64" height="64"/><circle cx="32" cy="32" r="10"/>'),
        "href-over-xlink": doc("plain href wins over xlink:href", '<defs><rect id="a" width="40" height="40" fill="green"/><rect id="b" width="40" height="40" fill="red"/></defs><use href="#a" xlink:href="#b" x="12" y="12"/>'),
        "duplicate-ids": doc("the first of duplicate ids wins", '<defs><rect id="r" width="40" height="40" fill="green"/><rect id="r" width="40" height="40" fill="red"/></defs><use href="#r" x="12" y="12"/>'),
    },
    "use_node": {
        "use-xy": doc("use becomes a translated copy", '<defs><rect id="r" width="20" height="20" fill="navy"/></defs><use href="#r" x="8" y="8"/><use href="#r" x="36" y="36"/>'),
        "use-symbol": doc("a symbol becomes a nested viewport", '<symbol id="s" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="teal"/></symbol><use href="#s" x="8" y="8" width="48" height="48"/>'),
        "use-cycle": doc("a cyclic use is dropped alone", '<rect x="8" y="8" width="48" height="48" fill="green"/><g id="a"><use href="#a"/><circle cx="32" cy="32" r="8" fill="yellow"/></g>'),
    },
    "switch": {
        "first-child": doc("switch keeps its first child", '<switch><rect width="64" height="32" fill="green"/><rect y="32" width="64" height="32" fill="red"/></switch>'),
        "extensions": doc("requiredExtensions fails", '<switch><rect requiredExtensions="http://example.org/x" width="64" height="64" fill="red"/><circle cx="32" cy="32" r="20" fill="green"/></switch>'),
    },
    "transforms": {
        "separators": doc("transform list separators", '<rect x="16" y="16" width="32" height="32" fill="tomato" transform="translate(10,10),scale(.5)"/>'),
        "invalid-ignored": doc("an invalid transform list is ignored entirely", '<rect x="16" y="16" width="32" height="32" fill="tomato" transform="rotate(30) foo(1)"/>'),
        "transform-origin": doc("transform-origin center", '<rect x="16" y="16" width="32" height="32" fill="orchid" transform="rotate(45)" transform-origin="center"/>'),
    },
    "viewport": {
        "nested-svg": doc("nested svg clipped to its viewport", '<svg x="16" y="16" width="32" height="32" viewBox="0 0 10 10"><circle cx="5" cy="5" r="8" fill="blue"/></svg>'),
        "zero-viewbox": doc("a zero-size viewBox disables rendering", '<svg x="8" y="8" width="48" height="48" viewBox="0 0 0 10"><rect width="10" height="10" fill="red"/></svg><circle cx="32" cy="32" r="6"/>'),
    },
    "units": {
        "mm": doc("lengths in mm", '<rect x="8" y="8" width="6mm" height="6mm" fill="darkcyan"/>'),
        "percent": doc("percentages of the viewport", '<rect x="10%" y="10%" width="50%" height="25%" fill="darkcyan"/>'),
    },
    "shapes": {
        "ellipse-path": doc("an ellipse becomes a path", '<linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><ellipse cx="32" cy="32" rx="28" ry="16" fill="url(#g)"/>'),
        "zero-radius": doc("a zero radius draws nothing", '<circle cx="32" cy="32" r="0" fill="red"/><rect x="24" y="24" width="16" height="16"/>'),
        "line-no-fill": doc("a line has no fill", '<line x1="8" y1="8" x2="56" y2="56" fill="red" stroke="black" stroke-width="4"/>'),
    },
    "paths": {
        "error-prefix": doc("path data up to its first error", '<path d="M8 8 H56 V56 H8 Z L 5" fill="navy"/>'),
        "compact-arc": doc("arc flags written apart", '<path d="M16 32a16 16 0 0132 0z" fill="navy"/>'),
    },
    "paint_server": {
        "href-stops": doc("stops inherited through href", '<linearGradient id="a"><stop stop-color="green"/><stop offset="1" stop-color="yellow"/></linearGradient><linearGradient id="b" href="#a" x1="0" x2="0" y2="1"/><rect width="64" height="64" fill="url(#b)"/>'),
        "one-stop": doc("a one-stop gradient is a colour", '<linearGradient id="g"><stop stop-color="purple"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>'),
        "pattern-no-size": doc("a pattern without size paints nothing", '<pattern id="p" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="blue"/></pattern><rect width="64" height="64" fill="url(#p)"/><circle cx="32" cy="32" r="6"/>'),
    },
    "paint_order": {
        "stroke-first": doc("stroke first: two copies", '<rect x="14" y="14" width="36" height="36" fill="gold" stroke="black" stroke-width="10" paint-order="stroke"/>'),
        "markers-stroke": doc("markers stroke: stroke before fill", '<rect x="14" y="14" width="36" height="36" fill="gold" stroke="black" stroke-width="10" paint-order="markers stroke"/>'),
    },
    "root": {
        "no-viewbox": doc("width/height without viewBox become one", '<rect width="32" height="32" fill="green"/>', 'width="64" height="64"'),
        "root-transform": doc("the root's transform moves to a group", '<rect width="32" height="32" fill="green"/>', 'viewBox="0 0 64 64" transform="translate(16,16)"'),
    },
    "filters": {
        "flood-srgb": doc("a flood is drawn in sRGB", '<filter id="f"><feFlood flood-color="#3080c0" flood-opacity="0.7"/></filter><rect x="12" y="12" width="40" height="40" filter="url(#f)"/>'),
        "empty-filter": doc("an empty filter hides its element", '<filter id="f"/><rect x="8" y="8" width="48" height="48" fill="red" filter="url(#f)"/><circle cx="32" cy="32" r="6"/>'),
    },
    "painting": {
        "visible-child": doc("a visible child of a hidden group draws", '<g visibility="hidden"><rect x="8" y="8" width="24" height="24" fill="red"/><rect x="32" y="32" width="24" height="24" fill="green" visibility="visible"/></g>'),
        "stroke-width-zero": doc("stroke-width 0 draws no stroke", '<rect x="16" y="16" width="32" height="32" fill="none" stroke="black" stroke-width="0"/>'),
    },
}


def main() -> int:
    from vector_gym.svg.normalise import simplify

    n = 0
    for concern, cases in CASES.items():
        d = OUT / concern
        d.mkdir(parents=True, exist_ok=True)
        for name, text in cases.items():
            (d / f"{name}.svg").write_text(text, encoding="utf-8")
            (d / f"{name}-expected.svg").write_text(simplify(text, (64, 64)) + "\n", encoding="utf-8")
            n += 1
    print(f"{n} golden pairs under {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
