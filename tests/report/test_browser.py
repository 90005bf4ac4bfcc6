"""The report in a real headless Chromium: screenshots are not blank, the pages log nothing.

Needs Debian's ``chromium`` package (``.ci/run`` installs it where missing). Console messages
are read from Chromium's own log (``--enable-logging=stderr --v=0`` prints every console
message and uncaught exception as an ``INFO:CONSOLE`` line with its source URL).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
)


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "Debian's chromium package is required (apt-get install -y chromium; .ci/run does it)"
    return exe


def _open(page: Path, tmp: Path, *, screenshot: Path | None = None, size=(1400, 1000)) -> list[str]:
    """Load ``page`` in headless Chromium; return the console lines whose source is the page's
    folder tree. Writes a screenshot when asked."""
    cmd = [_chromium(), *FLAGS, f"--user-data-dir={tmp / 'profile'}"]
    if screenshot is not None:
        cmd += [f"--screenshot={screenshot}", f"--window-size={size[0]},{size[1]}"]
    else:
        cmd += ["--dump-dom"]
    proc = subprocess.run([*cmd, page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    root = page.resolve().parent.parent.as_uri()
    return [line for line in proc.stderr.splitlines() if ":CONSOLE" in line and root in line]


def _not_blank(png: Path) -> None:
    img = np.asarray(Image.open(png).convert("RGB"), dtype=np.float64)
    assert img.shape[0] > 500 and img.shape[1] > 1000
    assert img.std() > 20.0  # a blank (one-colour) screenshot has std 0
    colours = np.unique(img.reshape(-1, 3).astype(np.uint8), axis=0)
    assert len(colours) > 200  # text, tables and renders, not a flat error page


def test_console_capture_sees_errors(tmp_path):
    """Control: a page with a console.error and an uncaught exception is caught by _open."""
    page = tmp_path / "site" / "bad.html"
    page.parent.mkdir()
    page.write_text("<html><body><script>console.error('boom'); undefinedFn();</script></body></html>")
    lines = _open(page, tmp_path, screenshot=tmp_path / "bad.png", size=(400, 300))
    assert any('"boom"' in line for line in lines)
    assert any("undefinedFn is not defined" in line for line in lines)


def test_index_and_task_page_render_without_console_errors(control_report, tmp_path):
    index_png = tmp_path / "index.png"
    lines = _open(control_report.index, tmp_path, screenshot=index_png, size=(1400, 1200))
    assert lines == []
    _not_blank(index_png)

    page = control_report.task_pages["sv_001"]
    task_png = tmp_path / "task.png"
    lines = _open(page, tmp_path, screenshot=task_png, size=(1400, 1000))
    assert lines == []
    _not_blank(task_png)
    # the renders are in the screenshot: the target's orange train body (#f97316) shows up
    img = np.asarray(Image.open(task_png).convert("RGB")).astype(int)
    orange = (np.abs(img - np.array([0xF9, 0x73, 0x16])).max(axis=2) < 12).sum()
    assert orange > 2000


def test_leaderboard_sorts_in_the_browser(control_report, tmp_path):
    """Clicking a header runs the page's own sort script (report.js); the order is logged."""
    src = control_report.index.read_text(encoding="utf-8")
    probe = (
        "<script>var t=document.getElementById('leaderboard-table');"
        "var th=t.querySelector('th[data-col=full]');"
        "var names=function(){return Array.from(t.tBodies[0].rows).map(function(r){return r.cells[1].textContent}).join(',')};"
        "th.click(); console.log('ASC:'+names()); th.click(); console.log('DESC:'+names());</script></body>"
    )
    page = control_report.index.parent / "probe.html"
    page.write_text(src.replace("</body>", probe), encoding="utf-8")
    lines = _open(page, tmp_path)
    page.unlink()
    assert any('"ASC:identity,oracle"' in line for line in lines), lines
    assert any('"DESC:oracle,identity"' in line for line in lines), lines
    assert len(lines) == 2  # nothing else logged
