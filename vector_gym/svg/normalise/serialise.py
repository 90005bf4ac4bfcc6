"""Serialisation of the normalised tree: default SVG namespace, ``xlink:href``."""

from __future__ import annotations

from lxml import etree

from vector_gym.svg.normalise.common import _S, _XLINK_HREF, SVG_NS, XLINK_NS
from vector_gym.svg.normalise.elements import _TEXTUAL
from vector_gym.svg.parse import local_name, read_attributes


def _esc(v: str) -> str:
    if "&" in v:
        v = v.replace("&", "&amp;")
    if "<" in v:
        v = v.replace("<", "&lt;")
    if '"' in v:
        v = v.replace('"', "&quot;")
    if "\n" in v or "\r" in v or "\t" in v:
        v = v.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return v


def _esc_text(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _emit(el, out: list, in_text: bool) -> None:
    name = el.tag[len(_S) :] if el.tag.startswith(_S) else local_name(el.tag)
    out.append("<" + name)
    for k, v in read_attributes(el).items():
        if k[0] == "{":
            if k != _XLINK_HREF:
                continue
            k = "xlink:href"
        out.append(f' {k}="{_esc(v)}"')
    textual = in_text or name in _TEXTUAL
    if len(el) == 0 and not (textual and el.text):
        out.append("/>")
        return
    out.append(">")
    if textual and el.text:
        out.append(_esc_text(el.text))
    for ch in el:
        if isinstance(ch.tag, str):
            _emit(ch, out, textual)
        if textual and ch.tail:
            out.append(_esc_text(ch.tail))
    out.append(f"</{name}>")


_PREFIXED_XPATH = etree.XPath("boolean(//*[contains(name(), ':')])")


_XLINK_USED_XPATH = etree.XPath("boolean(//@xlink:href)", namespaces={"xlink": XLINK_NS})


def to_svg_bytes(root) -> bytes:
    """Serialise a normalised tree: default SVG namespace, ``xlink:href``, no whitespace text.

    Returns
    -------
    bytes
        UTF-8 SVG text, without an XML declaration. Whitespace text may remain when the
        document already used the default SVG namespace (then lxml serialises it directly).
    """
    nsmap = root.nsmap
    if (
        root.prefix is None
        and nsmap.get(None) == SVG_NS
        and nsmap.get("xlink", XLINK_NS) == XLINK_NS
        and not _PREFIXED_XPATH(root)
        and ("xlink" in nsmap or not _XLINK_USED_XPATH(root))
    ):
        return etree.tostring(root, encoding="utf-8")  # C speed; the common case
    out: list[str] = []
    _emit(root, out, False)
    out[0] = f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}"'
    return "".join(out).encode("utf-8")
