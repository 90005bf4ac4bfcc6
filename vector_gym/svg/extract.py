"""Extraction of the SVG document from a model response (spec-reward.md §2).

Three rules:

``rule="reference"``
    Exactly the published study's runner (spec §2): (1) the *fenced route*: the leftmost
    ```` ``` ```` optionally followed directly by ``svg``/``xml`` (any case), optional whitespace and
    ``<svg``, such that some later ``</svg>`` is followed (after optional whitespace) by
    ```` ``` ````; the span from that ``<svg`` through the **earliest** such ``</svg>``, trimmed;
    else (2) the first case-insensitive ``<svg`` through the nearest following ``</svg>``, trimmed;
    else (3) the whole response, trimmed. It never returns ``None`` for a string. Consequences
    (all kept, spec §2/§16 item 11): a draft earlier in the text beats the final answer, a nested
    ``<svg>`` outside a fence truncates the answer, an XML declaration is dropped, ``<SVG>`` and
    ``<svgx`` match. The same semantics as the runner's regular expressions, computed by linear
    scans (the regexes are quadratic on hostile inputs).

``rule="svgeditbench-v2"``
    The SVGEditBench V2 scripts' rule (:func:`extract_svg_v2`, metrics-svgeditbench.md): exactly
    one ```` ```svg ```` block (fence + newline, body without backticks), else exactly one bare
    ``<svg ... </svg>`` (non-greedy); anything else is an extraction failure (``None``).

``rule="default"`` (ours, for RL)
    1. Drop reasoning: everything up to the last ``</think>`` or ``</reasoning>`` (models whose chat
       template opens the block), and an unclosed ``<think>``/``<reasoning>`` block (lower, upper
       or title case) to the end.
    2. Among fenced blocks (```` ``` ```` pairs) labelled ``svg``, ``xml`` or nothing (any case)
       that contain a complete ``<svg`` root, take the **last** one: the final answer beats drafts.
    3. Otherwise the **last** complete top-level ``<svg …>…</svg>`` span of the whole text, found by
       balanced depth counting of ``<svg``/``</svg>`` tags, so a nested ``<svg>`` survives; a
       self-closing top-level ``<svg …/>`` counts.
    4. An XML declaration (and a DOCTYPE) immediately before the root is kept.
    5. No complete root → ``None`` ("no SVG"): a truncated answer is not scored as markup.

    Why: RL policies think before answering and often draft; "first match" would score a draft
    or a fragment of the reasoning, and truncation at an inner ``</svg>`` punishes valid nested
    documents. Tags are matched case-sensitively (XML is case-sensitive: ``<SVG>`` is not SVG).
    Every step is a linear scan, so a 50 MB response is handled in well under a second; a
    response with more than :data:`MAX_SVG_TAGS` svg tags is treated as holding no SVG, and one
    with more than :data:`MAX_FENCES` fences skips the fenced route.
"""

from __future__ import annotations

import re

__all__ = ["extract_svg", "extract_svg_v2", "RULES", "MAX_SVG_TAGS", "MAX_FENCES"]

RULES: tuple[str, ...] = ("default", "reference", "svgeditbench-v2")
"""Accepted values of ``extract_svg(..., rule=...)``."""

# --- reference rule (spec §2) -------------------------------------------------------------------
# Openings: every backtick position p where ```(?:svg|xml)?\s*<svg matches (IGNORECASE as in the
# runner); the lookahead makes overlapping positions (```` ```` ````) all visible.
_REF_OPEN = re.compile(r"(?=```(?:svg|xml)?\s*(<svg))", re.IGNORECASE)
_REF_CLOSE_FENCED = re.compile(r"</svg>(?=\s*```)", re.IGNORECASE)
_REF_SVG_OPEN = re.compile(r"<svg", re.IGNORECASE)
_REF_SVG_CLOSE = re.compile(r"</svg>", re.IGNORECASE)


def _extract_reference(text: str) -> str:
    # Rule 1. Only the leftmost opening matters: if no fenced close follows *its* ``<svg``, none
    # follows any later opening either, so one forward search settles the rule (linear time).
    m = _REF_OPEN.search(text)
    if m is not None:
        s = m.start(1)
        c = _REF_CLOSE_FENCED.search(text, s + 4)
        if c is not None:
            return text[s : c.end()].strip()
    # Rule 2: first <svg, nearest following </svg> (the lazy regex, without its quadratic retry).
    m = _REF_SVG_OPEN.search(text)
    if m is not None:
        c = _REF_SVG_CLOSE.search(text, m.end())
        if c is not None:
            return text[m.start() : c.end()].strip()
    return text.strip()


# --- default rule (ours) ------------------------------------------------------------------------
_THINK_CLOSE = re.compile(r"</(?:think|reasoning)\s*>", re.IGNORECASE)
# Greedy ``.*`` then backtracking from the end finds the *last* closing tag in C.
_LAST_THINK_CLOSE = re.compile(r"(?s:.*)</(?:think|reasoning)\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(?:think|reasoning)\s*>", re.IGNORECASE)
# Literal spellings looked for first: ``str.find`` is far faster than a case-insensitive regex
# whose only literal prefix is ``<`` (50 MB of ``<`` would take ~0.6 s).
_THINK_OPEN_HINTS = ("<think", "<reasoning", "<THINK", "<REASONING", "<Think", "<Reasoning")
# Two literal-prefix patterns (fast C prefix search), merged by position.
_SVG_OPEN_AT = re.compile(r"<svg(?=[\s>/])")
# An opening tag up to its '>', quote-aware; searched only up to the next '<' (never inside a
# well-formed attribute value), which keeps the whole scan linear.
_OPEN_TAG = re.compile(r"""<svg(?:[^>"'<]++|"[^"<]*+"|'[^'<]*+')*+>""")
_CLOSE_TAG = re.compile(r"</svg\s*>")
_FENCE = re.compile(r"```+")
_FENCE_LABEL = re.compile(r"[ \t]*([A-Za-z0-9_+.-]*)")
_XML_DECL_TAIL = re.compile(r"<\?xml[^<>]*\?>\s*\Z")
_DOCTYPE_TAIL = re.compile(r"<!DOCTYPE[^<>\[\]]*(?:\[[^\]]*\])?\s*>\s*\Z")
_PRELUDE_WINDOW = 4096

MAX_SVG_TAGS = 10_000
"""Default rule: a response with more ``<svg``/``</svg>`` tags than this holds no SVG (hostile)."""
MAX_FENCES = 2_000
"""Default rule: with more ```` ``` ```` fences than this, the fenced route is skipped (hostile)."""


def _strip_reasoning(text: str) -> str:
    if _THINK_CLOSE.search(text) is not None:
        text = text[_LAST_THINK_CLOSE.match(text).end() :]
    hits = [i for i in (text.find(h) for h in _THINK_OPEN_HINTS) if i >= 0]
    if hits:
        m = _THINK_OPEN.search(text, min(hits))
        if m is not None:
            text = text[: m.start()]
    return text


def _last_root_span(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Last complete top-level <svg>…</svg> (or <svg/>) span within text[lo:hi]."""
    opens = [m.start() for m in _SVG_OPEN_AT.finditer(text, lo, hi)]
    if not opens:
        return None
    closes = [(m.start(), m.end()) for m in _CLOSE_TAG.finditer(text, lo, hi)]
    events = sorted([(p, -1) for p in opens] + closes)
    depth = 0
    start = -1
    best = None
    for p, end in events:
        if end >= 0:  # closing tag
            if depth == 0:
                continue
            depth -= 1
            if depth == 0:
                best = (start, end)
            continue
        nxt = text.find("<", p + 1, hi)
        t = _OPEN_TAG.match(text, p, hi if nxt < 0 else nxt)
        if t is None:
            continue  # not a complete tag (truncated, or '<' inside it)
        if text[t.end() - 2] == "/":  # self-closing
            if depth == 0:
                best = (p, t.end())
            continue
        if depth == 0:
            start = p
        depth += 1
    return best


def _with_prelude(text: str, start: int, lo: int) -> int:
    """Move ``start`` back over an XML declaration and/or DOCTYPE directly before it."""
    window_lo = max(lo, start - _PRELUDE_WINDOW)
    head = text[window_lo:start]
    m = _DOCTYPE_TAIL.search(head)
    if m is not None:
        head = head[: m.start()]
        start = window_lo + m.start()
    m = _XML_DECL_TAIL.search(head)
    if m is not None:
        start = window_lo + m.start()
    return start


def _extract_default(text: str) -> str | None:
    text = _strip_reasoning(text)
    if text.count("<svg") + text.count("</svg") > MAX_SVG_TAGS:
        return None
    chosen = None
    fences = [] if text.count("```") > 3 * MAX_FENCES else [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    if len(fences) > MAX_FENCES:
        fences = []
    for k in range(0, len(fences) - 1, 2):
        (_, open_end), (close_start, _) = fences[k], fences[k + 1]
        lab = _FENCE_LABEL.match(text, open_end, close_start)
        label = lab.group(1).lower() if lab else ""
        if label not in ("", "svg", "xml"):
            continue
        body_lo = lab.end() if lab else open_end
        span = _last_root_span(text, body_lo, close_start)
        if span is not None:
            chosen = (span, body_lo)
    if chosen is None:
        span = _last_root_span(text, 0, len(text))
        if span is None:
            return None
        chosen = (span, 0)
    (start, end), lo = chosen
    return text[_with_prelude(text, start, lo) : end]


_FENCE_OPEN = "```svg\n"


def extract_svg_v2(response: str) -> tuple[str | None, str | None]:
    """Extract the SVG as the SVGEditBench V2 scripts do; returns ``(svg, None)`` or ``(None, detail)``.

    Rule (upstream ``parse_response``): the non-overlapping matches of
    ```` ```svg\\n[^`]+?``` ```` (a fence opening ``svg`` plus newline, a body without
    backticks, a closing fence); exactly one: its inside; two or more: failure
    (``"multiple_svg_blocks"``); none: the non-overlapping non-greedy matches of
    ``<svg[\\s\\S]+?</svg>``; exactly one: that text, otherwise failure
    (``"no_svg_found"`` / ``"multiple_svg_documents"``). Computed by linear scans
    (the regular expressions are quadratic on hostile inputs); never raises.

    Examples
    --------
    >>> extract_svg_v2("Sure:\\n```svg\\n<svg/>\\n```")
    ('<svg/>\\n', None)
    >>> extract_svg_v2("<svg>a</svg> and <svg>b</svg>")
    (None, 'multiple_svg_documents')
    >>> extract_svg_v2("no svg here")
    (None, 'no_svg_found')
    """
    if not isinstance(response, str):
        return None, "no_svg_found"
    blocks: list[str] = []
    pos = 0
    while True:
        i = response.find(_FENCE_OPEN, pos)
        if i < 0:
            break
        body = i + len(_FENCE_OPEN)
        k = response.find("`", body)
        if k > body and response.startswith("```", k):
            blocks.append(response[body:k])
            pos = k + 3
            if len(blocks) > 1:
                return None, "multiple_svg_blocks"
        else:
            pos = i + 1
    if len(blocks) == 1:
        return blocks[0], None
    docs: list[str] = []
    pos = 0
    while True:
        i = response.find("<svg", pos)
        if i < 0:
            break
        j = response.find("</svg>", i + 5)
        if j < 0:
            break
        docs.append(response[i : j + 6])
        pos = j + 6
        if len(docs) > 1:
            return None, "multiple_svg_documents"
    if len(docs) == 1:
        return docs[0], None
    return None, "no_svg_found"


def extract_svg(response: str, rule: str = "default") -> str | None:
    """Extract the SVG document text from a model response (spec §2).

    Parameters
    ----------
    response : str
        The raw completion text.
    rule : {"default", "reference", "svgeditbench-v2"}
        ``"reference"``: the published runner's rule, exactly (spec §2); ``"default"``: ours
        (last fenced/complete root, reasoning dropped). See the module docstring.

    Returns
    -------
    str or None
        The extracted text. ``None`` when ``response`` is not a ``str``, or, under the default
        rule, when it holds no complete ``<svg>`` root. The reference rule returns the trimmed
        response when it finds no SVG.

    Raises
    ------
    ValueError
        For an unknown ``rule`` (a programmer error).

    Examples
    --------
    >>> extract_svg("Draft: <svg><g/></svg> Final: ```svg\\n<svg><rect/></svg>\\n```")
    '<svg><rect/></svg>'
    >>> extract_svg("Draft: <svg><g/></svg> Final: <svg><rect/></svg>", rule="reference")
    '<svg><g/></svg>'
    >>> extract_svg("<svg><svg/></svg>"), extract_svg("<svg><svg></svg></svg>", rule="reference")
    ('<svg><svg/></svg>', '<svg><svg></svg>')
    >>> extract_svg("sorry, <svg width='1'") is None
    True
    """
    if rule not in RULES:
        raise ValueError(f"extract_svg: expected rule in {RULES}, got {rule!r}")
    if not isinstance(response, str):
        return None
    if rule == "reference":
        return _extract_reference(response)
    if rule == "svgeditbench-v2":
        return extract_svg_v2(response)[0]
    return _extract_default(response)
