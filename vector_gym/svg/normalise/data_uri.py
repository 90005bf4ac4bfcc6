"""``data:`` URIs (RFC 2397): what they hold, read from their bytes, never from their MIME type.

A ``data:`` URI is drawn only when its payload is a raster image that every backend decodes by
itself (PNG, JPEG, GIF or WebP, recognised by the file signature), whatever MIME type it
declares: an SVG document (``image/svg+xml``, ``text/plain`` or a raster MIME type hiding SVG
text, which resvg sniffs) would be parsed by resvg or CairoSVG outside the render pre-check
(depth, ``<use>`` fan-out, gzip size, its own ``xml:base`` and file references), so it is not
drawn. The header of a PNG or JPEG gives its pixel size, checked before any decoder runs
(:func:`raster_size`).
"""

from __future__ import annotations

import base64
import binascii
import struct
from functools import lru_cache
from urllib.parse import unquote_to_bytes

__all__ = ["RASTER_KINDS", "data_uri_payload", "raster_kind", "raster_size"]

RASTER_KINDS = ("png", "jpeg", "gif", "webp")
"""Raster formats a ``data:`` URI may hold to be drawn."""

_HEAD_BYTES = 1 << 20  # JPEG headers (EXIF, ICC segments) lie in the first MiB


def data_uri_payload(uri: str, limit: int = _HEAD_BYTES) -> bytes | None:
    """Return the first ``limit`` decoded bytes of a ``data:`` URI, or ``None`` when it is not one.

    Parameters
    ----------
    uri : str
        The reference (leading and trailing whitespace ignored; the scheme in any case).
    limit : int
        Most payload bytes returned (decoding stops there; work is bounded by it).

    Returns
    -------
    bytes or None
        ``None`` for a reference that is not ``data:``, has no comma, or holds broken base64.

    Examples
    --------
    >>> data_uri_payload("data:image/png;base64,iVBORw0KGgo=")
    b'\\x89PNG\\r\\n\\x1a\\n'
    >>> data_uri_payload("data:,a%20b"), data_uri_payload("#x")
    (b'a b', None)
    """
    v = uri.strip()
    if v[:5].lower() != "data:":
        return None
    comma = v.find(",")
    if comma < 0:
        return None
    meta = v[5:comma].lower()
    body = v[comma + 1 :]
    if meta.endswith(";base64"):
        chunk = "".join(body[: (limit // 3 + 2) * 4 + 1024].split())
        chunk = chunk[: len(chunk) // 4 * 4]
        try:
            return base64.b64decode(chunk, validate=False)[:limit]
        except (binascii.Error, ValueError):
            return None
    return unquote_to_bytes(body[: 3 * limit])[:limit]


def raster_kind(head: bytes) -> str | None:
    """The raster format a payload starts with (one of :data:`RASTER_KINDS`), else ``None``."""
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if head[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


def _jpeg_size(b: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(b)
    while i + 4 <= n:
        if b[i] != 0xFF:
            return None
        marker = b[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", b[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", b[i + 5 : i + 9])
            return (w, h)
        if length < 2:
            return None
        i += 2 + length
    return None


@lru_cache(maxsize=256)
def raster_size(uri: str) -> tuple[str, int, int] | None:
    """Read a raster ``data:`` URI's format and pixel size from its header, without decoding it.

    Parameters
    ----------
    uri : str
        A ``data:`` URI.

    Returns
    -------
    (str, int, int) or None
        ``(kind, width, height)``; width and height are ``-1`` when the header of a GIF or WebP
        is not read (their decoders bound themselves) or a PNG/JPEG header is truncated.
        ``None`` when the payload is no raster image of :data:`RASTER_KINDS` (an SVG document,
        text, broken base64): such a URI is not drawn.

    Examples
    --------
    >>> import base64, struct
    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I4sII", 13, b"IHDR", 40000, 30000)
    >>> raster_size("data:image/png;base64," + base64.b64encode(png).decode())
    ('png', 40000, 30000)
    >>> raster_size("data:image/png;base64," + base64.b64encode(b"<svg/>").decode()) is None
    True
    """
    head = data_uri_payload(uri)
    if head is None:
        return None
    kind = raster_kind(head)
    if kind is None:
        return None
    if kind == "png":
        if len(head) >= 24 and head[12:16] == b"IHDR":
            w, h = struct.unpack(">II", head[16:24])
            return (kind, w, h)
        return (kind, -1, -1)
    if kind == "jpeg":
        size = _jpeg_size(head)
        return (kind, size[0], size[1]) if size else (kind, -1, -1)
    return (kind, -1, -1)
