"""Action formats and editor feedback for the editing environments (layer 5).

Every env accepts ``action_format="svg"`` (the answer holds a whole SVG document; the scorer
extracts it, spec-reward.md §2) or ``action_format="patch"`` (the answer holds a short JSON
edit script, :mod:`vector_gym.svg.patch`, applied to the current SVG before scoring). A patch
that cannot be read or applied scores 0, with ``info["action_error"] = {"reason": one of
vector_gym.svg.patch.REASONS, "message": ...}``.

Multi-turn episodes (``max_turns > 1``) show the policy, after each answer that is not a full
pass, the current SVG and :func:`editor_feedback`: what a person at an editor would see
(whether the document parses and whether it is valid SVG, with the kind of error), never the
target, the requested edits or which checks failed.

The prompt strings :data:`PATCH_FORMAT_INSTRUCTIONS` and :data:`SVG_FORMAT_INSTRUCTIONS` tell a
policy how to answer in each format (system-prompt material for policy templates). They live in
:mod:`vector_gym.svg.patch` so that policies, which must not import envs, can use them too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vector_gym.svg.patch import (
    MULTI_TURN_INSTRUCTIONS,
    PATCH_FORMAT_INSTRUCTIONS,
    SVG_FORMAT_INSTRUCTIONS,
    PatchResult,
    apply_patch,
    extract_patch,
)

__all__ = [
    "ACTION_FORMATS",
    "PATCH_FORMAT_INSTRUCTIONS",
    "SVG_FORMAT_INSTRUCTIONS",
    "MULTI_TURN_INSTRUCTIONS",
    "decode_patch_action",
    "editor_feedback",
]

ACTION_FORMATS: tuple[str, ...] = ("svg", "patch")

_DETAIL_MESSAGES = {
    "no_svg_found": "No SVG document was found in the answer.",
    "empty": "The document is empty.",
    "too_large": "The document is too large to open.",
    "invalid_utf8": "The document is not valid UTF-8 text.",
    "not_text": "The answer is not text.",
    "entity_declaration": "The document declares XML entities, which are not allowed.",
    "not_well_formed": "The document is not well-formed XML (unclosed or mismatched tags, or stray characters).",
    "too_deep": "The document nests elements too deeply.",
    "too_many_elements": "The document has too many elements.",
    "not_svg_root": "The root element is not <svg>.",
    "empty_id": "An element has an empty id.",
    "duplicate_id": "Two elements share the same id.",
    "invalid_attribute_syntax": "An attribute value has a syntax error (style, transform, points or viewBox).",
    "invalid_path_syntax": "Path data (d) has a syntax error.",
    "odd_points": "A points list has an odd number of coordinates.",
    "invalid_viewbox": "A viewBox does not hold four numbers with positive width and height.",
    "unresolved_reference": "A reference (url(#...) or href) points to an id that does not exist.",
}


def decode_patch_action(response: str, current_svg: str) -> PatchResult:
    """Extract a patch from a response and apply it to ``current_svg``.

    Returns
    -------
    PatchResult
        ``svg`` = the patched document to score, or a failure ``reason`` (never raises).

    Examples
    --------
    >>> src = '<svg xmlns="http://www.w3.org/2000/svg"><rect id="a" x="1"/></svg>'
    >>> decode_patch_action('```json\\n[{"set": "a", "x": "4"}]\\n```', src).svg
    '<svg xmlns="http://www.w3.org/2000/svg"><rect id="a" x="4"/></svg>'
    >>> decode_patch_action("I would move it.", src).reason
    'patch_not_found'
    """
    text = extract_patch(response)
    if text is None:
        return PatchResult(None, "patch_not_found", "no JSON edit script found in the answer")
    return apply_patch(current_svg, text)


def editor_feedback(report: Any, action_error: Mapping[str, str] | None = None) -> str:
    """Describe an answer the way an editor would: parse and validity errors only.

    Parameters
    ----------
    report : SpecReport-like or dict
        Reads only ``produced_parse_ok``, ``validity_pass`` and ``detail`` (never the checks,
        the target or the requested edits).
    action_error : mapping, optional
        ``{"reason", "message"}`` of a patch that could not be applied.

    Returns
    -------
    str
        One or more sentences.

    Examples
    --------
    >>> editor_feedback({"produced_parse_ok": True, "validity_pass": False, "detail": ["duplicate_id"]})
    'The document parses but is not valid SVG: Two elements share the same id.'
    >>> editor_feedback({}, {"reason": "patch_unknown_id", "message": "edit 0: no element has id 'x'"})
    "The edit script could not be applied (edit 0: no element has id 'x'); the document is unchanged."
    """
    if action_error:
        return (
            f"The edit script could not be applied ({action_error.get('message') or action_error.get('reason')}); "
            "the document is unchanged."
        )
    get = report.get if isinstance(report, Mapping) else (lambda k, d=None: getattr(report, k, d))
    detail = [d for d in (get("detail", ()) or ()) if d in _DETAIL_MESSAGES]
    messages = " ".join(_DETAIL_MESSAGES[d] for d in detail)
    if not get("produced_parse_ok", False):
        return messages or "The document could not be read."
    if not get("validity_pass", False):
        return "The document parses but is not valid SVG" + (f": {messages}" if messages else ".")
    return "The document parses and is valid SVG."
