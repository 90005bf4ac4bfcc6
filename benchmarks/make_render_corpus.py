"""Write the conformance corpus ``tests/data/render/conformance/<class>/<name>.svg`` (issue 11).

One small SVG (64 x 64 user units) per behaviour, grouped by the feature classes of the SVG 1.1/2
painting, structure, paint-server, masking, shapes, filter, transform and styling chapters.
Each file's ``<title>`` names the behaviour; the reference is resvg-py's render of the same
file (``tests/render/test_render_corpus.py``). The files are written once and committed; rerun
this script only to add cases (it overwrites files of the same name, never deletes).

Usage::

    python benchmarks/make_render_corpus.py
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "render" / "conformance"
NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def doc(title: str, body: str, attrs: str = 'viewBox="0 0 64 64"') -> str:
    return f'<svg {NS} {attrs}>\n<title>{title}</title>\n{body}\n</svg>\n'


def cases():
    # ---------------------------------------------------------------- painting
    colours = ["red", "#0a0", "#00f8", "#336699", "#33669980", "rgb(10,200,30)", "rgb(10%,50%,90%)",
               "rgba(200,0,100,0.5)", "hsl(120,100%,25%)", "hsla(240,100%,50%,0.3)", "RebeccaPurple",
               "ORANGE", "transparent", "#f00 icc-color(acmecmyk, 0.1, 0.2, 0.3, 0.4)", "currentColor",
               "rgb(10 200 30 / 50%)", "hwb(200 10% 20%)"]
    for i, c in enumerate(colours):
        yield "painting", f"fill-color-{i:02d}", doc(f"fill spelled {c}", f'<g color="teal"><rect x="8" y="8" width="48" height="48" fill="{c}"/></g>')
        yield "painting", f"stroke-color-{i:02d}", doc(f"stroke spelled {c}", f'<g color="purple"><rect x="12" y="12" width="40" height="40" fill="none" stroke-width="6" stroke="{c}"/></g>')
    for op in ("0", "0.25", "0.5", "1", "50%", "-1", "2"):
        yield "painting", f"fill-opacity-{op.replace('%','pct').replace('.','_')}", doc(f"fill-opacity {op}", f'<rect x="8" y="8" width="48" height="48" fill="navy" fill-opacity="{op}"/>')
        yield "painting", f"stroke-opacity-{op.replace('%','pct').replace('.','_')}", doc(f"stroke-opacity {op}", f'<rect x="12" y="12" width="40" height="40" fill="yellow" stroke="navy" stroke-width="8" stroke-opacity="{op}"/>')
        yield "painting", f"opacity-{op.replace('%','pct').replace('.','_')}", doc(f"group opacity {op}", f'<g opacity="{op}"><rect x="8" y="8" width="30" height="30" fill="red"/><rect x="24" y="24" width="30" height="30" fill="blue"/></g>')
    for cap in ("butt", "round", "square"):
        for join in ("miter", "round", "bevel"):
            yield "painting", f"cap-{cap}-join-{join}", doc(f"stroke-linecap {cap}, stroke-linejoin {join}", f'<path d="M12 48 L32 12 L52 48" fill="none" stroke="black" stroke-width="8" stroke-linecap="{cap}" stroke-linejoin="{join}"/>')
    for ml in ("1", "2", "4", "10"):
        yield "painting", f"miterlimit-{ml}", doc(f"stroke-miterlimit {ml}", f'<path d="M8 48 L32 20 L56 48" fill="none" stroke="black" stroke-width="6" stroke-miterlimit="{ml}"/>')
    for k, (da, off) in enumerate([("4", "0"), ("8 4", "0"), ("8 4", "3"), ("8,4,2", "0"), ("0", "0"), ("5 5", "-2"), ("10% 5%", "0"), ("none", "0")]):
        yield "painting", f"dash-{k}", doc(f"stroke-dasharray {da} dashoffset {off}", f'<circle cx="32" cy="32" r="20" fill="none" stroke="green" stroke-width="4" stroke-dasharray="{da}" stroke-dashoffset="{off}"/>')
    for rule in ("nonzero", "evenodd"):
        yield "painting", f"fill-rule-{rule}", doc(f"fill-rule {rule}", f'<path fill-rule="{rule}" fill="purple" d="M32 4 L50 60 L4 24 L60 24 L14 60 Z"/>')
        yield "masking", f"clip-rule-{rule}", doc(f"clip-rule {rule}", f'<clipPath id="c"><path clip-rule="{rule}" d="M32 4 L50 60 L4 24 L60 24 L14 60 Z"/></clipPath><rect width="64" height="64" fill="teal" clip-path="url(#c)"/>')
    for sw in ("0", "1", "4", "12", "5%", "1mm", "0.5em"):
        yield "painting", f"stroke-width-{sw.replace('%','pct').replace('.','_')}", doc(f"stroke-width {sw}", f'<rect x="16" y="16" width="32" height="32" fill="none" stroke="black" stroke-width="{sw}"/>')
    for po in ("stroke", "stroke fill", "fill stroke", "normal", "markers stroke"):
        yield "painting", f"paint-order-{po.replace(' ','-')}", doc(f"paint-order {po}", f'<rect x="14" y="14" width="36" height="36" fill="gold" stroke="black" stroke-width="10" paint-order="{po}"/>')
    yield "painting", "visibility-hidden", doc("visibility hidden", '<rect x="8" y="8" width="48" height="48" fill="red" visibility="hidden"/><rect x="20" y="20" width="24" height="24" fill="green"/>')
    yield "painting", "visibility-visible-child-of-hidden-group", doc("a visible child of a hidden group draws", '<g visibility="hidden"><rect x="8" y="8" width="24" height="24" fill="red"/><rect x="32" y="32" width="24" height="24" fill="green" visibility="visible"/></g>')
    yield "painting", "visibility-collapse", doc("visibility collapse", '<rect x="8" y="8" width="48" height="48" fill="red" visibility="collapse"/>')
    yield "painting", "display-none-group", doc("display none hides the subtree", '<g display="none"><rect x="8" y="8" width="48" height="48" fill="red" display="inline"/></g><circle cx="32" cy="32" r="8"/>')
    yield "painting", "currentcolor-inherited-keyword", doc("currentColor inherits as a keyword: the child's own color applies", '<g fill="currentColor" color="red"><rect x="8" y="8" width="48" height="48" color="green"/></g>')
    yield "painting", "currentcolor-stroke-keyword", doc("currentColor stroke resolved at the drawing element", '<g stroke="currentColor" color="red" fill="none" stroke-width="6"><circle cx="32" cy="32" r="20" color="blue"/></g>')
    yield "painting", "currentcolor-stop", doc("currentColor in a stop", '<linearGradient id="g" color="orange"><stop offset="0" stop-color="currentColor"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "painting", "inherit-fill", doc("fill inherit", '<g fill="green"><rect x="8" y="8" width="48" height="48" fill="inherit"/></g>')
    yield "painting", "fill-none-stroke-default", doc("fill none, no stroke", '<rect x="8" y="8" width="48" height="48" fill="none"/><circle cx="32" cy="32" r="6"/>')
    yield "painting", "invalid-fill-inherits", doc("an invalid fill inherits the parent's", '<g fill="blue"><rect x="8" y="8" width="48" height="48" fill="notacolour"/></g>')
    # ---------------------------------------------------------------- shapes
    for k, (w, h, rx, ry) in enumerate([(40, 30, None, None), (40, 30, 5, None), (40, 30, None, 8), (40, 30, 30, 30), (40, 30, 5, 10), (0, 30, None, None), (-5, 30, None, None), ("50%", "25%", "10%", None)]):
        a = f'x="8" y="8" width="{w}" height="{h}"' + (f' rx="{rx}"' if rx is not None else "") + (f' ry="{ry}"' if ry is not None else "")
        yield "shapes", f"rect-{k}", doc(f"rect {a}", f'<rect {a} fill="crimson"/>')
    for k, r in enumerate(["20", "0", "-4", "25%", "1in", "2em"]):
        yield "shapes", f"circle-{k}", doc(f"circle r={r}", f'<circle cx="32" cy="32" r="{r}" fill="seagreen"/>')
    for k, (rx, ry) in enumerate([("24", "12"), ("12", "24"), ("20", None), (None, "20"), ("auto", "10"), ("0", "10"), ("40%", "20%")]):
        a = (f' rx="{rx}"' if rx else "") + (f' ry="{ry}"' if ry else "")
        yield "shapes", f"ellipse-{k}", doc(f"ellipse{a}", f'<ellipse cx="32" cy="32"{a} fill="slateblue"/>')
    yield "shapes", "line", doc("line with stroke", '<line x1="8" y1="8" x2="56" y2="56" stroke="black" stroke-width="4"/>')
    yield "shapes", "line-no-stroke", doc("line without stroke draws nothing", '<line x1="8" y1="8" x2="56" y2="56"/>')
    yield "shapes", "polyline", doc("polyline", '<polyline points="8,56 20,8 32,56 44,8 56,56" fill="none" stroke="navy" stroke-width="3"/>')
    yield "shapes", "polyline-filled", doc("polyline is filled open", '<polyline points="8,56 32,8 56,56" fill="orange"/>')
    yield "shapes", "polygon", doc("polygon", '<polygon points="32,4 60,60 4,60" fill="teal"/>')
    yield "shapes", "polygon-odd-points", doc("polygon with an odd number of coordinates drops the last", '<polygon points="32,4 60,60 4,60 10" fill="teal"/>')
    paths = {
        "abs-lines": "M8 8 L56 8 L56 56 L8 56 Z", "rel-lines": "m8 8 l48 0 0 48 -48 0 z", "hv": "M8 8 H56 V56 H8 Z",
        "rel-hv": "M8 8 h48 v48 h-48 z", "cubic": "M8 56 C8 8 56 8 56 56 Z", "smooth-cubic": "M8 32 C16 8 24 8 32 32 S48 56 56 32",
        "quad": "M8 56 Q32 0 56 56 Z", "smooth-quad": "M4 32 Q16 8 28 32 T52 32 T64 32", "arc": "M16 32 A16 16 0 0 1 48 32 Z",
        "arc-large": "M16 32 A16 12 0 1 0 48 32", "arc-rot": "M16 40 A20 10 30 0 1 48 24", "arc-compact": "M16 32a16 16 0 0148 32",
        "arc-zero-radius": "M16 32 A0 10 0 0 1 48 32", "arc-small-radius": "M16 32 A4 4 0 0 1 48 32", "implicit-lineto": "M8 8 56 8 56 56 Z",
        "multiple-subpaths": "M8 8h20v20h-20z M36 36h20v20h-20z", "error-after-valid": "M8 8 H56 V56 H8 Z L 5", "error-at-start": "L8 8 H56",
        "packed-numbers": "M8.5.5L56.5.5 56.5 56 8 56z", "exponent": "M8e0 8 L5.6e1 8 L56 5.6e1z", "close-then-line": "M8 8 H40 V40 Z L56 56 H20",
        "no-move": "", "zero-length-round-cap": "M32 32 L32 32",
    }
    for name, d in paths.items():
        stroke = ' stroke-linecap="round"' if name == "zero-length-round-cap" else ""
        yield "shapes", f"path-{name}", doc(f"path d={d!r}", f'<path d="{d}" fill="rgba(0,0,200,0.6)" stroke="black" stroke-width="2"{stroke}/>')
    # ---------------------------------------------------------------- transforms
    tfs = ["translate(10,5)", "translate(10)", "scale(0.5)", "scale(0.5,1.5)", "rotate(30)", "rotate(30,32,32)", "skewX(20)", "skewY(20)",
           "matrix(1,0.2,0.2,1,0,0)", "translate(32 32) rotate(45) translate(-32 -32)", "translate(10,10),scale(0.5)", "translate(10, 10)scale(.5)",
           "rotate(30) foo(1)", "scale(0)", "translate(1e1 1e1)", "rotate(45deg)"]
    for k, t in enumerate(tfs):
        yield "transforms", f"transform-{k:02d}", doc(f"transform={t!r}", f'<rect x="16" y="16" width="32" height="32" fill="tomato" transform="{t}"/>')
    for k, o in enumerate(["center", "32 32", "50% 50%", "left top", "right bottom", "top", "16px 48px", "bad value"]):
        yield "transforms", f"transform-origin-{k}", doc(f"transform-origin {o!r} with rotate(45)", f'<rect x="16" y="16" width="32" height="32" fill="orchid" transform="rotate(45)" transform-origin="{o}"/>')
        yield "transforms", f"transform-origin-css-{k}", doc(f"CSS transform-origin {o!r}", f'<rect x="16" y="16" width="32" height="32" fill="orchid" transform="scale(0.5)" style="transform-origin: {o}"/>')
    for k, t in enumerate(["rotate(45deg)", "translate(10px, 5px)", "scale(0.5)", "translateX(10px) translateY(5px)", "skew(10deg, 5deg)", "rotate(0.125turn)", "matrix(1, 0, 0, 1, 10, 10)", "rotate(45)", "none"]):
        yield "transforms", f"css-transform-{k}", doc(f"CSS transform property {t!r} in style", f'<rect x="16" y="16" width="32" height="32" fill="gold" transform="translate(20,0)" style="transform: {t}"/>')
        yield "transforms", f"css-transform-sheet-{k}", doc(f"CSS transform property {t!r} in a sheet", f'<style>rect {{ transform: {t} }}</style><rect x="16" y="16" width="32" height="32" fill="gold"/>')
    yield "transforms", "nested-groups", doc("nested group transforms compose", '<g transform="translate(16,16)"><g transform="scale(0.5)"><rect width="64" height="64" fill="blue"/></g></g>')
    yield "transforms", "root-transform", doc("SVG 2 transform on the root", '<rect width="32" height="32" fill="green"/>', 'viewBox="0 0 64 64" transform="translate(16,16)"')
    # ---------------------------------------------------------------- structure
    yield "structure", "use-basic", doc("use with x/y", '<defs><rect id="r" width="20" height="20" fill="navy"/></defs><use href="#r" x="8" y="8"/><use href="#r" x="36" y="36"/>')
    yield "structure", "use-xlink", doc("use with xlink:href", '<defs><rect id="r" width="20" height="20" fill="navy"/></defs><use xlink:href="#r" x="22" y="22"/>')
    yield "structure", "href-over-xlink-href", doc("plain href wins over xlink:href (SVG 2)", '<defs><rect id="a" width="40" height="40" fill="green"/><rect id="b" width="40" height="40" fill="red"/></defs><use href="#a" xlink:href="#b" x="12" y="12"/>')
    yield "structure", "use-inherits-fill", doc("use passes fill to the copy", '<defs><circle id="c" r="12"/></defs><use href="#c" x="20" y="20" fill="orange"/><use href="#c" x="44" y="44" fill="purple"/>')
    yield "structure", "use-transform", doc("use transform then x/y", '<defs><rect id="r" width="20" height="20"/></defs><use href="#r" x="10" transform="rotate(20)"/>')
    yield "structure", "use-symbol", doc("use of a symbol with a viewBox", '<symbol id="s" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="teal"/></symbol><use href="#s" x="8" y="8" width="48" height="48"/>')
    yield "structure", "use-symbol-no-size", doc("use of a symbol without width/height (100%)", '<symbol id="s" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="teal"/></symbol><use href="#s"/>')
    yield "structure", "symbol-unreferenced", doc("an unreferenced symbol draws nothing", '<symbol id="s"><rect width="64" height="64" fill="red"/></symbol><circle cx="32" cy="32" r="6"/>')
    yield "structure", "use-cyclic-skipped-alone", doc("a cyclic use is skipped alone, the rest draws", '<rect x="8" y="8" width="48" height="48" fill="green"/><g id="a"><use href="#a"/><circle cx="32" cy="32" r="8" fill="yellow"/></g>')
    yield "structure", "use-self", doc("a use of itself is skipped", '<use id="u" href="#u"/><circle cx="32" cy="32" r="16" fill="blue"/>')
    yield "structure", "use-mutual-cycle", doc("mutually recursive uses are skipped", '<g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g><rect x="16" y="16" width="32" height="32" fill="navy"/>')
    yield "structure", "use-dangling", doc("a use of a missing id draws nothing", '<use href="#missing"/><rect x="16" y="16" width="32" height="32"/>')
    yield "structure", "use-nested-chain", doc("use of a use", '<defs><rect id="r" width="16" height="16" fill="brown"/><use id="u" href="#r" x="8"/></defs><use href="#u" y="8"/><use href="#u" x="24" y="32"/>')
    yield "structure", "duplicate-ids-first-wins", doc("with duplicate ids the first element wins", '<defs><linearGradient id="g"><stop stop-color="green"/><stop offset="1" stop-color="lime"/></linearGradient><linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="red"/></linearGradient></defs><rect width="64" height="64" fill="url(#g)"/>')
    yield "structure", "duplicate-ids-use", doc("use with a duplicate id takes the first", '<defs><rect id="r" width="40" height="40" fill="green"/><rect id="r" width="40" height="40" fill="red"/></defs><use href="#r" x="12" y="12"/>')
    yield "structure", "switch-first", doc("switch draws its first child", '<switch><rect width="64" height="32" fill="green"/><rect y="32" width="64" height="32" fill="red"/></switch>')
    yield "structure", "switch-language", doc("switch skips a child in another language", '<switch><rect systemLanguage="fr" width="64" height="64" fill="red"/><rect systemLanguage="en-US" width="64" height="64" fill="green"/></switch>')
    yield "structure", "switch-extensions", doc("switch skips a child with requiredExtensions", '<switch><rect requiredExtensions="http://example.org/x" width="64" height="64" fill="red"/><circle cx="32" cy="32" r="20" fill="green"/></switch>')
    yield "structure", "nested-svg", doc("nested svg clipped to its viewport", '<svg x="16" y="16" width="32" height="32" viewBox="0 0 10 10"><circle cx="5" cy="5" r="8" fill="blue"/></svg>')
    yield "structure", "nested-svg-overflow-visible", doc("nested svg with overflow visible", '<svg x="16" y="16" width="32" height="32" viewBox="0 0 10 10" overflow="visible"><circle cx="5" cy="5" r="8" fill="blue"/></svg>')
    yield "structure", "nested-svg-zero-viewbox", doc("a nested viewBox of zero width disables rendering", '<svg x="8" y="8" width="48" height="48" viewBox="0 0 0 10"><rect width="10" height="10" fill="red"/></svg><circle cx="32" cy="32" r="6"/>')
    yield "structure", "root-zero-viewbox", doc("a root viewBox of zero height disables rendering", '<rect width="64" height="64" fill="red"/>', 'viewBox="0 0 64 0"')
    yield "structure", "nested-svg-zero-width", doc("a nested svg of zero width draws nothing", '<svg width="0" height="30"><rect width="64" height="64" fill="red"/></svg><circle cx="32" cy="32" r="6"/>')
    for par in ("xMidYMid meet", "xMinYMin meet", "xMaxYMax meet", "xMidYMid slice", "none", "xMinYMax slice"):
        yield "structure", f"par-{par.replace(' ', '-')}", doc(f"nested svg preserveAspectRatio {par}", f'<rect width="64" height="64" fill="#eee"/><svg x="8" y="16" width="48" height="32" viewBox="0 0 10 10" preserveAspectRatio="{par}"><rect width="10" height="10" fill="navy"/><circle cx="5" cy="5" r="5" fill="orange"/></svg>')
        yield "structure", f"root-par-{par.replace(' ', '-')}", doc(f"root preserveAspectRatio {par}", '<rect width="20" height="10" fill="navy"/><circle cx="10" cy="5" r="5" fill="orange"/>', f'viewBox="0 0 20 10" preserveAspectRatio="{par}"')
    yield "structure", "root-no-viewbox", doc("root with width/height and no viewBox", '<rect width="32" height="32" fill="green"/>', 'width="64" height="64"')
    yield "structure", "root-mm", doc("root with width/height in mm", '<rect width="10" height="10" fill="green"/>', 'width="20mm" height="20mm"')
    yield "structure", "svg-prefixed", '<svg:svg xmlns:svg="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><svg:title>prefixed SVG namespace</svg:title><svg:rect width="32" height="32" fill="green"/></svg:svg>\n'
    yield "structure", "a-element", doc("an a element draws its content", '<a href="https://example.org"><rect x="8" y="8" width="48" height="48" fill="blue"/></a>')
    yield "structure", "foreign-metadata", doc("editor metadata is ignored", '<metadata><x xmlns="urn:x">1</x></metadata><rect x="8" y="8" width="48" height="48" fill="blue" xmlns:i="urn:i" i:foo="1"/>')
    yield "structure", "defs-not-drawn", doc("defs content is not drawn", '<defs><rect width="64" height="64" fill="red"/></defs><circle cx="32" cy="32" r="10"/>')
    yield "structure", "external-image-nothing", doc("an external image draws nothing", '<image href="https://example.org/x.png" width="64" height="64"/><circle cx="32" cy="32" r="10"/>')
    yield "structure", "external-use-nothing", doc("an external use draws nothing", '<use href="other.svg#x"/><circle cx="32" cy="32" r="10"/>')
    # ---------------------------------------------------------------- paint servers
    spreads = ("pad", "reflect", "repeat")
    for sp in spreads:
        yield "paint-servers", f"linear-spread-{sp}", doc(f"linearGradient spreadMethod {sp}", f'<linearGradient id="g" x1="0.3" x2="0.6" spreadMethod="{sp}"><stop stop-color="blue"/><stop offset="1" stop-color="yellow"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
        yield "paint-servers", f"radial-spread-{sp}", doc(f"radialGradient spreadMethod {sp}", f'<radialGradient id="g" r="0.2" spreadMethod="{sp}"><stop stop-color="blue"/><stop offset="1" stop-color="yellow"/></radialGradient><rect width="64" height="64" fill="url(#g)"/>')
    for units in ("objectBoundingBox", "userSpaceOnUse"):
        yield "paint-servers", f"linear-units-{units}", doc(f"linearGradient gradientUnits {units}", f'<linearGradient id="g" gradientUnits="{units}" x1="0" y1="0" x2="{"1" if units[0]=="o" else "64"}" y2="0"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect x="8" y="16" width="48" height="32" fill="url(#g)"/>')
        yield "paint-servers", f"radial-units-{units}", doc(f"radialGradient gradientUnits {units}", f'<radialGradient id="g" gradientUnits="{units}" cx="{"0.5" if units[0]=="o" else "32"}" cy="{"0.5" if units[0]=="o" else "32"}" r="{"0.5" if units[0]=="o" else "24"}"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></radialGradient><rect x="8" y="16" width="48" height="32" fill="url(#g)"/>')
    yield "paint-servers", "linear-percent-coords", doc("linearGradient percentage coordinates", '<linearGradient id="g" x1="10%" x2="90%" y1="0%" y2="100%"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "linear-transform", doc("gradientTransform", '<linearGradient id="g" gradientTransform="rotate(45 .5 .5)"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "radial-focal", doc("radialGradient focal point", '<radialGradient id="g" fx="0.2" fy="0.3"><stop stop-color="white"/><stop offset="1" stop-color="black"/></radialGradient><circle cx="32" cy="32" r="28" fill="url(#g)"/>')
    yield "paint-servers", "radial-fr", doc("radialGradient fr", '<radialGradient id="g" fr="0.2"><stop stop-color="white"/><stop offset="1" stop-color="black"/></radialGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "gradient-on-ellipse", doc("gradient on an ellipse", '<linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><ellipse cx="32" cy="32" rx="28" ry="16" fill="url(#g)"/>')
    yield "paint-servers", "gradient-stroke", doc("gradient stroke", '<linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><circle cx="32" cy="32" r="20" fill="none" stroke-width="8" stroke="url(#g)"/>')
    yield "paint-servers", "gradient-href-stops", doc("gradient inherits stops through href", '<linearGradient id="a"><stop stop-color="green"/><stop offset="1" stop-color="yellow"/></linearGradient><linearGradient id="b" href="#a" x1="0" x2="0" y2="1"/><rect width="64" height="64" fill="url(#b)"/>')
    yield "paint-servers", "gradient-href-chain", doc("gradient href chain", '<linearGradient id="a"><stop stop-color="green"/><stop offset="1" stop-color="yellow"/></linearGradient><linearGradient id="b" xlink:href="#a"/><radialGradient id="c" xlink:href="#b"/><rect width="64" height="64" fill="url(#c)"/>')
    yield "paint-servers", "gradient-one-stop", doc("one-stop gradient is a solid colour", '<linearGradient id="g"><stop stop-color="purple"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "gradient-no-stops", doc("stop-less gradient paints nothing", '<linearGradient id="g"/><rect width="64" height="64" fill="url(#g)"/><circle cx="32" cy="32" r="6"/>')
    yield "paint-servers", "gradient-stop-order", doc("decreasing stop offsets are clamped", '<linearGradient id="g"><stop offset="0.6" stop-color="red"/><stop offset="0.3" stop-color="blue"/><stop offset="1" stop-color="green"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "gradient-stop-percent", doc("stop offsets in percent", '<linearGradient id="g"><stop offset="20%" stop-color="red"/><stop offset="80%" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "gradient-stop-opacity", doc("stop-opacity", '<linearGradient id="g"><stop stop-color="red" stop-opacity="0.2"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "gradient-stop-rgba", doc("stop-color with alpha", '<linearGradient id="g"><stop stop-color="rgba(255,0,0,0.3)"/><stop offset="1" stop-color="#00f8"/></linearGradient><rect width="64" height="64" fill="url(#g)"/>')
    yield "paint-servers", "paint-missing-fallback", doc("url() paint to a missing id uses its fallback", '<rect width="64" height="64" fill="url(#nope) green"/>')
    yield "paint-servers", "paint-missing-no-fallback", doc("url() paint to a missing id without fallback draws nothing", '<rect width="64" height="64" fill="url(#nope)"/><circle cx="32" cy="32" r="6"/>')
    yield "paint-servers", "paint-quoted-url", doc("quoted url()", '<linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(\'#g\')"/>')
    yield "paint-servers", "pattern-basic", doc("pattern in user space", '<pattern id="p" width="16" height="16" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="blue"/></pattern><rect width="64" height="64" fill="url(#p)"/>')
    yield "paint-servers", "pattern-obb", doc("pattern in objectBoundingBox units", '<pattern id="p" width="0.25" height="0.25"><rect width="8" height="8" fill="green"/></pattern><rect x="8" y="8" width="48" height="48" fill="url(#p)"/>')
    yield "paint-servers", "pattern-content-units", doc("patternContentUnits objectBoundingBox", '<pattern id="p" width="0.5" height="0.5" patternContentUnits="objectBoundingBox"><rect width="0.25" height="0.25" fill="purple"/></pattern><rect x="8" y="8" width="48" height="48" fill="url(#p)"/>')
    yield "paint-servers", "pattern-viewbox", doc("pattern with a viewBox", '<pattern id="p" width="16" height="16" patternUnits="userSpaceOnUse" viewBox="0 0 4 4"><circle cx="2" cy="2" r="2" fill="red"/></pattern><rect width="64" height="64" fill="url(#p)"/>')
    yield "paint-servers", "pattern-transform", doc("patternTransform", '<pattern id="p" width="16" height="16" patternUnits="userSpaceOnUse" patternTransform="rotate(30)"><rect width="8" height="8" fill="blue"/></pattern><rect width="64" height="64" fill="url(#p)"/>')
    yield "paint-servers", "pattern-no-size", doc("a pattern without width/height paints nothing", '<pattern id="p" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="blue"/></pattern><rect width="64" height="64" fill="url(#p)"/><circle cx="32" cy="32" r="6"/>')
    yield "paint-servers", "pattern-zero-size", doc("a pattern of zero width paints nothing", '<pattern id="p" width="0" height="16" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="blue"/></pattern><rect width="64" height="64" fill="url(#p)"/><circle cx="32" cy="32" r="6"/>')
    yield "paint-servers", "pattern-empty", doc("a pattern without content paints nothing", '<pattern id="p" width="16" height="16" patternUnits="userSpaceOnUse"/><rect width="64" height="64" fill="url(#p)"/><circle cx="32" cy="32" r="6"/>')
    yield "paint-servers", "pattern-href", doc("pattern inherits content through href", '<pattern id="a" width="16" height="16" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="teal"/></pattern><pattern id="b" href="#a"/><rect width="64" height="64" fill="url(#b)"/>')
    yield "paint-servers", "pattern-stroke", doc("pattern stroke", '<pattern id="p" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="4" height="4" fill="black"/></pattern><circle cx="32" cy="32" r="20" fill="none" stroke-width="10" stroke="url(#p)"/>')
    # ---------------------------------------------------------------- masking
    yield "masking", "clip-basic", doc("clipPath", '<clipPath id="c"><circle cx="32" cy="32" r="20"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-obb", doc("clipPathUnits objectBoundingBox", '<clipPath id="c" clipPathUnits="objectBoundingBox"><circle cx="0.5" cy="0.5" r="0.5"/></clipPath><rect x="8" y="16" width="48" height="32" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-transform", doc("clipPath with transform", '<clipPath id="c" transform="translate(10,0)"><rect width="32" height="64"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-child-transform", doc("clipPath child with transform", '<clipPath id="c"><rect width="32" height="32" transform="rotate(20)"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-union", doc("clipPath children union", '<clipPath id="c"><rect width="24" height="24"/><circle cx="44" cy="44" r="16"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-on-group", doc("clipPath on a group", '<clipPath id="c"><rect x="8" y="8" width="48" height="24"/></clipPath><g clip-path="url(#c)"><circle cx="32" cy="32" r="24" fill="red"/><circle cx="32" cy="32" r="12" fill="blue"/></g>')
    yield "masking", "clip-nested", doc("clipPath with its own clip-path", '<clipPath id="a"><rect width="40" height="64"/></clipPath><clipPath id="b" clip-path="url(#a)"><circle cx="32" cy="32" r="24"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#b)"/>')
    yield "masking", "clip-missing", doc("a clip-path to a missing id is ignored", '<rect x="8" y="8" width="48" height="48" fill="navy" clip-path="url(#missing)"/>')
    yield "masking", "clip-group-child-ignored", doc("a g inside clipPath is ignored", '<clipPath id="c"><g><rect width="64" height="64"/></g><circle cx="32" cy="32" r="10"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-use-child", doc("a use inside clipPath", '<defs><circle id="k" cx="32" cy="32" r="18"/></defs><clipPath id="c"><use href="#k"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "clip-stroke-ignored", doc("stroke of clip children does not clip", '<clipPath id="c"><rect x="16" y="16" width="32" height="32" stroke="black" stroke-width="20"/></clipPath><rect width="64" height="64" fill="navy" clip-path="url(#c)"/>')
    yield "masking", "mask-luminance", doc("mask luminance", '<mask id="m"><rect width="64" height="64" fill="white"/><circle cx="32" cy="32" r="16" fill="black"/></mask><rect width="64" height="64" fill="green" mask="url(#m)"/>')
    yield "masking", "mask-gray", doc("mask with grey", '<mask id="m"><rect width="64" height="64" fill="#808080"/></mask><rect width="64" height="64" fill="blue" mask="url(#m)"/>')
    yield "masking", "mask-gradient", doc("mask with a gradient", '<linearGradient id="g"><stop stop-color="white"/><stop offset="1" stop-color="black"/></linearGradient><mask id="m"><rect width="64" height="64" fill="url(#g)"/></mask><rect width="64" height="64" fill="red" mask="url(#m)"/>')
    yield "masking", "mask-units-user", doc("maskUnits userSpaceOnUse", '<mask id="m" maskUnits="userSpaceOnUse" x="0" y="0" width="32" height="64"><rect width="64" height="64" fill="white"/></mask><rect width="64" height="64" fill="red" mask="url(#m)"/>')
    yield "masking", "mask-content-obb", doc("maskContentUnits objectBoundingBox", '<mask id="m" maskContentUnits="objectBoundingBox"><rect width="0.5" height="1" fill="white"/></mask><rect x="8" y="8" width="48" height="48" fill="red" mask="url(#m)"/>')
    yield "masking", "mask-alpha", doc("mask-type alpha", '<mask id="m" mask-type="alpha"><rect width="32" height="64" fill="black"/></mask><rect width="64" height="64" fill="red" mask="url(#m)"/>')
    yield "masking", "mask-missing", doc("a mask to a missing id is ignored", '<rect x="8" y="8" width="48" height="48" fill="navy" mask="url(#missing)"/>')
    yield "masking", "mask-opacity", doc("mask content with opacity", '<mask id="m"><rect width="64" height="64" fill="white" opacity="0.5"/></mask><rect width="64" height="64" fill="black" mask="url(#m)"/>')
    # ---------------------------------------------------------------- markers
    mk = '<marker id="m" markerWidth="6" markerHeight="6" refX="3" refY="3" {a}><circle cx="3" cy="3" r="3" fill="red"/></marker>'
    for k, a in enumerate(["", 'orient="auto"', 'markerUnits="userSpaceOnUse"', 'viewBox="0 0 6 6"', 'orient="45"', 'orient="auto-start-reverse"']):
        for which in ("marker-start", "marker-mid", "marker-end"):
            yield "markers", f"marker-{k}-{which}", doc(f"{which} with {a or 'defaults'}", mk.format(a=a) + f'<path d="M8 56 L32 8 L56 56" fill="none" stroke="black" stroke-width="2" {which}="url(#m)"/>')
    yield "markers", "marker-shorthand-css", doc("marker shorthand in CSS", mk.format(a="") + '<path d="M8 56 L32 8 L56 56" fill="none" stroke="black" stroke-width="2" style="marker: url(#m)"/>')
    yield "markers", "marker-paint-order", doc("markers with paint-order stroke", mk.format(a="") + '<path d="M8 56 L32 8 L56 56" fill="gold" stroke="black" stroke-width="6" paint-order="stroke" marker-mid="url(#m)"/>')
    yield "markers", "marker-paint-order-markers-first", doc("paint-order markers first", mk.format(a="") + '<path d="M8 56 L32 8 L56 56" fill="gold" stroke="black" stroke-width="6" paint-order="markers" marker-mid="url(#m)"/>')
    yield "markers", "marker-on-line", doc("markers on a line", mk.format(a="") + '<line x1="8" y1="32" x2="56" y2="32" stroke="black" marker-start="url(#m)" marker-end="url(#m)"/>')
    yield "markers", "marker-on-polyline", doc("markers on a polyline", mk.format(a="") + '<polyline points="8,56 20,8 32,56 44,8 56,56" fill="none" stroke="black" marker-mid="url(#m)"/>')
    # ---------------------------------------------------------------- filters
    fil = '<filter id="f" {fa}>{p}</filter><rect x="12" y="12" width="32" height="32" fill="green" filter="url(#f)"/><circle cx="40" cy="40" r="12" fill="orange" filter="url(#f)"/>'
    prims = {
        "blur": '<feGaussianBlur stdDeviation="2"/>', "blur-xy": '<feGaussianBlur stdDeviation="3 0"/>', "blur-zero": '<feGaussianBlur stdDeviation="0"/>',
        "offset": '<feOffset dx="5" dy="3"/>', "flood": '<feFlood flood-color="#3080c0" flood-opacity="0.7"/>',
        "flood-linear": '<feFlood flood-color="#808080" color-interpolation-filters="linearRGB"/>', "flood-srgb": '<feFlood flood-color="#808080" color-interpolation-filters="sRGB"/>',
        "flood-composite": '<feFlood flood-color="blue" result="a"/><feComposite in="a" in2="SourceGraphic" operator="in"/>',
        "drop-shadow": '<feDropShadow dx="3" dy="3" stdDeviation="1.5" flood-color="black" flood-opacity="0.6"/>',
        "drop-shadow-lowered": '<feGaussianBlur in="SourceAlpha" stdDeviation="1.5"/><feOffset dx="3" dy="3" result="b"/><feFlood flood-color="black" flood-opacity="0.6"/><feComposite in2="b" operator="in"/><feMerge><feMergeNode/><feMergeNode in="SourceGraphic"/></feMerge>',
        "glow": '<feGaussianBlur stdDeviation="2.5" result="b"/><feMerge><feMergeNode in="b"/><feMergeNode in="SourceGraphic"/></feMerge>',
        "colormatrix-saturate": '<feColorMatrix type="saturate" values="0.2"/>', "colormatrix-hue": '<feColorMatrix type="hueRotate" values="90"/>',
        "colormatrix-l2a": '<feColorMatrix type="luminanceToAlpha"/>', "colormatrix-matrix": '<feColorMatrix values="0 0 1 0 0  0 1 0 0 0  1 0 0 0 0  0 0 0 1 0"/>',
        "component-table": '<feComponentTransfer><feFuncR type="table" tableValues="1 0"/></feComponentTransfer>',
        "component-linear": '<feComponentTransfer><feFuncG type="linear" slope="0.5" intercept="0.2"/></feComponentTransfer>',
        "component-gamma": '<feComponentTransfer><feFuncB type="gamma" amplitude="1" exponent="2" offset="0"/></feComponentTransfer>',
        "component-discrete": '<feComponentTransfer><feFuncR type="discrete" tableValues="0 0.5 1"/></feComponentTransfer>',
        "composite-over": '<feOffset dx="4" result="o"/><feComposite in="SourceGraphic" in2="o" operator="over"/>',
        "composite-xor": '<feOffset dx="6" result="o"/><feComposite in="SourceGraphic" in2="o" operator="xor"/>',
        "composite-arithmetic": '<feOffset dx="6" result="o"/><feComposite in="SourceGraphic" in2="o" operator="arithmetic" k1="0" k2="0.5" k3="0.5" k4="0"/>',
        "blend-multiply": '<feFlood flood-color="red" result="a"/><feBlend in="SourceGraphic" in2="a" mode="multiply"/>',
        "blend-screen": '<feFlood flood-color="#0000ff" result="a"/><feBlend in="SourceGraphic" in2="a" mode="screen"/>',
        "morphology-dilate": '<feMorphology operator="dilate" radius="2"/>', "morphology-erode": '<feMorphology operator="erode" radius="2"/>',
        "merge": '<feOffset dx="5" result="o"/><feMerge><feMergeNode in="o"/><feMergeNode in="SourceGraphic"/></feMerge>',
        "convolve": '<feConvolveMatrix order="3" kernelMatrix="0 -1 0 -1 5 -1 0 -1 0"/>',
        "diffuse-distant": '<feDiffuseLighting lighting-color="yellow"><feDistantLight azimuth="45" elevation="45"/></feDiffuseLighting>',
        "specular-point": '<feSpecularLighting specularExponent="20" lighting-color="white"><fePointLight x="20" y="20" z="30"/></feSpecularLighting>',
        "turbulence": '<feTurbulence baseFrequency="0.05" numOctaves="2"/>',
        "displacement": '<feTurbulence baseFrequency="0.05" result="t"/><feDisplacementMap in="SourceGraphic" in2="t" scale="10"/>',
        "tile": '<feOffset width="20" height="20" result="a"/><feTile in="a"/>',
        "image-ref": '<feImage href="#r"/>',
        "source-alpha": '<feGaussianBlur in="SourceAlpha" stdDeviation="2"/>',
        "background-image": '<feGaussianBlur in="BackgroundImage" stdDeviation="2"/>',
        "fill-paint": '<feMerge><feMergeNode in="FillPaint"/></feMerge>',
        "unknown-result": '<feGaussianBlur in="nope" stdDeviation="2"/>',
        "empty-filter": '',
    }
    for name, p in prims.items():
        yield "filters", f"filter-{name}", doc(f"filter {name}", fil.format(fa="", p=p))
    for k, fa in enumerate(['x="0" y="0" width="1" height="1"', 'filterUnits="userSpaceOnUse" x="0" y="0" width="32" height="64"', 'primitiveUnits="objectBoundingBox"', 'x="-50%" y="-50%" width="200%" height="200%"']):
        p = '<feOffset dx="0.1" dy="0.1"/>' if "primitive" in fa else '<feGaussianBlur stdDeviation="3"/>'
        yield "filters", f"filter-region-{k}", doc(f"filter region {fa}", fil.format(fa=fa, p=p))
    yield "filters", "filter-missing", doc("a filter to a missing id draws nothing", '<rect x="8" y="8" width="48" height="48" fill="red" filter="url(#missing)"/><circle cx="32" cy="32" r="6"/>')
    yield "filters", "filter-on-group", doc("filter on a group", '<filter id="f"><feOffset dx="6" dy="6"/></filter><g filter="url(#f)"><rect x="8" y="8" width="24" height="24" fill="blue"/><circle cx="36" cy="36" r="12" fill="red"/></g>')
    for k, fn in enumerate(["blur(2px)", "drop-shadow(3px 3px 2px black)", "grayscale(1)", "sepia(1)", "brightness(0.5)", "invert(1)", "opacity(0.3)", "hue-rotate(90deg)"]):
        yield "filters", f"css-filter-{k}", doc(f"CSS filter function {fn}", f'<rect x="12" y="12" width="40" height="40" fill="orange" style="filter: {fn}"/>')
    for mode in ("multiply", "screen", "difference", "overlay", "darken", "normal"):
        yield "painting", f"mix-blend-{mode}", doc(f"mix-blend-mode {mode} mixes with what is below, not the background", f'<rect x="8" y="8" width="32" height="32" fill="#08f"/><rect x="24" y="24" width="32" height="32" fill="#f80" style="mix-blend-mode: {mode}"/><circle cx="52" cy="12" r="8" fill="#f0f" mix-blend-mode="{mode}"/>')
    yield "painting", "isolation-isolate", doc("isolation isolate", '<rect width="32" height="64" fill="#0f0"/><g style="isolation: isolate"><rect x="16" y="16" width="32" height="32" fill="#f00" style="mix-blend-mode: multiply"/></g>')
    yield "painting", "context-fill", doc("context-fill in a marker", '<marker id="m" markerWidth="8" markerHeight="8" refX="4" refY="4"><circle cx="4" cy="4" r="4" fill="context-stroke"/></marker><path d="M8 56 L32 8 L56 56" fill="none" stroke="blue" stroke-width="2" marker-mid="url(#m)"/>')
    # ---------------------------------------------------------------- styling
    yield "styling", "style-attribute", doc("style attribute", '<rect x="8" y="8" width="48" height="48" style="fill: green; stroke: black; stroke-width: 4"/>')
    yield "styling", "style-over-attribute", doc("style wins over presentation attribute", '<rect x="8" y="8" width="48" height="48" fill="red" style="fill:green"/>')
    yield "styling", "sheet-type", doc("a sheet by element type", '<style>rect { fill: teal }</style><rect x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-class", doc("a sheet by class", '<style>.a { fill: teal } .b { fill: orange }</style><rect class="a" x="8" y="8" width="24" height="48"/><rect class="b" x="32" y="8" width="24" height="48"/>')
    yield "styling", "sheet-id", doc("a sheet by id", '<style>#x { fill: purple }</style><rect id="x" x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-specificity", doc("specificity: id over class over type", '<style>#x { fill: green } .a { fill: red } rect { fill: blue }</style><rect id="x" class="a" x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-order", doc("source order among equal specificity", '<style>.a { fill: red } .a { fill: green }</style><rect class="a" x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-important", doc("!important in a sheet wins over style", '<style>.a { fill: green !important }</style><rect class="a" x="8" y="8" width="48" height="48" style="fill: red"/>')
    yield "styling", "sheet-descendant", doc("descendant selector", '<style>g rect { fill: green }</style><g><rect x="8" y="8" width="48" height="48" fill="red"/></g>')
    yield "styling", "sheet-child", doc("child selector", '<style>g > rect { fill: green }</style><g><rect x="8" y="8" width="24" height="48" fill="red"/></g><rect x="32" y="8" width="24" height="48" fill="blue"/>')
    yield "styling", "sheet-attribute", doc("attribute selector", '<style>[data-k="1"] { fill: green }</style><rect data-k="1" x="8" y="8" width="48" height="48" fill="red"/>')
    yield "styling", "sheet-first-child", doc(":first-child", '<style>rect:first-of-type { fill: green }</style><g><rect x="8" y="8" width="24" height="48" fill="red"/><rect x="32" y="8" width="24" height="48" fill="blue"/></g>')
    yield "styling", "sheet-universal", doc("universal selector", '<style>* { fill: green }</style><rect x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-media-ignored", doc("@media rules", '<style>@media print { rect { fill: red } } rect { fill: green }</style><rect x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-comment", doc("comments in a sheet", '<style>/* rect { fill: red } */ rect { fill: green }</style><rect x="8" y="8" width="48" height="48"/>')
    yield "styling", "sheet-cdata", doc("a sheet in CDATA", '<style><![CDATA[ rect { fill: green } ]]></style><rect x="8" y="8" width="48" height="48"/>')
    yield "styling", "css-href-stripped", doc("a CSS href never links a file", '<image width="64" height="64" style="href: url(/etc/passwd)"/><circle cx="32" cy="32" r="10"/>')
    yield "styling", "css-opacity", doc("opacity from CSS", '<rect x="8" y="8" width="48" height="48" fill="blue" style="opacity: 0.4"/>')
    yield "styling", "css-display-none", doc("display none from CSS", '<style>.h { display: none }</style><rect class="h" width="64" height="64" fill="red"/><circle cx="32" cy="32" r="10"/>')
    yield "styling", "css-visibility", doc("visibility from CSS", '<style>.h { visibility: hidden }</style><rect class="h" width="64" height="64" fill="red"/><circle cx="32" cy="32" r="10"/>')
    yield "styling", "css-currentcolor-case", doc("currentcolor in any case", '<rect x="8" y="8" width="48" height="48" color="green" style="fill: CURRENTCOLOR"/>')
    yield "styling", "css-vendor-ignored", doc("vendor properties are ignored", '<rect x="8" y="8" width="48" height="48" fill="green" style="-webkit-fill: red"/>')
    # ---------------------------------------------------------------- units
    for u in ("px", "pt", "pc", "mm", "cm", "in", "em", "ex", "%"):
        v = {"px": "24", "pt": "18", "pc": "1.5", "mm": "6", "cm": "0.6", "in": "0.25", "em": "1.5", "ex": "3", "%": "40"}[u]
        yield "units", f"length-{u.replace('%', 'pct')}", doc(f"width and height in {u}", f'<rect x="8" y="8" width="{v}{u}" height="{v}{u}" fill="darkcyan"/>')
    yield "units", "font-size-em", doc("em relative to the element's font-size", '<g font-size="8"><rect x="8" y="8" width="4em" height="2em" fill="darkcyan"/></g>')
    yield "units", "percent-nested-viewport", doc("percent lengths against a nested viewport", '<svg x="0" y="0" width="32" height="32"><rect width="50%" height="50%" fill="darkcyan"/></svg>')
    # ---------------------------------------------------------------- text (routed to resvg)
    yield "text", "text-basic", doc("text is drawn by resvg", '<text x="8" y="40" font-size="24" fill="black">Hi</text>')
    yield "text", "text-empty", doc("an empty text element draws nothing", '<text x="8" y="40"> </text><rect x="16" y="16" width="32" height="32"/>')
    # ---------------------------------------------------------------- images (routed)
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==")
    yield "images", "image-data-png", doc("a PNG data: image", f'<image href="data:image/png;base64,{png}" x="8" y="8" width="48" height="48" preserveAspectRatio="none"/>')
    yield "images", "image-data-png-wrong-mime", doc("a PNG under a text MIME type is still a PNG", f'<image href="data:text/plain;base64,{png}" x="8" y="8" width="48" height="48" preserveAspectRatio="none"/>')
    yield "images", "image-data-svg-not-drawn", doc("an SVG in a data: URI is not drawn", '<image href="data:image/svg+xml;utf8,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22%3E%3Crect width=%2210%22 height=%2210%22/%3E%3C/svg%3E" width="64" height="64"/>')


def main() -> int:
    n = 0
    names = set()
    for cls, name, text in cases():
        assert (cls, name) not in names, name
        names.add((cls, name))
        d = OUT / cls
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.svg").write_text(text, encoding="utf-8")
        n += 1
    print(f"{n} files under {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
