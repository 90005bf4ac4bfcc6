"""Work bounds checked before rendering: elements after ``<use>`` expansion, numbers in path data."""

from __future__ import annotations

from lxml import etree

from vector_gym.svg.normalise.common import _href, _id_map, _ref_id
from vector_gym.svg.numbers import SVG_NUMBER_RE
from vector_gym.svg.parse import MAX_USE_EXPANSION, local_name

DEFAULT_MAX_USE_EXPANSION = MAX_USE_EXPANSION  # the one limit, shared with the spec reward


_HAS_USE_XPATH = etree.XPath("boolean(//*[local-name() = 'use'])")


_COUNT_XPATH = etree.XPath("count(//*)")


def use_expansion_count(root, budget: int) -> int:
    """Count the elements a document would have after expanding every ``<use>``.

    Parameters
    ----------
    root : lxml.etree._Element
    budget : int
        Stop counting once the count exceeds this (the work is bounded by it).

    Returns
    -------
    int
        ``-1`` when a ``<use>`` refers to itself or an ancestor (a cycle); a value above
        ``budget`` when over budget; else the count, root included.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><rect id="a"/><use href="#a"/><use href="#a"/></svg>')
    >>> use_expansion_count(r, 100)
    6
    >>> from vector_gym.svg.parse import parse_svg
    >>> use_expansion_count(parse_svg('<svg><use id="u" href="#u"/></svg>'), 100)
    -1
    """
    n, cyclic = _expansion(root, budget)
    return -1 if cyclic is not None else n


def _expansion(root, budget: int):
    """(element count after expanding every ``<use>``, the first ``<use>`` closing a cycle)."""
    if not _HAS_USE_XPATH(root):
        n = int(_COUNT_XPATH(root))
        return (n if n <= budget else budget + 1), None
    ids = _id_map(root)
    memo: dict = {}
    active: set = set()  # lxml proxies kept alive by memo/active, so identity is stable

    class _Over(Exception):
        pass

    class _Cycle(Exception):
        pass

    def cost(el) -> int:
        if el in memo:
            return memo[el]
        if el in active:
            raise _Cycle
        active.add(el)
        total = 1
        for ch in el:
            if isinstance(ch.tag, str):
                total += cost(ch)
        if local_name(el.tag) == "use":
            target = ids.get(_ref_id(_href(el)))
            if target is not None:
                try:
                    total += cost(target)
                except _Cycle as exc:
                    if not exc.args:
                        raise _Cycle(el) from None  # this use closes the cycle
                    raise
        active.discard(el)
        if total > budget:
            raise _Over
        memo[el] = total
        return total

    try:
        return cost(root), None
    except _Cycle as exc:
        return -1, exc.args[0]
    except (_Over, RecursionError):
        return budget + 1, None


def strip_cyclic_uses(root, budget: int, max_cycles: int = 64) -> int:
    """Replace every ``<use>`` that closes a reference cycle by an empty ``<g>``, in place.

    A browser skips a ``<use>`` that refers to itself or an ancestor, directly or through other
    uses, and draws the rest (issue 11): so does every backend after this.

    Parameters
    ----------
    root : lxml.etree._Element
        Modified in place.
    budget : int
        As for :func:`use_expansion_count`.
    max_cycles : int
        Most uses replaced (each replacement recounts; work is bounded by it).

    Returns
    -------
    int
        The element count after expansion (above ``budget`` when over), or ``-1`` when more
        than ``max_cycles`` uses close cycles.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><g id="a"><rect/><use id="u" href="#a"/></g></svg>')
    >>> strip_cyclic_uses(r, 100), [e.tag for e in r.iter()]
    (4, ['svg', 'g', 'rect', 'g'])
    """
    for _ in range(max_cycles + 1):
        n, use = _expansion(root, budget)
        if use is None:
            return n
        g = etree.Element(use.tag[: -len("use")] + "g")
        if use.get("id") is not None:
            g.set("id", use.get("id"))
        g.tail = use.tail
        use.getparent().replace(use, g)
    return -1


_PATHDATA_XPATH = etree.XPath("//@d | //@points", smart_strings=False)


def path_numbers_over(root, budget: int) -> bool:
    """Tell whether all ``d`` and ``points`` attributes together hold more than ``budget`` numbers.

    A number needs at least one character, so documents with fewer characters of path data
    than ``budget`` are accepted without counting.

    Examples
    --------
    >>> from vector_gym.svg.parse import parse_svg
    >>> r = parse_svg('<svg><path d="M0 0h1v2"/><polygon points="0,0 1,1"/></svg>')
    >>> path_numbers_over(r, 8), path_numbers_over(r, 7)
    (False, True)
    """
    values = _PATHDATA_XPATH(root)
    if sum(map(len, values)) <= budget:
        return False
    total = 0
    for v in values:
        total += len(SVG_NUMBER_RE.findall(v))
        if total > budget:
            return True
    return False
