"""Compatibility name of :mod:`vector_gym.svg.normalise` (the normaliser, split by concern).

``from vector_gym.svg.simplify import simplify`` keeps working; new code imports from
:mod:`vector_gym.svg.normalise`.
"""

from __future__ import annotations

from vector_gym.svg.normalise import (
    external_references,
    fit_root,
    parse_transform_lenient,
    path_numbers_over,
    sanitize_path_data,
    simplify,
    simplify_tree,
    strip_external_resources,
    to_svg_bytes,
    use_expansion_count,
)

__all__ = [
    "simplify",
    "simplify_tree",
    "fit_root",
    "to_svg_bytes",
    "sanitize_path_data",
    "parse_transform_lenient",
    "external_references",
    "strip_external_resources",
    "use_expansion_count",
    "path_numbers_over",
]
