"""The chat templates and prompt text of the built-in suites (issue 9: they left
``vector_gym.policies.templates`` and ``vector_gym.svg.patch``).

Templates are data (:class:`~vector_gym.policies.templates.ChatTemplate`); each suite names its
own (``Suite.templates``) and registering a suite makes them its family's defaults for the
policies (``policies.templates.register_family``). Following each benchmark's published
prompting protocol (``docs/protocols.md``):

* ``VECTOR_BENCH`` - a system message with the four rules of the published study, in our own
  words, and a user message ``Repair request:`` / instruction / blank line / ``Corrupted SVG:`` /
  source SVG as is;
* ``SVGEDITBENCH_V2`` - one user message: ``The following is the SVG code representing an image.
  {instruction} Only return the output SVG code.``, a blank line, then the source in a ```svg fence;
* ``SVGEDITBENCH_V1`` - the stored prompt of each case as one user message;
* ``*_PATCH`` - the same framing with :data:`PATCH_FORMAT_INSTRUCTIONS` (a JSON edit script) in
  place of the "return one complete SVG" rule.
"""

from __future__ import annotations

from vector_gym.policies.templates import MULTI_TURN_INSTRUCTIONS, ChatTemplate

__all__ = [
    "ChatTemplate",
    "MULTI_TURN_INSTRUCTIONS",
    "PATCH_FORMAT_INSTRUCTIONS",
    "SVG_FORMAT_INSTRUCTIONS",
    "SVGEDITBENCH_V1",
    "SVGEDITBENCH_V1_PATCH",
    "SVGEDITBENCH_V2",
    "SVGEDITBENCH_V2_PATCH",
    "VECTOR_BENCH",
    "VECTOR_BENCH_PATCH",
]

SVG_FORMAT_INSTRUCTIONS = (
    "Answer with exactly one complete, valid SVG document (from <svg to </svg>) that makes the "
    "requested repairs and leaves every other part of the document unchanged. Do not add "
    "Markdown or prose."
)

PATCH_FORMAT_INSTRUCTIONS = """\
Answer with a JSON edit script, not the whole SVG. The script is a JSON list of edits, applied \
in order to the SVG you were given; elements are named by their id attribute ("__svg" is the \
root element):
  {"set": "ID", "ATTRIBUTE": "VALUE", ...}       set attributes of an element (null removes one)
  {"delete": "ID"}                               delete an element and everything inside it
  {"insert": "<SVG MARKUP/>", "after": "ID"}     insert new elements after an element
                                                 (or "before": "ID", or "parent": "ID" to append)
Example: [{"set": "door", "x": "128"}, {"delete": "stray-mark"}]
Change only what the request asks for; every other element must stay exactly as it is. \
Return only the JSON list (a ```json fenced block is fine)."""


# Our wording of the four rules of the published Vector-Bench system message
# (docs/protocols.md, "Vector-Bench"): repair from a visual request; one complete
# valid <svg> document; requested repairs only, everything else preserved; no
# Markdown or explanation.
_VECTOR_BENCH_SYSTEM = (
    "You are repairing an SVG document according to a request that describes a visible defect. "
    "Reply with exactly one complete, valid SVG document, from <svg to </svg>. "
    "Make the repairs the request asks for and leave every part it does not mention unchanged. "
    "Do not add Markdown, code fences or any explanation."
)


def _literal(text: str) -> str:
    """Escape braces so that ``text`` survives :meth:`str.format` unchanged."""
    return text.replace("{", "{{").replace("}", "}}")


#: Later turns of a Vector-Bench-style multi-turn episode: the request, the current
#: document (the last answer, or the source after an unappliable patch) and the feedback.
_VECTOR_BENCH_FOLLOWUP = (
    "Repair request:\n{instruction}\n\nCurrent SVG (after your last answer):\n{svg}"
    "\n\nEditor feedback:\n{feedback}"
)

VECTOR_BENCH = ChatTemplate(
    name="vector-bench",
    system=_VECTOR_BENCH_SYSTEM,
    user="Repair request:\n{instruction}\n\nCorrupted SVG:\n{svg}",
    followup=_VECTOR_BENCH_FOLLOWUP,
)
"""Vector-Bench protocol (docs/protocols.md): system rules + repair request + corrupted SVG."""

# The published study asked for whole documents only; the patch variant keeps its task
# framing and preservation rule and replaces the output rule by the edit-script syntax.
_VECTOR_BENCH_PATCH_SYSTEM = (
    "You are repairing an SVG document according to a request that describes a visible defect. "
    + PATCH_FORMAT_INSTRUCTIONS
)

VECTOR_BENCH_PATCH = ChatTemplate(
    name="vector-bench-patch",
    system=_literal(_VECTOR_BENCH_PATCH_SYSTEM),
    user="Repair request:\n{instruction}\n\nCorrupted SVG:\n{svg}",
    followup=_VECTOR_BENCH_FOLLOWUP,
)
"""Vector-Bench framing with a JSON edit script as the answer (``action_format="patch"``)."""

SVGEDITBENCH_V2 = ChatTemplate(
    name="svgeditbench-v2",
    user=(
        "The following is the SVG code representing an image. {instruction} "
        "Only return the output SVG code.\n\n```svg\n{svg}\n```"
    ),
    followup=(
        "The following is the SVG code representing an image. {instruction} "
        "Only return the output SVG code.\n\n```svg\n{svg}\n```"
        "\n\nEditor feedback on your last answer:\n{feedback}"
    ),
)
"""SVGEditBench V2 protocol (docs/protocols.md): one user message, source in a ```svg fence."""

SVGEDITBENCH_V2_PATCH = ChatTemplate(
    name="svgeditbench-v2-patch",
    user=(
        "The following is the SVG code representing an image. {instruction}\n\n"
        + _literal(PATCH_FORMAT_INSTRUCTIONS)
        + "\n\n```svg\n{svg}\n```"
    ),
)
"""SVGEditBench V2 framing with a JSON edit script as the answer (``action_format="patch"``)."""

SVGEDITBENCH_V1 = ChatTemplate(
    name="svgeditbench-v1",
    user="{instruction}",
    # The stored prompt embeds the *source* SVG; later turns show the current document.
    followup=(
        "{instruction}\n\nYour last answer produced this SVG:\n```svg\n{svg}\n```"
        "\n\nEditor feedback on your last answer:\n{feedback}"
    ),
)
"""SVGEditBench v1 protocol (docs/protocols.md): the case's stored prompt as one user message."""

SVGEDITBENCH_V1_PATCH = ChatTemplate(
    name="svgeditbench-v1-patch",
    # The stored prompt asks for SVG code; the system message overrides the answer format.
    system=_literal(PATCH_FORMAT_INSTRUCTIONS),
    user="{instruction}",
    followup=SVGEDITBENCH_V1.followup,
)
"""SVGEditBench v1 stored prompt with a JSON edit script as the answer (``action_format="patch"``)."""
