"""Record headless Chromium's picture for conformance files where resvg-py is wrong (issue 11).

For every file of ``tests/data/render/conformance`` whose default-pipeline render is more than
2/255 from resvg-py's, Debian's ``chromium`` takes a 64 x 64 screenshot of the file on white.
Where the two references disagree (resvg lacks the feature: CSS ``transform``, ``rgb()`` with
``/`` alpha, ``systemLanguage`` matching, first of duplicate ids...), the screenshot is kept as
``<name>.chromium.png`` and the case is listed in ``expected.json`` with ``"expect": "chromium"``
and the reason; the conformance test then compares with the screenshot.

Usage::

    python benchmarks/chromium_refs.py    # needs `chromium` on PATH (apt-get install chromium)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_conformance import CORPUS, measure_conformance  # noqa: E402


def screenshot(path: Path, out: Path) -> np.ndarray | None:
    import skia

    cmd = [
        "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--force-device-scale-factor=1", "--default-background-color=ffffffff",
        "--window-size=64,64", f"--screenshot={out}", path.as_uri(),
    ]
    subprocess.run(cmd, capture_output=True, timeout=60, check=False)
    if not out.exists():
        return None
    img = skia.Image.open(str(out))
    return img.toarray(colorType=skia.kRGBA_8888_ColorType)[:, :, :3]


def main() -> int:
    from vector_gym.render import render_many

    rows = measure_conformance(raw=False)
    expected_path = CORPUS / "expected.json"
    doc = json.loads(expected_path.read_text()) if expected_path.exists() else {"cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows:
            key = f"{r['class']}/{r['name']}"
            if r["diff"] <= 2 or key in doc["cases"]:
                continue
            svg_path = CORPUS / r["class"] / f"{r['name']}.svg"
            png = Path(tmp) / "shot.png"
            png.unlink(missing_ok=True)
            chrome = screenshot(svg_path, png)
            if chrome is None:
                print("no screenshot:", key)
                continue
            text = svg_path.read_text(encoding="utf-8")
            rv = render_many([text], (64, 64), backend="resvg", processes=0).images[0]
            d_rv = float(np.abs(chrome.astype(np.int16) - rv).mean())
            if d_rv <= 2:
                print(f"resvg agrees with chromium ({d_rv:.2f}): {key}")
                continue
            target = svg_path.with_name(svg_path.stem + ".chromium.png")
            target.write_bytes(png.read_bytes())
            doc["cases"][key] = {
                "expect": "chromium",
                "reason": f"resvg-py 0.5 differs from Chromium by {d_rv:.1f}/255 on this behaviour",
            }
            print(f"chromium reference ({d_rv:.2f} from resvg): {key}")
    expected_path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
