"""Stored catalogs (rules §17): what a store holds, what it promises, and the rules every backend
shares.

A *cluster* is a name, its settings and its objects. An object is keyed by
``(kind, namespace or "", name)`` and kept twice: the manifest as written (for
``GET …/objects``) and the validated, normalised document selection reads (so that ranking
never re-parses a manifest).

Promises of every backend (``tests/store/`` runs the same tests on each):

* ``generation`` is 1 when a cluster is created and grows by exactly 1 with every write that
  changes something (settings, or any object's manifest or document); a write that changes
  nothing stores nothing and keeps it.
* every write is one transaction: readers see a cluster before or after it, never a mix; a
  write given ``if_match`` happens only if it still holds when the write commits, else
  ``PreconditionFailed`` (of two writers racing with the same ``if_match``, one wins); a write
  that may not create the cluster finds out whether it exists in that same transaction.
* nothing expires; a write acknowledged by a return survives a restart of the service (and,
  configured as the docs say, of Redis).
* any failure to reach or use the backend is ``StoreUnavailable``, never a partial answer.

The decisions (what changed, the new generation and counts, the limits) are taken here, by
pure functions of the stored state; a backend only reads that state and commits the change
atomically (``CatalogStore._transact``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime

from app.breaker import CircuitBreaker
from app.selection.questions import OutcomeChanges

from .guard import DOWN, REFUSED, UP, StoreGuard, StoreHealth
from .history import (
    DEFAULT_HISTORY_MAX_CHANGES,
    HistoryOf,
    HistoryPage,
    HistoryQuery,
    history_entries,
)
from .records import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_CLUSTERS,
    DEFAULT_MAX_OBJECTS,
    DEFAULT_MAX_RUNTIMES,
    RUNTIME_KINDS,
    Bound,
    Catalog,
    CatalogDocuments,
    ClusterInfo,
    ClusterNotFound,
    ClusterSettings,
    CreationRefused,
    Document,
    EmptyReplace,
    Generation,
    LimitExceeded,
    ObjectKey,
    Precondition,
    PreconditionFailed,
    StoredObject,
    StoreError,
    StoreUnavailable,
    check_cluster_name,
    counts_of,
    new_uid,
    rfc3339,
)
from .state import Change, ClusterState, EncodedObject, encode_objects

Decision = Callable[[ClusterState | None], Change]
# A write's If-Match: a generation, or a Precondition (one of several generations, or ``*``).
Condition = int | Precondition | None

log = logging.getLogger("app.store")


# Objects kept decoded per process across the clusters read last (a decoded catalog object is
# ~1.2 KB: 5 000 of OME's runtimes held 6.2 MB): one cluster at OME_RANKER_MAX_OBJECTS_PER_CLUSTER's
# default, ~25 MB (docs/operations.md "Memory").
DOCUMENTS_CACHE_OBJECTS = 20_000


def _objects_held(held: Iterable[tuple[CatalogDocuments, dict[str, Document]]]) -> int:
    return sum(len(by_digest) for _, by_digest in held)


class FetchedDocuments:
    """A cluster's documents as a backend read them: the digest of each object in key order,
    and ``load(positions)``, the decoded documents at those positions (only those are
    decoded)."""

    __slots__ = ("digests", "load")

    def __init__(self, digests: list[str], load: Callable[[list[int]], list[Document]]):
        self.digests = digests
        self.load = load


class CatalogStore(ABC):
    """The storage of stored catalogs; one per service process, shared by its threads.

    ``max_objects`` bounds the objects of one cluster, ``max_bytes`` what they take as stored,
    ``max_runtimes`` its runtimes (each one a ranking of the catalog reads), ``max_clusters``
    the clusters of the service; a write over any is ``LimitExceeded`` and stores nothing;
    ``None`` is no bound. ``clock`` gives
    ``updated_at``. Objects are listed, and documents given, in key order
    (kind, namespace, name), whatever the order they were written in. Every backend call goes
    through ``guard`` (app/store/guard.py), whose ``breaker`` tests may give.

    ``history`` works out what a write does to the InferenceServices' outcomes (rules §17
    "Selection history"); each write keeps that with the catalog, in its transaction, at most
    ``history_max_changes`` changes per cluster. Without it (or with a bound of 0) no history
    is kept.
    """

    backend = "store"  # what /readyz and the logs call the backend

    def __init__(
        self,
        *,
        max_objects: int | None = DEFAULT_MAX_OBJECTS,
        max_bytes: int | None = DEFAULT_MAX_BYTES,
        max_runtimes: int | None = DEFAULT_MAX_RUNTIMES,
        max_clusters: int | None = DEFAULT_MAX_CLUSTERS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        documents_cache_size: int = 8,
        documents_cache_objects: int = DOCUMENTS_CACHE_OBJECTS,
        breaker: CircuitBreaker | None = None,
        history: HistoryOf | None = None,
        history_max_changes: int = DEFAULT_HISTORY_MAX_CHANGES,
    ) -> None:
        self.guard = StoreGuard(self.backend, breaker)
        self.history = history if history_max_changes > 0 else None
        self.history_max_changes = history_max_changes
        self.max_objects = max_objects
        self.max_bytes = max_bytes
        self.max_runtimes = max_runtimes
        self.max_clusters = max_clusters
        self.clock = clock
        self.documents_cache_size = documents_cache_size
        self.documents_cache_objects = documents_cache_objects
        # cluster -> (its last snapshot, its documents by the digest of their object)
        self._documents: OrderedDict[str, tuple[CatalogDocuments, dict[str, Document]]] = (
            OrderedDict()
        )
        self._documents_lock = threading.Lock()

    # --- what a backend provides ---------------------------------------------------------------

    @abstractmethod
    def _transact(self, cluster: str, decide: Decision) -> Change:
        """Read the cluster's state (``None``: it does not exist), call ``decide`` on it and,
        if the change changes anything, commit it, all as one transaction: ``decide`` may be
        called again on a newer state if another write committed in between. Exceptions of
        ``decide`` leave everything as it was. A change that ``created`` the cluster must be
        refused with ``LimitExceeded`` when ``max_clusters`` clusters exist already."""

    @abstractmethod
    def get_info(self, cluster: str) -> ClusterInfo | None: ...

    @abstractmethod
    def list_infos(self) -> list[ClusterInfo]:
        """Every cluster, in name order."""

    @abstractmethod
    def list_generations(self) -> list[Generation]:
        """Every cluster's name, uid, generation and last sync, in name order: what a fleet's
        tag depends on, without decoding the rest of its info (a fleet's poll reads only this)."""

    @abstractmethod
    def delete_cluster(self, cluster: str, if_match: Condition = None) -> bool:
        """Remove the cluster, its settings and objects; ``False`` if there was none (whatever
        ``if_match``: RFC 9110 §13.2.2, a condition is not evaluated for an answer that would
        not be a success without it); ``PreconditionFailed`` if ``if_match`` does not hold."""

    @abstractmethod
    def read_catalog(self, cluster: str) -> Catalog | None: ...

    @abstractmethod
    def _read_documents(
        self, cluster: str, known: ClusterInfo | None
    ) -> tuple[ClusterInfo, FetchedDocuments | None] | None:
        """The cluster's info and documents, in key order, from one snapshot; ``None`` if
        there is no such cluster. The documents are ``None`` when the info has the ``uid``
        and ``generation`` of ``known``: the caller holds them already, decoded."""

    def replace_and_mark(
        self,
        cluster: str,
        objects: Iterable[StoredObject],
        if_match: Condition = None,
        *,
        allow_empty: bool = False,
    ) -> ClusterInfo:
        """``replace_objects``, then the time noted as the cluster's last sync (``sync_times``),
        whether the objects changed or not: a sync that finds nothing new still reached it."""
        info = self.replace_objects(cluster, objects, if_match, allow_empty=allow_empty)
        try:
            self.mark_synced(cluster, rfc3339(self.clock()))
        except StoreError:
            # The objects are stored: the answer says so. The sync's time waits for the next.
            log.warning("cluster %s replaced, its sync time not noted", cluster)
        return info

    @abstractmethod
    def mark_synced(self, cluster: str, at: str) -> None:
        """Note ``at`` (RFC 3339) as when the cluster's objects were last replaced; nothing for
        a cluster that does not exist. Not a write of the catalog: no generation, no history."""

    @abstractmethod
    def sync_times(self) -> dict[str, str]:
        """When each cluster's objects were last replaced (``mark_synced``), by name; a cluster
        never replaced is left out."""

    @abstractmethod
    def history_counts(self) -> dict[str, int]:
        """Every cluster's newest history ``seq`` by name: how many selection changes it has
        recorded since it was created, dropped ones included (0 for none)."""

    @abstractmethod
    def read_history(self, cluster: str, query: HistoryQuery) -> HistoryPage | None:
        """The cluster's history as ``query`` asks, with its info, from one snapshot; ``None``
        if there is no such cluster."""

    @abstractmethod
    def ping(self) -> None:
        """``StoreUnavailable`` unless the backend answers, and would take a write."""

    @abstractmethod
    def close(self) -> None: ...

    # --- reads and writes, the same for every backend -----------------------------------------

    def check(self) -> StoreHealth:
        """One ``ping``, through the breaker, as /readyz reports it; never raises."""
        try:
            self.ping()
        except StoreUnavailable as error:
            return StoreHealth(self.backend, REFUSED if error.refused else DOWN, error.problem)
        return StoreHealth(self.backend, UP)

    def read_documents(self, cluster: str) -> CatalogDocuments | None:
        """The documents alone, for ranking: no manifest is read or parsed.

        The last ``documents_cache_size`` clusters read are kept decoded in this process, as
        long as they hold ``documents_cache_objects`` objects together (the one read last
        always: it is in use; rules §17 "Safe to share": memory bounded); a
        read still asks the backend, in the same snapshot as ever, but gets the documents only
        if the ``uid`` or the ``generation`` changed since (a write by any process), and then
        decodes only the objects whose digest it has not decoded before: after a write of one
        runtime, one document. The snapshots are immutable, so they can be shared.
        """
        check_cluster_name(cluster)
        with self._documents_lock:
            cached = self._documents.get(cluster)
        read = self._read_documents(cluster, None if cached is None else cached[0].info)
        if read is None:
            with self._documents_lock:
                self._documents.pop(cluster, None)
            return None
        info, fetched = read
        if fetched is None and cached is not None:
            return cached[0]
        known = {} if cached is None else cached[1]
        digests = [] if fetched is None else fetched.digests
        missing = [i for i, digest in enumerate(digests) if digest not in known]
        decoded = {}
        if missing and fetched is not None:  # (only fetched documents have digests)
            decoded = dict(zip(missing, fetched.load(missing), strict=True))
        documents = [
            decoded[i] if i in decoded else known[digest] for i, digest in enumerate(digests)
        ]
        snapshot = CatalogDocuments.of(info, documents)
        if self.documents_cache_size > 0:
            by_digest = dict(zip(digests, documents, strict=True))
            with self._documents_lock:
                self._documents[cluster] = (snapshot, by_digest)
                self._documents.move_to_end(cluster)
                while len(self._documents) > 1 and (
                    len(self._documents) > self.documents_cache_size
                    or _objects_held(self._documents.values()) > self.documents_cache_objects
                ):
                    self._documents.popitem(last=False)
        return snapshot

    def put_settings(
        self,
        cluster: str,
        settings: ClusterSettings,
        if_match: Condition = None,
        *,
        may_create: bool = True,
    ) -> tuple[ClusterInfo, bool]:
        """Create the cluster (``True``) or update its settings (``False``). Creating is
        ``CreationRefused`` unless ``may_create``, and then with ``if_match`` (even ``*``)
        ``PreconditionFailed(None)``: HTTP's If-Match on nothing fails."""
        check_cluster_name(cluster)
        if type(settings) is not ClusterSettings:
            raise TypeError(f"not ClusterSettings: {settings!r}")

        def decide(state: ClusterState | None) -> Change:
            if state is None:
                if not may_create:
                    raise CreationRefused(cluster)
                if if_match is not None:
                    raise PreconditionFailed(None)
                now = rfc3339(self.clock())
                info = ClusterInfo(cluster, new_uid(), settings, 1, now, counts_of(()))
                return Change(info, created=True)
            check_precondition(state.info.generation, if_match)
            if state.info.settings == settings:
                return Change(state.info)
            return Change(self._next(state.info, settings=settings), settings_changed=True)

        change = self._transact(cluster, self._recorded(decide))
        return change.info, change.created

    def replace_objects(
        self,
        cluster: str,
        objects: Iterable[StoredObject],
        if_match: Condition = None,
        *,
        allow_empty: bool = False,
    ) -> ClusterInfo:
        """Make ``objects`` the cluster's objects, all others removed. No objects at all over a
        catalog that holds some is ``EmptyReplace`` unless ``allow_empty``."""
        check_cluster_name(cluster)
        objects = list(objects)
        encoded = encode_objects(objects)

        def decide(state: ClusterState | None) -> Change:
            state = _existing(cluster, state, if_match)
            if not encoded and state.digests and not allow_empty:
                raise EmptyReplace(cluster, len(state.digests))
            self._check_limits(encoded.keys(), sum(item.size for item in encoded.values()))
            puts = tuple(
                item for key, item in encoded.items() if state.digests.get(key) != item.digest
            )
            deletes = tuple(key for key in state.digests if key not in encoded)
            return self._objects_change(state, encoded.keys(), puts, deletes)

        return self._transact(cluster, self._recorded(decide, objects)).info

    def apply_objects(
        self, cluster: str, objects: Iterable[StoredObject], if_match: Condition = None
    ) -> ClusterInfo:
        """Add ``objects``, replacing stored ones of the same key; leave the others."""
        check_cluster_name(cluster)
        objects = list(objects)
        encoded = encode_objects(objects)

        def decide(state: ClusterState | None) -> Change:
            state = _existing(cluster, state, if_match)
            keys = set(state.digests).union(encoded)
            kept = sum(size for key, size in state.sizes.items() if key not in encoded)
            self._check_limits(keys, kept + sum(item.size for item in encoded.values()))
            puts = tuple(
                item for key, item in encoded.items() if state.digests.get(key) != item.digest
            )
            return self._objects_change(state, keys, puts, ())

        return self._transact(cluster, self._recorded(decide, objects)).info

    def delete_object(
        self,
        cluster: str,
        kind: str,
        namespace: str | None,
        name: str,
        if_match: Condition = None,
    ) -> ClusterInfo | None:
        """Remove one object; ``None`` if the cluster has no such object."""
        check_cluster_name(cluster)
        key = (kind, namespace or "", name)
        found = True

        def decide(state: ClusterState | None) -> Change:
            nonlocal found
            state = _existing(cluster, state, if_match)
            found = key in state.digests
            if not found:
                return Change(state.info)
            keys = [stored for stored in state.digests if stored != key]
            return self._objects_change(state, keys, (), (key,))

        info = self._transact(cluster, self._recorded(decide)).info
        return info if found else None

    # --- selection history (rules §17) ---------------------------------------------------------

    def _recorded(self, decide: Decision, written: Iterable[StoredObject] = ()) -> Decision:
        """``decide``, and the history of the change it decides (``written``: the objects the
        write puts, whose documents it has), in the same transaction."""
        if self.history is None:
            return decide
        return RecordedDecision(self, decide, {item.key: item.document for item in written})

    def _history_of(
        self,
        state: ClusterState,
        change: Change,
        written: Mapping[ObjectKey, Document],
    ) -> OutcomeChanges | None:
        """What ``change`` does to the outcomes of ``state``'s cluster; None when no document
        and no setting the rules read changes (a manifest's labels, a ``description``, a
        migration's stored form)."""
        if self.history is None or state.load is None:
            return None
        # the settings the rules read: all but the description
        settings_moved = replace(change.info.settings, description=None) != replace(
            state.info.settings, description=None
        )
        if not settings_moved and not change.deletes and not change.puts:
            return None
        before = self._stored_documents(state.info.name, state.digests, state.load)
        put = [item.key for item in change.puts]
        unmoved = all(before.get(key) == written[key] for key in put)
        if not settings_moved and not change.deletes and unmoved:
            return None
        after = {key: document for key, document in before.items() if key not in change.deletes}
        after.update((key, written[key]) for key in put)
        return self.history(
            CatalogDocuments.of(state.info, _in_key_order(before)).view(),
            CatalogDocuments.of(change.info, _in_key_order(after)).view(),
        )

    def _stored_documents(
        self,
        cluster: str,
        digests: Mapping[ObjectKey, str],
        load: Callable[[list[ObjectKey]], list[Document]],
    ) -> dict[ObjectKey, Document]:
        """The stored documents by key: those this process holds decoded (``read_documents``)
        by digest, the others loaded."""
        with self._documents_lock:
            cached = self._documents.get(cluster)
        known = {} if cached is None else cached[1]
        missing = [key for key, digest in digests.items() if digest not in known]
        loaded = dict(zip(missing, load(missing), strict=True)) if missing else {}
        return {
            key: loaded[key] if key in loaded else known[digest] for key, digest in digests.items()
        }

    # --- helpers -------------------------------------------------------------------------------

    def _check_limits(self, keys: Iterable[ObjectKey], size: int) -> None:
        """A cluster of these objects, ``size`` bytes as stored, within the bounds."""
        keys = list(keys)
        runtimes = sum(1 for kind, _namespace, _name in keys if kind in RUNTIME_KINDS)
        checks: tuple[tuple[Bound, int | None, int, str], ...] = (
            ("objects", self.max_objects, len(keys), "objects"),
            ("bytes", self.max_bytes, size, "bytes as stored"),
            ("runtimes", self.max_runtimes, runtimes, "runtimes"),
        )
        for bound, limit, requested, what in checks:
            if limit is not None and requested > limit:
                raise LimitExceeded(
                    f"the cluster would hold {requested} {what}; a cluster holds at most "
                    f"{limit} {what}",
                    bound,
                    limit,
                    requested,
                )

    def _check_cluster_limit(self, existing: int) -> None:
        if self.max_clusters is not None and existing >= self.max_clusters:
            raise self._cluster_limit_exceeded(existing + 1)

    def _cluster_limit_exceeded(self, requested: int | None = None) -> LimitExceeded:
        limit = self.max_clusters or 0
        return LimitExceeded(
            f"a service holds at most {limit} clusters",
            "clusters",
            limit,
            limit + 1 if requested is None else requested,
        )

    def rewrite_manifests(self, form: Callable[[dict], dict]) -> tuple[int, int]:
        """Store every object's manifest as ``form`` gives it (a migration: what is stored
        changes its shape), each cluster in one transaction that bumps its generation when
        something changed; no bound is applied (what was stored stays). Idempotent. Returns
        (clusters changed, objects changed)."""
        clusters = objects = 0
        for info in self.list_infos():
            changed = self._rewrite_cluster(info.name, form)
            clusters += changed > 0
            objects += changed
        return clusters, objects

    def _rewrite_cluster(self, cluster: str, form: Callable[[dict], dict]) -> int:
        while True:
            catalog = self.read_catalog(cluster)
            if catalog is None:
                return 0
            encoded = encode_objects(
                StoredObject(
                    item.kind, item.namespace, item.name, form(item.manifest), item.document
                )
                for item in catalog.objects
            )
            read = catalog.info.generation

            def decide(state: ClusterState | None, encoded=encoded, read=read) -> Change:
                if state is None:
                    raise ClusterNotFound(cluster)
                if state.info.generation != read:
                    raise PreconditionFailed(state.info.generation)  # written meanwhile: again
                puts = tuple(
                    item for key, item in encoded.items() if state.digests.get(key) != item.digest
                )
                return self._objects_change(state, state.digests.keys(), puts, ())

            try:
                return len(self._transact(cluster, decide).puts)
            except ClusterNotFound:
                return 0
            except PreconditionFailed:
                continue

    def _next(
        self,
        info: ClusterInfo,
        *,
        settings: ClusterSettings | None = None,
        counts: dict[str, int] | None = None,
    ) -> ClusterInfo:
        return ClusterInfo(
            info.name,
            info.uid,
            settings or info.settings,
            info.generation + 1,
            rfc3339(self.clock()),
            info.counts if counts is None else counts,
        )

    def _objects_change(
        self,
        state: ClusterState,
        keys: Iterable[ObjectKey],
        puts: tuple[EncodedObject, ...],
        deletes: tuple[ObjectKey, ...],
    ) -> Change:
        if not puts and not deletes:
            return Change(state.info)
        info = self._next(state.info, counts=counts_of(keys))
        return Change(info, puts=puts, deletes=deletes)


class RecordedDecision:
    """A write's decision and its history (rules §17.1), as one ``Decision``. The history of a
    change from one state is worked out once per write: a backend whose transaction holds a lock
    (SQLite) first rehearses the decision on a snapshot, outside the lock, so that the
    transaction finds the history worked out when the cluster has not changed since, and other
    writers do not wait for it."""

    def __init__(
        self, store: CatalogStore, decide: Decision, written: Mapping[ObjectKey, Document]
    ) -> None:
        self.store = store
        self.decide = decide
        self.written = written
        # (uid, generation) of the state a history was worked out from -> that history
        self._worked_out: dict[tuple[str, int], OutcomeChanges | None] = {}

    def __call__(self, state: ClusterState | None) -> Change:
        change = self.decide(state)
        if state is None or not change.changed:
            return change
        version = (state.info.uid, state.info.generation)
        if version not in self._worked_out:
            self._worked_out[version] = self.store._history_of(state, change, self.written)
        changes = self._worked_out[version]
        if changes is None:
            return change
        entries = history_entries(changes, change.info, self.store.history_max_changes)
        return replace(change, history=entries)

    def rehearse(self, state: ClusterState | None) -> None:
        """Decide on ``state`` without writing, for the history it works out; a decision that
        refuses is left to the write's transaction, which decides again."""
        with contextlib.suppress(StoreError):
            self(state)


def _in_key_order(documents: Mapping[ObjectKey, Document]) -> list[Document]:
    return [documents[key] for key in sorted(documents)]


def check_precondition(generation: int, if_match: Condition) -> None:
    """``PreconditionFailed`` unless a cluster of ``generation`` meets ``if_match``."""
    condition = Precondition.of(if_match)
    if condition is not None and not condition.holds(generation):
        raise PreconditionFailed(generation)


def _existing(cluster: str, state: ClusterState | None, if_match: Condition) -> ClusterState:
    if state is None:
        raise ClusterNotFound(cluster)
    check_precondition(state.info.generation, if_match)
    return state
