"""The Redis data migrations and their runner, against the tests' real Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.cache.keys import MIGRATIONS_KEY, MIGRATIONS_LOCK_KEY
from app.selection import RULES_VERSION
from migrations.__main__ import main
from migrations.entries import glob_escape, unlink_entries
from migrations.runner import Migration, MigrationsLocked, applied, apply_pending, discover
from tests.paths import ROOT
from tests.servers import free_port

DIGEST = "ab" * 32


def _entry(prefix: str, space: str, rules: int, n: int = 0) -> str:
    return f"{prefix}{space}:v{rules}:{n:064x}"


def test_discover_finds_the_numbered_migrations_in_order():
    found = discover()
    assert [m.id for m in found][:1] == ["0001_purge_older_rules"]
    assert [m.id for m in found] == sorted(m.id for m in found)
    assert all(m.summary and callable(m.migrate) for m in found)


def test_0001_unlinks_only_entries_of_older_rules(redis_client, redis_prefix):
    older = [_entry(redis_prefix, "rank", RULES_VERSION - 1), _entry(redis_prefix, "req", 0, 1)]
    kept = [
        _entry(redis_prefix, "rank", RULES_VERSION),
        _entry(redis_prefix, "req", RULES_VERSION),
        _entry(redis_prefix, "rank", RULES_VERSION + 1),  # a newer release is rolling out
        f"{redis_prefix}rank:v0:not-a-digest",
        f"{redis_prefix}neighbour:rank:v0:{DIGEST}",
    ]
    for key in older + kept:
        redis_client.set(key, b"x")

    # 0001 and 0002 (the purge of the bump to rules v2) run the same helper: the first unlinks.
    results = dict(apply_pending(redis_client, redis_prefix))
    identifier = "0001_purge_older_rules"
    purges = [name for name in results if "purge" in name]
    assert purges[0] == identifier
    # One purge a bump of the rules, in the order of the bumps (numbered among the others).
    bumps = [name.partition("_purge_rules_before_v")[2] for name in purges[1:]]
    assert bumps == [str(v) for v in range(2, RULES_VERSION + 1)]
    result = results[identifier]
    assert result == f"unlinked 2 entries of rules before v{RULES_VERSION}"
    assert all(results[name].startswith("unlinked 0 ") for name in purges[1:])
    assert redis_client.exists(*older) == 0
    assert redis_client.exists(*kept) == len(kept)
    record = applied(redis_client, redis_prefix)[identifier]
    assert record["result"] == result and record["appliedAt"]


def test_applied_migrations_do_not_run_again(redis_client, redis_prefix):
    apply_pending(redis_client, redis_prefix)
    key = _entry(redis_prefix, "rank", 0)
    redis_client.set(key, b"x")
    assert apply_pending(redis_client, redis_prefix) == []
    assert redis_client.exists(key) == 1


def test_a_migration_is_idempotent(redis_client, redis_prefix):
    [migration] = [m for m in discover() if m.id == "0001_purge_older_rules"]
    for n in range(1200):  # more than one UNLINK batch
        redis_client.set(_entry(redis_prefix, "req", 0, n), b"x")
    assert migration.migrate(redis_client, redis_prefix).startswith("unlinked 1200 ")
    assert migration.migrate(redis_client, redis_prefix).startswith("unlinked 0 ")


def test_a_failed_migration_is_not_recorded_but_earlier_ones_are(redis_client, redis_prefix):
    def broken(client, prefix):
        raise RuntimeError("halfway")

    steps = [
        Migration("0001_fine", "fine", lambda client, prefix: "done"),
        Migration("0002_broken", "broken", broken),
    ]
    with pytest.raises(RuntimeError, match="halfway"):
        apply_pending(redis_client, redis_prefix, steps)
    assert list(applied(redis_client, redis_prefix)) == ["0001_fine"]
    assert redis_client.exists(f"{redis_prefix}{MIGRATIONS_LOCK_KEY}") == 0  # released


def test_one_runner_at_a_time(redis_client, redis_prefix):
    redis_client.set(f"{redis_prefix}{MIGRATIONS_LOCK_KEY}", b"someone", ex=60)
    with pytest.raises(MigrationsLocked):
        apply_pending(redis_client, redis_prefix)
    assert redis_client.exists(f"{redis_prefix}{MIGRATIONS_KEY}") == 0


def test_prefixes_with_glob_characters_are_literal(redis_client, redis_prefix):
    prefix = f"{redis_prefix}[a-z]*?\\:"
    mine, lookalike = _entry(prefix, "rank", 0), _entry(f"{redis_prefix}a:", "rank", 0)
    redis_client.set(mine, b"x")
    redis_client.set(lookalike, b"x")
    assert unlink_entries(redis_client, prefix, lambda space, rules: True) == 1
    assert redis_client.exists(lookalike) == 1
    assert glob_escape("a*b?[c]\\") == "a\\*b\\?\\[c\\]\\\\"


def _main(monkeypatch, capsys, *arguments: str, **environment: str):
    for name in ("REDIS_URL", "OME_RANKER_REDIS_CLUSTER", "OME_RANKER_CACHE_PREFIX"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    status = main(list(arguments))
    out, err = capsys.readouterr()
    return status, out, err


def test_command_line(monkeypatch, capsys, redis_url, redis_prefix, redis_client):
    settings = {"REDIS_URL": redis_url, "OME_RANKER_CACHE_PREFIX": redis_prefix}
    status, out, _ = _main(monkeypatch, capsys, "--status", **settings)
    assert status == 0
    assert "0001_purge_older_rules  pending" in out
    redis_client.set(_entry(redis_prefix, "rank", 0), b"x")
    status, out, _ = _main(monkeypatch, capsys, **settings)
    assert status == 0
    assert "0001_purge_older_rules: unlinked 1 entries" in out
    assert "nothing to apply" in _main(monkeypatch, capsys, **settings)[1]
    assert (
        "0001_purge_older_rules  applied" in _main(monkeypatch, capsys, "--status", **settings)[1]
    )
    assert json.loads(
        redis_client.hget(f"{redis_prefix}{MIGRATIONS_KEY}", "0001_purge_older_rules")
    )

    redis_client.set(f"{redis_prefix}{MIGRATIONS_LOCK_KEY}", b"someone", ex=60)
    status, _, err = _main(monkeypatch, capsys, **settings)
    assert status == 1 and "held by another runner" in err


def test_command_line_without_a_usable_redis(monkeypatch, capsys):
    status, _, err = _main(monkeypatch, capsys)
    assert status == 2 and "REDIS_URL is not set" in err
    status, _, err = _main(monkeypatch, capsys, REDIS_URL="http://example.invalid/")
    assert status == 2 and "REDIS_URL must be a URL" in err
    dead = f"redis://127.0.0.1:{free_port()}/0"
    status, _, err = _main(monkeypatch, capsys, REDIS_URL=dead)
    assert status == 1 and "Redis failed" in err
    status, _, err = _main(monkeypatch, capsys, REDIS_URL=dead, OME_RANKER_REDIS_CLUSTER="true")
    assert status == 1 and "cannot reach Redis" in err


def test_python_dash_m_migrations(redis_url, redis_prefix):
    environment = {**os.environ, "REDIS_URL": redis_url, "OME_RANKER_CACHE_PREFIX": redis_prefix}
    result = subprocess.run(
        [sys.executable, "-m", "migrations", "--status"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "0001_purge_older_rules  pending" in result.stdout


def test_two_migrations_with_one_number_are_refused(tmp_path, monkeypatch):
    package = tmp_path / "clashing_migrations"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("0001_one.py", "0001_other.py"):
        (package / name).write_text("def migrate(client, prefix):\n    return ''\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuntimeError, match="share a number"):
        discover("clashing_migrations")
