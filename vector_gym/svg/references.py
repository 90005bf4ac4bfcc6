"""References: ``url(#id)`` (CSS Values 4 §4.5) and ``href`` (SVG 2 §5.7, XLink 1.1).

One reader of local references for every layer. Default-mode rules (SVG 2):

- only the null-namespace ``href`` and the XLink namespace's ``href`` are links; an ``href`` in any
  other namespace is an ordinary foreign attribute (:func:`link_key`);
- when both are present, plain ``href`` wins (SVG 2 §5.7 "if both are specified, href is used"),
  so an overridden ``xlink:href`` has no effect (:func:`effective_href`).

The reference evaluator keys attributes by local name instead, so any ``href`` in any namespace
collides and the later one in attribute order wins (spec-reward.md §5.2); that parity behaviour
is listed in :mod:`vector_gym.svg.reference_dialect`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

__all__ = [
    "XLINK_NS",
    "XLINK_HREF",
    "URL_REFERENCE_RE",
    "url_references",
    "local_href",
    "link_key",
    "effective_href",
]

XLINK_NS = "http://www.w3.org/1999/xlink"
"""The XLink namespace URI."""
XLINK_HREF = "{" + XLINK_NS + "}href"
"""Expanded name of ``xlink:href``."""

URL_REFERENCE_RE = re.compile(r"""url\(\s*(['"]?)#([^\s)'"]+)\1\s*\)""", re.IGNORECASE)
"""A local ``url(#X)`` reference, optionally quoted (spec §5.2); group 2 is X."""


def url_references(text: str) -> Iterator[str]:
    """Yield X of every local ``url(#X)`` in ``text``.

    Examples
    --------
    >>> list(url_references("url(#a) url( '#b' ) url(c)"))
    ['a', 'b']
    """
    if "(" not in text:
        return
    for m in URL_REFERENCE_RE.finditer(text):
        yield m.group(2)


def local_href(value: str) -> str | None:
    """The id of a local ``href`` value (``"#X"`` → ``"X"``, surrounding whitespace allowed), else None.

    Examples
    --------
    >>> local_href(" #a "), local_href("img.png"), local_href("#")
    ('a', None, '')
    """
    v = value.strip()
    return v[1:] if v[:1] == "#" else None


def link_key(key: str) -> bool:
    """Whether an expanded attribute key is a link (``href`` or ``{XLink}href``), SVG 2 §5.7.

    Examples
    --------
    >>> link_key("href"), link_key(XLINK_HREF), link_key("{urn:x}href")
    (True, True, False)
    """
    return key == "href" or key == XLINK_HREF


def effective_href(attrib: Mapping[str, str]) -> str | None:
    """The ``href`` value that applies: plain ``href`` wins over ``xlink:href`` (SVG 2 §5.7).

    Examples
    --------
    >>> effective_href({XLINK_HREF: "#old", "href": "#new"}), effective_href({XLINK_HREF: "#a"})
    ('#new', '#a')
    >>> effective_href({"{urn:x}href": "#a"}) is None
    True
    """
    v = attrib.get("href")
    if v is not None:
        return v
    return attrib.get(XLINK_HREF)
