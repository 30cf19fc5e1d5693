"""The SQLite store: one file shared by processes, durable, and unavailable rather than wrong."""

from __future__ import annotations

import multiprocessing
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.store import ClusterSettings, PreconditionFailed, StoreUnavailable, UnreadableCatalog
from app.store.sqlite import SCHEMA_VERSION, SqliteCatalogStore
from tests.paths import ROOT
from tests.store.objects import catalog, runtime

# Writes catalogs, prints each generation once the write returned, then dies without any
# clean-up, as a worker killed by the OOM killer would.
WRITER = """
import os, signal, sys
from app.store import ClusterSettings
from app.store.sqlite import SCHEMA_VERSION, SqliteCatalogStore
from tests.store.objects import catalog
store = SqliteCatalogStore(sys.argv[1])
store.put_settings("prod", ClusterSettings(description="written"))
for n in range(4):
    print(store.replace_objects("prod", catalog(f"c{n}", 40)).generation, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "var" / "state" / "catalogs.sqlite3"


@pytest.fixture
def store(path: Path):
    store = SqliteCatalogStore(path)
    yield store
    store.close()


def test_every_acknowledged_write_survives_a_killed_process(path: Path, store):
    writer = subprocess.run(
        [sys.executable, "-c", WRITER, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert writer.returncode == -signal.SIGKILL, writer.stderr
    generations = [int(line) for line in writer.stdout.split()]
    assert generations == [2, 3, 4, 5]
    stored = store.read_catalog("prod")
    assert stored.info.generation == 5
    assert stored.info.settings.description == "written"
    assert [item.name for item in stored.objects] == [item.name for item in catalog("c3", 40)]


def test_the_file_and_its_directory_are_made_in_wal_mode(path: Path, store):
    store.ping()
    assert path.is_file()
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def _race(store: SqliteCatalogStore, generation: int, name: str, barrier, results) -> None:
    barrier.wait()
    try:
        info = store.replace_objects("prod", [runtime(name)], if_match=generation)
        results.put((name, info.generation))
    except PreconditionFailed as error:
        results.put((name, -error.current_generation))


def test_writers_in_two_processes_one_wins(store):
    """Forked workers share the parent's store object; each must open its own connection,
    even while the parent is inside a read transaction on its own."""
    store.put_settings("prod", ClusterSettings())
    context = multiprocessing.get_context("fork")
    for round_number in range(3):
        generation = store.get_info("prod").generation
        barrier, results = context.Barrier(2), context.Queue()
        parent = store._connection()
        parent.execute("BEGIN")
        parent.execute("SELECT count(*) FROM objects").fetchone()
        try:
            workers = [
                context.Process(
                    target=_race,
                    args=(store, generation, f"{name}-{round_number}", barrier, results),
                )
                for name in ("one", "two")
            ]
            for worker in workers:
                worker.start()
            outcomes = dict(results.get(timeout=30) for _ in workers)
            for worker in workers:
                worker.join(timeout=30)
                assert worker.exitcode == 0
        finally:
            parent.execute("COMMIT")
        assert sorted(outcomes.values()) == [-(generation + 1), generation + 1], outcomes
        [winner] = [name for name, outcome in outcomes.items() if outcome > 0]
        assert [item.name for item in store.read_catalog("prod").objects] == [winner]


def test_a_busy_file_is_unavailable_after_the_busy_timeout_and_reads_go_on(path: Path):
    store = SqliteCatalogStore(path, busy_timeout=0.2)
    try:
        store.put_settings("prod", ClusterSettings())
        store.replace_objects("prod", [runtime("a")])
        with sqlite3.connect(path, isolation_level=None) as other:
            other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            # Refused while the lock is still held: not waiting for it to go, but for SQLite's
            # busy timeout, which is the store's.
            with pytest.raises(StoreUnavailable, match="locked"):
                store.apply_objects("prod", [runtime("b")])
            assert store._connection().execute("PRAGMA busy_timeout").fetchone() == (200,)
            assert [item.name for item in store.read_catalog("prod").objects] == ["a"]
            # A process that opens the file meanwhile reads it too (it waits for no lock).
            opened = SqliteCatalogStore(path, busy_timeout=0.2)
            assert opened.get_info("prod").generation == 2
            opened.close()
            other.execute("ROLLBACK")
        assert store.apply_objects("prod", [runtime("b")]).generation == 3
    finally:
        store.close()


@pytest.mark.parametrize("where", ["parent is a file", "path is a directory"])
def test_a_file_that_cannot_be_opened_is_unavailable(tmp_path: Path, where: str):
    (tmp_path / "file").write_text("")
    (tmp_path / "directory").mkdir()
    path = tmp_path / ("file/catalogs.sqlite3" if where == "parent is a file" else "directory")
    store = SqliteCatalogStore(path)
    for call in (store.ping, lambda: store.get_info("prod"), store.list_infos):
        with pytest.raises(StoreUnavailable):
            call()
    with pytest.raises(StoreUnavailable):
        store.put_settings("prod", ClusterSettings())
    store.close()


def test_a_newer_schema_or_a_damaged_row_is_unreadable(path: Path, store):
    store.put_settings("prod", ClusterSettings())
    store.replace_objects("prod", [runtime("a")])
    with sqlite3.connect(path) as connection:
        connection.execute("""UPDATE objects SET document = '[4,"R"]'""")
    for read in (store.read_documents, store.read_catalog):
        with pytest.raises(UnreadableCatalog, match="codec version 4"):
            read("prod")
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE clusters SET counts = 'nope'")
    with pytest.raises(UnreadableCatalog):
        store.get_info("prod")
    with sqlite3.connect(path) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    newer = SqliteCatalogStore(path)
    with pytest.raises(UnreadableCatalog, match=f"schema version {SCHEMA_VERSION + 1}"):
        newer.list_infos()
    newer.close()


def test_close_then_use_again(store):
    store.put_settings("prod", ClusterSettings())
    store.close()
    assert store.get_info("prod").generation == 1


# Writes one cluster's objects once in a process of its own: another worker of the service.
OTHER_PROCESS_WRITE = """
import sys
import threading
from app.store.sqlite import SqliteCatalogStore
from tests.store.objects import runtime
store = SqliteCatalogStore(sys.argv[1])
print(store.apply_objects("prod", [runtime(sys.argv[2])]).generation, flush=True)
store.close()
"""


def _write_in_another_process(path: Path, name: str) -> int:
    written = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS_WRITE, str(path), name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert written.returncode == 0, written.stderr
    return int(written.stdout)


def test_the_info_is_read_again_only_after_a_write_anywhere(path: Path, store):
    """The cluster's info is remembered while ``PRAGMA data_version`` stays (no commit by any
    other connection) and forgotten by this connection's own writes: every write is seen by the
    next read, whichever process, thread or store made it."""
    store.put_settings("prod", ClusterSettings())
    first = store.get_info("prod")
    assert store.get_info("prod") is first  # nothing written since: not read again

    # A write by this very connection, which data_version does not count.
    store.apply_objects("prod", [runtime("a")])
    assert store.get_info("prod").generation == first.generation + 1

    # A write by another process.
    generation = _write_in_another_process(path, "b")
    assert store.get_info("prod").generation == generation

    # A write by another thread of this process (its own connection).
    writer = threading.Thread(target=store.apply_objects, args=("prod", [runtime("c")]))
    writer.start()
    writer.join()
    assert store.get_info("prod").generation == generation + 1

    # Deleted and created again elsewhere: gone at once, then a new incarnation.
    other = SqliteCatalogStore(path)
    try:
        uid = store.get_info("prod").uid
        other.delete_cluster("prod")
        assert store.get_info("prod") is None
        other.put_settings("prod", ClusterSettings())
        again = store.get_info("prod")
        assert (again.generation, again.uid != uid) == (1, True)
    finally:
        other.close()


def test_an_unknown_cluster_is_not_remembered(store):
    """Only clusters that exist are remembered (at most MAX_CLUSTERS of them): asking for any
    number of unknown names costs no memory, and one created meanwhile is found."""
    for n in range(50):
        assert store.get_info(f"missing-{n}") is None
    assert store._local.infos[1] == {}
    store.put_settings("missing-0", ClusterSettings())
    assert store.get_info("missing-0").generation == 1
