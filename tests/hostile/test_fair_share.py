"""rules §17 "Safe to share": what anonymous clients cannot take from token holders and probes.

- the operations listener (``OME_RANKER_OPS_BIND``) serves the probes and the metrics, and only
  them, from a thread of its own, so that a flood of idle connections on the API's port does not
  hold them past Kubernetes' probe timeout;
- a token holder's long body is read by the worker's loop (the head names the token before the
  body comes), so anonymous uploads trickling into every thread that reads long bodies never
  make the sync job's write wait, or answer it 408;
- an anonymous long body that waited for such a thread is answered 503 "busy", never a 408 that
  blames the client for the worker's queue.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid

import pytest

from tests.builders import token_file
from tests.servers import free_port
from tests.waiting import wait_for

from .service import exchange

SYNC = {"name": "sync-prod", "secret": "sync-secret", "write": ["prod"]}
ADMIN = {"name": "admin", "secret": "admin-secret", "write": ["*"]}


def bearer(token: dict) -> dict[str, str]:
    return {"Authorization": f"Bearer {token['secret']}"}


def catalog_body(runtimes: int) -> bytes:
    """A JSON manifest array of ClusterServingRuntimes, each padded with the annotations and
    labels a real one carries (kept in the stored form), ~1.4 KB each."""
    items = [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterServingRuntime",
            "metadata": {
                "name": f"runtime-{index}",
                "labels": {f"team.example.com/label-{n}": f"value-{index}-{n}" for n in range(8)},
                "annotations": {"description": "x" * 800},
            },
            "spec": {
                "supportedModelFormats": [
                    {"name": "safetensors", "modelFormat": {"name": "safetensors"}, "priority": 1}
                ]
            },
        }
        for index in range(runtimes)
    ]
    return json.dumps(items).encode()


class Trickler(threading.Thread):
    """An anonymous client that sends a POST head announcing ``length`` bytes, a quarter of
    them at once, then the rest a byte every half second, reconnecting when answered."""

    def __init__(self, port: int, length: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.length, self.stop = port, length, stop
        self.answers: list[bytes] = []
        self.uploading = threading.Event()  # its first quarter is sent: a thread reads the rest

    def run(self) -> None:
        head = (
            b"POST /v1/rank HTTP/1.1\r\nHost: slow\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % self.length
        )
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=30) as sock:
                    sock.sendall(head + b" " * (self.length // 4))
                    self.uploading.set()
                    sock.settimeout(0.5)
                    while not self.stop.is_set():
                        try:
                            reply = sock.recv(4096)
                        except TimeoutError:
                            sock.sendall(b" ")
                            continue
                        if reply:
                            self.answers.append(reply)
                        break
            except OSError:
                time.sleep(0.1)


def test_a_token_holders_write_is_not_starved_by_anonymous_uploads(start_service, tmp_path):
    tokens = token_file(tmp_path / "tokens.yaml", SYNC, ADMIN)
    service = start_service(
        OME_RANKER_AUTH="token",
        OME_RANKER_TOKENS_FILE=tokens,
        OME_RANKER_WORKERS="1",
        OME_RANKER_THREADS="4",
        OME_RANKER_CLIENT_TIMEOUT="4",
        OME_RANKER_REQUEST_DEADLINE="3",
        OME_RANKER_STORE_PATH=str(tmp_path / "store.sqlite3"),
    )
    assert service.request("PUT", "/v1/clusters/prod", b"{}", bearer(ADMIN))[0] == 201
    body = catalog_body(1000)
    assert len(body) > 1024 * 1024  # a long body: over the worker's 256 KiB read in its loop
    stop = threading.Event()
    tricklers = [Trickler(service.port, 1024 * 1024, stop) for _ in range(12)]
    for trickler in tricklers:
        trickler.start()
    try:
        # Every thread that may read a long body is reading a trickle.
        wait_for(lambda: all(t.uploading.is_set() for t in tricklers), "every trickle uploading")
        outcomes = []
        for _ in range(6):
            started = time.monotonic()
            status, _, answer = service.request(
                "PUT",
                "/v1/clusters/prod/objects",
                body,
                {**bearer(SYNC), "Content-Type": "application/json"},
                timeout=30,
            )
            outcomes.append((status, round(time.monotonic() - started, 1), answer[:200]))
    finally:
        stop.set()
        for trickler in tricklers:
            trickler.join(10)
    # Before: 408 three times in six, the others 3.5-8.9 s; with every request anonymous
    # (the head not read for a token), 503 six times in six: queued behind the uploads.
    assert [status for status, _, _ in outcomes] == [200] * 6, outcomes
    answers = [reply for trickler in tricklers for reply in trickler.answers]
    statuses = {int(reply.split(b" ", 2)[1]) for reply in answers}
    assert statuses <= {408, 503}, answers
    # A 408 only where the client really was slow: its thread was reading it.
    for reply in answers:
        if b" 503 " in reply[:13]:
            assert b"was busy for the request's deadline" in reply, reply
    service.assert_still_serving()


def test_the_operations_listener_serves_probes_and_metrics_only(start_service):
    ops_port = free_port()
    service = start_service(OME_RANKER_OPS_BIND=f"127.0.0.1:{ops_port}")
    for path in ("/healthz", "/readyz", "/metrics"):
        status, headers, _ = service.request("GET", path, port=ops_port)
        assert status == 200, path
        assert headers["Cache-Control"] == "no-store"
    for method, path in (("GET", "/v1/clusters"), ("POST", "/v1/rank"), ("GET", "/")):
        status, headers, body = service.request(method, path, port=ops_port)
        assert (status, json.loads(body)["error"]["code"]) == (404, "NotFound"), path
        assert headers["X-Content-Type-Options"] == "nosniff"
    # On the API's listener: no metrics for whoever reaches the API, the rest as before.
    status, _, body = service.request("GET", "/metrics")
    assert (status, json.loads(body)["error"]["code"]) == (404, "NotFound")
    assert service.request("GET", "/healthz")[0] == 200
    service.assert_still_serving()


def test_without_an_operations_listener_metrics_stay_on_the_api(start_service):
    service = start_service()
    status, _, body = service.request("GET", "/metrics")
    assert status == 200 and b"ome_ranker" in body


def test_probes_are_answered_through_a_flood_of_idle_connections(start_service):
    """Every API connection slot of every worker taken (and the listen backlog filling behind
    them): the operations listener still answers at once. On the API's port a probe would wait
    for an idle connection to time out (the client timeout, 20 s here)."""
    ops_port = free_port()
    service = start_service(
        OME_RANKER_OPS_BIND=f"127.0.0.1:{ops_port}",
        OME_RANKER_WORKER_CONNECTIONS="50",
        OME_RANKER_CLIENT_TIMEOUT="20",
    )
    flood = []
    try:
        for _ in range(400):
            flood.append(socket.create_connection(("127.0.0.1", service.port), timeout=5))
        # However far the workers are in accepting the flood, a probe waits behind it.
        with pytest.raises(TimeoutError):  # the API's port is full: the probe waits there
            service.request("GET", "/healthz", timeout=2)
        for _ in range(10):  # answered while the flood still holds the API's port
            assert service.request("GET", "/readyz", port=ops_port, timeout=5)[0] == 200
            assert service.request("GET", "/healthz", port=ops_port, timeout=5)[0] == 200
    finally:
        for sock in flood:
            sock.close()


def test_an_anonymous_long_body_that_waited_for_a_thread_is_answered_busy(start_service):
    """One thread reads long bodies (4 threads: 2 for them); the third upload waits, unread,
    for the deadline, and is told the service was busy, not that it was slow."""
    service = start_service(
        OME_RANKER_WORKERS="1",
        OME_RANKER_CLIENT_TIMEOUT="8",
        OME_RANKER_REQUEST_DEADLINE="2",
    )
    stop = threading.Event()
    tricklers = [Trickler(service.port, 1024 * 1024, stop) for _ in range(2)]
    for trickler in tricklers:
        trickler.start()
    try:
        wait_for(lambda: all(t.uploading.is_set() for t in tricklers), "both trickles uploading")
        head = (
            b"POST /v1/rank HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (1024 * 1024)
        )
        reply = exchange(service.port, head + b" " * (512 * 1024), half_close=False, timeout=15)
    finally:
        stop.set()
        for trickler in tricklers:
            trickler.join(10)
    assert reply.status == 503, reply.raw[:300]
    error = reply.error()
    assert error["code"] == "DeadlineExceeded"
    assert "every thread that may read a long body was busy" in error["message"]


@pytest.mark.parametrize("operations_listener", [True, False])
def test_clusters_are_named_in_metrics_only_to_the_operator(
    start_service, tmp_path, operations_listener
):
    """With tokens in force, the per-cluster series are on the operations listener's /metrics;
    without one, /metrics stays on the API's listener for whoever reaches it and names no
    cluster (rules §17 *Access*)."""
    tokens = token_file(
        tmp_path / "metrics-tokens.yaml", {"name": "admin", "secret": "admin-s", "write": ["*"]}
    )
    ops_port = free_port()
    settings = {"OME_RANKER_AUTH": "token", "OME_RANKER_TOKENS_FILE": tokens}
    if operations_listener:
        settings["OME_RANKER_OPS_BIND"] = f"127.0.0.1:{ops_port}"
    service = start_service(**settings)
    admin = {"Authorization": "Bearer admin-s", "Content-Type": "application/json"}
    cluster = f"secret-{uuid.uuid4().hex[:12]}"  # the store may be a shared Redis
    assert service.request("PUT", f"/v1/clusters/{cluster}", b"{}", admin)[0] == 201
    try:
        port = ops_port if operations_listener else None
        status, _, text = service.request("GET", "/metrics", port=port)
        assert status == 200 and b"ome_ranker_build_info" in text
        assert (f'cluster="{cluster}"'.encode() in text) is operations_listener
        assert (b"cluster=" in text) is operations_listener
    finally:
        service.request("DELETE", f"/v1/clusters/{cluster}", headers=admin)
