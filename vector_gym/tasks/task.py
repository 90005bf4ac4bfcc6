"""The ``Task`` record: one benchmark episode's fixed data.

A task holds what the policy sees (the instruction and the source SVG) and what
only the scorer sees (the target SVG, the requested edits E and the protected
element ids U). Records are frozen and hashable; ``integrity_hash`` is a SHA-256
over a canonical JSON form, so a corpus can be checked against a recorded hash.

References
----------
Vector-Bench task objects: ``spec-reward.md`` section 1 (``task_id``, ``target_svg``,
``expected_diff``, ``should_preserve``; every other field is ignored by scoring).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RequestedEdit", "Task", "corpus_hash", "freeze_value", "thaw_value", "canonical_json"]

JSONScalar = bool | int | float | str | None


def freeze_value(value: Any) -> Any:
    """Turn JSON lists into tuples (recursively) so that values hash.

    Examples
    --------
    >>> freeze_value([[1, 2], [3, 4]])
    ((1, 2), (3, 4))
    >>> freeze_value("#fff")
    '#fff'
    """
    if isinstance(value, list | tuple):
        return tuple(freeze_value(v) for v in value)
    if isinstance(value, Mapping):
        return tuple((k, freeze_value(v)) for k, v in value.items())
    return value


def thaw_value(value: Any) -> Any:
    """Inverse of :func:`freeze_value` for list values: tuples become lists.

    Examples
    --------
    >>> thaw_value(((1, 2), (3, 4)))
    [[1, 2], [3, 4]]
    """
    if isinstance(value, tuple):
        return [thaw_value(v) for v in value]
    return value


def canonical_json(obj: Any) -> str:
    """Serialise ``obj`` as canonical JSON (sorted keys, no spaces, UTF-8 kept)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class RequestedEdit:
    """One requested edit e in E (Vector-Bench ``expected_diff`` item).

    Parameters
    ----------
    part : str
        Element id of the edited part; ``"__svg"`` denotes the document root.
    attribute : str
        Attribute name, or ``"exists"`` for an insertion (``before=False``,
        ``after=True``) or deletion (``before=True``, ``after=False``).
    before, after
        The corrupted (source) and repaired (target) values. Their JSON type drives
        the comparison kind (spec section 8.1): bool, number, list (nested tuples
        here) or string.
    extra : tuple of (key, value) pairs
        Every other key of the item (``removed``, ``added``, ``insert_index``, ...),
        kept for round-tripping; never read by scoring (spec section 1).
    """

    part: str
    attribute: str
    before: Any = None
    after: Any = None
    extra: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> RequestedEdit:
        """Build from an ``expected_diff`` item; raises ``KeyError`` if ``part``/``attribute`` is missing."""
        known = {"part", "attribute", "before", "after"}
        return cls(
            part=str(item["part"]),
            attribute=str(item["attribute"]),
            before=freeze_value(item.get("before")),
            after=freeze_value(item.get("after")),
            extra=tuple((k, freeze_value(v)) for k, v in item.items() if k not in known),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the ``expected_diff`` item as plain JSON types (lists, not tuples)."""
        out: dict[str, Any] = {
            "part": self.part,
            "attribute": self.attribute,
            "before": thaw_value(self.before),
            "after": thaw_value(self.after),
        }
        for k, v in self.extra:
            out[k] = thaw_value(v)
        return out


@dataclass(frozen=True, slots=True)
class Task:
    """One editing task (one episode's fixed data).

    Parameters
    ----------
    task_id : str
        Unique id within its corpus, e.g. ``"sv_001"``.
    family : str
        Corpus or generator family: ``"vector-bench"``, ``"svgeditbench-v1"``,
        ``"svgeditbench-v2"``, ``"repairgen"``.
    instruction : str
        The natural-language request shown to the policy.
    source_svg : str
        The SVG the policy receives (Vector-Bench ``initial_svg``).
    target_svg : str
        The hidden reference SVG S*; never shown to the policy.
    requested_edits : tuple of RequestedEdit
        E (Vector-Bench ``expected_diff``); empty for raster-scored corpora.
    protected_ids : tuple of str
        U (Vector-Bench ``should_preserve``).
    metadata : tuple of (key, value) pairs
        Everything else (difficulty, category, emoji name, provenance ...).
        Use :meth:`meta` for a dict view.
    """

    task_id: str
    family: str
    instruction: str
    source_svg: str
    target_svg: str
    requested_edits: tuple[RequestedEdit, ...] = ()
    protected_ids: tuple[str, ...] = ()
    metadata: tuple[tuple[str, Any], ...] = field(default=())

    def meta(self) -> dict[str, Any]:
        """Return ``metadata`` as a dict with JSON types (lists, not tuples)."""
        return {k: thaw_value(v) for k, v in self.metadata}

    def to_dict(self) -> dict[str, Any]:
        """Return the task as plain JSON types (inverse of :meth:`from_dict`)."""
        return {
            "task_id": self.task_id,
            "family": self.family,
            "instruction": self.instruction,
            "source_svg": self.source_svg,
            "target_svg": self.target_svg,
            "requested_edits": [e.to_dict() for e in self.requested_edits],
            "protected_ids": list(self.protected_ids),
            "metadata": self.meta(),
        }

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> Task:
        """Build a task from :meth:`to_dict` output."""
        return cls(
            task_id=str(obj["task_id"]),
            family=str(obj.get("family", "")),
            instruction=str(obj["instruction"]),
            source_svg=str(obj["source_svg"]),
            target_svg=str(obj["target_svg"]),
            requested_edits=tuple(RequestedEdit.from_dict(e) for e in obj.get("requested_edits", ())),
            protected_ids=tuple(str(u) for u in obj.get("protected_ids", ())),
            metadata=tuple((str(k), freeze_value(v)) for k, v in dict(obj.get("metadata", {})).items()),
        )

    @property
    def integrity_hash(self) -> str:
        """SHA-256 (hex) of the canonical JSON of :meth:`to_dict` (computed once per task: the
        report caches key every scored answer by it)."""
        try:
            return _remembered_hash(self)
        except TypeError:  # built with unhashable metadata (not frozen): not kept
            return _digest(self)


def _digest(task: Task) -> str:
    return hashlib.sha256(canonical_json(task.to_dict()).encode("utf-8")).hexdigest()


# keyed by the (frozen, hashable) task; equal tasks have equal hashes by definition
_remembered_hash = functools.lru_cache(maxsize=2048)(_digest)


def corpus_hash(tasks: Sequence[Task]) -> str:
    """SHA-256 (hex) over the tasks' integrity hashes, in order."""
    h = hashlib.sha256()
    for t in tasks:
        h.update(t.integrity_hash.encode("ascii"))
        h.update(b"\n")
    return h.hexdigest()

