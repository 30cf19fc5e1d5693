"""Where cached answers live: an in-process LRU, a Redis server, or a Redis Cluster.

Backends only store and fetch; they raise whatever goes wrong (``CorruptEntry`` for a value that
does not verify, redis-py's errors for the rest) and leave counting, logging and the circuit
breaker to ``RankingCache``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.exceptions import ResponseError
from redis.retry import Retry

from app.rendering.answers import Answer

from .framing import CorruptEntry, FrameCodec
from .lru import BytesLRU

CLIENT_NAME = "ome-ranker"


class Backend(Protocol):
    name: str

    def get(self, key: str) -> Answer | None: ...

    def put_many(self, entries: Mapping[str, Answer], ttl: int) -> None: ...

    def ping(self) -> None: ...

    def details(self) -> dict[str, object]: ...

    def held_bytes(self) -> int:
        """What the backend holds in this process's memory."""
        ...

    def close(self) -> None: ...


class MemoryBackend:
    """A per-process LRU with expiry: the embedded default when no ``REDIS_URL`` is set.

    Bounded by the bytes it holds (``OME_RANKER_CACHE_LOCAL_BYTES``: frames, keys and their
    containers, ``BytesLRU``) and by keys (``OME_RANKER_CACHE_LOCAL_ENTRIES``); a frame over an
    eighth of the bytes is not kept (an answer is stored under two keys, so one answer never
    takes more than a quarter). It keeps the same compressed frames as Redis, many times smaller
    than the answers they hold, at the cost of inflating one per hit (bench/README.md "Figures
    behind the code").
    """

    name = "memory"

    def __init__(
        self,
        max_bytes: int,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_entries: int | None = None,
        codec: FrameCodec | None = None,
    ) -> None:
        self.clock = clock
        self.codec = codec or FrameCodec.ephemeral()
        self._entries: BytesLRU[tuple[float, bytes]] = BytesLRU(
            max_bytes, _held_frame, largest=max_bytes // 8, max_entries=max_entries
        )

    def held_bytes(self) -> int:
        return self._entries.size

    def get(self, key: str) -> Answer | None:
        found = self._entries.get(key)
        if found is None:
            return None
        expires_at, frame = found
        if self.clock() >= expires_at:
            self._entries.discard(key)
            return None
        return self.codec.decode(frame, key)

    def put_many(self, entries: Mapping[str, Answer], ttl: int) -> None:
        if self._entries.max_bytes == 0 or self._entries.max_entries == 0:
            return
        expires_at = self.clock() + ttl
        for key, frame in self.codec.encode_many(entries).items():
            self._entries.put(key, (expires_at, frame))

    def ping(self) -> None:
        return None

    def details(self) -> dict[str, object]:
        entries = self._entries
        return {
            "entries": len(entries),
            "max_entries": entries.max_entries,
            "bytes": entries.size,
            "max_bytes": entries.max_bytes,
        }

    def close(self) -> None:
        self._entries.clear()


def _held_frame(key: str, value: tuple[float, bytes]) -> int:
    return sys.getsizeof(key) + sys.getsizeof(value[1])


def _no_retries() -> Retry:
    # redis-py retries 3 times with back-off by default: a dead Redis would cost each request
    # four timeouts. The circuit breaker is our retry policy.
    return Retry(NoBackoff(), 0)


def _endpoint(url: str) -> str:
    """host:port/db of a Redis URL, without credentials (it ends up in /readyz)."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname}:{parts.port or 6379}{parts.path or '/0'}"


class RedisBackend:
    """One Redis server, or a Redis Cluster reached through any of its nodes.

    One connection pool per process, made in ``create_app``; nothing connects until the first
    command. A ``RedisCluster`` client connects (to discover the slots) as soon as it is built,
    so in cluster mode it is built on first use, inside the circuit breaker: an unreachable
    cluster at start-up is just a cache that is down.
    """

    def __init__(
        self,
        url: str,
        timeout: float,
        *,
        cluster: bool = False,
        codec: FrameCodec | None = None,
    ) -> None:
        self.url = url
        self.cluster = cluster
        self.codec = codec or FrameCodec.ephemeral()
        self.name = "redis-cluster" if cluster else "redis"
        self._options: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "retry": _no_retries(),
            "client_name": CLIENT_NAME,
        }
        self._lock = threading.Lock()
        self._client: redis.Redis | RedisCluster | None = None
        if not cluster:
            self._client = redis.Redis.from_url(url, health_check_interval=0, **self._options)

    @property
    def client(self) -> redis.Redis | RedisCluster:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    # A partly covered cluster still caches the slots it has.
                    self._client = RedisCluster(
                        url=self.url, require_full_coverage=False, **self._options
                    )
                client = self._client
        return client

    def get(self, key: str) -> Answer | None:
        try:
            value = self.client.get(key)
        except ResponseError as error:
            if str(error).startswith("WRONGTYPE"):  # someone else's list/hash under our key
                raise CorruptEntry("value of the wrong type under a cache key") from None
            raise
        if value is None:
            return None
        # Bytes: the client never decodes responses, whatever redis-py's annotations allow.
        return self.codec.decode(cast(bytes, value), key)

    def put_many(self, entries: Mapping[str, Answer], ttl: int) -> None:
        """SET with expiry; several keys go in one pipeline without a transaction: in cluster
        mode redis-py sends each SET to the node owning its slot (never one cross-slot command).
        """
        frames = self.codec.encode_many(entries)
        if not frames:
            return
        if len(frames) == 1:
            [(key, frame)] = frames.items()
            self.client.set(key, frame, ex=ttl)
            return
        with self.client.pipeline(transaction=False) as pipe:
            for key, frame in frames.items():
                pipe.set(key, frame, ex=ttl)
            pipe.execute()

    def ping(self) -> None:
        self.client.ping()

    def details(self) -> dict[str, object]:
        return {"endpoint": _endpoint(self.url)}

    def held_bytes(self) -> int:
        return 0  # the entries are in Redis

    def close(self) -> None:
        """Disconnect the pool (a later command would reconnect); tests close every client."""
        with self._lock:
            client = self._client
            if self.cluster:
                self._client = None
        if client is not None:
            client.close()
