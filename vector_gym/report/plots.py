"""Plots of the report (matplotlib, Agg backend, written as PNG files).

:func:`progress_ucr_plot` is the Vector-Bench paper's Figure 6a: per run, mean repair progress
(x) against the unintended change rate of valid outputs (y), with marker area growing with the
specification pass rate; lower right is preferable.
"""

from __future__ import annotations

from pathlib import Path

from vector_gym.report.leaderboard import Leaderboard

__all__ = ["MAX_NAMED", "progress_ucr_plot"]

MAX_NAMED = 12
"""Up to this many runs the points carry run names; beyond it, leaderboard ranks."""


def progress_ucr_plot(board: Leaderboard, path: str | Path, *, dpi: int = 110) -> bool:
    """Write the progress-against-UCR scatter plot of the leaderboard's runs.

    Parameters
    ----------
    board : Leaderboard
        Values are the eval table's percentages (``progress``, ``ucr``, ``full``).
    path : str or Path
        PNG file to write.
    dpi : int
        Resolution of the PNG.

    Returns
    -------
    bool
        False (and nothing written) when no run has both a progress value and a defined UCR
        (no run produced a valid output).

    References
    ----------
    Gupta & Hebbar 2026, *Vector-Bench*, Figure 6a ("marker area scales with specification
    pass rate and lower right is preferable").
    """
    pts = [
        (r.name, r.values.get("progress"), r.values.get("ucr"), r.values.get("full") or 0.0, rank)
        for rank, r in enumerate(board.rows, 1)
    ]
    pts = [p for p in pts if p[1] is not None and p[2] is not None]
    if not pts:
        return False
    from matplotlib.figure import Figure  # no pyplot: no global backend state is touched

    fig = Figure(figsize=(7.2, 4.8), dpi=dpi)
    ax = fig.add_subplot(1, 1, 1)
    xs = [p[1] for p in pts]
    ys = [p[2] for p in pts]
    sizes = [20 + 12 * p[3] for p in pts]  # area: 20 pt^2 at 0 %, 1220 pt^2 at 100 %
    ax.scatter(xs, ys, s=sizes, c="#2563eb", alpha=0.55, edgecolors="#1e3a8a", linewidths=0.8)
    # names when few runs; leaderboard ranks (the index's # column) when names would overlap
    for name, x, y, _, rank in pts:
        text = name if len(pts) <= MAX_NAMED else str(rank)
        # parse_math=False: a run name is data; "$\\foo$" must not reach matplotlib's mathtext
        ax.annotate(
            text, (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7, parse_math=False
        )
    ax.set_xlabel("mean repair progress (%)")
    ax.set_ylabel("UCR of valid outputs (%)")
    ax.set_xlim(left=min(0.0, min(xs) - 2), right=max(100.0, max(xs)) + 2)
    ax.set_ylim(bottom=min(0.0, min(ys)) - 2, top=max(max(ys) * 1.1, 5.0) + 2)
    ax.grid(True, alpha=0.3)
    ax.set_title("Repair progress vs unintended change (lower right is better)", fontsize=10)
    fig.tight_layout()
    fig.savefig(Path(path), format="png")
    return True
