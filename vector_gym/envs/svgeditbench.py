"""``vector_gym/SVGEditBench-v1`` and ``vector_gym/SVGEditBenchV2-v0``: raster-scored editing.

One episode = one task: the policy sees ``{"instruction", "svg"}`` (plus ``"image"``
with ``render_observation=(H, W)``) and answers once; :class:`RasterScorer` extracts the
SVG (the V2 scripts' rule: one ```` ```svg ```` block, else one bare ``<svg>...</svg>``),
renders it and the target, and fills ``info["report"]`` with every metric
(:class:`~vector_gym.rewards.raster.RasterReport`).

Prompt wording (``docs/protocols.md``; :mod:`vector_gym.policies.templates` builds it):

* V2: ``instruction`` is the triplet's editing instruction; the model reads one user
  message ``The following is the SVG code representing an image. {instruction} Only
  return the output SVG code.`` + blank line + the source in a ```` ```svg ```` fence
  (:func:`v2_prompt`).
* v1: ``instruction`` is the case's stored prompt (which already holds the source SVG),
  sent as one user message.

Scalar reward
-------------
V2 and v1 (except Compression): ``max(0, 1 - mse / mse_source)``, the fraction of the
unedited source's pixel MSE (against the target) that the edit removed, gated on an
extracted SVG that renders (0 otherwise); unchanged source 0, exact target 1. v1
Compression: ``max(0, 1 - mse / 1e-3) * max(0, 1 - compression_ratio)``. See
:mod:`vector_gym.rewards.raster`.

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
from vector_gym.rewards.embeddings import DEFAULT_CLIP_MODEL, DEFAULT_DINO_MODEL
from vector_gym.rewards.raster import RasterScorer
from vector_gym.tasks.svgeditbench import load_svgeditbench_v1, load_svgeditbench_v2
from vector_gym.tasks.task import Task

__all__ = ["SVGEditBenchV1Env", "SVGEditBenchV2Env", "v2_prompt"]


def v2_prompt(instruction: str, source_svg: str) -> str:
    """Return the SVGEditBench V2 user message (upstream ``src/inference/vllm.py``).

    Examples
    --------
    >>> v2_prompt("Make it red.", "<svg/>")
    'The following is the SVG code representing an image. Make it red. Only return the output SVG code.\\n\\n```svg\\n<svg/>\\n```'
    """
    return (
        f"The following is the SVG code representing an image. {instruction} "
        f"Only return the output SVG code.\n\n```svg\n{source_svg}\n```"
    )


class SVGEditBenchV2Env(EditEnv):
    """SVGEditBench V2 episodes (1,683 triplets) scored with the paper's raster metrics.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled triplets; a path to JSON Lines in the bundled layout.
    backend : {"skia", "resvg", "cairosvg"}
        Renderer of the metrics (``"cairosvg"`` reproduces the paper).
    dino_model, clip_model : str or None
        Weights of the learned metrics (local directory or hub id, loaded with
        ``local_files_only`` unless ``local_files_only=False``); ``None`` disables them.
        Missing weights leave ``dino``/``clipscore`` as ``None`` in the report.
    chamfer : bool
        Compute the Chamfer distance.
    local_files_only : bool
    device : str
        Torch device of the learned metrics.
    processes : int, optional
        Render processes (``0``: in this process).
    render_observation : (int, int), optional
        Add the rendered source as ``obs["image"]`` (``(H, W, 3)`` uint8).
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
    default_family = "svgeditbench-v2"

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
        render_observation: tuple[int, int] | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
        action_format: Literal["svg", "patch"] = "svg",
        max_turns: int = 1,
    ) -> None:
        if isinstance(tasks, str | Path) or tasks is None:
            tasks = load_svgeditbench_v2(tasks)
        scorer = RasterScorer(
            "v2",
            backend=backend,
            dino_model=dino_model,
            clip_model=clip_model,
            chamfer=chamfer,
            local_files_only=local_files_only,
            device=device,
            processes=processes,
        )
        super().__init__(
            tasks,
            scorer,
            max_response_chars=max_response_chars,
            task_order=task_order,
            render_mode=render_mode,
            render_observation=render_observation,
            render_backend=backend,
            action_format=action_format,
            max_turns=max_turns,
        )

    @staticmethod
    def load_tasks(source: str | Path | None = None) -> list[Task]:
        """Load V2 triplets (bundled when ``source`` is None); used by the CLI's ``--tasks``."""
        return load_svgeditbench_v2(source)


class SVGEditBenchV1Env(EditEnv):
    """SVGEditBench v1 episodes (600 cases, six edit kinds) scored by 72 px MSE.

    Parameters
    ----------
    tasks : sequence of Task, path or None
        ``None`` for the bundled 600 cases (or a JSON Lines path in the bundled layout).
    kinds : tuple of str, optional
        Keep only these edit kinds (e.g. ``("ChangeColor",)``).
    backend : {"skia", "resvg", "cairosvg"}
        Renderer (the paper used CairoSVG).
    processes : int, optional
    render_observation : (int, int), optional
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
    default_family = "svgeditbench-v1"

    def __init__(
        self,
        tasks: Sequence[Task] | str | Path | None = None,
        kinds: tuple[str, ...] | None = None,
        backend: str = "skia",
        processes: int | None = None,
        render_observation: tuple[int, int] | None = None,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        task_order: Literal["random", "sequential"] = "random",
        render_mode: str | None = None,
        action_format: Literal["svg", "patch"] = "svg",
        max_turns: int = 1,
    ) -> None:
        if isinstance(tasks, str | Path) or tasks is None:
            tasks = load_svgeditbench_v1(tasks, kinds=tuple(kinds) if kinds else None)
        elif kinds:
            tasks = [t for t in tasks if t.meta().get("edit_kind") in kinds]
        super().__init__(
            tasks,
            RasterScorer("v1", backend=backend, processes=processes),
            max_response_chars=max_response_chars,
            task_order=task_order,
            render_mode=render_mode,
            render_observation=render_observation,
            render_backend=backend,
            action_format=action_format,
            max_turns=max_turns,
        )

    @staticmethod
    def load_tasks(source: str | Path | None = None) -> list[Task]:
        """Load v1 cases (bundled when ``source`` is None); used by the CLI's ``--tasks``."""
        return load_svgeditbench_v1(source)
