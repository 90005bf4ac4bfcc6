"""Write tests/data/forms/ from the hand-written table below (run once; the files are the corpus).

Each case: area, behaviour, source, a.svg body, optional b.svg body, and the expected verdicts
written by hand: default {valid, detail, c_equal, v_equal}, parity {...} (c/v only with b).
"""
import json
import pathlib
import sys

NS = 'xmlns="http://www.w3.org/2000/svg"'
XL = 'xmlns:xlink="http://www.w3.org/1999/xlink"'
def doc(body, extra=""):
    return f'<svg {NS} {extra} viewBox="0 0 100 100">{body}</svg>'.replace("  ", " ")

def V(valid=True, detail=(), c=None, v=None):
    fields = dict(valid=valid, detail=list(detail), c_equal=c, v_equal=v)
    return {k: x for k, x in fields.items() if x is not None}

CASES = [
 # -- numbers ------------------------------------------------------------------------------
 ("numbers", "exponent-spelling", "SVG 2 §4.2 number grammar (exponents); spec-reward.md §4.2",
  doc('<rect x="1e1" y="+.50" width="2E1" height="20.000"/>'), doc('<rect x="10" y="0.5" width="20" height="20"/>'),
  V(c=True, v=True), V(c=True, v=True)),
 ("numbers", "nan-not-a-number", "SVG 2 §4.2: NaN is not a <number>; issue 10 (any numeric attribute)",
  doc('<rect x="NaN" width="10" height="10"/>'), None, V(False, ["invalid_number"]), V()),
 ("numbers", "infinity-not-a-number", "SVG 2 §4.2: Infinity is not a <number>",
  doc('<circle r="Infinity"/>'), None, V(False, ["invalid_number"]), V()),
 ("numbers", "underscore-not-a-number", "SVG 2 §4.2: no digit-group separators (Python float('1_0') = 10, spec §16 item 7)",
  doc('<rect width="1_0" height="10"/>'), None, V(False, ["invalid_number"]), V()),
 ("numbers", "hex-not-a-number", "SVG 2 §4.2: no hexadecimal numbers",
  doc('<rect width="10" height="10" opacity="0x1"/>'), None, V(False, ["invalid_number"]), V()),
 ("numbers", "nan-stroke-width-and-offset", "SVG 2 §4.2 / §13.1 / §14.3 stop offset: numbers only",
  doc('<linearGradient id="g"><stop offset="nan"/></linearGradient><path d="M0 0" stroke-width="inf"/>'), None,
  V(False, ["invalid_number"]), V()),
 ("numbers", "unicode-digits-not-a-number", "SVG 2 §4.2: ASCII digits only (the reference's \\d reads １０ as 10, spec §15)",
  doc('<rect x="\uff11\uff10" width="10" height="10"/>'), doc('<rect x="10" width="10" height="10"/>'),
  V(False, ["invalid_number"], c=False, v=False), V(c=True, v=True)),
 ("numbers", "px-is-user-units", "CSS Values 4 §6.2 / SVG 2 §8.3: px equals user units",
  doc('<rect width="10px" height="5PX" x="1.5px"/>'), doc('<rect width="10" height="5" x="1.5"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("numbers", "percent-opacity-and-offset", "CSS Color 4 §4.2 <alpha-value> and SVG 2 §14.3.3 offset: 50% = 0.5",
  doc('<linearGradient id="g"><stop offset="50%" stop-opacity="25%"/></linearGradient><rect fill="url(#g)" opacity="50%"/>'),
  doc('<linearGradient id="g"><stop offset="0.5" stop-opacity="0.25"/></linearGradient><rect fill="url(#g)" opacity=".5"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("numbers", "one-digit-differs", "no rounding of values written: 0.5 vs 0.51 differ in every mode",
  doc('<rect x="0.5"/>'), doc('<rect x="0.51"/>'), V(c=False, v=False), V(c=False, v=False)),
 # -- path data ----------------------------------------------------------------------------
 ("path", "packed-numbers", "SVG 2 §9.3.9 path grammar: '1.5.5' is 1.5 then .5; issue 10 (433 SVGEditBench V2 targets)",
  doc('<path d="M1.5.5L-.5.5.5 0"/>'), doc('<path d="M 1.5 0.5 L -0.5 0.5 0.5 0"/>'),
  V(c=True, v=True), V(False, ["invalid_path_syntax"], c=False, v=False)),
 ("path", "packed-exponent", "SVG 2 §9.3.9: '2e1.5' is 20 then .5",
  doc('<path d="M2e1.5 1e1 1"/>'), doc('<path d="M20 0.5 10 1"/>'),
  V(c=True, v=True), V(False, ["invalid_path_syntax"], c=False, v=False)),
 ("path", "compact-arc-flags", "SVG 2 §9.3.9: flags are one character, no separator needed ('0130' = 0, 1, 30)",
  doc('<path d="M0 0a20 20 0 0130 0"/>'), doc('<path d="M0 0 a20 20 0 0 1 30 0"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("path", "implicit-repeats", "SVG 2 §9.3.2: a repeated command may be omitted; after M/m it is L/l",
  doc('<path d="M0 0 10 0 10 10 L 0 10 0 5"/>'), doc('<path d="M0 0 L10 0 L10 10 L0 10 L0 5"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("path", "relative-stays-distinct", "no geometric canonicalisation: m/l vs M/L are different path data (spec §4.3)",
  doc('<path d="M10 10 l5 0"/>'), doc('<path d="M10 10 L15 10"/>'), V(c=False, v=False), V(c=False, v=False)),
 ("path", "nbsp-is-not-whitespace", "SVG 2 §9.3.9 wsp: space, tab, CR, LF only; NBSP is an error",
  doc('<path d="M0\u00a00 L1 1"/>'), None, V(False, ["invalid_path_syntax"]), V(False, ["invalid_path_syntax"])),
 ("path", "truncated-repeat", "spec §16 item 22: the reference silently drops an incomplete implicit repeat",
  doc('<path d="M0 0 1 1 1"/>'), None, V(False, ["invalid_path_syntax"]), V()),
 # -- points, viewBox, lists ---------------------------------------------------------------
 ("points", "packed-points", "SVG 2 §10.5 points: a number list, packed numbers allowed",
  doc('<polyline points="0,0 10.5.5-1-1"/>'), doc('<polyline points="0 0 10.5 0.5 -1 -1"/>'),
  V(c=True, v=True), V(False, ["invalid_attribute_syntax"], c=False, v=False)),
 ("points", "odd-count", "SVG 2 §10.5: an odd number of coordinates is an error",
  doc('<polyline points="0,0 10"/>'), None, V(False, ["odd_points"]), V(False, ["odd_points"])),
 ("viewbox", "packed-and-exponent", "SVG 2 §8.6 viewBox: four numbers of the number grammar",
  f'<svg {NS} viewBox="0,0 1e2.5e2"/>', f'<svg {NS} viewBox="0 0 100 50"/>',
  V(c=True, v=True), V(False, ["invalid_viewbox"], c=False, v=False)),
 ("viewbox", "zero-width", "SVG 2 §8.6: a zero width disables rendering (invalid, spec §10)",
  f'<svg {NS} viewBox="0 0 0 10"/>', None, V(False, ["invalid_viewbox"]), V(False, ["invalid_viewbox"])),
 # -- transform ----------------------------------------------------------------------------
 ("transform", "implied-arguments", "SVG 1.1 §7.6: translate(tx) = translate(tx 0), scale(s) = scale(s s), rotate(a 0 0) = rotate(a)",
  doc('<g transform="translate(10)scale(2),rotate(45 0 0)"/>'), doc('<g transform="translate(10, 0) scale(2 2) rotate(45)"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("transform", "packed-arguments", "SVG 1.1 §7.6 transform-list grammar uses the number grammar: '1.5.5' is two numbers",
  doc('<g transform="translate(1.5.5)"/>'), doc('<g transform="translate(1.5 0.5)"/>'),
  V(c=True, v=True), V(False, ["invalid_attribute_syntax"], c=False, v=False)),
 ("transform", "wrong-case-function", "SVG 1.1 §7.6: function names are case-sensitive",
  doc('<g transform="Translate(10)"/>'), None, V(False, ["invalid_attribute_syntax"]), V(False, ["invalid_attribute_syntax"])),
 # -- colour -------------------------------------------------------------------------------
 ("color", "hsl-and-percent-rgb", "CSS Color 4 §5.1, §7: hsl(0,100%,50%) and rgb(100%,0%,0%) are #ff0000; issue 10",
  doc('<rect fill="hsl(0,100%,50%)" stroke="rgb(100%,0%,0%)"/>'), doc('<rect fill="#ff0000" stroke="#FF0000"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("color", "named-any-case", "CSS Color 4 §6.1: named colours are ASCII case-insensitive, all 148 names",
  doc('<rect fill="CRIMSON" stroke="RebeccaPurple" stop-color="Red"/>'), doc('<rect fill="#dc143c" stroke="#663399" stop-color="#f00"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("color", "hex-alpha-forms", "CSS Color 4 §5.2: #rgba and #rrggbbaa; ff alpha is opaque",
  doc('<rect fill="#f00f" stroke="#00ff0080"/>'), doc('<rect fill="red" stroke="rgba(0 255 0 / 0.50196078)"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("color", "space-syntax-slash-alpha", "CSS Color 4 §5.1: rgb(r g b / a) = rgba(r, g, b, a)",
  doc('<rect fill="rgb(255 0 0 / 50%)"/>'), doc('<rect fill="rgba(255,0,0,0.5)"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("color", "hue-units", "CSS Color 4 §7.1: hue in deg, turn, rad, grad",
  doc('<rect fill="hsl(0.5turn 100% 50%)" stroke="hsla(180deg,100%,50%,1)"/>'), doc('<rect fill="#00ffff" stroke="aqua"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("color", "transparent", "CSS Color 4 §6.3: transparent = rgba(0, 0, 0, 0)",
  doc('<rect fill="Transparent"/>'), doc('<rect fill="rgba(0,0,0,0)"/>'), V(c=True, v=True), V(c=False, v=False)),
 ("color", "currentcolor-keyword", "CSS Color 4 §6.4: currentColor is a keyword, any case; not the current colour's value",
  doc('<rect fill="CURRENTCOLOR" color="red"/>'), doc('<rect fill="currentColor" color="#f00"/>'),
  V(c=True, v=True), V(c=True, v=True)),
 ("color", "different-alpha-differs", "same sRGB colour, different alpha: not equal",
  doc('<rect fill="rgba(255,0,0,0.5)"/>'), doc('<rect fill="red"/>'), V(c=False, v=False), V(c=False, v=False)),
 # -- style --------------------------------------------------------------------------------
 ("style", "important-not-part-of-value", "CSS Syntax 3 §5.4.6 (consume a declaration): !important is a flag, not value text",
  doc('<rect style="fill: red !important"/>'), doc('<rect fill="red"/>'), V(c=False, v=True), V(c=False, v=False)),
 ("style", "presentation-attribute-vs-style", "SVG 2 §6.5 presentation attributes; spec §5.2",
  doc('<rect style="fill:#6a1a1a;stroke-width:2"/>'), doc('<rect fill="#6a1a1a" stroke-width="2.0"/>'),
  V(c=False, v=True), V(c=False, v=True)),
 ("style", "comments-and-case", "CSS Syntax 3: comments are dropped, property names are ASCII case-insensitive",
  doc('<rect style="/* a */ FILL: Red; Stroke-Width:/* b */2"/>'), doc('<rect style="fill:#f00;stroke-width:2"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("style", "last-declaration-wins", "CSS Cascade 4 §6: within one block the last declaration wins (an earlier !important beats it)",
  doc('<rect style="fill:blue;fill:red;stroke:red !important;stroke:blue"/>'), doc('<rect style="fill:red;stroke:red"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("style", "malformed-declaration", "CSS Syntax 3: a piece without ':' is not a declaration (invalid, spec §4.5)",
  doc('<rect style="fill red"/>'), None, V(False, ["invalid_attribute_syntax"]), V(False, ["invalid_attribute_syntax"])),
 # -- review of issue 10: spellings outside the first table ---------------------------------
 ("transform", "gradient-and-pattern-transform", "SVG 2 §14.2.2 gradientTransform / §14.4 patternTransform take the <transform-list> of §8.5",
  doc('<linearGradient id="g" gradientTransform="rotate( 45 )scale(2)"/><pattern id="p" patternTransform="translate(1e1)"/>'),
  doc('<linearGradient id="g" gradientTransform="rotate(45) scale(2 2)"/><pattern id="p" patternTransform="translate(10 0)"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("transform", "gradient-transform-wrong-case", "SVG 2 §14.2.2: gradientTransform is a <transform-list>; function names are case-sensitive",
  doc('<linearGradient gradientTransform="Rotate(45)"/>'), None, V(False, ["invalid_attribute_syntax"]), V()),
 ("numbers", "font-size-px", "CSS Fonts 4 §2.5 font-size: <length> (SVG 2 §6.8 presentation attribute: unitless = px); keywords stay",
  doc('<text font-size="12px" letter-spacing="1PX">a</text><text font-size="Small">b</text>'),
  doc('<text font-size="12" letter-spacing="1">a</text><text style="font-size:small">b</text>'),
  V(c=False, v=True), V(c=False, v=False)),
 ("numbers", "dasharray-length-list", "SVG 2 §13.5.3 stroke-dasharray: a list of <length-percentage> separated by commas and/or spaces",
  doc('<path d="M0 0H9" stroke-dasharray="5px,2 1e0"/>'), doc('<path d="M0 0H9" stroke-dasharray="5 2 1"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 ("style", "keyword-case", "CSS Values 4 §6.1: keywords are ASCII case-insensitive; SVG 2 §6.8 presentation attributes are CSS values",
  doc('<path d="M0 0H9" stroke-linecap="ROUND" fill-rule="EvenOdd" style="display:Inline"/>'),
  doc('<path d="M0 0H9" stroke-linecap="round" fill-rule="evenodd" display="inline"/>'),
  V(c=False, v=True), V(c=False, v=False)),
 ("style", "css-transform-units", "CSS Transforms 1 §9 / SVG 2 §8.5: the transform property in style takes CSS units (deg, px, turn); = the attribute's unitless list",
  doc('<g style="transform: ROTATE(0.125turn) translate(10px, 0)"/><g style="transform:scaleX(2) skewX(45deg)"/>'),
  doc('<g transform="rotate(45) translate(10)"/><g transform="scale(2 1) skewX(45)"/>'),
  V(c=False, v=True), V(c=False, v=False)),
 ("style", "css-transform-unitless-angle", "CSS Values 4 §7.1: an <angle> needs a unit (only 0 may omit it), so browsers drop transform:rotate(45) in style",
  doc('<g style="transform:rotate(45)"/>'), doc('<g transform="rotate(45)"/>'),
  V(c=False, v=False), V(c=False, v=True)),
 ("color", "paint-fallback-spelling", "SVG 2 §13.2 <paint>: url(#g) followed by a fallback <color>, which is any CSS Color 4 spelling",
  doc('<linearGradient id="g"/><rect fill="url(#g) RED" stroke="url(#g)  hsl(120 100% 25.098039%) "/>'),
  doc('<linearGradient id="g"/><rect fill="url(#g) #f00" stroke="url(#g) #008000"/>'),
  V(c=True, v=True), V(c=False, v=False)),
 # -- references ---------------------------------------------------------------------------
 ("references", "xlink-href-equals-href", "SVG 2 §5.7: href and xlink:href name the same link",
  doc('<rect id="r"/><use xlink:href="#r"/>', XL), doc('<rect id="r"/><use href="#r"/>'),
  V(c=False, v=True), V(c=False, v=True)),
 ("references", "plain-href-wins", "SVG 2 §5.7: when both are given, href is used and xlink:href ignored; dropping it is not a change",
  doc('<rect id="r"/><rect id="s"/><use href="#r" xlink:href="#s"/>', XL), doc('<rect id="r"/><rect id="s"/><use href="#r"/>'),
  V(c=False, v=True), V(c=False, v=False)),
 ("references", "overridden-xlink-dangling", "SVG 2 §5.7: an overridden xlink:href links nothing, so a dangling one is no unresolved reference",
  doc('<rect id="r"/><use href="#r" xlink:href="#gone"/>', XL), None,
  V(), V(False, ["unresolved_reference"])),
 ("references", "foreign-namespace-href", "Namespaces in XML §6.3: an href in another namespace is an ordinary foreign attribute, not a link",
  doc('<rect id="r"/><use href="#r" xmlns:x="urn:x" x:href="#gone"/>'), None,
  V(), V(False, ["unresolved_reference"])),
 ("references", "url-quotes-and-spaces", "CSS Values 4 §4.5: url( '#g' ) = url(#g)",
  doc('<linearGradient id="g"/><rect fill="url( \'#g\' )"/>'), doc('<linearGradient id="g"/><rect fill="url(#g)"/>'),
  V(c=False, v=True), V(c=False, v=True)),
 # -- document-level rules -----------------------------------------------------------------
 ("root", "no-svg-namespace", "SVG 2 §1.3 / Namespaces in XML: an <svg> outside the SVG namespace is not SVG (renderers draw nothing)",
  '<svg viewBox="0 0 10 10"><rect width="5" height="5"/></svg>', None, V(False, ["no_svg_namespace"]), V()),
 ("use", "self-reference", "SVG 2 §5.6.1: a <use> referencing itself or an ancestor is in error (resvg #554-style recursion)",
  doc('<g id="a"><use href="#a"/></g>'), None, V(False, ["use_cycle"]), V()),
 ("use", "mutual-cycle", "SVG 2 §5.6.1: circular <use> references are an error",
  doc('<defs><g id="a"><use href="#b"/></g><g id="b"><use xlink:href="#a"/></g></defs><use href="#a"/>', XL), None,
  V(False, ["use_cycle"]), V()),
 ("use", "chain-without-cycle", "SVG 2 §5.6: a <use> chain that ends is fine",
  doc('<defs><rect id="r"/><g id="a"><use href="#r"/></g></defs><use href="#a"/><use href="#a"/>'), None, V(), V()),
]

out = pathlib.Path(sys.argv[1])
names = set()
for area, beh, source, a, b, dflt, par in CASES:
    assert (area, beh) not in names
    names.add((area, beh))
    d = out / area / beh
    d.mkdir(parents=True, exist_ok=True)
    (d / "a.svg").write_text(a + "\n", encoding="utf-8")
    if b is not None:
        (d / "b.svg").write_text(b + "\n", encoding="utf-8")
    (d / "expected.json").write_text(json.dumps({"source": source, "default": dflt, "parity": par}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
print(len(CASES), "cases")
