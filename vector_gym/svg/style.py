"""The ``style`` attribute: CSS declaration lists (CSS Syntax 3 §5.3.8, SVG 2 §6.2).

:func:`parse_style_declarations` is the one reader of ``style`` values in default mode; it uses
tinycss2's CSS Syntax 3 tokenizer, so comments, ``!important``, escapes, quoted strings and
``url( … )`` tokens are read as a browser reads them. The reference evaluator's own split on
``;`` and ``:`` (spec-reward.md §4.5, §5.2) is a parity behaviour and lives in
:mod:`vector_gym.svg.reference_dialect`.
"""

from __future__ import annotations

import functools

import tinycss2

__all__ = ["parse_style_declarations", "style_declarations"]

_CACHE_MAX_LEN = 2048
MAX_BLOCK_NESTING = 32
"""Deepest ``(``/``[``/``{`` nesting a ``style`` value may have; deeper is malformed. tinycss2
serialises nested blocks recursively, so an unbounded depth (``fill:((((…``) would raise
``RecursionError``; no real declaration nests a tenth as deep."""


def _nesting_too_deep(text: str) -> bool:
    if text.count("(") + text.count("[") + text.count("{") <= MAX_BLOCK_NESTING:
        return False
    depth = 0
    for ch in text:  # an upper bound: brackets inside strings and comments count too
        if ch in "([{":
            depth += 1
            if depth > MAX_BLOCK_NESTING:
                return True
        elif ch in ")]}" and depth:
            depth -= 1
    return False


def _parse(text: str) -> tuple[tuple[str, str, bool], ...] | None:
    if _nesting_too_deep(text):
        return None
    out = []
    for item in tinycss2.parse_declaration_list(text, skip_comments=True, skip_whitespace=True):
        if item.type != "declaration":
            return None  # a parse error or an at-rule: not a declaration list
        value = tinycss2.serialize(item.value).strip()
        if not value:
            return None
        out.append((item.lower_name, value, bool(item.important)))
    return tuple(out)


_parse_cached = functools.lru_cache(maxsize=1 << 14)(_parse)


def parse_style_declarations(text: str) -> tuple[tuple[str, str, bool], ...] | None:
    """Read a ``style`` value into its declarations, in order.

    Parameters
    ----------
    text : str
        The attribute value, e.g. ``"fill: Red !important; stroke:url( #a )"``.

    Returns
    -------
    tuple of (str, str, bool) or None
        ``(lower-cased property name, value text without !important, important flag)`` per
        declaration, duplicates kept; ``None`` when any piece is not a declaration (no ``:``,
        an empty value, a stray token) or brackets nest deeper than :data:`MAX_BLOCK_NESTING`
        — the whole value is then malformed.

    Examples
    --------
    >>> parse_style_declarations("Fill: Red !important; /* c */ stroke:url( #a );")
    (('fill', 'Red', True), ('stroke', 'url(#a)', False))
    >>> parse_style_declarations("fill red") is None, parse_style_declarations("fill:") is None
    (True, True)
    >>> parse_style_declarations("")
    ()
    """
    if not isinstance(text, str):
        return None
    if len(text) > _CACHE_MAX_LEN:
        return _parse(text)
    return _parse_cached(text)


def style_declarations(text: str) -> dict[str, str] | None:
    """The declarations that apply, CSS cascade within one block: last wins, ``!important`` first.

    Examples
    --------
    >>> style_declarations("fill:red !important; fill:blue; stroke:#000; stroke:#111")
    {'fill': 'red', 'stroke': '#111'}
    """
    decls = parse_style_declarations(text)
    if decls is None:
        return None
    out: dict[str, str] = {}
    important: set[str] = set()
    for name, value, imp in decls:
        if name in important and not imp:
            continue
        if imp:
            important.add(name)
        out[name] = value
    return out
