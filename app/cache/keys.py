"""Ranking-cache key names and how they are derived from a request (rules §16).

Two keyspaces hold the same kind of value (a framed, rendered answer):

``<prefix>rank:v<rules>:<sha256>``
    keyed by the *inputs*: a canonical encoding of the validated ``RankRequest``, so requests that
    differ only in what selection ignores (container images, labels, key order, runtime order,
    the spec of another namespace's ServingRuntime) share the entry.
``<prefix>req:v<rules>:<sha256>``
    keyed by the *raw request* (body bytes, content type, query parameters), so a repeated
    request is answered for the price of a hash and a GET, before any decoding or validation.

The rules version is in the key name as well as in the hash so that a data migration can find the
entries of older rules without reading them (``migrations/0001_purge_older_rules.py``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import orjson

from app.selection import RULES_VERSION
from app.selection.ranking import is_candidate, runtime_identity, target_namespace
from app.selection.values import Entry, RankRequest, Runtime

RANKING_KEYSPACE = "rank"
REQUEST_KEYSPACE = "req"
CATALOG_KEYSPACE = "cat"  # answers about a stored catalog, keyed by its uid and generation
MIGRATIONS_KEY = "migrations"  # hash: migration id -> when and what it did (migrations/)
MIGRATIONS_LOCK_KEY = "migrations:lock"
ENTRY_KEY = re.compile(
    rf"(?P<space>{RANKING_KEYSPACE}|{REQUEST_KEYSPACE}|{CATALOG_KEYSPACE})"
    rf":v(?P<rules>\d+):[0-9a-f]{{64}}\Z"
)

# Fields only admission reads (rules §18): no cached answer depends on them, so requests that
# differ in them alone share a key (a model's storage URI changes with every copy of it).
NOT_IN_KEY = frozenset({"Entry.version", "Model.storage_uri"})
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
# canonical_inputs splices the runtimes in as the last member of the document, which is only
# canonical (sorted keys) while "runtimes" sorts after every other key (a test keeps it so).
_HEAD_FIELDS = tuple(field.name for field in fields(RankRequest) if field.name != "runtimes")


# ensure_ascii: lone surrogates and any other code point encode unambiguously as escapes. One
# encoder for every call: json.dumps builds a new one for each call with options, which was
# half the cost of a runtime's encoding (a thousand per request).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _dumps(value: Any) -> bytes:
    return _ENCODER.encode(value).encode()


def _dumps_fast(value: Any) -> bytes:
    """``value`` as canonical JSON through orjson (much faster than the stdlib's encoder), or
    through ``_dumps`` where orjson refuses it: a lone surrogate, an integer past 64 bits, a
    key that is not a string. Either's bytes decode back to ``value``, so two runtimes whose
    encodings are equal are equal whichever encoder each took. Validated documents hold JSON
    values only (no NaN or infinity, which orjson would write as null)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return _dumps(value)


def _plain(value: Any) -> Any:
    """A frozen selection document as JSON values: dataclasses become objects of their fields."""
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        if not is_dataclass(kind):
            raise TypeError(f"cannot encode {kind.__name__} in a cache key")
        names = _FIELD_NAMES[kind] = tuple(
            field.name
            for field in fields(kind)
            if f"{kind.__name__}.{field.name}" not in NOT_IN_KEY
        )
    return {name: _plain(getattr(value, name)) for name in names}


# Runtimes are most of a request and are encoded one by one (rules §16: the cache must make the
# service faster): each as a JSON array of its fields in declaration order, built by hand, which
# takes a fifth of the time of the generic object encoding above. tests/cache/test_cache_keys.py
# changes each field of the dataclasses in turn, so a field added to one of them cannot be left
# out of the key (two requests that differ in it would share an answer).


def _entry(entry: Entry) -> tuple:
    # (the references written out: a call for each was a part of every entry's encoding)
    fmt, framework = entry.format, entry.framework
    diffusion = None if entry.diffusion is None else _plain(entry.diffusion)
    return (
        entry.name,
        None if fmt is None else (fmt.name, fmt.version, fmt.operator, fmt.weight),
        None
        if framework is None
        else (framework.name, framework.version, framework.operator, framework.weight),
        entry.architecture,
        entry.quantization,
        diffusion,
        entry.auto_select,
        entry.priority,
        entry.cache_providers,
        entry.accelerator_config,  # rules §20.2: what a class's pods get
    )


def _runtime(runtime: Runtime) -> bytes:
    size = runtime.size_range
    return _dumps_fast(
        (
            runtime.kind,
            runtime.name,
            runtime.namespace,
            runtime.disabled,
            list(map(_entry, runtime.entries)),
            None if size is None else (size.min, size.max),
            runtime.accelerator_classes,
            runtime.engine_mode_annotation,
            runtime.decoder_mode_annotation,
            runtime.protocol_versions,
            runtime.inherit_from,
        )
    )


# Marks the order and the form below in every key: keys made while runtimes were sorted by their
# encoding alone (which lost which of two copies of one runtime came last), or while another
# namespace's runtimes were encoded whole, never meet these.
RUNTIME_ORDER = "identity, then copies in request order; other namespaces' runtimes by name"


def _ignored(runtime: Runtime) -> bytes:
    """A ServingRuntime of another namespace than the target one: selection never reads it
    (rules §2), and an answer names it only (``ignored``: kind, name, namespace), so its
    encoding is that. Three fields, where a runtime read is encoded by eleven."""
    return _dumps_fast((runtime.kind, runtime.name, runtime.namespace))


def _in_canonical_order(runtimes: tuple[Runtime, ...], namespace: str) -> list[bytes]:
    """The runtimes' encodings in an order no answer depends on, keeping the order an answer
    does depend on: rules §2 keeps the last of the copies of one runtime (one kind, namespace
    and name), so copies stay in the request's order; runtimes of different identities are
    sorted by it."""
    copies: dict[tuple[str, str, str], int] = {}
    placed = []
    for runtime in runtimes:
        identity = runtime_identity(runtime, namespace)
        copy = copies[identity] = copies.get(identity, -1) + 1
        encoded = _runtime(runtime) if is_candidate(runtime, namespace) else _ignored(runtime)
        placed.append((identity, copy, encoded))
    placed.sort()  # by identity and copy: no two are equal in both, so never by the encoding
    return [encoded for _, _, encoded in placed]


def canonical_inputs(rank_request: RankRequest, endpoint: str, output: str) -> bytes:
    """Canonical JSON of everything one cached answer depends on.

    The request's own ``namespace`` is replaced by the target namespace (rules §2), the only thing
    selection reads it for; runtimes are sorted by their identity (``_in_canonical_order``):
    no answer depends on their order (rules §15 "Response fields") but for which of two copies
    of one runtime comes last.
    """
    document = {name: _plain(getattr(rank_request, name)) for name in _HEAD_FIELDS}
    namespace = document["namespace"] = target_namespace(rank_request)
    document.update(endpoint=endpoint, output=output, rules=RULES_VERSION)
    document["runtimeOrder"] = RUNTIME_ORDER
    runtimes = _in_canonical_order(rank_request.runtimes, namespace)
    # Splicing the encoded runtimes in as the last member gives exactly what json.dumps with
    # sort_keys would give for the whole document, without encoding each runtime twice.
    head = _dumps(document)
    return b"".join((head[:-1], b',"runtimes":[', b",".join(runtimes), b"]}"))


def entry_key(prefix: str, keyspace: str, digest: str) -> str:
    return f"{prefix}{keyspace}:v{RULES_VERSION}:{digest}"


def ranking_key(prefix: str, rank_request: RankRequest, endpoint: str, output: str) -> str:
    """Key of the answer for these inputs, whatever the request looked like on the wire."""
    digest = hashlib.sha256(canonical_inputs(rank_request, endpoint, output)).hexdigest()
    return entry_key(prefix, RANKING_KEYSPACE, digest)


def request_key(
    prefix: str,
    body: bytes,
    *,
    endpoint: str,
    output: str,
    content_type: str,
    namespace: str | None,
    ome_version: str | None,
    max_runtimes: int,
    model_cache_provider: str | None = None,
    accelerator_classes_known: str | None = None,
) -> str:
    """Key of the answer for this exact request: everything the answer can depend on before
    the body is decoded. ``max_runtimes`` is in it because the same body can be a 413 under a
    smaller limit of another deployment sharing the Redis.
    """
    head = [
        RULES_VERSION,
        endpoint,
        output,
        content_type,
        namespace,
        ome_version,
        max_runtimes,
        model_cache_provider,
        accelerator_classes_known,  # rules §20.8: a query parameter
    ]
    digest = hashlib.sha256(_dumps(head))
    digest.update(b"\n")  # never in the ASCII-escaped head: the body starts unambiguously
    digest.update(body)
    return entry_key(prefix, REQUEST_KEYSPACE, digest.hexdigest())


# The query parameters an answer by name (``GET /v1/clusters/<cluster>/rank|select``) depends
# on, in the order of its question.
BY_NAME_PARAMETERS = (
    "model",
    "modelKind",
    "namespace",
    "inferenceService",
    "acceleratorClassesKnown",  # as written: a value other than true or false is Flask's 422
)


def by_name_question(endpoint: str, output: str, args: Mapping[str, str]) -> list:
    """What an answer by name is about, for its ``catalog_key``: every parameter it reads. The
    poll path in front of Flask and the view ask the same question (app/http/catalog_reads.py)."""
    return [endpoint, output, *(args.get(name) for name in BY_NAME_PARAMETERS)]


def catalog_key(prefix: str, cluster: str, uid: str, generation: int, question: list) -> str:
    """Key of an answer about a stored catalog (rules §17 "Fast"): a write makes a new generation,
    and a cluster deleted and created again a new uid, so every older answer is unreachable."""
    digest = hashlib.sha256(_dumps([RULES_VERSION, cluster, uid, generation, *question]))
    return entry_key(prefix, CATALOG_KEYSPACE, digest.hexdigest())
