"""How a cached answer is laid out in Redis, so that nothing this service did not write is served.

A stored value is a frame::

    magic "OR" | frame version (2) | flags (1) | HTTP status (2) | payload length (4)
    | HMAC-SHA256 (32) of the cache key, of everything before it and of the payload
    | payload = content-type length (1) | content type (ASCII) | body (a gzip member if flagged)

The compressed body is stored as the gzip member an HTTP answer with ``Content-Encoding: gzip``
carries (app/http/compression.py): a client that accepts gzip is served the stored bytes as
they are, with no inflating and deflating again; the identity body is inflated once, when the
frame is read (and then kept decoded in the hot answers, app/cache/hot.py).

The HMAC is keyed by ``OME_RANKER_CACHE_SECRET``: a checksum would catch corruption, but anyone
who can write to a shared Redis could forge a frame with a valid checksum and have the service
serve any status, content type and body. Signing the key too means a genuine answer cannot be
copied under another question's key. A body inflates to at most ``max_body_bytes`` (a 1 MB
zlib stream can inflate to 1 GB), and a frame that could not hold a body that small is refused
before it is hashed.

Anything that does not verify (wrong magic or version, unknown flags, a length or MAC that does
not match, a body that does not inflate or inflates past the bound) raises ``CorruptEntry``: the
caller treats it as a miss and overwrites it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
import zlib
from collections.abc import Mapping

from isal import isal_zlib

from app.rendering.answers import Answer

MAGIC = b"OR"
# 1 was CRC-32 checked, 2 held zlib streams: their frames are now corrupt, so overwritten.
FRAME_VERSION = 3
FLAG_GZIP = 0x01
_FIELDS = struct.Struct(">2sBBHI")
_MAC_SIZE = hashlib.sha256().digest_size
HEADER_SIZE = _FIELDS.size + _MAC_SIZE
_KEY_LENGTH = struct.Struct(">I")
# Deflate level 1 from 1 KiB (bench/README.md "Figures behind the code"): on rendered answers it
# shrinks JSON, YAML and tables several times over, a higher level gains little for much more
# time, and below 1 KiB it saves a few hundred bytes at most while the answer fits one TCP
# segment either way: the same bound decides which HTTP answers are sent compressed. Written by
# ISA-L (python-isal), whose level 1 deflates about five times faster than zlib's for the same
# size within 2 %; any gzip reader inflates it (zlib, below, for the frames).
COMPRESS_MIN_BYTES = 1024
COMPRESS_LEVEL = 1
_GZIP_WBITS = 31  # the gzip container: header (mtime 0, so the same body gives the same bytes)
# Without a configured bound (the service passes OME_RANKER_MAX_BODY_BYTES): its default.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024


class CorruptEntry(ValueError):
    """A stored value that is not a frame this service wrote and can verify."""


def gzip_member(body: bytes) -> bytes:
    """``body`` as one gzip member, the same bytes for the same body."""
    packer = isal_zlib.compressobj(COMPRESS_LEVEL, isal_zlib.DEFLATED, _GZIP_WBITS)
    return packer.compress(body) + packer.flush()


def compressed(answer: Answer) -> Answer:
    """``answer`` with its gzip member, made once here whoever stores or sends it."""
    if answer.gzipped is not None or len(answer.body) < COMPRESS_MIN_BYTES:
        return answer
    packed = gzip_member(answer.body)
    if len(packed) >= len(answer.body):
        return answer
    return Answer(answer.status, answer.content_type, answer.body, packed)


class FrameCodec:
    """Frames signed with one secret; answers with bodies over ``max_body_bytes`` are neither
    written nor read."""

    def __init__(self, secret: bytes, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        if not secret:
            raise ValueError("a frame codec needs a non-empty secret")
        self._secret = secret
        self.max_body_bytes = max_body_bytes
        # the content type (1 + at most 255 bytes), then a body that fits, or its zlib stream,
        # which is only stored when smaller
        self._max_payload = 256 + max_body_bytes

    @classmethod
    def ephemeral(cls, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> FrameCodec:
        """A codec with a random secret: its frames verify in this process only."""
        return cls(secrets.token_bytes(32), max_body_bytes)

    def fits(self, answer: Answer) -> bool:
        return len(answer.body) <= self.max_body_bytes

    def payload(self, answer: Answer) -> tuple[int, bytes]:
        """``(flags, payload)``: the part of a frame that does not depend on the key, so one
        answer stored under two keys is compressed once."""
        content_type = answer.content_type.encode("ascii")
        if len(content_type) > 255:
            raise ValueError("content type longer than 255 bytes cannot be framed")
        if not self.fits(answer):
            raise ValueError(f"answer body over {self.max_body_bytes} bytes cannot be framed")
        packed = compressed(answer).gzipped
        flags, body = (0, answer.body) if packed is None else (FLAG_GZIP, packed)
        return flags, b"".join((bytes((len(content_type),)), content_type, body))

    def sign(self, key: str, status: int, flags: int, payload: bytes) -> bytes:
        fields = _FIELDS.pack(MAGIC, FRAME_VERSION, flags, status, len(payload))
        return b"".join((fields, self._mac(key, fields, payload), payload))

    def encode(self, answer: Answer, key: str = "") -> bytes:
        """The frame of ``answer`` stored under ``key``."""
        flags, payload = self.payload(answer)
        return self.sign(key, answer.status, flags, payload)

    def decode(self, frame: bytes, key: str = "") -> Answer:
        """The answer in ``frame`` read from ``key``; ``CorruptEntry`` unless it verifies."""
        if not isinstance(frame, bytes) or len(frame) < HEADER_SIZE + 1:
            raise CorruptEntry("value too short to be a frame")
        magic, version, flags, status, length = _FIELDS.unpack_from(frame)
        if magic != MAGIC or version != FRAME_VERSION:
            raise CorruptEntry("not a ranking-cache frame of this version")
        view = memoryview(frame)
        payload = view[HEADER_SIZE:]
        if len(payload) != length or length > self._max_payload:
            raise CorruptEntry("frame length does not match, or is over the bound")
        expected = self._mac(key, view[: _FIELDS.size], payload)
        if not hmac.compare_digest(expected, view[_FIELDS.size : HEADER_SIZE]):
            raise CorruptEntry("frame signature does not match (another key or secret)")
        if flags & ~FLAG_GZIP or not 200 <= status <= 599:
            raise CorruptEntry("frame header out of range")
        type_end = 1 + payload[0]
        if type_end > len(payload):
            raise CorruptEntry("content type runs past the frame")
        gzipped = None
        try:
            content_type = bytes(payload[1:type_end]).decode("ascii")
            packed = payload[type_end:]
            if flags & FLAG_GZIP:
                body, gzipped = self._inflate(packed), bytes(packed)
            else:
                body = bytes(packed)
        except (UnicodeDecodeError, zlib.error) as error:
            raise CorruptEntry(f"frame payload does not decode: {error}") from None
        if len(body) > self.max_body_bytes:
            raise CorruptEntry(f"frame body over {self.max_body_bytes} bytes")
        return Answer(status, content_type, body, gzipped)

    def _inflate(self, packed: memoryview) -> bytes:
        """The body of one whole gzip member (its CRC and length checked by zlib), bounded."""
        inflater = zlib.decompressobj(_GZIP_WBITS)
        body = inflater.decompress(packed, self.max_body_bytes + 1)
        if len(body) > self.max_body_bytes or inflater.unconsumed_tail:
            raise CorruptEntry(f"frame body inflates past {self.max_body_bytes} bytes")
        if not inflater.eof or inflater.unused_data:
            raise CorruptEntry("frame body is not one complete gzip member")
        return body

    def _mac(self, key: str, fields: bytes | memoryview, payload: bytes | memoryview) -> bytes:
        encoded_key = key.encode("utf-8")
        mac = hmac.new(self._secret, _KEY_LENGTH.pack(len(encoded_key)), hashlib.sha256)
        mac.update(encoded_key)
        mac.update(fields)
        mac.update(payload)
        return mac.digest()

    def encode_many(self, entries: Mapping[str, Answer]) -> dict[str, bytes]:
        """Frames for ``entries``, each distinct answer compressed once; answers over the bound
        are left out (not cached)."""
        payloads: dict[int, tuple[int, bytes]] = {}
        frames = {}
        for key, answer in entries.items():
            if not self.fits(answer):
                continue
            packed = payloads.get(id(answer))
            if packed is None:
                packed = payloads[id(answer)] = self.payload(answer)
            frames[key] = self.sign(key, answer.status, *packed)
        return frames
