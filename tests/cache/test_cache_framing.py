"""Stored values are framed, signed and bounded: nothing the service did not write is served."""

from __future__ import annotations

import gzip
import random
import struct
import tracemalloc
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from isal import isal_zlib

from app.cache.framing import (
    COMPRESS_MIN_BYTES,
    FLAG_GZIP,
    HEADER_SIZE,
    Answer,
    CorruptEntry,
    FrameCodec,
    compressed,
    gzip_member,
)

SMALL = Answer(200, "application/json", b'{"selected":null}')
LARGE = Answer(200, "text/plain; charset=utf-8", b"RUNTIME   SCOPE\n" * 500)
CODEC = FrameCodec(b"s" * 32)
KEY = "ome-ranker:req:v1:" + "ab" * 32


@pytest.mark.parametrize(
    "answer",
    [SMALL, LARGE, Answer(422, "application/json", b""), Answer(404, "x/y", b"\0")],
)
def test_round_trip(answer):
    assert CODEC.decode(CODEC.encode(answer, KEY), KEY) == compressed(answer)


def test_a_large_body_is_stored_as_the_gzip_member_http_sends():
    """The frame holds one gzip member, which a read hands out as it is (no deflating again)."""
    frame = CODEC.encode(LARGE, KEY)
    read = CODEC.decode(frame, KEY)
    assert read.body == LARGE.body
    assert read.gzipped is not None and frame.endswith(read.gzipped)
    assert gzip.decompress(read.gzipped) == LARGE.body
    assert gzip_member(LARGE.body) == read.gzipped  # the same body, the same bytes
    assert compressed(SMALL).gzipped is None


def test_an_answer_compressed_before_it_is_stored_is_not_compressed_again():
    ready = compressed(LARGE)
    marked = Answer(ready.status, ready.content_type, ready.body, b"\x1f\x8b" + b"x" * 10)
    assert CODEC.encode(marked).endswith(marked.gzipped)


def test_large_bodies_are_compressed_small_ones_not():
    assert CODEC.encode(LARGE)[3] == FLAG_GZIP
    assert len(CODEC.encode(LARGE)) < len(LARGE.body) // 10
    assert CODEC.encode(SMALL)[3] == 0
    incompressible = Answer(200, "application/json", random.Random(7).randbytes(2048))
    assert len(incompressible.body) >= COMPRESS_MIN_BYTES
    assert CODEC.encode(incompressible)[3] == 0  # gzip would not make it smaller
    assert compressed(incompressible) == incompressible


@given(st.integers(min_value=0), st.integers(min_value=1, max_value=255))
def test_any_changed_byte_is_detected(position, flip):
    frame = bytearray(CODEC.encode(LARGE, KEY))
    frame[position % len(frame)] ^= flip
    with pytest.raises(CorruptEntry):
        CODEC.decode(bytes(frame), KEY)


@given(st.integers(min_value=0))
def test_any_truncation_or_extension_is_detected(length):
    frame = CODEC.encode(SMALL, KEY)
    with pytest.raises(CorruptEntry):
        CODEC.decode(frame[: length % len(frame)], KEY)
    with pytest.raises(CorruptEntry):
        CODEC.decode(frame + b"\0", KEY)


@pytest.mark.parametrize(
    "value", [b"", b"OK", b'{"selected":null}', b"OR\x02" + b"\0" * 60, "text"]
)
def test_garbage_is_corrupt(value):
    with pytest.raises(CorruptEntry):
        CODEC.decode(value, KEY)


def test_a_frame_signed_with_another_secret_is_corrupt():
    forger = FrameCodec(b"f" * 32)
    with pytest.raises(CorruptEntry, match="signature"):
        CODEC.decode(forger.encode(Answer(200, "text/html", b"<script>"), KEY), KEY)


def test_a_frame_moved_to_another_key_is_corrupt():
    """A genuine answer copied under another question's key is not served for it."""
    frame = CODEC.encode(SMALL, KEY)
    with pytest.raises(CorruptEntry, match="signature"):
        CODEC.decode(frame, KEY.replace("ab", "cd", 1))


def test_a_crc_checked_frame_of_the_old_layout_is_corrupt():
    """Version 1 frames carried a CRC-32 anyone could compute: they are never read."""
    payload = b"\x09text/html<h1>a forged answer, long enough for a frame</h1>"
    fields = struct.pack(">2sBBHI", b"OR", 1, 0, 200, len(payload))
    frame = fields + struct.pack(">I", zlib.crc32(payload, zlib.crc32(fields))) + payload
    with pytest.raises(CorruptEntry, match="version"):
        CODEC.decode(frame, KEY)


def test_process_codecs_have_their_own_secrets():
    mine = FrameCodec.ephemeral()
    assert mine.decode(mine.encode(SMALL, KEY), KEY) == SMALL
    with pytest.raises(CorruptEntry):
        FrameCodec.ephemeral().decode(mine.encode(SMALL, KEY), KEY)


@pytest.mark.parametrize(
    ("flags", "status", "payload", "problem"),
    [
        (0x80, 200, b"\x01x{}", "header out of range"),
        (0, 200 - 1, b"\x01x{}", "header out of range"),
        (0, 600, b"\x01x{}", "header out of range"),
        (0, 200, b"\x09x{}", "runs past the frame"),
        (0, 200, b"\x02\xff\xfe{}", "does not decode"),
        (FLAG_GZIP, 200, b"\x01xnot gzip at all", "does not decode"),
        (FLAG_GZIP, 200, b"\x01x" + zlib.compress(b"{}" * 600), "does not decode"),  # version 2
        (FLAG_GZIP, 200, b"\x01x" + gzip_member(b"{}" * 600)[:-4], "not one complete"),
        (FLAG_GZIP, 200, b"\x01x" + gzip_member(b"{}" * 600) + b"more", "not one complete"),
    ],
)
def test_a_signed_frame_that_makes_no_sense_is_corrupt(flags, status, payload, problem):
    # Only a writer holding the secret could make these; they must still not be served.
    with pytest.raises(CorruptEntry, match=problem):
        CODEC.decode(CODEC.sign(KEY, status, flags, payload), KEY)


def test_a_body_inflates_only_up_to_the_bound():
    """A few KB of gzip that would inflate to 64 MiB: refused after at most the bound."""
    codec = FrameCodec(b"s" * 32, max_body_bytes=1024 * 1024)
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), 9)
    frame = codec.sign(KEY, 200, FLAG_GZIP, b"\x01x" + bomb)
    assert len(frame) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(CorruptEntry, match="inflates past"):
            codec.decode(frame, KEY)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024


def test_a_frame_too_long_for_the_bound_is_refused_unread():
    codec = FrameCodec(b"s" * 32, max_body_bytes=1000)
    frame = codec.sign(KEY, 200, 0, b"\x01x" + b"y" * 2000)
    with pytest.raises(CorruptEntry, match="over the bound"):
        codec.decode(frame, KEY)


def test_answers_over_the_bound_are_not_framed():
    codec = FrameCodec(b"s" * 32, max_body_bytes=10)
    big = Answer(200, "application/json", b"x" * 11)
    small = Answer(200, "application/json", b"x" * 10)
    with pytest.raises(ValueError, match="over 10 bytes"):
        codec.encode(big, KEY)
    assert codec.encode_many({"big": big, "small": small}).keys() == {"small"}


def test_one_answer_under_two_keys_is_compressed_once(monkeypatch):
    calls = []
    real_compressobj = isal_zlib.compressobj
    monkeypatch.setattr(
        isal_zlib, "compressobj", lambda *args: calls.append(1) or real_compressobj(*args)
    )
    frames = CODEC.encode_many({"req": LARGE, "rank": LARGE})
    assert len(calls) == 1
    assert frames["req"][HEADER_SIZE:] == frames["rank"][HEADER_SIZE:]
    assert frames["req"] != frames["rank"]  # each signed for its own key


def test_content_types_longer_than_255_bytes_cannot_be_framed():
    with pytest.raises(ValueError, match="255"):
        CODEC.encode(Answer(200, "x/" + "y" * 254, b""))


def test_a_codec_needs_a_secret():
    with pytest.raises(ValueError, match="secret"):
        FrameCodec(b"")
