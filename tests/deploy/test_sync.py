"""The sync CronJob's push, run as the rendered Job runs it, against a real service: recorded
``kubectl get … -A -o yaml`` output is stored, a second run changes nothing, a write that lands
between the job's read and its write makes the job fail (412, exit 1), and a service that is
down fails it too (exit 3). Only kubectl's own step is not run (there is no cluster here)."""

from __future__ import annotations

import http.client
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import MARKER, dump, token_file
from tests.deploy.support import KUBE, kustomize
from tests.paths import ROOT
from tests.servers import Forwarded, Proxy, free_port

RECORDED = ROOT / "tests" / "fixtures" / "kubectl_get_seed_cluster.yaml"
SECRETS = {"admin": "admin-secret-0123", "sync": "sync-secret-0123"}


def _push_container() -> tuple[list[str], dict[str, str]]:
    """The push container's command with the environment the kubelet would give it."""
    rendered = kustomize(KUBE / "examples" / "sync-prod-east")
    config = next(o for o in rendered if o["kind"] == "ConfigMap" and "cluster" in o["data"])
    cron = next(o for o in rendered if o["kind"] == "CronJob")
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (push,) = [c for c in pod["containers"] if c["name"] == "push"]
    environment = {}
    for variable in push["env"]:
        source = variable.get("valueFrom", {})
        if "configMapKeyRef" in source:
            assert source["configMapKeyRef"]["name"] == config["metadata"]["name"]
            environment[variable["name"]] = config["data"][source["configMapKeyRef"]["key"]]
        elif "secretKeyRef" in source:
            assert source["secretKeyRef"] == {"name": "ome-ranker-sync", "key": "token"}
            environment[variable["name"]] = SECRETS["sync"]
        else:
            environment[variable["name"]] = variable["value"]
    command = [
        re.sub(r"\$\((\w+)\)", lambda m: environment[m[1]], part) for part in push["command"]
    ]
    return command, environment


def _run_job(command: list[str], environment: dict[str, str], work: Path, server: str):
    """The push as the Job runs it: the recorded objects where kubectl leaves them. The service
    here speaks plain HTTP, so the example's CA bundle (a mounted file) is left out; the CLI's
    own tests verify a server against ``--ca-file``."""
    assert command[0] == "ome-ranker"
    environment = {k: v for k, v in environment.items() if k != "OME_RANKER_CA_FILE"}
    argv = [
        sys.executable,
        "-m",
        "app.cli",
        *(a.replace("/work/", f"{work}/") for a in command[1:]),
    ]
    env = {"PATH": "/usr/bin:/bin", **environment, "OME_RANKER_SERVER": server}
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def write_in_between(upstream: int):
    """What a proxy to the service does just before it forwards the job's PUT: another writer
    changes the catalog (the race a sync must not lose silently)."""

    def write(request: Forwarded) -> None:
        if request.method == "PUT" and request.path.endswith("/objects"):
            other = {
                "apiVersion": "ome.io/v1beta1",
                "kind": "ClusterServingRuntime",
                "metadata": {"name": "written-meanwhile"},
                "spec": {"disabled": True},
            }
            body = json.dumps(other).encode()
            assert _request(upstream, "POST", request.path, body, "admin")[0] == 200

    return write


def _request(port: int, method: str, path: str, body: bytes | None, who: str):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {SECRETS[who]}", "Content-Type": "application/json"}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data) if data else None


@pytest.fixture
def service(start_service, tmp_path):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is needed to render the CronJob")
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": SECRETS["admin"], "write": ["*"]},
        {"name": "sync-prod-east", "secret": SECRETS["sync"], "write": ["prod-east"]},
    )
    return start_service(
        OME_RANKER_TOKENS_FILE=tokens,
        OME_RANKER_STORE_PATH=str(tmp_path / "catalogs.sqlite3"),
    )


@pytest.fixture
def work(tmp_path) -> Path:
    directory = tmp_path / "work"
    directory.mkdir()
    shutil.copy(RECORDED, directory / "objects.yaml")
    return directory


def test_the_job_pushes_what_kubectl_printed_and_a_rerun_changes_nothing(service, work):
    command, environment = _push_container()
    assert environment["OME_RANKER_CLUSTER"] == "prod-east"
    assert _request(service.port, "PUT", "/v1/clusters/prod-east", b"{}", "admin")[0] == 201
    url = f"http://127.0.0.1:{service.port}"
    done = _run_job(command, environment, work, url)
    assert done.returncode == 0, done.stderr
    status, info = _request(service.port, "GET", "/v1/clusters/prod-east", None, "sync")
    assert (status, sum(info["counts"].values())) == (200, 7)
    selected = _request(
        service.port,
        "GET",
        "/v1/clusters/prod-east/select?inferenceService=llama-demo/llama-chat",
        None,
        "sync",
    )[1]
    assert selected["selected"]["name"] == "team-llama"
    again = _run_job(command, environment, work, url)
    assert again.returncode == 0, again.stderr
    status, after = _request(service.port, "GET", "/v1/clusters/prod-east", None, "sync")
    assert after["generation"] == info["generation"]  # server fields are not changes


def test_the_job_sends_only_what_the_service_reads(service, work):
    """rules §17 "Stored is what is read": the containers' env, args and command, volumes and
    credentialed storage URIs that kubectl printed stay in the cluster."""
    (work / "objects.yaml").write_bytes(dump())
    command, environment = _push_container()
    assert _request(service.port, "PUT", "/v1/clusters/prod-east", b"{}", "admin")[0] == 201
    with Proxy(service.port).running() as proxy:
        done = _run_job(command, environment, work, proxy.url)
    assert done.returncode == 0, done.stderr
    (put,) = [request for request in proxy.forwarded if request.method == "PUT"]
    assert b"llama-3-2-3b-instruct" in put.body
    assert MARKER.encode() not in b"".join(request.body for request in proxy.forwarded)


def test_a_write_between_the_jobs_read_and_write_fails_the_job(service, work):
    command, environment = _push_container()
    assert _request(service.port, "PUT", "/v1/clusters/prod-east", b"{}", "admin")[0] == 201
    with Proxy(service.port, before=write_in_between(service.port)).running() as proxy:
        done = _run_job(command, environment, work, proxy.url)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "changed" in done.stderr
    # The other writer's object is there; the job's objects are not (nothing overwritten).
    info = _request(service.port, "GET", "/v1/clusters/prod-east", None, "admin")[1]
    assert sum(info["counts"].values()) == 1


def test_a_service_that_is_down_fails_the_job(work):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is needed to render the CronJob")
    command, environment = _push_container()
    done = _run_job(command, environment, work, f"http://127.0.0.1:{free_port()}")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert done.stderr.strip()


def test_the_job_never_asks_to_empty_a_catalog(service, work):
    """rules §17 "No silent wipe": the rendered job passes no ``--allow-empty`` (nor the query
    behind it), so a ``kubectl get`` that printed an empty list fails the Job and keeps the
    catalog."""
    command, environment = _push_container()
    assert not [part for part in command if "allow-empty" in part.lower()]
    assert not [value for value in environment.values() if "allow" in value.lower()]
    assert _request(service.port, "PUT", "/v1/clusters/prod-east", b"{}", "admin")[0] == 201
    url = f"http://127.0.0.1:{service.port}"
    assert _run_job(command, environment, work, url).returncode == 0
    before = _request(service.port, "GET", "/v1/clusters/prod-east", None, "sync")[1]
    (work / "objects.yaml").write_text(
        'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'
    )
    with Proxy(service.port).running() as proxy:
        done = _run_job(command, environment, work, proxy.url)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "--allow-empty" in done.stderr
    assert [request.method for request in proxy.forwarded] == ["GET"]
    after = _request(service.port, "GET", "/v1/clusters/prod-east", None, "sync")[1]
    assert (after["generation"], after["counts"]) == (before["generation"], before["counts"])
