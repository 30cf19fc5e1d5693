"""docker-compose.yml, Dockerfile and .dockerignore, checked by reading them (no Docker here)."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.paths import ROOT


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")


def test_two_services(compose):
    assert set(compose["services"]) == {"redis", "ome-ranker"}


def test_redis_has_a_healthcheck_and_keeps_catalogs(compose):
    redis = compose["services"]["redis"]
    assert redis["image"].startswith("redis:")
    check = redis["healthcheck"]
    assert check["test"][0] in ("CMD", "CMD-SHELL")
    assert "redis-cli ping" in " ".join(check["test"][1:])
    assert {"interval", "timeout", "retries"} <= set(check)
    command = redis["command"]
    # SPEC §17: catalogs survive a restart (AOF) and are never evicted (only keys with a TTL).
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "volatile-lru"
    assert command[command.index("--dir") + 1] == "/data"
    assert any(volume.endswith(":/data") for volume in redis["volumes"])


def test_the_service_waits_for_a_healthy_redis(compose):
    service = compose["services"]["ome-ranker"]
    assert service["depends_on"] == {"redis": {"condition": "service_healthy"}}


def test_the_service_is_built_here_and_published(compose):
    service = compose["services"]["ome-ranker"]
    assert service["build"] == "."
    assert service["image"]
    assert any(str(port).endswith(":8080") for port in service["ports"])
    assert "/readyz" in " ".join(service["healthcheck"]["test"])


def test_the_service_environment(compose):
    environment = compose["services"]["ome-ranker"]["environment"]
    assert environment["REDIS_URL"].startswith("redis://redis:6379/")
    assert environment["OME_RANKER_BIND"] == "0.0.0.0:8080"


def test_stopping_leaves_time_for_a_graceful_shutdown(compose):
    grace = compose["services"]["ome-ranker"]["stop_grace_period"]
    assert int(grace.rstrip("s")) > 20  # OME_RANKER_GRACEFUL_TIMEOUT's default


def test_every_variable_set_is_documented(compose, dockerfile):
    settings = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", settings, flags=re.MULTILINE))
    used = set(compose["services"]["ome-ranker"]["environment"])
    used |= set(re.findall(r"\b(OME_RANKER_[A-Z_]+)=", dockerfile))
    assert used <= documented


def test_the_image_is_small_and_runs_as_a_user(dockerfile):
    stages = re.findall(r"^FROM (\S+)", dockerfile, flags=re.MULTILINE)
    assert stages and all(stage == "python:3.11-slim" for stage in stages)
    assert "--no-cache-dir" in dockerfile
    assert "requirements-dev" not in dockerfile
    (user,) = re.findall(r"^USER (\S+)", dockerfile, flags=re.MULTILINE)
    assert user.split(":")[0] not in ("root", "0")
    assert "OME_RANKER_BIND=0.0.0.0:8080" in dockerfile
    assert re.search(r"^EXPOSE 8080$", dockerfile, flags=re.MULTILINE)
    assert re.search(r'^CMD \["gunicorn", "--config", "config/gunicorn.conf.py"', dockerfile, re.M)


def test_the_build_context_holds_only_what_runs():
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    rules = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert rules[0] == "*"  # everything excluded, then the few paths let through
    allowed = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    assert allowed == {"app", "config", "migrations", "requirements.txt", "pyproject.toml"}
