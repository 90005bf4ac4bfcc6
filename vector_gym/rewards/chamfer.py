"""The two-step Chamfer distance of SVGEditBench V2, on SVG geometry (not pixels).

Definition (``metrics-svgeditbench.md``, "Chamfer"; paper section 3.3 and its
supplement; upstream ``src/evaluation/chamfer.py`` at SVGEditBenchV2 7e7879a):

1. Each document's shapes are collected by :func:`vector_gym.svg.shapes.document_shapes`
   (``g`` recurses and composes transforms; the seven basic shapes and ``path`` are
   kept; gradients, ``defs`` and ``mask`` are skipped; any other element makes the
   document unscorable: the paper's "excluded images").
2. Each shape is sampled at 100 whole-path parameters ``T = i/100``
   (:func:`vector_gym.svg.shapes.sample_path`) and transformed.
3. Shape distance of point sets P, Q: ``mean_p min_q |p-q|^2 + mean_q min_p |p-q|^2``
   (squared Euclidean, not square-rooted).
4. Image distance of shape sets A, B: ``mean_S min_T d(S, T) + mean_T min_S d(S, T)``.

Units are each file's user units (no viewBox normalisation), so pairs across emoji sets
(36-unit Twemoji, 128-unit Noto, 32-unit Fluent) dominate the average.

Nearest neighbours come from one :class:`scipy.spatial.cKDTree` per shape, queried with
all points of the other document at once, so the work is ``O((n_A + n_B) * 100 log 100)``
tree queries in C and no Python loop over points.
"""

from __future__ import annotations

import numpy as np

from vector_gym.errors import SVGParseError
from vector_gym.svg.parse import parse_svg
from vector_gym.svg.shapes import (
    UnscorableGeometry,
    document_shapes,
    parse_path_svgpathtools,
    sample_path,
)

__all__ = ["CHAMFER_SAMPLES", "shape_point_sets", "shape_distance_matrix", "chamfer_distance", "chamfer_or_none"]

#: Samples per shape in the V2 evaluation (``chamfer_distance(..., 100)`` upstream).
CHAMFER_SAMPLES = 100


def shape_point_sets(svg: str, n: int = CHAMFER_SAMPLES, max_shapes: int = 5000) -> np.ndarray:
    """Return the sampled, transformed shapes of one SVG document.

    Parameters
    ----------
    svg : str
        SVG text.
    n : int
        Samples per shape.
    max_shapes : int
        Bound on shapes (hostile input).

    Returns
    -------
    (S, n, 2) float64 array
        ``S >= 1`` shapes, user units of the document.

    Raises
    ------
    UnscorableGeometry
        The document is excluded from the Chamfer average (reason in
        :data:`vector_gym.svg.shapes.REASONS`; an unparseable document raises ``not_svg``).
    """
    try:
        root = parse_svg(svg)
    except SVGParseError as exc:
        raise UnscorableGeometry("not_svg", f"not parseable ({exc.reason})") from None
    shapes = document_shapes(root, max_shapes=max_shapes)
    if not shapes:
        raise UnscorableGeometry("no_shapes", "document without shapes")
    out = np.empty((len(shapes), n, 2), dtype=np.float64)
    for k, (_tag, d, m) in enumerate(shapes):
        pts = sample_path(parse_path_svgpathtools(d), n)
        out[k] = pts @ m[:2, :2].T + m[:2, 2]
    if not np.isfinite(out).all():
        raise UnscorableGeometry("degenerate_path", "non-finite coordinates")
    return out


def shape_distance_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the shape Chamfer distances ``D[i, j] = d(a_i, b_j)``.

    Parameters
    ----------
    a : (SA, n, 2) float array
    b : (SB, m, 2) float array

    Returns
    -------
    (SA, SB) float64 array
        ``mean_p min_q |p-q|^2 + mean_q min_p |p-q|^2`` per pair (squared user units).

    Examples
    --------
    >>> a = np.array([[[0.0, 0.0], [1.0, 0.0]]]); b = np.array([[[0.0, 1.0], [1.0, 1.0]]])
    >>> shape_distance_matrix(a, b).tolist()
    [[2.0]]
    """
    from scipy.spatial import cKDTree

    sa, n = a.shape[0], a.shape[1]
    sb, m = b.shape[0], b.shape[1]
    flat_a = a.reshape(-1, 2)
    flat_b = b.reshape(-1, 2)
    a_to_b = np.empty((sa, sb))  # mean over a_i's points of the min distance to b_j
    b_to_a = np.empty((sa, sb))  # mean over b_j's points of the min distance to a_i
    for j in range(sb):
        dist, _ = cKDTree(b[j]).query(flat_a, k=1)
        a_to_b[:, j] = (dist.reshape(sa, n) ** 2).mean(axis=1)
    for i in range(sa):
        dist, _ = cKDTree(a[i]).query(flat_b, k=1)
        b_to_a[i, :] = (dist.reshape(sb, m) ** 2).mean(axis=1)
    return a_to_b + b_to_a


def chamfer_distance(svg_a: str, svg_b: str, n: int = CHAMFER_SAMPLES) -> float:
    """Two-step Chamfer distance between two SVG documents (SVGEditBench V2).

    Parameters
    ----------
    svg_a, svg_b : str
        Output and reference SVG (the distance is symmetric).
    n : int
        Samples per shape (100 in the paper).

    Returns
    -------
    float
        ``mean_S min_T d(S, T) + mean_T min_S d(S, T)`` in squared user units; 0 for
        identical geometry.

    Raises
    ------
    UnscorableGeometry
        Either document is excluded (see :func:`shape_point_sets`).

    Examples
    --------
    >>> s = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>'
    >>> chamfer_distance(s, s)
    0.0
    >>> t = s.replace('<rect', '<rect x="1"')
    >>> round(chamfer_distance(s, t), 6)
    1.838336
    """
    a = shape_point_sets(svg_a, n)
    b = shape_point_sets(svg_b, n)
    d = shape_distance_matrix(a, b)
    return float(d.min(axis=1).mean() + d.min(axis=0).mean())


def chamfer_or_none(svg_a: str | None, svg_b: str | None, n: int = CHAMFER_SAMPLES) -> tuple[float | None, str | None]:
    """Return ``(distance, None)`` or ``(None, reason)`` when either document is excluded.

    Never raises for document content (policy output).
    """
    if svg_a is None or svg_b is None:
        return None, "no_svg"
    try:
        with np.errstate(all="ignore"):
            value = chamfer_distance(svg_a, svg_b, n)
    except UnscorableGeometry as exc:
        return None, exc.reason
    except (ValueError, ArithmeticError, IndexError, MemoryError, RecursionError):
        return None, "degenerate_path"
    if not np.isfinite(value):
        return None, "degenerate_path"
    return value, None
