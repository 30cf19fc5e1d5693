"""``to_json`` (orjson, put right where it writes otherwise) gives the stdlib's bytes for every
answer: the answers' byte-identity tests rely on it, and so does every cached ETag."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.rendering.encode as encode
from app.rendering.encode import to_json
from tests.json_values import json_values


def stdlib(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


@settings(max_examples=4 * settings.default.max_examples)
@given(json_values)
def test_any_json_value_encodes_as_the_stdlib_does(value):
    assert to_json(value) == stdlib(value)


@pytest.mark.parametrize(
    "value",
    [
        "\x7f",  # DEL: ASCII, but escaped by the stdlib
        "é × 😀 \u2028 \ufeff",
        "\\é",  # an escaped backslash next to an escape
        "\\xe9 \\U0001f600",  # what an escape would look like, written out
        "\ud800 \udfff",
        "".join(chr(0xA0 + i) for i in range(40)),  # many distinct, in one run
        ["é\x7f×", "\x7f", "a\x7fé😀b"],  # DEL beside what the codec escapes
        ["é" * 2048, "×"],  # more non-ASCII bytes than the codec takes: the stdlib's pass
        ["é" * 2047, "😀" * 1000, "a é b"],  # runs of every length, up to the bound
        {"é": ["×", {"😀": "e-5"}]},
        {1: "a", None: "b", 2.5: "c"},  # keys the stdlib writes as strings
        [1e-5, -1.6e-7, 9.999999999999999e-05, 1e-4, 0.0001, 5e-324, 1e16, 1e22, -0.0],
        [2**63, 2**64, -(2**63) - 1, 10**30],
        ["runtime-1e-5", "0.0000 in a string"],  # look like small floats: the slow path
        ["granite-3-1-8b", "e-5", "le-1e-9", 1e-5],  # names that do not, beside one that is
        (1, (2, 3)),
    ],
)
def test_the_odd_corners(value):
    assert to_json(value) == stdlib(value)


def test_every_float_bit_pattern_sample():
    # Floats from their bit patterns cover every exponent, where the two formats part ways.
    values = []
    for bits in range(0, 2**64, 2**64 // 20011):
        number = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if math.isfinite(number):
            values.append(number)
    assert to_json(values) == stdlib(values)
    for number in values:
        assert to_json(number) == stdlib(number)


def test_an_answer_with_the_exclusion_summary():
    # Every ranking answer's summary holds "×": the path that escapes characters one by one.
    body = {"summary": "3 runtimes excluded: disabled ×2, size ×1", "score": 0.6971631205673758}
    assert to_json(body) == stdlib(body)
    assert b"\\u00d7" in to_json(body)


@pytest.mark.parametrize(
    "value",
    [
        ["granite-3-1-8b", "e-", "le-0", "1e-0", "e-5", "x e-9", "-1", "0.000", "1.0e10"],
        {"reason": "the-e-name-e-7b" * 50, "score": 1e-4, "weight": -3},
    ],
)
def test_what_only_looks_like_a_small_float_takes_orjson(monkeypatch, value):
    # No float under 1e-4 (an ``e-`` not after a digit, or before 0; ``0.000`` one zero short):
    # the answer is orjson's, never sent to the stdlib.
    monkeypatch.setattr(encode, "_stdlib_json", _refused)
    assert to_json(value) == stdlib(value)


@pytest.mark.parametrize(
    "value", [[1e-5], [-9.9e-6], {"a": [2.5e-300]}, ["x", 1e-7], "1e-5", "-0.00001", "a0.0000"]
)
def test_a_small_float_or_its_look_alike_takes_the_stdlib(monkeypatch, value):
    monkeypatch.setattr(encode, "_stdlib_json", _refused)
    with pytest.raises(AssertionError, match="stdlib"):
        to_json(value)


def _refused(body: Any) -> bytes:
    raise AssertionError("sent to the stdlib")


ODD = st.sampled_from(["é", "×", "😀", "\u2028", "\x7f", "\ufeff"])


@settings(max_examples=2 * settings.default.max_examples)
@given(
    st.integers(0, 3 * encode._PIECE),
    st.lists(st.tuples(st.floats(0, 1), ODD), min_size=1, max_size=6),
)
def test_a_long_answer_with_a_few_odd_characters_anywhere(length, odd):
    # Longer than the pieces the search for the non-ASCII stretch halves the answer into, with
    # the odd characters at the start, the end, together or far apart.
    text = list("r-e" * (length // 3))
    for place, character in sorted(odd, reverse=True):
        text.insert(round(place * len(text)), character)
    value = {"summary": "".join(text), "rows": [{"name": "a-b", "score": 0.5}] * 3}
    assert to_json(value) == stdlib(value)


@given(st.binary(min_size=1, max_size=5 * encode._PIECE), st.integers(0, 5 * encode._PIECE))
def test_the_odd_stretch_holds_every_non_ascii_byte(data, at):
    out = data[:at] + b"\xc3\x97" + data[at:]
    start, end = encode._odd_stretch(out)
    assert out[:start].isascii() and out[end:].isascii()
    assert 0 <= start < end <= len(out)


@pytest.mark.parametrize("first", [None, 0, 5, -3])
def test_the_odd_stretch_finds_a_byte_at_every_place(first):
    # A lone odd byte, or one beside another at the start or the end of the answer.
    ascii_text = b"-e" * (2 * encode._PIECE + 7)
    for at in range(len(ascii_text) + 1):
        data = bytearray(ascii_text[:at] + b"\x80" + ascii_text[at:])
        if first is not None:
            data[first] = 0xFF
        out = bytes(data)
        start, end = encode._odd_stretch(out)
        assert start <= at < end, at
        assert out[:start].isascii() and out[end:].isascii()
