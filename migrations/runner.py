"""Find the migrations of this package, and apply the pending ones once each, in order.

Applied migrations are recorded in the hash ``<prefix>migrations`` (id -> when and what it did),
so each environment sharing a Redis under its own prefix has its own record. A lock key keeps two
runners (two pods starting at once) from working side by side.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

from redis.exceptions import LockError

from app.cache.keys import MIGRATIONS_KEY, MIGRATIONS_LOCK_KEY
from migrations.entries import RedisClient

MIGRATION_FILE = re.compile(r"(?P<id>\d{4}_[a-z0-9_]+)\.py\Z")
# Long enough for a SCAN of a large database; a crashed runner's lock expires by itself.
LOCK_SECONDS = 900


class MigrationsLocked(RuntimeError):
    """Another runner holds the lock."""


@dataclass(frozen=True)
class Migration:
    id: str  # "0001_purge_older_rules"
    summary: str  # first line of the module docstring
    migrate: Callable[[RedisClient, str], str]


def discover(package: str = __package__) -> list[Migration]:
    """The migrations in ``package``, in number order; two with one number is an error."""
    module = importlib.import_module(package)
    # A package of migration modules is a directory with an __init__.py: it has a __file__.
    directory = Path(cast(str, module.__file__)).parent
    found = sorted(
        match["id"] for path in directory.iterdir() if (match := MIGRATION_FILE.match(path.name))
    )
    numbers = [identifier[:4] for identifier in found]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"two migrations share a number: {found}")
    migrations = []
    for identifier in found:
        migration = importlib.import_module(f"{package}.{identifier}")
        summary = (migration.__doc__ or identifier).strip().splitlines()[0]
        migrations.append(Migration(identifier, summary, migration.migrate))
    return migrations


def applied(client: RedisClient, prefix: str) -> dict[str, dict]:
    """Recorded migrations: id -> {"appliedAt", "result"}."""
    # No client here decodes responses, so the hash's fields are bytes (redis-py's types
    # allow str too, for clients made with decode_responses=True).
    record = cast("dict[bytes, bytes]", client.hgetall(f"{prefix}{MIGRATIONS_KEY}"))
    return {key.decode(): json.loads(value) for key, value in record.items()}


def apply_pending(
    client: RedisClient, prefix: str, migrations: list[Migration] | None = None
) -> list[tuple[str, str]]:
    """Apply what is not recorded yet, recording each as soon as it is done, so a failure
    halfway leaves the earlier ones recorded; returns ``[(id, result)]``."""
    migrations = discover() if migrations is None else migrations
    lock = client.lock(f"{prefix}{MIGRATIONS_LOCK_KEY}", timeout=LOCK_SECONDS, blocking=False)
    if not lock.acquire():
        raise MigrationsLocked(f"{prefix}{MIGRATIONS_LOCK_KEY} is held by another runner")
    try:
        done = applied(client, prefix)
        results = []
        for migration in migrations:
            if migration.id in done:
                continue
            result = migration.migrate(client, prefix)
            record = {
                "appliedAt": datetime.now(UTC).isoformat(timespec="seconds"),
                "result": result,
            }
            client.hset(f"{prefix}{MIGRATIONS_KEY}", migration.id, json.dumps(record))
            results.append((migration.id, result))
        return results
    finally:
        with contextlib.suppress(LockError):  # it expired meanwhile: nothing of ours to release
            lock.release()
