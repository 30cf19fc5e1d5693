"""SPEC §17 "Bounded work" against a real gunicorn: work over the bounds is refused before it
starts; work within them that outlasts the deadline stops there, its thread returns and spends
no CPU on an answer nobody reads; and the open endpoints never take a worker's last thread."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.hostile.service import exchange, read_reply
from tests.waiting import wait_for

JSON = {"Content-Type": "application/json"}
DEADLINE = 2.0


def manifests(models: int, runtimes: int, services: int = 0) -> list[dict]:
    names = [f"model-{i}" for i in range(models)]
    return [
        # Each model of its own size: questions about copies of one model share their rows
        # (app/selection/ranking/selector.py ``rows_key``), and this work is meant to be done.
        *(model_doc(name, size=f"{1 + i}B") for i, name in enumerate(names)),
        *(runtime_doc(f"rt-{i}", entry(priority=1 + i % 4)) for i in range(runtimes)),
        *(
            isvc_doc(f"svc-{i}", model={"name": names[i % models]}, engine={})
            for i in range(services)
        ),
    ]


def body_of(models: int, runtimes: int, services: int = 0) -> bytes:
    """A JSON array of manifests, read as a kubectl stream (SPEC §15)."""
    return json.dumps(manifests(models, runtimes, services)).encode()


def impact_body(models: int, runtimes: int) -> bytes:
    side = manifests(models, runtimes, services=models)
    return json.dumps({"current": side, "proposed": side}).encode()


# Refusing reads and validates the body: under a second of the worker's CPU on 2 cores. The work
# refused, millions of runtime checks, is a minute of CPU or more. CPU time, to which waiting for a
# core adds nothing, tells the two apart at any load; the wall clock does not.
REFUSAL_CPU_SECONDS = 10.0


def test_work_over_the_bound_is_refused_before_it_starts(start_service):
    """2 500 models and 2 500 runtimes: 6 250 000 runtime checks, over an hour of CPU once; now
    a 422 as soon as the body is read (the shipped bounds and body limit), counted from the
    body, for a fraction of the CPU the work would take."""
    service = start_service(
        OME_RANKER_WORKERS="1",  # one worker, whose CPU time is read
        # The deadline is a wall clock, which a loaded machine stretches: far enough that what
        # ends these requests is the bound, never the deadline (a 503 after reading the body).
        OME_RANKER_REQUEST_DEADLINE="300",
        OME_RANKER_WORKER_TIMEOUT="600",
    )
    [worker] = service.worker_pids()
    big = body_of(2500, 2500, services=2500)
    for path, body, checks in (
        ("/v1/selections", big, 2500 * 2500),
        ("/v1/lint", big, 2500 * 2500),
        ("/v1/impact", impact_body(1200, 2500), 2 * 1200 * 2500),  # two sides
    ):
        before = _cpu_seconds(worker)
        # The timeout only guards against a hang: the verdict is the answer and the CPU spent.
        status, _headers, answer = service.request("POST", path, body, headers=JSON, timeout=600)
        spent = _cpu_seconds(worker) - before
        error = json.loads(answer)["error"]
        assert (status, error["code"]) == (422, "LimitExceeded"), (path, error)
        assert error["variable"] == "OME_RANKER_MAX_RUNTIME_CHECKS"
        assert error["requested"] == checks  # the work counted before any of it ran
        assert spent < REFUSAL_CPU_SECONDS, f"{path}: {spent:.1f} s of the worker's CPU"
    service.assert_still_serving()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _access_line(service, request_id: str) -> dict:
    """The request's log line, written when its thread is done with it."""
    return wait_for(
        lambda: next(
            (
                line
                for line in service.log_lines()
                if line.get("requestId") == request_id and line.get("logger") == "app.access"
            ),
            None,
        ),
        f"request {request_id} finishes",
    )


@pytest.fixture
def slow_service(start_service):
    """One worker of two threads; a deadline of 2 s; bounds high enough that the work runs."""
    return start_service(
        OME_RANKER_WORKERS="1",
        OME_RANKER_THREADS="2",
        OME_RANKER_REQUEST_DEADLINE=str(DEADLINE),
        OME_RANKER_WORKER_TIMEOUT="10",
        OME_RANKER_MAX_RUNTIME_CHECKS=str(10**9),
        OME_RANKER_AUTH="none",
    )


# Work that no speed-up of the rules brings under the 2 s deadline: millions of runtime checks
# (over an hour of CPU once, a minute or more now), where a body of a tenth of it had to be
# made bigger each time the rules got faster.
PAST_THE_DEADLINE = {
    "selections": ("/v1/selections", lambda: body_of(2500, 2500)),
    "lint": ("/v1/lint", lambda: body_of(2500, 2500, services=2500)),
    "impact": ("/v1/impact", lambda: impact_body(1200, 2500)),
}


@pytest.mark.parametrize("work", PAST_THE_DEADLINE)
def test_work_past_the_deadline_stops_and_spends_nothing_after(slow_service, work):
    """With a 2 s deadline, the application itself answers 503 at the deadline, its thread
    returns, and the worker is idle afterwards."""
    path, body = PAST_THE_DEADLINE[work]
    [worker] = slow_service.worker_pids()
    sent = body()
    started = _cpu_seconds(worker)
    status, headers, answer = slow_service.request("POST", path, sent, JSON, timeout=60)
    assert (status, json.loads(answer)["error"]["code"]) == (503, "DeadlineExceeded")
    line = _access_line(slow_service, headers["X-Request-ID"])  # the app's answer, not the loop's
    assert line["status"] == 503
    # The thread stopped at the deadline: what the worker spent is the body's reading and the
    # deadline's worth of work at most (CPU time, which a loaded machine does not stretch), not
    # the minutes the whole work takes.
    assert _cpu_seconds(worker) - started < DEADLINE + 5
    # Nothing still ranking: over a second of the worker's life, next to no CPU.
    before = _cpu_seconds(worker)
    time.sleep(1.0)
    assert _cpu_seconds(worker) - before < 0.3


def test_open_work_never_takes_the_last_thread(slow_service):
    """Two long anonymous requests on a worker of two threads: they run one after the other,
    and a catalog request sent after them is answered while they run."""
    # ~720 000 runtime checks, three times the deadline's worth: a body twice this size, read
    # by a thread of its own, let the two answers come together now and then.
    long = body_of(1200, 600)
    finished: dict[str, float] = {}
    sent = {name: threading.Event() for name in ("first", "second")}

    request = (
        b"POST /v1/selections HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(long), long)
    )

    def post(name: str):
        with socket.create_connection(("127.0.0.1", slow_service.port), timeout=60) as sock:
            # The head and the body's start, then the event: a request the worker queues is
            # read (or drained) only once a thread is free or its deadline has passed.
            sock.sendall(request[: 64 * 1024])
            sent[name].set()
            sock.sendall(request[64 * 1024 :])
            reply = read_reply(sock, timeout=60)
        finished[name] = time.monotonic()
        return reply.status, reply.error()

    with ThreadPoolExecutor(2) as pool:
        first, second = pool.submit(post, "first"), pool.submit(post, "second")
        # Both begun (the catalog request must come after them to prove it).
        wait_for(lambda: all(event.is_set() for event in sent.values()), "both long bodies sent")
        status, _headers, _answer = slow_service.request("GET", "/v1/clusters", timeout=30)
        answered_at = time.monotonic()
        assert status == 200
        outcomes = [first.result(), second.result()]
    assert answered_at < min(finished.values())  # a thread was free for it
    assert all(status == 503 for status, _ in outcomes)
    queued = [e for _, e in outcomes if "every thread of this worker was busy" in e["message"]]
    if not queued:  # both ran, then one after the other
        assert abs(finished["first"] - finished["second"]) > DEADLINE / 2


def test_the_workers_own_answers_are_not_sniffed(service):
    reply = exchange(service.port, b"GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
    assert reply.status == 400
    assert reply.header("X-Content-Type-Options") == "nosniff"


def test_fleet_answers_stop_at_the_deadline_or_count_what_fits(start_service, tmp_path):
    """rules §21 against a real gunicorn: counting a catalog too big for the deadline stops
    there. The fleet answers 503 and spends nothing after; the cluster list and the metrics,
    which answer whatever the counts cost, answer in time without them."""
    store = {"OME_RANKER_STORE_PATH": str(tmp_path / "catalogs.sqlite3"), "OME_RANKER_AUTH": "none"}
    writer = start_service(OME_RANKER_WORKERS="1", OME_RANKER_REQUEST_DEADLINE="9", **store)
    assert writer.request("PUT", "/v1/clusters/big", b"{}", JSON)[0] == 201
    pushed = writer.request("PUT", "/v1/clusters/big/objects", body_of(600, 1200, 600), JSON)
    assert pushed[0] == 200, pushed[2][:300]
    writer.stop()
    slow = start_service(
        OME_RANKER_WORKERS="1",
        OME_RANKER_THREADS="2",
        OME_RANKER_REQUEST_DEADLINE=str(DEADLINE),
        OME_RANKER_WORKER_TIMEOUT="10",
        OME_RANKER_MAX_RUNTIME_CHECKS=str(10**9),
        **store,
    )
    [worker] = slow.worker_pids()
    status, headers, answer = slow.request("GET", "/v1/fleet", timeout=60)
    assert (status, json.loads(answer)["error"]["code"]) == (503, "DeadlineExceeded")
    assert _access_line(slow, headers["X-Request-ID"])["durationMs"] < (DEADLINE + 5) * 1000
    before = _cpu_seconds(worker)
    time.sleep(1.0)
    assert _cpu_seconds(worker) - before < 0.3
    status, _headers, answer = slow.request("GET", "/v1/clusters", timeout=60)
    assert status == 200
    (cluster,) = json.loads(answer)["clusters"]
    assert (cluster["name"], cluster["inferenceServices"]) == ("big", None)
    status, _headers, answer = slow.request("GET", "/metrics", timeout=60)
    assert status == 200
    assert b'ome_ranker_catalog_updated_timestamp_seconds{cluster="big"}' in answer
    assert b"ome_ranker_inferenceservices{" not in answer
