"""What the Redis store writes: the fields of a cluster's hashes, the Lua scripts that change
them atomically, and the arguments those scripts take (see ``app.store.redis``)."""

from __future__ import annotations

import json
from typing import Any

from . import codec
from .encoding import Change, ClusterState, EncodedObject, info_of, reading
from .records import ClusterInfo, ObjectKey

INFO_FIELDS = ("uid", "settings", "generation", "updated_at", "counts")
# Positions of "index" and "documents" in an HMGET of INFO_FIELDS and then those two.
INDEX, DOCUMENTS = len(INFO_FIELDS), len(INFO_FIELDS) + 1
LUA_CHUNK = 1000  # arguments per unpack(): Lua's C stack takes at most ~8000


# KEYS: info, manifests. ARGV: expected generation ("" = the cluster must not exist), the
# number of info field/value pairs and the pairs, the number of manifest fields to delete and
# the fields, then manifest field/value pairs to set. Returns {1} or {0, current generation}.
COMMIT = f"""
local current = redis.call('HGET', KEYS[1], 'generation') or ''
if current ~= ARGV[1] then return {{0, current}} end
if current == '' then redis.call('DEL', KEYS[2]) end
local i = 2
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
# KEYS: info, manifests. ARGV: if_match or "". Returns {0} (no such cluster),
# {-1, generation} (precondition failed) or {1, uid} (deleted).
DELETE = """
local current = redis.call('HGET', KEYS[1], 'generation')
if not current then return {0} end
if ARGV[1] ~= '' and ARGV[1] ~= current then return {-1, current} end
local uid = redis.call('HGET', KEYS[1], 'uid') or ''
redis.call('DEL', KEYS[1], KEYS[2])
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


def info_from(cluster: str, fields: list[bytes | None]) -> ClusterInfo | None:
    """The info from the ``INFO_FIELDS`` of its hash; ``None`` if there is none."""
    uid, settings, generation, updated_at, counts = fields[: len(INFO_FIELDS)]
    if generation is None:
        return None
    with reading(cluster):
        return info_of(cluster, uid.decode(), settings, generation, updated_at.decode(), counts)


def state_from(cluster: str, fields: list[bytes | None]) -> tuple[ClusterState | None, list]:
    """The state a write decides on, and the stored objects' ``[key, digest, document, size]``
    (``size`` None for an index written before sizes were: ``missing_sizes`` fills them)."""
    info = info_from(cluster, fields)
    if info is None:
        return None, []
    with reading(cluster):
        index = json.loads(fields[INDEX])
        documents = codec.parse_json(fields[DOCUMENTS])
        stored = [
            [tuple(entry[:3]), entry[3], document, entry[4] if len(entry) > 4 else None]
            for entry, document in zip(index, documents, strict=True)
        ]
    return _state(info, stored), stored


def _state(info: ClusterInfo, stored: list) -> ClusterState:
    return ClusterState(
        info,
        {key: digest for key, digest, _document, _size in stored},
        {key: size or 0 for key, _digest, _document, size in stored},
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


def commit_arguments(expected: str, change: Change, stored: list) -> list[str | bytes]:
    info = change.info
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
    arguments: list[str | bytes] = [expected, str(len(pairs))]
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
