"""Masking M_E of requested fields and insert/delete sites (spec-reward.md §9).

Private helper of :mod:`vector_gym.rewards.spec`. The target side T′ depends only on the task,
so its successive states are built once per task (:func:`target_states`); the produced side is
masked in place on the scorer's private copy of the produced tree, after every other gate has
read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from vector_gym.rewards._spec_lookup import IdIndex, camel, corresponding, style_first
from vector_gym.svg.canonical import Node
from vector_gym.svg.style import parse_style_declarations
from vector_gym.tasks.task import RequestedEdit


def remove(root: Node, node: Node | None) -> None:
    """REMOVE(root, n): clear the root, or detach n with its subtree and tail (spec §9)."""
    if node is None:
        return
    if node is root:
        for child in node.children:
            child.parent = None
        node.children = []
        node.attrib = {}
        node.text = ""
        node.tail = ""
        node.invalidate()
        return
    parent = node.parent
    if parent is None:
        return
    kids = parent.children
    for k, c in enumerate(kids):
        if c is node:
            del kids[k]
            break
    node.parent = None


def style_decls(style: str) -> dict[str, str]:
    """Masking's tolerant style reader: case kept, later duplicates replace (spec §9)."""
    out: dict[str, str] = {}
    for chunk in style.split(";"):
        name, colon, value = chunk.partition(":")
        if colon:
            out[name.strip()] = value.strip()
    return out


def _join(decls: dict[str, str]) -> str:
    return ";".join(f"{k}:{decls[k]}" for k in sorted(decls))


def style_remove(node: Node, key: str) -> None:
    """STYLE_REMOVE(n, key) of spec §9.

    Default mode (a tree of the SVG2 dialect) removes every declaration of ``key`` as CSS reads
    the list (property names are case-insensitive, comments and ``!important`` understood), so
    masking removes exactly what the §7 lookup of that mode reads.
    """
    style = node.attrib.get("style")
    if node.dialect.svg2_links and style is not None:
        decls = parse_style_declarations(style)
        if decls is not None:
            kept = [d for d in decls if d[0] != key]
            if len(kept) == len(decls):
                return
            if kept:
                node.attrib["style"] = ";".join(
                    f"{n}:{v}{' !important' if imp else ''}" for n, v, imp in kept
                )
            else:
                node.attrib.pop("style", None)
            return
    decls = style_decls(style or "")
    if key not in decls:
        return
    del decls[key]
    if decls:
        node.attrib["style"] = _join(decls)
    else:
        node.attrib.pop("style", None)


def style_set(node: Node, key: str, value: str) -> None:
    """STYLE_SET(n, key, v) of spec §9."""
    decls = style_decls(node.attrib.get("style") or "")
    decls[key] = value
    node.attrib["style"] = _join(decls)


def target_states(target: Node, edits: Sequence[RequestedEdit]) -> list[IdIndex]:
    """T′ before each item of E and after the last (``len(E) + 1`` indexes), spec §9.

    Only ``exists`` items change T′ (the removed node); other items never modify the target.
    """
    # The states never edit attributes (REMOVE detaches nodes and gives a cleared root a new
    # dict), so they share the target's attribute dicts: equal maps compare by identity.
    cur = target.copy(share_attributes=True)
    index = IdIndex(cur)
    states = [index]
    for item in edits:
        if item.attribute == "exists" and index.find(item.part) is not None:
            cur = cur.copy(share_attributes=True)
            index = IdIndex(cur)
            remove(cur, index.find(item.part))
            index = IdIndex(cur)
        states.append(index)
    return states


def mask_produced(
    produced: Node,
    edits: Sequence[RequestedEdit],
    states: Sequence[IdIndex],
    p_index: IdIndex | None = None,
    *,
    strict: bool = True,
) -> Node:
    """Mask the produced tree in place against the precomputed T′ states (spec §9 ``MASK``).

    ``p_index`` may be an :class:`IdIndex` of ``produced`` built earlier (lookups honour
    removals). ``strict`` is passed to :func:`corresponding` (False in parity mode).
    Returns the (same) produced root, now P′.
    """
    if p_index is None or any(e.attribute == "id" for e in edits):
        p_index = IdIndex(produced)
    p_index.pristine = False  # removals and attribute changes follow
    for i, item in enumerate(edits):
        t_index = states[i]
        part, attr = item.part, item.attribute
        if attr == "exists":
            tn = t_index.find(part)
            pn = (
                corresponding(p_index, t_index, part, strict=strict)
                if tn is not None
                else p_index.find(part)
            )
            remove(produced, pn)
            continue
        pn = corresponding(p_index, t_index, part, strict=strict)
        tn = t_index.find(part)
        if pn is None or tn is None:
            continue
        key = "transform" if attr == "size" else attr
        alt = camel(key)
        pn.attrib = dict(pn.attrib)  # parse_node shares attribute dicts between trees
        # Prefer the spelling equal to the requested attribute (the reference's choice follows
        # hash-set order when the target has both, spec §9 / §16 item 26).
        tkey = key if key in tn.attrib else (alt if alt in tn.attrib else None)
        pn.attrib.pop(key, None)
        pn.attrib.pop(alt, None)
        style_remove(pn, key)
        if tkey is not None:
            pn.attrib[tkey] = tn.attrib[tkey]
        else:
            v = style_first(tn.attrib.get("style"), key)
            if v is not None:
                style_set(pn, key, v)
        pn.invalidate()
    return produced
