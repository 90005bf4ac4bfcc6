"""Build the static HTML report of one or more runs.

:func:`build_report` writes one self-contained folder (no network, no server, no external
script or stylesheet)::

    OUT/index.html            leaderboard (sortable), heat map, plot, task x run matrix
    OUT/tasks/<task>.html     one page per task: instruction, renders, overlays, checks
    OUT/img/*.png             renders (one file per distinct SVG) and difference overlays
    OUT/progress_ucr.png      repair progress against UCR per run (Vector-Bench Figure 6a)
    OUT/assets/report.css, OUT/assets/report.js

The leaderboard is :mod:`vector_gym.summary`'s eval table (the same numbers as ``vector-gym
eval`` prints). Every render goes through :func:`vector_gym.render.render_many` in batches,
each distinct SVG once. The report holds no scoring logic: gates, checks and changed parts are
read from each outcome's ``report``.
"""

from __future__ import annotations

import html
import json
import math
import re
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from vector_gym.report.families import (
    families_present,
    family_progress,
    operation_family,
)
from vector_gym.report.images import (
    MAX_BOXED_PARTS,
    RenderedImage,
    diff_overlay,
    mask_document,
    part_boxes,
    render_distinct,
    svg_key,
    write_png,
)
from vector_gym.report.leaderboard import Leaderboard, leaderboard
from vector_gym.report.plots import MAX_NAMED, progress_ucr_plot
from vector_gym.report.runs import Run, load_runs, tasks_for_runs
from vector_gym.runfile import action_format, replay_patches
from vector_gym.tasks.task import Task

__all__ = ["ReportResult", "build_report", "DEFAULT_SIZE", "RASTER_METRICS"]

DEFAULT_SIZE: tuple[int, int] = (180, 280)
"""``(H, W)`` in pixels of every picture of a task page (aspect-ratio fit)."""

RASTER_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("mse", "MSE", False),
    ("dino", "DINO", True),
    ("clipscore", "CLIPScore", True),
    ("chamfer", "Chamfer", False),
)
"""SVGEditBench report fields shown as leaderboard columns when outcomes carry them:
``(key, label, higher is better)`` (``metrics-svgeditbench.md``)."""

_GATES = (
    ("validity_pass", "valid"),
    ("repair_pass", "repair"),
    ("preservation_pass", "preserve"),
    ("near_pass", "near"),
)


@dataclass
class ReportResult:
    """What :func:`build_report` wrote.

    Attributes
    ----------
    index : Path
        ``OUT/index.html``.
    task_pages : dict of str to Path
        ``task_id -> page``.
    leaderboard : Leaderboard
        The eval table shown.
    timings : dict of str to float
        Seconds per stage (``load``, ``render``, ``images``, ``pages``, ``plot``, ``total``).
    renders : int
        Documents sent to the renderer (distinct SVG texts, masks included).
    """

    index: Path
    task_pages: dict[str, Path]
    leaderboard: Leaderboard
    timings: dict[str, float] = field(default_factory=dict)
    renders: int = 0


def _esc(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _safe_name(task_id: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]", "_", task_id)[:80] or "task"
    name, k = base, 1
    while name.lower() in used:
        k += 1
        name = f"{base}_{k}"
    used.add(name.lower())
    return name


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int | float):
        if isinstance(v, float) and not math.isfinite(v):
            return "–"
        return f"{v:.{digits}g}" if isinstance(v, float) else str(v)
    return str(v)


def _short(v: Any, n: int = 48) -> str:
    from vector_gym.tasks.task import thaw_value

    text = json.dumps(thaw_value(v), ensure_ascii=False) if not isinstance(v, str) else v
    return text if len(text) <= n else text[: n - 1] + "…"


def _page(title: str, body: str, depth: int) -> str:
    up = "../" * depth
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width\"><title>{_esc(title)}</title>"
        f"<link rel=\"stylesheet\" href=\"{up}assets/report.css\"></head>\n<body>\n{body}\n"
        f"<script src=\"{up}assets/report.js\"></script>\n</body></html>\n"
    )


def _heat_colour(q: float) -> str:
    # white (0) -> green (1), readable with dark text throughout
    q = min(1.0, max(0.0, q))
    r = round(255 - q * (255 - 34))
    g = round(255 - q * (255 - 197))
    b = round(255 - q * (255 - 94))
    return f"rgb({r},{g},{b})"


def _extract(response: Any) -> str | None:
    from vector_gym.svg.extract import extract_svg

    if not isinstance(response, str) or not response:
        return None
    try:
        return extract_svg(response)
    except Exception:  # noqa: BLE001 - a hostile response never stops the report
        return None


def _patched(row: dict[str, Any], rep: dict[str, Any], source_svg: str) -> str | None:
    """The document a patch-format row was scored on: its edit scripts replayed on the source.

    For rows without a run fingerprint (older run files, which do not name their action
    format): a row whose report says the produced document parsed although the response
    holds no SVG can only come from a patch env. A multi-turn
    row's ``responses`` are applied in order, a script that fails leaving the document as it
    was (as the env does, :mod:`vector_gym.envs.base`).
    """
    if not rep.get("produced_parse_ok"):
        return None
    doc, _, any_ok = replay_patches(row, source_svg)
    return doc if any_ok else None


@dataclass
class _Outcome:
    run: str
    row: dict[str, Any]
    report: dict[str, Any]
    svg: str | None
    changed: tuple[str, ...]


def _outcomes(
    runs: Sequence[Run], task_ids: Sequence[str], task_map: dict[str, Task]
) -> dict[str, list[_Outcome | None]]:
    per_task: dict[str, list[_Outcome | None]] = {t: [] for t in task_ids}
    for run in runs:
        first = run.first_outcomes()
        for tid in task_ids:
            row = first.get(tid)
            if row is None:
                per_task[tid].append(None)
                continue
            rep = row.get("report") if isinstance(row.get("report"), dict) else {}
            changed = tuple(str(p) for p in (rep.get("unexpected_changed_parts") or ()))
            fmt = action_format(row)  # from the run fingerprint; None for older rows
            if fmt == "patch":
                doc, _, any_ok = replay_patches(row, task_map[tid].source_svg)
                svg = doc if any_ok else None
            else:
                svg = _extract(row.get("response"))
                if svg is None and fmt is None:  # an older patch-format row (no fingerprint)
                    svg = _patched(row, rep, task_map[tid].source_svg)
            per_task[tid].append(_Outcome(run.name, row, rep, svg, changed))
    return per_task


def build_report(
    runs: Sequence[Run | str | Path],
    out_dir: str | Path,
    *,
    tasks: Iterable[Task] | None = None,
    size: tuple[int, int] = DEFAULT_SIZE,
    title: str = "vector_gym report",
) -> ReportResult:
    """Write the HTML report of ``runs`` into ``out_dir``.

    Parameters
    ----------
    runs : sequence of Run or path
        Runs, or run files (read with :func:`vector_gym.report.runs.load_runs`: one run per
        policy in a file). Two runs with the same name get their file names appended.
    out_dir : str or Path
        Output folder (created). The report lists what it writes in
        ``OUT/.vector_gym_report.json``; the files an earlier report there listed are
        deleted first, and nothing else is touched. A folder holding report-named files
        (``index.html``, ``assets/``, ``img/``, ``tasks/``, ``progress_ucr.png``) that no
        earlier report wrote is refused (ConfigError), so other files are never
        overwritten.
    tasks : iterable of Task, optional
        The tasks the runs refer to; default: loaded by each row's env (``EditEnv.load_tasks``).
    size : (int, int)
        ``(H, W)`` of every picture in pixels.
    title : str
        Page title.

    Returns
    -------
    ReportResult

    Raises
    ------
    ConfigError
        No runs, an unreadable run file, an unknown env, or a task id without a task.
    """
    from vector_gym.errors import ConfigError

    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    loaded: list[Run] = []
    for r in runs:
        loaded += [r] if isinstance(r, Run) else load_runs([r])
    if not loaded:
        raise ConfigError("expected at least one run, got none")
    seen: dict[str, int] = {}
    for r in loaded:
        seen[r.name] = seen.get(r.name, 0) + 1
    loaded = [
        Run(f"{r.name} ({Path(r.path).name})", r.rows, r.path) if seen[r.name] > 1 and r.path else r
        for r in loaded
    ]
    names: set[str] = set()
    for i, r in enumerate(loaded):  # still equal (the same file twice): number them
        name, k = r.name, 1
        while name in names:
            k += 1
            name = f"{r.name} #{k}"
        names.add(name)
        if name != r.name:
            loaded[i] = Run(name, r.rows, r.path)
    task_map = tasks_for_runs(loaded, tasks)
    board = leaderboard(loaded)
    order = {name: i for i, name in enumerate(board.order)}
    loaded.sort(key=lambda r: order.get(r.name, len(order)))

    referenced = {str(row.get("task_id")) for r in loaded for row in r.rows}
    task_ids = [tid for tid in task_map if tid in referenced]  # task-source order
    outcomes = _outcomes(loaded, task_ids, task_map)
    timings["load"] = time.perf_counter() - t0

    # --- render every distinct document once (sources, targets, outputs), then the masks
    t1 = time.perf_counter()
    docs: list[str] = []
    for tid in task_ids:
        docs += [task_map[tid].source_svg, task_map[tid].target_svg]
        docs += [o.svg for o in outcomes[tid] if o is not None and o.svg]
    rendered = render_distinct(docs, size)
    masks: dict[tuple[str, tuple[str, ...]], tuple[str, dict]] = {}
    for tid in task_ids:
        for o in outcomes[tid]:
            if o is not None and o.svg and o.changed and (o.svg, o.changed) not in masks:
                if o.svg in rendered and rendered[o.svg].ok:
                    m = mask_document(o.svg, o.changed)
                    if m is not None:
                        masks[(o.svg, o.changed)] = m
    mask_renders = render_distinct([m[0] for m in masks.values()], size)
    n_renders = len(rendered) + len(mask_renders)
    timings["render"] = time.perf_counter() - t1

    # --- PNG files
    t2 = time.perf_counter()
    out = Path(out_dir)
    _remove_owned(out)  # only what an earlier report here wrote (its manifest)
    for sub in ("img", "tasks", "assets"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for name in ("report.css", "report.js"):
        src = resources.files("vector_gym.report").joinpath("assets", name)
        with resources.as_file(src) as p:
            shutil.copyfile(p, out / "assets" / name)
    files: dict[str, str] = {}
    for svg, img in rendered.items():
        key = svg_key(svg)
        if img.ok:
            write_png(out / "img" / f"{key}.png", img.image)
        files[svg] = f"{key}.png"
    diffs: dict[tuple[str, str], tuple[str, float]] = {}
    for tid in task_ids:
        target = rendered.get(task_map[tid].target_svg)
        for o in outcomes[tid]:
            if o is None or not o.svg or target is None or not target.ok:
                continue
            img = rendered.get(o.svg)
            if img is None or not img.ok or (o.svg, task_map[tid].target_svg) in diffs:
                continue
            overlay, frac = diff_overlay(img.image, target.image)
            name = f"d_{svg_key(o.svg)}_{svg_key(task_map[tid].target_svg)}.png"
            write_png(out / "img" / name, overlay)
            diffs[(o.svg, task_map[tid].target_svg)] = (name, frac)
    boxes: dict[tuple[str, tuple[str, ...]], dict[str, tuple[float, float, float, float]]] = {}
    for k, (mdoc, colours) in masks.items():
        mimg = mask_renders.get(mdoc)
        if mimg is not None and mimg.ok:
            boxes[k] = part_boxes(mimg.image, colours)
    timings["images"] = time.perf_counter() - t2

    # --- pages
    t3 = time.perf_counter()
    used: set[str] = set()
    page_names = {tid: _safe_name(tid, used) for tid in task_ids}
    pages: dict[str, Path] = {}
    for i, tid in enumerate(task_ids):
        prev_id = task_ids[i - 1] if i > 0 else None
        next_id = task_ids[i + 1] if i + 1 < len(task_ids) else None
        body = _task_body(
            task_map[tid], loaded, outcomes[tid], rendered, files, diffs, boxes, masks, size,
            page_names, prev_id, next_id, title,
        )
        path = out / "tasks" / f"{page_names[tid]}.html"
        path.write_text(_page(f"{tid} – {title}", body, 1), encoding="utf-8")
        pages[tid] = path
    timings["pages"] = time.perf_counter() - t3

    t4 = time.perf_counter()
    plot_name = "progress_ucr.png"
    have_plot = progress_ucr_plot(board, out / plot_name)
    timings["plot"] = time.perf_counter() - t4

    index_body = _index_body(
        title, loaded, board, task_map, task_ids, outcomes, page_names,
        plot_name if have_plot else None,
    )
    index = out / "index.html"
    index.write_text(_page(title, index_body, 0), encoding="utf-8")
    _write_manifest(out)
    timings["total"] = time.perf_counter() - t0
    return ReportResult(index, pages, board, timings, n_renders)


# ------------------------------------------------------------------------ owned files
_MANIFEST = ".vector_gym_report.json"
_OWNED_TOP = ("index.html", "progress_ucr.png", "assets", "img", "tasks")


def _remove_owned(out: Path) -> None:
    """Delete the files an earlier report in ``out`` wrote; refuse a folder it does not own."""
    from vector_gym.errors import ConfigError

    manifest = out / _MANIFEST
    if out.exists() and not out.is_dir():
        raise ConfigError(f"report --out {str(out)!r}: exists and is not a folder")
    if not manifest.is_file():
        clash = [n for n in _OWNED_TOP if (out / n).exists()]
        if clash:
            raise ConfigError(
                f"report --out {str(out)!r} holds {', '.join(clash)} not written by vector-gym "
                "report (no .vector_gym_report.json); pass a new or empty folder"
            )
        return
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        raise ConfigError(f"report --out {str(out)!r}: unreadable {_MANIFEST}; remove it") from None
    root = out.resolve()
    for rel in listed if isinstance(listed, list) else []:
        p = (out / str(rel)).resolve()
        if root in p.parents and p.is_file():  # never outside the folder
            p.unlink()


def _write_manifest(out: Path) -> None:
    files = sorted(
        str(p.relative_to(out)) for n in _OWNED_TOP for p in [out / n, *(out / n).rglob("*")]
        if p.is_file()
    )
    (out / _MANIFEST).write_text(json.dumps({"files": files}, indent=0), encoding="utf-8")


# ----------------------------------------------------------------------------- index page


def _index_body(
    title: str,
    runs: Sequence[Run],
    board: Leaderboard,
    task_map: Mapping[str, Task],
    task_ids: Sequence[str],
    outcomes: Mapping[str, list[_Outcome | None]],
    page_names: Mapping[str, str],
    plot: str | None,
) -> str:
    parts = [f"<h1>{_esc(title)}</h1>"]
    envs = sorted({e for r in runs for e in r.env_ids()})
    parts.append(
        f"<p class=\"mute\">{len(runs)} run(s) · {len(task_ids)} task(s) · "
        f"env {_esc(', '.join(envs) or '–')} · rows: "
        f"{sum(len(r.rows) for r in runs)}</p>"
    )
    parts.append("<h2 id=\"leaderboard\">Leaderboard</h2>")
    parts.append(
        "<p class=\"small mute\">The eval table of <code>vector-gym eval</code> (percentages; "
        "Full with its 95% Wilson interval). Click a column to sort.</p>"
    )
    parts.append(_leaderboard_table(board, runs))

    fams = families_present([task_map[t] for t in task_ids])
    if fams:
        parts.append("<h2 id=\"families\">Repair progress by operation family</h2>")
        parts.append(
            "<p class=\"small mute\">Mean requested-edit repair progress q per family and run "
            "(Vector-Bench paper, Figure 7); undefined progress and missing outcomes count "
            "as 0. n = checks per run.</p>"
        )
        counts = {f: 0 for f in fams}
        for t in task_ids:
            for e in task_map[t].requested_edits:
                counts[operation_family(e)] += 1
        head = "".join(
            f"<th>{_esc(f)}<br><span class=\"small mute\">n={counts[f]}</span></th>" for f in fams
        )
        rows = []
        for run in runs:
            fp = family_progress(task_map, run.first_outcomes().values())
            cells = []
            for f in fams:
                q = fp.get(f, (0.0, 0))[0]
                cells.append(
                    f"<td data-v=\"{q:.6f}\" style=\"background:{_heat_colour(q)}\">{q:.2f}</td>"
                )
            rows.append(f"<tr><td class=\"l\">{_esc(run.name)}</td>{''.join(cells)}</tr>")
        parts.append(
            f"<table class=\"heat sortable\"><thead><tr><th class=\"l\">run</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
    if plot:
        parts.append("<h2 id=\"plot\">Repair progress against unintended change</h2>")
        parts.append(
            "<p class=\"small mute\">Per run: mean repair progress (x) against UCR (y); marker "
            "area grows with the full-pass rate; lower right is better (Vector-Bench paper, "
            f"Figure 6a).{' Numbers are leaderboard ranks.' if len(runs) > MAX_NAMED else ''}</p>"
        )
        parts.append(f"<img class=\"plot\" src=\"{plot}\" alt=\"progress against UCR\">")

    parts.append("<h2 id=\"tasks\">Tasks</h2>")
    parts.append(
        "<p class=\"small mute\">Status of each run's first sample per task (green PASS, lime "
        "NEAR, yellow PARTIAL, orange SIDE_EFFECTS, purple INVALID, red FAIL, grey error or "
        "missing). Click a cell or a task id for its page.</p>"
    )
    head = "".join(f"<th class=\"rot\"><div>{_esc(r.name)}</div></th>" for r in runs)
    body = []
    for tid in task_ids:
        link = f"tasks/{page_names[tid]}.html"
        cells = []
        for o in outcomes[tid]:
            st = _status(o)
            tip = f"{o.run}: {st}" if o else "missing"
            cells.append(
                f"<td class=\"cell st-{st}\"><a href=\"{link}\" title=\"{_esc(tip)}\"></a></td>"
            )
        instr = task_map[tid].instruction
        short = instr if len(instr) <= 90 else instr[:87] + "…"
        body.append(
            f"<tr><td class=\"l\"><a href=\"{link}\">{_esc(tid)}</a></td>{''.join(cells)}"
            f"<td class=\"l small mute\">{_esc(short)}</td></tr>"
        )
    parts.append(
        f"<table class=\"matrix\"><thead><tr><th class=\"l\">task</th>{head}"
        f"<th class=\"l\">instruction</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    return "\n".join(parts)


def _status(o: _Outcome | None) -> str:
    if o is None:
        return "NONE"
    st = o.report.get("status")
    if isinstance(st, str) and re.fullmatch(r"[A-Z_]+", st):
        return st
    if not o.report:
        return "ERR"
    return "PASS" if o.report.get("reward") == 1 else "FAIL"


def _raster_columns(runs: Sequence[Run]) -> list[tuple[str, str, dict[str, float]]]:
    cols = []
    for key, label, _ in RASTER_METRICS:
        means: dict[str, float] = {}
        for run in runs:
            vals = [
                float(r["report"][key])
                for r in run.rows
                if isinstance(r.get("report"), dict)
                and isinstance(r["report"].get(key), int | float)
                and not isinstance(r["report"].get(key), bool)
                and math.isfinite(float(r["report"][key]))
            ]
            if vals:
                means[run.name] = sum(vals) / len(vals)
        if means:
            cols.append((key, label, means))
    return cols


def _leaderboard_table(board: Leaderboard, runs: Sequence[Run]) -> str:
    raster = _raster_columns(runs)
    head = ["<th data-col=\"rank\">#</th>", "<th class=\"l\" data-col=\"run\">run</th>"]
    head += [f"<th data-col=\"{_esc(c.key)}\" title=\"{_esc(c.help)}\">{_esc(c.label)}</th>" for c in board.columns]
    head += [f"<th data-col=\"{k}\">{_esc(label)}</th>" for k, label, _ in raster]
    body = []
    for rank, row in enumerate(board.rows, 1):
        cells = [f"<td data-v=\"{rank}\">{rank}</td>", f"<td class=\"l\">{_esc(row.name)}</td>"]
        for c in board.columns:
            v = row.values.get(c.key)
            dv = "" if v is None else repr(float(v))
            hi = row.values.get("full_ci_high") if c.key == "full_ci" else None
            extra = "" if hi is None else f" data-hi=\"{hi!r}\""
            cells.append(
                f"<td data-col=\"{_esc(c.key)}\" data-v=\"{dv}\"{extra}>{_esc(row.text.get(c.key, '–'))}</td>"
            )
        for k, _, means in raster:
            v = means.get(row.name)
            cells.append(
                f"<td data-col=\"{k}\" data-v=\"{'' if v is None else repr(v)}\">"
                f"{'–' if v is None else f'{v:.4g}'}</td>"
            )
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f"<table class=\"sortable\" id=\"leaderboard-table\"><thead><tr>{''.join(head)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


# ----------------------------------------------------------------------------- task pages


def _picture(
    src: str | None, size: tuple[int, int], alt: str, fail: str | None = None, boxes: str = ""
) -> str:
    inner = (
        f"<img src=\"../img/{src}\" alt=\"{_esc(alt)}\" width=\"{size[1]}\" height=\"{size[0]}\">"
        if src
        else f"<div class=\"fail\">{_esc(fail or 'no picture')}</div>"
    )
    return f"<div class=\"pic\">{inner}{boxes}</div>"


def _gate_chips(report: Mapping[str, Any]) -> str:
    chips = []
    for key, label in _GATES:
        v = report.get(key)
        if v is None or (key == "near_pass" and not v):  # near is a mark, not a gate
            continue
        chips.append(f"<span class=\"gate {'y' if v else 'n'}\">{label} {'✓' if v else '✗'}</span>")
    return f"<div class=\"gates\">{''.join(chips)}</div>"


def _checks_table(report: Mapping[str, Any]) -> str:
    checks = report.get("checks") or []
    if not checks:
        return ""
    rows = []
    for c in checks:
        if not isinstance(c, Mapping):
            continue
        passed = c.get("passed")
        mark = "<span class=\"pass\">✓</span>" if passed else "<span class=\"miss\">✗</span>"
        rows.append(
            f"<tr><td class=\"l\" title=\"{_esc(c.get('comparison'))}\">{_esc(c.get('part'))}"
            f"<br><span class=\"mute\">{_esc(c.get('attribute'))}</span></td>"
            f"<td>{_fmt(c.get('distance'))}</td><td>{_fmt(c.get('tolerance'))}</td>"
            f"<td>{_fmt(c.get('progress'), 2)}</td><td>{mark}</td></tr>"
        )
    return (
        "<table class=\"checks\"><thead><tr><th class=\"l\">edit</th><th>dist.</th><th>tol.</th>"
        f"<th>q</th><th></th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _task_body(
    task: Task,
    runs: Sequence[Run],
    outcomes: Sequence[_Outcome | None],
    rendered: Mapping[str, RenderedImage],
    files: Mapping[str, str],
    diffs: Mapping[tuple[str, str], tuple[str, float]],
    boxes: Mapping[tuple[str, tuple[str, ...]], Mapping[str, tuple[float, float, float, float]]],
    masks: Mapping[tuple[str, tuple[str, ...]], tuple[str, Mapping[str, Any]]],
    size: tuple[int, int],
    page_names: Mapping[str, str],
    prev_id: str | None,
    next_id: str | None,
    title: str,
) -> str:
    h, w = size
    nav = ["<a href=\"../index.html\">↑ index</a>"]
    if prev_id:
        nav.append(f"<a href=\"{page_names[prev_id]}.html\">← {_esc(prev_id)}</a>")
    if next_id:
        nav.append(f"<a href=\"{page_names[next_id]}.html\">{_esc(next_id)} →</a>")
    parts = [f"<nav class=\"top\">{''.join(nav)}</nav>", f"<h1>{_esc(task.task_id)}</h1>"]
    parts.append(f"<p class=\"instruction\">{_esc(task.instruction)}</p>")
    if task.requested_edits:
        items = "".join(
            f"<tr><td class=\"l\">{_esc(e.part)}</td><td class=\"l\">{_esc(e.attribute)}</td>"
            f"<td class=\"l mute\">{_esc(operation_family(e))}</td>"
            f"<td class=\"l mute\">{_esc(_short(e.before))} → {_esc(_short(e.after))}</td></tr>"
            for e in task.requested_edits
        )
        parts.append(
            f"<p class=\"small mute\">Requested edits (E), {len(task.requested_edits)}; protected "
            f"elements (U), {len(task.protected_ids)}.</p>"
            f"<table class=\"small\"><thead><tr><th class=\"l\">part</th><th class=\"l\">attribute"
            f"</th><th class=\"l\">family</th><th class=\"l\">source → target value</th></tr></thead>"
            f"<tbody>{items}</tbody></table>"
        )
    style = f"style=\"--w:{w};--h:{h}\""
    cards = []

    def doc_card(label: str, svg: str) -> str:
        img = rendered.get(svg)
        ok = img is not None and img.ok
        pic = _picture(files.get(svg) if ok else None, size, label, None if ok else (img.error if img else None))
        return f"<div class=\"card\" {style}><h3>{_esc(label)}</h3><div class=\"pics\">{pic}</div></div>"

    cards.append(doc_card("source", task.source_svg))
    cards.append(doc_card("target", task.target_svg))
    for run, o in zip(runs, outcomes, strict=True):
        if o is None:
            cards.append(
                f"<div class=\"card\" {style}><h3>{_esc(run.name)}</h3>"
                f"{_picture(None, size, run.name, 'no outcome for this task')}</div>"
            )
            continue
        rep = o.report
        st = _status(o)
        head = (
            f"<h3 title=\"{_esc(run.name)}\"><span class=\"badge st-{st}\">{_esc(st)}</span> "
            f"{_esc(run.name)}</h3>"
        )
        if o.svg is None:
            why = "no SVG in the response" if o.row.get("response") else "empty response"
            pics = _picture(None, size, run.name, why)
        else:
            img = rendered.get(o.svg)
            ok = img is not None and img.ok
            box_html = ""
            found = boxes.get((o.svg, o.changed), {})
            for pid, (x, y, bw, bh) in found.items():
                box_html += (
                    f"<div class=\"box\" title=\"changed protected element {_esc(pid)}\" style=\""
                    f"left:{x * 100:.2f}%;top:{y * 100:.2f}%;width:{bw * 100:.2f}%;height:{bh * 100:.2f}%\">"
                    f"<span>{_esc(pid)}</span></div>"
                )
            pics = _picture(files.get(o.svg) if ok else None, size, f"{run.name} output",
                            None if ok else f"render failed: {img.error if img else '?'}", box_html)
            d = diffs.get((o.svg, task.target_svg))
            if d is not None:
                pics += _picture(d[0], size, "difference against the target")
                pics += f"<div class=\"caption\">difference to target: {d[1] * 100:.1f}% of pixels</div>"
        info = [f"reward {_fmt(rep.get('reward'))}"]
        if "repair_progress" in rep or "unintended_change_rate" in rep:
            info.append(f"progress {_fmt(rep.get('repair_progress'), 2)}")
            info.append(f"UCR {_fmt(rep.get('unintended_change_rate'), 2)}")
        for key, label, _ in RASTER_METRICS:
            if rep.get(key) is not None:
                info.append(f"{label} {_fmt(rep.get(key), 4)}")
        if o.row.get("truncated"):
            info.append("<span class=\"miss\">truncated</span>")
        if o.row.get("finish_reason") not in (None, "stop"):
            info.append(f"finish {_esc(o.row.get('finish_reason'))}")
        extra = ""
        if o.changed:
            drawn = boxes.get((o.svg, o.changed), {})
            found = masks.get((o.svg, o.changed), ("", {}))[1]
            shown = o.changed[:MAX_BOXED_PARTS]
            listed = ", ".join(
                _esc(p)
                + ("" if p in drawn else " (draws nothing)" if p in found else " (not in the output)")
                for p in shown
            )
            if len(o.changed) > len(shown):
                listed += f" and {len(o.changed) - len(shown)} more"
            extra += (
                f"<div class=\"changed\" title=\"{_esc(', '.join(o.changed))}\">"
                f"changed protected elements ({len(o.changed)}): {listed}</div>"
            )
        reasons = list(rep.get("failure_reasons") or [])
        detail = rep.get("detail")
        if detail:
            reasons += [detail] if isinstance(detail, str) else list(detail)
        if reasons:
            extra += f"<div class=\"reasons\">{_esc(', '.join(map(str, reasons)))}</div>"
        cards.append(
            f"<div class=\"card\" {style}>{head}<div class=\"pics\">{pics}</div>"
            f"{_gate_chips(rep)}<div class=\"small\">{' · '.join(info)}</div>{extra}"
            f"{_checks_table(rep)}</div>"
        )
    parts.append(
        "<h2>Source, target and outputs</h2><p class=\"small mute\">All at the same size. Each "
        "run's first sample: its render (changed protected elements boxed in red), below it the "
        "difference overlay against the target (target in grey, differing pixels red), then its "
        "gates and each requested-edit check (distance, tolerance, progress q, passed).</p>"
        f"<div class=\"cards\">{''.join(cards)}</div>"
    )
    return "\n".join(parts)
