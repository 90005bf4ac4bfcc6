"""``vector_gym/SVGEditBench-v1`` and ``vector_gym/SVGEditBenchV2-v0``: :class:`EditEnv` on the
``svgeditbench_v1`` and ``svgeditbench_v2`` suites (raster metrics; scalar rewards documented in
:mod:`vector_gym.suites.svgeditbench_v2` and :mod:`vector_gym.suites.svgeditbench_v1`).

References
----------
SVGEditBench (arXiv:2404.13710) and SVGEditBench V2 (arXiv:2502.19453); the bundled data
READMEs under ``vector_gym/tasks/data/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from vector_gym.envs.base import DEFAULT_MAX_RESPONSE_CHARS, EditEnv
from vector_gym.envs.wrappers import env_factory
from vector_gym.rewards.embeddings import DEFAULT_CLIP_MODEL, DEFAULT_DINO_MODEL
from vector_gym.suites import get_suite
from vector_gym.tasks.task import Task

__all__ = ["SVGEditBenchV1Env", "SVGEditBenchV2Env", "make_svgeditbench_v1_env", "make_svgeditbench_v2_env", "v2_prompt"]


def v2_prompt(instruction: str, source_svg: str) -> str:
    """Return the SVGEditBench V2 user message (upstream ``src/inference/vllm.py``).

    Examples
    --------
    >>> v2_prompt("Make it red.", "<svg/>")
    'The following is the SVG code representing an image. Make it red. Only return the output SVG code.\\n\\n```svg\\n<svg/>\\n```'
    """
    return get_suite("svgeditbench_v2").template("svg").messages({"instruction": instruction, "svg": source_svg})[0][
        "content"
    ]


class SVGEditBenchV2Env(EditEnv):
    """SVGEditBench V2 episodes (1,683 triplets) scored with the paper's raster metrics.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled triplets; a path to JSON Lines in the bundled layout.
    backend : {"skia", "resvg", "cairosvg"}
        Renderer of the metrics (``"cairosvg"`` reproduces the paper).
    dino_model, clip_model : str or None
        Weights of the learned metrics (``None`` disables them; missing weights leave
        ``dino``/``clipscore`` as ``None`` in the report).
    chamfer, local_files_only, device, processes
        Scorer options (:class:`~vector_gym.rewards.raster.RasterScorer`).
    max_response_chars, task_order, render_mode
        See :class:`~vector_gym.envs.base.EditEnv`.

    Examples
    --------
    >>> env = SVGEditBenchV2Env(dino_model=None, clip_model=None, processes=0)
    >>> obs, info = env.reset(options={"task_id": "v2-0000"})
    >>> obs["instruction"]
    'Rotate the hour hand to 8 and the minute hand to 12.'
    >>> _, reward, terminated, _, info = env.step("```svg\\n" + obs["svg"] + "\\n```")
    >>> reward, terminated, round(info["report"]["mse"], 4), info["report"]["dino"]
    (0.0, True, 0.0149, None)
    """

    env_id = "vector_gym/SVGEditBenchV2-v0"

    def __init__(
        self,
        tasks: Sequence[Task] | str | Path | None = None,
        backend: str = "skia",
        dino_model: str | None = DEFAULT_DINO_MODEL,
        clip_model: str | None = DEFAULT_CLIP_MODEL,
        chamfer: bool = True,
        local_files_only: bool = True,
        device: str = "cpu",
        processes: int | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
    ) -> None:
        suite = get_suite(
            "svgeditbench_v2", backend=backend, dino_model=dino_model, clip_model=clip_model, chamfer=chamfer,
            local_files_only=local_files_only, device=device, processes=processes,
        )
        if isinstance(tasks, str | Path):
            tasks = suite.load_tasks(tasks)
        self.backend = backend
        super().__init__(
            suite, tasks=tasks, max_response_chars=max_response_chars, task_order=task_order, render_mode=render_mode
        )


class SVGEditBenchV1Env(EditEnv):
    """SVGEditBench v1 episodes (600 cases, six edit kinds) scored by 72 px MSE.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled 600 cases (or a JSON Lines path in the bundled layout).
    kinds : tuple of str, optional
        Keep only these edit kinds (e.g. ``("ChangeColor",)``).
    backend : {"skia", "resvg", "cairosvg"}
    processes : int, optional
    max_response_chars, task_order, render_mode
        See :class:`~vector_gym.envs.base.EditEnv`.

    Examples
    --------
    >>> env = SVGEditBenchV1Env(kinds=("Transparency",), processes=0)
    >>> obs, info = env.reset(seed=0)
    >>> info["metadata"]["edit_kind"], obs["svg"] in obs["instruction"]
    ('Transparency', True)
    """

    env_id = "vector_gym/SVGEditBench-v1"

    def __init__(
        self,
        tasks: Sequence[Task] | str | Path | None = None,
        kinds: tuple[str, ...] | None = None,
        backend: str = "skia",
        processes: int | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
    ) -> None:
        kinds = tuple(kinds) if kinds else None
        suite = get_suite("svgeditbench_v1", kinds=kinds, backend=backend, processes=processes)
        if isinstance(tasks, str | Path):
            tasks = suite.load_tasks(tasks)
        if tasks is not None and kinds:
            tasks = [t for t in tasks if t.meta().get("edit_kind") in kinds]
        self.backend = backend
        super().__init__(
            suite, tasks=tasks, max_response_chars=max_response_chars, task_order=task_order, render_mode=render_mode
        )


make_svgeditbench_v2_env = env_factory(SVGEditBenchV2Env)
make_svgeditbench_v1_env = env_factory(SVGEditBenchV1Env)
