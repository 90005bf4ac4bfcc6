"""The validity gate valid(S) (spec-reward.md §10).

Private helper of :mod:`vector_gym.rewards.spec`. Returns the verdict and the detail codes of
every rule that failed (:mod:`vector_gym.rewards.failures`), in a fixed order.
"""

from __future__ import annotations

import functools

from vector_gym.rewards import failures as F
from vector_gym.svg.canonical import INVALID_MARKER, Node, normalise_attribute
from vector_gym.svg.parse import local_name
from vector_gym.svg.path_data import path_syntax_ok
from vector_gym.svg.semantic import URL_REFERENCE_RE

_ORDER = (
    F.NOT_SVG_ROOT,
    F.EMPTY_ID,
    F.DUPLICATE_ID,
    F.INVALID_ATTRIBUTE_SYNTAX,
    F.INVALID_PATH_SYNTAX,
    F.ODD_POINTS,
    F.INVALID_VIEWBOX,
    F.UNRESOLVED_REFERENCE,
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


def _attr_verdict_uncached(
    key: str, value: str, parity: bool
) -> tuple[str, str | None, tuple[str, ...]]:
    """(N(name, value), failed rule's detail code or None, local ids it references)."""
    name = local_name(key) if key[:1] == "{" else key
    norm = normalise_attribute(name, value)
    code = None
    if norm.startswith(INVALID_MARKER):
        code = (
            F.INVALID_PATH_SYNTAX
            if name == "d"
            else F.INVALID_VIEWBOX
            if name == "viewBox"
            else F.INVALID_ATTRIBUTE_SYNTAX
        )
    elif name == "d":
        if value and not path_ok(value, parity):
            code = F.INVALID_PATH_SYNTAX
    elif name == "points":
        if norm and len(norm.split(" ")) % 2:
            code = F.ODD_POINTS
    elif name == "viewBox":
        toks = norm.split(" ") if norm else []
        if len(toks) != 4 or not (_positive(toks[2]) and _positive(toks[3])):
            code = F.INVALID_VIEWBOX
    refs: tuple[str, ...] = ()
    if name == "href":
        v = value.strip()
        if v[:1] == "#":
            refs = (v[1:],)
    if "(" in value:
        refs += tuple(m.group(2) for m in URL_REFERENCE_RE.finditer(value))
    return norm, code, refs


_attr_verdict_cached = functools.lru_cache(maxsize=1 << 16)(_attr_verdict_uncached)


def check_validity(
    root: Node | None, parity: bool
) -> tuple[bool, tuple[str, ...], dict[str, list[Node]]]:
    """valid(S), the failed rules' detail codes, and every node per ``id`` (spec §10 rules 1–4).

    Parameters
    ----------
    root : Node or None
        The parsed document (``None`` = parse failure, reported by the caller).
    parity : bool
        Passed to the path parser (truncation rule).

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
    refs: list[str] = []
    verdict = _attr_verdict_cached
    stack = [root]
    while stack:
        node = stack.pop()
        if node.children:
            stack.extend(reversed(node.children))
        attrib = node.attrib
        if not attrib:
            node._c = {}
        else:
            i = attrib.get("id")
            if i is not None:
                lst = by_id.get(i)
                if lst is None:
                    by_id[i] = [node]
                    if not i:
                        bad.add(F.EMPTY_ID)
                else:
                    lst.append(node)
                    bad.add(F.DUPLICATE_ID)
            c: dict[str, str] = {}
            for key, value in attrib.items():
                if len(value) > 2048:
                    norm, code, r = _attr_verdict_uncached(key, value, parity)
                else:
                    norm, code, r = verdict(key, value, parity)
                c[key] = norm
                if code is not None:
                    bad.add(code)
                if r:
                    refs.extend(r)
            node._c = c
        text = node.text
        if text and "(" in text and local_name(node.tag) == "style":
            refs.extend(m.group(2) for m in URL_REFERENCE_RE.finditer(text))
    if refs and any(r not in by_id or not r for r in refs):
        bad.add(F.UNRESOLVED_REFERENCE)
    return not bad, tuple(code for code in _ORDER if code in bad), by_id
