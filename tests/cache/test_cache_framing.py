"""Stored values are framed and verified: nothing that does not verify is ever served."""

from __future__ import annotations

import random
import struct
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cache.framing import (
    COMPRESS_MIN_BYTES,
    FLAG_ZLIB,
    CachedAnswer,
    CorruptEntry,
    decode_frame,
    encode_frame,
)

SMALL = CachedAnswer(200, "application/json", b'{"selected":null}')
LARGE = CachedAnswer(200, "text/plain; charset=utf-8", b"RUNTIME   SCOPE\n" * 500)


@pytest.mark.parametrize(
    "answer",
    [SMALL, LARGE, CachedAnswer(422, "application/json", b""), CachedAnswer(404, "x/y", b"\0")],
)
def test_round_trip(answer):
    assert decode_frame(encode_frame(answer)) == answer


def test_large_bodies_are_compressed_small_ones_not():
    assert encode_frame(LARGE)[3] == FLAG_ZLIB
    assert len(encode_frame(LARGE)) < len(LARGE.body) // 10
    assert encode_frame(SMALL)[3] == 0
    incompressible = CachedAnswer(200, "application/json", random.Random(7).randbytes(2048))
    assert len(incompressible.body) >= COMPRESS_MIN_BYTES
    assert encode_frame(incompressible)[3] == 0  # zlib would not make it smaller


@given(st.integers(min_value=0), st.integers(min_value=1, max_value=255))
def test_any_changed_byte_is_detected(position, flip):
    frame = bytearray(encode_frame(LARGE))
    frame[position % len(frame)] ^= flip
    with pytest.raises(CorruptEntry):
        decode_frame(bytes(frame))


@given(st.integers(min_value=0))
def test_any_truncation_or_extension_is_detected(length):
    frame = encode_frame(SMALL)
    with pytest.raises(CorruptEntry):
        decode_frame(frame[: length % len(frame)])
    with pytest.raises(CorruptEntry):
        decode_frame(frame + b"\0")


@pytest.mark.parametrize(
    "value", [b"", b"OK", b'{"selected":null}', b"OR\x01" + b"\0" * 40, "text"]
)
def test_garbage_is_corrupt(value):
    with pytest.raises(CorruptEntry):
        decode_frame(value)


def _checksummed(flags: int, status: int, payload: bytes) -> bytes:
    """A frame whose checksum is right, whatever is in it."""
    fields = struct.pack(">2sBBHI", b"OR", 1, flags, status, len(payload))
    return fields + struct.pack(">I", zlib.crc32(payload, zlib.crc32(fields))) + payload


@pytest.mark.parametrize(
    ("flags", "status", "payload", "problem"),
    [
        (0x80, 200, b"\x01x{}", "header out of range"),
        (0, 200 - 1, b"\x01x{}", "header out of range"),
        (0, 600, b"\x01x{}", "header out of range"),
        (0, 200, b"\x09x{}", "runs past the frame"),
        (0, 200, b"\x02\xff\xfe{}", "does not decode"),
        (FLAG_ZLIB, 200, b"\x01xnot zlib at all", "does not decode"),
    ],
)
def test_a_checksummed_frame_that_makes_no_sense_is_corrupt(flags, status, payload, problem):
    # Only a writer that knows the layout could make these; they must still not be served.
    with pytest.raises(CorruptEntry, match=problem):
        decode_frame(_checksummed(flags, status, payload))


def test_content_types_longer_than_255_bytes_cannot_be_framed():
    with pytest.raises(ValueError, match="255"):
        encode_frame(CachedAnswer(200, "x/" + "y" * 254, b""))
