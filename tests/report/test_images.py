"""Pictures of the report: difference overlay, changed-part boxes (vector_gym/report/images.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vector_gym.report.images import diff_overlay, mask_document, part_boxes, render_distinct

DOC = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" width="100" height="50">'
    '<rect id="bg" x="0" y="0" width="100" height="50" fill="#eeeeee"/>'
    '<g id="grp" opacity="0.5"><rect id="a" x="10" y="10" width="20" height="10" fill="#123456"/></g>'
    '<circle id="c" cx="70" cy="25" r="10" fill="none" stroke="#000" stroke-width="2"/>'
    '<defs><rect id="unused" width="5" height="5"/></defs>'
    "</svg>"
)


def test_diff_overlay_marks_changed_pixels():
    target = np.full((4, 5, 3), 255, np.uint8)
    output = target.copy()
    output[1, 2] = (0, 0, 0)  # far beyond the threshold
    output[3, 4] = (250, 250, 250)  # anti-aliasing-sized difference: ignored (threshold 24)
    img, frac = diff_overlay(output, target)
    assert frac == pytest.approx(1 / 20)
    assert img[1, 2].tolist() == [220, 38, 38]
    assert img[3, 4].tolist() == [255, 255, 255]  # white target stays white in the grey base


def test_part_boxes_locate_changed_elements():
    """Boxes of ``a`` (x 10..30, y 10..20) and ``c`` (60..80 plus half the stroke) in a 100x50
    viewBox rendered at 50x100 px (scale 1), as fractions of the image."""
    doc, colours = mask_document(DOC, ["a", "c", "missing"])
    assert set(colours) == {"a", "c"}
    assert 'id="bg"' not in doc  # unchanged drawn elements are removed
    img = render_distinct([doc], (50, 100))[doc]
    assert img.ok
    boxes = part_boxes(img.image, colours)
    ax, ay, aw, ah = boxes["a"]
    assert (ax, ay, aw, ah) == pytest.approx((0.10, 0.20, 0.20, 0.20), abs=0.02)
    cx, cy, cw, ch = boxes["c"]
    assert (cx, cy, cw, ch) == pytest.approx((0.59, 0.28, 0.22, 0.44), abs=0.025)


def test_mask_document_of_broken_or_unrelated_svg_is_none():
    assert mask_document("<svg><rect id='a'", ["a"]) is None
    assert mask_document(DOC, ["nothing-here"]) is None


def test_render_distinct_dedups_and_keeps_failures():
    bad = "<svg xmlns='http://www.w3.org/2000/svg'><rect"
    out = render_distinct([DOC, bad, DOC, None], (10, 20))
    assert set(out) == {DOC, bad}
    assert out[DOC].ok and out[DOC].image.shape == (10, 20, 3)
    assert not out[bad].ok and out[bad].error == "not_well_formed"
