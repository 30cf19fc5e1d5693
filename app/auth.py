"""Who may read and write which stored catalog (SPEC §17 "Access").

A token file (``OME_RANKER_TOKENS_FILE``, YAML) lists tokens by name and the SHA-256 of their
secret, each with the clusters it may ``read`` and ``write`` (names or ``*``; ``write`` implies
``read``; ``write`` on ``*`` may also create and delete clusters). Requests carry
``Authorization: Bearer <secret>``. Secrets are never stored, logged or compared directly: the
SHA-256 of what the client sends is compared with every token's in constant time.

Without a token file every catalog request is refused, unless ``OME_RANKER_AUTH=none`` is set
explicitly (the local quick start), which lets everyone do everything as ``anonymous``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from config.settings import SettingsError

ANY = "*"
_HEX_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\Z")


@dataclass(frozen=True, slots=True)
class Token:
    """A caller's rights. ``name`` is what logs show (never the secret)."""

    name: str
    read: frozenset[str]
    write: frozenset[str]

    def can_read(self, cluster: str) -> bool:
        return self.can_write(cluster) or ANY in self.read or cluster in self.read

    def can_write(self, cluster: str) -> bool:
        return ANY in self.write or cluster in self.write

    @property
    def can_manage(self) -> bool:
        """Create and delete clusters."""
        return ANY in self.write


ANONYMOUS = Token("anonymous", frozenset({ANY}), frozenset({ANY}))


@dataclass(frozen=True, slots=True)
class _Entry:
    digest: bytes
    token: Token


class AccessControl:
    """The service's tokens; ``None`` entries with ``open`` mean OME_RANKER_AUTH=none."""

    def __init__(self, entries: Iterable[_Entry] = (), *, open_access: bool = False) -> None:
        self._entries = tuple(entries)
        self.open = open_access

    @property
    def configured(self) -> bool:
        return self.open or bool(self._entries)

    def identify(self, authorization: str | None) -> Token | None:
        """The token a ``Bearer`` header names, or None (none sent, or unknown)."""
        if self.open:
            return ANONYMOUS
        if not authorization:
            return None
        scheme, _, secret = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            return None
        digest = hashlib.sha256(secret.strip().encode("utf-8", "surrogateescape")).digest()
        found = None
        for entry in self._entries:  # every entry, so the time does not tell which matched
            if hmac.compare_digest(entry.digest, digest):
                found = entry.token
        return found


def _names(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{where} must be a list of cluster names or '*'")
    return frozenset(value)


def parse_tokens(document: Any, source: str) -> AccessControl:
    """The access control a token file describes; ``SettingsError`` naming what is wrong."""
    if not isinstance(document, Mapping) or not isinstance(document.get("tokens"), list):
        raise SettingsError(f"{source}: expected a mapping with a 'tokens' list")
    entries, names, digests = [], set(), set()
    for index, item in enumerate(document["tokens"]):
        where = f"{source}: tokens[{index}]"
        if not isinstance(item, Mapping):
            raise SettingsError(f"{where} must be a mapping")
        name, digest = item.get("name"), item.get("sha256")
        if not isinstance(name, str) or not _NAME.match(name):
            raise SettingsError(f"{where}.name must be a short name ([A-Za-z0-9._-])")
        if name in names:
            raise SettingsError(f"{where}.name {name!r} is used twice")
        if not isinstance(digest, str) or not _HEX_SHA256.match(digest.lower()):
            raise SettingsError(f"{where}.sha256 must be 64 hex digits (SHA-256 of the secret)")
        if digest.lower() in digests:
            raise SettingsError(f"{where}.sha256 is the same secret as another token's")
        unknown = set(item) - {"name", "sha256", "read", "write"}
        if unknown:
            raise SettingsError(f"{where} has unknown keys: {', '.join(sorted(unknown))}")
        token = Token(
            name,
            _names(item.get("read"), f"{where}.read"),
            _names(item.get("write"), f"{where}.write"),
        )
        names.add(name)
        digests.add(digest.lower())
        entries.append(_Entry(bytes.fromhex(digest.lower()), token))
    return AccessControl(entries)


def load_access_control(mode: str, tokens_file: str | None) -> AccessControl:
    """From the settings: OME_RANKER_AUTH=none opens everything; else the token file, or none
    at all (every catalog request then refused)."""
    if mode == "none":
        return AccessControl(open_access=True)
    if not tokens_file:
        return AccessControl()
    try:
        with open(tokens_file, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except OSError as error:
        raise SettingsError(f"OME_RANKER_TOKENS_FILE {tokens_file!r}: {error.strerror}") from None
    except yaml.YAMLError:
        raise SettingsError(f"OME_RANKER_TOKENS_FILE {tokens_file!r} is not valid YAML") from None
    return parse_tokens(document, f"OME_RANKER_TOKENS_FILE {tokens_file!r}")
