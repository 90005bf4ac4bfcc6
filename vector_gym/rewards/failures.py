"""Failure reasons of the specification reward: a closed set of names (spec-reward.md §11.2).

``SpecReport.failure_reasons`` holds only the spec's three names, verbatim and in this order, so
it stays comparable with the reference evaluator. Everything the spec has no word for (why a
document failed to parse, which validity rule it broke, why no SVG was scored) is a *detail*
code in ``SpecReport.detail``. Tests assert on these names, never on message text.
"""

from __future__ import annotations

from vector_gym.svg.parse import (
    EMPTY,
    ENTITY_DECLARATION,
    INVALID_UTF8,
    NO_SVG_NAMESPACE,
    NOT_TEXT,
    NOT_WELL_FORMED,
    TOO_DEEP,
    TOO_LARGE,
    TOO_MANY_ELEMENTS,
    USE_CYCLE,
    USE_EXPANSION,
)

__all__ = [
    "INVALID_SVG",
    "REQUESTED_REPAIRS_INCOMPLETE",
    "UNINTENDED_DOCUMENT_CHANGES",
    "FAILURE_REASONS",
    "PROVIDER_ERROR",
    "NO_SVG_FOUND",
    "NOT_TEXT",
    "INVALID_UTF8",
    "TOO_LARGE",
    "EMPTY",
    "ENTITY_DECLARATION",
    "NOT_WELL_FORMED",
    "TOO_DEEP",
    "TOO_MANY_ELEMENTS",
    "NOT_SVG_ROOT",
    "EMPTY_ID",
    "DUPLICATE_ID",
    "INVALID_ATTRIBUTE_SYNTAX",
    "INVALID_PATH_SYNTAX",
    "ODD_POINTS",
    "INVALID_VIEWBOX",
    "UNRESOLVED_REFERENCE",
    "NO_SVG_NAMESPACE",
    "INVALID_NUMBER",
    "USE_CYCLE",
    "USE_EXPANSION",
    "TARGET_INVALID",
    "DETAIL_CODES",
]

# -- the spec's three names (§11.2), in report order -------------------------------------------
INVALID_SVG = "invalid_svg"
"""The output failed the validity gate (spec §10)."""
REQUESTED_REPAIRS_INCOMPLETE = "requested_repairs_incomplete"
"""Not every requested edit in E passed (spec §11, ``repair_pass`` false)."""
UNINTENDED_DOCUMENT_CHANGES = "unintended_document_changes"
"""The masked documents are not V-equal (spec §9, §11, ``preservation_pass`` false)."""

FAILURE_REASONS: tuple[str, ...] = (
    INVALID_SVG,
    REQUESTED_REPAIRS_INCOMPLETE,
    UNINTENDED_DOCUMENT_CHANGES,
)
"""The spec's failure reasons in their report order."""

# -- detail codes: why nothing was scored ------------------------------------------------------
PROVIDER_ERROR = "provider_error"
"""No response at all (``produced_svg`` is ``None``); the §12 error defaults apply."""
NO_SVG_FOUND = "no_svg_found"
"""The default extraction rule found no ``<svg`` in the response (spec §2, our rule)."""

# -- detail codes: parse failures (spec §3) ---------------------------------------------------
# NOT_TEXT, INVALID_UTF8, TOO_LARGE, EMPTY, ENTITY_DECLARATION, NOT_WELL_FORMED, TOO_DEEP and
# TOO_MANY_ELEMENTS: the ``SVGParseError.reason`` codes of :func:`vector_gym.svg.parse.parse_svg`,
# imported above and re-exported under the same public names (one definition, documented there).

# -- detail codes: validity rules (spec §10) ---------------------------------------------------
NOT_SVG_ROOT = "not_svg_root"
"""The root's local name is not exactly ``svg`` (spec §10 rule 1)."""
EMPTY_ID = "empty_id"
"""An element has ``id=""`` (spec §10 rule 2)."""
DUPLICATE_ID = "duplicate_id"
"""Two elements share an ``id`` (spec §10 rule 2)."""
INVALID_ATTRIBUTE_SYNTAX = "invalid_attribute_syntax"
"""An attribute's §4.1 normalisation is invalid-marked: style, d tokens, points, viewBox, transform."""
INVALID_PATH_SYNTAX = "invalid_path_syntax"
"""A ``d`` value fails the §8.9.1 path parse (incl. Z before a moveto, bad arc flags, §16 item 8)."""
ODD_POINTS = "odd_points"
"""A non-empty ``points`` value holds an odd number of numbers (spec §10 rule 3)."""
INVALID_VIEWBOX = "invalid_viewbox"
"""A ``viewBox`` is not four numbers with positive width and height (spec §10 rule 3)."""
UNRESOLVED_REFERENCE = "unresolved_reference"
"""A local ``href="#X"`` or ``url(#X)`` names no element ``id`` (spec §10 rule 4)."""
# NO_SVG_NAMESPACE (default mode: the root is <svg> outside the SVG namespace) and USE_CYCLE
# (default mode: a self-referencing or cyclic <use>) and USE_EXPANSION (default mode: more than
# vector_gym.svg.parse.MAX_USE_EXPANSION elements after expanding every <use>) are defined once in
# vector_gym.svg.parse, shared with the renderer.
INVALID_NUMBER = "invalid_number"
"""Default mode: a numeric attribute (width, x, r, opacity, offset, …) is not an SVG number or
length (``NaN``, ``Infinity``, ``1_0``, hex, ``10 px``)."""
TARGET_INVALID = "target_invalid"
"""The task's own target fails validity, so both preservation gates fail (spec §11)."""

DETAIL_CODES: tuple[str, ...] = (
    PROVIDER_ERROR,
    NO_SVG_FOUND,
    NOT_TEXT,
    INVALID_UTF8,
    TOO_LARGE,
    EMPTY,
    ENTITY_DECLARATION,
    NOT_WELL_FORMED,
    TOO_DEEP,
    TOO_MANY_ELEMENTS,
    NOT_SVG_ROOT,
    NO_SVG_NAMESPACE,
    EMPTY_ID,
    DUPLICATE_ID,
    INVALID_ATTRIBUTE_SYNTAX,
    INVALID_PATH_SYNTAX,
    ODD_POINTS,
    INVALID_VIEWBOX,
    INVALID_NUMBER,
    UNRESOLVED_REFERENCE,
    USE_CYCLE,
    USE_EXPANSION,
    TARGET_INVALID,
)
"""Every detail code a :class:`~vector_gym.rewards.report.SpecReport` may carry."""
