"""The normaliser: an SVG into the normalised render form, as usvg does for resvg.

skia's SVG module silently ignores or mangles much of what real SVGs use (issue 3, item 1). This
module rewrites a parsed document into a smaller dialect that skia draws the way resvg and the
browsers do. It is also offered to users as "simplify": a document with the same pixels and
fewer spellings.

Contract
--------
Resolved (the output never contains these spellings):

1. **Namespaces and prologue.** Any prefix for the SVG namespace (``svg:svg``); DOCTYPE, comments
   and processing instructions are gone (the tree comes from :func:`vector_gym.svg.parse.parse_svg`);
   elements and attributes in other namespaces (editor metadata) are dropped, except
   ``xlink:href``. The output uses the default SVG namespace and ``xmlns:xlink``.
2. **CSS cascade.** ``<style>`` sheets (tinycss2 + cssselect2 selector matching, specificity,
   source order, ``!important``) and ``style`` attributes are applied over the presentation
   attributes; the result is plain attributes, and ``<style>``/``style`` are removed. At-rules
   (``@media``, ``@font-face``) are ignored. The CSS ``transform`` property is read with the CSS
   grammar (units, commas). A declaration naming ``href`` in any spelling is dropped
   (:func:`.style.strip_css_hrefs`). Matching work is bounded (:data:`.style.SELECTOR_BUDGET`;
   past it :class:`.style.CSSTooComplex`, reason ``css_too_complex``).
3. **Colours.** ``fill``, ``stroke``, ``stop-color``, ``flood-color``, ``lighting-color`` in every
   CSS spelling (named, ``#rgb``, ``#rgba``, ``#rrggbbaa``, ``rgb[a]()``, ``hsl[a]()``, ``hwb()``,
   ``transparent``, ``currentColor`` in any case) become ``#rrggbb``; alpha goes into the
   matching opacity (``fill-opacity``, ``stroke-opacity``, ``stop-opacity``, ``flood-opacity``).
   Fill and stroke are written explicitly on every drawing element (inheritance of colour,
   alpha and ``currentColor`` is computed here; ``currentColor`` inherits as a keyword, CSS
   Color 4), and removed from containers; so is ``visibility`` (a visible child of a hidden
   group draws). ``stroke-width: 0`` draws no stroke; a ``<line>`` has no fill.
4. **References.** ``href`` and ``xlink:href`` become ``xlink:href`` (skia reads only that;
   plain ``href`` wins when both are given, SVG 2); of elements sharing an id only the first
   keeps it (browsers resolve to the first, skia to the last);
   ``url('#x')`` and ``url("#x")`` become ``url(#x)``; a paint that names a missing or
   stop-less paint server becomes its fallback colour or ``none``; a one-stop gradient becomes
   that solid colour; a pattern without content or with a missing or zero size paints
   ``none``. An ``<image>``, ``<feImage>`` or ``<use>`` that names an external resource
   (anything but ``#id`` or a raster ``data:`` URI: ``https:``, ``file:``, a path, an SVG
   ``data:`` document, also through its own ``xml:base``) becomes what it draws when the
   resource cannot be fetched, as CairoSVG offline: nothing (an empty ``<g>``; a transparent
   ``<feFlood>`` for ``<feImage>``), :func:`strip_external_resources`. It is never fetched or
   opened; the render pre-check applies the same rule before any backend sees the document.
5. **``<use>``** is replaced by a ``<g>`` (the use's transform, then ``translate(x, y)``) holding a
   copy of its target; a ``<symbol>`` target becomes a nested viewport (point 8). Expansion is
   bounded by ``max_use_expansion`` elements; uses that are cyclic, dangling or over the budget
   are dropped. Unreferenced ``<symbol>`` elements become ``<defs>``.
6. **``<switch>``** keeps only its first child whose ``requiredExtensions``/``systemLanguage``
   (``en``) tests pass; it becomes a ``<g>``.
7. **Transforms.** ``transform``, ``gradientTransform`` and ``patternTransform`` become one
   ``matrix(a,b,c,d,e,f)`` (identity removed), read with :func:`vector_gym.svg.transform.
   parse_transform`; a list with a syntax error is ignored entirely, as browsers do
   (:func:`.transforms.read_transform`). ``transform-origin`` (attribute or CSS; the reference
   box is the viewport) is folded into the matrix.
8. **Nested ``<svg>``** (and instantiated symbols) become a ``<g>`` clipped to its viewport
   (unless ``overflow`` is visible) holding a ``<g>`` with the viewBox/preserveAspectRatio
   transform; zero-size viewports and zero-size ``viewBox`` values (nested or root) disable
   rendering.
9. **Lengths.** Units (``px pt pc mm cm in em ex``) and percentages of geometry attributes,
   ``stroke-width`` and gradient/clip/mask/pattern coordinates become user-unit numbers
   (percentages against the nearest viewport; fractions in ``objectBoundingBox`` units).
10. **Shapes and paths.** ``<ellipse>`` and ``<circle>`` become ``<path>`` (skia draws a gradient
    on an ellipse black); path data is cut after its last valid segment (the SVG error rule)
    and arc flags are separated (``a1 1 0 00 1 1``). Shapes with a zero or negative radius or
    size are removed.
11. **Gradients.** ``href`` templates are flattened: stops, units, transform, spread and
    coordinates are inherited; stop offsets become numbers clamped to [0, 1] and non-decreasing.
12. **``paint-order``** with the stroke first is drawn as two copies (stroke, then fill).
13. **Root.** ``width``/``height`` are set to the canvas when ``size`` is given (a missing
    ``viewBox`` is made from absolute ``width``/``height`` first, :func:`fit_root`); the root's
    presentation attributes and SVG 2 ``transform`` move onto a wrapping ``<g>``.

Kept verbatim: every other element and attribute skia reads (``clipPath``, ``mask``,
``pattern``, ``marker``, ``filter`` primitives, ``fill-rule``, dashes, ``opacity``...), except
that ``feFlood`` is drawn in sRGB (skia converted its colour to linear RGB twice) and an element
whose filter has no primitive is hidden.

Dropped: ``<title>``, ``<desc>``, ``<metadata>``, ``<script>``, ``<foreignObject>``,
``mix-blend-mode`` and ``isolation`` (skia's SVG module has no blend modes), event attributes.

Not drawn faithfully by skia (kept, reported by :func:`.capability.skia_unsupported`):
``<text>``, ``<image>``, blend modes, markers, bounding-box patterns, some filter primitives and
inputs, CSS filter functions, ``context-fill``, ``mask-type: alpha``, ``fr``.
:func:`vector_gym.render.render_many` hands documents that use them to resvg (backend
``"skia"``; ``"skia-strict"`` never does) and records it in ``RenderBatch.drawn_by``.

Modules, one per concern (as usvg's parser is split into ``use_node``, ``switch``,
``paint_server``, ``shapes``, ``style``...): :mod:`.style` (item 2), :mod:`.paint` (3),
:mod:`.references` (4), :mod:`.use_node` (5), :mod:`.switch` (6), :mod:`.transforms` (7),
:mod:`.viewport` (8), :mod:`.units` (9), :mod:`.shapes` and :mod:`.paths` (10),
:mod:`.paint_server` (11), :mod:`.paint_order` (12), :mod:`.root` (13); the walk that applies
them (:mod:`.walk`, :mod:`.context`, :mod:`.elements`), the entry points (:mod:`.pipeline`),
serialisation (:mod:`.serialise`), the pre-check bounds (:mod:`.bounds`) and the routing
report (:mod:`.capability`). Golden files pinning each behaviour: ``tests/data/normalise/``.

Malformed parts degrade, they do not raise: a bad transform keeps its valid prefix, a bad
path its valid segments, a bad colour is ignored (the property inherits), a bad length drops
the element that needs it.
"""

from __future__ import annotations

from vector_gym.svg.normalise.bounds import path_numbers_over, use_expansion_count
from vector_gym.svg.normalise.paths import sanitize_path_data
from vector_gym.svg.normalise.pipeline import simplify, simplify_tree
from vector_gym.svg.normalise.references import external_references, strip_external_resources
from vector_gym.svg.normalise.root import fit_root
from vector_gym.svg.normalise.serialise import to_svg_bytes
from vector_gym.svg.normalise.transforms import parse_transform_lenient

__all__ = [
    "simplify",
    "simplify_tree",
    "fit_root",
    "to_svg_bytes",
    "sanitize_path_data",
    "parse_transform_lenient",
    "external_references",
    "strip_external_resources",
    "use_expansion_count",
    "path_numbers_over",
]
