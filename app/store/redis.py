"""Stored catalogs in Redis or Redis Cluster (SPEC §17: with ``REDIS_URL``).

Keys, under ``prefix`` (the service's cache prefix plus ``catalog:``), never given a TTL:

``<prefix>{<cluster>}:info``
    hash: ``uid``, ``generation``, ``settings`` (JSON), ``updated_at``, ``counts`` (JSON),
    ``index`` (JSON array of ``[kind, namespace, name, digest, size]`` in key order; ``size``,
    what the object takes as stored, is absent from indexes of earlier releases) and
    ``documents`` (JSON array of the stored documents, ``codec``, in the same order: ranking
    reads a cluster with one ``HMGET`` and one JSON parse).
``<prefix>{<cluster>}:manifests``
    hash: ``["<kind>","<namespace>","<name>"]`` (JSON) -> the manifest as written (JSON).
``<prefix>clusters``
    hash: cluster name -> uid; the registry that ``list_infos`` reads.

Both keys of a cluster carry the hash tag ``{<cluster>}``, so they live in one slot and every
write is one Lua script, atomic on Redis Cluster too. A write is optimistic: read the state
(one ``HMGET``), decide in Python, then commit with a script that first checks that the
generation is still the one read (compare-and-set; a cluster being created must still be
absent) and otherwise changes nothing; on a conflict the write decides again on the new state,
where an ``if_match`` that no longer holds is ``PreconditionFailed``.

The registry lives in a slot of its own, so it cannot change in the same transaction as a
cluster. It stays consistent by order: a cluster is registered *before* its keys are written
and unregistered *after* they are deleted, so every cluster whose creation was acknowledged is
listed; ``list_infos`` skips a name whose info is gone (a creation that failed half-way, or a
deletion not yet unregistered). The uid (creation time and a random part, in the info too)
makes unregistering conditional: a deletion removes the entry only if it is still its own,
never the entry of a cluster created again meanwhile. ``max_clusters`` counts registry
entries, atomically with registering (a script on the registry's slot); when it refuses, names
whose info has been gone for ``orphan_grace`` seconds are swept first (a creation never takes
that long: every command has a socket timeout).

No command is retried by redis-py: a retried commit whose first attempt went through would be
reported as a conflict. Every connection error, timeout or error reply is ``StoreUnavailable``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from . import codec
from .base import CatalogStore, Decision, FetchedDocuments
from .encoding import Change, decode_object, reading
from .records import (
    Catalog,
    ClusterInfo,
    Document,
    PreconditionFailed,
    StoreUnavailable,
    check_cluster_name,
    uid_time,
)
from .redis_format import (
    COMMIT,
    DELETE,
    DOCUMENTS,
    INDEX,
    INFO_FIELDS,
    READ_CATALOG,
    READ_DOCUMENTS,
    REGISTER,
    UNREGISTER,
    commit_arguments,
    field_name,
    info_from,
    missing_sizes,
    state_from,
    with_sizes,
)

Client = redis.Redis | RedisCluster
REGISTRY = "clusters"
CLIENT_NAME = "ome-ranker-catalogs"
COMMIT_ATTEMPTS = 20  # optimistic rounds before a write under contention gives up (503)
log = logging.getLogger(__name__)


class RedisCatalogStore(CatalogStore):
    """``connect`` makes the client on first use (a ``RedisCluster`` connects as soon as it is
    built, which must not happen at start-up); see ``from_url``."""

    def __init__(
        self,
        connect: Callable[[], Client],
        *,
        prefix: str,
        orphan_grace: float = 600.0,
        **limits: Any,
    ) -> None:
        super().__init__(**limits)
        self.prefix = prefix
        self.orphan_grace = orphan_grace
        self._connect = connect
        self._lock = threading.Lock()
        self._client: Client | None = None
        self._scripts: dict[str, Any] = {}

    @classmethod
    def from_url(
        cls, url: str, *, prefix: str, timeout: float = 2.0, cluster: bool = False, **options: Any
    ) -> RedisCatalogStore:
        """A store on the Redis (or, with ``cluster``, the Redis Cluster) at ``url``; every
        command waits at most ``timeout`` seconds, to connect and then to answer."""
        settings = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "retry": Retry(NoBackoff(), 0),
            "client_name": CLIENT_NAME,
        }

        def connect() -> Client:
            if cluster:
                return RedisCluster(url=url, require_full_coverage=False, **settings)
            return redis.Redis.from_url(url, health_check_interval=0, **settings)

        return cls(connect, prefix=prefix, **options)

    # --- keys and connections ------------------------------------------------------------------

    def info_key(self, cluster: str) -> str:
        return f"{self.prefix}{{{cluster}}}:info"

    def manifests_key(self, cluster: str) -> str:
        return f"{self.prefix}{{{cluster}}}:manifests"

    @property
    def registry_key(self) -> str:
        return f"{self.prefix}{REGISTRY}"

    @property
    def client(self) -> Client:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    client = self._connect()
                    self._scripts = {
                        name: client.register_script(source)
                        for name, source in (
                            ("commit", COMMIT),
                            ("delete", DELETE),
                            ("read_catalog", READ_CATALOG),
                            ("read_documents", READ_DOCUMENTS),
                            ("register", REGISTER),
                            ("unregister", UNREGISTER),
                        )
                    }
                    self._client = client
                client = self._client
        return client

    def _run(self, script: str, keys: list[str], args: list[Any]) -> Any:
        client = self.client
        return self._scripts[script](keys=keys, args=args, client=client)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (redis.RedisError, RedisClusterException, OSError) as error:
            raise StoreUnavailable(f"catalog store (Redis): {error}") from error

    def ping(self) -> None:
        with self._errors():
            self.client.ping()

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if isinstance(client, RedisCluster):
            # RedisCluster.close() leaves its nodes' connection pools open (redis-py 8.1).
            for node in client.get_nodes():
                if node.redis_connection is not None:
                    node.redis_connection.connection_pool.disconnect()
        if client is not None:
            client.close()

    # --- writes --------------------------------------------------------------------------------

    def _transact(self, cluster: str, decide: Decision) -> Change:
        info_key, manifests_key = self.info_key(cluster), self.manifests_key(cluster)
        with self._errors():
            for _attempt in range(COMMIT_ATTEMPTS):
                fields = self.client.hmget(info_key, [*INFO_FIELDS, "index", "documents"])
                state, stored = state_from(cluster, fields)
                missing = missing_sizes(stored)
                if state is not None and missing:
                    with self.client.pipeline(transaction=False) as pipe:
                        for key in missing:
                            pipe.hstrlen(manifests_key, field_name(key))
                        state = with_sizes(state, stored, pipe.execute())
                change = decide(state)
                if not change.changed:
                    return change
                if change.created:
                    self._register(cluster, change.info.uid)
                expected = "" if state is None else str(state.info.generation)
                arguments = commit_arguments(expected, change, stored)
                status = self._run("commit", [info_key, manifests_key], arguments)
                if int(status[0]) == 1:
                    return change
            raise StoreUnavailable(f"cluster {cluster}: too many concurrent writes, try again")

    def _register(self, cluster: str, uid: str) -> None:
        """Enter ``cluster`` in the registry before its keys are written; ``LimitExceeded``
        if ``max_clusters`` others are there (and none of them is an orphan to sweep)."""
        limit = "" if self.max_clusters is None else str(self.max_clusters)
        arguments = [cluster, uid, limit]
        if self._run("register", [self.registry_key], arguments) == 1:
            return
        self._sweep_orphans()
        if self._run("register", [self.registry_key], arguments) != 1:
            raise self._cluster_limit_exceeded()

    def _sweep_orphans(self) -> None:
        """Unregister names whose info has been gone for ``orphan_grace`` seconds."""
        entries = {
            name.decode(): uid.decode()
            for name, uid in self.client.hgetall(self.registry_key).items()
        }
        oldest = time.time() - self.orphan_grace
        old = [name for name, uid in entries.items() if uid_time(uid) < oldest]
        if not old:
            return
        with self.client.pipeline(transaction=False) as pipe:
            for name in old:
                pipe.exists(self.info_key(name))
            alive = pipe.execute()
        for name, exists in zip(old, alive, strict=True):
            if not exists:
                self._run("unregister", [self.registry_key], [name, entries[name]])

    def delete_cluster(self, cluster: str, if_match: int | None = None) -> bool:
        check_cluster_name(cluster)
        keys = [self.info_key(cluster), self.manifests_key(cluster)]
        with self._errors():
            result = self._run("delete", keys, ["" if if_match is None else str(if_match)])
        status = int(result[0])
        if status == 0:
            return False
        if status == -1:
            raise PreconditionFailed(int(result[1]))
        try:
            with self._errors():
                self._run("unregister", [self.registry_key], [cluster, result[1]])
        except StoreUnavailable:
            # The cluster is gone: its registry entry is skipped by list_infos and swept later.
            log.warning("cluster %s deleted, its registry entry left behind", cluster)
        return True

    # --- reads ---------------------------------------------------------------------------------

    def get_info(self, cluster: str) -> ClusterInfo | None:
        check_cluster_name(cluster)
        with self._errors():
            fields = self.client.hmget(self.info_key(cluster), list(INFO_FIELDS))
        return info_from(cluster, fields)

    def list_infos(self) -> list[ClusterInfo]:
        with self._errors():
            names = sorted(name.decode() for name in self.client.hkeys(self.registry_key))
            if not names:
                return []
            with self.client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.hmget(self.info_key(name), list(INFO_FIELDS))
                replies = pipe.execute()
        infos = (info_from(name, fields) for name, fields in zip(names, replies, strict=True))
        return [info for info in infos if info is not None]

    def _read_documents(
        self, cluster: str, known: ClusterInfo | None
    ) -> tuple[ClusterInfo, FetchedDocuments | None] | None:
        arguments = ["", ""] if known is None else [known.uid, str(known.generation)]
        with self._errors():
            reply = self._run("read_documents", [self.info_key(cluster)], arguments)
        if not reply:
            return None
        info = info_from(cluster, reply[0])
        if info is None:  # pragma: no cover - the script answers false then
            return None
        if len(reply) == 1:
            return info, None
        with reading(cluster):
            index = codec.parse_json(reply[1])
            digests = [entry[3] for entry in index]

        def load(positions: list[int]) -> list[Document]:
            # One JSON array holds them all: it is parsed whole, but only these are decoded.
            with reading(cluster):
                values = codec.parse_json(reply[2])
                return codec.decode_all(values[i] for i in positions)

        return info, FetchedDocuments(digests, load)

    def read_catalog(self, cluster: str) -> Catalog | None:
        check_cluster_name(cluster)
        keys = [self.info_key(cluster), self.manifests_key(cluster)]
        with self._errors():
            reply = self._run("read_catalog", keys, [])
        if not reply:
            return None
        fields, flat = reply
        info = info_from(cluster, fields)
        if info is None:  # pragma: no cover - the script answers false then
            return None
        manifests = dict(zip(flat[::2], flat[1::2], strict=True))
        with reading(cluster):
            index = json.loads(fields[INDEX])
            documents = codec.parse_json(fields[DOCUMENTS])
            objects = tuple(
                decode_object(
                    (kind, namespace, name),
                    manifests[field_name((kind, namespace, name)).encode()],
                    document,
                )
                for (kind, namespace, name, *_rest), document in zip(index, documents, strict=True)
            )
        return Catalog(info, objects)
