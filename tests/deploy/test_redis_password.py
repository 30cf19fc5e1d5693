"""The in-cluster Redis run as the rendered StatefulSet runs it: its init container writes the ACL
file from the password, redis-server starts with the rendered flags and refuses every client
without the password, the readiness probe passes with it, and the REDIS_URL that the Deployment
and the migrations Job build from the same Secret, expanded as the kubelet expands it, gets in.
Only the paths of the pod's volumes and Redis's port are the test's own."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import redis

from tests.deploy.support import (
    IN_CLUSTER_REDIS,
    REDIS_PASSWORD_REF,
    one,
    pod_template,
    render,
    service_deployment,
)
from tests.servers import REDIS_SERVER, free_port, require_redis_server
from tests.waiting import wait_for

PASSWORD = "0123456789abcdef" * 4  # as `openssl rand -hex 32` makes one
REDIS_CLI = "/usr/bin/redis-cli"


def kubelet_environment(item: dict) -> dict[str, str]:
    """The container's variables as the kubelet sets them: the Redis password from its Secret,
    and $(NAME) expanded only for a NAME listed earlier ($$ is a literal $)."""
    values: dict[str, str] = {}
    for variable in item.get("env", []):
        if "valueFrom" in variable:
            values[variable["name"]] = (
                PASSWORD if variable["valueFrom"] == REDIS_PASSWORD_REF else "another-secret"
            )
            continue
        values[variable["name"]] = re.sub(
            r"\$\$|\$\((\w+)\)",
            lambda match: "$" if match[0] == "$$" else values.get(match[1], match[0]),
            variable["value"],
        )
    return values


@dataclass
class RenderedRedis:
    overlay: str
    port: int
    server: dict  # the rendered redis container
    volumes: dict[str, Path]  # the volumes' mount paths, here


def _here(text: str, volumes: dict[str, Path]) -> str:
    for mount_path, local in volumes.items():
        text = text.replace(mount_path, str(local))
    return text


def _wait_for(port: int, process: subprocess.Popen) -> None:
    def listening() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server did not start: {process.args}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            return False
        return True

    wait_for(listening, f"redis-server on port {port} accepts connections")


@pytest.fixture(params=IN_CLUSTER_REDIS)
def in_cluster_redis(request, tmp_path) -> Iterator[RenderedRedis]:
    require_redis_server()
    pod = pod_template(one(render(f"overlays/{request.param}"), "StatefulSet"))["spec"]
    (init,) = pod["initContainers"]
    (server,) = pod["containers"]
    volumes = {
        mount["mountPath"]: tmp_path / mount["name"]
        for item in (init, server)
        for mount in item["volumeMounts"]
    }
    for directory in volumes.values():
        directory.mkdir(exist_ok=True)
    *shell, script = init["command"]
    done = subprocess.run(
        [*shell, _here(script, volumes)],
        env={"PATH": os.environ["PATH"], **kubelet_environment(init)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not any(  # only its hash is written down
        PASSWORD in path.read_text(encoding="utf-8")
        for directory in volumes.values()
        for path in directory.iterdir()
    )
    assert server["args"][0] == "redis-server" and "command" not in server
    port = free_port()
    process = subprocess.Popen(
        [
            REDIS_SERVER,
            *(_here(arg, volumes) for arg in server["args"][1:]),
            *("--port", str(port), "--bind", "127.0.0.1"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(port, process)
        yield RenderedRedis(request.param, port, server, volumes)
    finally:
        process.kill()
        process.wait()


def test_redis_refuses_a_client_without_the_password(in_cluster_redis):
    for password in (None, "not-" + PASSWORD):
        client = redis.Redis(port=in_cluster_redis.port, password=password, socket_timeout=5)
        with pytest.raises(redis.AuthenticationError):
            client.ping()
        client.close()
    client = redis.Redis(port=in_cluster_redis.port, password=PASSWORD, socket_timeout=5)
    assert client.ping()
    client.close()


def test_the_readiness_probe_passes_with_the_password_only(in_cluster_redis, tmp_path):
    # The probe's redis-cli, pointed at this Redis's port.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    cli = bin_dir / "redis-cli"
    cli.write_text(
        f'#!/bin/sh\nexec {REDIS_CLI} -p {in_cluster_redis.port} "$@"\n', encoding="utf-8"
    )
    cli.chmod(0o755)
    probe = in_cluster_redis.server["readinessProbe"]["exec"]["command"]
    environment = kubelet_environment(in_cluster_redis.server)
    assert environment["REDISCLI_AUTH"] == PASSWORD
    path = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    for env, ready in ((environment, True), ({}, False)):
        done = subprocess.run(probe, env={**path, **env}, capture_output=True, timeout=30)
        assert (done.returncode == 0) is ready, (env, done.stdout, done.stderr)


def test_the_service_and_its_migrations_get_in_with_their_url(in_cluster_redis):
    _, _, server = service_deployment(render(f"overlays/{in_cluster_redis.overlay}"))
    job = one(render(f"migrate/{in_cluster_redis.overlay}"), "Job")
    (migrate,) = pod_template(job)["spec"]["containers"]
    for item in (server, migrate):
        url = kubelet_environment(item)["REDIS_URL"]
        parts = urlsplit(url)
        assert parts.password == PASSWORD, item["name"]
        here = url.replace(
            f"@{parts.hostname}:{parts.port}/", f"@127.0.0.1:{in_cluster_redis.port}/"
        )
        client = redis.Redis.from_url(here, socket_timeout=5)
        assert client.ping(), item["name"]
        client.close()
