"""How a cached answer is laid out in Redis, so that nothing this service did not write is served.

A stored value is a frame::

    magic "OR" | frame version (2) | flags (1) | HTTP status (2) | payload length (4)
    | HMAC-SHA256 (32) of the cache key, of everything before it and of the payload
    | payload = content-type length (1) | content type (ASCII) | body (zlib-compressed if flagged)

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
from dataclasses import dataclass

MAGIC = b"OR"
FRAME_VERSION = 2  # 1 was CRC-32 checked; its frames are now corrupt, so overwritten
FLAG_ZLIB = 0x01
_FIELDS = struct.Struct(">2sBBHI")
_MAC_SIZE = hashlib.sha256().digest_size
HEADER_SIZE = _FIELDS.size + _MAC_SIZE
_KEY_LENGTH = struct.Struct(">I")
# Measured on rendered answers (README "Cache"): from ~1 KiB (4 runtimes) zlib level 1 shrinks
# JSON, YAML and tables 3.5x, 100 runtimes 10-12x (13.8 KB -> 1.1 KB) for ~20 us to compress
# and ~12 us to inflate; level 6 gains another ~10% for 2.5x the time. Below 1 KiB it saves
# a few hundred bytes at most.
COMPRESS_MIN_BYTES = 1024
COMPRESS_LEVEL = 1
# Without a configured bound (the service passes OME_RANKER_MAX_BODY_BYTES): its default.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024


class CorruptEntry(ValueError):
    """A stored value that is not a frame this service wrote and can verify."""


@dataclass(frozen=True, slots=True)
class CachedAnswer:
    """A rendered response, exactly as the view sends it (``X-Cache`` aside)."""

    status: int
    content_type: str
    body: bytes


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

    def fits(self, answer: CachedAnswer) -> bool:
        return len(answer.body) <= self.max_body_bytes

    def payload(self, answer: CachedAnswer) -> tuple[int, bytes]:
        """``(flags, payload)``: the part of a frame that does not depend on the key, so one
        answer stored under two keys is compressed once."""
        content_type = answer.content_type.encode("ascii")
        if len(content_type) > 255:
            raise ValueError("content type longer than 255 bytes cannot be framed")
        if not self.fits(answer):
            raise ValueError(f"answer body over {self.max_body_bytes} bytes cannot be framed")
        flags, body = 0, answer.body
        if len(body) >= COMPRESS_MIN_BYTES:
            packed = zlib.compress(body, COMPRESS_LEVEL)
            if len(packed) < len(body):
                flags, body = FLAG_ZLIB, packed
        return flags, b"".join((bytes((len(content_type),)), content_type, body))

    def sign(self, key: str, status: int, flags: int, payload: bytes) -> bytes:
        fields = _FIELDS.pack(MAGIC, FRAME_VERSION, flags, status, len(payload))
        return b"".join((fields, self._mac(key, fields, payload), payload))

    def encode(self, answer: CachedAnswer, key: str = "") -> bytes:
        """The frame of ``answer`` stored under ``key``."""
        flags, payload = self.payload(answer)
        return self.sign(key, answer.status, flags, payload)

    def decode(self, frame: bytes, key: str = "") -> CachedAnswer:
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
        if flags & ~FLAG_ZLIB or not 200 <= status <= 599:
            raise CorruptEntry("frame header out of range")
        type_end = 1 + payload[0]
        if type_end > len(payload):
            raise CorruptEntry("content type runs past the frame")
        try:
            content_type = bytes(payload[1:type_end]).decode("ascii")
            packed = payload[type_end:]
            body = self._inflate(packed) if flags & FLAG_ZLIB else bytes(packed)
        except (UnicodeDecodeError, zlib.error) as error:
            raise CorruptEntry(f"frame payload does not decode: {error}") from None
        if len(body) > self.max_body_bytes:
            raise CorruptEntry(f"frame body over {self.max_body_bytes} bytes")
        return CachedAnswer(status, content_type, body)

    def _inflate(self, packed: memoryview) -> bytes:
        inflater = zlib.decompressobj()
        body = inflater.decompress(packed, self.max_body_bytes + 1)
        if len(body) > self.max_body_bytes or inflater.unconsumed_tail:
            raise CorruptEntry(f"frame body inflates past {self.max_body_bytes} bytes")
        if not inflater.eof or inflater.unused_data:
            raise CorruptEntry("frame body is not one complete zlib stream")
        return body

    def _mac(self, key: str, fields: bytes | memoryview, payload: bytes | memoryview) -> bytes:
        encoded_key = key.encode("utf-8")
        mac = hmac.new(self._secret, _KEY_LENGTH.pack(len(encoded_key)), hashlib.sha256)
        mac.update(encoded_key)
        mac.update(fields)
        mac.update(payload)
        return mac.digest()

    def encode_many(self, entries: Mapping[str, CachedAnswer]) -> dict[str, bytes]:
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
