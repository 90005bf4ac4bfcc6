"""External references (contract item 4): what the render pre-check refuses, and the ``<image>``/``<feImage>``/``<use>`` elements that draw nothing offline."""

from __future__ import annotations

import re

from lxml import etree

from vector_gym.svg.normalise.common import _URL_RE, _url
from vector_gym.svg.normalise.data_uri import raster_size
from vector_gym.svg.parse import local_name, read_attributes

_IMPORT_RE = re.compile(r"@import", re.I)


def _is_local(v: str) -> bool:
    """``#id``, empty, or a ``data:`` URI whose payload is a raster image (PNG, JPEG, GIF, WebP).

    The payload's own bytes decide, not its declared MIME type (:mod:`.data_uri`): an SVG
    document in a ``data:`` URI, under any MIME type, would be parsed by resvg or CairoSVG
    outside the pre-check (its depth, ``<use>`` fan-out and file references), so it is not
    local: an ``<image>``, ``<feImage>`` or ``<use>`` naming it draws nothing, anything else
    naming it fails as external.
    """
    v = v.strip()
    if not v or v.startswith("#"):
        return True
    if v[:5].lower() == "data:":
        return raster_size(v) is not None
    return False


# xml:base counts as a reference: CairoSVG resolves even "#id" against it and stats the file it
# names (an existence oracle on the host). The href of an <a> is a hyperlink, which no
# rasteriser fetches: it does not count (browsers, resvg and CairoSVG draw the link's content).
_REFS_XPATH = etree.XPath(
    "//@*[contains(., 'url(') or (local-name() = 'href' and local-name(..) != 'a')"
    " or (local-name() = 'base' and namespace-uri() = 'http://www.w3.org/XML/1998/namespace')]",
    smart_strings=False,
)


_STYLE_TEXT_XPATH = etree.XPath("//*[local-name() = 'style']/text()", smart_strings=False)


_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"


_EXTERNAL_DRAWERS_XPATH = etree.XPath(
    "//*[local-name() = 'image' or local-name() = 'feImage' or local-name() = 'use']"
    "[@*[local-name() = 'href'] or @xml:base]",
    namespaces={"xml": "http://www.w3.org/XML/1998/namespace"},
)


# What an <feImage> becomes when its image is stripped: transparent black over its subregion.
_FE_KEEP = ("id", "x", "y", "width", "height", "result")


def strip_external_resources(root) -> list[str]:
    """Replace every ``<image>``, ``<feImage>`` and ``<use>`` that names an external resource.

    An external resource is any reference that is not ``#id`` or a raster ``data:`` URI
    (``https:``, ``file:``, a path, an SVG ``data:`` document), in ``href``/``xlink:href`` or
    the element's own ``xml:base``. Such an element draws nothing when the resource cannot be
    fetched, which is what the SVGEditBench papers' CairoSVG does offline: it draws the rest of
    the image. So instead of failing the document the element is replaced, in place, by what
    it draws then: ``<image>`` and ``<use>`` by an empty ``<g>`` (keeping ``id``), ``<feImage>``
    by a transparent ``<feFlood>`` (keeping ``id``, ``x``, ``y``, ``width``, ``height`` and
    ``result``). The reference is never fetched or opened, and never reaches a rasteriser.

    Other external references still fail the pre-check (:func:`external_references`): a
    ``url()`` paint, clip, mask, filter or marker falls back to something else when missing, and
    an ``xml:base`` or ``@import`` changes how everything below it resolves.

    Parameters
    ----------
    root : lxml.etree._Element
        Modified in place.

    Returns
    -------
    list of str
        The stripped references, in document order.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><image id="i" href="https://a/b.png"/><use href="o.svg#x"/></svg>')
    >>> strip_external_resources(r), [(e.tag, dict(e.attrib)) for e in r]
    (['https://a/b.png', 'o.svg#x'], [('g', {'id': 'i'}), ('g', {})])
    """
    stripped: list[str] = []
    for el in _EXTERNAL_DRAWERS_XPATH(root):
        refs = [
            v for k, v in read_attributes(el).items() if local_name(k) == "href" or k == _XML_BASE
        ]
        bad = [v.strip() for v in refs if not _is_local(v)]
        if not bad:
            continue
        stripped.extend(bad)
        ns = el.tag[: el.tag.index("}") + 1] if el.tag[:1] == "{" else ""
        if local_name(el.tag) == "feImage":
            new = etree.Element(ns + "feFlood")
            for k in _FE_KEEP:
                if el.get(k) is not None:
                    new.set(k, el.get(k))
            new.set("flood-opacity", "0")
        else:
            new = etree.Element(ns + "g")
            if el.get("id") is not None:
                new.set("id", el.get("id"))
        new.tail = el.tail
        el.getparent().replace(el, new)
    return stripped


def external_references(root) -> list[str]:
    """List every reference in a document that is not ``#id`` or a ``data:`` URI.

    Reads ``href``/``xlink:href`` (any namespace; not the hyperlink of an ``<a>``), ``xml:base``,
    every ``url(...)`` in attribute values and ``<style>`` text, and CSS ``@import``. A ``data:`` URI holding an SVG document counts as
    external (its own references would escape this check).

    Parameters
    ----------
    root : lxml.etree._Element

    Returns
    -------
    list of str
        The offending references, in document order (empty when the document is self-contained).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><image href="x.png"/><rect fill="url(#g)"/></svg>')
    >>> external_references(r)
    ['x.png']
    """
    bad: list[str] = []
    for value in _REFS_XPATH(root):
        if "url(" in value:
            bad.extend(_url(m).strip() for m in _URL_RE.finditer(value) if not _is_local(_url(m)))
        elif not _is_local(value):
            bad.append(value.strip())
    for text in _STYLE_TEXT_XPATH(root):
        if _IMPORT_RE.search(text):
            bad.append("@import")
        bad.extend(_url(m).strip() for m in _URL_RE.finditer(text) if not _is_local(_url(m)))
    return bad
