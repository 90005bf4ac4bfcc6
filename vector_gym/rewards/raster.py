"""Raster metrics and the raster scorer of SVGEditBench v1 and V2.

Metrics (each is also usable alone):

* :func:`mse`: mean squared error of uint8 ``(N, H, W, 3)`` images scaled to [0, 1]
  (224 px for V2, 72 px for v1), averaged over pixels and the 3 channels;
* DINOv2 cosine and CLIPScore: :mod:`vector_gym.rewards.embeddings` (weights from a
  local directory or the local hub cache; missing weights give ``None``);
* the two-step Chamfer distance: :mod:`vector_gym.rewards.chamfer`;
* :func:`compression_ratio`: output size / source size in UTF-8 bytes (v1 Compression).

:class:`RasterScorer` implements the env scorer protocol
(``score_response(task, response) -> RasterReport``) and a batched
:meth:`RasterScorer.score_many`. Extraction follows the V2 scripts
(:func:`extract_svg_v2`); rendering uses :func:`vector_gym.render.render_many`
(``backend="cairosvg"`` reproduces the papers; skia is the fast default).

Scalar reward (documented choice, not from the papers)
------------------------------------------------------
``reward = 0`` when extraction or rendering failed. Otherwise, with ``mse_src`` the MSE of
the unedited source against the target:

* V2 and the v1 kinds other than Compression: ``max(0, 1 - mse / mse_src)``, the
  fraction of the source's pixel error that the edit removed (unchanged source: 0;
  exact target: 1; worse than the source: 0). When ``mse_src == 0`` it is
  ``max(0, 1 - mse / MSE_TOLERANCE)``.
* v1 Compression (target = source): ``max(0, 1 - mse / MSE_TOLERANCE) *
  max(0, 1 - compression_ratio)``: it must look the same *and* be smaller.

``info["report"]`` carries every metric unshaped, so any other reward can be computed.

References
----------
SVGEditBench V2 (arXiv:2502.19453), section 3.3, Table 1; upstream
``src/9_calculate_metrics.py``, ``src/evaluation/mse.py``, ``src/inference/vllm.py``
(SVGEditBenchV2 7e7879a); SVGEditBench (arXiv:2404.13710), evaluation (CairoSVG, 72 x 72,
white, MSE; compression ratio); ``metrics-svgeditbench.md``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from vector_gym.rewards.chamfer import chamfer_or_none
from vector_gym.svg.extract import extract_svg_v2
from vector_gym.tasks.task import Task

__all__ = [
    "EXTRACTION_ERROR",
    "PARSING_ERROR",
    "TARGET_RENDER_FAILED",
    "FAILURE_REASONS",
    "MSE_TOLERANCE",
    "V1_SIZE",
    "V2_SIZE",
    "RasterReport",
    "RasterScorer",
    "mse",
    "compression_ratio",
    "extract_svg_v2",
    "summarize_reports",
]

# -- failure reasons (closed set; the paper's two error columns plus one of ours) ----------
EXTRACTION_ERROR = "extraction_error"
"""No SVG could be extracted from the response (V2 "Extraction" error rate)."""
PARSING_ERROR = "parsing_error"
"""The extracted SVG failed to render (V2 "Parsing" error rate)."""
TARGET_RENDER_FAILED = "target_render_failed"
"""The task's own target failed to render (a corpus problem, never the policy's)."""
FAILURE_REASONS = (EXTRACTION_ERROR, PARSING_ERROR, TARGET_RENDER_FAILED)

#: Image sizes (H, W) of the two benchmarks: V2 224 px (upstream IMG_SIZE), v1 72 px (paper).
V2_SIZE = (224, 224)
V1_SIZE = (72, 72)
#: MSE scale of the reward when the source already equals the target visually (see module doc).
MSE_TOLERANCE = 1e-3

def mse(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-image mean squared error of uint8 RGB images scaled to [0, 1].

    Parameters
    ----------
    a, b : uint8 arrays, (N, H, W, 3) or (H, W, 3)
        sRGB on white (as rendered); same shape.

    Returns
    -------
    (N,) float64 array (a float for single images)
        ``mean((a/255 - b/255)^2)`` over pixels and channels (channel order does not
        matter: upstream read BGR with OpenCV).

    Raises
    ------
    ValueError
        Shapes differ or dtype is not uint8.

    Examples
    --------
    >>> white = np.full((2, 2, 3), 255, np.uint8); black = np.zeros((2, 2, 3), np.uint8)
    >>> float(mse(white, black)), float(mse(white, white))
    (1.0, 0.0)
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape or a.dtype != np.uint8 or b.dtype != np.uint8 or a.ndim not in (3, 4):
        raise ValueError(f"mse: expected two uint8 arrays of one shape (N, H, W, 3), got {a.dtype} {a.shape} and {b.dtype} {b.shape}")
    single = a.ndim == 3
    if single:
        a, b = a[None], b[None]
    out = np.array([_squared_error_sum(x, y) for x, y in zip(a, b, strict=True)], dtype=np.int64)
    out = out / (255.0 * 255.0 * a[0].size) if len(a) else out.astype(np.float64)
    return out[0] if single else out


def _squared_error_sum(a: np.ndarray, b: np.ndarray) -> int:
    """Exact sum of squared differences of two uint8 images of one shape (:func:`mse`'s sum)."""
    # exact integer sums, one image at a time: a whole batch's int32 temporaries (38 MB for
    # 32 images at 224 px) cost page faults and cache misses that one image's do not
    d = a.astype(np.int32)
    d -= b
    d *= d  # at most 255**2: fits int32; the sum is taken in int64
    return int(d.sum(dtype=np.int64))


def _pair_mse(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`mse` of two ``(H, W, 3)`` uint8 images (same value, no checks, no batch array)."""
    return _squared_error_sum(a, b) / (255.0 * 255.0 * a.size)


def compression_ratio(output_svg: str, source_svg: str) -> float:
    """Return ``len(output) / len(source)`` in UTF-8 bytes (SVGEditBench v1, Compression).

    Examples
    --------
    >>> compression_ratio("<svg/>", "<svg></svg>")
    0.5454545454545454
    """
    src = len(source_svg.encode("utf-8", "surrogatepass"))
    out = len(output_svg.encode("utf-8", "surrogatepass"))
    return out / src if src else math.inf


@dataclass(frozen=True, slots=True)
class RasterReport:
    """Outcome of scoring one response with raster metrics.

    Attributes
    ----------
    reward : float
        Scalar reward in [0, 1] (module docstring).
    failure_reasons : tuple of str
        Subset of :data:`FAILURE_REASONS`; empty when the output rendered.
    detail : tuple of str
        Our own codes: the extraction failure (``no_svg_found``, ``multiple_svg_blocks``,
        ``multiple_svg_documents``), the render error name, ``chamfer_excluded:<reason>``,
        ``dino_unavailable``, ``clip_unavailable``.
    mse, dino, clipscore, chamfer : float or None
        The V2 metrics (``None`` = not computed: failed, excluded, unavailable or not
        part of this benchmark). MSE on [0, 1] pixels; DINO cosine; CLIPScore in
        [0, 100]; Chamfer in squared user units.
    compression_ratio : float or None
        Output / source size (v1 Compression only).
    extraction_error, parsing_error : bool
        The V2 error columns.
    source_mse : float or None
        MSE of the unedited source against the target (the reward's baseline).
    """

    reward: float
    failure_reasons: tuple[str, ...] = ()
    detail: tuple[str, ...] = ()
    mse: float | None = None
    dino: float | None = None
    clipscore: float | None = None
    chamfer: float | None = None
    compression_ratio: float | None = None
    extraction_error: bool = False
    parsing_error: bool = False
    source_mse: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return plain JSON types (lists for tuples, ``None`` for missing or non-finite numbers)."""
        out: dict[str, Any] = {}
        for name in _REPORT_FIELDS:
            v = getattr(self, name)
            if isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, float) and not math.isfinite(v):
                v = None
            out[name] = v
        return out

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> RasterReport:
        """Inverse of :meth:`to_dict`."""
        kw = {f.name: obj.get(f.name) for f in fields(cls) if f.name in obj}
        for k in ("failure_reasons", "detail"):
            if k in kw:
                kw[k] = tuple(kw[k] or ())
        kw["reward"] = float(kw.get("reward") or 0.0)
        return cls(**kw)


_CACHE_LOCK = threading.Lock()
_REPORT_FIELDS = tuple(f.name for f in fields(RasterReport))  # to_dict's keys, in order


def _stack(idx: np.ndarray, *images: list) -> tuple[np.ndarray, ...]:
    """``(len(idx), H, W, 3)`` arrays of the images at ``idx`` of each list (learned metrics)."""
    return tuple(np.stack([imgs[i] for i in idx]) for imgs in images)


def _none_if_nan(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


class RasterScorer:
    """Score SVGEditBench responses with raster metrics (env scorer protocol).

    Parameters
    ----------
    benchmark : {"v2", "v1"}
        ``"v2"``: 224 px, MSE, DINO, CLIPScore, Chamfer. ``"v1"``: 72 px, MSE, and the
        compression ratio for Compression tasks.
    backend : {"skia", "resvg", "cairosvg"}
        Renderer (``"cairosvg"`` is the papers' renderer). With skia and resvg a cyclic
        ``<use>`` draws nothing and the rest draws, as in a browser; with ``"cairosvg"`` it is a
        Parsing error (detail ``use_cycle``), as the papers' CairoSVG recursion error was.
    size : (int, int), optional
        Override the benchmark's image size.
    dino_model, clip_model : str or None
        Local directory or hub id of the DINOv2 / CLIP weights (V2 only); ``None``
        disables the metric. Defaults are the paper's models, loaded with
        ``local_files_only`` (missing weights: the column is ``None``).
    chamfer : bool
        Compute the Chamfer distance (V2 only).
    local_files_only : bool
        Default True: never download weights.
    device : str
        Torch device of the learned metrics.
    processes : int, optional
        Render processes (``render_many``); ``0`` renders in this process.
    timeout_s : float
        Per-render limit (5 s as upstream).

    Notes
    -----
    Picklable before first use (holds names, not models); target and source renders are
    cached per scorer (:class:`vector_gym.render.RenderCache`).
    """

    def __init__(
        self,
        benchmark: str = "v2",
        backend: str = "skia",
        size: tuple[int, int] | None = None,
        dino_model: str | None = "facebook/dinov2-giant",
        clip_model: str | None = "openai/clip-vit-base-patch32",
        chamfer: bool = True,
        local_files_only: bool = True,
        device: str = "cpu",
        processes: int | None = None,
        timeout_s: float = 5.0,
    ) -> None:
        from vector_gym.errors import ConfigError

        if benchmark not in ("v1", "v2"):
            raise ConfigError(f"benchmark: expected 'v1' or 'v2', got {benchmark!r}")
        if backend not in ("skia", "resvg", "cairosvg"):
            raise ConfigError(f"backend: expected 'skia', 'resvg' or 'cairosvg', got {backend!r}")
        self.benchmark = benchmark
        self.backend = backend
        self.size = tuple(size) if size is not None else (V2_SIZE if benchmark == "v2" else V1_SIZE)
        self.dino_model = dino_model if benchmark == "v2" else None
        self.clip_model = clip_model if benchmark == "v2" else None
        self.chamfer = bool(chamfer) and benchmark == "v2"
        self.local_files_only = bool(local_files_only)
        self.device = device
        self.processes = processes
        self.timeout_s = float(timeout_s)
        self._cache = None
        from vector_gym.rewards.cache import ReportCache

        self.reports = ReportCache()

    # ---------------------------------------------------------------- helpers
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_cache"] = None
        return state

    def _render_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"processes": self.processes, "timeout_s": self.timeout_s}
        if self.backend == "cairosvg":  # the papers' scorer: a cyclic <use> is a Parsing error
            from vector_gym.render import RenderLimits

            kwargs["limits"] = RenderLimits(use_cycles="fail")
        return kwargs

    def _cached_with(self, svgs: list[str], extra: list[str]):
        from vector_gym.render import RenderCache

        if self._cache is None:
            with _CACHE_LOCK:  # a rollout scores parts of a batch in two threads
                if self._cache is None:
                    self._cache = RenderCache(max_items=4096, **self._render_kwargs())
        return self._cache.get_with(svgs, extra, size=self.size, background="white", backend=self.backend)

    def _dino(self):
        if self.dino_model is None:
            return None
        from vector_gym.rewards.embeddings import load_dino

        return load_dino(self.dino_model, device=self.device, local_files_only=self.local_files_only)

    def _clip(self):
        if self.clip_model is None:
            return None
        from vector_gym.rewards.embeddings import load_clip

        return load_clip(self.clip_model, device=self.device, local_files_only=self.local_files_only)

    def _is_compression(self, task: Task) -> bool:
        return self.benchmark == "v1" and task.meta().get("edit_kind") == "Compression"

    # ---------------------------------------------------------------- scoring
    def score_response(self, task: Task, response: str) -> RasterReport:
        """Extract the SVG from ``response`` (V2 rule) and score it; never raises for policy output."""
        return self.score_many([task], [response])[0]

    def score(self, task: Task, produced_svg: str | None) -> RasterReport:
        """Score an already extracted SVG (``None``: extraction failed)."""
        return self.score_many([task], [produced_svg], extracted=True)[0]

    def score_many(self, tasks: Sequence[Task], responses: Sequence[str | None], extracted: bool = False) -> list[RasterReport]:
        """Score a batch (one render batch, batched learned metrics; reports of raw responses cached).

        Reports of raw string responses are kept in this scorer's
        :class:`~vector_gym.rewards.cache.ReportCache` (bounded in bytes), so scoring a batch
        and then stepping an env through the same answers renders each answer once.

        Parameters
        ----------
        tasks : sequence of Task
        responses : sequence of str or None
            Raw responses, or extracted SVGs when ``extracted`` is True.
        extracted : bool

        Returns
        -------
        list of RasterReport
            One per task, in order.

        Raises
        ------
        ValueError
            ``len(tasks) != len(responses)`` (a programmer error).
        """
        if len(tasks) != len(responses):
            raise ValueError(f"score_many: expected as many responses as tasks, got {len(responses)} and {len(tasks)}")
        if extracted:
            return self._score_many(tasks, responses, True)
        return self.reports.score_many(tasks, responses, lambda ts, rs: self._score_many(ts, rs, False))

    def _score_many(self, tasks: Sequence[Task], responses: Sequence[str | None], extracted: bool) -> list[RasterReport]:
        n = len(tasks)
        svgs: list[str | None] = []
        details: list[list[str]] = [[] for _ in range(n)]
        for i, r in enumerate(responses):
            if extracted:
                svg = r if isinstance(r, str) else None
                if svg is None:
                    details[i].append("no_svg_found")
            else:
                svg, why = extract_svg_v2(r) if isinstance(r, str) else (None, "no_svg_found")
                if why:
                    details[i].append(why)
            svgs.append(svg)
        if n == 0:
            return []
        # targets and sources (cached per task) and the answers in one render batch: one pool
        # round trip per batch; the images are read without copying them into batch arrays
        todo = [i for i in range(n) if svgs[i] is not None]
        both, outs = self._cached_with(
            [t.target_svg for t in tasks] + [t.source_svg for t in tasks], [svgs[i] for i in todo]
        )
        target_img = [e[0] for e in both[:n]]
        target_ok = np.array([e[1] is None for e in both[:n]], dtype=bool)
        src_ok = np.array([e[1] is None for e in both[n:]], dtype=bool) & target_ok
        out_img: list[np.ndarray | None] = [None] * n
        rendered = np.zeros(n, dtype=bool)
        for k, i in enumerate(todo):
            if outs.ok[k]:
                out_img[i] = outs.images[k]
                rendered[i] = True
            else:
                details[i].append(str(outs.errors[k]))
        good = rendered & target_ok
        mses = [_pair_mse(out_img[i], target_img[i]) if good[i] else None for i in range(n)]
        src_mses = [_pair_mse(both[n + i][0], target_img[i]) if src_ok[i] else None for i in range(n)]

        dino_vals = np.full(n, np.nan)
        clip_vals = np.full(n, np.nan)
        if good.any() and self.dino_model is not None:
            dino = self._dino()
            if dino is None:
                for i in np.flatnonzero(good):
                    details[i].append("dino_unavailable")
            else:
                idx = np.flatnonzero(good)
                dino_vals[idx] = dino.cosine(*_stack(idx, out_img, target_img))
        if good.any() and self.clip_model is not None:
            clip = self._clip()
            if clip is None:
                for i in np.flatnonzero(good):
                    details[i].append("clip_unavailable")
            else:
                idx = np.flatnonzero(good)
                texts = [str(tasks[i].meta().get("target_name") or "") for i in idx]
                clip_vals[idx] = clip.score(_stack(idx, out_img)[0], texts)

        reports = []
        for i, task in enumerate(tasks):
            svg = svgs[i]
            reasons: list[str] = []
            if svg is None:
                reasons.append(EXTRACTION_ERROR)
            elif not rendered[i]:
                reasons.append(PARSING_ERROR)
            if not target_ok[i]:
                reasons.append(TARGET_RENDER_FAILED)
            src_mse = src_mses[i]
            if reasons:
                reports.append(
                    RasterReport(
                        reward=0.0,
                        failure_reasons=tuple(reasons),
                        detail=tuple(details[i]),
                        extraction_error=svg is None,
                        parsing_error=svg is not None and not rendered[i],
                        source_mse=src_mse,
                    )
                )
                continue
            m = mses[i]
            chamfer = None
            if self.chamfer:
                chamfer, why = chamfer_or_none(svg, task.target_svg)
                if why is not None:
                    details[i].append(f"chamfer_excluded:{why}")
            ratio = compression_ratio(svg, task.source_svg) if self._is_compression(task) else None
            if ratio is not None:
                reward = max(0.0, 1.0 - m / MSE_TOLERANCE) * max(0.0, 1.0 - ratio)
            elif src_mse is not None and src_mse > 0:
                reward = max(0.0, 1.0 - m / src_mse)
            else:
                reward = max(0.0, 1.0 - m / MSE_TOLERANCE)
            reports.append(
                RasterReport(
                    reward=float(reward),
                    failure_reasons=(),
                    detail=tuple(details[i]),
                    mse=m,
                    dino=_none_if_nan(dino_vals[i]),
                    clipscore=_none_if_nan(clip_vals[i]),
                    chamfer=_none_if_nan(chamfer),
                    compression_ratio=_none_if_nan(ratio),
                    source_mse=src_mse,
                )
            )
        return reports

    def __repr__(self) -> str:
        return f"RasterScorer(benchmark={self.benchmark!r}, backend={self.backend!r}, size={self.size})"


def summarize_reports(reports: Sequence[RasterReport | dict[str, Any]]) -> dict[str, Any]:
    """Aggregate reports as SVGEditBench V2 Table 1 does.

    Each metric is the mean over the reports where it was computed (``None`` when none
    was); the error rates are fractions of all reports.

    Returns
    -------
    dict
        ``n``, ``mse``, ``dino``, ``clipscore``, ``chamfer``, ``compression_ratio``,
        ``extraction_error``, ``parsing_error``, ``reward``, and ``n_<metric>`` counts.

    Examples
    --------
    >>> s = summarize_reports([RasterReport(reward=1.0, mse=0.0), RasterReport(reward=0.0, extraction_error=True)])
    >>> s["mse"], s["extraction_error"], s["n_mse"]
    (0.0, 0.5, 1)
    """
    rows = [r.to_dict() if isinstance(r, RasterReport) else dict(r) for r in reports]
    out: dict[str, Any] = {"n": len(rows)}
    for key in ("mse", "dino", "clipscore", "chamfer", "compression_ratio", "reward"):
        vals = [float(r[key]) for r in rows if r.get(key) is not None]
        out[key] = float(np.mean(vals)) if vals else None
        out[f"n_{key}"] = len(vals)
    for key in ("extraction_error", "parsing_error"):
        out[key] = float(np.mean([bool(r.get(key)) for r in rows])) if rows else None
    return out
