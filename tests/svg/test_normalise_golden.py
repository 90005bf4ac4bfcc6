"""Golden files of the normaliser, one behaviour per file (issue 11, item 4; usvg's test style).

``tests/data/normalise/<concern>/<name>.svg`` is the input and ``<name>-expected.svg`` the
normalised render form at 64 x 64 px (``benchmarks/make_normalise_goldens.py`` writes both;
review the diff when the form changes on purpose). Each pair is checked twice: the output is
exactly the expected file, and the expected file drawn by raw skia (what the render path does
with it) matches resvg's picture of the input within 2/255 (mean absolute difference), so a
golden file cannot pin a wrong picture. Where resvg-py 0.5 is wrong (the CSS ``transform``
property, ``mm`` lengths, a zero-size nested viewBox) the reference is headless Chromium's
screenshot ``<name>.chromium.png`` (``benchmarks/chromium_refs.screenshot``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vector_gym.render import RenderLimits, render_many
from vector_gym.svg.normalise import simplify

DATA = Path(__file__).resolve().parents[1] / "data" / "normalise"
CASES = sorted(p for p in DATA.glob("*/*.svg") if not p.stem.endswith("-expected"))
SIZE = (64, 64)
SKIP = RenderLimits(use_cycles="skip")  # a cyclic <use> skipped alone, as browsers do


def _raw_skia(text: str) -> np.ndarray:
    import skia

    rgba = np.zeros(SIZE + (4,), np.uint8)
    surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
    canvas = surface.getCanvas()
    canvas.clear(skia.ColorWHITE)
    dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(text.encode("utf-8")))
    dom.setContainerSize(skia.Size(SIZE[1], SIZE[0]))
    dom.render(canvas)
    return rgba[:, :, :3].copy()


def test_one_golden_pair_per_behaviour_in_every_concern():
    concerns = {p.parent.name for p in CASES}
    assert len(CASES) >= 35 and len(concerns) >= 12
    for p in CASES:
        assert p.with_name(p.stem + "-expected.svg").exists(), p


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_normalised_form_is_the_golden_file_and_draws_like_resvg(path):
    text = path.read_text(encoding="utf-8")
    expected = path.with_name(path.stem + "-expected.svg").read_text(encoding="utf-8")
    assert simplify(text, SIZE) + "\n" == expected
    chromium = path.with_name(path.stem + ".chromium.png")
    if chromium.exists():
        import skia

        ref_img = skia.Image.open(str(chromium)).toarray(colorType=skia.kRGBA_8888_ColorType)[:, :, :3]
        resvg_img = render_many([text], SIZE, backend="resvg", processes=0, limits=SKIP).images[0]
        assert np.abs(resvg_img.astype(np.int16) - ref_img).mean() > 2.0  # resvg is wrong here
    else:
        ref = render_many([text], SIZE, backend="resvg", processes=0, limits=SKIP)
        assert ref.errors == (None,)
        ref_img = ref.images[0]
    d = float(np.abs(_raw_skia(expected).astype(np.int16) - ref_img).mean())
    assert d <= 2.0, f"{path.parent.name}/{path.stem}: |skia(expected) - resvg(input)| = {d:.2f}"
