"""The semantic form V(S): rendering-level equality with ID alias alignment (spec-reward.md §5).

Normaliser contract
-------------------
What is resolved (two documents that V treats as the same), on top of C (§4):

- a consistent renaming of IDs, references included: IDs at the same aligned tree position get
  the same position token (``@0/3/1``), and ``url(#X)``, ``href="#X"`` and ``#X`` inside
  ``<style>`` text are rewritten to tokens — §5.1, §5.2, §5.4;
- quotes and inner spaces of ``url( '#X' )`` references — §5.2;
- presentation attribute vs ``style`` declaration (``fill="#6a1a1a"`` ≡ ``style="fill:#6a1a1a"``;
  a style declaration overrides a same-named attribute, last duplicate wins) — §5.2;
- ``xlink:href`` vs ``href``: in the REFERENCE dialect attributes are keyed by local name and the
  later one wins (§5.2); in the SVG2 dialect (default mode) only the XLink ``href`` is ``href``,
  plain ``href`` wins when both are present (SVG 2 §5.7), other namespaced attributes keep their
  expanded key, and ``style`` is read as a CSS declaration list (last wins, ``!important``);
- adding, removing or renaming ``id`` and any ``aria-*`` attribute — §5.2.

What stays strict (§5.3): element types and namespaces, element order, nesting and child counts
(an added ``<title>``, ``<desc>`` or wrapper ``<g>`` differs), every other attribute including
``data-*``, ``class``, ``role`` and camelCase spellings, values after normalisation only (no
numeric tolerance), text, tails, root attributes, definitions, and references that do not point
to the position-aligned counterpart.

What is invalid: a malformed ``style`` contributes a single ``style`` entry holding the
invalid-marked value (§5.2); nothing here raises.

Alias maps are built per comparison: on the full documents for protected-object checks (§11.1),
on the masked documents for the preservation gate (§9), and locally on inserted subtrees (§8.5).
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from vector_gym.svg.canonical import (
    Node,
    canonical_attributes,
    normalise_declaration_svg,
    style_pieces,
    to_node,  # noqa: F401  (used by the doctests)
)
from vector_gym.svg.parse import fold_ws, local_name, ws_equal
from vector_gym.svg.references import URL_REFERENCE_RE, XLINK_HREF
from vector_gym.svg.style import style_declarations

__all__ = [
    "URL_REFERENCE_RE",
    "Aliases",
    "aliases",
    "lazy_aliases",
    "LazyAliases",
    "rewrite_references",
    "cache_semantic_maps",
    "semantic_attributes",
    "semantic_text",
    "semantic_equal",
    "semantic_equal_with",
    "uses_aliases",
    "semantic_differences",
    "semantic_differences_and_canonical_equal",
    "semantic_form",
]

Aliases = dict[str, str]
"""A raw ``id`` → position token map of one side (spec §5.1)."""


def aliases(produced: Node, target: Node) -> tuple[Aliases, Aliases]:
    """Build the two alias maps by walking both trees in step (spec §5.1, ``ALIASES``).

    A node pair gets the token ``"@" + "/".join(path)`` when their expanded tags are equal; the
    walk descends only while child counts agree. Each side maps its own non-empty, un-namespaced
    ``id`` to the token (last visit wins for repeated IDs).

    Returns
    -------
    (dict, dict)
        ``(map_produced, map_target)``.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> p = to_node(parse_svg('<svg><g id="a"/><rect id="r"/></svg>'))
    >>> t = to_node(parse_svg('<svg id="root"><g id="b"/><circle id="c"/></svg>'))
    >>> aliases(p, t)
    ({'a': '@0'}, {'root': '@', 'b': '@0'})
    """
    map_p: Aliases = {}
    map_t: Aliases = {}

    def visit(p: Node, t: Node, path: str) -> None:
        if p.tag != t.tag:
            return
        token = "@" + path
        pid = p.attrib.get("id")
        if pid:
            map_p[pid] = token
        tid = t.attrib.get("id")
        if tid:
            map_t[tid] = token
        pc, tc = p.children, t.children
        if len(pc) != len(tc):
            return
        prefix = path + "/" if path else ""
        for k in range(len(pc)):
            visit(pc[k], tc[k], prefix + str(k))

    visit(produced, target, "")
    return map_p, map_t


class LazyAliases:
    """One side's alias map, computed on first use (most comparisons never need it).

    Behaves like a read-only ``dict`` for :func:`rewrite_references` and :func:`semantic_text`.
    """

    __slots__ = ("_state", "_side")

    def __init__(self, state: list, side: int) -> None:
        self._state = state
        self._side = side

    def _map(self) -> Aliases:
        st = self._state
        if st[2] is None:
            st[2] = aliases(st[0], st[1])
        return st[2][self._side]

    def get(self, key: str, default: str | None = None) -> str | None:
        return self._map().get(key, default)

    def items(self):
        return self._map().items()

    def __getitem__(self, key: str) -> str:
        return self._map()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._map()

    def __eq__(self, other: object) -> bool:
        return self._map() == (other._map() if isinstance(other, LazyAliases) else other)

    def __repr__(self) -> str:
        return repr(self._map())


def lazy_aliases(produced: Node, target: Node) -> tuple[LazyAliases, LazyAliases]:
    """:func:`aliases`, deferred until a reference actually needs rewriting (same results)."""
    state: list = [produced, target, None]
    return LazyAliases(state, 0), LazyAliases(state, 1)


def rewrite_references(name: str, value: str, alias: Aliases) -> str:
    """Rewrite local references in a normalised value with one side's alias map (spec §5.2).

    Examples
    --------
    >>> rewrite_references("fill", "url( '#paint' )", {"paint": "@0/1"})
    'url(@0/1)'
    >>> rewrite_references("fill", 'url("#other")', {})
    'url(#other)'
    >>> rewrite_references("href", "#a", {"a": "@2"})
    '@2'
    """
    if "(" in value:
        value = URL_REFERENCE_RE.sub(
            lambda m: f"url({alias.get(m.group(2), '#' + m.group(2))})", value
        )
    if name == "href" and value[:1] == "#":
        return alias.get(value[1:], value)
    return value


def _has_reference(name: str, value: str) -> bool:
    return (name == "href" and value[:1] == "#") or (
        "(" in value and URL_REFERENCE_RE.search(value) is not None
    )


def _base(node: Node) -> tuple[dict[str, str], tuple[str, ...]]:
    """Alias-independent semantic map and the keys whose values hold references (cached)."""
    cached = node._v
    if cached is not None:
        return cached
    if node.dialect.svg2_links:
        return _base_svg2(node)
    normalise_attribute = node.dialect.normalise
    attrs: dict[str, str] = {}
    for raw_name, raw_value in node.attrib.items():
        name = local_name(raw_name)
        if name == "id" or name[:5] == "aria-" or name == "style":
            continue
        attrs[name] = normalise_attribute(name, raw_value)
    style = node.attrib.get("style")
    if style is not None:
        pieces = style_pieces(fold_ws(style))
        if pieces is None:
            attrs["style"] = normalise_attribute("style", style)
        else:
            for name, raw in pieces:
                attrs.pop(name, None)  # re-insert so iteration order does not matter for ==
                attrs[name] = normalise_attribute(name, raw)
    refs = tuple(k for k, v in attrs.items() if _has_reference(k, v))
    node._v = (attrs, refs)
    return node._v


def _base_svg2(node: Node) -> tuple[dict[str, str], tuple[str, ...]]:
    """Default mode: SVG 2 ``href`` rules and CSS declaration cascade (module docstring)."""
    norm = node.dialect.normalise
    attrib = node.attrib
    # The C map N(key, value) of the same attributes, when the validity gate or a C comparison
    # has made it (the same normaliser on the same key and value): no second lookup per value.
    c = node._c
    if c is not None and len(c) != len(attrib):
        c = None  # defensive: not this attribute list's map
    attrs: dict[str, str] = {}
    for key, raw_value in attrib.items():
        if key[:1] == "{":
            if key == XLINK_HREF:
                if "href" in attrib:
                    continue  # plain href wins (SVG 2 §5.7); the overridden one has no effect
                attrs["href"] = norm("href", raw_value)
            else:
                attrs[key] = norm(key, raw_value)  # foreign attribute, expanded key
            continue
        if key == "id" or key[:5] == "aria-" or key == "style":
            continue
        attrs[key] = c[key] if c is not None else norm(key, raw_value)
    style = attrib.get("style")
    if style is not None:
        decls = style_declarations(style)
        if decls is None:
            attrs["style"] = norm("style", style)
        else:
            for name, raw in decls.items():
                attrs.pop(name, None)
                attrs[name] = normalise_declaration_svg(name, raw)
    refs = tuple(k for k, v in attrs.items() if _has_reference(k, v))
    node._v = (attrs, refs)
    return node._v


def cache_semantic_maps(root: Node) -> None:
    """Compute the alias-independent semantic map of every node of ``root`` now (cached on the
    nodes, as the V comparisons would on first use): for task-side trees built once and compared
    with many outputs. Nothing else changes."""
    for node in root.iter():
        if node._v is None:
            _base(node)


def semantic_attributes(node: Node, alias: Aliases) -> dict[str, str]:
    """The semantic attribute map of one element (spec §5.2).

    Keys are local names without ``id``/``aria-*``; values are N(name, value) with references
    rewritten through ``alias``; well-formed ``style`` declarations override attributes.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> n = to_node(parse_svg('<rect id="r" aria-label="x" fill="#000" style="fill: #6A1A1A"/>'))
    >>> semantic_attributes(n, {})
    {'fill': '#6a1a1a'}
    """
    attrs, refs = _base(node)
    if not refs:
        return attrs
    out = dict(attrs)
    for k in refs:
        out[k] = rewrite_references(k, attrs[k], alias)
    return out


_ALIAS_SCAN_BUDGET = 5_000_000


def semantic_text(node: Node, alias: Aliases) -> str:
    """Folded text; inside ``<style>`` every ``#id`` becomes its alias token (spec §5.4).

    The reference replaces ``#<id>`` substrings one ID at a time, longest IDs first. We do the
    same in one left-to-right pass (at each ``#`` the longest aliased ID that follows wins),
    which gives the same text unless IDs themselves contain ``#`` or alias tokens; the pass is
    bounded, and a text whose scan would exceed the budget is kept as an opaque marker.
    """
    text = fold_ws(node.text)
    if not text or "#" not in text or local_name(node.tag) != "style":
        return text
    items = alias.items()
    if not items:
        return text
    lengths = sorted({len(k) for k, _ in items if k}, reverse=True)
    if text.count("#") * max(1, len(lengths)) > _ALIAS_SCAN_BUDGET:
        return "\x00unaliased-style:" + text
    out: list[str] = []
    last = 0
    pos = text.find("#")
    n = len(text)
    while pos != -1:
        for length in lengths:
            end = pos + 1 + length
            if end > n:
                continue
            token = alias.get(text[pos + 1 : end])
            if token is not None:
                out.append(text[last:pos])
                out.append(token)
                last = end
                break
        pos = text.find("#", max(pos + 1, last))
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def _node_equal(p: Node, t: Node, ap: Aliases, at: Aliases) -> bool:
    # Equal raw attribute dicts give equal maps unless references go through the alias maps.
    if (p.attrib is not t.attrib and p.attrib != t.attrib) or _base(t)[1]:
        if semantic_attributes(p, ap) != semantic_attributes(t, at):
            return False
    if p.text != t.text or (p.text and t.tag.endswith("style") and local_name(t.tag) == "style"):
        if semantic_text(p, ap) != semantic_text(t, at):
            return False
    if p.tail != t.tail and not ws_equal(p.tail, t.tail):
        return False
    return True


def semantic_equal_with(p: Node, t: Node, ap: Aliases, at: Aliases) -> bool:
    """V-equality of two subtrees under given alias maps (spec §5)."""
    stack = [(p, t)]  # iterative: nesting depth is bounded by memory, not the recursion limit
    pop, extend = stack.pop, stack.extend
    while stack:
        p, t = pop()
        if p.tag != t.tag:
            return False
        pc, tc = p.children, t.children
        if len(pc) != len(tc):
            return False
        if not _node_equal(p, t, ap, at):
            return False
        if pc:
            extend(zip(pc, tc, strict=True))
    return True


def uses_aliases(node: Node) -> bool:
    """Whether the element's own V form (attributes, text) reads the alias maps (spec §5.2, §5.4).

    False means :func:`semantic_attributes` and :func:`semantic_text` of this element are the
    same under every alias map, so a raw-identical counterpart is V-equal without building one.
    """
    return bool(_base(node)[1]) or bool(node.text and "#" in node.text and local_name(node.tag) == "style")


def semantic_equal(produced: Node, target: Node) -> bool:
    """V-equality with alias maps built on these two subtrees (spec §5, §5.1).

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> a = '<svg><linearGradient id="{0}"/><rect fill="url(#{0})"/></svg>'
    >>> semantic_equal(to_node(parse_svg(a.format("p"))), to_node(parse_svg(a.format("q"))))
    True
    """
    ap, at = lazy_aliases(produced, target)
    return semantic_equal_with(produced, target, ap, at)


def semantic_differences(
    produced: Node | None,
    target: Node | None,
    ap: Aliases | None = None,
    at: Aliases | None = None,
    fallback: str = "__document__",
) -> list[str]:
    """Labels of V-differences between two trees (spec §11.2 ``unexpected_changed_parts``).

    A node's label is its target ID, else its produced ID, else ``__svg`` for an ``svg``
    element, else ``parent-label/tag[index]``. A child-count mismatch contributes ``+id``/``-id``
    for IDs present on one side only (or the node's label if that gives nothing and the node had
    no other difference). An absent side gives ``["__document__"]``. The list is empty iff the
    trees are V-equal under the alias maps (built here when not given).

    Returns
    -------
    list of str
        In walk order, possibly with repeats.
    """
    if produced is None or target is None:
        return [fallback]
    if ap is None or at is None:
        ap, at = lazy_aliases(produced, target)
    out: list[str] = []
    _diff(produced, target, ap, at, fallback, out, False)
    return out


def semantic_differences_and_canonical_equal(
    produced: Node, target: Node, ap: Aliases, at: Aliases, fallback: str = "__document__"
) -> tuple[list[str], bool]:
    """:func:`semantic_differences` and :func:`~vector_gym.svg.canonical.canonical_equal` of the
    same two trees in one walk: ``(labels, C-equal)``.

    The C comparison (spec §4 items 1–5) is made on each pair the V walk visits until one pair
    differs; the V walk descends wherever C-equality could still hold (equal tags and child
    counts), so the flag is ``canonical_equal(produced, target)``.
    """
    out: list[str] = []
    return out, _diff(produced, target, ap, at, fallback, out, True)


def _label(p: Node, t: Node, fallback: Any) -> str:
    """A node's label (:func:`semantic_differences`); ``fallback`` may be a deferred child label."""
    return (
        t.attrib.get("id")
        or p.attrib.get("id")
        or ("__svg" if local_name(t.tag) == "svg" else _fallback_label(fallback))
    )


def _fallback_label(fallback: Any) -> str:
    # A child's fallback label "parent-label/tag[k]" is built only when it is reported.
    if isinstance(fallback, str):
        return fallback
    p, t, parent_fallback, k = fallback
    return f"{_label(p, t, parent_fallback)}/{local_name(t.children[k].tag)}[{k}]"


def _diff(
    p: Node, t: Node, ap: Aliases, at: Aliases, fallback: str, out: list[str], c_equal: bool
) -> bool:
    # Iterative pre-order walk (document order of the output, as the recursive definition);
    # labels are computed only for nodes that differ. A stack entry is (p, t, up, k): ``up`` is
    # the parent's (p, t, fallback) and k the child index, so a child's deferred fallback label
    # (p, t, fallback, k) is built only when it is needed (the root's entry: (p, t, None,
    # fallback)); children are pushed in one C-level extend. With ``c_equal`` True the pairs are
    # also C-compared (canonical_equal's tests) until one differs; returns the C verdict (False
    # when not asked).
    stack: list[tuple[Node, Node, Any, Any]] = [(p, t, None, fallback)]
    pop, extend = stack.pop, stack.extend
    while stack:
        p, t, up, k = pop()
        if p.tag != t.tag:
            out.append(_label(p, t, k if up is None else (*up, k)))
            c_equal = False
            continue
        n0 = len(out)
        label = None
        tv = t._v if t._v is not None else _base(t)
        raw_differs = p.attrib is not t.attrib and p.attrib != t.attrib
        if c_equal and (
            (p.text != t.text and not ws_equal(p.text, t.text))
            or (p.tail != t.tail and not ws_equal(p.tail, t.tail))
            or len(p.children) != len(t.children)
            or (raw_differs and canonical_attributes(p) != canonical_attributes(t))
        ):
            c_equal = False
        if raw_differs or tv[1]:
            if semantic_attributes(p, ap) != semantic_attributes(t, at):
                label = _label(p, t, k if up is None else (*up, k))
                out.append(label)
        if p.text != t.text or (p.text and t.tag.endswith("style") and local_name(t.tag) == "style"):
            if semantic_text(p, ap) != semantic_text(t, at):
                label = label or _label(p, t, k if up is None else (*up, k))
                out.append(label)
        if p.tail != t.tail and not ws_equal(p.tail, t.tail):
            label = label or _label(p, t, k if up is None else (*up, k))
            out.append(label)
        pc, tc = p.children, t.children
        n = len(tc)
        if len(pc) != n:
            pids = {c.attrib["id"] for c in pc if "id" in c.attrib}
            tids = {c.attrib["id"] for c in tc if "id" in c.attrib}
            out.extend(f"+{x}" for x in sorted(pids - tids))
            out.extend(f"-{x}" for x in sorted(tids - pids))
            if len(out) == n0:
                out.append(label or _label(p, t, k if up is None else (*up, k)))
            continue
        if n:
            me = (p, t, k if up is None else (*up, k))
            extend(zip(reversed(pc), reversed(tc), repeat(me, n), range(n - 1, -1, -1), strict=True))
    return c_equal


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def semantic_form(root: Node, alias: Aliases | None = None, indent: str = "  ") -> str:
    """Serialise V(S) of one tree for humans and golden files.

    IDs are replaced by their alias tokens where ``alias`` (one side's map) has them; with no
    map, IDs are aliased by their own tree position (as when compared with an identical tree).
    Attributes are sorted by key; text lines are the semantic texts; tails are folded.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> print(semantic_form(to_node(parse_svg('<svg><g id="k" style="fill:red" fill="blue"/></svg>'))))
    <svg>
      <g fill="#ff0000">
    """
    if alias is None:
        alias = aliases(root, root)[1]
    lines: list[str] = []

    def walk(n: Node, depth: int) -> None:
        pad = indent * depth
        attrs = semantic_attributes(n, alias)
        body = "".join(f' {k}="{_escape(attrs[k])}"' for k in sorted(attrs))
        lines.append(f"{pad}<{n.tag}{body}>")
        text = semantic_text(n, alias)
        if text:
            lines.append(f"{pad}{indent}#text {text}")
        for child in n.children:
            walk(child, depth + 1)
        tail = fold_ws(n.tail)
        if tail:
            lines.append(f"{pad}#tail {tail}")

    walk(root, 0)
    return "\n".join(lines)
