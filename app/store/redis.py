"""Stored catalogs in Redis or Redis Cluster (rules §17: with ``REDIS_URL``).

Keys, under ``prefix`` (the service's cache prefix plus ``catalog:``), never given a TTL:

``<prefix>{<cluster>}:info``
    hash: ``uid``, ``generation``, ``settings`` (JSON), ``updated_at``, ``counts`` (JSON),
    ``index`` (JSON array of ``[kind, namespace, name, digest, size]`` in key order; ``size``,
    what the object takes as stored, is absent from indexes of earlier releases) and
    ``documents`` (JSON array of the stored documents, ``codec``, in the same order: ranking
    reads a cluster with one ``HMGET`` and one JSON parse).
``<prefix>{<cluster>}:manifests``
    hash: ``["<kind>","<namespace>","<name>"]`` (JSON) -> the manifest as written (JSON).
``<prefix>{<cluster>}:history``
    list: the selection history's entries (JSON, ``app/store/history.py``), newest first, with
    consecutive ``seq``; the info's ``history_seq`` is the newest one's. Written by the same
    script as the catalog, trimmed to the bound there.
``<prefix>clusters``
    hash: cluster name -> uid; the registry that ``list_infos`` reads.

The keys of a cluster carry the hash tag ``{<cluster>}``, so they live in one slot and every
write is one Lua script, atomic on Redis Cluster too. A write is optimistic: read the state
(one ``HMGET``), decide in Python, then commit with a script that first checks that the uid
and generation are still the ones read (compare-and-set: the uid, so that a write decided on a
cluster deleted and created again meanwhile never lands on the new one; a cluster being created
must still be absent) and otherwise changes nothing; on a conflict the write decides again on
the new state, where an ``if_match`` that no longer holds is ``PreconditionFailed``.

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
reported as a conflict. Every connection error, timeout or error reply is ``StoreUnavailable``
(``unavailable``), through the store's circuit breaker (app/store/guard.py).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import redis
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.exceptions import (
    AuthenticationError,
    AuthenticationWrongNumberOfArgsError,
    AuthorizationError,
    NoPermissionError,
    RedisClusterException,
    ResponseError,
)
from redis.retry import Retry

from config.redaction import redact_urls

from . import codec
from .base import CatalogStore, Condition, Decision, FetchedDocuments
from .history import HistoryEntry, HistoryPage, HistoryQuery, numbered, page_of
from .records import (
    Catalog,
    ClusterInfo,
    Document,
    Generation,
    ObjectKey,
    Precondition,
    PreconditionFailed,
    StoreUnavailable,
    check_cluster_name,
    uid_time,
)
from .state import Change, ClusterState, EncodedObject, decode_object, info_of, reading

# --- what the store writes: the fields of a cluster's hashes, the Lua scripts that change them
# atomically, and the arguments those scripts take ------------------------------------------------

INFO_FIELDS = ("uid", "settings", "generation", "updated_at", "counts")
# Positions of "index", "documents" and "history_seq" in an HMGET of INFO_FIELDS and then those.
INDEX, DOCUMENTS, HISTORY_SEQ = len(INFO_FIELDS), len(INFO_FIELDS) + 1, len(INFO_FIELDS) + 2
STATE_FIELDS = [*INFO_FIELDS, "index", "documents", "history_seq"]
LUA_CHUNK = 1000  # arguments per unpack(): Lua's C stack takes at most ~8000


# KEYS: info, manifests, history. ARGV: the expected "<uid> <generation>" ("" = the cluster must
# not exist), the history's bound and the number of history entries and the entries (oldest
# first), the number of info field/value pairs and the pairs, the number of manifest fields to
# delete and the fields, then manifest field/value pairs to set. Returns {1} or {0, current}.
COMMIT = f"""
local found = redis.call('HMGET', KEYS[1], 'uid', 'generation')
local current = ''
if found[2] then current = (found[1] or '') .. ' ' .. found[2] end
if current ~= ARGV[1] then return {{0, current}} end
if current == '' then redis.call('DEL', KEYS[2], KEYS[3]) end
local entries = tonumber(ARGV[3])
for j = 4, 3 + entries, {LUA_CHUNK} do
  redis.call('LPUSH', KEYS[3], unpack(ARGV, j, math.min(j + {LUA_CHUNK} - 1, 3 + entries)))
end
if entries > 0 then redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[2]) - 1) end
local i = 4 + entries
local n = tonumber(ARGV[i]) * 2
redis.call('HSET', KEYS[1], unpack(ARGV, i + 1, i + n))
i = i + n + 1
local deletes = tonumber(ARGV[i])
for j = i + 1, i + deletes, {LUA_CHUNK} do
  redis.call('HDEL', KEYS[2], unpack(ARGV, j, math.min(j + {LUA_CHUNK} - 1, i + deletes)))
end
for j = i + deletes + 1, #ARGV, {LUA_CHUNK} do
  redis.call('HSET', KEYS[2], unpack(ARGV, j, math.min(j + {LUA_CHUNK} - 1, #ARGV)))
end
return {{1}}
"""
# KEYS: info, manifests, history. ARGV: the condition (``condition_arguments``): "" for none,
# "*" for any generation, or "=" and the generations it names. Returns {0} (no such cluster),
# {-1, generation} (precondition failed) or {1, uid} (deleted).
DELETE = """
local current = redis.call('HGET', KEYS[1], 'generation')
if not current then return {0} end
if ARGV[1] == '=' then
  local named = false
  for i = 2, #ARGV do
    if ARGV[i] == current then named = true break end
  end
  if not named then return {-1, current} end
end
local uid = redis.call('HGET', KEYS[1], 'uid') or ''
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return {1, uid}
"""
# KEYS: info, manifests. The info's fields and every manifest, or false: one snapshot.
READ_CATALOG = """
local info = redis.call('HMGET', KEYS[1], 'uid', 'settings', 'generation', 'updated_at',
  'counts', 'index', 'documents')
if not info[3] then return false end
return {info, redis.call('HGETALL', KEYS[2])}
"""
# KEYS: info. ARGV: the uid and generation of the documents the caller holds ("" for none).
# The info's fields, and the documents unless they are those: one snapshot; or false.
READ_DOCUMENTS = """
local info = redis.call('HMGET', KEYS[1], 'uid', 'settings', 'generation', 'updated_at',
  'counts')
if not info[3] then return false end
if info[1] == ARGV[1] and info[3] == ARGV[2] then return {info} end
return {info, redis.call('HGET', KEYS[1], 'index'), redis.call('HGET', KEYS[1], 'documents')}
"""
# KEYS: info. ARGV: when the cluster's objects were last replaced, noted in its info hash only
# while the cluster exists (a deleted one's hash is gone: HSET would make a stray one).
MARK_SYNCED = """
if redis.call('HEXISTS', KEYS[1], 'generation') == 1 then
  redis.call('HSET', KEYS[1], 'synced_at', ARGV[1])
end
return 1
"""

# KEYS: info, history. ARGV: the cursor (a seq: entries older than it; "" for the newest) and how
# many entries ("-1": every one from there). The info's fields and those entries (newest first),
# or false: one snapshot. The list holds consecutive seqs, the newest at the head, the last one
# numbered in the info's "history_seq", so a seq's place is known without a scan.
READ_HISTORY = """
local info = redis.call('HMGET', KEYS[1], 'uid', 'settings', 'generation', 'updated_at',
  'counts', 'history_seq')
if not info[3] then return false end
local start = 0
if ARGV[1] ~= '' then start = tonumber(info[6] or '0') - tonumber(ARGV[1]) + 1 end
if start < 0 then start = 0 end
local count = tonumber(ARGV[2])
local stop = -1
if count >= 0 then stop = start + count - 1 end
return {info, redis.call('LRANGE', KEYS[2], start, stop)}
"""
# KEYS: registry. ARGV: cluster, uid, max clusters or "". 1 registered, 0 refused.
REGISTER = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and ARGV[3] ~= ''
    and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# KEYS: registry. ARGV: cluster, uid. Removes the entry only if it is still that uid's.
UNREGISTER = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""


def field_name(key: ObjectKey) -> str:
    return codec.dumps_json(list(key))


def replies(values: Any) -> list[bytes | None]:
    """A reply of several values: byte strings or nil, since these clients never decode
    responses (``decode_responses`` is off), whatever redis-py's annotations allow."""
    return cast("list[bytes | None]", values)


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def info_from(cluster: str, fields: list[bytes | None]) -> ClusterInfo | None:
    """The info from the ``INFO_FIELDS`` of its hash; ``None`` if there is none."""
    uid, settings, generation, updated_at, counts = fields[: len(INFO_FIELDS)]
    if generation is None:
        return None
    with reading(cluster):
        if uid is None or settings is None or updated_at is None or counts is None:
            raise ValueError("the info hash lacks a field")
        return info_of(cluster, uid.decode(), settings, generation, updated_at.decode(), counts)


def state_from(cluster: str, fields: list[bytes | None]) -> tuple[ClusterState | None, list]:
    """The state a write decides on, and the stored objects' ``[key, digest, document, size]``
    (``size`` None for an index written before sizes were: ``missing_sizes`` fills them)."""
    info = info_from(cluster, fields)
    if info is None:
        return None, []
    with reading(cluster):
        index, documents = fields[INDEX], fields[DOCUMENTS]
        if index is None or documents is None:
            raise ValueError("the info hash lacks its index or documents")
        index = json.loads(index)
        documents = codec.parse_json(documents)
        stored = [
            [tuple(entry[:3]), entry[3], document, entry[4] if len(entry) > 4 else None]
            for entry, document in zip(index, documents, strict=True)
        ]
    return _state(info, stored), stored


def _state(info: ClusterInfo, stored: list) -> ClusterState:
    documents = {key: document for key, _digest, document, _size in stored}

    def load(keys: list[ObjectKey]) -> list[Document]:
        with reading(info.name):
            return codec.decode_all(documents[key] for key in keys)

    return ClusterState(
        info,
        {key: digest for key, digest, _document, _size in stored},
        {key: size or 0 for key, _digest, _document, size in stored},
        load,
    )


def with_sizes(state: ClusterState, stored: list, manifest_lengths: list[int]) -> ClusterState:
    """``stored`` with the sizes it lacked, from the lengths of those objects' manifests (in
    the order of ``missing_sizes``)."""
    lengths = iter(manifest_lengths)
    for entry in stored:
        if entry[3] is None:
            entry[3] = len(codec.dumps_json(entry[2])) + next(lengths)
    return _state(state.info, stored)


def missing_sizes(stored: list) -> list[ObjectKey]:
    """The objects whose size an older index does not hold."""
    return [entry[0] for entry in stored if entry[3] is None]


def condition_arguments(if_match: Condition) -> list[str]:
    """``if_match`` as the DELETE script takes it."""
    condition = Precondition.of(if_match)
    if condition is None:
        return [""]
    if condition.generations is None:
        return ["*"]
    return ["=", *(str(generation) for generation in sorted(condition.generations))]


def commit_arguments(
    expected: str, change: Change, stored: list, last_seq: int = 0, history_bound: int = 1
) -> list[str | bytes]:
    """The COMMIT script's arguments; the history's entries numbered after ``last_seq``."""
    info = change.info
    entries = numbered(change.history, last_seq)
    pairs: dict[str, str] = {
        "uid": info.uid,
        "generation": str(info.generation),
        "settings": json.dumps(info.settings.to_json()),
        "updated_at": info.updated_at,
        "counts": json.dumps(info.counts),
    }
    if change.created or change.puts or change.deletes:
        index, documents = rebuilt(stored, change.puts, change.deletes)
        pairs["index"], pairs["documents"] = index, documents
    if entries:
        pairs["history_seq"] = str(entries[-1].seq)
    arguments: list[str | bytes] = [expected, str(history_bound), str(len(entries))]
    arguments += (entry.encoded() for entry in entries)
    arguments.append(str(len(pairs)))
    for name, value in pairs.items():
        arguments += (name, value)
    arguments.append(str(len(change.deletes)))
    arguments += (field_name(key) for key in change.deletes)
    for item in change.puts:
        arguments += (field_name(item.key), item.manifest)
    return arguments


def rebuilt(
    stored: list, puts: tuple[EncodedObject, ...], deletes: tuple[ObjectKey, ...]
) -> tuple[str, str]:
    """The new ``index`` (``[kind, namespace, name, digest, size]``) and ``documents``
    fields: the stored objects with ``puts`` and without ``deletes``, in key order."""
    entries: dict[ObjectKey, tuple[str, Any, int]] = {
        key: (digest, document, size or 0) for key, digest, document, size in stored
    }
    for key in deletes:
        entries.pop(key, None)
    for item in puts:
        entries[item.key] = (item.digest, json.loads(item.document), item.size)
    keys = sorted(entries)
    index = codec.dumps_json([[*key, entries[key][0], entries[key][2]] for key in keys])
    return index, codec.dumps_json([entries[key][1] for key in keys])


# Error replies and connection errors that mean "this service's credentials are refused".
REFUSALS = (
    AuthenticationError,
    AuthenticationWrongNumberOfArgsError,
    AuthorizationError,
    NoPermissionError,
)


def unavailable(error: BaseException) -> StoreUnavailable:
    """What an error of redis-py (or of its socket) means for the store: refused credentials,
    no answer (which opens the breaker), or an error reply. Its text, which may quote the URL
    of a node, is logged redacted; ``problem`` names only the kind."""
    message = f"catalog store (Redis): {redact_urls(str(error))}"
    causes: list[BaseException] = []
    cause: BaseException | None = error
    while cause is not None and len(causes) < 5:  # RedisCluster wraps the node's error
        causes.append(cause)
        cause = cause.__cause__
    refusal = next((cause for cause in causes if isinstance(cause, REFUSALS)), None)
    if refusal is not None:
        problem = f"Redis refuses the credentials of REDIS_URL ({type(refusal).__name__})"
        return StoreUnavailable(message, problem=problem, refused=True)
    if isinstance(error, ResponseError):
        return StoreUnavailable(message, problem=f"Redis answers {type(error).__name__}")
    if isinstance(error, redis.TimeoutError | TimeoutError):
        problem = "Redis does not answer within OME_RANKER_STORE_TIMEOUT"
    else:
        problem = f"Redis cannot be reached ({type(error).__name__})"
    return StoreUnavailable(message, problem=problem, answered=False)


# --- the store ----------------------------------------------------------------------------------

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
        cluster: bool = False,
        **limits: Any,
    ) -> None:
        self.backend = "redis-cluster" if cluster else "redis"
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
        settings: dict[str, Any] = {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            "retry": Retry(NoBackoff(), 0),
            "client_name": CLIENT_NAME,
        }

        def connect() -> Client:
            if cluster:
                return RedisCluster(url=url, require_full_coverage=False, **settings)
            return redis.Redis.from_url(url, health_check_interval=0, **settings)

        return cls(connect, prefix=prefix, cluster=cluster, **options)

    # --- keys and connections ------------------------------------------------------------------

    def info_key(self, cluster: str) -> str:
        return f"{self.prefix}{{{cluster}}}:info"

    def manifests_key(self, cluster: str) -> str:
        return f"{self.prefix}{{{cluster}}}:manifests"

    def history_key(self, cluster: str) -> str:
        return f"{self.prefix}{{{cluster}}}:history"

    def cluster_keys(self, cluster: str) -> list[str]:
        """The keys of one cluster, in its hash tag's slot: info, manifests, history."""
        return [self.info_key(cluster), self.manifests_key(cluster), self.history_key(cluster)]

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
                            ("read_history", READ_HISTORY),
                            ("mark_synced", MARK_SYNCED),
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
        with self.guard.calling():
            try:
                yield
            except (redis.RedisError, RedisClusterException, OSError) as error:
                raise unavailable(error) from error

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
        keys = self.cluster_keys(cluster)
        info_key, manifests_key = keys[0], keys[1]
        with self._errors():
            for _attempt in range(COMMIT_ATTEMPTS):
                fields = replies(self.client.hmget(info_key, STATE_FIELDS))
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
                expected = "" if state is None else f"{state.info.uid} {state.info.generation}"
                last_seq = int(fields[HISTORY_SEQ] or 0) if state is not None else 0
                arguments = commit_arguments(
                    expected, change, stored, last_seq, self.history_max_changes
                )
                status = self._run("commit", keys, arguments)
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
            text(name): text(uid) for name, uid in self.client.hgetall(self.registry_key).items()
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

    def delete_cluster(self, cluster: str, if_match: Condition = None) -> bool:
        check_cluster_name(cluster)
        with self._errors():
            result = self._run("delete", self.cluster_keys(cluster), condition_arguments(if_match))
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
            fields = replies(self.client.hmget(self.info_key(cluster), list(INFO_FIELDS)))
        return info_from(cluster, fields)

    def _every_info(self, fields: list[str]) -> list[tuple[str, list[bytes | None]]]:
        """Every registered cluster's ``fields`` of its info, by name, in one round trip."""
        with self._errors():
            names = sorted(text(name) for name in self.client.hkeys(self.registry_key))
            if not names:
                return []
            with self.client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.hmget(self.info_key(name), fields)
                replies = pipe.execute()
        return list(zip(names, replies, strict=True))

    def list_infos(self) -> list[ClusterInfo]:
        infos = (info_from(name, fields) for name, fields in self._every_info(list(INFO_FIELDS)))
        return [info for info in infos if info is not None]

    def list_generations(self) -> list[Generation]:
        found = []
        for name, (uid, generation, at) in self._every_info(["uid", "generation", "synced_at"]):
            if generation is None:
                continue  # deleted since it was listed, as list_infos leaves it out
            with reading(name):
                if uid is None:
                    raise ValueError("the info hash lacks a field")
                found.append(
                    (name, uid.decode(), int(generation), None if at is None else at.decode())
                )
        return found

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

    def mark_synced(self, cluster: str, at: str) -> None:
        check_cluster_name(cluster)
        with self._errors():
            self._run("mark_synced", [self.info_key(cluster)], [at])

    def sync_times(self) -> dict[str, str]:
        return {
            name: at.decode()
            for name, (generation, at) in self._every_info(["generation", "synced_at"])
            if generation is not None and at is not None
        }

    def history_counts(self) -> dict[str, int]:
        return {
            name: 0 if seq is None else int(seq)
            for name, (generation, seq) in self._every_info(["generation", "history_seq"])
            if generation is not None  # deleted since it was listed
        }

    def read_history(self, cluster: str, query: HistoryQuery) -> HistoryPage | None:
        """One script's snapshot: the info, and the entries from the cursor on, only as many
        as the page needs unless the query filters by InferenceService (then every one from
        the cursor on, at most the history's bound)."""
        check_cluster_name(cluster)
        cursor = "" if query.cursor is None else str(query.cursor)
        count = -1 if query.filtered else query.limit + 1
        keys = [self.info_key(cluster), self.history_key(cluster)]
        with self._errors():
            snapshot = _snapshot(cluster, self._run("read_history", keys, [cursor, str(count)]))
        if snapshot is None:
            return None
        info, listed = snapshot
        with reading(cluster):
            entries = [HistoryEntry.decoded(text) for text in listed]
        if query.cursor is not None:
            # an entry written meanwhile cannot be here (one snapshot); one older than a
            # cursor of another incarnation of the cluster can: skip what is not older
            entries = [entry for entry in entries if entry.seq < query.cursor]
        return page_of(info, entries, query)

    def read_catalog(self, cluster: str) -> Catalog | None:
        check_cluster_name(cluster)
        keys = [self.info_key(cluster), self.manifests_key(cluster)]
        with self._errors():
            reply = self._run("read_catalog", keys, [])
        snapshot = _snapshot(cluster, reply)
        if snapshot is None:
            return None
        info, flat = snapshot
        fields = reply[0]
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


def _snapshot(cluster: str, reply: Any) -> tuple[ClusterInfo, Any] | None:
    """A script's ``{info fields, what it read}``, or false: the info and what it read."""
    if not reply:
        return None
    info = info_from(cluster, reply[0])
    if info is None:  # pragma: no cover - the scripts answer false then
        return None
    return info, reply[1]
