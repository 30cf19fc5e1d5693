"""Version parsing, comparison and matching as OME does it (rules §8).

This is not semver: precision and a ``v`` prefix matter to the ordering
operators, pre-release/build/dev lists compare byte-wise with a shorter prefix
list sorting first, and an absent list sorts before any present one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .bounds import MAX_VALUE_CHARS, parse_go_int
from .frozen import quick_init

EQUAL = "Equal"
GREATER_THAN = "GreaterThan"
GREATER_THAN_OR_EQUAL = "GreaterThanOrEqual"
KNOWN_OPERATORS = (EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL)

# (major, minor, patch, pre-release, build, dev): what two versions compare by (rules §8).
SortKey = tuple[int, int, int, tuple[bytes, ...], tuple[bytes, ...], tuple[bytes, ...]]


@quick_init
@dataclass(frozen=True, slots=True)
class Version:
    major: int
    minor: int
    patch: int
    precision: int
    prefix: str
    pre: tuple[bytes, ...] = ()
    build: tuple[bytes, ...] = ()
    dev: tuple[bytes, ...] = ()

    @property
    def is_plain(self) -> bool:
        return not (self.pre or self.build or self.dev)

    def sort_key(self) -> SortKey:
        # rules §8: numbers, then pre-release, build, dev lists element by element
        # in byte order; a list that is a prefix of the other is smaller, which is
        # exactly Python's tuple ordering over bytes.
        return (self.major, self.minor, self.patch, self.pre, self.build, self.dev)


# Versions this long or shorter are parsed (and pairs of them matched) once per process, in the
# caches below: a request holds a handful of distinct ones, read thousands of times. Longer ones
# are parsed each time, so that a cache never holds more than 4096 short strings.
_CACHED_VERSION_LENGTH = 64


def _numeric(text: str) -> int | None:
    # OME's parseNumeric: digits only, no leading zero, then strconv.ParseUint(text, 10, 64),
    # whose error past 2^64 - 1 makes the version unparsable (it then never matches).
    if len(text) > 1 and text[0] == "0":
        return None
    return parse_go_int(text, signed=False)


def _split_list(text: str) -> tuple[bytes, ...] | None:
    items = text.split(".")
    if any(item == "" for item in items):
        return None
    return tuple(item.encode("utf-8", "surrogatepass") for item in items)


def parse_version(text: str) -> Version | None:
    """The parsed version, or ``None`` when OME's parser errors (it then never matches)."""
    if len(text) <= _CACHED_VERSION_LENGTH:
        return _parse_version_cached(text)
    return _parse_version(text)


@lru_cache(maxsize=4096)
def _parse_version_cached(text: str) -> Version | None:
    return _parse_version(text)


# The plain versions almost every manifest writes (``1``, ``v4.45``, ``1.0.0``): what the parser
# below gives them, read by one match. Up to 19 digits a number: always within a uint64.
_NUMBER = "(0|[1-9][0-9]{0,18})"
_PLAIN = re.compile(rf"(v?){_NUMBER}(?:\.{_NUMBER}(?:\.{_NUMBER})?)?")


def _parse_version(text: str) -> Version | None:
    plain = _PLAIN.fullmatch(text)
    if plain is not None:
        prefix, major, minor, patch = plain.groups()
        precision = 1 if minor is None else 2 if patch is None else 3
        return Version(int(major), int(minor or 0), int(patch or 0), precision, prefix)
    return _parse_any(text)


def _parse_any(text: str) -> Version | None:
    # A version longer than any the schemas take (rules §17) is not parsed: only an object
    # stored before that bound can bring one here, and its lists (an item per dot, built again
    # for every entry that reads it) would cost a request far more than the string itself.
    if not text or len(text) > MAX_VALUE_CHARS:
        return None
    parts = text.split(".", 2)
    precision = len(parts)
    prefix = ""
    first = parts[0]
    if first.startswith("v"):
        prefix, first = "v", first[1:]
    major = _numeric(first)
    minor = _numeric(parts[1] if precision > 1 else "0")
    if major is None or minor is None:
        return None
    rest = parts[2] if precision > 2 else "0"
    build: tuple[bytes, ...] = ()
    pre: tuple[bytes, ...] = ()
    dev: tuple[bytes, ...] = ()
    # rules §8 step 3: '+' first, then '-' from what is left, then '.'.
    for separator in ("+", "-", "."):
        head, found, tail = rest.partition(separator)
        if not found:
            continue
        items = _split_list(tail)
        if items is None:
            return None
        rest = head
        if separator == "+":
            build = items
        elif separator == "-":
            pre = items
        else:
            dev = items
    patch = _numeric(rest)
    if patch is None:
        return None
    return Version(major, minor, patch, precision, prefix, pre, build, dev)


def versions_match(model_version: str, entry_version: str, operator: str | None) -> bool:
    """Whether an entry's version (with its operator) accepts the model's version.

    rules §8: the entry's version is the left operand, so ``GreaterThan 4.46``
    accepts models *below* 4.46 — OME's behaviour, kept on purpose.
    """
    if len(model_version) <= _CACHED_VERSION_LENGTH >= len(entry_version):
        return _versions_match_cached(model_version, entry_version, operator)
    return _versions_match(model_version, entry_version, operator)


@lru_cache(maxsize=4096)
def _versions_match_cached(model_version: str, entry_version: str, operator: str | None) -> bool:
    return _versions_match(model_version, entry_version, operator)


def _versions_match(model_version: str, entry_version: str, operator: str | None) -> bool:
    model = parse_version(model_version)
    plain = _PLAIN.fullmatch(entry_version)
    if plain is not None:
        return _plain_accepts(model, plain, operator)
    return model is not None and _match_parsed(model, parse_version(entry_version), operator)


def _plain_accepts(model: Version | None, plain: re.Match[str], operator: str | None) -> bool:
    """A plain entry version (most of them: where a catalog's entries each carry their own,
    each is met once), compared as ``_match_parsed`` compares it once parsed, without parsing
    it into a ``Version``."""
    if model is None:
        return False
    prefix, major, minor, patch = plain.groups()
    numbers = (int(major), int(minor or 0), int(patch or 0))
    wanted = (model.major, model.minor, model.patch)
    op = EQUAL if operator is None else operator
    if op == EQUAL or not model.is_plain:
        return model.is_plain and numbers == wanted
    precision = 1 if minor is None else 2 if patch is None else 3
    if precision != model.precision or prefix != model.prefix:
        return False
    if op == GREATER_THAN:
        return numbers > wanted
    if op == GREATER_THAN_OR_EQUAL:
        return numbers >= wanted
    return numbers == wanted


def _match_parsed(model: Version, entry: Version | None, operator: str | None) -> bool:
    if entry is None:
        return False
    op = EQUAL if operator is None else operator
    if op == EQUAL or not (model.is_plain and entry.is_plain):
        return entry.sort_key() == model.sort_key()
    if entry.precision != model.precision or entry.prefix != model.prefix:
        return False
    if op == GREATER_THAN:
        return entry.sort_key() > model.sort_key()
    if op == GREATER_THAN_OR_EQUAL:
        return entry.sort_key() >= model.sort_key()
    return entry.sort_key() == model.sort_key()
