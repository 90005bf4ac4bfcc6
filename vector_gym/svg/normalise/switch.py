"""``<switch>`` (contract item 6): the first child whose conditional attributes pass."""

from __future__ import annotations


def _switch_ok(el) -> bool:
    if el.get("requiredExtensions") is not None and el.get("requiredExtensions").strip():
        return False
    lang = el.get("systemLanguage")
    if lang is not None:
        langs = [x.strip().lower() for x in lang.split(",")]
        if not any(x == "en" or x.startswith("en-") for x in langs):
            return False
    return True
