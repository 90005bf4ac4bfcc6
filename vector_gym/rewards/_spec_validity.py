"""The validity gate valid(S) (spec-reward.md §10).

Private helper of :mod:`vector_gym.rewards.spec`. Returns the verdict and the detail codes of
every rule that failed (:mod:`vector_gym.rewards.failures`), in a fixed order.
"""

from __future__ import annotations

import functools

from vector_gym.rewards import failures as F
from vector_gym.svg.canonical import (
    INVALID_MARKER,
    INVALID_NUMBER_MARKER,
    REFERENCE,
    SVG2,
    Node,
)
from vector_gym.svg.parse import MAX_USE_EXPANSION, local_name
from vector_gym.svg.path_data import path_syntax_ok
from vector_gym.svg.references import URL_REFERENCE_RE, XLINK_HREF, local_href

SVG_ROOT_TAG = "{http://www.w3.org/2000/svg}svg"

_ORDER = (
    F.NOT_SVG_ROOT,
    F.NO_SVG_NAMESPACE,
    F.EMPTY_ID,
    F.DUPLICATE_ID,
    F.INVALID_ATTRIBUTE_SYNTAX,
    F.INVALID_PATH_SYNTAX,
    F.ODD_POINTS,
    F.INVALID_VIEWBOX,
    F.INVALID_NUMBER,
    F.UNRESOLVED_REFERENCE,
    F.USE_CYCLE,
    F.USE_EXPANSION,
)


def path_ok(d: str, parity: bool) -> bool:
    """Whether ``d`` passes the §8.9.1 parse (split, argument reading, segments, arc set-up).

    Parity keeps the silent truncation of implicit repeats; the default rejects it (§16 item 22).
    Z before a moveto and bad arc flags are invalid in both modes (§16 item 8).
    """
    try:
        return path_syntax_ok(d, parity=parity)
    except (ValueError, ArithmeticError, RecursionError):  # defensive: never raise for policy text
        return False


def _positive(token: str) -> bool:
    # Normalised numbers (§4.2): zero is exactly "0", negatives start with "-".
    return token != "0" and not token.startswith("-")


def _rule_code(name: str, norm: str, value: str, parity: bool) -> str | None:
    """The detail code of the §10 rule 3 check that ``name``'s normalised value fails, or None."""
    if norm.startswith(INVALID_MARKER):
        if norm.startswith(INVALID_NUMBER_MARKER):
            return F.INVALID_NUMBER
        if name == "d":
            return F.INVALID_PATH_SYNTAX
        if name == "viewBox":
            return F.INVALID_VIEWBOX
        return F.INVALID_ATTRIBUTE_SYNTAX
    if name == "d":
        # Default mode: the path reader already decided N("d"); parity: the reference's token
        # stream passed, now its svg.path parse must pass too.
        if parity and value and not path_ok(value, parity):
            return F.INVALID_PATH_SYNTAX
    elif name == "points":
        if norm and len(norm.split(" ")) % 2:
            return F.ODD_POINTS
    elif name == "viewBox":
        toks = norm.split(" ") if norm else []
        if len(toks) != 4 or not (_positive(toks[2]) and _positive(toks[3])):
            return F.INVALID_VIEWBOX
    return None


def _references(name: str, value: str) -> tuple[str, ...]:
    """Local ids a value references: ``href="#X"`` and every ``url(#X)`` (spec §10 rule 4)."""
    refs: tuple[str, ...] = ()
    if name == "href":
        r = local_href(value)
        if r is not None:
            refs = (r,)
    if "(" in value:
        refs += tuple(m.group(2) for m in URL_REFERENCE_RE.finditer(value))
    return refs


def _attr_verdict_uncached(
    key: str, value: str, parity: bool
) -> tuple[str, str | None, tuple[str, ...]]:
    """(N(name, value), failed rule's detail code or None, local ids it references).

    Parity keys by local name (spec §5.2, §10); default mode follows SVG 2: ``xlink:href`` is
    ``href``, any other namespaced attribute is foreign (no syntax rule, no references).
    """
    if parity:
        name = local_name(key) if key[:1] == "{" else key
        norm = REFERENCE.normalise(name, value)
        return norm, _rule_code(name, norm, value, True), _references(name, value)
    norm = SVG2.normalise(key, value)
    if key[:1] == "{" and key != XLINK_HREF:
        return norm, None, ()
    name = "href" if key == XLINK_HREF else key
    return norm, _rule_code(name, norm, value, False), _references(name, value)


def use_cycle(by_id: dict[str, list[Node]], uses: list[tuple[Node, str]]) -> bool:
    """Whether a ``<use>`` chain loops back on itself (SVG 2 §5.6 "circular references").

    An edge runs from ``<use>`` u to ``<use>`` v when v lies in the subtree of u's referenced
    element (ancestor-or-self), so rendering u would render v. A cycle, a self-reference and a
    reference to an ancestor are all cycles. Time O(uses × depth).

    Parameters
    ----------
    by_id : dict
        id → nodes (first one is the referenced element).
    uses : list of (Node, str)
        Each ``<use>`` node and the id its effective ``href`` names.
    """
    if not uses:
        return False
    users: dict[int, list[int]] = {}  # id(referenced element) -> indexes of uses pointing at it
    for k, (_u, ref) in enumerate(uses):
        lst = by_id.get(ref)
        if lst:
            users.setdefault(id(lst[0]), []).append(k)
    if not users:
        return False
    edges: list[list[int]] = [[] for _ in uses]
    for v, (vnode, _ref) in enumerate(uses):
        a: Node | None = vnode
        while a is not None:
            for u in users.get(id(a), ()):
                edges[u].append(v)
            a = a.parent
    state = [0] * len(uses)  # 0 new, 1 on the stack, 2 done
    for start in range(len(uses)):
        if state[start]:
            continue
        stack = [(start, 0)]
        state[start] = 1
        while stack:
            node, i = stack[-1]
            if i < len(edges[node]):
                stack[-1] = (node, i + 1)
                nxt = edges[node][i]
                if state[nxt] == 1:
                    return True
                if state[nxt] == 0:
                    state[nxt] = 1
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                stack.pop()
    return False


def use_expansion_over(
    root: Node, by_id: dict[str, list[Node]], uses: list[tuple[Node, str]], budget: int = MAX_USE_EXPANSION
) -> bool:
    """Whether expanding every ``<use>`` gives more than ``budget`` elements (root included).

    Each element counts 1 plus its children; a ``<use>`` also counts a copy of its referenced
    element (the first with that id), as :func:`vector_gym.svg.normalise.bounds.use_expansion_count`
    counts for the renderer. Call only when :func:`use_cycle` is false. Iterative, memoised per
    element, and stopped as soon as one count exceeds ``budget``: time O(elements + uses)
    whatever the fan-out.
    """
    ref_of = {id(u): by_id[r][0] for u, r in uses if by_id.get(r)}
    memo: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in memo:
            continue
        ref = ref_of.get(key)
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if id(c) not in memo)
            if ref is not None and id(ref) not in memo:
                stack.append((ref, False))
            continue
        n = 1 + sum(memo[id(c)] for c in node.children)
        if ref is not None:
            n += memo[id(ref)]
        if n > budget:
            return True
        memo[key] = n
    return False


_attr_verdict_cached = functools.lru_cache(maxsize=1 << 16)(_attr_verdict_uncached)


def _element_verdict(
    attrib: dict[str, str], parity: bool
) -> tuple[dict[str, str], frozenset[str], tuple[str, ...], int]:
    """One element's §10 rule 3-4 verdict: (C map, failed codes, referenced ids, value chars).

    The C map is N(key, value) per attribute in attribute order (what
    :func:`vector_gym.svg.canonical.canonical_attributes` caches on the node).
    """
    c: dict[str, str] = {}
    codes: set[str] = set()
    refs: list[str] = []
    chars = 0
    overridden = not parity and XLINK_HREF in attrib and "href" in attrib
    verdict = _attr_verdict_cached
    for key, value in attrib.items():
        chars += len(value)
        if overridden and key == XLINK_HREF:
            c[key] = SVG2.normalise(key, value)
            continue  # plain href wins (SVG 2 §5.7): the overridden one links nothing
        if len(value) > 2048:
            norm, code, r = _attr_verdict_uncached(key, value, parity)
        else:
            norm, code, r = verdict(key, value, parity)
        c[key] = norm
        if code is not None:
            codes.add(code)
        if r:
            refs.extend(r)
    return c, frozenset(codes), tuple(refs), chars


class _ElementMemo:
    """Element verdicts by raw attribute list, one table per mode (a hit is one dict lookup).

    Documents repeat their task's elements (every unchanged element of the source or target),
    so the per-attribute work of :func:`_element_verdict` is done once per distinct attribute
    list. Bounded: an element whose values exceed :data:`MAX_CHARS` characters is never stored,
    and a table is emptied when it holds :data:`MAX_ENTRIES` elements or :data:`MAX_TOTAL`
    value characters.
    """

    MAX_ENTRIES = 1 << 14
    MAX_CHARS = 4096
    MAX_TOTAL = 1 << 23

    __slots__ = ("tables", "totals")

    def __init__(self) -> None:
        self.tables: tuple[dict, dict] = ({}, {})
        self.totals = [0, 0]

    def store(self, parity: bool, key: tuple, value: tuple) -> None:
        chars = value[3]
        if chars > self.MAX_CHARS:
            return
        table = self.tables[parity]
        if len(table) >= self.MAX_ENTRIES or self.totals[parity] + chars > self.MAX_TOTAL:
            table.clear()
            self.totals[parity] = 0
        table[key] = value
        self.totals[parity] += chars

    def clear(self) -> None:
        for table in self.tables:
            table.clear()
        self.totals[:] = [0, 0]


_MEMO = _ElementMemo()
_USE_TAG = "{http://www.w3.org/2000/svg}use"


def check_validity(
    root: Node | None,
    parity: bool,
    nodes: list[Node] | None = None,
    keys: list[tuple[tuple[str, str], ...]] | None = None,
) -> tuple[bool, tuple[str, ...], dict[str, list[Node]]]:
    """valid(S), the failed rules' detail codes, and every node per ``id`` (spec §10 rules 1–4).

    Parameters
    ----------
    root : Node or None
        The parsed document (``None`` = parse failure, reported by the caller).
    parity : bool
        ``True``: the reference's rules (:data:`vector_gym.svg.canonical.REFERENCE` dialect);
        ``False``: default mode (SVG 2 grammars, plus ``no_svg_namespace``, ``invalid_number``,
        ``use_cycle`` and ``use_expansion``). Must match the dialect ``root`` was built with.
    nodes : list of Node, optional
        Every node of ``root``'s tree in document order, root first (as
        :func:`vector_gym.svg.canonical.parse_node` returns them); walked instead of the tree.
    keys : list of tuple, optional
        With ``nodes``: each node's ``tuple(attrib.items())`` (``parse_node``'s third value).

    Returns
    -------
    (bool, tuple of str, dict)
        The verdict, the detail codes in a fixed order, and id → nodes in document order (for
        :class:`vector_gym.rewards._spec_lookup.IdIndex`).
    """
    by_id: dict[str, list[Node]] = {}
    if root is None:
        return False, (), by_id
    bad: set[str] = set()
    if local_name(root.tag) != "svg":
        bad.add(F.NOT_SVG_ROOT)
    elif not parity and root.tag != SVG_ROOT_TAG:
        bad.add(F.NO_SVG_NAMESPACE)
    refs: list[str] = []
    uses: list[tuple[Node, str]] = []
    svg2 = not parity
    table = _MEMO.tables[parity]
    store = _MEMO.store
    get_ids = by_id.get
    if nodes is None:
        nodes = list(root.iter())
    if keys is None:
        keys = [tuple(n.attrib.items()) for n in nodes]
    for node, key in zip(nodes, keys, strict=True):
        attrib = node.attrib
        if attrib:
            hit = table.get(key)
            if hit is None:
                hit = _element_verdict(attrib, parity)
                store(parity, key, hit)
            node._c = hit[0]
            if hit[1]:
                bad.update(hit[1])
            if hit[2]:
                refs.extend(hit[2])
            i = attrib.get("id")
            if i is not None:
                lst = get_ids(i)
                if lst is None:
                    by_id[i] = [node]
                    if not i:
                        bad.add(F.EMPTY_ID)
                else:
                    lst.append(node)
                    bad.add(F.DUPLICATE_ID)
            if svg2 and node.tag == _USE_TAG:
                h = attrib.get("href")
                if h is None:
                    h = attrib.get(XLINK_HREF)
                r = local_href(h) if h is not None else None
                if r:
                    uses.append((node, r))
        else:
            node._c = {}
        text = node.text
        if text and "(" in text and local_name(node.tag) == "style":
            refs.extend(m.group(2) for m in URL_REFERENCE_RE.finditer(text))
    if refs and any(r not in by_id or not r for r in refs):
        bad.add(F.UNRESOLVED_REFERENCE)
    if uses:
        if use_cycle(by_id, uses):
            bad.add(F.USE_CYCLE)
        elif use_expansion_over(root, by_id, uses):
            bad.add(F.USE_EXPANSION)
    return not bad, tuple(code for code in _ORDER if code in bad), by_id
