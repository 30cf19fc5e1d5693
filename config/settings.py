"""Settings read from the environment, with explicit conversion.

A bad value fails at start-up with a message naming the variable, never later.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from typing import overload
from urllib.parse import urlsplit

from .redaction import redact_url


class SettingsError(ValueError):
    pass


def env_int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise SettingsError(f"{name} must be at least {minimum}, got {value}")
    return value


def _env_float(name: str, default: float, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from None
    if not value >= minimum:
        raise SettingsError(f"{name} must be at least {minimum}, got {raw!r}")
    return value


@overload
def _env_str(name: str, default: str) -> str: ...
@overload
def _env_str(name: str, default: None) -> str | None: ...
def _env_str(name: str, default: str | None) -> str | None:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else raw


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    if raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE
    raise SettingsError(f"{name} must be true or false, got {raw!r}")


def _redis_url(name: str, cluster: bool) -> str | None:
    """The URL, checked here so that a typo stops start-up instead of silently not caching.
    Messages show it redacted (config/redaction.py): a password never reaches the log."""
    url = _env_str(name, None)
    if url is None:
        return None
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed "[" of an IPv6 host
        raise SettingsError(f"{name} is not a URL: {shown!r}") from None
    schemes = ("redis", "rediss") if cluster else ("redis", "rediss", "unix")
    if parts.scheme not in schemes:
        allowed = ", ".join(f"{scheme}://" for scheme in schemes)
        raise SettingsError(f"{name} must be a URL starting {allowed}; got {shown!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise SettingsError(f"{name} has an invalid port: {shown!r}") from None
    if "@" in url.partition("://")[2][len(parts.netloc) :]:
        # An unencoded "/", "?" or "#" in the password ends the host early: the rest of the
        # password would be read as a path, and the service would connect elsewhere.
        raise SettingsError(
            f"{name}: percent-encode the reserved characters of the password "
            f"('/' as %2F, '?' as %3F, '#' as %23, '@' as %40); got {shown!r}"
        )
    if cluster and parts.path.strip("/") not in ("", "0"):
        raise SettingsError(f"{name} must use database 0 with OME_RANKER_REDIS_CLUSTER=true")
    return url


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level(name: str, default: str) -> str:
    """Upper-cased; gunicorn (config/gunicorn.conf.py) reads the same variable."""
    raw = _env_str(name, default)
    level = raw.strip().upper()
    if level not in LOG_LEVELS:
        raise SettingsError(f"{name} must be one of {', '.join(LOG_LEVELS)}, got {raw!r}")
    return level


# The worker answers a request its code left running this long past the deadline itself
# (app/worker/): the deadline plus this margin must stay below the worker timeout.
DEADLINE_MARGIN_SECONDS = 2.0
# WSGI environ key the worker (app/worker/) sets to True while it drains before stopping.
DRAINING_ENVIRON_KEY = "ome_ranker.draining"
# Set (True) by the worker on a request that came through the operations listener.
OPS_LISTENER_ENVIRON_KEY = "ome_ranker.ops_listener"
OPS_BIND_VARIABLE = "OME_RANKER_OPS_BIND"
CACHE_SECRET_VARIABLE = "OME_RANKER_CACHE_SECRET"
CACHE_SECRET_MIN_BYTES = 16
# Logged by whoever makes a random key (the gunicorn master, else create_app) for a Redis.
UNSHARED_CACHE_SECRET_WARNING = (
    f"{CACHE_SECRET_VARIABLE} is unset: cache entries are signed with a random key of this "
    "service instance, so other instances sharing the Redis cannot read them (and a restart "
    "starts cold)"
)


def worker_timeout() -> int:
    return env_int("OME_RANKER_WORKER_TIMEOUT", 30, 1)


def request_deadline(timeout: int) -> float:
    """``OME_RANKER_REQUEST_DEADLINE``, checked against the worker timeout it must undercut."""
    deadline = _env_float("OME_RANKER_REQUEST_DEADLINE", 10.0, 0.1)
    if deadline + DEADLINE_MARGIN_SECONDS >= timeout:
        raise SettingsError(
            f"OME_RANKER_REQUEST_DEADLINE must be below OME_RANKER_WORKER_TIMEOUT ({timeout}) "
            f"by more than {DEADLINE_MARGIN_SECONDS:g} s, got {deadline:g}"
        )
    return deadline


def cache_secret() -> bytes | None:
    """The key that signs cache entries; None when unset (the caller makes a random one)."""
    raw = _env_str(CACHE_SECRET_VARIABLE, None)
    if raw is None:
        return None
    secret = raw.encode("utf-8")
    if len(secret) < CACHE_SECRET_MIN_BYTES:
        raise SettingsError(
            f"{CACHE_SECRET_VARIABLE} must be at least {CACHE_SECRET_MIN_BYTES} bytes "
            f"(e.g. `openssl rand -hex 32`), got {len(secret)}"
        )
    return secret


@dataclass(frozen=True)
class ServerSettings:
    """What config/gunicorn.conf.py and the worker (app/worker/) read; see README
    "Configuration". The master reads them once at start, each worker again after the fork."""

    bind: str
    workers: int
    threads: int
    worker_connections: int
    timeout: int
    graceful_timeout: int
    drain_seconds: int
    keepalive: int
    client_timeout: float
    request_deadline: float
    max_body_bytes: int
    # The operations listener (/healthz, /readyz, /metrics) with a thread of its own, or None:
    # they are served on ``bind`` with everything else.
    ops_bind: str | None = None

    @classmethod
    def from_environment(cls, default_workers: int = 1) -> ServerSettings:
        timeout = worker_timeout()
        return cls(
            bind=os.environ.get("OME_RANKER_BIND", "127.0.0.1:8080"),
            workers=env_int("OME_RANKER_WORKERS", default_workers, 1),
            threads=env_int("OME_RANKER_THREADS", 4, 1),
            worker_connections=env_int("OME_RANKER_WORKER_CONNECTIONS", 1000, 1),
            timeout=timeout,
            graceful_timeout=env_int("OME_RANKER_GRACEFUL_TIMEOUT", 20, 1),
            drain_seconds=env_int("OME_RANKER_DRAIN_SECONDS", 5, 0),
            keepalive=env_int("OME_RANKER_KEEPALIVE", 5, 0),
            client_timeout=_env_float("OME_RANKER_CLIENT_TIMEOUT", 10.0, 0.1),
            request_deadline=request_deadline(timeout),
            max_body_bytes=max_body_bytes(),
            ops_bind=ops_bind(),
        )


def ops_bind() -> str | None:
    """``OME_RANKER_OPS_BIND``: ``HOST:PORT`` of the operations listener, distinct from the API's
    (a probe that shares the API's listener waits behind a flood of its connections)."""
    raw = _env_str(OPS_BIND_VARIABLE, None)
    if raw is None:
        return None
    address = raw.strip()
    host, _, port = address.rpartition(":")
    if address.startswith("unix:") or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SettingsError(
            f"{OPS_BIND_VARIABLE} must be HOST:PORT (e.g. 0.0.0.0:9090), got {raw!r}"
        )
    bind = os.environ.get("OME_RANKER_BIND", "127.0.0.1:8080").strip()
    if address == bind:
        raise SettingsError(f"{OPS_BIND_VARIABLE} must differ from OME_RANKER_BIND ({bind})")
    return address


def request_memory() -> tuple[int, int]:
    """``OME_RANKER_MAX_REQUEST_MEMORY`` and ``OME_RANKER_WORKER_MEMORY``, in bytes: the first
    must fit in the second, or the largest request could never start."""
    mib = 1024 * 1024
    largest = env_int("OME_RANKER_MAX_REQUEST_MEMORY", 116 * mib, mib)
    total = env_int("OME_RANKER_WORKER_MEMORY", 132 * mib, mib)
    if largest > total:
        raise SettingsError(
            f"OME_RANKER_MAX_REQUEST_MEMORY ({largest}) must not exceed "
            f"OME_RANKER_WORKER_MEMORY ({total})"
        )
    return largest, total


def max_body_bytes() -> int:
    return env_int("OME_RANKER_MAX_BODY_BYTES", 16 * 1024 * 1024, 1)


AUTH_MODES = ("token", "none")


def auth_mode(name: str) -> str:
    """``token`` (the default: the token file decides) or ``none`` (no access control, only
    when set explicitly, as the local quick start does)."""
    raw = (_env_str(name, "token") or "token").strip().lower()
    if raw not in AUTH_MODES:
        raise SettingsError(f"{name} must be one of {', '.join(AUTH_MODES)}, got {raw!r}")
    return raw


AUTH_VARIABLE = "OME_RANKER_AUTH"
TOKENS_FILE_VARIABLE = "OME_RANKER_TOKENS_FILE"


def access_settings(bind: str | None = None) -> tuple[str, str | None]:
    """``OME_RANKER_AUTH`` and ``OME_RANKER_TOKENS_FILE``, checked together, and against the
    address the service listens on when the caller knows it (the gunicorn master, ``serve``)."""
    mode = auth_mode(AUTH_VARIABLE)
    tokens_file = _env_str(TOKENS_FILE_VARIABLE, None)
    check_open_access(mode, tokens_file, bind)
    return mode, tokens_file


def check_open_access(mode: str, tokens_file: str | None, bind: str | None = None) -> None:
    """``OME_RANKER_AUTH=none`` opens every catalog to everyone, so it is refused where it
    cannot be what the operator meant: beside a token file (which it would silently ignore),
    or on an address other machines can reach."""
    if mode != "none":
        return
    if tokens_file:
        raise SettingsError(
            f"{AUTH_VARIABLE}=none turns access control off, but {TOKENS_FILE_VARIABLE} is set "
            f"too: set {AUTH_VARIABLE}=token to use the token file, or unset "
            f"{TOKENS_FILE_VARIABLE}"
        )
    if bind is not None and not is_loopback_bind(bind):
        raise SettingsError(
            f"{AUTH_VARIABLE}=none (no access control) is allowed only on a loopback address, "
            f"but the service would listen on {bind!r}: bind 127.0.0.1, [::1], localhost or a "
            f"unix: socket, or give tokens in {TOKENS_FILE_VARIABLE} instead"
        )


def is_loopback_bind(bind: str) -> bool:
    """Whether a gunicorn bind address (``HOST:PORT``, ``[V6]:PORT``, ``unix:PATH``, as
    ``gunicorn.util.parse_address`` reads it) can only be reached from this machine. An
    inherited socket (``fd://``) cannot be checked, so it is not."""
    bind = bind.strip()
    if bind.startswith("unix:"):
        return True
    address = bind.removeprefix("tcp://")
    if address.startswith("["):
        host = address[1:].partition("]")[0]
    elif address.count(":") > 1:  # a bare IPv6 address, which has no room for a port
        host = address
    else:
        host = address.partition(":")[0]
    return is_loopback_host(host)


def is_loopback_host(host: str) -> bool:
    """``localhost``, 127.0.0.0/8 or ::1 (bracketed or not); a name other than localhost may
    resolve anywhere, so it is not."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1, which Python 3.11 calls not loopback
    return address.is_loopback


class Config:
    """Production defaults; every value can be set from the environment."""

    def __init__(self) -> None:
        # Request limits (rules §15): 16 MiB bodies by default.
        self.MAX_CONTENT_LENGTH = max_body_bytes()
        self.MAX_RUNTIMES = env_int("OME_RANKER_MAX_RUNTIMES", 10_000, 1)
        # rules §17 "Bounded work": rankings × runtimes a request may ask for, and
        # the size of an answer that lists many rows (selections, lint, impact).
        self.MAX_RUNTIME_CHECKS = env_int("OME_RANKER_MAX_RUNTIME_CHECKS", 200_000, 1)
        self.MAX_ANSWER_BYTES = env_int("OME_RANKER_MAX_ANSWER_BYTES", 64 * 1024 * 1024, 1)
        # rules §17 "Safe to share": what one request's body may take in memory once read, and
        # what the requests in flight of one worker may take together (docs/operations.md
        # "Memory" adds them up for the Deployment's 1 GiB pod).
        self.MAX_REQUEST_MEMORY, self.WORKER_MEMORY = request_memory()
        # Cache (rules §16). No REDIS_URL: an in-process LRU cache.
        self.REDIS_CLUSTER = _env_bool("OME_RANKER_REDIS_CLUSTER", False)
        self.REDIS_URL = _redis_url("REDIS_URL", self.REDIS_CLUSTER)
        self.CACHE_PREFIX = _env_str("OME_RANKER_CACHE_PREFIX", "ome-ranker:")
        self.CACHE_TTL_SECONDS = env_int("OME_RANKER_CACHE_TTL", 3600, 1)
        self.CACHE_LOCAL_ENTRIES = env_int("OME_RANKER_CACHE_LOCAL_ENTRIES", 1024, 0)
        # What that cache may hold, per worker: with the hot answers below, 64 MiB of each
        # worker's share of a 1 GiB pod of 3 (deploy/kubernetes).
        self.CACHE_LOCAL_BYTES = env_int("OME_RANKER_CACHE_LOCAL_BYTES", 32 * 1024 * 1024, 0)
        # The answers a worker served last, decoded, in front of the cache (app/cache/hot.py).
        self.CACHE_HOT_BYTES = env_int("OME_RANKER_CACHE_HOT_BYTES", 16 * 1024 * 1024, 0)
        self.REDIS_TIMEOUT_SECONDS = _env_float("OME_RANKER_REDIS_TIMEOUT", 0.05, 0.001)
        # Circuit breaker: after this many consecutive Redis failures, leave Redis alone for the
        # cool-down, then let one request probe it.
        self.CACHE_BREAKER_FAILURES = env_int("OME_RANKER_CACHE_BREAKER_FAILURES", 5, 1)
        self.CACHE_BREAKER_COOLDOWN_SECONDS = _env_float(
            "OME_RANKER_CACHE_BREAKER_COOLDOWN", 5.0, 0.0
        )
        # A failing Redis is logged once per interval, not once per request.
        self.CACHE_LOG_INTERVAL_SECONDS = _env_float("OME_RANKER_CACHE_LOG_INTERVAL", 60.0, 0.0)
        # Entries are signed (app/cache/framing.py); None: a random key of this process.
        self.CACHE_SECRET = cache_secret()
        self.LOG_LEVEL = env_log_level("OME_RANKER_LOG_LEVEL", "INFO")
        # A request still running this long is answered 503 (app/http/deadline.py).
        self.REQUEST_DEADLINE_SECONDS = request_deadline(worker_timeout())
        # Stored catalogs (rules §17): in Redis with REDIS_URL, else in this SQLite file.
        self.STORE_PATH: str | None = _env_str("OME_RANKER_STORE_PATH", "var/ome-ranker.sqlite3")
        self.STORE_TIMEOUT_SECONDS = _env_float("OME_RANKER_STORE_TIMEOUT", 2.0, 0.01)
        self.MAX_OBJECTS_PER_CLUSTER = env_int("OME_RANKER_MAX_OBJECTS_PER_CLUSTER", 20_000, 1)
        # What one cluster's objects may take in the store, as stored (rules §17 "Limits").
        self.MAX_BYTES_PER_CLUSTER = env_int(
            "OME_RANKER_MAX_BYTES_PER_CLUSTER", 64 * 1024 * 1024, 1
        )
        self.MAX_CLUSTERS = env_int("OME_RANKER_MAX_CLUSTERS", 100, 1)
        # rules §17 "Selection history": the changes kept per cluster, oldest dropped first;
        # 0 keeps none (and works none out).
        self.HISTORY_MAX_CHANGES = env_int("OME_RANKER_HISTORY_MAX_CHANGES", 10_000, 0)
        # Access (rules §17): a token file, or OME_RANKER_AUTH=none set explicitly.
        self.AUTH_MODE, self.TOKENS_FILE = access_settings()
        self.AUTH_STATELESS = _env_bool("OME_RANKER_AUTH_STATELESS", False)


class TestConfig(Config):
    __test__ = False  # not a pytest test class, whatever its name

    def __init__(self) -> None:
        super().__init__()
        self.TESTING = True
        # Tests opt in to Redis with their own database and key prefix (tests/conftest.py);
        # a developer's REDIS_URL must not send test entries to their Redis.
        self.REDIS_URL = None
        self.REDIS_CLUSTER = False
        # Tests give each app its own store file (tests/conftest.py, make_app: without one, an
        # app refuses to start) and open access unless they test access control.
        self.STORE_PATH = None
        self.AUTH_MODE = "none"
        self.TOKENS_FILE = None
        self.AUTH_STATELESS = False
        # A fixed key, so that the apps of one test share their entries, as the workers of one
        # service do; tests of the unset default set None.
        self.CACHE_SECRET = b"ome-ranker test cache secret"
