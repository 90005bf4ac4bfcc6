"""SVG snippets shared by the render tests (imported as a plain module: tests/ has no package)."""

from __future__ import annotations

NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def svg(body: str, attrs: str = 'viewBox="0 0 2 2"') -> str:
    """Wrap ``body`` in an SVG root with the SVG and xlink namespaces."""
    return f"<svg {NS} {attrs}>{body}</svg>"


# Left half red, right half white: the reference image of the tests below.
GOOD = svg('<rect width="1" height="2" fill="red"/>')
