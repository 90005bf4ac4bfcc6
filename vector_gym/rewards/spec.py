"""The Vector-Bench three-gate specification reward (spec-reward.md §3–§12).

``reward = 1`` iff the produced SVG is **valid** (§10), every requested edit in E **passed** its
tolerance check (§8, the repair gate), and the masked documents are **semantically equal**
(§9, §5, the preservation gate). Dense diagnostics ride along: ``repair_progress`` (mean
per-check progress q, §8.4), ``near_pass``, UCR over the protected ids U (§11.1), the canonical
``structural`` match and ``exact`` string match (§11.2).

Two modes (spec §16):

``parity=False`` (default, for RL)
    Our fixes of the reference's defects: a non-finite distance gives q = 0 (§16 item 7);
    numbers are read with the strict §4.2 grammar, so ``x="nan"``, ``"inf"``, ``"1_0"`` are not
    numbers: such a check fails with undefined progress (counted 0); an inserted polygon or
    polyline must have exactly the target's number of coordinates (item 19); a path whose
    implicit repeat is cut short is invalid instead of silently truncated (item 22); responses
    are extracted with our default rule (§2, :func:`vector_gym.svg.extract.extract_svg`).
``parity=True``
    Reproduces the reference evaluator bit for bit on the published outcomes: Python ``float()``
    readings, NaN progress 1, pairwise truncation of inserted points, silent path truncation and
    the reference extraction rule.

In both modes a ``Z`` before any moveto and an arc flag other than ``0``/``1`` are invalid path
syntax (the reference crashes, §16 item 8), and a hostile output (entity declarations, huge or
deeply nested documents, invalid UTF-8, a produced SVG over 4x the task's size with a 256 KiB
floor: :func:`produced_limits`) is a parse failure with a named detail code, never an exception.

Examples
--------
>>> from vector_gym.tasks import load_vector_bench
>>> task = load_vector_bench()[0]
>>> r = score(task, task.target_svg)
>>> r.reward, r.status, r.edit_completion, r.unintended_change_rate
(1.0, 'PASS', 1.0, 0.0)
>>> r = score(task, "<svg><g></svg>")
>>> r.reward, r.produced_parse_ok, r.detail
(0.0, False, ('not_well_formed',))
"""

from __future__ import annotations

import gc
import math
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from vector_gym.errors import SVGParseError
from vector_gym.rewards import failures as F
from vector_gym.rewards._spec_compare import (
    ColorCheck,
    ListCheck,
    Match,
    PathSide,
    ScalarCheck,
    Viewport,
    color_delta,
    compare_canonical,
    compare_color,
    compare_exact,
    compare_list,
    compare_path,
    compare_scalar,
    coord_delta,
    visual,
)
from vector_gym.rewards._spec_lookup import ROOT_PART, IdIndex, corresponding, read_value
from vector_gym.rewards._spec_mask import mask_produced, target_states
from vector_gym.rewards._spec_validity import check_validity
from vector_gym.rewards.report import CheckReport, SpecReport
from vector_gym.svg.canonical import (
    REFERENCE,
    SVG2,
    Node,
    canonical_equal,
    parse_node,
    release,
)
from vector_gym.svg.color import COLOR_ATTRIBUTES
from vector_gym.svg.extract import extract_svg
from vector_gym.svg.geometry import path_distance
from vector_gym.svg.parse import ParseLimits, fold_ws, parse_svg, surely_not_well_formed
from vector_gym.svg.semantic import (
    aliases,
    cache_semantic_maps,
    lazy_aliases,
    semantic_attributes,
    semantic_differences,
    semantic_differences_and_canonical_equal,
    semantic_equal_with,
    uses_aliases,
)
from vector_gym.svg.viewbox import viewport_size
from vector_gym.tasks.task import RequestedEdit, Task

__all__ = [
    "SpecRewardScorer",
    "SpecScorer",
    "get_scorer",
    "prepare_scorers",
    "score",
    "score_response",
    "score_many",
    "NEAR_PASS_PROGRESS",
    "PRODUCED_LIMITS",
    "PRODUCED_MAX_BYTES",
    "PRODUCED_SIZE_FACTOR",
    "produced_limits",
    "MAX_RESPONSE_CHARS",
]

NEAR_PASS_PROGRESS = 0.80
"""``near_pass`` needs ``repair_progress >= 0.80`` (spec §11)."""

PRODUCED_LIMITS = ParseLimits(max_bytes=1 << 18)
"""Floor of the produced-SVG parse limits (:func:`produced_limits`): 256 KiB of UTF-8 (detail
``too_large``), twice the env's default action length (131,072 characters) and 15x the longest
published Vector-Bench output (16,830 characters). Scoring cost grows with the size: at the generic
4 MB parse limit one path of 1,000,000 segments took ~1.7 s and ~620 MB, 100,000 elliptical arcs
~9 s (review R1); at 256 KiB every such document scores in well under 2 s and 200 MB."""

PRODUCED_SIZE_FACTOR = 4
"""A produced SVG may be this many times the larger of the task's source and target (UTF-8)."""

PRODUCED_MAX_BYTES = ParseLimits().max_bytes
"""Hard ceiling of the produced-SVG limit: 4,000,000 bytes, the generic parse limit that task
documents themselves are read with, so no task's own target is ever ``too_large``."""


def produced_limits(source_svg: str, target_svg: str) -> ParseLimits:
    """Parse limits of a produced SVG for a task with these source and target documents.

    ``max_bytes = clamp(PRODUCED_SIZE_FACTOR * max(|source|, |target|), 256 KiB,
    PRODUCED_MAX_BYTES)`` with sizes in UTF-8 bytes: a bound relative to the task, so a large
    scene's correct answer is never rejected, while every produced SVG of a Vector-Bench-sized
    task keeps the 256 KiB floor (:data:`PRODUCED_LIMITS`). Depth and element-count bounds are the
    generic ones. Scoring time and memory grow linearly with the bound (see
    :data:`PRODUCED_LIMITS`), so a hostile output costs at most 4x what the task itself costs.

    >>> produced_limits("<svg/>", "<svg/>").max_bytes
    262144
    >>> produced_limits("x" * 100_000, "").max_bytes
    400000
    """
    size = max(len(source_svg.encode("utf-8", "replace")), len(target_svg.encode("utf-8", "replace")))
    n = min(PRODUCED_MAX_BYTES, max(PRODUCED_LIMITS.max_bytes, PRODUCED_SIZE_FACTOR * size))
    return PRODUCED_LIMITS if n == PRODUCED_LIMITS.max_bytes else ParseLimits(max_bytes=n)


MAX_RESPONSE_CHARS = 1 << 22
"""Longest model response :meth:`SpecScorer.score_response` extracts from: 4 MiB (4,194,304
characters), 16x the produced-SVG limit floor of :data:`PRODUCED_LIMITS` (at least the ceiling
:data:`PRODUCED_MAX_BYTES`) and 249x the longest published
Vector-Bench output (16,830 characters). A longer response scores 0 with detail ``too_large``
before any extraction, in both modes: the reference extraction rule scans the whole response
(a 48 MB response of backticks took ~2 s in parity mode, review F1), so this bound keeps every
response's scoring time bounded. Parity is unaffected: no published response comes near it."""

_ASCII_WS = b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "
"""The ASCII characters ``str.split()`` (so :func:`fold_ws`) treats as whitespace."""


_SEEN_MAX = 256
"""Most produced path texts whose Match a path check keeps (:attr:`_CheckPlan.seen`)."""
_SEEN_CHARS = 2048
"""Longest produced path text kept there (so one check holds at most ~0.5 M characters)."""

_UNPARSED_MAX = 64
"""Most reports of unparsed outputs a scorer keeps (one per detail-code tuple and exact flag)."""


def _r6(x: float | None) -> float | None:
    """Python ``round(x, 6)`` as the reference reports numbers (spec §8.4)."""
    if x is None:
        return None
    if not math.isfinite(x):
        return x
    return round(x, 6)


def compact_equal(data: bytes, compact: bytes) -> bool:
    """``data.translate(None, _ASCII_WS) == compact``, most unequal texts decided from their start.

    Deleting characters maps a concatenation to the concatenation of the parts, so ``data`` is
    compacted in pieces (512 bytes, then doubling) and each piece compared where it must sit in
    ``compact``: an output usually departs from the target early (median: 12% into the bundled
    outputs), so the whole text is rarely compacted (~9 -> ~3 us cold for a 5 kB output).
    """
    at = 0
    start = 0
    size = 512
    n = len(data)
    while start < n:
        piece = data[start : start + size].translate(None, _ASCII_WS)
        if not compact.startswith(piece, at):
            return False
        at += len(piece)
        start += size
        size += size
    return at == len(compact)


def _py_max(a: float, b: float) -> float:
    """Python ``max(a, b)`` (keeps ``a`` unless ``b > a``, so a NaN ``b`` is ignored)."""
    return b if b > a else a


@dataclass(frozen=True, slots=True)
class _CheckPlan:
    """Task-side data of one requested edit, computed once per task."""

    edit: RequestedEdit
    kind: str  # existence | scalar | list | color | path | other
    color_delta: float | None = None
    path_after: PathSide | None = None
    path_delta: float | None = None
    path_delta_c: float | None = None
    known: dict[str, Match] | None = None  # path: Match of the before/after texts
    seen: dict[str, Match] | None = None  # path: Match of produced texts compared before
    check: ScalarCheck | ListCheck | ColorCheck | None = None  # task side of the comparison
    # id(attrib) -> (attrib, report if valid, report if invalid) of the source's and the
    # target's element (SpecScorer._task_reports)
    reports: dict[int, tuple[dict[str, str], CheckReport, CheckReport]] | None = None


class SpecScorer:
    """Score produced SVGs for one task with the specification reward (spec §3–§12).

    Everything that depends only on the task is computed once here: the parsed target and its
    validity, the produced-SVG parse limits (:func:`produced_limits`), the viewport (§8.3), each
    check's baseline δ (path samples of ``before`` and ``after`` included), the masked target T′
    states (§9) and the protected-id lookups.

    Parameters
    ----------
    task : Task
        A Vector-Bench-style task (``target_svg``, ``requested_edits`` E, ``protected_ids`` U).
    parity : bool, default False
        Reproduce the reference's quirks (see the module docstring).

    Examples
    --------
    >>> from vector_gym.tasks import load_vector_bench
    >>> scorer = SpecScorer(load_vector_bench()[0])
    >>> scorer.score(scorer.task.source_svg).repair_progress
    0.0
    >>> scorer.score(None).status
    'ERR'
    """

    def __init__(self, task: Task, parity: bool = False) -> None:
        self.task = task
        self.parity = bool(parity)
        self.target_fold = fold_ws(task.target_svg)
        # The target's non-whitespace bytes: a produced ASCII text whose own differ cannot fold
        # to the same string (a prefilter of the §11.2 exact check, ~20x cheaper than folding).
        self._target_compact = (
            task.target_svg.encode("ascii").translate(None, _ASCII_WS)
            if task.target_svg.isascii()
            else None
        )
        self.produced_limits = produced_limits(task.source_svg, task.target_svg)
        self._unparsed: dict[tuple[tuple[str, ...], bool], SpecReport] = {}
        try:
            lx = parse_svg(task.target_svg)
        except SVGParseError:
            lx = None
        self.viewport = Viewport(*viewport_size(lx))
        self.dialect = REFERENCE if self.parity else SVG2
        source = self._seed(task.source_svg)
        seeded = self._seed(task.target_svg)
        if seeded is not None:
            release(list(seeded.iter()))
        # The target read as outputs are read (to_node(lx)'s tree): after seeding, its elements
        # share the attribute memo's dicts, names and values with every output element that
        # repeats them, so most attribute comparisons of the gates meet identical objects.
        self.target: Node | None = self._read_target(task.target_svg) if lx is not None else None
        self.target_valid = check_validity(self.target, self.parity)[0]
        self.t_index = IdIndex(self.target) if self.target is not None else None
        edits = task.requested_edits
        self.plans = tuple(self._plan(e) for e in edits)
        s_index = IdIndex(source) if source is not None else None
        self.plans = tuple(
            self._task_reports(
                plan,
                [
                    x.find(plan.edit.part) if x is not None else None
                    for x in (self.t_index, s_index)
                ],
            )
            for plan in self.plans
        )
        if source is not None:
            release(list(source.iter()))
        self.t_states = target_states(self.target, edits) if self.target is not None else None
        self.masked_target = self.t_states[-1].root if self.t_states is not None else None
        if self.target is not None:
            # The V maps of the target side, read by every output's walks, made once now.
            cache_semantic_maps(self.target)
            cache_semantic_maps(self.masked_target)
        idx = self.t_index
        self.protected = tuple(
            (u, idx.find(u) if idx is not None else None) for u in task.protected_ids
        )
        # Protected target leaves whose V-equality with a raw-identical produced leaf needs no
        # alias map (no references, not <style> text): the common case of §11.1.
        self._plain_leaf = frozenset(
            id(tn) for _u, tn in self.protected if tn is not None and _plain_leaf(tn)
        )
        # (id, target node, plain leaf, the root part) per protected id, for the §11.1 loop.
        self._protected_plan = tuple(
            (u, tn, tn is not None and id(tn) in self._plain_leaf, u == ROOT_PART)
            for u, tn in self.protected
        )

    # -- task-side precomputation ------------------------------------------------------------

    def _seed(self, svg: str) -> Node | None:
        """Read a task document's elements once now (start-tag attribute memo, validity memo).

        Produced SVGs repeat most elements of the task's source and target, so their per-element
        work (lxml's attribute reads, the validity verdicts) is done at scorer build instead of on
        the first outputs. Returns the document's tree (None when it does not parse); the
        caller releases it.
        """
        try:
            root, nodes, keys = parse_node(svg, dialect=self.dialect, blank_text=False)
        except SVGParseError:
            return None
        check_validity(root, self.parity, nodes, keys)
        return root

    def _read_target(self, svg: str) -> Node:
        """The target tree, ``to_node(parse_svg(svg))`` as :func:`parse_node` reads it."""
        return parse_node(svg, dialect=self.dialect, blank_text=False)[0]

    def _plan(self, e: RequestedEdit) -> _CheckPlan:
        after = e.after
        if isinstance(after, bool):
            return _CheckPlan(e, "existence")
        vp = self.viewport
        if isinstance(after, int | float):
            return _CheckPlan(e, "scalar", check=_task_side(ScalarCheck.of, e.before, after, e.attribute, vp))
        if isinstance(after, list | tuple):
            return _CheckPlan(e, "list", check=_task_side(ListCheck.of, e.before, after, e.attribute, vp))
        if e.attribute in COLOR_ATTRIBUTES:
            cd = color_delta(e.before, after)
            return _CheckPlan(e, "color", color_delta=cd, check=_task_side(ColorCheck.of, after, cd, self.parity))
        if e.attribute == "d":
            a = PathSide.of(after, self.parity)
            b = PathSide.of(e.before, self.parity)
            delta = None
            if a is not None and b is not None and a.samples is not None and b.samples is not None:
                delta = float(path_distance(b.samples, a.samples))
            dc = coord_delta(b, a) if a is not None else None
            known: dict[str, Match] = {}
            if a is not None:
                # The source's and the target's own path (an untouched or a perfect output) are
                # compared once here; compare_path is a pure function of these arguments.
                for text in (e.before, after):
                    if isinstance(text, str):
                        known[text] = compare_path(text, a, delta, dc, self.viewport, self.parity)
            return _CheckPlan(
                e, "path", path_after=a, path_delta=delta, path_delta_c=dc, known=known, seen={}
            )
        return _CheckPlan(e, "other")

    # -- public API ----------------------------------------------------------------------------

    def score(self, produced_svg: str | bytes | None) -> SpecReport:
        """Score one produced SVG document (already extracted from the response).

        Parameters
        ----------
        produced_svg : str, bytes or None
            The SVG text; ``bytes`` must be UTF-8. ``None`` means the provider returned nothing:
            the §12 error defaults (status ``ERR``, detail ``provider_error``).

        Returns
        -------
        SpecReport
            Never raises for any text a policy wrote.
        """
        if produced_svg is None:
            return self._error_report()
        # The cyclic GC is paused for the call: the trees hold parent links, and building tens
        # of thousands of nodes would otherwise trigger repeated full collections (superlinear
        # time on large outputs). A collector the caller disabled stays disabled, and the
        # previous state is restored even on error (no process-wide state changes).
        enabled = gc.isenabled()
        if enabled:
            gc.disable()
        try:
            return self._score(produced_svg)
        finally:
            if enabled:
                gc.enable()

    def score_response(self, response: str | None) -> SpecReport:
        """Extract the SVG from a model response (spec §2), then :meth:`score` it.

        With the default rule, a response holding no complete ``<svg>`` root scores 0 with
        ``failure_reasons == ("invalid_svg",)`` and detail ``no_svg_found``. A response longer
        than :data:`MAX_RESPONSE_CHARS` characters is not extracted from: it scores 0 with all
        three failure reasons and detail ``too_large`` (as an SVG over the parse limit does).
        """
        if response is None:
            return self._error_report()
        if isinstance(response, str | bytes | bytearray) and len(response) > MAX_RESPONSE_CHARS:
            return self._score_tree(None, None, [F.TOO_LARGE])
        if not isinstance(response, str):
            return self.score(response)
        svg = extract_svg(response, rule="reference" if self.parity else "default")
        if svg is None:
            base = self.score("")
            return _replace(base, failure_reasons=(F.INVALID_SVG,), detail=(F.NO_SVG_FOUND,))
        return self.score(svg)

    # -- the scorer ----------------------------------------------------------------------------

    def _error_report(self) -> SpecReport:
        return SpecReport(
            reward=0.0,
            failure_reasons=F.FAILURE_REASONS,
            detail=(F.PROVIDER_ERROR,),
            validity_pass=False,
            repair_pass=False,
            preservation_pass=False,
            source_preservation_pass=False,
            specification_pass=False,
            near_pass=False,
            exact=False,
            structural=False,
            edit_completion=0.0,
            repair_progress=0.0,
            preservation=0.0,
            source_preservation=0.0,
            unintended_change_rate=1.0,
            produced_parse_ok=False,
            produced_valid_svg=False,
            unexpected_changed_parts=(),
            checks=(),
            status="ERR",
            parity=self.parity,
        )

    def _score(self, produced_svg: Any) -> SpecReport:
        detail: list[str] = []
        text: str | None = None
        root: Node | None = None
        if isinstance(produced_svg, bytes | bytearray):
            try:
                text = bytes(produced_svg).decode("utf-8")
            except UnicodeDecodeError:
                detail.append(F.INVALID_UTF8)
        elif isinstance(produced_svg, str):
            text = produced_svg
        else:
            detail.append(F.NOT_TEXT)
        nodes: list[Node] = []
        keys: list[tuple[tuple[str, str], ...]] | None = None
        if text is not None and surely_not_well_formed(text, self.produced_limits):
            # A text cut off mid-document (its last non-blank character is not ">") fails the
            # parse whatever libxml2 would say first: only the detail code enters the report,
            # so the failing parse (~60 us for a 5 kB output) is skipped.
            detail.append(F.NOT_WELL_FORMED)
        elif text is not None:
            try:
                # Texts and tails are compared whitespace-folded only: ignorable blanks unread.
                root, nodes, keys = parse_node(
                    text, self.produced_limits, self.dialect, blank_text=False
                )
            except SVGParseError as exc:
                detail.append(exc.reason if exc.reason in F.DETAIL_CODES else F.NOT_WELL_FORMED)
            except (RecursionError, MemoryError, ValueError):  # defensive: never raise
                detail.append(F.NOT_WELL_FORMED)
        try:
            return self._score_tree(root, text, detail, nodes, keys)
        finally:
            # The produced tree is private to this call: free it now (its parent links are
            # cycles), so the next score reuses warm memory instead of the GC sweeping later.
            release(nodes)

    def _score_tree(
        self,
        P: Node | None,
        text: str | None,
        detail: list[str],
        nodes: list[Node] | None = None,
        keys: list[tuple[tuple[str, str], ...]] | None = None,
    ) -> SpecReport:
        if P is None:
            # Without a tree the report is a function of the detail codes so far and the §11.2
            # exact match alone (every check reads a missing node, every protected id fails):
            # one report per (codes, exact) pair, built once (reports are immutable).
            key = (tuple(detail), text is not None and F.TOO_LARGE not in detail and self._exact(text))
            report = self._unparsed.get(key)
            if report is None:
                if len(self._unparsed) >= _UNPARSED_MAX:
                    self._unparsed.clear()
                report = self._unparsed[key] = self._score_parsed(None, text, detail, None, None)
            return report
        return self._score_parsed(P, text, detail, nodes, keys)

    def _score_parsed(
        self,
        P: Node | None,
        text: str | None,
        detail: list[str],
        nodes: list[Node] | None,
        keys: list[tuple[tuple[str, str], ...]] | None,
    ) -> SpecReport:
        parity = self.parity
        T = self.target
        t_index = self.t_index
        valid, vdetail, by_id = check_validity(P, parity, nodes or None, keys if nodes else None)
        detail.extend(vdetail)
        if not self.target_valid:
            detail.append(F.TARGET_INVALID)
        p_index = IdIndex(P, by_id) if P is not None else None

        # -- requested edits (§7, §8) --
        checks: list[CheckReport] = []
        passed_count = 0
        q_sum = 0.0
        for plan in self.plans:
            c = self._check(plan, P, p_index, valid)
            checks.append(c)
            if c.passed:
                passed_count += 1
            if c.progress is not None:
                q_sum += c.progress
        n_e = len(self.plans)
        edit_completion = passed_count / n_e if n_e else 1.0
        repair_progress = q_sum / n_e if n_e else 1.0
        repair_pass = valid and passed_count == n_e

        # -- protected ids U (§11.1), on the full unmasked documents --
        failing_u: list[str] = []
        source_hits = 0
        n_u = len(self.protected)
        if n_u:
            if P is not None and T is not None:
                ap, at = lazy_aliases(P, T)
                strict = not self.parity
                # p_index.find(u) inlined: the index is pristine until masking (below), so the
                # first node of each id is the answer.
                first = p_index.first_by_id()
                for u, tn, plain, is_root in self._protected_plan:
                    if tn is None:
                        failing_u.append(u)
                        continue
                    if is_root:
                        pn_id = P
                    else:
                        lst = first(u)
                        pn_id = lst[0] if lst else None
                    pn = (
                        pn_id
                        if pn_id is not None
                        else corresponding(p_index, t_index, u, strict=strict)
                    )
                    if pn is None:
                        failing_u.append(u)
                        continue
                    if (
                        plain
                        and pn_id is not None
                        and not pn.children
                        and pn.tag == tn.tag
                        and (pn.attrib is tn.attrib or pn.attrib == tn.attrib)
                        and pn.text == tn.text
                        and pn.tail == tn.tail
                    ):
                        # A raw-identical leaf: V- and C-equal (pn is pn_id: found by id).
                        source_hits += 1
                        continue
                    if not semantic_equal_with(pn, tn, ap, at):
                        failing_u.append(u)
                    if pn_id is not None and canonical_equal(pn_id, tn):
                        source_hits += 1
            else:
                failing_u = [u for u, _ in self.protected]
        ucr = len(failing_u) / n_u if n_u else 0.0
        preservation = 1.0 - ucr
        if not n_u:
            source_preservation = 1.0
        elif P is None or T is None:
            source_preservation = 0.0
        else:
            source_preservation = source_hits / n_u

        # -- diagnostics (§11.2) --
        structural = P is not None and T is not None and canonical_equal(P, T)
        exact = text is not None and F.TOO_LARGE not in detail and self._exact(text)

        # -- masked whole-document gates (§9), P is consumed here --
        if P is not None and T is not None:
            Pm = mask_produced(
                P, self.task.requested_edits, self.t_states, p_index, strict=not self.parity
            )
            Tm = self.masked_target
            ap2, at2 = lazy_aliases(Pm, Tm)
            # source_preservation_pass needs validity too: C-compare only when it can pass.
            if valid and self.target_valid:
                diffs, c_equal = semantic_differences_and_canonical_equal(Pm, Tm, ap2, at2)
            else:
                diffs, c_equal = semantic_differences(Pm, Tm, ap2, at2), False
            v_equal = not diffs
        else:
            diffs = ["__document__"]
            v_equal = c_equal = False
        preservation_pass = valid and self.target_valid and v_equal
        source_preservation_pass = valid and self.target_valid and c_equal
        specification_pass = valid and repair_pass and preservation_pass
        near_pass = (
            valid
            and preservation_pass
            and not repair_pass
            and n_e > 0
            and passed_count >= n_e - 1
            and repair_progress >= NEAR_PASS_PROGRESS
        )
        reasons = []
        if not valid:
            reasons.append(F.INVALID_SVG)
        if not repair_pass:
            reasons.append(F.REQUESTED_REPAIRS_INCOMPLETE)
        if not preservation_pass:
            reasons.append(F.UNINTENDED_DOCUMENT_CHANGES)
        if specification_pass:
            status = "PASS"
        elif not valid:
            status = "INVALID"
        elif repair_pass and not preservation_pass:
            status = "SIDE_EFFECTS"
        elif near_pass:
            status = "NEAR"
        elif edit_completion > 0:
            status = "PARTIAL"
        else:
            status = "FAIL"
        return SpecReport(
            reward=1.0 if specification_pass else 0.0,
            failure_reasons=tuple(reasons),
            detail=tuple(dict.fromkeys(detail)),
            validity_pass=valid,
            repair_pass=repair_pass,
            preservation_pass=preservation_pass,
            source_preservation_pass=source_preservation_pass,
            specification_pass=specification_pass,
            near_pass=near_pass,
            exact=exact,
            structural=structural,
            edit_completion=edit_completion,
            repair_progress=repair_progress,
            preservation=preservation,
            source_preservation=source_preservation,
            unintended_change_rate=ucr,
            produced_parse_ok=P is not None,
            produced_valid_svg=valid,
            unexpected_changed_parts=tuple(sorted(set(diffs) | set(failing_u))),
            checks=tuple(checks),
            status=status,
            parity=parity,
        )

    def _exact(self, text: str) -> bool:
        """``fold_ws(text) == fold_ws(target)`` (§11.2 ``exact``), rejecting most texts unfolded."""
        if text == self.task.target_svg:
            return True
        compact = self._target_compact
        if compact is not None and text.isascii():
            if not compact_equal(text.encode("ascii"), compact):
                return False
        return fold_ws(text) == self.target_fold

    def _check(
        self, plan: _CheckPlan, P: Node | None, p_index: IdIndex | None, valid: bool
    ) -> CheckReport:
        e = plan.edit
        part, attr = e.part, e.attribute
        if attr == "exists" and e.after is False:
            node = p_index.find(part) if p_index is not None else None
        else:
            node = corresponding(p_index, self.t_index, part, strict=not self.parity)
        if node is not None and plan.reports is not None:
            # The element repeats the source's or the target's (their shared attribute dict,
            # see _task_reports): the report was made at scorer build.
            hit = plan.reports.get(id(node.attrib))
            if hit is not None and hit[0] is node.attrib:
                return hit[1] if valid else hit[2]
        produced, m = self._verdict(plan, node, P, p_index)
        return _check_report(plan.edit, produced, m, valid)

    def _verdict(
        self, plan: _CheckPlan, node: Node | None, P: Node | None, p_index: IdIndex | None
    ) -> tuple[Any, Match]:
        """The produced value of one requested edit and its kind verdict (§7, §8), ungated.

        For every kind but ``existence`` this is a function of ``node.attrib`` alone.
        """
        e = plan.edit
        part, attr, before, after = e.part, e.attribute, e.before, e.after
        produced: Any = (
            (node is not None) if attr == "exists" else read_value(node, attr, self.parity)
        )
        kind = plan.kind
        if kind == "existence":
            m = Match(produced == after, "existence")
            m = Match(m.passed, "existence", progress=1.0 if m.passed else 0.0)
            if after is True and m.passed:
                m = self._inserted(part, P, p_index)
                if not m.passed and p_index is not None and p_index.find(part) is None:
                    produced = False
        elif kind == "scalar":
            if plan.check is not None:
                m = plan.check.compare(produced, self.parity)
            else:
                m = compare_scalar(produced, before, after, attr, self.viewport, self.parity)
        elif kind == "list":
            if plan.check is not None:
                m = plan.check.compare(produced, self.parity)
            else:
                m = compare_list(produced, before, after, attr, self.viewport, self.parity)
        elif produced is None:
            m = compare_exact(after)
        elif kind == "color":
            if plan.check is not None:
                m = plan.check.compare(produced, self.parity)
            else:
                m = compare_color(produced, after, plan.color_delta, self.parity)
        elif kind == "path" and plan.path_after is not None:
            m = None
            seen = plan.seen
            if isinstance(produced, str):  # not an int or float: 5 == 5.0, but "5" != "5.0"
                m = plan.known.get(produced)
                if m is None and seen is not None:
                    m = seen.get(produced)
            if m is None:
                m = compare_path(
                    produced,
                    plan.path_after,
                    plan.path_delta,
                    plan.path_delta_c,
                    self.viewport,
                    self.parity,
                )
                if seen is not None and isinstance(produced, str) and len(produced) <= _SEEN_CHARS:
                    # compare_path is a pure function of the text here (the rest is the plan's):
                    # a policy that writes the same path again gets the same Match at once.
                    if len(seen) >= _SEEN_MAX:
                        seen.clear()
                    seen[produced] = m
        else:
            m = compare_canonical(produced, after, attr, self.parity)
        return produced, m

    def _task_reports(self, plan: _CheckPlan, nodes: Sequence[Node | None]) -> _CheckPlan:
        """``plan`` with the reports of these task elements (the source's and the target's).

        A check other than ``existence`` reads nothing but the element's attributes, and an
        output element that repeats a task element's start tag shares its attribute dict
        (:func:`~vector_gym.svg.canonical.parse_node`'s memo, seeded with both documents): such
        outputs (an untouched or a perfect edit) get these reports, keyed by that dict. The
        dicts are held here, so their ids stay theirs.
        """
        if plan.kind == "existence":
            return plan
        reports: dict[int, tuple[dict[str, str], CheckReport, CheckReport]] = {}
        for node in nodes:
            if node is None or id(node.attrib) in reports:
                continue
            produced, m = self._verdict(plan, node, None, None)
            reports[id(node.attrib)] = (
                node.attrib,
                _check_report(plan.edit, produced, m, True),
                _check_report(plan.edit, produced, m, False),
            )
        return replace(plan, reports=reports)

    # -- inserted subtree (§8.5) ------------------------------------------------------------------

    def _inserted(self, part: str, P: Node | None, p_index: IdIndex | None) -> Match:
        pn = corresponding(p_index, self.t_index, part, strict=not self.parity)
        tn = self.t_index.find(part) if self.t_index is not None else None
        if pn is None or tn is None:
            return Match(False, "inserted-subtree")
        ap, at = aliases(pn, tn)
        ok, ratio = self._match(pn, tn, ap, at)
        if ratio is None:  # outright failure: null distance and tolerance, progress 0 (§8.5)
            return Match(False, "inserted-subtree", progress=0.0)
        return Match(ok, "inserted-subtree", ratio, 1.0, None, 1.0 if ok else 0.0)

    def _match(self, p: Node, t: Node, ap: dict, at: dict) -> tuple[bool, float | None]:
        if p.tag != t.tag:
            return False, None
        A_p = semantic_attributes(p, ap)
        A_t = semantic_attributes(t, at)
        if A_p.keys() != A_t.keys():
            return False, None
        ratio = 0.0
        ok = True
        normalise_attribute = self.dialect.normalise
        for a, tv in A_t.items():
            pv = A_p[a]
            if normalise_attribute(a, pv) == normalise_attribute(a, tv):
                continue
            r = visual(a, pv, tv, self.viewport, self.parity)
            if r.distance is not None and r.tolerance:
                ratio = _py_max(ratio, _r6(r.distance) / _r6(r.tolerance))
            elif not r.passed:
                return False, None
            if not r.passed:
                ok = False
        if fold_ws(p.text) != fold_ws(t.text):
            return False, None
        pc, tc = p.children, t.children
        if len(pc) != len(tc):
            return False, None
        for x, y in zip(pc, tc, strict=True):
            okk, rk = self._match(x, y, ap, at)
            if not okk and rk is None:
                return False, None
            if not okk:
                ok = False
            if rk is not None:
                ratio = _py_max(ratio, rk)
        return ok, ratio


def _check_report(e: RequestedEdit, produced: Any, m: Match, valid: bool) -> CheckReport:
    """The report of one requested edit: the kind verdict gated by validity (§8, §8.4)."""
    return CheckReport(
        part=e.part,
        attribute=e.attribute,
        comparison=m.comparison,
        passed=valid and m.passed,
        distance=_r6(m.distance),
        tolerance=_r6(m.tolerance),
        baseline_distance=_r6(m.baseline),
        progress=(m.progress if valid else 0.0),
        produced=_jsonish(produced),
    )


def _task_side(build: Any, *args: Any) -> Any:
    """``build(*args)``, or None when the task's own values cannot be read ahead (a huge int
    ``after`` overflows ``float``): the check is then compared in full at every score."""
    try:
        return build(*args)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _plain_leaf(t: Node) -> bool:
    """Whether ``t`` is a childless element whose V form uses no alias map (spec §5.2, §5.4)."""
    return not t.children and not uses_aliases(t)


def _jsonish(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_jsonish(v) for v in value)
    return value


def _replace(report: SpecReport, **changes: Any) -> SpecReport:
    return replace(report, **changes)


# -- module functions ------------------------------------------------------------------------------

_SCORERS: OrderedDict[tuple[str, bool], SpecScorer] = OrderedDict()
_SCORERS_MAX = 4096


def get_scorer(task: Task, parity: bool = False) -> SpecScorer:
    """Return the cached :class:`SpecScorer` of ``(task, parity)`` (built on first use).

    The cache is keyed by task id and checked against the task's content, so an edited task
    with the same id gets a fresh scorer.
    """
    key = (task.task_id, bool(parity))
    scorer = _SCORERS.get(key)
    if scorer is not None and (scorer.task is task or scorer.task == task):
        _SCORERS.move_to_end(key)
        return scorer
    scorer = SpecScorer(task, parity=parity)
    _SCORERS[key] = scorer
    if len(_SCORERS) > _SCORERS_MAX:
        _SCORERS.popitem(last=False)
    return scorer


PREPARE_MAX_TASKS = 256
"""Most tasks :func:`prepare_scorers` builds scorers for (about 2-10 ms each, cold)."""


def prepare_scorers(tasks: Sequence[Task], parity: bool = False) -> int:
    """Build and cache the :class:`SpecScorer` of the first :data:`PREPARE_MAX_TASKS` tasks now.

    Envs call this when they are constructed, so the per-task work (target parse, masked target,
    path samples of every check) is done once in the process that later forks: Gymnasium's
    ``AsyncVectorEnv`` builds one env in the parent before starting its workers, and forked
    workers inherit the cache of :func:`get_scorer` instead of each building its own. Returns
    the number of scorers that were not cached yet.
    """
    fresh = 0
    for task in list(tasks)[:PREPARE_MAX_TASKS]:
        key = (task.task_id, bool(parity))
        if key not in _SCORERS:
            fresh += 1
        get_scorer(task, parity)
    return fresh


def score(task: Task, produced_svg: str | bytes | None, parity: bool = False) -> SpecReport:
    """Score one produced SVG for ``task`` (see :meth:`SpecScorer.score`)."""
    return get_scorer(task, parity).score(produced_svg)


def score_response(task: Task, response: str | None, parity: bool = False) -> SpecReport:
    """Extract the SVG from a model response and score it (see :meth:`SpecScorer.score_response`)."""
    return get_scorer(task, parity).score_response(response)


def _score_chunk(args: tuple[list[Task], list[Any], bool, bool]) -> list[SpecReport]:
    tasks, outputs, parity, responses = args
    one = score_response if responses else score
    return [one(t, o, parity) for t, o in zip(tasks, outputs, strict=True)]


def score_many(
    tasks: Sequence[Task],
    outputs: Sequence[str | bytes | None],
    parity: bool = False,
    processes: int | None = None,
    *,
    responses: bool = False,
) -> list[SpecReport]:
    """Score a batch of produced SVGs, one per task, in order.

    Parameters
    ----------
    tasks : sequence of Task
    outputs : sequence of str, bytes or None
        Produced SVG texts (already extracted); ``None`` = provider error.
    parity : bool, default False
    processes : int, optional
        ``None`` or 1 scores in this process (per-task scorers are cached); more uses a
        ``ProcessPoolExecutor`` with contiguous chunks, caching scorers per worker.
    responses : bool, default False
        True: ``outputs`` are raw model responses, scored with :func:`score_response`
        (the SVG is extracted first, spec §2).

    Returns
    -------
    list of SpecReport

    Raises
    ------
    ValueError
        ``tasks`` and ``outputs`` differ in length.
    """
    if len(tasks) != len(outputs):
        raise ValueError(
            f"expected as many outputs as tasks, got {len(outputs)} outputs for {len(tasks)} tasks"
        )
    n = len(tasks)
    if not processes or processes <= 1 or n < 2:
        return _score_chunk((list(tasks), list(outputs), parity, responses))
    chunk = max(1, math.ceil(n / (processes * 4)))
    jobs = [
        (list(tasks[i : i + chunk]), list(outputs[i : i + chunk]), parity, responses)
        for i in range(0, n, chunk)
    ]
    out: list[SpecReport] = []
    with ProcessPoolExecutor(max_workers=processes) as pool:
        for part in pool.map(_score_chunk, jobs):
            out.extend(part)
    return out


class SpecRewardScorer:
    """The specification reward behind the scorer protocol ``score_many(tasks, responses)``.

    Parameters
    ----------
    parity : bool
        Reproduce the reference evaluator's defects (spec-reward.md section 16); the extraction
        rule is then the reference rule, else ours (spec-reward.md section 2).
    processes : int, optional
        ``score_many`` batches of two or more run on a process pool of this size (None or 1: in
        this process).
    cache_bytes : int
        Bound of this scorer's :class:`~vector_gym.rewards.cache.ReportCache` (bytes of cached
        responses; 0 disables it).

    Notes
    -----
    Raw responses in, extraction inside (:meth:`SpecScorer.score_response`). Picklable; a copy
    starts with an empty cache. Per-task precomputation is cached by :func:`get_scorer`.
    """

    def __init__(self, parity: bool = False, processes: int | None = None, cache_bytes: int | None = None) -> None:
        from vector_gym.rewards.cache import DEFAULT_CACHE_BYTES, ReportCache

        self.parity = bool(parity)
        self.processes = processes
        self.cache = ReportCache(DEFAULT_CACHE_BYTES if cache_bytes is None else cache_bytes)

    def score_response(self, task: Task, response: Any) -> SpecReport:
        """Extract the SVG from ``response`` and score it (never raises for policy output)."""
        return self.score_many([task], [response])[0]

    def prepare(self, tasks: Sequence[Task]) -> None:
        """Build the per-task scorers of ``tasks`` now (:func:`prepare_scorers`); envs call it."""
        prepare_scorers(tasks, self.parity)

    def score_many(self, tasks: Sequence[Task], responses: Sequence[Any]) -> list[SpecReport]:
        """Score raw responses, one per task, in order (cached, de-duplicated).

        Raises
        ------
        ValueError
            ``len(tasks) != len(responses)``.
        """
        if len(tasks) != len(responses):
            raise ValueError(
                f"score_many: expected as many responses as tasks, got {len(responses)} and {len(tasks)}"
            )
        return self.cache.score_many(
            tasks,
            responses,
            lambda ts, rs: score_many(ts, rs, parity=self.parity, processes=self.processes, responses=True),
        )

    def __repr__(self) -> str:
        return f"SpecRewardScorer(parity={self.parity})"
