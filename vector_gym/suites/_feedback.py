"""Editor feedback of multi-turn episodes (layer 5): what a person at an editor would see.

Parse and validity errors only (specification-reward reports), or whether an SVG was found and
renders (raster reports); never the target, the requested edits or which checks failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["editor_feedback", "not_scored_feedback"]

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
    if get("produced_parse_ok", None) is None and (
        get("extraction_error", None) is not None or get("parsing_error", None) is not None
    ):  # a raster report (SVGEditBench): found, and renders
        if get("extraction_error", False):
            return _DETAIL_MESSAGES["no_svg_found"]
        if get("parsing_error", False):
            return "The document could not be rendered."
        return "The document renders."
    detail = [d for d in (get("detail", ()) or ()) if d in _DETAIL_MESSAGES]
    messages = " ".join(_DETAIL_MESSAGES[d] for d in detail)
    if not get("produced_parse_ok", False):
        return messages or "The document could not be read."
    if not get("validity_pass", False):
        return "The document parses but is not valid SVG" + (f": {messages}" if messages else ".")
    return "The document parses and is valid SVG."


def not_scored_feedback(why: str, limit: int | None = None) -> str:
    """Feedback for an answer the env did not score (the previous document stays current).

    Parameters
    ----------
    why : {"too_long", "not_text"} or str
        ``"too_long"``: over ``limit`` characters; ``"not_text"``: not a string (its type name
        may follow after a colon, ``"not_text:NoneType"``).

    Examples
    --------
    >>> not_scored_feedback("too_long", 10)
    'The answer is longer than 10 characters and was not read; the document is unchanged.'
    >>> not_scored_feedback("not_text:NoneType")
    'The answer is not text (NoneType) and was not read; the document is unchanged.'
    """
    if why == "too_long":
        return f"The answer is longer than {limit} characters and was not read; the document is unchanged."
    kind = why.partition(":")[2]
    return f"The answer is not text{f' ({kind})' if kind else ''} and was not read; the document is unchanged."
