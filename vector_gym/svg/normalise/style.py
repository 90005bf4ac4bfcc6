"""The CSS cascade (contract item 2): ``<style>`` sheets and ``style`` attributes to presentation attributes."""

from __future__ import annotations

import re

from vector_gym.svg.normalise.common import _S


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
    import tinycss2

    out = []
    for decl in tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append(
                (decl.lower_name, tinycss2.serialize(decl.value).strip(), bool(decl.important))
            )
    return out


def _rule_declarations(content) -> list[tuple[str, str, bool]]:
    import tinycss2

    out = []
    for decl in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append(
                (decl.lower_name, tinycss2.serialize(decl.value).strip(), bool(decl.important))
            )
    return out


# Presentation attributes that may not be set from CSS here (their CSS syntax differs).
_CSS_SKIP = frozenset({"transform", "d"})


def _apply_css(root) -> None:
    sheets = [
        el
        for el in root.iter(_S + "style", "style")
        if (el.get("type") or "text/css").strip().lower() == "text/css"
    ]
    has_style_attr = root.xpath("boolean(//@style)")
    if not sheets and not has_style_attr:
        return
    matcher = None
    if sheets:
        import cssselect2
        import tinycss2

        matcher = cssselect2.Matcher()
        order = 0
        for sheet in sheets:
            rules = tinycss2.parse_stylesheet(
                sheet.text or "", skip_comments=True, skip_whitespace=True
            )
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
    wrapped = None
    if matcher is not None:
        import cssselect2

        wrapped = cssselect2.ElementWrapper.from_xml_root(root)
        elements = ((w.etree_element, w) for w in wrapped.iter_subtree())
    else:
        elements = ((el, None) for el in root.iter() if isinstance(el.tag, str))
    for el, w in elements:
        normal: list[tuple[str, str]] = []
        important: list[tuple[str, str]] = []
        if w is not None:
            for _spec, _order, _pseudo, payload in matcher.match(w):
                for name, value, imp in payload[1]:
                    (important if imp else normal).append((name, value))
        style = el.get("style")
        if style is not None:
            for name, value, imp in _parse_declarations(style):
                (important if imp else normal).append((name, value))
            del el.attrib["style"]
        for name, value in normal + important:
            if name not in _CSS_SKIP and not name.startswith("-"):
                el.set(name, value)
    for sheet in sheets:
        parent = sheet.getparent()
        if parent is not None:
            parent.remove(sheet)
