"""SPEC §8: OME's version parser and matcher, corners included."""

import sys
import tracemalloc

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.selection.values.bounds import MAX_VALUE_CHARS
from app.selection.values.versions import parse_version, versions_match


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4.45.0.dev0", (4, 45, 0, 3, "", (), (), (b"dev0",))),
        ("4.51.3-SAM-HQ-preview", (4, 51, 3, 3, "", (b"SAM-HQ-preview",), (), ())),
        ("v1", (1, 0, 0, 1, "v", (), (), ())),
        ("1.2", (1, 2, 0, 2, "", (), (), ())),
        ("0.0.0", (0, 0, 0, 3, "", (), (), ())),
        ("1.2.3+b.7", (1, 2, 3, 3, "", (), (b"b", b"7"), ())),
        ("1.2.3.dev1-rc.1+meta", (1, 2, 3, 3, "", (b"rc", b"1"), (b"meta",), (b"dev1",))),
        ("18446744073709551615", (2**64 - 1, 0, 0, 1, "", (), (), ())),
    ],
)
def test_parse_accepts(text, expected):
    parsed = parse_version(text)
    assert parsed is not None
    assert (
        parsed.major,
        parsed.minor,
        parsed.patch,
        parsed.precision,
        parsed.prefix,
        parsed.pre,
        parsed.build,
        parsed.dev,
    ) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1.2-beta",  # a pre-release only hangs off the third part
        "01.2",
        "1.02",
        "1.2.03",
        "V1",  # only a lowercase v prefix
        "v",
        "1.",
        "1..2",
        "1.2.",
        "1.2.3-",
        "1.2.3+",
        "1.2.3-a..b",
        "1.2.3.dev0.",
        "18446744073709551616",  # beyond uint64
        "١.٢",  # non-ASCII digits
        "+1",
        " 1",
        "1.x",
    ],
)
def test_parse_rejects(text):
    assert parse_version(text) is None


@pytest.mark.parametrize(
    ("model", "entry", "operator", "matches"),
    [
        ("1.0.0", "1.0.0", None, True),
        ("1", "1.0.0", "Equal", True),  # Equal ignores precision
        ("1.0", "v1.0", None, True),  # … and the prefix
        ("1.0.0", "1.0.1", None, False),
        # The entry's version is the LEFT operand: GreaterThan 4.46 accepts models below it.
        ("4.45", "4.46", "GreaterThan", True),
        ("4.47", "4.46", "GreaterThan", False),
        ("4.46", "4.46", "GreaterThan", False),
        ("4.46", "4.46", "GreaterThanOrEqual", True),
        ("4.47", "4.46", "GreaterThanOrEqual", False),
        # Ordering operators need the same precision and prefix.
        ("4.45.0", "4.46", "GreaterThan", False),
        ("v4.45", "4.46", "GreaterThan", False),
        ("v4.45", "v4.46", "GreaterThan", True),
        # Unknown operators compare for equality, but precision still matters.
        ("1.0", "1.0", "Bogus", True),
        ("1.0", "1.0.0", "Bogus", False),
        ("1.0.0", "1.0.0", "", True),
        # Pre-release/build/dev parts force equality whatever the operator.
        ("1.0.0-rc1", "1.0.0-rc1", "GreaterThan", True),
        ("1.0.0-rc1", "1.0.0-rc2", "GreaterThan", False),
        ("1.0.0", "2.0.0.dev0", "GreaterThan", False),
        ("4.45.0.dev0", "4.45.0.dev0", None, True),
        ("4.45.0.dev0", "4.45.0", None, False),
        # Unparseable versions never match, not even themselves.
        ("1.2-beta", "1.2-beta", None, False),
        ("", "", None, False),
    ],
)
def test_versions_match(model, entry, operator, matches):
    assert versions_match(model, entry, operator) is matches


def test_pre_release_lists_compare_bytewise_with_prefix_smaller():
    # GreaterThan never applies to pre-releases, so compare through the sort key.
    a, b, c = (parse_version(v) for v in ("1.0.0-a", "1.0.0-a.b", "1.0.0-B"))
    assert a.sort_key() < b.sort_key()
    assert c.sort_key() < a.sort_key()  # 'B' (0x42) sorts before 'a' (0x61)
    assert parse_version("1.0.0").sort_key() < a.sort_key()  # absent list first


_numeric = st.integers(min_value=0, max_value=10**6).map(str)


@given(_numeric, _numeric, _numeric)
def test_plain_versions_order_numerically(major, minor, patch):
    text = f"{major}.{minor}.{patch}"
    bumped = f"{major}.{minor}.{int(patch) + 1}"
    assert versions_match(text, text, "GreaterThanOrEqual")
    assert versions_match(text, bumped, "GreaterThan")
    assert not versions_match(bumped, text, "GreaterThan")


@given(st.text(max_size=20))
def test_parse_never_raises(text):
    parsed = parse_version(text)
    if parsed is not None:
        assert versions_match(text, text, None)


@pytest.mark.parametrize("length", [6, 64, 65, 5000])
def test_cached_and_uncached_paths_agree_and_long_strings_are_not_kept(length):
    """Short versions are parsed and matched once per process; a longer one is parsed each
    time, so that no cache holds a request's long strings (4096 of them could be gigabytes)."""
    from app.selection.values import versions

    text = "1.2.3-" + "a" * (length - 6)
    for short in ("1.2.3", "1.2.3-a"):  # kept, as they should be: only the long ones are asked
        versions.parse_version(short)
    caches = (versions._parse_version_cached, versions._versions_match_cached)
    sizes = [cache.cache_info().currsize for cache in caches]
    for model, entry_version, operator in (
        (text, text, None),
        ("1.2.3", text, "GreaterThan"),
        (text, "1.2.3-a", "GreaterThanOrEqual"),
    ):
        expected = versions._versions_match(model, entry_version, operator)
        assert versions.versions_match(model, entry_version, operator) is expected
        assert versions.parse_version(text) == versions._parse_version(text)
    grown = [cache.cache_info().currsize > size for cache, size in zip(caches, sizes, strict=True)]
    if length > 64:
        assert grown == [False, False]


HUGE_NUMBER = "1" * (sys.get_int_max_str_digits() + 700)  # int() of it raises ValueError


@pytest.mark.parametrize(
    "text",
    [
        "1" * 21,  # beyond uint64: ParseUint's range error, as OME's parser answers
        "1." + "9" * 25,
        "1.2." + "3" * 200 + "-rc",
        HUGE_NUMBER,
        f"1.{HUGE_NUMBER}",
        f"1.2.{HUGE_NUMBER}.dev0",
    ],
)
def test_numbers_past_uint64_are_parse_errors_never_exceptions(text):
    """A part that does not fit 64 bits makes OME's parser fail, so the version matches
    nothing (itself included), whatever its length: CPython would refuse int() of it."""
    assert parse_version(text) is None
    for operator in (None, "GreaterThan", "GreaterThanOrEqual"):
        assert versions_match(text, text, operator) is False
        assert versions_match("1.0.0", text, operator) is False


def test_a_version_over_the_bound_is_not_parsed_and_costs_nothing_like_its_length():
    """A 14 MB version (only an object stored before the schemas bounded it can bring one to
    the rules) is not split into its seven million parts, for any entry that reads it."""
    text = "1." * 7_000_000
    within = "1.2.3-" + ".".join("a" * (MAX_VALUE_CHARS // 2 - 4))
    assert len(within) <= MAX_VALUE_CHARS and parse_version(within) is not None
    tracemalloc.start()
    try:
        assert parse_version(text) is None
        assert versions_match(text, "1.0.0", None) is False
        assert versions_match("1.0.0", text, "GreaterThan") is False
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 10  # the split alone allocated some 90 MB


VERSION_LIKE = st.text(alphabet="v0123456789.-+a\n", max_size=30) | st.from_regex(
    r"v?[0-9]{1,21}(\.[0-9]{1,21}){0,3}", fullmatch=True
)


@given(VERSION_LIKE)
def test_the_plain_versions_read_by_one_match_are_read_as_the_parser_reads_them(text):
    """Plain versions (``1``, ``v4.45``, ``1.0.0``) are read by one regular expression, the rest
    by the parser of rules §8: both give the same for every text, leading zeros, numbers past
    64 bits, a fourth part and a trailing newline included."""
    from app.selection.values import versions

    assert versions._parse_version(text) == versions._parse_any(text)


@example("1.0.0-rc1", "1.0.0", None)
@example("1.0.0-rc1", "1.0.0", "GreaterThanOrEqual")
@example("v1.0", "1.0", "GreaterThanOrEqual")
@example("1.0", "1.0.0", "GreaterThanOrEqual")
@given(
    VERSION_LIKE | st.sampled_from(["1.0.0", "v1.0", "1", "1.0.0-rc1", "bad.."]),
    VERSION_LIKE,
    st.sampled_from([None, "Equal", "GreaterThan", "GreaterThanOrEqual", "X"]),
)
def test_a_plain_entry_version_is_matched_as_the_parsed_one_is(model, entry, operator):
    """A plain entry version is compared without building it: as both parsed compare."""
    from app.selection.values import versions

    parsed = versions.parse_version(model)
    expected = parsed is not None and versions._match_parsed(
        parsed, versions.parse_version(entry), operator
    )
    assert versions._versions_match(model, entry, operator) is expected
