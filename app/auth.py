"""Who may read and write which stored catalog (rules §17 "Access").

A token file (``OME_RANKER_TOKENS_FILE``, YAML) lists tokens by name and the SHA-256 of their
secret, each with the clusters it may ``read`` and ``write`` (names or ``*``; ``write`` implies
``read``; ``write`` on ``*`` may also create and delete clusters). Requests carry
``Authorization: Bearer <secret>``. Secrets are never stored, logged or compared directly: the
SHA-256 of what the client sends is compared with every token's in constant time.

Without a token file every catalog request is refused, unless ``OME_RANKER_AUTH=none`` is set
explicitly (the local quick start), which lets everyone do everything as ``anonymous``.

The token file is re-read as it changes (``TokenFile``): a revoked token is refused within
seconds in every worker, without a restart. A file that is emptied or removed revokes every
token; a file that stops parsing keeps the last good tokens, logs an error and makes the service
not ready (``TokenFile.status``) until it is fixed. At start-up a missing or bad file stops the
service; an empty one starts it with no token in force.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

import yaml

from config.settings import TOKENS_FILE_VARIABLE, SettingsError, check_open_access

ANY = "*"
_HEX_SHA256 = re.compile(r"[0-9a-f]{64}\Z")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}\Z")
# rules §17 promises a changed token file is in force within 5 s; checking every 2 s leaves room
# for a slow read and for the request that notices it.
RELOAD_SECONDS = 2.0
# A file found missing or empty is looked at again this long after, and revokes every token
# only if it still is: a writer that truncates before it writes, or a volume whose files are
# swapped, shows an empty or missing file for a moment. 2 s + 1 s stays within the 5 s.
ABSENT_GRACE_SECONDS = 1.0
NO_TOKEN_FILE = (
    f"catalogs need a token: this service has no token file ({TOKENS_FILE_VARIABLE}) and "
    "OME_RANKER_AUTH is not none"
)
NO_TOKEN_IN_FORCE = f"no token is in force: the token file ({TOKENS_FILE_VARIABLE}) states none"
# The 401's message says which case it is, never which tokens exist.
NO_TOKEN_SENT = "no token was sent: send Authorization: Bearer <token>"
UNKNOWN_TOKEN = "the token is not one this service knows"

log = logging.getLogger("app.auth")


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
    """The service's tokens; ``None`` entries with ``open`` mean OME_RANKER_AUTH=none.
    ``refusal`` says why every token is refused when none is in force (the 401's message)."""

    def __init__(
        self,
        entries: Iterable[_Entry] = (),
        *,
        open_access: bool = False,
        refusal: str = NO_TOKEN_FILE,
    ) -> None:
        self._entries = tuple(entries)
        self.open = open_access
        self.refusal = refusal

    @property
    def configured(self) -> bool:
        return self.open or bool(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def current(self) -> AccessControl:
        """As ``TokenFile.current``: fixed settings have nothing to re-read."""
        return self

    def identify(self, authorization: str | None) -> Token | None:
        """The token a ``Bearer`` header names, or None (none sent, or unknown)."""
        if self.open:
            return ANONYMOUS
        secret = bearer_secret(authorization)
        # Without a secret, the empty one is looked for: no token sent and an unknown one cost
        # the same, and neither's time depends on which tokens exist.
        digest = hashlib.sha256((secret or "").encode("utf-8", "surrogateescape")).digest()
        found = None
        for entry in self._entries:  # every entry, so the time does not tell which matched
            if hmac.compare_digest(entry.digest, digest):
                found = entry.token
        return found if secret is not None else None


def bearer_secret(authorization: str | None) -> str | None:
    """The secret of an ``Authorization: Bearer <secret>`` header, or None: no header, another
    scheme, or no secret."""
    if not authorization:
        return None
    scheme, _, secret = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()


def is_token_name(name: object) -> TypeGuard[str]:
    """What a token file accepts as a token's name (it shows in logs)."""
    return isinstance(name, str) and _NAME.match(name) is not None


def _names(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingsError(f"{where} must be a list of cluster names or '*'")
    return frozenset(value)


def parse_tokens(document: Any, source: str) -> AccessControl:
    """The access control a token file describes; ``SettingsError`` naming what is wrong. An
    empty file (``None``: nothing but blanks and comments) states no tokens, as
    ``tokens: []`` does."""
    if document is None:
        return AccessControl(refusal=NO_TOKEN_IN_FORCE)
    if not isinstance(document, Mapping) or not isinstance(document.get("tokens"), list):
        raise SettingsError(f"{source}: expected a mapping with a 'tokens' list")
    entries, names, digests = [], set(), set()
    for index, item in enumerate(document["tokens"]):
        where = f"{source}: tokens[{index}]"
        if not isinstance(item, Mapping):
            raise SettingsError(f"{where} must be a mapping")
        name, digest = item.get("name"), item.get("sha256")
        if not is_token_name(name):
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
    return AccessControl(entries, refusal=NO_TOKEN_IN_FORCE)


def parse_token_file(content: bytes, path: str) -> AccessControl:
    """A token file's bytes as access control; ``SettingsError`` naming the file and the
    problem, never its content (a line number at most)."""
    source = f"{TOKENS_FILE_VARIABLE} {path!r}"
    try:
        document = yaml.safe_load(content)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise SettingsError(f"{source} is not valid YAML{where}") from None
    return parse_tokens(document, source)


class _Missing(SettingsError):
    """The token file is not there (nor a directory on its path)."""


def _read(path: str) -> bytes:
    """The file's bytes, by path every time: a Kubernetes Secret volume replaces it by
    swapping a symlink."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError) as error:
        raise _Missing(f"{TOKENS_FILE_VARIABLE} {path!r}: {error.strerror}") from None
    except OSError as error:
        raise SettingsError(f"{TOKENS_FILE_VARIABLE} {path!r}: {error.strerror}") from None


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@dataclass(frozen=True, slots=True)
class _Good:
    access: AccessControl
    content: bytes  # b"" for a file that is missing or empty: no token in force
    read_at: float  # time.monotonic(): one clock for every process of the host

    @property
    def digest(self) -> str:
        return _digest(self.content)


@dataclass(frozen=True, slots=True)
class TokensStatus:
    """What /readyz and /metrics say of the token file: how many tokens are in force, and why
    they are not what the file now says (``problem``, None when they are)."""

    tokens: int
    problem: str | None


class TokenFile:
    """The token file and the last good tokens read from it (``load`` makes one).

    ``current()`` re-reads the file at most every ``interval`` seconds and parses it only when
    its bytes changed. A file that is missing or empty, and still is ``absent_grace`` seconds
    later, puts no token in force. A file that does not parse (or cannot be read) keeps the
    last good tokens, is logged once per distinct content and is the ``problem`` of
    ``status()`` until a good one replaces it. Threads that find a re-read under way do not
    wait for it: they use the tokens in force. ``clock`` is injectable for tests.
    """

    def __init__(
        self,
        path: str,
        good: _Good,
        *,
        interval: float = RELOAD_SECONDS,
        absent_grace: float = ABSENT_GRACE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self._good = good
        self._seen = good.digest  # what the file looked like last time, good or not
        self._problem: str | None = None  # why the file in force is not the file now
        self._absent_since: float | None = None
        self._interval = interval
        self._absent_grace = absent_grace
        self._clock = clock
        self._due = clock() + interval
        self._lock = threading.Lock()
        self._shared: _SharedCopy | None = None

    @classmethod
    def load(
        cls,
        path: str,
        *,
        interval: float = RELOAD_SECONDS,
        absent_grace: float = ABSENT_GRACE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> TokenFile:
        """At start-up: a file that is missing or does not parse is a ``SettingsError`` (a
        path that names nothing is a setting to fix); an empty one starts with no token."""
        read_at = clock()
        content = _read(path)
        good = _Good(parse_token_file(content, path), content, read_at)
        _log_in_force(path, good.access, "empty" if _states_nothing(content) else None)
        return cls(path, good, interval=interval, absent_grace=absent_grace, clock=clock)

    def current(self) -> AccessControl:
        """The tokens in force; cheap (a clock reading) except when a re-read is due."""
        if self._clock() >= self._due and self._lock.acquire(blocking=False):
            try:
                if self._clock() >= self._due:
                    self._refresh(announce=False)
            finally:
                self._lock.release()
        return self._good.access

    def status(self) -> TokensStatus:
        """The tokens in force now (re-read first if due, as ``current``)."""
        access = self.current()
        problem, good = self._problem, self._good
        if problem is None:
            return TokensStatus(len(access), None)
        age = self._clock() - good.read_at
        return TokensStatus(
            len(access),
            f"{problem}; the last good tokens ({len(good.access)}, read {age:.0f} s ago) stay "
            "in force until it is fixed",
        )

    def refresh(self, *, announce: bool = False) -> None:
        """Re-read the file now. ``announce``: log what is in force even if the file did not
        change since this object last looked (a worker's start)."""
        with self._lock:
            self._refresh(announce=announce)

    def share_through(self, directory: str) -> None:
        """In the gunicorn master: let every worker forked from here on keep its newest good
        copy in ``directory``, so that a worker forked while the file is broken starts from the
        newest tokens any worker read, not from the master's older ones."""
        self._shared = _SharedCopy(directory)
        self._shared.offer(self._good.read_at, self._good.content)

    def close(self) -> None:
        """In the gunicorn master, at exit: remove the shared copy."""
        if self._shared is not None:
            shutil.rmtree(self._shared.directory, ignore_errors=True)
            self._shared = None

    def _refresh(self, *, announce: bool) -> None:
        read_at = self._clock()
        self._due = read_at + self._interval
        try:
            content: bytes | None = _read(self.path)
        except _Missing:
            content = None
        except SettingsError as error:
            self._absent_since = None
            if self._first_look(f"unreadable: {error}", announce):
                self._keep_last_good(error)
            return
        if content is None:
            self._absent(read_at, "missing", announce)
            return
        digest = _digest(content)
        if digest == self._seen and not announce:  # as last time, which was no absent look
            self._absent_since = None
            return
        if _states_nothing(content):
            self._absent(read_at, "empty", announce)
            return
        self._absent_since = None
        self._first_look(digest, announce)
        try:
            same = digest == self._good.digest
            access = self._good.access if same else parse_token_file(content, self.path)
        except SettingsError as error:
            self._keep_last_good(error)
            return
        self._adopt(_Good(access, content, read_at))

    def _absent(self, read_at: float, how: str, announce: bool) -> None:
        """A missing or empty file: no token in force once a look ``absent_grace`` seconds
        after the first still finds it so."""
        if not self._good.content:  # no token in force already
            if self._first_look(how, announce):
                self._adopt(self._good, how)
            return
        if self._absent_since is None:
            self._absent_since = read_at
            self._due = read_at + self._absent_grace  # look again then, not an interval later
            return
        if read_at - self._absent_since < self._absent_grace:
            self._due = self._absent_since + self._absent_grace
            return
        self._absent_since = None
        self._first_look(how, announce)
        self._adopt(_Good(parse_token_file(b"", self.path), b"", read_at), how)

    def _adopt(self, good: _Good, how: str | None = None) -> None:
        self._good = good
        self._problem = None
        _log_in_force(self.path, good.access, how)
        if self._shared is not None:
            self._shared.offer(good.read_at, good.content)

    def _first_look(self, seen: str, announce: bool) -> bool:
        """Whether the file looks different from last time (so it is worth a log line)."""
        new = announce or seen != self._seen
        self._seen = seen
        return new

    def _keep_last_good(self, error: SettingsError) -> None:
        newer = self._shared.newest(after=self._good.read_at) if self._shared else None
        if newer is not None:
            read_at, content = newer
            with contextlib.suppress(SettingsError):  # only good files are shared
                self._good = _Good(parse_token_file(content, self.path), content, read_at)
        self._problem = str(error)
        log.error(
            "%s; keeping the last good tokens (%d), read %.0f s ago",
            error,
            len(self._good.access),
            self._clock() - self._good.read_at,
        )


def _states_nothing(content: bytes) -> bool:
    """An empty file: nothing but blanks and comments (a broken file is not empty)."""
    try:
        return yaml.safe_load(content) is None
    except yaml.YAMLError:
        return False


def _log_in_force(path: str, access: AccessControl, how: str | None = None) -> None:
    if len(access):
        noun = "token" if len(access) == 1 else "tokens"
        log.info("%s %r: %d %s in force", TOKENS_FILE_VARIABLE, path, len(access), noun)
        return
    # A service that refuses every catalog request says so louder.
    log.warning(
        "%s %r%s: no token in force, every catalog request is refused",
        TOKENS_FILE_VARIABLE,
        path,
        f" is {how}" if how else "",
    )


class _SharedCopy:
    """The newest good token file any process of one gunicorn service read, in a directory the
    master made: workers write it, a worker that starts while the file is broken reads it.

    Only hashes of secrets are in it, as in the token file. The newest is the one read last
    (``read_at``, the host's monotonic clock), kept under an exclusive lock, so that two
    workers that read different versions never leave the older one behind.
    """

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._path = os.path.join(directory, "last-good")

    def offer(self, read_at: float, content: bytes) -> None:
        try:
            with open(self._path + ".lock", "ab") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                kept = self._load()
                if kept is not None and kept[0] >= read_at:
                    return
                temporary = f"{self._path}.{os.getpid()}"
                with open(temporary, "wb") as handle:
                    handle.write(f"{read_at!r}\n".encode() + content)
                os.replace(temporary, self._path)
        except OSError as error:
            log.warning("cannot keep the last good token file in %s: %s", self.directory, error)

    def newest(self, after: float) -> tuple[float, bytes] | None:
        """The kept copy if it was read later than ``after``."""
        kept = self._load()
        return kept if kept is not None and kept[0] > after else None

    def _load(self) -> tuple[float, bytes] | None:
        try:
            with open(self._path, "rb") as handle:
                header, _, content = handle.read().partition(b"\n")
            return float(header), content
        except (OSError, ValueError):
            return None


# The gunicorn master's token file (config/gunicorn.conf.py), which every worker inherits when
# it is forked: a worker that starts while the file is broken starts with its tokens.
_master_copy: TokenFile | None = None


def hand_to_workers(tokens: TokenFile) -> None:
    """In the gunicorn master: workers forked from now on start from ``tokens``."""
    global _master_copy
    _master_copy = tokens
    try:
        directory = tempfile.mkdtemp(prefix="ome-ranker-tokens-")
    except OSError as error:  # workers then start from the master's copy alone
        log.warning("no directory to share the last good token file through: %s", error)
        return
    tokens.share_through(directory)


def master_copy() -> TokenFile | None:
    """The gunicorn master's token file (None elsewhere, and without one)."""
    return _master_copy


def open_token_file(path: str) -> TokenFile:
    """This process's token file: in a gunicorn worker the copy it inherited, re-read now (its
    tokens kept if the file is broken, with an error logged); anywhere else read now, a
    ``SettingsError`` when it is missing or broken. One object per worker, so a worker never
    goes back to tokens older than some it read itself."""
    inherited = _master_copy
    if inherited is not None and inherited.path == path:
        inherited.refresh(announce=True)
        return inherited
    return TokenFile.load(path)


def access_source(mode: str, tokens_file: str | None) -> AccessControl | TokenFile:
    """From the settings: OME_RANKER_AUTH=none opens everything; else the token file, or none
    at all (every catalog request then refused). Either has ``current()``."""
    check_open_access(mode, tokens_file)  # settings set in code skip Config's check
    if mode == "none":
        return AccessControl(open_access=True)
    if not tokens_file:
        return AccessControl()
    return open_token_file(tokens_file)
