"""Layer 1: SVG text to trees, grammars, colours and path geometry (no rendering, no scoring).

Public names are re-exported here. Modules that need NumPy (``transform``, ``path_data``,
``geometry``) are imported lazily on first attribute access, so ``import vector_gym.svg`` stays
light.

Grammar entry points (each spelling is read in exactly one place; default mode, SVG 2 / CSS):

- number: :func:`vector_gym.svg.numbers.parse_svg_number`, ``is_svg_number``,
  ``normalise_svg_number``, ``format_number`` (canonical spelling), ``SVG_NUMBER_PATTERN``;
- number list (``viewBox``, ``points``, dash arrays, transform arguments):
  :func:`vector_gym.svg.numbers.scan_numbers`;
- length: :func:`vector_gym.svg.numbers.parse_length`, ``normalise_length``, ``LENGTH_UNITS``;
- points: :func:`vector_gym.svg.numbers.parse_points`;
- path data: :func:`vector_gym.svg.path_data.parse_path_data` (``parse_path_data_cached``,
  ``path_syntax_ok``), canonical spelling ``normalise_path_data``;
- transform list: :func:`vector_gym.svg.transform.parse_transform`, ``transform_to_matrix``,
  ``normalise_transform_list``, ``TRANSFORM_ARITY``;
- viewBox: :func:`vector_gym.svg.viewbox.parse_viewbox`;
- colour: :func:`vector_gym.svg.color.parse_css_color` (CSS Color 4), ``canonical_color``,
  ``color_keyword``, ``COLOR_KEYWORDS``;
- style declarations: :func:`vector_gym.svg.style.parse_style_declarations`,
  ``style_declarations`` (cascade within one block);
- references: :mod:`vector_gym.svg.references` (``url_references``, ``local_href``,
  ``effective_href``, ``link_key``, ``URL_REFERENCE_RE``, ``XLINK_HREF``);
- one attribute value, all of the above: :func:`vector_gym.svg.canonical.normalise_attribute_svg`;
- limits: :data:`vector_gym.svg.parse.MAX_DEPTH` and :class:`vector_gym.svg.parse.ParseLimits`.

The reference evaluator's readings, which only parity mode uses, are listed one by one in
:mod:`vector_gym.svg.reference_dialect` (``normalise_attribute_reference`` and friends).
"""

from __future__ import annotations

import importlib
from typing import Any

from vector_gym.svg.color import (
    BASIC_COLORS,
    COLOR_ATTRIBUTES,
    color_keyword,
    delta_e76,
    hex_to_lab,
    is_current_color,
    is_none,
    normalise_color,
    parse_css_color,
    rgb_to_lab,
)
from vector_gym.svg.extract import extract_svg
from vector_gym.svg.numbers import (
    SVG_NUMBER_RE,
    is_svg_number,
    parse_svg_number,
    python_float_reference,
    scan_numbers,
)
from vector_gym.svg.parse import ParseLimits, fold_ws, local_name, namespace_uri, parse_svg
from vector_gym.svg.viewbox import parse_viewbox, scan_viewbox_reference, viewport_size

_LAZY = {
    "parse_transform": "vector_gym.svg.transform",
    "transform_to_matrix": "vector_gym.svg.transform",
    "matrix_string": "vector_gym.svg.transform",
    "PathData": "vector_gym.svg.path_data",
    "PathSyntaxError": "vector_gym.svg.path_data",
    "parse_path_data": "vector_gym.svg.path_data",
    "parse_path_data_cached": "vector_gym.svg.path_data",
    "path_syntax_ok": "vector_gym.svg.path_data",
    "segment_lengths": "vector_gym.svg.geometry",
    "segment_points": "vector_gym.svg.geometry",
    "sample_path": "vector_gym.svg.geometry",
    "path_distance": "vector_gym.svg.geometry",
    "samples_for": "vector_gym.svg.geometry",
}

__all__ = [
    "BASIC_COLORS",
    "COLOR_ATTRIBUTES",
    "ParseLimits",
    "SVG_NUMBER_RE",
    "color_keyword",
    "delta_e76",
    "extract_svg",
    "fold_ws",
    "hex_to_lab",
    "is_current_color",
    "is_none",
    "is_svg_number",
    "local_name",
    "namespace_uri",
    "normalise_color",
    "parse_css_color",
    "parse_svg",
    "parse_svg_number",
    "parse_viewbox",
    "python_float_reference",
    "rgb_to_lab",
    "scan_numbers",
    "scan_viewbox_reference",
    "viewport_size",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vector_gym.svg' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
