"""How a cached answer is laid out in Redis, so that nothing unverified is ever served.

A stored value is a frame::

    magic "OR" | frame version (1) | flags (1) | HTTP status (2) | payload length (4)
    | CRC-32 of everything before it and of the payload (4)
    | payload = content-type length (1) | content type (ASCII) | body (zlib-compressed if flagged)

Anything that does not verify (wrong magic or version, unknown flags, a length or checksum that
does not match, a body that does not inflate) raises ``CorruptEntry``: the caller treats it as a
miss and overwrites it. Redis itself never corrupts values, but another client sharing the
database, a truncated write or an older release's layout could leave bytes that only look like
ours.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

MAGIC = b"OR"
FRAME_VERSION = 1
FLAG_ZLIB = 0x01
_FIELDS = struct.Struct(">2sBBHI")
_CHECKSUM = struct.Struct(">I")
_HEADER_SIZE = _FIELDS.size + _CHECKSUM.size
# Measured on rendered answers (README "Cache"): from ~1 KiB (4 runtimes) zlib level 1 shrinks
# JSON, YAML and tables 3.5x, 100 runtimes 10-12x (13.8 KB -> 1.1 KB) for ~20 us to compress
# and ~12 us to inflate; level 6 gains another ~10% for 2.5x the time. Below 1 KiB it saves
# a few hundred bytes at most.
COMPRESS_MIN_BYTES = 1024
COMPRESS_LEVEL = 1


class CorruptEntry(ValueError):
    """A stored value that is not a frame this release wrote and can verify."""


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    """A rendered response, exactly as the view sends it (``X-Cache`` aside)."""

    status: int
    content_type: str
    body: bytes


def encode_frame(answer: CachedAnswer) -> bytes:
    """The frame for ``answer``; the body is compressed only when that makes it smaller."""
    content_type = answer.content_type.encode("ascii")
    if len(content_type) > 255:
        raise ValueError("content type longer than 255 bytes cannot be framed")
    flags, body = 0, answer.body
    if len(body) >= COMPRESS_MIN_BYTES:
        packed = zlib.compress(body, COMPRESS_LEVEL)
        if len(packed) < len(body):
            flags, body = FLAG_ZLIB, packed
    payload = b"".join((bytes((len(content_type),)), content_type, body))
    fields = _FIELDS.pack(MAGIC, FRAME_VERSION, flags, answer.status, len(payload))
    checksum = _CHECKSUM.pack(zlib.crc32(payload, zlib.crc32(fields)))
    return b"".join((fields, checksum, payload))


def decode_frame(frame: bytes) -> CachedAnswer:
    """The answer in ``frame``; ``CorruptEntry`` for anything that does not verify."""
    if not isinstance(frame, bytes) or len(frame) < _HEADER_SIZE + 1:
        raise CorruptEntry("value too short to be a frame")
    magic, version, flags, status, length = _FIELDS.unpack_from(frame)
    if magic != MAGIC or version != FRAME_VERSION:
        raise CorruptEntry("not a ranking-cache frame of this version")
    view = memoryview(frame)
    payload = view[_HEADER_SIZE:]
    (checksum,) = _CHECKSUM.unpack_from(frame, _FIELDS.size)
    if len(payload) != length or zlib.crc32(payload, zlib.crc32(view[: _FIELDS.size])) != checksum:
        raise CorruptEntry("frame length or checksum does not match")
    if flags & ~FLAG_ZLIB or not 200 <= status <= 599:
        raise CorruptEntry("frame header out of range")
    type_end = 1 + payload[0]
    if type_end > len(payload):
        raise CorruptEntry("content type runs past the frame")
    try:
        content_type = bytes(payload[1:type_end]).decode("ascii")
        body = bytes(payload[type_end:])
        if flags & FLAG_ZLIB:
            body = zlib.decompress(body)
    except (UnicodeDecodeError, zlib.error) as error:
        raise CorruptEntry(f"frame payload does not decode: {error}") from None
    return CachedAnswer(status, content_type, body)
