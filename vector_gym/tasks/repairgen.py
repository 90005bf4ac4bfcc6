"""RepairGen: an unbounded, seeded generator of Vector-Bench-shaped SVG repair tasks.

RepairGen takes clean SVGs (the bundled Vector-Bench targets, the SVGEditBench emoji, or any
folder), corrupts one to nine elements with the operators of
:mod:`vector_gym.tasks.repairgen_ops`, and writes the instruction a person would write
(:mod:`vector_gym.tasks.repairgen_words`). The clean SVG (with generated ids) is the target
S*, the corrupted one the source, each corruption a requested edit in E (Vector-Bench
``expected_diff`` form), and every other id'd element of the target is protected (U). The
tasks are scored by the specification reward exactly like Vector-Bench's
(``spec-reward.md`` §1, §8–§11).

Guarantees (checked over 10,000 tasks by ``benchmarks/repairgen_check.py``):

- the target scores 1 and the unchanged source 0: every corrupted value lies at a distance
  δ > 0 from the clean one, so the ``0.9·δ`` cap of the tolerance rule (§8.2) fails it;
- the instruction holds no digit, hex code, requested attribute name or non-word element id;
- each corruption is visible: on its own (the clean target with only that corruption) it
  changes at least ``min_visible_fraction`` of the pixels of a 112×112 render (skia; a pixel
  changes when a channel moves by more than 8/255). The render is skipped for a move, deletion,
  fill recolour or fade whose area estimate is at least 5% of the picture on an element whose
  removal changes at least 3% of it (measured once per element); with
  ``visibility="geometric"`` only the area estimate is used (several times faster, fewer
  corruptions visible; ``benchmarks/repairgen_check.py --visibility geometric``). The clean
  scene's normalised render form is kept, and a trial on a plain scene is drawn by splicing
  the changed element into it (:mod:`vector_gym.tasks.repairgen_visibility`; the same pixels
  as a whole render, several times cheaper); a trial whose changed element paints fewer
  pixels than the threshold, before and after the change together, is invisible without
  drawing the scene (the changed pixels lie in that union; same verdicts).

Purity: task ``idx`` of seed ``seed`` is a pure function of ``(config, seed, idx)`` (and the
source set and generator version) through ``np.random.default_rng([seed, idx])``, a seed
sequence over the pair, so streams of different seeds never overlap. Every task records its
provenance (``metadata["provenance"]``, a JSON string: generator name and version, config,
seed, idx, source id) and :func:`regenerate` rebuilds it from that record.

Reasoning-gym layout: :class:`RepairGenConfig` (frozen, validated), :class:`RepairGenerator`
(the dataset: ``gen[idx]``), :class:`RepairGenCurriculum` (difficulty follows success).
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from lxml import etree

from vector_gym.errors import ConfigError, VectorGymError
from vector_gym.tasks.repairgen_ops import (
    OPERATORS,
    Corruption,
    OpContext,
    apply_operator,
    eligible,
)
from vector_gym.tasks.repairgen_sources import (
    PreparedSource,
    load_sources,
    prepare_source,
    serialise,
    split_of,
)
from vector_gym.tasks.repairgen_visibility import (
    changed_fraction,
    clean_image,
    first_by_id,
    reduced_copy,
)
from vector_gym.tasks.repairgen_words import (
    CLOSINGS,
    PHRASINGS,
    amount_word,
    direction_phrase,
    join_clauses,
    number_word,
)
from vector_gym.tasks.task import Task, canonical_json, freeze_value

__all__ = [
    "GENERATOR_NAME",
    "GENERATOR_VERSION",
    "GenerationError",
    "RepairGenConfig",
    "RepairGenCurriculum",
    "RepairGenerator",
    "regenerate",
    "write_vector_bench_layout",
]

GENERATOR_NAME = "repairgen"
GENERATOR_VERSION = "2"  # 2: the visibility check renders through vector_gym.render (issue 9)
FAMILY = "repairgen"


class GenerationError(VectorGymError):
    """No source in the configured pool could take the requested number of repairs."""


@dataclass(frozen=True, slots=True)
class RepairGenConfig:
    """Configuration of :class:`RepairGenerator` (every field has a default).

    Raises
    ------
    ConfigError
        On construction, naming the offending field, e.g. ``max_repairs`` outside 1-9.
    """

    min_repairs: int = 1  # fewest corruptions per task (1-9)
    max_repairs: int = 3  # most corruptions per task (min_repairs-9); Vector-Bench has 3-9
    magnitude: float = 1.0  # scales every corruption amount (0.5-2.0); smaller is subtler
    min_scene_elements: int = 1  # a source needs at least this many usable shape elements
    max_scene_elements: int = 100_000  # ... and at most this many (scene size dial)
    operators: tuple[str, ...] = OPERATORS  # subset of repairgen_ops.OPERATORS
    sources: tuple[str, ...] = ("vector_bench", "svgeditbench")  # bundled set names or folders
    split: str = "train"  # "train", "test" or "all" (split by scene, see repairgen_sources)
    test_fraction: float = 0.2  # share of scenes held out for "test" (0-1)
    min_visible_fraction: float = 0.009  # changed pixels (or estimated area) per corruption
    visibility: str = "render"  # "render" (112-px skia render) or "geometric" (area estimate)

    def __post_init__(self) -> None:
        def bad(name: str, expected: str) -> ConfigError:
            return ConfigError(
                f"RepairGenConfig.{name}: expected {expected}, got {getattr(self, name)!r}"
            )

        for name in ("min_repairs", "max_repairs", "min_scene_elements", "max_scene_elements"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise bad(name, "an int")
        if not 1 <= self.min_repairs <= 9:
            raise bad("min_repairs", "an int in 1..9")
        if not self.min_repairs <= self.max_repairs <= 9:
            raise bad("max_repairs", f"an int in {self.min_repairs}..9")
        if not isinstance(self.magnitude, int | float) or not 0.5 <= self.magnitude <= 2.0:
            raise bad("magnitude", "a number in 0.5..2.0")
        if self.min_scene_elements < 1:
            raise bad("min_scene_elements", "an int >= 1")
        if self.max_scene_elements < self.min_scene_elements:
            raise bad(
                "max_scene_elements", f"an int >= min_scene_elements ({self.min_scene_elements})"
            )
        ops = tuple(self.operators) if isinstance(self.operators, list | tuple) else None
        if not ops or any(o not in OPERATORS for o in ops) or len(set(ops)) != len(ops):
            raise bad("operators", f"a non-empty tuple of distinct names from {OPERATORS}")
        object.__setattr__(self, "operators", ops)
        srcs = tuple(self.sources) if isinstance(self.sources, list | tuple) else None
        if not srcs or not all(isinstance(s, str) and s for s in srcs):
            raise bad("sources", "a non-empty tuple of bundled set names or folder paths")
        object.__setattr__(self, "sources", srcs)
        if self.split not in ("train", "test", "all"):
            raise bad("split", "'train', 'test' or 'all'")
        if not isinstance(self.test_fraction, int | float) or not 0.0 <= self.test_fraction <= 1.0:
            raise bad("test_fraction", "a number in 0..1")
        if (
            not isinstance(self.min_visible_fraction, int | float)
            or not 0.0 <= self.min_visible_fraction < 1.0
        ):
            raise bad("min_visible_fraction", "a number in [0, 1)")
        if self.visibility not in ("render", "geometric"):
            raise bad("visibility", "'render' or 'geometric'")

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types (tuples become lists)."""
        d = asdict(self)
        d["operators"] = list(self.operators)
        d["sources"] = list(self.sources)
        return d

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> RepairGenConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ConfigError."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(obj) - known)
        if unknown:
            raise ConfigError(
                f"RepairGenConfig: unknown field(s) {unknown}; expected some of {sorted(known)}"
            )
        kw = dict(obj)
        for k in ("operators", "sources"):
            if k in kw and isinstance(kw[k], list):
                kw[k] = tuple(kw[k])
        return cls(**kw)


def _pool(config: RepairGenConfig) -> tuple[PreparedSource, ...]:
    sources = load_sources(config.sources)
    test_keys: set[str] = set()
    groups: dict[str, set[str]] = {}
    for s in sources:
        groups.setdefault(s.source_id.split(":", 1)[0], set()).add(s.split_key)
    for keys in groups.values():  # decided per source set, so it never depends on the others
        held = {k for k in keys if split_of(k, config.test_fraction) == "test"}
        # both sides non-empty when a set has at least two scenes (a folder of a few files)
        if 0 < config.test_fraction < 1 and len(keys) >= 2:
            if not held:
                held = {min(keys, key=_key_hash)}
            if held == keys:
                held.discard(max(keys, key=_key_hash))
        test_keys |= held
    chosen = []
    for s in sources:
        side = "test" if s.split_key in test_keys else "train"
        if config.split != "all" and side != config.split:
            continue
        chosen.append(s)
    return tuple(chosen)


def _key_hash(key: str) -> int:
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")


@dataclass
class _Built:
    corruptions: list[Corruption]
    source: Any
    target: Any
    src_ids: Any = None  # the source's id index, kept up to date by the operators


class RepairGenerator:
    """The RepairGen dataset: ``gen[idx]`` is task ``idx`` of ``seed``, for any idx >= 0.

    Parameters
    ----------
    config : RepairGenConfig
    seed : int
        Dataset seed; ``(seed, idx)`` determines the task (module docstring).

    Raises
    ------
    ConfigError
        The configured split holds no usable source.

    Examples
    --------
    >>> gen = RepairGenerator(RepairGenConfig(sources=("vector_bench",), split="all"), seed=0)
    >>> t = gen[3]
    >>> t == gen[3], t.family, t.task_id
    (True, 'repairgen', 'rg-all-s0-0000003')
    """

    name = GENERATOR_NAME
    version = GENERATOR_VERSION

    def __init__(self, config: RepairGenConfig | None = None, seed: int = 0) -> None:
        self.config = config or RepairGenConfig()
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ConfigError(f"seed: expected a non-negative int, got {seed!r}")
        self.seed = seed
        self._config_dict = self.config.to_dict()  # provenance of every task (JSON-encoded)
        self._sources = _pool(self.config)
        if not self._sources:
            raise ConfigError(
                f"RepairGenConfig.split: no source in split {self.config.split!r} of {self.config.sources}"
            )
        groups: dict[str, list[int]] = {}
        for k, s in enumerate(self._sources):
            groups.setdefault(s.source_id.split(":", 1)[0], []).append(k)
        self._groups = [groups[name] for name in sorted(groups)]

    @property
    def source_ids(self) -> list[str]:
        """Ids of the clean sources this generator draws from (its split), sorted."""
        return sorted(s.source_id for s in self._sources)

    def _prepare(self, k: int) -> PreparedSource | None:
        prep = prepare_source(self._sources[k])
        if prep is None:
            return None
        n = len(prep.candidates)
        if not self.config.min_scene_elements <= n <= self.config.max_scene_elements:
            return None
        return prep

    def __getitem__(self, idx: int) -> Task:
        return self.generate(idx)

    def tasks(self, n: int, start: int = 0) -> Iterator[Task]:
        """Yield tasks ``start .. start + n - 1``."""
        for i in range(start, start + n):
            yield self.generate(i)

    def generate(self, idx: int) -> Task:
        """Generate task ``idx`` (pure in ``(config, seed, idx)``).

        Raises
        ------
        GenerationError
            No source took the drawn number of repairs in 32 tries (e.g. ``min_repairs=9``
            with only tiny scenes).
        """
        if not isinstance(idx, int | np.integer) or idx < 0:
            raise ConfigError(f"idx: expected a non-negative int, got {idx!r}")
        idx = int(idx)
        cfg = self.config
        rng = np.random.default_rng([self.seed, idx])
        n_repairs = int(rng.integers(cfg.min_repairs, cfg.max_repairs + 1))
        for _ in range(32):
            # each source set (Vector-Bench scenes, emoji, a folder) is drawn equally often
            group = self._groups[int(rng.integers(len(self._groups)))]
            k = group[int(rng.integers(len(group)))]
            prep = self._prepare(k)
            if prep is None or len(prep.candidates) < n_repairs:
                continue
            built = self._corrupt(prep, n_repairs, rng)
            if built is not None:
                task = self._task(prep, built, rng, idx)
                if task.protected_ids:  # U must not be empty (a protected element to keep)
                    return task
        raise GenerationError(
            f"task {idx} of seed {self.seed}: no source took {n_repairs} repairs in 32 tries; "
            "lower min_repairs or widen the scene-size range"
        )

    # ------------------------------------------------------------------ internals
    def _corrupt(self, prep: PreparedSource, n: int, rng: np.random.Generator) -> _Built | None:
        cfg = self.config
        source = copy.deepcopy(prep.root)
        src_ids = _copy_index(source, _elements(prep))  # kept for the task: operators update it
        # The target is the clean tree itself until an operator must write it (only ``opacity``
        # does: it states the clean opacity), then a copy; every other operator only reads it.
        target = prep.root
        tgt_ids: Mapping[str, Any] = MappingProxyType(_elements(prep))
        taken = set(prep.ids)
        area = prep.width * prep.height
        by_render = cfg.visibility == "render" and clean_image(prep) is not None
        # in render mode the area estimate only pre-filters hopeless corruptions
        min_area = cfg.min_visible_fraction * area * (0.3 if by_render else 1.0)
        min_visible_area = cfg.min_visible_fraction * area
        used: set[str] = set()
        done: list[Corruption] = []
        tries = 0
        while len(done) < n and tries < 8 * n + 8:
            tries += 1
            op = cfg.operators[int(rng.integers(len(cfg.operators)))]
            if prep.by_op is None:  # eligibility depends on the clean source only
                prep.by_op = {o: [c for c in prep.candidates if eligible(o, c)] for o in OPERATORS}
            # (before the first accepted corruption nothing is used: the list itself, uncopied)
            pool = [c for c in prep.by_op[op] if c.id not in used] if used else prep.by_op[op]
            if not pool:
                continue
            cand = pool[int(rng.integers(len(pool)))]
            # Try the corruption alone on a clean copy with a copy of the generator; only a
            # visible one is then applied (same random draws, same result) to the task's trees.
            # Each element is corrupted at most once, so its state is clean in both.
            # The trial runs on the element and its ancestors alone (an operator reads and
            # writes nothing else; an insertion is placed after the element or after the
            # root's last child, so it gets those too: _insertion_copy); a whole render
            # rebuilds the whole trial (``whole``).
            trial_rng = _copy_rng(rng)
            alone = _insertion_copy(prep, cand.id) if op == "insert" else _partial_copy(prep, cand.id)
            alone_target = _partial_copy(prep, cand.id) if op == "opacity" else target
            alone_ctx = self._ctx(
                prep,
                alone,
                alone_target,
                set(taken),
                None if op == "opacity" else tgt_ids,
                # an insertion's trial looks one id up in its copy: by XPath, not by reading
                # every id of it (the same element: the first of that id)
                _IdIndex(alone, read_all=False) if op == "insert" else None,
            )
            trial = apply_operator(op, alone_ctx, cand, trial_rng)
            if trial is None or trial.changed_area < min_area:
                continue
            estimate = min(trial.changed_area / area, 1.0)
            # a large estimated change of a filled shape is visible without rendering it
            sure = (
                by_render
                and estimate >= _SURE_FRACTION
                and trial.op in _SURE_OPS
                and _exposure(prep, cand) >= _SURE_EXPOSURE
            )
            if by_render and not sure:
                # (called before ``rng`` draws again, so a copy of it then is the trial's start)
                whole = partial(self._whole_trial, prep, op, cand, target, set(taken), rng)
                small = cand.fill_area + cand.stroke_area < _TRY_BOUND * min_visible_area
                try_bound = cfg.min_visible_fraction if small else 0.0
                frac = changed_fraction(
                    prep,
                    alone,
                    cand.id,
                    trial.new_ids,
                    alone_ctx.src_ids,
                    whole=whole,
                    at_least=try_bound,
                )
            else:
                frac = estimate
            if frac < cfg.min_visible_fraction:
                continue
            if op in _REPLAYED and _replay(src_ids[cand.id], alone_ctx.src_ids[cand.id]):
                # the trial's element is what the operator would make of the source's (below)
                rng.bit_generator.state = trial_rng.bit_generator.state  # its draws, consumed
                corr = trial
            else:
                if op == "opacity" and target is prep.root:
                    target = copy.deepcopy(prep.root)
                    tgt_ids = _copy_index(target, _elements(prep))
                ctx = self._ctx(prep, source, target, taken, tgt_ids, src_ids)
                corr = apply_operator(op, ctx, cand, rng)
                if corr is None:  # cannot happen (same state, same draws); keep it consistent
                    return None
            corr.visible_fraction = frac
            used.add(cand.id)
            done.append(corr)
        if len(done) < n:
            return None
        return _Built(done, source, target, src_ids)

    def _whole_trial(
        self, prep: PreparedSource, op: str, cand: Any, target: Any, taken: set[str], rng: Any
    ) -> Any:
        """The trial of ``op`` on ``cand`` applied to a whole copy of the clean scene."""
        whole = copy.deepcopy(prep.root)
        ctx = self._ctx(prep, whole, copy.deepcopy(target), taken)
        apply_operator(op, ctx, cand, _copy_rng(rng, slot=1))
        return whole

    def _ctx(
        self,
        prep: PreparedSource,
        source: Any,
        target: Any,
        taken: set[str],
        tgt_ids: Mapping[str, Any] | None = None,
        src_ids: dict[str, Any] | None = None,
    ) -> OpContext:
        return OpContext(
            source=source,
            target=target,
            src_ids=_index(source) if src_ids is None else src_ids,
            tgt_ids=_index(target) if tgt_ids is None else tgt_ids,
            width=prep.width,
            height=prep.height,
            origin=prep.origin,
            magnitude=float(self.config.magnitude),
            taken_ids=taken,
        )

    def _task(
        self, prep: PreparedSource, built: _Built, rng: np.random.Generator, idx: int
    ) -> Task:
        cfg = self.config
        edits = [e for c in built.corruptions for e in c.edits]
        parts = {e.part for e in edits}
        clean = built.target is prep.root  # no operator wrote the target (see _corrupt)
        if clean:
            target_ids = list(_elements(prep))  # document order, like iter()
        else:
            target_ids = list(first_by_id(built.target))  # as _elements: each id once
        if _SITES_BY_INDEX and built.src_ids is not None:
            # Ids are unique in both trees (prepare_source rejects a repeated id, operators
            # take fresh ones), so each part is one element, found by the id indexes instead
            # of a pass over every element of each tree.
            touched = _sites_of(built.src_ids, parts) | (
                _sites_of(_elements(prep), parts)
                if clean
                else _edit_sites(built.target, parts)
            )
        else:
            touched = _edit_sites(built.source, parts) | _edit_sites(built.target, parts)
        if any(e.attribute == "exists" for e in edits):
            if clean and prep.referencing is None:
                prep.referencing = frozenset(_referencing(prep.root))
            touched |= _referencing(built.source) | (
                prep.referencing if clean else _referencing(built.target)
            )
        protected = tuple(i for i in target_ids if i not in touched)
        instruction = _instruction(prep, built.corruptions, rng)
        task_id = f"rg-{cfg.split}-s{self.seed}-{idx:07d}"
        provenance = {
            "generator": GENERATOR_NAME,
            "version": GENERATOR_VERSION,
            "config": self._config_dict,
            "seed": self.seed,
            "idx": idx,
            "source_id": prep.source.source_id,
        }
        metadata = {
            # a JSON string: Task metadata stores plain values and lists, not nested dicts
            "provenance": canonical_json(provenance),
            "source_id": prep.source.source_id,
            "seed": self.seed,
            "idx": idx,
            "operators": [c.op for c in built.corruptions],
            "defects": [c.kind for c in built.corruptions],
            "difficulty": len(built.corruptions),
            "edits": len(edits),
            "magnitude": cfg.magnitude,
            "scene_elements": len(prep.candidates),
            "split": cfg.split,
            "scene": prep.source.scene,
            # changed-pixel share of each corruption alone (render) or its area estimate
            "visible_fraction": [round(c.visible_fraction, 6) for c in built.corruptions],
        }
        return Task(
            task_id=task_id,
            family=FAMILY,
            instruction=instruction,
            source_svg=serialise(built.source),
            target_svg=_clean_text(prep) if clean else serialise(built.target),
            requested_edits=tuple(edits),
            protected_ids=protected,
            metadata=tuple((k, freeze_value(v)) for k, v in metadata.items()),
        )


def _edit_sites(root: Any, parts: set[str]) -> set[str]:
    """Ids of the requested parts in ``root`` plus their ancestors and descendants.

    U holds only elements whose whole subtree the repair leaves alone: the semantic comparison
    of a protected element (spec §11.1) covers its subtree, so a group that contains a requested
    part, a stray insertion or a deleted element, or an element inside a deleted one, would
    count as changed even for a perfect repair or the unchanged source.
    """
    out: set[str] = set()
    for el in root.iter():
        if not isinstance(el.tag, str) or el.get("id") not in parts:
            continue
        out.update(d.get("id") for d in el.iter() if isinstance(d.tag, str) and d.get("id"))
        out.update(a.get("id") for a in el.iterancestors() if a.get("id"))
    return out


#: :func:`_sites_of` instead of :func:`_edit_sites` for a task's trees (tested equal)
_SITES_BY_INDEX = True


def _sites_of(index: Mapping[str, Any], parts: set[str]) -> set[str]:
    """:func:`_edit_sites` of a tree whose ids are unique, from its id index ``index`` (a
    mapping, or an :class:`_IdIndex` that looks a missing id up in its tree)."""
    out: set[str] = set()
    for part in parts:
        try:
            el = index[part]
        except KeyError:  # not in this tree (deleted from the source, inserted into it)
            continue
        out.update(d.get("id") for d in el.iter() if isinstance(d.tag, str) and d.get("id"))
        out.update(a.get("id") for a in el.iterancestors() if a.get("id"))
    return out


#: The elements of a tree with an attribute that holds ``url(`` or has a name ending in
#: ``href`` (XPath's ``*``: elements only, as :func:`_referencing`'s test of an lxml tag): a
#: superset of the elements :func:`_referencing` takes, found in one XPath pass (C) instead of
#: a Python loop over every element.
_MAY_REFER_AT = etree.XPath(
    "descendant-or-self::*[@*[contains(., 'url(') or contains(local-name(), 'href')]]"
)


def _referencing(root: Any) -> set[str]:
    """Ids of elements holding a local reference (``href="#x"``, ``url(#x)``) and their ancestors.

    The semantic form compares references through ID aliases aligned by tree position (spec
    §5.1), so an inserted or deleted element shifts the alignment and a reference can differ
    between the unchanged source and the target even though nothing it draws changed.
    """
    out: set[str] = set()
    # the elements with an attribute that the test below could take (a superset, found in C)
    for el in _MAY_REFER_AT(root):
        if any(
            ("url(" in v and "#" in v) or (k.endswith("href") and v.strip().startswith("#"))
            for k, v in el.attrib.items()
        ):
            out.update(a.get("id") for a in el.iterancestors() if a.get("id"))
            if el.get("id"):
                out.add(el.get("id"))
    return out


#: Estimated changed area (share of the picture) above which the render check is skipped for
#: operators whose estimate is reliable (filled areas); occlusion is the remaining risk, measured
#: by benchmarks/repairgen_check.py.
_SURE_FRACTION = 0.05
_SURE_OPS = frozenset({"displace", "delete", "recolor_fill", "opacity"})  # not resize, insert:
# growing a full-picture background or a copy placed under other shapes can change nothing
#: ... and only for elements that are well exposed: removing the element from the clean picture
#: changes at least this share of its pixels (measured once per element, then cached).
_SURE_EXPOSURE = 0.03
#: A trial asks for the footprint bound (repairgen_visibility.changed_fraction's ``at_least``)
#: only on an element whose estimated painted area is under this many times the visible
#: minimum: a larger one almost never paints few enough pixels for the bound to decide, and
#: drawing its footprint would be wasted. (Only speed depends on it, never a task.)
_TRY_BOUND = 2.0
def _exposure(prep: PreparedSource, cand: Any) -> float:
    """Share of the picture that changes when ``cand`` is removed (cached on the candidate)."""
    if cand.exposure is None:
        found = _BY_ID(prep.root, i=cand.id)
        if found and found[0].getparent() is not None:
            cand.exposure = changed_fraction(prep, None, cand.id)
        else:
            cand.exposure = 0.0
    return cand.exposure


def _elements(prep: PreparedSource) -> dict[str, Any]:
    """Id -> element of the clean tree ``prep.root`` (built once). ``prepare_source`` rejects
    duplicate ids; where a hand-made source has one, the first element of it, as every other
    look-up of the generator and the visibility check takes it (:func:`first_by_id`)."""
    if prep.elements is None:
        # the partial copies' cache first: a thread that finds the index built finds it too
        prep.partials = {}
        prep.elements = first_by_id(prep.root)
    return prep.elements


def _clean_text(prep: PreparedSource) -> str:
    """``serialise(prep.root)``, kept: the target text of every task whose target is unchanged."""
    if prep.text is None:
        prep.text = serialise(prep.root)
    return prep.text


def _partial_copy(prep: PreparedSource, part: str) -> Any:
    """A copy of the clean scene holding only element ``part`` (whole) and its ancestors."""
    _elements(prep)
    # the reduced copy is built once per element and kept untouched; each trial gets a deep
    # copy of it (one C call: the same tree as building it again, a fraction of the time)
    kept = prep.partials.get(part)
    if kept is None:
        kept = prep.partials[part] = reduced_copy(prep.root, [prep.elements[part]])
    return copy.deepcopy(kept)


def _insertion_copy(prep: PreparedSource, part: str) -> Any:
    """A copy of the clean scene for an insertion trial on element ``part``: only ``part``
    (whole), the root's last child (whole) and their ancestors; the whole scene where that
    last child is not an element.

    ``op_insert`` reads and writes nothing else: a duplicate goes right after ``part``, a stray
    mark after the root's last child (taking its tail), and the trial's visibility check reads
    the trial only through the changed and inserted elements, their ancestors and the id of
    each inserted element's previous sibling, which are the same here (a render that cannot
    splice rebuilds the whole trial). Built once per element, like :func:`_partial_copy`.
    """
    _elements(prep)
    key = (part, "insert")  # (the partial copies' cache; their keys are plain ids)
    kept = prep.partials.get(key)
    if kept is None:
        last = prep.root[-1] if len(prep.root) else None
        if last is None or not isinstance(last.tag, str):
            kept = False
        else:
            kept = reduced_copy(prep.root, [prep.elements[part], last])
        prep.partials[key] = kept
    return copy.deepcopy(prep.root if kept is False else kept)


#: Operators that only set attributes of the candidate element itself (no other element, no
#: new id, nothing of the target): an accepted trial of one is replayed onto the task's source
#: (:func:`_replay`) instead of running the operator again. The trial ran on a clean copy of
#: the same element with a copy of the same random state, so its element and its Corruption
#: are what the second run would give (``tests/tasks/test_repairgen.py`` checks whole tasks
#: against running it again). ``delete``, ``insert`` and ``opacity`` (which writes the target)
#: are run again.
_REPLAYED = frozenset(
    {"recolor_fill", "recolor_stroke", "displace", "resize", "distort", "stroke_width"}
)


def _replay(el: Any, done: Any) -> bool:
    """Give ``el`` (the clean element in the task's source) the attributes of ``done`` (the
    same element after the operator's trial), as the operator's ``set`` calls would: a changed
    value in its place, a new attribute after the others in the trial's order. False, with
    ``el`` untouched, where ``done`` lacks one of ``el``'s attributes (then the operator is run
    again)."""
    got = done.attrib
    if any(k not in got for k in el.attrib):
        return False
    for k, v in got.items():
        if el.get(k) != v:
            el.set(k, v)
    return True


_SPARE_RNGS = threading.local()  # per thread: (bit generator type, slot) -> a kept Generator


def _copy_rng(rng: np.random.Generator, slot: int = 0) -> np.random.Generator:
    """A generator at ``rng``'s state (the same draws), without OS entropy or seeding.

    It is one kept generator per thread and ``slot`` (0: an operator trial, 1: its whole-scene
    rebuild), set to ``rng``'s state: valid until the next copy into the same slot. Building a
    fresh bit generator costs a seeding (about 16 us), most of a copy's time.
    """
    kept = getattr(_SPARE_RNGS, "gens", None)
    if kept is None:
        kept = _SPARE_RNGS.gens = {}
    kind = type(rng.bit_generator)
    gen = kept.get((kind, slot))
    if gen is None:
        gen = kept[(kind, slot)] = np.random.Generator(kind(0))  # a fixed seed: no OS entropy
    gen.bit_generator.state = rng.bit_generator.state
    return gen


_BY_ID = etree.XPath("descendant-or-self::*[@id=$i]")


class _IdIndex(dict):
    """Lazy id → element map of one tree; operators add and delete.

    The first miss reads every id of the tree (the first element of each, as XPath's
    ``descendant-or-self::*[@id=$i]`` takes it; one pass instead of one XPath scan per id on a
    whole scene); a later miss is an XPath look-up (an element added to the tree but not to the
    map, such as a copy's renamed descendant).
    """

    def __init__(self, root: Any, read_all: bool = True) -> None:
        super().__init__()
        self._root = root
        self._read = not read_all  # read_all=False: every miss is an XPath look-up

    def __missing__(self, key: str) -> Any:
        if not self._read:
            self._read = True
            for el in self._root.iter():
                i = el.get("id") if isinstance(el.tag, str) else None
                if i is not None and i not in self:
                    self[i] = el
            if key in self:
                return self[key]
        found = _BY_ID(self._root, i=key)
        if not found:
            raise KeyError(key)
        self[key] = found[0]
        return found[0]


def _index(root: Any) -> dict[str, Any]:
    return _IdIndex(root)


_WITH_ID = etree.XPath("descendant-or-self::*[@id]")


def _copy_index(root: Any, ids: Iterable[str]) -> dict[str, Any]:
    """The id index of ``root``, a fresh deep copy of a tree whose ids in document order are
    ``ids`` (each once, as :func:`first_by_id` lists them), read at once: the k-th element of
    the copy with an ``id`` attribute is the k-th id's where their counts agree (then no id is
    repeated or empty), in one XPath call instead of :class:`_IdIndex`'s Python pass on its
    first miss. The same map that pass gives on the untouched copy (every operator looks its
    element up before it writes the tree); a later miss is an XPath look-up, as after that pass.
    Elsewhere an :class:`_IdIndex` that reads on its first miss. (Only for whole scenes: on a
    trial's copy of an element and its ancestors, about two elements, the XPath call costs more
    than the pass: 2.5 against 1.8 us.)
    """
    ids = tuple(ids)
    els = _WITH_ID(root)
    if len(els) != len(ids):
        return _IdIndex(root)
    index = _IdIndex(root, read_all=False)
    index.update(zip(ids, els, strict=True))
    return index


def _opposite(dx: float, dy: float) -> str:
    return direction_phrase(-dx, -dy)


_ROWS = ("at the top", "in the middle", "at the bottom")
_COLS = ("on the left", "in the centre", "on the right")


def _where(prep: PreparedSource, cand: Any) -> str:
    """Where an element sits in the picture, in words ("at the top left", "in the middle")."""
    ox, oy = prep.origin
    cx = ((cand.bbox[0] + cand.bbox[2]) / 2 - ox) / prep.width
    cy = ((cand.bbox[1] + cand.bbox[3]) / 2 - oy) / prep.height
    col = 0 if cx < 1 / 3 else 2 if cx > 2 / 3 else 1
    row = 0 if cy < 1 / 3 else 2 if cy > 2 / 3 else 1
    if row == 1 and col == 1:
        return "in the middle"
    if row == 1:
        return _COLS[col]
    if col == 1:
        return _ROWS[row]
    return f"{_ROWS[row]} {('left', '', 'right')[col]}"


def _instruction(
    prep: PreparedSource, corrs: Sequence[Corruption], rng: np.random.Generator
) -> str:
    if prep.words is None:  # depends on the source only: built once per prepared source
        prep.words = _noun_tables(prep)
    by_id, bare, counts, placed = prep.words
    clauses: list[str] = []
    for corr in corrs:
        cand = by_id.get(corr.part)
        if corr.kind == "insert_duplicate":
            base_id = next(
                (c.id for c in prep.candidates if corr.part.startswith(c.id + "-dup")), None
            )
            cand = by_id.get(base_id) if base_id else None
        if cand is None:  # a stray mark: its own words
            noun = corr.words.get("noun", "shape")
            the = f"the {noun}"
        else:
            # "yellow shape" would contradict "is red instead of yellow": drop the colour word
            recolour = corr.kind in ("recolor_fill", "recolor_stroke")
            noun = bare[cand.id] if recolour else cand.noun
            if counts[noun] > 1:
                where = _where(prep, cand)
                if placed[(noun, where)] == 1:
                    noun = f"{noun} {where}"
                    the = f"the {noun}"
                else:
                    the = f"one {noun}"
            else:
                the = f"the {noun}"
        fields = {"the": the, "noun": noun, "scene": prep.source.scene, **corr.words}
        fields["noun"] = noun
        if corr.kind == "displace":
            dx, dy = float(corr.words["dx"]), float(corr.words["dy"])
            fields["dir"] = direction_phrase(dx, dy)
            fields["dir_far"] = direction_phrase(dx, dy)
            fields["back"] = _opposite(dx, dy)
            fields["amount"] = amount_word(float(corr.words["frac"]))
        options = PHRASINGS[corr.kind]
        start = int(rng.integers(len(options)))
        # two defects of the same kind on look-alike elements: vary the phrasing
        for k in range(len(options)):
            clause = options[(start + k) % len(options)].format(**fields)
            if clause not in clauses:
                break
        clauses.append(clause)
    n = len(corrs)
    those = "that problem" if n == 1 else f"those {number_word(n)} problems"
    closing = CLOSINGS[int(rng.integers(len(CLOSINGS)))].format(
        those=those, scene=prep.source.scene
    )
    return f"{join_clauses(clauses)} {closing}"


def _noun_tables(prep: PreparedSource) -> tuple[dict, dict, Counter, Counter]:
    """``(by_id, bare, counts, placed)``: candidates by id, nouns without a colour word, noun
    counts and (noun, place) counts of one prepared source (for :func:`_instruction`)."""
    by_id = {c.id: c for c in prep.candidates}
    bare = {c.id: c.noun.split()[-1] if _colour_noun(c.noun) else c.noun for c in prep.candidates}
    counts = Counter(c.noun for c in prep.candidates) + Counter(
        bare[c.id] for c in prep.candidates if bare[c.id] != c.noun
    )
    placed = Counter((n, _where(prep, c)) for c in prep.candidates for n in {c.noun, bare[c.id]})
    return by_id, bare, counts, placed


_COLOUR_NAMES: frozenset[str] | None = None


def _colour_noun(noun: str) -> bool:
    global _COLOUR_NAMES
    if _COLOUR_NAMES is None:
        from vector_gym.tasks.repairgen_words import COLOR_WORDS

        _COLOUR_NAMES = frozenset(name for name, _ in COLOR_WORDS)
    parts = noun.split()
    return len(parts) >= 2 and " ".join(parts[:-1]) in _COLOUR_NAMES


def regenerate(task: Task) -> Task:
    """Rebuild a RepairGen task from its ``metadata["provenance"]``.

    Raises
    ------
    ConfigError
        The task has no RepairGen provenance, or a different generator version.
    """
    raw = task.meta().get("provenance")
    try:
        prov = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        prov = None
    if not isinstance(prov, dict) or prov.get("generator") != GENERATOR_NAME:
        raise ConfigError(f"task {task.task_id!r}: expected RepairGen provenance, got {prov!r}")
    if prov.get("version") != GENERATOR_VERSION:
        raise ConfigError(
            f"task {task.task_id!r}: generated by RepairGen version {prov.get('version')!r}, "
            f"this is version {GENERATOR_VERSION!r}"
        )
    gen = RepairGenerator(RepairGenConfig.from_dict(prov["config"]), seed=int(prov["seed"]))
    return gen.generate(int(prov["idx"]))


# ---------------------------------------------------------------------- curriculum
#: Difficulty levels: (min_repairs, max_repairs, magnitude). Level 0 is one large defect,
#: the last level Vector-Bench's density (up to nine repairs) with subtler corruptions.
LEVELS: tuple[tuple[int, int, float], ...] = (
    (1, 1, 1.5),
    (1, 2, 1.25),
    (2, 3, 1.0),
    (3, 4, 1.0),
    (3, 5, 0.9),
    (4, 6, 0.8),
    (5, 7, 0.75),
    (6, 8, 0.7),
    (7, 9, 0.6),
)


@dataclass
class RepairGenCurriculum:
    """Raise or lower RepairGen's difficulty with the recent success rate.

    After every ``window`` recorded episodes the success rate over them is compared with
    ``raise_at`` (move one level up) and ``lower_at`` (one level down), then the window is
    cleared. Levels are :data:`LEVELS` (number of repairs and magnitude).

    Parameters
    ----------
    base : RepairGenConfig
        Every field except ``min_repairs``, ``max_repairs`` and ``magnitude``.
    level : int
        Starting level (0-8).
    window : int
        Episodes per decision (>= 1).
    raise_at, lower_at : float
        Thresholds, ``0 <= lower_at < raise_at <= 1``.

    Examples
    --------
    >>> cur = RepairGenCurriculum(window=2)
    >>> cur.update(True); cur.update(True); cur.level
    1
    >>> cur.config().max_repairs
    2
    """

    base: RepairGenConfig = field(default_factory=RepairGenConfig)
    level: int = 0
    window: int = 50
    raise_at: float = 0.7
    lower_at: float = 0.2
    _recent: deque = field(default_factory=deque, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.level, int) or not 0 <= self.level < len(LEVELS):
            raise ConfigError(
                f"RepairGenCurriculum.level: expected an int in 0..{len(LEVELS) - 1}, got {self.level!r}"
            )
        if not isinstance(self.window, int) or self.window < 1:
            raise ConfigError(
                f"RepairGenCurriculum.window: expected an int >= 1, got {self.window!r}"
            )
        if not 0 <= self.lower_at < self.raise_at <= 1:
            raise ConfigError(
                f"RepairGenCurriculum.raise_at: expected 0 <= lower_at < raise_at <= 1, got "
                f"lower_at={self.lower_at!r}, raise_at={self.raise_at!r}"
            )

    def update(self, success: bool) -> None:
        """Record one episode outcome (reward 1 = success) and maybe change level."""
        self._recent.append(bool(success))
        if len(self._recent) < self.window:
            return
        rate = sum(self._recent) / len(self._recent)
        self._recent.clear()
        if rate >= self.raise_at and self.level < len(LEVELS) - 1:
            self.level += 1
        elif rate <= self.lower_at and self.level > 0:
            self.level -= 1

    @property
    def success_rate(self) -> float | None:
        """Success rate over the episodes recorded since the last decision (None if none)."""
        return sum(self._recent) / len(self._recent) if self._recent else None

    def config(self) -> RepairGenConfig:
        """The generator config for the current level."""
        lo, hi, mag = LEVELS[self.level]
        return replace(self.base, min_repairs=lo, max_repairs=hi, magnitude=mag)


# ---------------------------------------------------------------------- output
def write_vector_bench_layout(
    tasks: Sequence[Task] | Iterator[Task], out: str | Path
) -> list[Path]:
    """Write tasks as Vector-Bench task files ``<out>/data/tasks/sv_<task_id>.json``.

    Each file holds one task object with the published field names (``task_id``,
    ``instruction``, ``initial_svg``, ``target_svg``, ``expected_diff``, ``should_preserve``,
    plus ``difficulty``, ``category`` and RepairGen's ``metadata``), so
    :func:`vector_gym.tasks.vector_bench.load_vector_bench` reads the folder back.

    Returns
    -------
    list of Path
        The written files, in task order.
    """
    folder = Path(out) / "data" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for t in tasks:
        meta = t.meta()
        obj = {
            "task_id": t.task_id,
            "instruction": t.instruction,
            "initial_svg": t.source_svg,
            "target_svg": t.target_svg,
            "expected_diff": [e.to_dict() for e in t.requested_edits],
            "should_preserve": list(t.protected_ids),
            "category": FAMILY,
            "difficulty": meta.get("difficulty"),
            "input_svg_role": "disturbed",
            "target_svg_role": "clean",
        }
        for k, v in meta.items():
            obj.setdefault(k, v)
        path = folder / f"sv_{t.task_id}.json"
        path.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written
