"""Render throughput: images/s at 72, 224 and 512 px on three corpora, in one run (issues 3, 11, 16).

Corpora (``--corpora``; each an evenly spaced sample of ``--limit`` distinct documents):

* ``vector_bench``: the Vector-Bench task sources and targets (dense scenes);
* ``v2``: the SVGEditBench V2 before/after emoji;
* ``repairgen``: RepairGen task sources (corrupted Vector-Bench scenes, seed 0).

Contenders, per corpus and size, run round-robin, best of ``--repeat``:

* ``pipeline x1 cold``: :meth:`vector_gym.render.RenderPool.render` with one worker process (text
  pre-check, parse, normalise, skia, shared-memory batch), the worker's per-document caches
  emptied before every run, so every document is new to it (the RL case for model outputs);
* ``pipeline x1 warm``: the same batch again without emptying them (task sources and targets,
  drawn again and again);
* ``pipeline in-proc cold`` / ``warm``: the same work in this process (``processes=0``);
* ``pipeline x2 cold``: two workers (only with ``--x2``);
* ``raw skia``: ``skia.SVGDOM`` on the unmodified text onto a numpy-backed surface, in this
  process (no pre-check, no normaliser, no isolation, not drawn right: the speed anchor of
  issue 16). Its container is the canvas, so a document with a ``width`` and ``height`` (a
  220 x 140 Vector-Bench scene, a 32 x 32 emoji) is drawn at its own scale and clipped to the
  canvas: another picture than the pipeline's (the whole document fitted to the canvas);
* ``raw skia, fitted``: the same on the same text, drawing the pipeline's picture, as a user of
  raw skia gets it (:func:`_raw_skia_fitted`: the canvas scaled and centred to fit the root's
  intrinsic size, ``xMidYMid meet``; the container set to the canvas when there is none). A
  fair anchor, printed next to the original one, which stays the issue's target;
* ``resvg``: resvg-py ``svg_to_bytes`` (PNG) + PNG decode, in this process (no maintained
  raw-pixel binding exists on PyPI);
* ``cairosvg``: ``svg2png`` + PNG decode, in this process.

Rates are images per CPU-second (this process plus the pool's workers, read from
``/proc/*/schedstat``; the unit of issue 16), with images per wall-second next to them; the ratios
use CPU seconds. Aims printed next to each ratio: issue 11, pipeline per core >= 2x resvg and >= 4x
cairosvg; issue 16, one process >= 0.6x raw skia, >= 2x resvg, >= 3x cairosvg, at every size on
every corpus; against ``raw skia, fitted`` ("same picture") for comparison. Each size also prints
how far each anchor's picture is from the pipeline's (mean absolute difference per image, 0-255):
at 72 px about 73 (Vector-Bench), 22 (V2) and 66 (RepairGen) for ``raw skia``, 1.1, 0.0 and 1.2 for
``raw skia, fitted`` (anti-aliasing: skia's own viewBox mapping and circles as paths). The original
anchor copies RGB out of RGBA with one strided numpy copy (21 us a 72 px image, 190 at 224 px, 975
at 512), the pipeline and the fitted anchor with ``_copy_rgb`` (6, 45 and 230 us): that difference
is left in the original anchor, which defines the target; it flatters every ratio against it, most
at large sizes on small documents (at 512 px it is most of raw skia's time on a V2 emoji). The
share of sampled documents that ``backend="skia"`` routes to resvg is printed per corpus. ``--rss``
measures, in a fresh process, the parent's resident memory held after one 1,000-image batch at 224
px against the batch's pixels (issue 16: at most 1.3x).

Where the cold time goes (issue 16; 72 px, one Vector-Bench or RepairGen scene of about 6 KB,
65 elements, 420 attributes; CPU microseconds per document, in this process, on a loaded 2-core
machine, session 5; raw skia on the same documents: about 200, its own parse about 124):

* pre-check, about 90 through lxml (its parse 66, the text proofs 24: UTF-8 and entity checks,
  reference markers, attribute count, ``<use``); for a document of the text lowering's grammar
  whose text bounds every limit, expat's parse (about 39) and the same text proofs instead
  (``vector_gym.render.precheck.may_skip_parse``);
* skia-subset lowering on the text (``vector_gym.svg.normalise.subset_text``), about 175: the
  grammar regex 50, the rewrites 105 (17 circles at about 3.4 each: geometry split, exact
  ``.10g`` arcs; 7 lines, 3 paths with their path-data check; the regex scan 14), whitespace
  between tags 7. It was about 250 through the tree (the subset scan 118, the rewrites 112, the
  serialisation 26);
* skia, about 260: its parse of the prepared text 131 (more than raw skia's 124: circles as
  paths), the drawing of the fitted document about 125 (raw skia draws the unfitted one, at its
  own scale, clipped to the canvas), the RGB copy 5;
* the cache key (BLAKE2b) 5; the pool about 30 in the parent (dispatch, one read per wake-up,
  the 4 ms naps) and the worker's pipe I/O.

So raw skia's 0.6x is out of reach at 72 px while the document is parsed twice (lxml, then skia)
and drawn fitted: skia's own share of the pipeline's work is already 1.3x all of raw skia, and
lxml's parse alone would cap the ratio at about 0.6. Session 5, ``--sizes 72 --limit 60 --repeat
3`` (Vector-Bench, RepairGen, V2), the code before and after run back to back on a loaded
machine (load 5-6): cold x1 / resvg 1.84, 1.92, 2.75 before, 2.40, 2.33, 2.98 after; cold x1 /
raw skia 0.26, 0.28, 0.30 before, 0.35, 0.34, 0.32 after (x1 cold images per CPU-second +31%,
+25%, +10%). The pool still costs about 11% against the same work in process (the parent's
dispatch and wake-ups, the worker's pipe I/O): the next thing to cut. At 224 px cold x1 / raw
skia is 0.65-0.76, at 512 px 0.98-1.36.

Session 6, ``--breakdown --sizes 72 --limit 40`` (each stage timed alone over the corpus, CPU us
per document, in this process, load 2.8-3.1; main's tree | this one):

=========================  ============  ============  ============
stage                      Vector-Bench  V2 emoji      RepairGen
=========================  ============  ============  ============
cache key                  5 | 5         2 | 2         5 | 5
text pre-check             35 | 34       8 | 8         34 | 34
text lowering              203 | 193     41 | 42       205 | 197
expat                      41 | 42       5 | 5         41 | 41
tree path (docs off text)  0 | 0         39 | 39 (8)   0 | 0
skia parse, prepared       144 | 125     26 | 26       144 | 120
skia draw, prepared        124 | 121     41 | 40       121 | 120
RGB copy                   5 | 5         5 | 5         5 | 5
render_many cold, whole    607 | 586     212 | 209     615 | 591
raw skia (parse + draw)    208 | 210     60 | 58       208 | 199
=========================  ============  ============  ============

The prepared text now leaves out ids (the document refers to nothing): skia's parse of it is
below raw skia's parse of the original. The rest of ``render_many`` over the stages (43-70 us)
is not Python around the calls (a loop doing the same calls costs the same) but the processor's
caches, which the stages timed alone keep warm. The floor, skia's own work on the prepared
text, is 0.78-0.90 of raw skia: the fitted document draws the whole scene, where raw skia draws
a 220 x 140 scene at its own scale, clipped to 72 x 72 (the original with only its root fitted,
"raw, root fitted", costs skia 260-285 us, more than its 245 on our prepared text). So 0.6x of raw skia at 72 px leaves 83-85 us per image for all of our
own work in process on Vector-Bench and RepairGen (we spend 335-346) and 36 us on V2 (we spend
140), less in the pool (30-60 us of pipe I/O and dispatch per image): the text lowering alone
(its grammar regex about 50, one Python call per rewritten element about 3.4) is twice the
allowance. Out of reach without moving the lowering and the checks out of Python. x1 cold /
raw skia at 72 px, ``--limit 40 --repeat 3``, main then this tree back to back (load 1.6-3.0):
0.35/0.32/0.34 and 0.35/0.31/0.35 (Vector-Bench/V2/RepairGen): within the noise of a loaded
machine; at 224 px 0.70-0.75, at 512 px 1.15-1.29 on both. (Until session 7 a pool's workers
imported ``vector_gym`` from the parent's working directory first: a run of main's tree from
this one's folder drew with this tree's code in its workers, so x1 figures compared that way
may have measured the same code twice; the in-process ones were right.)

Session 7 (issue 16, the 72 px cold target). Changes: the parse-free acceptance leaves to the
grammar what it proves below the root (no ``<!``, ``<use``, namespace declaration or ``xml:``
attribute there) instead of searching the text for it (CPython 3.11 searches a 6 KB text for a
string of two or more characters in 3-5 us, for one character in 0.1), and counts ``<g`` only
when the tags could exceed the depth bound; the grammar reads a rect's width and height in its
one pass over the rect's attributes (two lookaheads per rect were 40 % of its time); a
circle's ``cx``, ``cy`` and ``r`` are read by the rewrite's regex (no Python per attribute);
every line gets ``fill="none"`` in one substitution when none has a fill of its own; the pool
sends messages of up to 64 KiB (ten scenes instead of five). Pixels: ``render_identity.py``,
23,178 of 23,178 identical. ``--breakdown --sizes 72 --limit 40``, main | this tree, two runs
each, alternately (load 3.1-3.7):

==============================  =================  =================  =================
stage (CPU us per document)     Vector-Bench       V2 emoji           RepairGen
==============================  =================  =================  =================
text pre-check                  38-40 | 14         9 | 4              39-40 | 13-15
text lowering                   234-246 | 172-178  48 | 49            245 | 161-176
expat                           47-48 | 47-48      6 | 6              48-49 | 44-48
skia parse + draw, prepared     292-296 | 293-294  84-87 | 85-91      289-298 | 286-292
render_many cold, whole         729-733 | 637-640  249-269 | 262-295  722-731 | 610-632
raw skia (parse, draw, copy)    263-270 | 265-274  79-83 | 79-86      261-264 | 257-269
raw skia fitted (same picture)  345-347 | 353-354  90-92 | 93-97      337-342 | 332-355
==============================  =================  =================  =================

(V2's lowering is its paths' data; 8 of its 40 documents take the tree path, 45-56 us a
document of the corpus.) The pool, measured with ``--ab`` (x1 cold, workers of main and of this
tree side by side in one process, round by round, CPU us per image, load 2.1-2.9): 72 px
857 -> 727 and 834 -> 698 (Vector-Bench, 1.18x and 1.19x), 344 -> 340 and 304 -> 299 (V2,
1.01x, 1.02x), 886 -> 735 and 834 -> 702 (RepairGen, 1.21x, 1.19x); 224 px 1.09x, 1.04x,
1.13x; 512 px 1.05x, 1.03x, 1.05x.

The whole benchmark, ``--limit 40 --repeat 4``, main then this tree twice, alternately (run
from a folder without ``vector_gym``, so that each tree's workers ran its own code; load
2.3-2.9), x1 cold / raw skia, main | this tree (Vector-Bench, V2, RepairGen):

* 72 px: 0.35-0.38 | 0.43-0.45, 0.35 | 0.34-0.35, 0.36-0.38 | 0.42-0.43 (aim 0.6: not met);
  against ``raw skia, fitted``: 0.42-0.45 | 0.49-0.53, 0.33 | 0.31-0.34, 0.45-0.47 | 0.51-0.52;
* 224 px: 0.77 | 0.85-0.86, 0.70-0.72 | 0.75-0.79, 0.74-0.77 | 0.84-0.85; fitted 0.69-0.71 |
  0.75-0.77, 0.49 | 0.49-0.51, 0.67-0.71 | 0.76-0.77;
* 512 px: 1.13-1.19 | 1.20-1.26, 1.19-1.20 | 1.14-1.24, 1.14-1.16 | 1.16-1.18; fitted 1.01-1.05
  | 1.10-1.11, 0.62-0.64 | 0.63-0.64, 1.04-1.06 | 1.07-1.10;
* warm, this tree: 0.80-0.84, 0.75-0.76, 0.79-0.81 at 72 px (fitted 0.92-1.00, 0.70-0.73,
  0.96-0.98), 1.16-1.26 at 224, 1.35-1.51 at 512 (V2 fitted 0.77-0.81 at both);
* x1 cold / resvg, this tree: 2.66-3.02 at 72 px, 5.66-9.75 at 224, 9.34-17.53 at 512 (>= 2
  everywhere); / cairosvg: 5.02-8.03, 6.43-7.01, 6.28-8.20 (>= 3); warm higher. Parent RSS
  for a 1,000-image batch at 224 px: 1.00x the pixels (``--rss``).

So the 72 px cold aim is still not met: 0.42-0.45 of raw skia on the scenes (was 0.35-0.38) and
0.35 on V2, and not against the fair anchor either (0.5 and 0.33). Against the fair anchor V2 is
also below 0.6 cold at 224 px (0.49-0.51; 0.62-0.64 at 512 px, 0.77-0.81 warm at both): the
original anchor's strided copy (about 190 us an image at 224 px and 975 at 512, against 45 and 230
for the pipeline's) is a good part of its time on small emoji. What is left at 72 px, in process:
skia's own work on the prepared text is 0.87-0.92 of raw skia (1.0-1.19 of the fitted anchor), so
0.6x of raw skia leaves 136-157 us per image for our own work on the scenes (we spend 318-342: key
7, pre-check 14, lowering 160-180, expat 45, the rest, 89-102, the batch and the processor's
caches) and 41-47 on V2 (we spend 171-199); 0.6x of the fitted anchor leaves 261-294 and 63-64. The
pool adds 60-90 us per image. Two levers were measured and left: (1) keeping plain circles as
``<circle>`` in the subset (skia parses the prepared text about 25 us faster and the rewrites lose
about 40 us a scene): headless Chromium agrees with the native circle better than with the path (on
the pixels where the two forms differ, the summed error against Chromium falls from 2,124 to 1,932
on 40 scenes at 72 px and from 13,082 to 7,173 at 224 px; against resvg it rises 1-8 %), but
RepairGen's visibility renders use the same subset lowering and 60 of 1,140 tasks of
``repairgen_identity.py --quick`` change, and the subset would no longer draw as the full
normaliser (contract item 10): a decision beyond this target; (2) skipping expat (45 us) needs a
proof that no element repeats an attribute, and a regex for that walks each tag's attributes once
per attribute, about expat's cost.

Session 7, second round (pixels: ``render_identity.py`` 23,178 of 23,178 identical,
``repairgen_identity.py`` 5,700 identical). Changes: the path-data number of
:mod:`vector_gym.svg.normalise.paths` possessive (the atomic group backtracked through an
integer's digits; the prefix regex 7.1 -> 5.1 us on a 274-character V2 path); a path whose ``d``
``sanitize_path_data`` returns unchanged (``paths.PLAIN_D``: valid, no arc, nothing to strip) kept
out of the rewrite's matches by a lookahead, so it costs no Python (about 3 us a path); circles
and ellipses with their geometry in a row written inline for a centre of digits (no dict, no
``_round_d``: 3.0 -> 2.3 us a circle, 5.9 -> 2.6-3.0 an ellipse); the id removal's lookbehinds
tried tag names first, and only first attributes (15.6 -> 13.7 us a scene); in process, 72 px,
the lowering 214 -> 171-180 us a scene, 59 -> 36 an emoji. Then expat's parse of the text (54 us
a scene) left to skia's parse of the lowered text, which is expat's too, where the lowering left
out nothing that could hide an error (``subset_text.lower_skia_subset_text_intact``; no control
character either), skia's refusal sending the document back to the checked path
(``backends._prepare_begin``, ``end_document``): 3,000 ill-formed mutants get expat's outcome.
``--ab``, ``--limit 60 --repeat 10``, two runs after the last change, load 3.3-4.1, median x1
cold images per CPU-second main -> this tree, and / raw skia timed in the same rounds:

=============  =======================  =======================  =======================
72 px          Vector-Bench             V2 emoji                 RepairGen
=============  =======================  =======================  =======================
images/CPU-s   1,189 -> 1,353 (1.14x)   2,670 -> 2,803 (1.05x)   1,219 -> 1,386 (1.14x)
               1,195 -> 1,379 (1.15x)   2,815 -> 3,045 (1.08x)   1,233 -> 1,385 (1.12x)
/ raw skia     0.433 -> 0.493           0.348 -> 0.365           0.432 -> 0.492
               0.437 -> 0.504           0.352 -> 0.381           0.442 -> 0.497
=============  =======================  =======================  =======================

At 224 px 1.09x, 1.06x, 1.11x (/ raw skia 0.90, 0.71, 0.90), at 512 px 1.04x, 1.03x, 1.06x
(1.17, 1.08, 1.14; ``--limit 40 --repeat 6``). The 0.6x aim at 72 px is not met (0.49-0.50 on
the scenes, 0.37-0.38 on V2). Where a cold scene's time goes now, in process: the lowering
171-180 (the grammar 42, whitespace between tags and ids 25, the rewrites 77: 16.7 circles at
2.3 and the regex scan 21), the pre-check 16 (``_may_refer`` 10: a search of the lower-cased text
for "href" 4 and ":base" 3.6), the key 8; skia on the prepared text 330-350 (raw skia 305). The
pool: the parent spends 55-60 us a scene (30 an emoji; 21-26 on an empty ``<svg/>``:
check_text, pickling, one wake-up per reply or per nap, the copy out of the segment), and a
worker 64 us on an empty ``<svg/>`` where the same calls in process take 37 (a reply by
``os.write`` instead of ``send_bytes`` saves 0.6 us: left). V2: 8 of its 40 sampled documents
(Adobe Illustrator exports: a comment, ``version``, ``x="0px"``, ``style="enable-background..."``
on the root, ``style="fill:#..."`` on the paths) miss the text grammar and cost about 150 us per
document of the corpus on the tree path (``lower_skia_subset`` and ``simplify_tree``): half of
V2's own work, and the next lever there (the grammar widened to them, each rewrite proved
pixel-equal). Measured and dropped: whitespace between tags and ids removed by one
substitution (no literal prefix: 26 -> 107 us); expat without namespace processing, or fed bytes
(54-56 us either way); one case-insensitive regex for the reference markers (64-126 us against
10); a character-class regex for control characters (16 us against 2.5 for ``bytes.translate``).

Session 8 (issue 16, V2 at 72 px). The V2 emoji exported by Illustrator (a comment before the
root, ``version``, ``x="0px"``, ``xml:space`` and an ``enable-background`` style on it,
``style="fill:#..."`` on the shapes) now take the text path: the parse-free acceptance and the
text lowering admit comments without ``<`` before the root; a style of plain declarations on a
shape, line or group without presentation attributes is kept for skia, which sets each
declaration through the attribute's own parser (no Python per element); any other style is
read by the tree lowering's reader and applied over the attributes (one Python call per
element, then expat checks the text). Illustrator's ``enable-background`` in a shape's style
is dropped by the subset (tree and text) as the walk drops it, instead of sending the
document to the full normaliser (1.4-1.5 ms each). Of the 2,196 V2 documents, 1,983 are now
lowered on the text (1,596 before; 375 with plain styles, 12 with others); of the 213 left,
175 may refer (gradients, clip paths: the full normaliser), 35 have a transform or an empty
rect (the tree lowering). Pixels: ``render_identity.py`` 23,178 of 23,178 identical
(``repairgen_identity.py``: 5,700 tasks identical); the 573
V2 documents with styles below the root draw on the text path as with the tree lowering
(at 24 and 72 px). ``--breakdown --corpora v2 --limit 150``, main | this tree (load 3.5):
lowering 37 | 76 us per document of the corpus (109 | 141 on the text path), expat 6 | 10,
tree path 139 | 78, ``render_many`` cold 433 | 370. ``--ab``, x1 cold, median of the rounds,
main -> this tree, / raw skia in the same rounds:

=============================  ================  ================  ================
72 px, load 2.7-3.0            Vector-Bench      V2 emoji          RepairGen
=============================  ================  ================  ================
``--limit 60 --repeat 10``     0.496 -> 0.493    0.366 -> 0.409    0.502 -> 0.500
(second run)                   0.492 -> 0.504    0.379 -> 0.406    0.497 -> 0.504
``--limit 150 --repeat 20``                      0.327 -> 0.391
=============================  ================  ================  ================

(x1 cold images per CPU-second on V2: 2,723 -> 3,037 and 2,871 -> 3,078, 1.12x and 1.07x;
1,891 -> 2,266 on 150 documents, 1.20x; the scenes unchanged, 0.995-1.024x. At 224 and 512 px,
``--repeat 8``: V2 1.06x and 1.05x, / raw skia 0.67 -> 0.71 and 1.00 -> 1.05; the scenes
0.99-1.04x.) The 0.6x aim at 72 px is still not met: 0.49-0.50 on the scenes, 0.39-0.41
on V2. What is left on V2, in process, per document of the corpus: the path-data check of
the lowering (:data:`vector_gym.svg.normalise.paths.PLAIN_D` in the rewrite's lookahead, about
5 us a 300-character path: 26 us an emoji of the 60 sampled, 40 of the 150), the documents
that may refer (6 % of them: 80-90 us per document of the corpus, the largest item), and the
pool's parent (22-31 us per image in 60-image batches; a worker's CPU per image is that of the
same work in process). Of those documents' 1.4-1.6 ms, the routing test
(:func:`vector_gym.svg.normalise.capability.skia_unsupported`) took 377 us: its first test, an
XPath union, walked the tree once per branch, and a style attribute sent every document with
styles through its twelve checks; one Python pass over the elements now gives both hints (54
us; ``_prepare`` 20-38 us less per V2 document of the 150, in process, old and new alternated,
three times, load 3.3; the same report on every bundled document). The rest is spread: the
lxml parse 60 us, the reference checks of the pre-check about 140 (an XPath each), the failed
subset scan 50, the full normaliser's walk about 950 (per element, no single cost to cut). Measured and left: the path-data regex rewritten (separator as two alternatives,
number's fraction grouped: 5.5-5.6 us a 307-character path against 5.2; even a one-class
separator, which is not the grammar, gives only 4.5); skia's objects kept between images in
``_draw_skia`` (each pybind11 call costs 0.1-0.9 us); circles written with relative arcs (0.45
us a circle in Python against 1.06, about 10 us a scene, but a second moveto whose pixels are
not provably skia's first form); a fast path of the cascade for ``style="fill:url(#id)"``
(13.6 -> 0.4 us a style, but 436 of V2's 8,072 styles: about 2 us per document).

Usage::

    .venv/bin/python benchmarks/render_throughput.py [--limit 150] [--sizes 72 224 512] [--repeat 3]
    .venv/bin/python benchmarks/render_throughput.py --breakdown --sizes 72 --limit 40
    .venv/bin/python benchmarks/render_throughput.py --ab /path/to/tree/before --sizes 72 --limit 40
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_conformance import load_corpus  # noqa: E402

CORPORA = ("vector_bench", "v2", "repairgen")


def _raw_skia(svgs: list[bytes], size: int) -> np.ndarray:
    import skia

    rgba = np.empty((size, size, 4), np.uint8)
    surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
    canvas = surface.getCanvas()
    out = np.empty((len(svgs), size, size, 3), np.uint8)
    for i, data in enumerate(svgs):
        canvas.clear(skia.ColorWHITE)
        dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
        if dom is not None:
            dom.setContainerSize(skia.Size(size, size))
            dom.render(canvas)
        out[i] = rgba[:, :, :3]
    return out


def _raw_skia_fitted(svgs: list[bytes], size: int, out: np.ndarray | None = None) -> None:
    """Raw skia drawing the picture the pipeline draws: the whole document fitted to the canvas.

    What a user of raw skia writes to get the whole document on a ``size`` x ``size`` canvas:
    ``skia.SVGDOM`` on the unmodified text, then, when the root has an intrinsic size (its
    ``width`` and ``height``), the canvas scaled uniformly and centred so that it fits
    (``xMidYMid meet``, as the pipeline's fitted root), else the container set to the canvas
    (a ``viewBox`` alone then fits it). No pre-check, no normaliser, no isolation. The RGB
    copy is the pipeline's (:func:`vector_gym.render.backends._copy_rgb`, 5 us at 72 px), not
    :func:`_raw_skia`'s strided one (18 us), so that the two differ only by the pipeline's own
    work.
    """
    import skia

    from vector_gym.render.backends import _copy_rgb

    rgba = np.empty((size, size, 4), np.uint8)
    surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
    canvas = surface.getCanvas()
    if out is None:
        out = np.empty((len(svgs), size, size, 3), np.uint8)
    for i, data in enumerate(svgs):
        canvas.clear(skia.ColorWHITE)
        dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(data))
        if dom is not None:
            _draw_fitted(canvas, dom, size)
        _copy_rgb(rgba, out[i])


def _draw_fitted(canvas, dom, size: int) -> None:
    """Draw a parsed ``dom`` whole onto a ``size`` x ``size`` canvas (:func:`_raw_skia_fitted`)."""
    import skia

    intrinsic = dom.containerSize()
    w, h = intrinsic.width(), intrinsic.height()
    canvas.save()
    if w > 0 and h > 0:
        k = min(size / w, size / h)
        canvas.translate((size - k * w) / 2, (size - k * h) / 2)
        canvas.scale(k, k)
    else:
        dom.setContainerSize(skia.Size(size, size))
    dom.render(canvas)
    canvas.restore()


def _raw_skia_images(svgs: list[bytes], size: int) -> np.ndarray:
    """The images of :func:`_raw_skia` (the benchmark's original anchor), to compare pictures."""
    return _raw_skia(svgs, size)


def _decode(png: bytes) -> np.ndarray:
    import skia

    image = skia.Image.MakeFromEncoded(skia.Data.MakeWithCopy(png))
    return image.toarray(colorType=skia.kRGBA_8888_ColorType)[:, :, :3]


def _resvg(svgs: list[str], size: int) -> None:
    import resvg_py

    for s in svgs:
        png = resvg_py.svg_to_bytes(
            svg_string=s, width=size, height=size, background="#ffffff", skip_system_fonts=True
        )
        _decode(bytes(png))


def _cairosvg(svgs: list[bytes], size: int) -> None:
    import cairosvg

    for s in svgs:
        png = cairosvg.svg2png(
            bytestring=s, output_width=size, output_height=size, background_color="white"
        )
        _decode(png)


def load_corpora(names, limit: int) -> dict[str, list[str]]:
    """``{corpus: [svg text]}``: ``limit`` evenly spaced distinct documents of each corpus."""
    out: dict[str, list[str]] = {}
    labelled = load_corpus() if {"vector_bench", "v2"} & set(names) else []
    for name in names:
        if name == "repairgen":
            from vector_gym.tasks.repairgen import RepairGenConfig, RepairGenerator

            gen = RepairGenerator(
                RepairGenConfig(sources=("vector_bench",), split="all", visibility="geometric"),
                seed=0,
            )
            docs = list(dict.fromkeys(t.source_svg for t in gen.tasks(limit)))
        else:
            prefix = name + "/"
            docs = [s for label, s in labelled if label.startswith(prefix)]
        step = max(1, len(docs) // limit)
        out[name] = docs[::step][:limit]
    return out


def _rss_kib() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _rss_main(n: int) -> int:
    """Parent RSS held after one ``n``-image batch at 224 px (fresh process), against the pixels."""
    import threading

    from vector_gym.render import RenderPool

    docs = load_corpora(["v2"], 400)["v2"]
    svgs = (docs * (n // len(docs) + 1))[:n]
    with RenderPool(1, memory_mb=2048) as pool:
        pool.render(svgs[:4], (16, 16))
        before = _rss_kib()
        peak = [before]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.005):
                peak[0] = max(peak[0], _rss_kib())

        t = threading.Thread(target=sample, daemon=True)
        t.start()
        images = pool.render(svgs, (224, 224))[0]
        int(images[..., 0].max())  # read every page, as a user of the pixels does
        stop.set()
        t.join()
        held = _rss_kib() - before
        pixels = images.nbytes / 1024
        print(
            f"parent RSS for a {n}-image batch at 224 px: held {held / 1024:.1f} MiB, peak "
            f"{(peak[0] - before) / 1024:.1f} MiB, pixels {pixels / 1024:.1f} MiB: held/pixels "
            f"{held / pixels:.2f}, peak/pixels {(peak[0] - before) / pixels:.2f}  (aim <= 1.3)"
        )
    return 0


def _task_cpu_s(pid: int) -> float:
    """CPU seconds used so far by every thread of process ``pid`` (``/proc/*/schedstat``, ns)."""
    total = 0
    for path in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        try:
            total += int(path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def _cpu_s(pools) -> float:
    """CPU seconds of this process and of every worker of ``pools`` together."""
    return time.process_time() + sum(
        _task_cpu_s(pid) for pool in pools for pid in pool.worker_pids()
    )


def _line(label: str, value: float, aim: str) -> None:
    print(f"  {label:34s} {value:6.2f}  ({aim})")


def _breakdown(corpora: dict[str, list[str]], sizes, min_seconds: float, repeat: int) -> None:
    """CPU microseconds per document of each stage of the cold pipeline and of raw skia, in process.

    The stages of ``render_many(processes=0)`` with empty caches, each timed alone over the
    corpus (best of ``repeat``): the cache key, the parse-free acceptance's text test
    (``precheck.may_skip_parse``), the text lowering (``subset_text.lower_skia_subset_text``),
    expat's well-formedness check, the documents outside the text grammar (``_prepare`` on the
    tree path, per document of the whole corpus), skia's parse and draw of the prepared text and
    the RGB copy; the whole ``render_many`` call; what is left is the per-image overhead (the
    batch, the stages' Python around the calls, the processor's caches, which the stages
    timed alone do not pay). The floor is skia's own work on the prepared text: raw skia's time
    over it is the ratio the pipeline would have if all of its own work took no time.
    """
    import hashlib

    import skia

    from vector_gym.render import backends, render_many
    from vector_gym.render.precheck import DEFAULT_LIMITS, expat_well_formed, may_skip_parse
    from vector_gym.svg.normalise.subset_text import lower_skia_subset_text

    def per_doc(fn, n: int) -> float:
        best = float("inf")
        for _ in range(repeat):
            runs, c0 = 0, time.process_time()
            while True:
                fn()
                runs += 1
                if time.process_time() - c0 >= min_seconds / 3:
                    break
            best = min(best, (time.process_time() - c0) / runs)
        return 1e6 * best / n

    def one(cname, svgs, size, canvas, rgba, out) -> None:
        n = len(svgs)
        data = [s.encode("utf-8") for s in svgs]
        lim = DEFAULT_LIMITS
        texty = [s for s in svgs if may_skip_parse(s, lim) and lower_skia_subset_text(s, (size, size))]
        others = [s for s in svgs if s not in set(texty)]
        prepared = [backends._prepare(s, size, size, "skia", lim) for s in svgs]
        pdata = [p[1] for p in prepared if p[0] == "skia"]

        def parse(ds):
            for d in ds:
                skia.SVGDOM.MakeFromStream(skia.MemoryStream(d))

        def draw(doms):
            for dom in doms:
                canvas.clear(skia.ColorWHITE)
                dom.setContainerSize(skia.Size(size, size))
                dom.render(canvas)

        raw_doms = [d for d in (skia.SVGDOM.MakeFromStream(skia.MemoryStream(x)) for x in data) if d]
        p_doms = [d for d in (skia.SVGDOM.MakeFromStream(skia.MemoryStream(x)) for x in pdata) if d]

        def key():
            for s in svgs:
                hashlib.blake2b(s.encode("utf-8", "surrogatepass"), digest_size=16).digest()

        def accept():
            for s in svgs:
                may_skip_parse(s, lim)

        def lower():
            for s in texty:
                lower_skia_subset_text(s, (size, size))

        def expat():
            for s in texty:
                expat_well_formed(s)

        def tree():
            for s in others:
                backends._prepare(s, size, size, "skia", lim)

        def copy():
            for _ in range(n):
                backends._copy_rgb(rgba, out)

        def cold():
            backends.clear_caches()
            render_many(svgs, (size, size), processes=0)

        st = {
            "cache key": per_doc(key, n),
            "text pre-check": per_doc(accept, n),
            "text lowering": per_doc(lower, n),
            "expat": per_doc(expat, n),
            f"tree path ({len(others)} docs)": per_doc(tree, n) if others else 0.0,
            "skia parse (prepared)": per_doc(lambda: parse(pdata), n),
            "skia draw (prepared)": per_doc(lambda: draw(p_doms), n),
            "RGB copy": per_doc(copy, n),
        }
        total = per_doc(cold, n)
        raw = {"raw parse": per_doc(lambda: parse(data), n), "raw draw": per_doc(lambda: draw(raw_doms), n)}
        # raw skia drawn right: the original with only its root start tag replaced by the
        # prepared (fitted) one, for the documents on the text path
        fitted = []
        for text in texty:
            low = lower_skia_subset_text(text, (size, size)).decode("utf-8")
            start = text.find("<svg")
            fitted.append((low[: low.index(">") + 1] + text[text.index(">", start) + 1 :]).encode("utf-8"))

        # raw skia drawing the whole document, fitted by the canvas (_raw_skia_fitted)
        def draw_fitted(doms):
            for dom in doms:
                canvas.clear(skia.ColorWHITE)
                _draw_fitted(canvas, dom, size)

        fit_doms = [d for d in (skia.SVGDOM.MakeFromStream(skia.MemoryStream(x)) for x in data) if d]
        raw["raw fitted: draw"] = per_doc(lambda: draw_fitted(fit_doms), n)
        if fitted:
            f_doms = [d for d in (skia.SVGDOM.MakeFromStream(skia.MemoryStream(x)) for x in fitted) if d]
            k = len(fitted)
            raw[f"raw, root fitted ({k} docs)"] = per_doc(lambda: parse(fitted), k) + per_doc(lambda: draw(f_doms), k)
        raw_total = raw["raw parse"] + raw["raw draw"] + st["RGB copy"]
        floor = st["skia parse (prepared)"] + st["skia draw (prepared)"] + st["RGB copy"]
        ours = sum(st.values()) - floor
        print(f"\n{cname} {size} px, {n} documents ({len(texty)} on the text path)")
        for k, v in {**st, **raw}.items():
            print(f"  {k:28s} {v:7.1f}")
        print(f"  {'render_many cold (whole)':28s} {total:7.1f}   per-image rest {total - ours - floor:6.1f}")
        print(f"  raw skia / render_many cold {raw_total / total:5.2f}; with our own work free "
              f"(the floor, skia on the prepared text) {raw_total / floor:5.2f}; 0.6x allows "
              f"{raw_total / 0.6 - floor:6.1f} us of ours per image, we spend {total - floor:6.1f}")
        fit_total = raw["raw parse"] + raw["raw fitted: draw"] + st["RGB copy"]
        print(f"  raw skia fitted (the same picture) / render_many cold {fit_total / total:5.2f}; "
              f"with our own work free {fit_total / floor:5.2f}; 0.6x allows "
              f"{fit_total / 0.6 - floor:6.1f} us of ours per image")

    print(f"\n== cold-path breakdown, CPU us per document, in process; load average {os.getloadavg()}")
    for size in sizes:
        rgba = np.empty((size, size, 4), np.uint8)
        surface = skia.Surface(rgba, skia.kRGBA_8888_ColorType, skia.kPremul_AlphaType)
        canvas = surface.getCanvas()
        out = np.empty((size, size, 3), np.uint8)
        for cname, svgs in corpora.items():
            one(cname, svgs, size, canvas, rgba, out)


def _ab_workers(corpora: dict[str, list[str]], sizes, old_tree: str, repeat: int) -> None:
    """x1 cold CPU per image with render workers of ``old_tree`` and of this tree, interleaved.

    On a machine shared with other work, runs of the benchmark before and after a change, one
    after the other, differ by more than many changes do. Here two pools run side by side in
    one process: one whose workers import ``vector_gym`` from ``old_tree`` (the tree before the
    change), one whose workers import it from this tree, each batch cold (caches emptied),
    round by round, ``repeat`` rounds of four batches (best and median printed, and the
    median images per CPU-second of each against ``raw skia`` timed in the same rounds, in
    this process). The parent's code is this tree's
    for both, except its message size (``_QUEUE_MAX_BYTES``), read from ``old_tree``'s pool.
    """
    import re

    from vector_gym.render import RenderPool
    from vector_gym.render import pool as pool_module

    old_pool = Path(old_tree, "vector_gym", "render", "pool.py").read_text()
    m = re.search(r"^_QUEUE_MAX_BYTES = (\d+) \* 1024$", old_pool, re.M)
    old_queue = int(m.group(1)) * 1024 if m else pool_module._QUEUE_MAX_BYTES
    here = str(Path(__file__).resolve().parents[1])
    setups = {"before": (old_tree, old_queue), "after": (here, pool_module._QUEUE_MAX_BYTES)}
    pools = {}
    saved = pool_module._PACKAGE_ROOT, os.environ.get("PYTHONPATH"), pool_module._QUEUE_MAX_BYTES
    try:
        for name, (root, _queue) in setups.items():
            pool_module._PACKAGE_ROOT = root  # the workers' import path (RenderPool._spawn)
            os.environ["PYTHONPATH"] = root
            pools[name] = RenderPool(1, memory_mb=2048)
        pool_module._PACKAGE_ROOT = saved[0]
        if saved[1] is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved[1]
        print(f"\n== x1 cold, workers of {old_tree} (before) and of {here} (after), interleaved; "
              f"load average {os.getloadavg()}")
        for size in sizes:
            for cname, svgs in corpora.items():
                runs: dict[str, list[float]] = {name: [] for name in (*pools, "raw")}
                data = [s.encode("utf-8") for s in svgs]
                for name, pool in pools.items():
                    pool_module._QUEUE_MAX_BYTES = setups[name][1]
                    pool.render(svgs, (size, size))
                for _ in range(repeat):
                    for name, pool in pools.items():
                        pool_module._QUEUE_MAX_BYTES = setups[name][1]
                        c0 = _cpu_s([pool])
                        for _ in range(4):
                            pool.clear_caches()
                            pool.render(svgs, (size, size))
                        runs[name].append((_cpu_s([pool]) - c0) / 4 / len(svgs))
                    c0 = time.process_time()  # raw skia in this process, in the same rounds
                    for _ in range(4):
                        _raw_skia(data, size)
                    runs["raw"].append((time.process_time() - c0) / 4 / len(svgs))
                best = {k: min(v) for k, v in runs.items()}
                med = {k: float(np.median(v)) for k, v in runs.items()}
                ratios = sorted(a / b for a, b in zip(runs["before"], runs["after"], strict=True))
                print(f"  {cname:12s} {size:3d} px: CPU us per image before {1e6 * best['before']:6.0f}, "
                      f"after {1e6 * best['after']:6.0f} ({best['before'] / best['after']:.3f}x) best; "
                      f"median {1e6 * med['before']:6.0f}, {1e6 * med['after']:6.0f} "
                      f"({med['before'] / med['after']:.3f}x; per round {ratios[0]:.3f}-{ratios[-1]:.3f})")
                print(f"  {'':12s}         images per CPU-s (median) before {1 / med['before']:6.0f}, after "
                      f"{1 / med['after']:6.0f}, raw skia {1 / med['raw']:6.0f}; / raw skia "
                      f"{med['raw'] / med['before']:.3f} -> {med['raw'] / med['after']:.3f}")
    finally:
        pool_module._QUEUE_MAX_BYTES = saved[2]
        for pool in pools.values():
            pool.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=150, help="documents per corpus (evenly spaced)")
    ap.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=CORPORA)
    ap.add_argument("--sizes", type=int, nargs="+", default=[72, 224, 512])
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per measurement")
    ap.add_argument("--min-seconds", type=float, default=0.3, help="least wall time per measurement")
    ap.add_argument("--no-cairosvg", action="store_true")
    ap.add_argument("--x2", action="store_true", help="also time a pool of two workers")
    ap.add_argument("--rss", action="store_true", help="also measure the parent RSS of a 1,000-image batch")
    ap.add_argument("--rss-only", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--ab", metavar="OLD_TREE",
                    help="only time x1 cold with workers of OLD_TREE against this tree's, interleaved")
    ap.add_argument("--breakdown", action="store_true",
                    help="only print where the cold time goes, per stage, corpus and size (in process)")
    args = ap.parse_args(argv)
    if args.rss_only:
        return _rss_main(args.rss_only)
    if args.ab:
        _ab_workers(load_corpora(args.corpora, args.limit), args.sizes, args.ab, max(args.repeat, 6))
        return 0
    if args.breakdown:
        _breakdown(load_corpora(args.corpora, args.limit), args.sizes, args.min_seconds, args.repeat)
        return 0

    from vector_gym.render import RenderPool, backends, render_many

    clear_caches = getattr(backends, "clear_caches", lambda: None)  # an older checkout: no caches

    corpora = load_corpora(args.corpora, args.limit)
    print(f"{os.cpu_count()} CPUs, best of {args.repeat}, load average {os.getloadavg()}")
    pools = {k: RenderPool(k, memory_mb=2048) for k in ((1, 2) if args.x2 else (1,))}

    def cold_pool(pool, svgs, shape):
        if hasattr(pool, "clear_caches"):
            pool.clear_caches()
        pool.render(svgs, shape)

    def cold_inproc(svgs, shape):
        clear_caches()
        render_many(svgs, shape, processes=0)

    try:
        for pool in pools.values():  # warm: workers started and imports done
            pool.render(next(iter(corpora.values()))[:4], (16, 16))
        for cname, svgs in corpora.items():
            n = len(svgs)
            routed = render_many(svgs, (16, 16), processes=0).drawn_by
            k = sum(d == "resvg" for d in routed)
            print(f"\n== {cname}: {n} documents; routed to resvg by backend='skia': "
                  f"{100 * k / max(1, n):.1f}% ({k} of {n})")
            data = [s.encode("utf-8") for s in svgs]
            for size in args.sizes:
                shape = (size, size)
                for pool in pools.values():
                    pool.render(svgs, shape)  # grow the shared segment to this size first
                jobs = {}
                for kk, pool in pools.items():
                    jobs[f"pipeline x{kk} cold"] = partial(cold_pool, pool, svgs, shape)
                jobs["pipeline x1 warm"] = partial(pools[1].render, svgs, shape)
                jobs["pipeline in-proc cold"] = partial(cold_inproc, svgs, shape)
                jobs["pipeline in-proc warm"] = partial(render_many, svgs, shape, processes=0)
                jobs["raw skia"] = partial(_raw_skia, data, size)
                jobs["raw skia, fitted"] = partial(_raw_skia_fitted, data, size)
                jobs["resvg"] = partial(_resvg, svgs, size)
                if not args.no_cairosvg:
                    jobs["cairosvg"] = partial(_cairosvg, data, size)
                # Round-robin repeats, best per job: a slow spell on a shared machine then hurts
                # every job alike instead of one. Each measurement repeats its job until it has
                # taken --min-seconds, and counts CPU seconds (this process and the workers) as
                # well as wall seconds: on a loaded machine wall time mostly measures neighbours.
                best = dict.fromkeys(jobs, float("inf"))
                best_wall = dict.fromkeys(jobs, float("inf"))
                all_pools = list(pools.values())
                for _ in range(args.repeat):
                    for key, fn in jobs.items():
                        runs = 0
                        c0, t0 = _cpu_s(all_pools), time.perf_counter()
                        while True:
                            fn()
                            runs += 1
                            wall = time.perf_counter() - t0
                            if wall >= args.min_seconds:
                                break
                        cpu = _cpu_s(all_pools) - c0
                        best[key] = min(best[key], cpu / runs)
                        best_wall[key] = min(best_wall[key], wall / runs)
                r = {key: n / t for key, t in best.items()}
                print(f"\n{cname} {size} px (images per CPU-second; per wall-second)")
                for name, v in r.items():
                    print(f"  {name:22s} {v:8.1f}  {n / best_wall[name]:8.1f}")
                # How far each anchor's picture is from the pipeline's (mean |difference| per
                # image, 0-255): raw skia draws a document with a width and height at its own
                # scale, clipped to the canvas; "raw skia, fitted" draws the whole of it.
                ours = pools[1].render(svgs, shape)[0].astype(np.int16)
                fit_img = np.empty((n, size, size, 3), np.uint8)
                _raw_skia_fitted(data, size, fit_img)
                for label, img in (("raw skia", _raw_skia_images(data, size)), ("raw skia, fitted", fit_img)):
                    diff = np.abs(ours - img).reshape(n, -1).mean(axis=1)
                    print(f"  picture of {label!r} against the pipeline's: mean |difference| "
                          f"{diff.mean():.2f}, largest {diff.max():.2f} (0-255)")
                for mode in ("cold", "warm"):
                    x1 = r[f"pipeline x1 {mode}"]
                    _line(f"x1 {mode} / raw skia", x1 / r["raw skia"], "issue 16: >= 0.6")
                    _line(f"x1 {mode} / raw skia, fitted", x1 / r["raw skia, fitted"], "same picture")
                    _line(f"x1 {mode} / resvg", x1 / r["resvg"], "issues 11, 16: >= 2")
                    if "cairosvg" in r:
                        _line(f"x1 {mode} / cairosvg", x1 / r["cairosvg"], "issue 11: >= 4, 16: >= 3")
                _line("in-proc cold / raw skia", r["pipeline in-proc cold"] / r["raw skia"], "cost of check + normalise")
                _line("in-proc warm / raw skia", r["pipeline in-proc warm"] / r["raw skia"], "issue 16: >= 0.6")
                _line("in-proc cold / raw skia, fitted", r["pipeline in-proc cold"] / r["raw skia, fitted"], "same picture")
                if "pipeline x2 cold" in r:
                    _line("x2 / x1 cold", r["pipeline x2 cold"] / r["pipeline x1 cold"], ">= 1.8 on >= 2 free cores")
    finally:
        for pool in pools.values():
            pool.close()
    if args.rss:
        subprocess.run([sys.executable, __file__, "--rss-only", "1000"], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
