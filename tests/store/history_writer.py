"""A process that writes one cluster's catalog in a loop and kills itself (SIGKILL) at a random
point of a write, for the crash tests of the selection history (rules §17.1):
``python -m tests.store.history_writer <seed> sqlite <path>`` or ``… <seed> redis <url> <prefix>``.

Writes alternate between two catalogs that move every InferenceService, so every write after
the first records exactly ``SERVICES`` changes. After a few writes, the kill is armed at a point
drawn uniformly over one write's work: on SQLite, after a number of SQLite's VM steps (a
progress handler: the kill lands inside statements, between them, between transactions); on
Redis, after a share of one write's time."""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
import time

from app.store import ClusterSettings
from app.store.base import CatalogStore
from app.store.redis import RedisCatalogStore
from app.store.sqlite import SqliteCatalogStore
from tests.store.history_support import HISTORY, fleet_step

CLUSTER = "crash"
SERVICES = 60
STEPS = 50  # SQLite VM instructions between two calls of the progress handler


def catalog(generation: int):
    """The catalog a write makes: each one moves every InferenceService (``SERVICES`` in both)."""
    return fleet_step(generation % 2, services=SERVICES - generation % 2)


def write(store: CatalogStore) -> None:
    info = store.get_info(CLUSTER)
    assert info is not None
    store.replace_objects(CLUSTER, catalog(info.generation + 1))


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm_sqlite(store: SqliteCatalogStore, chance: random.Random) -> None:
    """Count one write's progress calls, then die after a random number of them."""
    connection = store._connection()  # this thread's, which the writes use
    calls = 0

    def count() -> int:
        nonlocal calls
        calls += 1
        return 0

    connection.set_progress_handler(count, STEPS)
    write(store)
    left = chance.randint(1, max(calls, 1))

    def countdown() -> int:
        nonlocal left
        left -= 1
        if left <= 0:
            die()
        return 0

    connection.set_progress_handler(countdown, STEPS)


def arm_timer(store: CatalogStore, chance: random.Random) -> None:
    started = time.perf_counter()
    write(store)
    took = time.perf_counter() - started
    threading.Timer(chance.uniform(0, took), die).start()


def main(arguments: list[str]) -> None:
    chance = random.Random(int(arguments[0]))
    store: CatalogStore
    if arguments[1] == "sqlite":
        store = SqliteCatalogStore(arguments[2], history=HISTORY)
    else:
        store = RedisCatalogStore.from_url(arguments[2], prefix=arguments[3], history=HISTORY)
    if store.get_info(CLUSTER) is None:
        store.put_settings(CLUSTER, ClusterSettings())
    for _ in range(chance.randint(0, 3)):
        write(store)
    if isinstance(store, SqliteCatalogStore):
        arm_sqlite(store, chance)
    else:
        arm_timer(store, chance)
    for _ in range(100):
        write(store)


if __name__ == "__main__":
    main(sys.argv[1:])
