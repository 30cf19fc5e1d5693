"""``python -m bench.store``: what reading a stored catalog costs next to ranking it (SPEC §17).

One BaseModel and N runtimes (``bench/manifests.py``, 1 000 by default) are stored in each
backend: SQLite (a file in a temporary directory) and, when a loopback Redis answers, Redis
(its own prefix, ``ome-ranker-bench:<random>:catalog:``, deleted at the end; nothing is
flushed). Measured in the same interleaved rounds (``bench/timing.py``):

* the selection core alone: ``rank_runtimes`` on a validated ``RankRequest`` of those
  documents (the baseline, as in section 1 of ``python -m bench``);
* ``codec.loads_array``: decoding the stored documents from a string already in memory;
* per backend, ``read_documents`` (what ranking a stored cluster reads), ``read_documents`` and
  ``rank_runtimes`` together, and ``read_catalog`` (every manifest too, for ``GET …/objects``).

Then, per backend, ``replace_objects`` alternating two catalogs that differ in every object
(every object rewritten), and one that changes nothing. Ratios are to ``rank_runtimes``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import redis

from app.schemas.document_schemas import model_document_schema, runtime_document_schema
from app.schemas.fast_runtime import load_runtime
from app.schemas.requests import load_rank_request
from app.selection.ranking import rank_runtimes
from app.selection.values import RankRequest
from app.store import CatalogStore, ClusterSettings, StoredObject, codec
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SqliteCatalogStore

from .manifests import TARGET_NAMESPACE, rank_request_body
from .report import Table
from .timing import Budget, compare, milliseconds

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/12"  # the tests use 13; we never flush either
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
CLUSTER = "bench"


def stored_objects(body: dict) -> list[StoredObject]:
    """The body's manifests as the service would store them."""
    model = body["model"]
    objects = [
        StoredObject(
            model["kind"],
            model["metadata"]["namespace"],
            model["metadata"]["name"],
            model,
            model_document_schema.load(model),
        )
    ]
    for manifest in body["runtimes"]:
        document = load_runtime(manifest) or runtime_document_schema.load(manifest)
        objects.append(
            StoredObject(
                manifest["kind"],
                manifest["metadata"].get("namespace"),
                manifest["metadata"]["name"],
                manifest,
                document,
            )
        )
    return objects


def other_catalog(objects: list[StoredObject]) -> list[StoredObject]:
    """The same objects, each with a label more: every object changes, nothing else does."""
    changed = []
    for item in objects:
        manifest = json.loads(json.dumps(item.manifest))
        manifest["metadata"].setdefault("labels", {})["bench-copy"] = "b"
        changed.append(StoredObject(item.kind, item.namespace, item.name, manifest, item.document))
    return changed


def backends(redis_url: str | None, directory: Path) -> dict[str, Callable[..., CatalogStore]]:
    """Per backend, what makes a store on its storage (each store is one service process)."""
    path = directory / "catalogs.sqlite3"
    factories: dict[str, Callable[..., CatalogStore]] = {
        "sqlite": lambda **options: SqliteCatalogStore(path, max_objects=None, **options)
    }
    if redis_url is not None:
        prefix = f"ome-ranker-bench:{uuid.uuid4().hex[:12]}:catalog:"
        factories["redis"] = lambda **options: RedisCatalogStore.from_url(
            redis_url, prefix=prefix, max_objects=None, **options
        )
    return factories


def reachable(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme != "unix" and parts.hostname not in LOOPBACK_HOSTS:
        raise SystemExit(f"--redis-url must be a loopback address, got {url!r}")
    probe = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
    try:
        probe.ping()
        return url
    except redis.RedisError as error:
        print(f"(no Redis figures: {error})")
        return None
    finally:
        probe.close()


def delete_redis_keys(store: RedisCatalogStore) -> None:
    client = store.client
    keys = list(client.scan_iter(match=f"{store.prefix}*", count=1000))
    if keys:
        client.unlink(*keys)


def reads(
    stores: dict[str, CatalogStore],
    cached: dict[str, CatalogStore],
    request: RankRequest,
    blob: str,
    budget: Budget,
) -> Table:
    def read_and_rank(store: CatalogStore) -> None:
        documents = store.read_documents(CLUSTER)
        rank_runtimes(
            RankRequest(documents.models[0], documents.runtimes, namespace=TARGET_NAMESPACE)
        )

    baseline = "rank_runtimes (baseline)"
    ranking = {
        baseline: lambda: rank_runtimes(request),
        "codec.loads_array": lambda: codec.loads_array(blob),
    }
    listing = {baseline: lambda: rank_runtimes(request)}
    for name, store in stores.items():
        ranking[f"{name}: read_documents, decoded"] = lambda s=store: s.read_documents(CLUSTER)
        ranking[f"{name}: read_documents, decoded + rank"] = lambda s=store: read_and_rank(s)
        ranking[f"{name}: read_documents, unchanged"] = lambda s=cached[name]: s.read_documents(
            CLUSTER
        )
        listing[f"{name}: read_catalog"] = lambda s=store: s.read_catalog(CLUSTER)
    table = Table(
        f"Reading a stored catalog of {len(request.runtimes)} runtimes",
        ("what", "median ms", "min ms", "runs", "÷ rank_runtimes"),
    )
    # Two comparisons: read_catalog's garbage (every manifest) would weigh on the others' GC.
    for candidates in (ranking, listing):
        stats = compare(candidates, budget)
        _add_rows(table, stats, stats[baseline].median, skip=baseline if table.rows else None)
    table.notes.append(
        f"stored documents: {len(blob) / 1024:.0f} KiB of JSON. 'decoded': a store with "
        "documents_cache_size=0, so every read fetches and decodes them (as the first read after "
        "a write does); 'unchanged': the default store, which asks the backend whether the "
        "generation changed and reuses the documents it decoded. read_catalog also parses every "
        "manifest as written, and is compared with rank_runtimes in rounds of its own"
    )
    return table


def _add_rows(table: Table, stats: dict, baseline: float, skip: str | None = None) -> None:
    for name, figures in stats.items():
        if name != skip:
            table.add(
                name,
                milliseconds(figures.median),
                milliseconds(figures.minimum),
                figures.runs,
                f"{figures.median / baseline:.2f}",
            )


def writes(
    stores: dict[str, CatalogStore],
    catalogs: tuple[list[StoredObject], list[StoredObject]],
    request: RankRequest,
    budget: Budget,
) -> Table:
    state = {name: 0 for name in stores}

    def replace_all(name: str, store: CatalogStore) -> None:
        state[name] += 1
        store.replace_objects(CLUSTER, catalogs[state[name] % 2])

    candidates = {"rank_runtimes (baseline)": lambda: rank_runtimes(request)}
    for name, store in stores.items():
        candidates[f"{name}: replace_objects, all changed"] = lambda n=name, s=store: replace_all(
            n, s
        )
    stats = compare(candidates, budget)
    for name, store in stores.items():
        same = catalogs[state[name] % 2]
        stats[f"{name}: replace_objects, nothing changed"] = compare(
            {"same": lambda s=store, c=same: s.replace_objects(CLUSTER, c)}, budget
        )["same"]
    table = Table(
        f"Writing a catalog of {len(catalogs[0])} objects",
        ("what", "median ms", "min ms", "runs", "÷ rank_runtimes"),
    )
    _add_rows(table, stats, stats["rank_runtimes (baseline)"].median)
    table.notes.append(
        "the objects are encoded (manifest JSON, document, digest) in every call, as a PUT does"
    )
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.store", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--runtimes", type=int, default=1000)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds per comparison (2)")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="loopback Redis, own db")
    parser.add_argument("--no-redis", action="store_true")
    args = parser.parse_args(argv)

    body = rank_request_body(args.runtimes)
    request = load_rank_request(body, {})
    objects = stored_objects(body)
    blob = codec.join_array(codec.dumps(item.document) for item in objects)
    redis_url = None if args.no_redis else reachable(args.redis_url)
    budget = Budget(args.budget, min_runs=5, warmup=2)
    with tempfile.TemporaryDirectory(prefix="ome-ranker-bench-") as directory:
        factories = backends(redis_url, Path(directory))
        stores = {name: make(documents_cache_size=0) for name, make in factories.items()}
        cached = {name: make() for name, make in factories.items()}
        try:
            for store in stores.values():
                store.put_settings(CLUSTER, ClusterSettings())
                store.replace_objects(CLUSTER, objects)
            print(reads(stores, cached, request, blob, budget).markdown())
            catalogs = (objects, other_catalog(objects))
            print(writes(stores, catalogs, request, Budget(args.budget, min_runs=3)).markdown())
        finally:
            for store in stores.values():
                if isinstance(store, RedisCatalogStore):
                    delete_redis_keys(store)
            for store in (*stores.values(), *cached.values()):
                store.close()


if __name__ == "__main__":
    main()
