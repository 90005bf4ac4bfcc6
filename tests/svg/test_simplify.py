"""The normalised render form (vector_gym.svg.simplify): one test per contract item."""

from __future__ import annotations

import pytest
from lxml import etree

from vector_gym.errors import SVGParseError
from vector_gym.svg.parse import MANY_ATTRIBUTES, parse_svg
from vector_gym.svg.simplify import (
    external_references,
    fit_root,
    parse_transform_lenient,
    path_numbers_over,
    sanitize_path_data,
    simplify,
    strip_external_resources,
    use_expansion_count,
)

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
S = "{http://www.w3.org/2000/svg}"
XH = "{http://www.w3.org/1999/xlink}href"


def doc(body: str, attrs: str = 'viewBox="0 0 100 100"') -> str:
    return f"<svg {NS} {attrs}>{body}</svg>"


def simp(body: str, attrs: str = 'viewBox="0 0 100 100"', size=None):
    return etree.fromstring(simplify(doc(body, attrs), size).encode())


def by_id(root, i):
    return root.xpath(f"//*[@id='{i}']")[0]


def drawn(root):
    return [
        e
        for e in root.iter()
        if isinstance(e.tag, str)
        and e.tag[len(S) :] in ("path", "rect", "line", "polygon", "polyline")
    ]


# 1. namespaces and prologue
def test_prefixed_root_doctype_and_foreign_namespaces():
    text = (
        '<!DOCTYPE svg [<!ATTLIST svg a CDATA #IMPLIED>]><svg:svg xmlns:svg="http://www.w3.org/2000/svg" '
        'xmlns:ink="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 10 10">'
        '<svg:rect id="r" ink:label="x" width="5" height="5"/><ink:thing/></svg:svg>'
    )
    out = simplify(text)
    assert out.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "DOCTYPE" not in out
    assert "<svg:" not in out and "inkscape" not in out and "thing" not in out
    assert 'id="r"' in out


# 2. CSS cascade
def test_css_cascade_specificity_order_and_important():
    root = simp(
        "<style>rect { fill: blue } .a { fill: green; stroke: red } #x { fill: yellow !important }</style>"
        '<rect id="p" class="a" width="1" height="1" fill="black"/>'
        '<rect id="x" class="a" width="1" height="1" style="fill: purple"/>'
        '<rect id="q" width="1" height="1" style="fill: #00f8"/>'
    )
    assert (
        root.find(".//" + S + "style") is None
        and "style" not in etree.tostring(root).decode().split("<rect", 1)[1]
    )
    assert by_id(root, "p").get("fill") == "#008000" and by_id(root, "p").get("stroke") == "#ff0000"
    assert by_id(root, "x").get("fill") == "#ffff00"  # !important sheet beats the style attribute
    q = by_id(root, "q")
    assert q.get("fill") == "#0000ff" and q.get("fill-opacity") == "0.533333"


# 3. colours
@pytest.mark.parametrize(
    "spelling, hex_, opacity",
    [
        ("#f008", "#ff0000", "0.533333"),
        ("#00ff0080", "#00ff00", "0.501961"),
        ("hsl(120, 100%, 25%)", "#008000", None),
        ("rebeccapurple", "#663399", None),
        ("RED", "#ff0000", None),
        ("rgb(100% 0% 0% / 50%)", "#ff0000", "0.5"),
    ],
)
def test_colour_spellings_become_hex_plus_opacity(spelling, hex_, opacity):
    r = by_id(simp(f'<rect id="r" width="1" height="1" fill="{spelling}"/>'), "r")
    assert r.get("fill") == hex_ and r.get("fill-opacity") == opacity


def test_transparent_current_color_and_inheritance():
    root = simp(
        '<g fill="#f008" color="blue" stroke="currentcolor" fill-opacity="0.5">'
        '<rect id="a" width="1" height="1"/><rect id="b" width="1" height="1" fill="red"/>'
        '<g color="lime"><rect id="c" width="1" height="1" fill="CurrentColor"/></g></g>'
        '<rect id="t" width="1" height="1" fill="transparent"/>'
    )
    a, b, c, t = (by_id(root, i) for i in "abct")
    assert (a.get("fill"), a.get("fill-opacity"), a.get("stroke")) == (
        "#ff0000",
        "0.266667",
        "#0000ff",
    )
    assert (b.get("fill"), b.get("fill-opacity")) == (
        "#ff0000",
        "0.5",
    )  # alpha of the group's colour not inherited
    # currentColor inherits as a keyword (CSS Color 4 §6.4, as browsers): the stroke inherited
    # from the outer group takes the inner group's colour (issue 11)
    assert c.get("fill") == "#00ff00" and c.get("stroke") == "#00ff00"
    assert t.get("fill") == "#000000" and t.get("fill-opacity") == "0"
    assert all(g.get("fill") is None for g in root.iter(S + "g"))  # containers carry no paint


# 4. references
def test_href_and_quoted_urls():
    root = simp(
        '<linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient>'
        '<rect id="a" width="1" height="1" fill="url(\'#g\')"/>'
        '<rect id="b" width="1" height="1" fill="url(#missing) green"/>'
        '<rect id="c" width="1" height="1" fill="url(#missing)"/>'
        '<rect id="d" width="1" height="1" clip-path="url(#missing)"/>'
    )
    assert by_id(root, "a").get("fill") == "url(#g)"
    assert by_id(root, "b").get("fill") == "#008000"
    assert by_id(root, "c").get("fill") == "none"
    assert by_id(root, "d").get("clip-path") is None


def test_one_stop_gradient_is_a_solid_colour_and_no_stop_is_none():
    root = simp(
        '<linearGradient id="one"><stop stop-color="red" stop-opacity="0.5"/></linearGradient>'
        '<linearGradient id="zero"/>'
        '<rect id="a" width="1" height="1" fill="url(#one)"/><rect id="b" width="1" height="1" fill="url(#zero)"/>'
    )
    a = by_id(root, "a")
    assert (a.get("fill"), a.get("fill-opacity")) == ("#ff0000", "0.5")
    assert by_id(root, "b").get("fill") == "none"


# 5. use
def test_use_expansion_plain_href_symbol_cycle_and_budget():
    root = simp(
        '<defs><rect id="r" width="10" height="10" fill="red"/>'
        '<symbol id="s" viewBox="0 0 1 1"><rect width="1" height="1"/></symbol></defs>'
        '<use id="u1" href="#r" x="5" y="6" fill="blue"/><use id="u2" xlink:href="#s" width="20" height="20"/>'
        '<use id="self" href="#self"/><use id="dangling" href="#nope"/>'
    )
    u1 = by_id(root, "u1")
    assert u1.tag == S + "g" and u1.get("transform") == "matrix(1 0 0 1 5 6)"
    copy = u1[0]
    assert copy.tag == S + "rect" and copy.get("id") is None and copy.get("fill") == "#ff0000"
    u2 = by_id(root, "u2")
    assert (
        u2.tag == S + "g"
        and u2.find(".//" + S + "g[@transform='matrix(20 0 0 20 0 0)']") is not None
    )
    assert not root.xpath("//*[local-name()='use' or local-name()='symbol']")
    assert not root.xpath("//*[@id='self' or @id='dangling']")
    text = doc('<rect id="r" width="1" height="1"/>' + '<use href="#r"/>' * 10)
    out = etree.fromstring(simplify(text, max_use_expansion=3).encode())
    assert (
        len(out.xpath("//*[local-name()='rect']")) == 1 + 4
    )  # original + budget reached at 4 copies


# 6. switch
def test_switch_keeps_first_matching_child():
    root = simp(
        '<switch id="s"><rect id="x" requiredExtensions="http://example.com/x" width="1" height="1"/>'
        '<rect id="fr" systemLanguage="fr" width="1" height="1"/><rect id="en" systemLanguage="en-GB,fr" width="1" height="1"/>'
        '<rect id="last" width="1" height="1"/></switch>'
    )
    s = by_id(root, "s")
    assert s.tag == S + "g" and [c.get("id") for c in s] == ["en"]


# 7. transforms
def test_transforms_become_one_matrix_and_keep_their_valid_prefix():
    assert parse_transform_lenient("translate(10,10) , scale(2)") == (2, 0, 0, 2, 10, 10)
    assert parse_transform_lenient("translate(1 2)foo(3) scale(5)") == (1, 0, 0, 1, 1, 2)
    assert parse_transform_lenient("rotate(90 1 1)") == pytest.approx((0, 1, -1, 0, 2, 0))
    assert parse_transform_lenient("scale(1,2,3)") == (1, 0, 0, 1, 0, 0)
    root = simp('<g id="g" transform="translate(3)scale(2)"/><g id="i" transform="scale(1)"/>')
    assert by_id(root, "g").get("transform") == "matrix(2 0 0 2 3 0)"
    assert by_id(root, "i").get("transform") is None


# 8. nested svg
def test_nested_svg_becomes_clipped_group():
    root = simp(
        '<svg id="n" x="10" y="20" width="50%" height="40" viewBox="0 0 10 10"><rect id="r" width="10" height="10"/></svg>'
    )
    n = by_id(root, "n")
    assert n.tag == S + "g" and n.get("clip-path", "").startswith("url(#")
    clip = root.xpath(f"//*[@id='{n.get('clip-path')[5:-1]}']/*")[0]
    assert [clip.get(k) for k in ("x", "y", "width", "height")] == ["10", "20", "50", "40"]
    inner = n[0]
    assert inner.get("transform") == "matrix(4 0 0 4 15 20)"  # meet: scale 4, centred in x
    assert (
        simp('<svg id="z" width="0" height="10"><rect width="1" height="1"/></svg>').xpath(
            "//*[@id='z']"
        )
        == []
    )


# 9. lengths
def test_percentages_and_units_become_user_units():
    root = simp(
        '<rect id="r" x="10%" y="1in" width="50%" height="2mm" stroke-width="10%"/>'
        '<linearGradient id="g" x1="25%" x2="1"/><linearGradient id="u" gradientUnits="userSpaceOnUse" x1="25%"/>',
        attrs='viewBox="0 0 200 100"',
    )
    r = by_id(root, "r")
    assert (r.get("x"), r.get("y"), r.get("width")) == ("20", "96", "100")
    assert float(r.get("height")) == pytest.approx(7.5590551)
    assert float(r.get("stroke-width")) == pytest.approx(15.8113883)  # 10% of sqrt((w²+h²)/2)
    assert by_id(root, "g").get("x1") == "0.25" and by_id(root, "u").get("x1") == "50"


# 10. shapes and paths
def test_ellipse_and_circle_become_paths_and_bad_shapes_go():
    root = simp(
        '<ellipse id="e" cx="5" cy="5" rx="4" ry="2"/><circle id="c" cx="1" cy="1" r="1"/>'
        '<circle id="z" r="0"/><rect id="neg" width="-1" height="1"/><path id="bad" d="L1 1"/>'
    )
    e = by_id(root, "e")
    assert e.tag == S + "path" and e.get("d").startswith("M9 5A4 2 0 0 1 5 7")
    assert by_id(root, "c").tag == S + "path"
    assert not root.xpath("//*[@id='z' or @id='neg' or @id='bad']")


def test_path_data_keeps_its_valid_prefix():
    assert sanitize_path_data("M0 0 L10 10 L20") == "M0 0 L10 10"
    assert sanitize_path_data("M0 0 C1 1 2 2 3 3 4") == "M0 0 C1 1 2 2 3 3"
    assert sanitize_path_data("M0,0a5,5,0,1,1,10,0") == "M0,0a5 5 0 1 1 10 0"
    assert sanitize_path_data("M0 0 x") == "M0 0"
    assert sanitize_path_data("M1e2.5-3 4z") == "M1e2.5-3 4z"  # (100, .5) then lineto (-3, 4)
    assert sanitize_path_data("M1e2.5-3z") == "M1e2.5"  # -3 alone is half a coordinate pair


# 11. gradients
def test_gradient_templates_are_flattened():
    root = simp(
        '<linearGradient id="a" gradientUnits="userSpaceOnUse" x1="1" gradientTransform="scale(2)" spreadMethod="reflect">'
        '<stop offset="50%" stop-color="red"/><stop offset="0.2" stop-color="#00f8"/></linearGradient>'
        '<linearGradient id="b" xlink:href="#a" x1="3"/><radialGradient id="c" href="#b"/>'
        '<rect width="1" height="1" fill="url(#b)"/><rect width="1" height="1" fill="url(#c)"/>'
    )
    b, c = by_id(root, "b"), by_id(root, "c")
    assert b.get(XH) is None and c.get(XH) is None
    assert (
        b.get("gradientUnits"),
        b.get("x1"),
        b.get("gradientTransform"),
        b.get("spreadMethod"),
    ) == ("userSpaceOnUse", "3", "matrix(2 0 0 2 0 0)", "reflect")
    assert (
        c.get("x1") is None and c.get("gradientUnits") == "userSpaceOnUse"
    )  # only common attributes cross kinds
    stops = b.findall(S + "stop")
    assert [s.get("offset") for s in stops] == ["0.5", "0.5"]  # clamped non-decreasing
    assert (stops[1].get("stop-color"), stops[1].get("stop-opacity")) == ("#0000ff", "0.533333")
    assert len(c.findall(S + "stop")) == 2


# 12. paint-order
def test_paint_order_stroke_first_draws_two_copies():
    root = simp(
        '<rect id="r" width="5" height="5" fill="red" stroke="blue" paint-order="stroke markers" opacity="0.5"/>'
    )
    g = by_id(root, "r")
    assert g.tag == S + "g" and g.get("opacity") == "0.5"
    first, second = g
    assert (first.get("fill"), first.get("stroke")) == ("none", "#0000ff")
    assert (second.get("fill"), second.get("stroke")) == ("#ff0000", "none")


# 13. root
def test_root_fit_and_attributes_moved_to_a_group():
    root = simp(
        '<rect width="1" height="1"/>',
        attrs='width="20" height="10" opacity="0.5" transform="scale(2)"',
        size=(64, 32),
    )
    assert (root.get("viewBox"), root.get("width"), root.get("height")) == ("0 0 20 10", "32", "64")
    assert root.get("opacity") is None
    g = root[0]
    assert (
        g.tag == S + "g"
        and g.get("opacity") == "0.5"
        and g.get("transform") == "matrix(2 0 0 2 0 0)"
    )
    r = parse_svg(doc("", 'width="100%" height="50%"'))
    fit_root(r, (4, 8))
    assert r.get("viewBox") is None and r.get("width") == "8"


def test_dropped_elements_and_kept_text():
    root = simp(
        '<title>t</title><desc>d</desc><metadata/><script>x</script><text id="t" x="1" y="2">Hi <tspan>there</tspan></text>'
    )
    assert [c.tag[len(S) :] for c in root] == ["text"]
    assert "".join(by_id(root, "t").itertext()) == "Hi there"


def test_simplify_is_idempotent_on_a_corpus_like_document():
    text = doc(
        '<defs><radialGradient id="g" cx="50%" cy="40%" r="60%"><stop offset="0" stop-color="#fc0"/>'
        '<stop offset="1" stop-color="#f60"/></radialGradient></defs>'
        '<circle cx="50" cy="50" r="45" fill="url(#g)"/><path d="M30 60a20 10 0 0040 0" fill="none" stroke="#630" stroke-width="4"/>'
    )
    once = simplify(text)
    assert simplify(once) == once


# pre-check helpers
def test_precheck_helpers():
    r = parse_svg(
        doc(
            '<image href="data:image/png;base64,iVBORw0KGgo="/><use href="#a"/><rect fill="url(file:///x)"/>'
        )
    )
    assert external_references(r) == ["file:///x"]
    r = parse_svg(doc('<g id="a"><use href="#a"/></g>'))
    assert use_expansion_count(r, 100) == -1
    r = parse_svg(doc('<rect id="a"/>' + '<use href="#a"/>' * 5))
    assert use_expansion_count(r, 100) == 12 and use_expansion_count(r, 5) == 6
    assert path_numbers_over(parse_svg(doc('<path d="M0 0 1 1"/>')), 3) is True


def test_xml_base_counts_as_a_reference():
    # Regression (review of issue 3): CairoSVG resolved <image href="#x"> against
    # xml:base="file:///etc/passwd" and stat()ed that file; xml:base was not checked.
    r = parse_svg(doc('<image xml:base="file:///etc/passwd" href="#x"/><g xml:base="#a"/>'))
    assert external_references(r) == ["file:///etc/passwd"]


def test_hyperlinks_are_not_references():
    # Regression (review of issue 3): <a href="https://..."> (nothing is fetched; CairoSVG, the
    # papers' renderer, draws the link's content) failed the whole document as
    # external_reference, a V2 "parsing error" the paper would not count.
    r = parse_svg(doc('<a href="https://example.com"><rect fill="red"/></a>'))
    assert external_references(r) == []
    r = parse_svg(doc('<a xlink:href="x.svg"><image xlink:href="/etc/passwd"/></a>'))
    assert external_references(r) == ["/etc/passwd"]


def test_unparseable_text_raises_parse_error():
    with pytest.raises(SVGParseError) as exc:
        simplify("<svg")
    assert exc.value.reason == "not_well_formed"


def test_many_attributes_are_read_and_written_whole():
    # Review of issue 3: attributes were read with lxml's items() (quadratic in their number;
    # 20,000 on one element took seconds). They go through read_attributes now, and an element
    # with many kept attributes gets only its changes written. The result must not change.
    n = 5 * MANY_ATTRIBUTES
    data = " ".join(f'data-a{i}="{i}"' for i in range(n))
    hostile = " ".join(f'onclick{i}="x()"' for i in range(n))
    r = simp(
        f'<rect id="r" width="10" height="10" fill="#f008" xmlns:e="urn:e" e:k="v" {data} {hostile}/>',
        f'viewBox="0 0 100 100" opacity="0.5" {data}',
    )
    assert r.attrib == {"viewBox": "0 0 100 100"}  # the rest moved onto a wrapping <g>
    g = r[0]
    assert g.tag == S + "g" and g.get("opacity") == "0.5" and len(g.attrib) == n + 1
    assert [g.get(f"data-a{i}") for i in (0, n - 1)] == ["0", str(n - 1)]
    rect = by_id(r, "r")
    expected = {
        "id": "r",
        "width": "10",
        "height": "10",
        "fill": "#ff0000",
        "fill-opacity": "0.533333",
        "stroke": "none",
    }
    expected.update({f"data-a{i}": str(i) for i in range(n)})
    assert dict(rect.attrib) == expected  # on* handlers and the foreign e:k dropped


def test_external_images_uses_and_feimages_are_replaced_by_what_they_draw_offline():
    # Review of issue 3: an external <image> failed the whole document (a V2 "parsing error");
    # it draws nothing when the resource cannot be fetched (CairoSVG offline), so it is
    # replaced, never fetched; local (#id, raster data:) references are kept.
    r = parse_svg(
        doc(
            '<image id="a" href="https://example.com/a.png" width="9"/>'
            '<image xlink:href="/etc/passwd"/>'
            '<image href="data:image/svg+xml,&lt;svg/&gt;"/>'
            '<image xml:base="file:///etc/" href="#k"/>'
            '<image id="k" href="data:image/png;base64,iVBORw0KGgo="/>'
            '<use href="other.svg#x"/><use href="#k"/>'
            '<filter><feImage id="f" href="file:///x.png" x="1" y="2" width="3" height="4"'
            ' result="img" preserveAspectRatio="none"/><feImage href="#k"/></filter>'
            '<a href="https://example.com"><rect/></a>'
        )
    )
    stripped = strip_external_resources(r)
    assert stripped == [
        "https://example.com/a.png",
        "/etc/passwd",
        "data:image/svg+xml,<svg/>",
        "file:///etc/",
        "other.svg#x",
        "file:///x.png",
    ]
    kids = [(etree.QName(e).localname, dict(e.attrib)) for e in r]
    assert kids[:7] == [
        ("g", {"id": "a"}),
        ("g", {}),
        ("g", {}),
        ("g", {}),
        ("image", {"id": "k", "href": "data:image/png;base64,iVBORw0KGgo="}),
        ("g", {}),
        ("use", {"href": "#k"}),
    ]
    fe = [(etree.QName(e).localname, dict(e.attrib)) for e in r[7]]
    assert fe == [
        (
            "feFlood",
            {
                "id": "f",
                "x": "1",
                "y": "2",
                "width": "3",
                "height": "4",
                "result": "img",
                "flood-opacity": "0",
            },
        ),
        ("feImage", {"href": "#k"}),
    ]
    assert external_references(r) == []  # the hyperlink of <a> is not a reference
    assert strip_external_resources(r) == []  # idempotent
    out = simplify(doc('<image href="file:///etc/passwd"/><rect width="5" height="5"/>'))
    assert out.endswith('<g/><rect width="5" height="5" fill="#000000" stroke="none"/></svg>')
