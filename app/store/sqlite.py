"""Stored catalogs in one SQLite file, shared by every process of the service (rules §17: the
embedded default without Redis).

* WAL mode: readers never wait for a writer and always read one committed snapshot; a write is
  one ``BEGIN IMMEDIATE`` transaction (the write lock first, then the reads its decision needs,
  the ``if_match`` check among them), so of two racing writers the second decides on what the
  first committed. ``synchronous=FULL``: a commit is on disk when the call returns. A write
  that keeps a selection history decides first on a snapshot, without the lock, for the history
  it works out (``RecordedDecision.rehearse``), so that the lock is held only to check and commit.
* A busy file is waited for ``busy_timeout`` seconds, then ``StoreUnavailable``; so is every
  other failure to open, read or write the file, which is ``refused`` (``unavailable``): a file
  that cannot be opened or written is a setting to fix, not a wait.
* One connection per thread, made on first use: a connection is never shared by two threads
  (their transactions would mix) nor carried across ``fork`` (a gunicorn worker makes its own;
  the parent's are left to the parent).
* A cluster's info, which every catalog request reads first, is remembered per connection for
  as long as ``PRAGMA data_version`` says that no other connection (another thread, another
  worker, another process) has committed; this connection's own writes, which that number does
  not count, forget it. A write anywhere is still seen by the next read, for a pragma instead
  of a row read and two JSON decodes.

Tables: ``clusters`` (name, settings JSON, generation, updated_at, counts JSON),
``objects`` (cluster, kind, namespace ("" at cluster scope), name, manifest JSON, document
(``codec``), digest), keyed and so ordered by (cluster, kind, namespace, name), and ``history``
(cluster, seq, generation, namespace and name (NULL for a mark), the entry JSON), keyed by
(cluster, seq): the selection history, written in the transaction of the write it records.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from . import codec
from .base import (
    CatalogStore,
    Condition,
    Decision,
    FetchedDocuments,
    RecordedDecision,
    check_precondition,
)
from .history import HistoryEntry, HistoryPage, HistoryQuery, numbered, page_of
from .records import (
    Catalog,
    ClusterInfo,
    Document,
    Generation,
    ObjectKey,
    StoreUnavailable,
    UnreadableCatalog,
    check_cluster_name,
)
from .state import Change, ClusterState, decode_object, info_of, reading

# 1: the tables. 2: manifests in their stored form (``manifest_form``), rewritten once on the
# first connection that finds version 1; the tables have not changed. 3: the ``history`` table.
# 4: the ``syncs`` table (when each cluster's objects were last replaced).
SCHEMA_VERSION = 4
_SYNCS = """CREATE TABLE IF NOT EXISTS syncs (
        cluster TEXT PRIMARY KEY,
        at TEXT NOT NULL
    ) WITHOUT ROWID"""
_HISTORY = """CREATE TABLE IF NOT EXISTS history (
        cluster TEXT NOT NULL,
        seq INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        namespace TEXT,
        name TEXT,
        entry TEXT NOT NULL,
        PRIMARY KEY (cluster, seq)
    ) WITHOUT ROWID"""
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS clusters (
        name TEXT PRIMARY KEY,
        uid TEXT NOT NULL,
        settings TEXT NOT NULL,
        generation INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        counts TEXT NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS objects (
        cluster TEXT NOT NULL,
        kind TEXT NOT NULL,
        namespace TEXT NOT NULL,
        name TEXT NOT NULL,
        manifest TEXT NOT NULL,
        document TEXT NOT NULL,
        digest TEXT NOT NULL,
        PRIMARY KEY (cluster, kind, namespace, name)
    ) WITHOUT ROWID""",
    _HISTORY,
    _SYNCS,
)
# SQLite's result codes for a file this service cannot use (extended codes start with these):
# it cannot be opened, is read-only to this process, is not a database, the disk is full.
UNUSABLE_FILE = (
    "SQLITE_CANTOPEN",
    "SQLITE_READONLY",
    "SQLITE_PERM",
    "SQLITE_AUTH",
    "SQLITE_NOTADB",
    "SQLITE_CORRUPT",
    "SQLITE_FULL",
    "SQLITE_IOERR",
)
_INFO = "SELECT name, uid, settings, generation, updated_at, counts FROM clusters"
_ORDER = "ORDER BY kind, namespace, name"
_WRITE = "BEGIN IMMEDIATE"  # the write lock first (see the module docstring)


class SqliteCatalogStore(CatalogStore):
    """``manifest_form``: what a manifest written by an older release becomes (the service's
    stored form, rules §17), applied once when a file of schema version 1 is first opened."""

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        manifest_form: Callable[[dict], dict] | None = None,
        **limits: Any,
    ):
        super().__init__(**limits)
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.manifest_form = manifest_form
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []

    # --- connections ---------------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if os.getpid() != self._pid:
            # A forked child: its parent's connections (and their locks) are not its own.
            with self._lock:
                self._pid, self._local, self._connections = os.getpid(), threading.local(), []
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._connect()
            self._local.connection = connection
            self._local.infos = None
            with self._lock:
                self._connections.append(connection)
            if self._schema_version(connection) < SCHEMA_VERSION:
                try:
                    self._upgrade(connection)
                except BaseException:
                    # Not upgraded: the next connection of this thread tries again.
                    self._local.connection = None
                    with self._lock:
                        self._connections.remove(connection)
                    connection.close()
                    raise
        return connection

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions, every one is begun here explicitly.
        # check_same_thread=False only so that close() may close other threads' connections.
        connection = sqlite3.connect(
            self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            # What a write replaces or deletes is overwritten with zeros, not left in free
            # pages: a stored value that is gone from the catalog is gone from the file.
            connection.execute("PRAGMA secure_delete=ON")
            if self._schema_version(connection) == 0:
                # The first process to get here makes the tables; the others find them.
                with _transaction(connection, "BEGIN IMMEDIATE"):
                    if self._schema_version(connection) == 0:
                        for statement in _SCHEMA:
                            connection.execute(statement)
                        connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            connection.close()
            raise
        return connection

    def _upgrade(self, connection: sqlite3.Connection) -> None:
        """From version 1: every manifest in its stored form (idempotent, so two processes
        doing it at once do no harm), then the WAL truncated, so that the bytes of what was
        dropped are in neither file. From version 2: the history table (empty: the history
        starts with the first write after the upgrade). From version 3: the syncs table (empty)."""
        if self._schema_version(connection) < 2:
            with _transaction(connection, "BEGIN IMMEDIATE"):
                connection.execute(_HISTORY)
            if self.manifest_form is not None:
                self.rewrite_manifests(self.manifest_form)
        with _transaction(connection, "BEGIN IMMEDIATE"):
            if self._schema_version(connection) < SCHEMA_VERSION:
                connection.execute(_HISTORY)
                connection.execute(_SYNCS)
                connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def _schema_version(self, connection: sqlite3.Connection) -> int:
        (version,) = connection.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise UnreadableCatalog(
                f"{self.path} has schema version {version}; this service knows {SCHEMA_VERSION}"
            )
        return version

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Every failure of the file or of SQLite as ``StoreUnavailable``, through the
        store's circuit breaker."""
        with self.guard.calling():
            try:
                yield
            except (sqlite3.DatabaseError, OSError) as error:
                raise unavailable(self.path, error) from error

    @contextlib.contextmanager
    def _using(self, begin: str | None = None) -> Iterator[sqlite3.Connection]:
        """A connection of this thread, in a transaction if ``begin`` says which (``_errors``
        spelt out: one context manager less on every read)."""
        with self.guard.calling():
            try:
                connection = self._connection()
                if begin is None:
                    yield connection
                elif begin == _WRITE:
                    try:
                        with _transaction(connection, begin):
                            yield connection
                    finally:
                        self._local.infos = None  # data_version does not count our own writes
                else:
                    with _transaction(connection, begin):
                        yield connection
            except (sqlite3.DatabaseError, OSError) as error:
                raise unavailable(self.path, error) from error

    def ping(self) -> None:
        """A write that changes nothing, on a connection of its own (the readiness check runs
        in a thread of its own each time: a connection of that thread would be left open): a
        file SQLite could open only read-only takes ``BEGIN IMMEDIATE``, not the ``DELETE``."""
        with self._errors():
            connection = self._connect()
            try:
                with _transaction(connection, _WRITE):
                    connection.execute("DELETE FROM clusters WHERE 0")
            finally:
                connection.close()

    def close(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, []
            self._local = threading.local()
        for connection in connections:
            connection.close()

    # --- writes --------------------------------------------------------------------------------

    def _transact(self, cluster: str, decide: Decision) -> Change:
        if isinstance(decide, RecordedDecision):
            # The history is worked out on a snapshot first (WAL: a reader holds no lock that
            # stops a writer), so that the write lock is held only to check and commit.
            with self._using("BEGIN") as connection:
                decide.rehearse(_state(connection, cluster))
        with self._using(_WRITE) as connection:
            change = decide(_state(connection, cluster))
            if change.changed:
                self._write(connection, change)
            return change

    def _write(self, connection: sqlite3.Connection, change: Change) -> None:
        info = change.info
        cluster = info.name
        values = (
            info.uid,
            json.dumps(info.settings.to_json()),
            info.generation,
            info.updated_at,
            json.dumps(info.counts),
            cluster,
        )
        if change.created:
            (existing,) = connection.execute("SELECT count(*) FROM clusters").fetchone()
            self._check_cluster_limit(existing)
            connection.execute(
                "INSERT INTO clusters (uid, settings, generation, updated_at, counts, name) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                values,
            )
        else:
            connection.execute(
                "UPDATE clusters SET uid = ?, settings = ?, generation = ?, updated_at = ?, "
                "counts = ? WHERE name = ?",
                values,
            )
        connection.executemany(
            "DELETE FROM objects WHERE cluster = ? AND kind = ? AND namespace = ? AND name = ?",
            [(cluster, *key) for key in change.deletes],
        )
        connection.executemany(
            "INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (cluster, *item.key, item.manifest, item.document, item.digest)
                for item in change.puts
            ],
        )
        if change.history:
            self._write_history(connection, cluster, change.history)

    def _write_history(
        self, connection: sqlite3.Connection, cluster: str, entries: tuple[HistoryEntry, ...]
    ) -> None:
        """The write's history entries after the cluster's last, the oldest past the bound
        dropped: in the write's transaction."""
        (last,) = connection.execute(
            "SELECT coalesce(max(seq), 0) FROM history WHERE cluster = ?", (cluster,)
        ).fetchone()
        stored = numbered(entries, last)
        connection.executemany(
            "INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)",
            [(cluster, e.seq, e.generation, e.namespace, e.name, e.encoded()) for e in stored],
        )
        connection.execute(
            "DELETE FROM history WHERE cluster = ? AND seq <= ?",
            (cluster, stored[-1].seq - self.history_max_changes),
        )

    def delete_cluster(self, cluster: str, if_match: Condition = None) -> bool:
        check_cluster_name(cluster)
        with self._using(_WRITE) as connection:
            row = connection.execute(
                "SELECT generation FROM clusters WHERE name = ?", (cluster,)
            ).fetchone()
            if row is None:
                return False
            check_precondition(row[0], if_match)
            connection.execute("DELETE FROM objects WHERE cluster = ?", (cluster,))
            connection.execute("DELETE FROM history WHERE cluster = ?", (cluster,))
            connection.execute("DELETE FROM syncs WHERE cluster = ?", (cluster,))
            connection.execute("DELETE FROM clusters WHERE name = ?", (cluster,))
            return True

    def mark_synced(self, cluster: str, at: str) -> None:
        check_cluster_name(cluster)
        with self._using(_WRITE) as connection:
            connection.execute(
                "INSERT INTO syncs (cluster, at) SELECT name, ? FROM clusters WHERE name = ? "
                "ON CONFLICT (cluster) DO UPDATE SET at = excluded.at",
                (at, cluster),
            )

    def sync_times(self) -> dict[str, str]:
        with self._using() as connection:
            rows = connection.execute("SELECT cluster, at FROM syncs").fetchall()
        return dict(rows)

    # --- reads ---------------------------------------------------------------------------------

    def get_info(self, cluster: str) -> ClusterInfo | None:
        """The cluster's info as last committed (the same object while nothing was written)."""
        check_cluster_name(cluster)
        with self._using() as connection:
            # The pragma before the row: a commit between the two leaves a newer info under
            # the older number, read again at the next call; never an older one kept.
            (version,) = connection.execute("PRAGMA data_version").fetchone()
            remembered = self._local.infos
            if remembered is None or remembered[0] != version:
                remembered = self._local.infos = (version, {})
            info = remembered[1].get(cluster)
            if info is None:
                info = _info(connection, cluster)
                if info is not None:  # clusters that exist only: bounded by MAX_CLUSTERS
                    remembered[1][cluster] = info
            return info

    def list_infos(self) -> list[ClusterInfo]:
        with self._using() as connection:
            rows = connection.execute(f"{_INFO} ORDER BY name").fetchall()
        return [_info_of(row) for row in rows]

    def list_generations(self) -> list[Generation]:
        with self._using() as connection:
            rows = connection.execute(
                "SELECT name, uid, generation, syncs.at FROM clusters "
                "LEFT JOIN syncs ON syncs.cluster = clusters.name ORDER BY name"
            ).fetchall()
        return [(name, uid, generation, at) for name, uid, generation, at in rows]

    def read_catalog(self, cluster: str) -> Catalog | None:
        check_cluster_name(cluster)
        with self._using("BEGIN") as connection:
            info = _info(connection, cluster)
            if info is None:
                return None
            rows = connection.execute(
                f"SELECT kind, namespace, name, manifest, document FROM objects "
                f"WHERE cluster = ? {_ORDER}",
                (cluster,),
            ).fetchall()
        with reading(cluster):
            documents = codec.parse_json(codec.join_array(row[4] for row in rows))
            objects = tuple(
                decode_object(row[:3], row[3], document)
                for row, document in zip(rows, documents, strict=True)
            )
        return Catalog(info, objects)

    def history_counts(self) -> dict[str, int]:
        with self._using() as connection:
            rows = connection.execute(
                "SELECT clusters.name, coalesce(max(history.seq), 0) FROM clusters "
                "LEFT JOIN history ON history.cluster = clusters.name GROUP BY clusters.name"
            ).fetchall()
        return {name: seq for name, seq in rows}

    def read_history(self, cluster: str, query: HistoryQuery) -> HistoryPage | None:
        check_cluster_name(cluster)
        conditions: list[str] = ["cluster = ?"]
        values: list[object] = [cluster]
        if query.cursor is not None:
            conditions.append("seq < ?")
            values.append(query.cursor)
        if query.since is not None:
            conditions.append("generation > ?")
            values.append(query.since)
        # A mark (no namespace or name) matches every InferenceService.
        for column, value in (("namespace", query.namespace), ("name", query.name)):
            if value is not None:
                conditions.append(f"({column} = ? OR {column} IS NULL)")
                values.append(value)
        with self._using("BEGIN") as connection:
            info = _info(connection, cluster)
            if info is None:
                return None
            rows = connection.execute(
                f"SELECT entry FROM history WHERE {' AND '.join(conditions)} "
                "ORDER BY seq DESC LIMIT ?",
                (*values, query.limit + 1),
            ).fetchall()
        with reading(cluster):
            entries = [HistoryEntry.decoded(row[0]) for row in rows]
        return page_of(info, entries, query)

    def _read_documents(
        self, cluster: str, known: ClusterInfo | None
    ) -> tuple[ClusterInfo, FetchedDocuments | None] | None:
        with self._using("BEGIN") as connection:
            info = _info(connection, cluster)
            if info is None:
                return None
            if known is not None and (known.uid, known.generation) == (info.uid, info.generation):
                return info, None
            rows = connection.execute(
                f"SELECT digest, document FROM objects WHERE cluster = ? {_ORDER}", (cluster,)
            ).fetchall()

        def load(positions: list[int]) -> list[Document]:
            with reading(cluster):
                return codec.loads_array(codec.join_array(rows[i][1] for i in positions))

        return info, FetchedDocuments([row[0] for row in rows], load)


def unavailable(path: Path, error: sqlite3.DatabaseError | OSError) -> StoreUnavailable:
    """A failure of the file: ``refused`` when the file cannot be used at all (opened, read,
    written); a file locked past the busy timeout is only busy."""
    code = getattr(error, "sqlite_errorname", "")
    if isinstance(error, OSError) or code.startswith(UNUSABLE_FILE):
        reason = (
            (error.strerror or type(error).__name__) if isinstance(error, OSError) else str(error)
        )
        return StoreUnavailable(
            f"catalog store {path}: {error}",
            problem=f"the SQLite file cannot be used: {reason}",
            refused=True,
        )
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        problem = "the SQLite file stayed locked by another writer past the busy timeout"
        return StoreUnavailable(f"catalog store {path}: {error}", problem=problem)
    return StoreUnavailable(f"catalog store {path}: {error}", problem=f"SQLite: {error}")


@contextlib.contextmanager
def _transaction(connection: sqlite3.Connection, begin: str) -> Iterator[None]:
    connection.execute(begin)
    try:
        yield
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
        raise


def _state(connection: sqlite3.Connection, cluster: str) -> ClusterState | None:
    """The state a write decides on, in the connection's transaction."""
    info = _info(connection, cluster)
    if info is None:
        return None
    rows = connection.execute(
        "SELECT kind, namespace, name, digest, length(manifest) + length(document) "
        "FROM objects WHERE cluster = ?",
        (cluster,),
    ).fetchall()
    return ClusterState(
        info,
        {(k, ns, n): digest for k, ns, n, digest, _ in rows},
        {(k, ns, n): size for k, ns, n, _, size in rows},
        lambda keys: _stored_documents(connection, cluster, keys),
    )


def _stored_documents(
    connection: sqlite3.Connection, cluster: str, keys: list[ObjectKey]
) -> list[Document]:
    """The documents of ``keys``, decoded, in the connection's transaction."""
    rows = connection.execute(
        "SELECT kind, namespace, name, document FROM objects WHERE cluster = ?", (cluster,)
    ).fetchall()
    texts = {(kind, namespace, name): text for kind, namespace, name, text in rows}
    with reading(cluster):
        return codec.loads_array(codec.join_array(texts[key] for key in keys))


def _info(connection: sqlite3.Connection, cluster: str) -> ClusterInfo | None:
    row = connection.execute(f"{_INFO} WHERE name = ?", (cluster,)).fetchone()
    return None if row is None else _info_of(row)


def _info_of(row: tuple) -> ClusterInfo:
    with reading(row[0]):
        return info_of(*row)
