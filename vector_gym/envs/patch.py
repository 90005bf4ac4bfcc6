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
policy how to answer in each format (system-prompt material for policy templates). They live
with the suites' templates in :mod:`vector_gym.suites.templates`.
"""

from __future__ import annotations

from vector_gym.suites._feedback import editor_feedback
from vector_gym.suites.templates import (
    MULTI_TURN_INSTRUCTIONS,
    PATCH_FORMAT_INSTRUCTIONS,
    SVG_FORMAT_INSTRUCTIONS,
)
from vector_gym.svg.patch import PatchResult, apply_patch, extract_patch

__all__ = [
    "ACTION_FORMATS",
    "PATCH_FORMAT_INSTRUCTIONS",
    "SVG_FORMAT_INSTRUCTIONS",
    "MULTI_TURN_INSTRUCTIONS",
    "decode_patch_action",
    "editor_feedback",
]

ACTION_FORMATS: tuple[str, ...] = ("svg", "patch")

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


