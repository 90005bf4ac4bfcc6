"""RepairGen: seeded, procedurally generated repair tasks scored by the specification reward.

Task source: a generator, not a corpus. ``tasks(split, n=, start=, seed=)`` generates tasks
``start .. start + n - 1`` of the dataset seed; ``get_task(task_id)`` regenerates any generated
id ``rg-{split}-s{seed}-{idx:07d}`` (the suite's generator settings, that split and seed), so a
reward function or a rollout can score a task it never listed. Tasks generated through the suite
(an env with a curriculum included) are remembered (the last 4,096), so an id resolves to the
exact task even when the generator settings that made it have moved on.

Splits: ``"test"`` (held-out scenes, the default for evaluation), ``"train"``, ``"all"``; split
by scene, never shared (:mod:`vector_gym.tasks.repairgen_sources`).

Scalar reward, extraction, templates, token budget and summary: as Vector-Bench
(:mod:`vector_gym.suites.vector_bench`): ``specification_reward + progress_weight *
repair_progress`` with ``progress_weight = 0.2``.

Options: ``config`` (:class:`~vector_gym.tasks.repairgen.RepairGenConfig` or mapping; its
``split`` is ignored), ``seed`` (dataset seed, default 0), ``n`` (tasks per split listing,
default 20), ``parity``, ``progress_weight``, ``processes``.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from vector_gym.errors import ConfigError, UnknownTaskError
from vector_gym.suites import register_suite
from vector_gym.suites.vector_bench import SpecSuite
from vector_gym.tasks.task import Task

__all__ = ["DEFAULT_N", "RepairGenSuite", "parse_task_id"]

#: Tasks listed per split by ``tasks()`` without ``n`` (the size of Vector-Bench).
DEFAULT_N = 20

_ID = re.compile(r"rg-(train|test|all)-s(\d+)-(\d{7,})")
_REMEMBER = 4096


def parse_task_id(task_id: Any) -> tuple[str, int, int] | None:
    """``(split, seed, idx)`` of a generated id, or None.

    Examples
    --------
    >>> parse_task_id("rg-test-s3-0000012"), parse_task_id("sv_001")
    (('test', 3, 12), None)
    """
    m = _ID.fullmatch(task_id) if isinstance(task_id, str) else None
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


class RepairGenSuite(SpecSuite):
    """Generated repair tasks (module docstring)."""

    generated = True

    def __init__(self, *, config: Any = None, seed: int = 0, n: int = DEFAULT_N, **options: Any) -> None:
        from vector_gym.tasks.repairgen import RepairGenConfig

        if config is None:
            config = RepairGenConfig()
        elif isinstance(config, Mapping):
            config = RepairGenConfig.from_dict(config)
        elif not isinstance(config, RepairGenConfig):
            raise ConfigError(f"config: expected a RepairGenConfig or mapping, got {type(config).__name__}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ConfigError(f"seed: expected a non-negative int, got {seed!r}")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"n: expected an int >= 1, got {n!r}")
        self.config = config
        self.seed = seed
        self.n = n
        self._generators: dict[Any, Any] = {}
        self._seen: OrderedDict[str, Task] = OrderedDict()
        super().__init__(
            "repairgen",
            aliases=("repair-gen",),
            env_id="vector_gym/RepairGen-v0",
            family="repairgen",
            splits=("test", "train", "all"),
            description="RepairGen: generated visual repair tasks, specification reward",
            options={"config": config, "seed": seed, "n": n},
            **options,
        )

    def generator(self, split: str = "test", seed: int | None = None, config: Any = None) -> Any:
        """The :class:`~vector_gym.tasks.repairgen.RepairGenerator` of a split and seed (cached)."""
        from vector_gym.tasks.repairgen import RepairGenerator

        cfg = replace(config or self.config, split=self._check_split(split))
        seed = self.seed if seed is None else seed
        key = (cfg, seed)
        gen = self._generators.get(key)
        if gen is None:
            gen = self._generators[key] = RepairGenerator(cfg, seed=seed)
        return gen

    def remember(self, task: Task) -> Task:
        """Record a generated task so that :meth:`get_task` returns it exactly; returns it."""
        with self._lock:
            self._seen[task.task_id] = task
            self._seen.move_to_end(task.task_id)
            while len(self._seen) > _REMEMBER:
                self._seen.popitem(last=False)
        return task

    def generate(self, idx: int, split: str = "test", seed: int | None = None, config: Any = None) -> Task:
        """Generate (and remember) task ``idx`` of a split and seed."""
        return self.remember(self.generator(split, seed, config).generate(idx))

    def tasks(self, split: str | None = None, *, n: int | None = None, start: int = 0,
              seed: int | None = None, **kw: Any) -> list[Task]:
        """Tasks ``start .. start + n - 1`` of a split (default ``"test"``, ``n`` the suite's)."""
        if kw:
            raise ConfigError(f"suite {self.name!r}: tasks() takes no {sorted(kw)}")
        split = self._check_split(split)
        n = self.n if n is None else n
        if not isinstance(n, int) or n < 1 or not isinstance(start, int) or start < 0:
            raise ConfigError(f"expected n >= 1 and start >= 0, got n={n!r}, start={start!r}")
        return [self.generate(i, split, seed) for i in range(start, start + n)]

    def load_tasks(self, source: Any = None) -> list[Task]:
        """Written RepairGen tasks (``vector-gym generate``) load as Vector-Bench tasks; None: :meth:`tasks`."""
        if source is None:
            return self.tasks()
        from vector_gym.tasks.vector_bench import load_vector_bench

        return [self.remember(t) for t in load_vector_bench(source)]

    def get_task(self, task_id: str) -> Task:
        """The task with this generated id (remembered, else regenerated).

        Raises
        ------
        UnknownTaskError
            Not a RepairGen id (``rg-{split}-s{seed}-{idx:07d}``).
        """
        with self._lock:
            hit = self._seen.get(task_id) if isinstance(task_id, str) else None
        if hit is not None:
            return hit
        parsed = parse_task_id(task_id)
        if parsed is None:
            raise UnknownTaskError(
                f"suite 'repairgen' has no task {task_id!r}; expected a generated id rg-SPLIT-sSEED-IDX"
            )
        split, seed, idx = parsed
        return self.generate(idx, split, seed)


register_suite(RepairGenSuite())
