"""The entry points: :func:`simplify_tree` (in place) and :func:`simplify` (text in, text out), running the concerns in order."""

from __future__ import annotations

import copy

from lxml import etree

from vector_gym.svg.normalise.bounds import DEFAULT_MAX_USE_EXPANSION
from vector_gym.svg.normalise.common import _S, _id_map
from vector_gym.svg.normalise.context import _Ctx, _State
from vector_gym.svg.normalise.paint import _BLACK, _NONE
from vector_gym.svg.normalise.paint_server import _flatten_gradients
from vector_gym.svg.normalise.references import strip_external_resources
from vector_gym.svg.normalise.root import _ROOT_KEEP, fit_root
from vector_gym.svg.normalise.serialise import to_svg_bytes
from vector_gym.svg.normalise.style import _apply_css, strip_css_hrefs
from vector_gym.svg.normalise.units import _abs_length
from vector_gym.svg.normalise.use_node import _expand_uses
from vector_gym.svg.normalise.walk import _children
from vector_gym.svg.parse import parse_svg, read_attributes
from vector_gym.svg.viewbox import parse_viewbox


def _first_ids_win(root) -> None:
    """Remove the ``id`` of every element after the first with the same id.

    Browsers and resvg resolve a duplicate id to its first element; skia's SVG DOM takes the
    last (issue 11).
    """
    seen = set()
    for el in root.iter():
        if isinstance(el.tag, str):
            i = el.get("id")
            if i is not None:
                if i in seen:
                    del el.attrib["id"]
                else:
                    seen.add(i)


def _zero_viewbox(text: str | None) -> bool:
    """A ``viewBox`` of zero width or height (which disables rendering), not a malformed one."""
    if not text:
        return False
    vb = parse_viewbox(text, require_positive=False)
    return vb is not None and (vb[2] == 0 or vb[3] == 0) and vb[2] >= 0 and vb[3] >= 0


def simplify_tree(
    root, size: tuple[int, int] | None = None, *, max_use_expansion: int = DEFAULT_MAX_USE_EXPANSION
):
    """Rewrite a parsed document into the normalised render form, in place.

    Parameters
    ----------
    root : lxml.etree._Element
        An ``<svg>`` root from :func:`vector_gym.svg.parse.parse_svg` (it is modified).
    size : (int, int), optional
        Canvas (H, W) in pixels; when given the root is fitted to it (:func:`fit_root`).
    max_use_expansion : int
        Most elements created by expanding ``<use>``; further uses are dropped.

    Returns
    -------
    lxml.etree._Element
        ``root`` itself, normalised per the module contract.
    """
    root.tag = _S + "svg"
    strip_css_hrefs(root)
    strip_external_resources(root)
    _first_ids_win(root)
    ids = _id_map(root)
    _apply_css(root)
    if root.find(".//" + _S + "use") is not None or root.find(".//use") is not None:
        _expand_uses(root, ids, max_use_expansion)
        ids = _id_map(root)
    if (
        root.find(".//" + _S + "linearGradient") is not None
        or root.find(".//" + _S + "radialGradient") is not None
    ):
        _flatten_gradients(root, ids)
    if size is not None:
        fit_root(root, size)
    vb = parse_viewbox(root.get("viewBox") or "")
    if vb is None and _zero_viewbox(root.get("viewBox")):
        for ch in list(root):  # a zero-size viewBox disables rendering (SVG 1.1 §7.7)
            root.remove(ch)
    if vb is not None:
        vw, vh = vb[2], vb[3]
    else:
        vw = _abs_length(root.get("width")) or (size[1] if size else 100.0)
        vh = _abs_length(root.get("height")) or (size[0] if size else 100.0)
    # Move the root's presentation attributes and transform onto a wrapping <g>.
    # (one linear read and one rewrite: a delete or pop per attribute is quadratic in lxml)
    attrs = read_attributes(root)
    moved = [k for k in attrs if k not in _ROOT_KEEP and k[0] != "{"]
    if len(moved) + sum(1 for k in attrs if k[0] == "{"):
        root.attrib.clear()
        for k, v in attrs.items():
            if k in _ROOT_KEEP:
                root.set(k, v)
    if moved:
        wrap = etree.Element(_S + "g", {k: attrs[k] for k in moved})
        for ch in list(root):
            wrap.append(ch)
        root.text = None
        root.append(wrap)
    state = _State(root, ids)
    ctx = _Ctx(vw, vh, _BLACK, _BLACK, _NONE, 1.0, 1.0, 16.0)
    _children(root, ctx, state)
    if state.defs is not None and state.defs.getparent() is None:
        root.insert(0, state.defs)
    return root


def simplify(
    svg, size: tuple[int, int] | None = None, *, max_use_expansion: int = DEFAULT_MAX_USE_EXPANSION
) -> str:
    """Return the normalised render form of an SVG document (see the module contract).

    Parameters
    ----------
    svg : str, bytes or lxml.etree._Element
        The document (text is parsed with :func:`vector_gym.svg.parse.parse_svg`; an element is
        copied, not modified).
    size : (int, int), optional
        Canvas (H, W) in pixels to fit the root to (:func:`fit_root`).
    max_use_expansion : int
        Most elements created by expanding ``<use>``.

    Returns
    -------
    str
        The simplified document.

    Raises
    ------
    vector_gym.errors.SVGParseError
        When ``svg`` is text that does not parse (see :mod:`vector_gym.svg.parse`).

    Examples
    --------
    >>> print(simplify('<svg xmlns="http://www.w3.org/2000/svg"><style>.a{fill:#f008}</style>'
    ...                '<ellipse class="a" rx="2" ry="1" transform="translate(1,1),scale(2)"/></svg>'))
    <svg xmlns="http://www.w3.org/2000/svg"><path transform="matrix(2 0 0 2 1 1)" d="M2 0A2 1 0 0 1 0 1A2 1 0 0 1 -2 0A2 1 0 0 1 0 -1A2 1 0 0 1 2 0Z" fill="#ff0000" fill-opacity="0.533333" stroke="none"/></svg>
    """
    if isinstance(svg, etree._Element):
        root = copy.deepcopy(svg)
    else:
        root = parse_svg(svg)
    simplify_tree(root, size, max_use_expansion=max_use_expansion)
    return to_svg_bytes(root).decode("utf-8")
