"""The parity dialect: each reference-evaluator reading that parity mode reproduces.

Only parity mode (``parity=True`` in :mod:`vector_gym.rewards.spec`, the
:data:`vector_gym.svg.canonical.REFERENCE` dialect of the tree model) calls the readers here;
default mode reads the same values with the SVG 2 / CSS grammars of ``vector_gym.svg``
(:func:`vector_gym.svg.canonical.normalise_attribute_svg`). Each behaviour, the reference reading
it reproduces, and its section of spec-reward.md (``docs/spec-reward.md``):

1. Numbers (§4.2, §15): ``\\d`` is any Unicode decimal digit (``１０`` = 10), spelled in exact
   decimal arithmetic with no rounding (:func:`normalise_number`, :func:`is_number`). Default:
   ASCII SVG numbers read as IEEE doubles (:func:`vector_gym.svg.numbers.normalise_svg_number`).
2. Token streams (§4.3): two numbers may touch only when the second is signed, so ``0.5.5`` and
   packed path data such as ``M1.5.5`` are *invalid*, and an arc-flag run ``0110`` is one number
   (:func:`number_tokens`, :func:`path_tokens`). Default: the path reader's grammar
   (:func:`vector_gym.svg.path_data.normalise_path_data`).
3. ``transform`` (§4.4): ``translate(10)`` ≠ ``translate(10 0)`` (:func:`normalise_transform`).
   Default: :func:`vector_gym.svg.transform.normalise_transform_list`.
4. ``style`` at C level (§4.5): split on ``;`` and the first ``:``, declarations sorted only when
   no name repeats, ``!important`` kept as part of the value (:func:`style_pieces`,
   :func:`normalise_style`). Default: :func:`vector_gym.svg.style.parse_style_declarations`.
5. Colours (§4.6): only the 18 basic names, ``#rgb``, ``#rrggbb`` and integer ``rgb()`` map to
   hex; ``hsl()``, percentage ``rgb()``, ``#rgba``, other names stay words
   (:func:`vector_gym.svg.color.normalise_color`, re-exported here). Default:
   :func:`vector_gym.svg.color.canonical_color` (CSS Color 4).
6. Attribute keys in V (§5.2): keyed by local name, so ``xlink:href`` and ``href`` collide and
   the later one in attribute order wins; an ``href`` in any namespace is a link
   (:data:`LOCAL_NAME_HREF_KEYING`). Default: :mod:`vector_gym.svg.references` (plain ``href``
   wins; only the XLink ``href`` is a link).
7. No SVG namespace (§4 item 1, §10): a root ``<svg>`` without the SVG namespace is valid and only
   its tags differ. Default: validity fails with ``no_svg_namespace``.
8. ``<use>`` cycles and expansion (§10): not checked. Default: validity fails with ``use_cycle``,
   and with ``use_expansion`` past :data:`vector_gym.svg.parse.MAX_USE_EXPANSION` elements after
   expanding every ``<use>`` (the renderer's limit).
9. Python ``float()`` readings of values (§7, §16 item 7): ``nan``, ``inf``, ``1_0``
   (:func:`vector_gym.svg.numbers.python_float_reference`); viewport (§8.3):
   :func:`vector_gym.svg.viewbox.scan_viewbox_reference` /
   :func:`vector_gym.svg.viewbox.viewport_size` (the tolerance caps of both modes come from it).
10. Path reading (§8.9.1, §16 item 22): svg.path's silent truncation of an implicit repeat
    (``parse_path_data(d, parity=True)``).
11. Produced-value lookup (§7) and masking (§9): the first ``style`` declaration wins, names are
    case-sensitive, ``translate(``/``scale(`` are read by §7's exponent-free regexes, values by
    Python ``float()`` (``read_value(..., parity=True)`` and ``style_first`` in
    ``vector_gym/rewards/_spec_lookup.py``; ``style_decls`` in ``_spec_mask.py``). Default:
    the same lookup order read with the grammars above.

Outside the spec reward, ``vector_gym.svg.shapes.parse_transform_upstream`` and
``parse_path_svgpathtools`` reproduce the SVGEditBench V2 Chamfer script's own readers
(metrics-svgeditbench.md), a different reference evaluator.
"""

from __future__ import annotations

import functools
import re
from decimal import Decimal, InvalidOperation

from vector_gym.svg.color import COLOR_ATTRIBUTES, normalise_color
from vector_gym.svg.numbers import REFERENCE_NUMBER_PATTERN
from vector_gym.svg.parse import fold_ws, local_name
from vector_gym.svg.transform import TRANSFORM_ARITY as _TRANSFORM_ARITY

__all__ = [
    "INVALID_MARKER",
    "NUMBER_PATTERN",
    "LOCAL_NAME_HREF_KEYING",
    "normalise_attribute_reference",
    "normalise_number",
    "normalise_color",
    "is_number",
    "number_tokens",
    "path_data_reads",
    "path_tokens",
    "normalise_transform",
    "style_pieces",
    "normalise_style",
]

INVALID_MARKER = "__invalid_svg_syntax__:"
"""Prefix of a normalised value whose syntax check failed (spec §4.1 "marked invalid")."""

NUMBER_PATTERN = REFERENCE_NUMBER_PATTERN
"""§4.2 number grammar; ``\\d`` is Python's Unicode decimal digit class (spec §15)."""

LOCAL_NAME_HREF_KEYING = True
"""Behaviour 6: the reference keys V attributes by local name (spec §5.2)."""

_NUMBER_RE = re.compile(NUMBER_PATTERN)
_PATH_TOKEN_RE = re.compile(f"({NUMBER_PATTERN})|([MmLlHhVvCcSsQqTtAaZz])")
_SEP_RE = re.compile(r"[\s,]*")
_TRANSFORM_RE = re.compile(r"([A-Za-z]+)\s*\(([^()]*)\)")
_MAX_POSITIONAL = 1000
_CACHE_MAX_LEN = 2048  # longer values are normalised without caching (bounded memory)


# Numbers (§4.2) and token streams (§4.3)


def is_number(text: str) -> bool:
    """Return whether ``text`` is exactly one number of the §4.2 grammar (Unicode digits).

    Examples
    --------
    >>> is_number("1e2"), is_number(".5"), is_number("5."), is_number("1_0"), is_number("nan")
    (True, True, True, False, False)
    """
    return _NUMBER_RE.fullmatch(text) is not None


def normalise_number(text: str) -> str:
    """Respell one §4.2 number exactly (no binary floats, no rounding).

    Zero of any spelling → ``0``; otherwise plain positional notation with trailing fractional
    zeros, a trailing ``.`` and a leading ``+`` removed (spec §4.2).

    Parameters
    ----------
    text : str
        A string matching :data:`NUMBER_PATTERN`.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``text`` is not a number.

    Examples
    --------
    >>> [normalise_number(s) for s in ("1.000", "-0", "1e2", ".5", "5.", "+5", "-0.0e5")]
    ['1', '0', '100', '0.5', '5', '5', '0']
    >>> normalise_number("0.123456789") == normalise_number("0.123456788")
    False
    >>> normalise_number("\\uff11\\uff10")
    '10'
    """
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"expected a number, got {text!r}") from None
    if not d.is_finite():
        raise ValueError(f"expected a finite number, got {text!r}")
    if d.is_zero():
        return "0"
    sign, digit_tuple, exp = d.as_tuple()
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    n = len(digits)
    adjusted = n - 1 + exp
    if exp > _MAX_POSITIONAL or adjusted < -_MAX_POSITIONAL:
        body = digits[0] + ("." + digits[1:] if n > 1 else "") + "e" + str(adjusted)
    elif exp >= 0:
        body = digits + "0" * exp
    elif -exp >= n:
        body = "0." + "0" * (-exp - n) + digits
    else:
        body = digits[: n + exp] + "." + digits[n + exp :]
    return "-" + body if sign else body


def _token_stream(value: str, commands: bool, spell: bool = True) -> list[str] | None:
    """Scan a §4.3 token stream; ``None`` on failure. ``value`` is already folded.

    ``spell=False`` only checks the stream: numbers are kept as written, and respelled only
    where respelling can raise (an exponent), so the verdict is the same as with ``spell``.
    """
    tokens: list[str] = []
    pos = 0
    prev_number = False
    sep = _SEP_RE.fullmatch
    for m in _PATH_TOKEN_RE.finditer(value):
        start = m.start()
        num = m.group(1)
        if start != pos:
            if sep(value, pos, start) is None:
                return None
        elif prev_number and num is not None and num[0] not in "+-":
            return None
        if num is None:
            if not commands:
                return None
            tokens.append(m.group(2))
            prev_number = False
        else:
            if spell:
                tokens.append(normalise_number(num))
            else:
                if "e" in num or "E" in num:
                    normalise_number(num)
                tokens.append(num)
            prev_number = True
        pos = m.end()
    if not tokens or sep(value, pos) is None:
        return None
    return tokens


_CMD = "MmLlHhVvCcSsQqTtAaZz"
# The §4.3 token stream of an ASCII value without an exponent, in one fullmatch: the tokens
# finditer takes (leftmost, each number as long as the number regex makes it: atomic here),
# separators between them, and after a number with no separator only a sign, a command or the
# end (a number right after a number must start with a sign).
_ASCII_STREAM = re.compile(
    rf"[\s,]*+(?:(?>[-+]?+(?:[0-9]*+\.[0-9]++|[0-9]++\.?+))(?:[\s,]++|(?=[-+{_CMD}])|\Z)"
    rf"|[{_CMD}][\s,]*+)++"
).fullmatch


def path_data_reads(d: str) -> bool:
    """``not is_invalid(normalise_attribute("d", d))`` without spelling out every number.

    The same §4.3 token scan as the ``d`` normalisation (a single number, a blank value, or a
    token stream that reads to its end); a number is respelled only where that can raise (an
    exponent: ``Decimal`` of a huge one), so it raises where the normalisation does.
    """
    value = fold_ws(d)
    if not value or _NUMBER_RE.fullmatch(value):
        if value and ("e" in value or "E" in value):
            normalise_number(value)
        return True
    if value.isascii() and "e" not in value and "E" not in value:
        return _ASCII_STREAM(value) is not None  # no number can raise: the same verdict
    return _token_stream(value, True, spell=False) is not None


def number_tokens(value: str) -> list[str] | None:
    """Normalised numbers of a numeric token stream (``points``, ``viewBox``, lists), §4.3.

    Returns ``[]`` for an empty/blank value and ``None`` when the stream is malformed (any
    other character, or two numbers packed without a separator unless the second is signed).

    Examples
    --------
    >>> number_tokens(" 0,0  1.0 , 2e1 "), number_tokens("0-1"), number_tokens("0.5.5")
    (['0', '0', '1', '20'], ['0', '-1'], None)
    >>> number_tokens("10px"), number_tokens("")
    (None, [])
    """
    value = fold_ws(value)
    if not value:
        return []
    return _token_stream(value, commands=False)


def path_tokens(value: str) -> list[str] | None:
    """Normalised tokens of path data: numbers and single command letters (spec §4.3).

    Examples
    --------
    >>> path_tokens("M0,0L1,1") == path_tokens("M 0 0 L 1.0 1.00") == ["M", "0", "0", "L", "1", "1"]
    True
    >>> path_tokens("M0 0; L1 1"), path_tokens("M0.5.5"), path_tokens("A5 5 0 0110")
    (None, None, ['A', '5', '5', '0', '110'])
    """
    value = fold_ws(value)
    if not value:
        return []
    return _token_stream(value, commands=True)


def normalise_transform(value: str) -> str | None:
    """Normalise a ``transform`` list (spec §4.4); ``None`` when malformed.

    Examples
    --------
    >>> normalise_transform("translate(10,20)  rotate(45)")
    'translate(10 20) rotate(45)'
    >>> normalise_transform("translate(10); scale(2)"), normalise_transform("Scale(2)")
    (None, None)
    >>> normalise_transform("rotate()"), normalise_transform("")
    (None, '')
    """
    value = fold_ws(value)
    if not value:
        return ""
    items: list[str] = []
    pos = 0
    sep = _SEP_RE.fullmatch
    for m in _TRANSFORM_RE.finditer(value):
        if sep(value, pos, m.start()) is None:
            return None
        args = number_tokens(m.group(2))
        if args is None:
            return None
        name = m.group(1)
        if len(args) not in _TRANSFORM_ARITY.get(name, ()):
            return None
        items.append(f"{name}({' '.join(args)})")
        pos = m.end()
    if not items or sep(value, pos) is None:
        return None
    return " ".join(items)


def style_pieces(value: str) -> list[tuple[str, str]] | None:
    """Split a ``style`` value into (lower-cased name, raw value) pairs, §4.5 / §5.2.

    Empty pieces are skipped; a piece without ``:``, or with an empty name or value, makes the
    whole style malformed (``None``). Duplicates are kept in order.

    Examples
    --------
    >>> style_pieces("Fill: red;; stroke:blue;")
    [('fill', 'red'), ('stroke', 'blue')]
    >>> style_pieces("fill red") is None, style_pieces("fill:") is None
    (True, True)
    """
    out: list[tuple[str, str]] = []
    for chunk in value.split(";"):
        chunk = chunk.strip()
        if not chunk:
            continue
        name, colon, raw = chunk.partition(":")
        if not colon:
            return None
        name = name.strip().lower()
        raw = raw.strip()
        if not name or not raw:
            return None
        out.append((name, raw))
    return out


def normalise_style(value: str) -> str | None:
    """Normalise a ``style`` attribute at C level (spec §4.5); ``None`` when malformed.

    Declarations are sorted by name when all names are distinct; otherwise order and
    duplicates are kept. Nested values go through :func:`normalise_attribute_reference` (an invalid nested
    value does not invalidate the style itself, §4.5 [parity]).

    Examples
    --------
    >>> normalise_style("stroke: Blue; fill: White;")
    'fill:#ffffff;stroke:#0000ff'
    >>> normalise_style("fill:red;fill:blue")
    'fill:#ff0000;fill:#0000ff'
    >>> normalise_style("fill") is None
    True
    """
    pieces = style_pieces(fold_ws(value))
    if pieces is None:
        return None
    decls = [(name, normalise_attribute_reference(name, raw)) for name, raw in pieces]
    if len({name for name, _ in decls}) == len(decls):
        decls.sort()
    return ";".join(f"{name}:{v}" for name, v in decls)


# N(name, value), §4.1


def _normalise(name: str, value: str) -> str:
    value = fold_ws(value)
    if name == "style":
        out = normalise_style(value)
        return out if out is not None else INVALID_MARKER + value
    if name in COLOR_ATTRIBUTES and not value[:4].lower() == "url(":
        return normalise_color(value)
    if _NUMBER_RE.fullmatch(value):
        return normalise_number(value)
    if name == "d":
        toks = _token_stream(value, True) if value else []
        return " ".join(toks) if toks is not None else INVALID_MARKER + value
    if name == "points" or name == "viewBox":
        toks = _token_stream(value, False) if value else []
        return " ".join(toks) if toks is not None else INVALID_MARKER + value
    if name == "transform":
        out = normalise_transform(value)
        return out if out is not None else INVALID_MARKER + value
    if value:
        toks = _token_stream(value, False)
        if toks:
            return " ".join(toks)
    return value


_normalise_cached = functools.lru_cache(maxsize=1 << 16)(_normalise)


def normalise_attribute_reference(name: str, value: str) -> str:
    """The reference's N(name, value): canonical spelling of one attribute value (spec §4.1).

    Parameters
    ----------
    name : str
        Local attribute name (a namespace prefix ``{uri}`` is stripped if present).
    value : str
        Raw value.

    Returns
    -------
    str
        The normalised value; starts with :data:`INVALID_MARKER` when the syntax check of
        rules 1, 4, 5 or 6 failed.

    Examples
    --------
    >>> normalise_attribute_reference("x", "10.0"), normalise_attribute_reference("fill", "White")
    ('10', '#ffffff')
    >>> normalise_attribute_reference("viewBox", "0,0,220,140")
    '0 0 220 140'
    >>> normalise_attribute_reference("stroke-dasharray", "4,2")
    '4 2'
    >>> normalise_attribute_reference("width", "10px"), normalise_attribute_reference("fill", "url(#A)")
    ('10px', 'url(#A)')
    >>> normalise_attribute_reference("d", "M0 0; L1 1").startswith(INVALID_MARKER)
    True
    """
    if name[:1] == "{":
        name = local_name(name)
    if len(value) <= _CACHE_MAX_LEN:
        return _normalise_cached(name, value)
    return _normalise(name, value)
