"""``python -m migrations [--status]``: apply the pending Redis data migrations.

Reads the service's own settings (``REDIS_URL``, ``OME_RANKER_REDIS_CLUSTER``,
``OME_RANKER_CACHE_PREFIX``). Exit status: 0 done, 1 Redis failed or another runner holds the
lock, 2 bad settings.
"""

from __future__ import annotations

import argparse
import sys

import redis
from redis.cluster import RedisCluster

from config.redaction import redact_urls
from config.settings import Config, SettingsError
from migrations.runner import MigrationsLocked, applied, apply_pending, discover

# Not the request path's 50 ms: a migration may wait for a busy server.
TIMEOUT_SECONDS = 5.0
REDIS_FAILURES = (redis.exceptions.RedisError, redis.exceptions.RedisClusterException)


def _client(url: str, cluster: bool) -> redis.Redis | RedisCluster:
    options = {"socket_connect_timeout": TIMEOUT_SECONDS, "socket_timeout": TIMEOUT_SECONDS}
    if cluster:
        return RedisCluster.from_url(url, **options)
    return redis.Redis.from_url(url, **options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m migrations", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--status", action="store_true", help="list migrations, apply nothing")
    arguments = parser.parse_args(argv)
    try:
        config = Config()
    except SettingsError as error:
        print(f"migrations: {error}", file=sys.stderr)
        return 2
    if not config.REDIS_URL:
        print(
            "migrations: REDIS_URL is not set; the in-process cache has no data to migrate",
            file=sys.stderr,
        )
        return 2
    prefix = config.CACHE_PREFIX
    try:
        client = _client(config.REDIS_URL, config.REDIS_CLUSTER)
    except REDIS_FAILURES as error:  # RedisCluster connects when it is built
        print(f"migrations: cannot reach Redis: {redact_urls(str(error))}", file=sys.stderr)
        return 1
    try:
        if arguments.status:
            done = applied(client, prefix)
            for migration in discover():
                record = done.get(migration.id)
                state = (
                    f"applied {record['appliedAt']}: {record['result']}" if record else "pending"
                )
                print(f"{migration.id}  {state}  ({migration.summary})")
            return 0
        results = apply_pending(client, prefix)
        for identifier, result in results:
            print(f"{identifier}: {result}")
        if not results:
            print("migrations: nothing to apply")
        return 0
    except MigrationsLocked as error:
        print(f"migrations: {error}", file=sys.stderr)
        return 1
    except REDIS_FAILURES as error:
        print(f"migrations: Redis failed: {redact_urls(str(error))}", file=sys.stderr)
        return 1
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
