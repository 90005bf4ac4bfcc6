"""The CSS cascade (contract item 2): ``<style>`` sheets and ``style`` attributes to presentation attributes."""

from __future__ import annotations

import re

from lxml import etree

from vector_gym.errors import SVGParseError
from vector_gym.svg.normalise.common import _S, _matrix_str
from vector_gym.svg.normalise.transforms import css_transform

_SIMPLE_STYLE_RE = re.compile(r"[()\"'\\/!{}@]")


def _parse_declarations(text: str) -> list[tuple[str, str, bool]]:
    """``style`` attribute or rule body → [(property, value, important)]."""
    if not _SIMPLE_STYLE_RE.search(text):
        out = []
        for part in text.split(";"):
            name, sep, value = part.partition(":")
            if sep:
                name = name.strip().lower()
                value = value.strip()
                if name and value:
                    out.append((name, value, False))
        return out
    return _rule_declarations(text)


def _rule_declarations(content) -> list[tuple[str, str, bool]]:
    import tinycss2

    out = []
    for decl in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append(
                (decl.lower_name, tinycss2.serialize(decl.value).strip(), bool(decl.important))
            )
    return out


# Presentation attributes whose CSS syntax differs from the attribute's: ``transform`` is read
# with the CSS grammar (:func:`.transforms.css_transform`), ``d`` is not taken from CSS.
_CSS_SKIP = frozenset({"d"})
# A property name that can become an attribute: anything else (``xlink:href`` written with a CSS
# escape, a name with a colon or a brace) is no presentation attribute and would make lxml raise.
_CSS_NAME_RE = re.compile(r"[a-z][a-z0-9-]{0,63}")

SELECTOR_BUDGET = 1_000_000
"""Most selector-matching steps for one document: ancestors or previous siblings visited, plus
one per (element, selector) pair. A selector of 1 KB with a few hundred descendant combinators
makes backtracking matchers (cssselect2 here, simplecss in resvg) exponential in the nesting
depth; past this budget the document fails as ``css_too_complex`` (issue 11, item 3)."""

CSS_TOO_COMPLEX = "css_too_complex"


class CSSTooComplex(SVGParseError):
    """Selector matching of a document's ``<style>`` sheets exceeded :data:`SELECTOR_BUDGET`."""

    def __init__(self, message: str = "selector matching over budget") -> None:
        super().__init__(CSS_TOO_COMPLEX, message)


def _is_href(name: str) -> bool:
    """A declaration that would set a link: ``href`` in any spelling (``xlink:href``...)."""
    return name.endswith("href")


def _budgeted_wrapper(budget: int):
    """An ``ElementWrapper`` subclass whose ancestor and sibling walks count against ``budget``."""
    import cssselect2

    left = [budget]

    def counted(seq):
        for x in seq:
            left[0] -= 1
            if left[0] < 0:
                raise CSSTooComplex()
            yield x

    class Wrapper(cssselect2.ElementWrapper):
        def _raw_ancestors(self):
            if self._ancestors is None:
                p = self.parent
                self._ancestors = () if p is None else (*p._raw_ancestors(), p)
            return self._ancestors

        def _raw_previous(self):
            if self._previous_siblings is None:
                p = self.previous
                self._previous_siblings = () if p is None else (*p._raw_previous(), p)
            return self._previous_siblings

        @property
        def ancestors(self):
            return counted(self._raw_ancestors())

        @property
        def previous_siblings(self):
            return counted(self._raw_previous())

    return Wrapper, left


def _sheets(root) -> list:
    return [
        el
        for el in root.iter(_S + "style", "style")
        if (el.get("type") or "text/css").strip().lower() == "text/css"
    ]


def _matcher(sheets):
    """(cssselect2.Matcher, number of selectors) for the qualified rules of ``sheets``."""
    import cssselect2
    import tinycss2

    matcher = cssselect2.Matcher()
    order = 0
    for sheet in sheets:
        rules = tinycss2.parse_stylesheet(sheet.text or "", skip_comments=True, skip_whitespace=True)
        for rule in rules:
            if rule.type != "qualified-rule":
                continue
            decls = _rule_declarations(rule.content)
            try:
                selectors = cssselect2.compile_selector_list(rule.prelude)
            except Exception:  # noqa: BLE001 - an unsupported selector skips its rule
                continue
            for sel in selectors:
                if sel.pseudo_element is None:
                    matcher.add_selector(sel, (order, decls))
                    order += 1
    return matcher, order


def _matched(root, sheets, budget: int):
    """Yield ``(element, [(name, value, important)] of matching rules)`` in document order.

    Raises
    ------
    CSSTooComplex
        When matching needs more than ``budget`` steps.
    """
    matcher, n_selectors = _matcher(sheets)
    wrapper_cls, left = _budgeted_wrapper(budget)
    for w in wrapper_cls.from_xml_root(root).iter_subtree():
        left[0] -= n_selectors
        if left[0] < 0:
            raise CSSTooComplex()
        decls = []
        for _spec, _order, _pseudo, payload in matcher.match(w):
            decls.extend(payload[1])
        yield w.etree_element, decls


def _combinators(prelude) -> list[tuple[int, int]]:
    """Per selector of a rule prelude: (descendant combinators, general-sibling combinators).

    Only these two make a backtracking matcher search: a descendant combinator may bind any
    ancestor, a ``~`` any previous sibling (``>`` and ``+`` bind one element).
    """
    out = []
    desc = sib = 0
    prev = None  # None (start), "c" (combinator), "x" (part of a compound)
    pending_ws = False
    for tok in prelude:
        if tok.type == "literal" and tok.value == ",":
            out.append((desc, sib))
            desc = sib = 0
            prev = None
            pending_ws = False
            continue
        if tok.type == "whitespace":
            pending_ws = prev == "x"
            continue
        if tok.type == "literal" and tok.value in (">", "+", "~"):
            sib += tok.value == "~"
            prev = "c"
            pending_ws = False
            continue
        if pending_ws:
            desc += 1
        pending_ws = False
        prev = "x"
    out.append((desc, sib))
    return out


def _paths(n: int, k: int) -> int:
    import math

    return sum(math.comb(n, i) for i in range(min(n, k) + 1))


def selector_work_bound(root, sheets) -> int:
    """An upper bound of the matching work of ``sheets`` on ``root`` for a backtracking matcher.

    Per selector with ``k`` descendant and ``j`` general-sibling combinators: the number of
    elements times the partial bindings a backtracking search may try, sum over i <= k of
    C(depth, i), times the same over siblings for ``j``, where depth is the document's deepest
    nesting and siblings its largest number of element children of one parent. Summed over
    selectors. This bounds resvg's and CairoSVG's matchers too, which cannot be counted from
    here (they backtrack as cssselect2 does).
    """
    import tinycss2

    n = depth = siblings = 0
    stack = [(root, 1)]
    while stack:
        el, d = stack.pop()
        n += 1
        depth = max(depth, d)
        kids = [c for c in el if isinstance(c.tag, str)]
        siblings = max(siblings, len(kids))
        stack.extend((c, d + 1) for c in kids)
    total = 0
    for sheet in sheets:
        for rule in tinycss2.parse_stylesheet(sheet.text or "", skip_comments=True):
            if rule.type != "qualified-rule":
                continue
            for desc, sib in _combinators(rule.prelude):
                total += n * _paths(depth, desc) * _paths(siblings, sib)
                if total > 1 << 62:
                    return total
    return total


def check_selectors(root, budget: int = SELECTOR_BUDGET) -> None:
    """Match a document's ``<style>`` sheets against it without applying them, within ``budget``.

    Run by the render path before a backend that matches selectors itself (resvg, CairoSVG),
    whose matchers backtrack as cssselect2 does.

    Raises
    ------
    CSSTooComplex
        Over budget (reason ``css_too_complex``).
    """
    sheets = _sheets(root)
    if sheets:
        if selector_work_bound(root, sheets) > budget:
            raise CSSTooComplex("selector combinators over budget for this document's depth")
        for _ in _matched(root, sheets, budget):
            pass


def _apply_css(root, budget: int = SELECTOR_BUDGET) -> None:
    sheets = _sheets(root)
    has_style_attr = root.xpath("boolean(//@style)")
    if not sheets and not has_style_attr:
        return
    if sheets:
        if selector_work_bound(root, sheets) > budget:
            raise CSSTooComplex("selector combinators over budget for this document's depth")
        elements = _matched(root, sheets, budget)
    else:
        elements = ((el, ()) for el in root.iter() if isinstance(el.tag, str))
    for el, decls in elements:
        normal: list[tuple[str, str]] = []
        important: list[tuple[str, str]] = []
        for name, value, imp in decls:
            (important if imp else normal).append((name, value))
        style = el.get("style")
        if style is not None:
            for name, value, imp in _parse_declarations(style):
                (important if imp else normal).append((name, value))
            del el.attrib["style"]
        for name, value in normal + important:
            if name in _CSS_SKIP or _is_href(name) or not _CSS_NAME_RE.fullmatch(name):
                continue  # an href from CSS is stripped like every external reference
            if name == "transform":
                m = css_transform(value)
                if m is None:
                    continue  # an invalid declaration is ignored; the attribute stays
                value = _matrix_str(m)
            el.set(name, value)
    for sheet in sheets:
        parent = sheet.getparent()
        if parent is not None:
            parent.remove(sheet)


_STYLED_XPATH = etree.XPath("//*[@style]")


def _without_hrefs(decls_text: str) -> str | None:
    """``decls_text`` without its href declarations, or ``None`` when it has none."""
    import tinycss2

    nodes = tinycss2.parse_blocks_contents(decls_text, skip_comments=True, skip_whitespace=True)
    if not any(n.type == "declaration" and _is_href(n.lower_name) for n in nodes):
        return None
    return "; ".join(
        tinycss2.serialize([n]).strip()
        for n in nodes
        if n.type == "declaration" and not _is_href(n.lower_name)
    )


def strip_css_hrefs(root) -> int:
    """Remove every CSS declaration that would set a link, in ``style`` attributes and sheets.

    ``href`` is no CSS property, but the cascade of a naive normaliser (or CairoSVG, which
    turns style declarations into attributes) makes it one: ``style="href: url(/etc/passwd)"``
    became an ``<image>`` link that resvg opened (issue 11). Any spelling counts: case, CSS
    escapes (``\\68ref``, ``xlink\\:href``), inside any rule. Run by the render pre-check
    before any backend sees the tree, and by the normaliser's cascade.

    Returns
    -------
    int
        The number of attributes and sheets rewritten.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><image style="fill:red; HREF: url(/x)"/><style>a{xlink\\\\:href:"/y"}</style></svg>')
    >>> strip_css_hrefs(r), r[0].get("style"), r[1].text
    (2, 'fill:red;', 'a{}')
    """
    n = 0
    for el in _STYLED_XPATH(root):
        attr = el.get("style")
        if "href" in attr.lower() or "\\" in attr:
            new = _without_hrefs(attr)
            if new is not None:
                el.set("style", new)
                n += 1
    for sheet in _sheets(root):
        text = sheet.text or ""
        low = text.lower()
        if "href" not in low and "\\" not in text:
            continue
        import tinycss2

        rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
        changed = False
        parts = []
        for rule in rules:
            if rule.type == "qualified-rule":
                body = tinycss2.serialize(rule.content)
                new = _without_hrefs(body)
                if new is not None:
                    changed = True
                    body = new
                parts.append(tinycss2.serialize(rule.prelude).strip() + "{" + body + "}")
            elif rule.type == "at-rule":
                parts.append(tinycss2.serialize([rule]))  # @media bodies are ignored anyway
                if rule.content is not None and any(
                    t.type == "ident" and _is_href(t.lower_value) for t in rule.content
                    if hasattr(t, "lower_value")
                ):
                    parts.pop()
                    changed = True
        if changed:
            for ch in list(sheet):
                sheet.remove(ch)
            sheet.text = "".join(parts)
            n += 1
    return n
