"""A request that runs past its deadline gets a JSON 503, from the application where its code
checks, from the worker where it does not, and before a worker is killed."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from tests.hostile.service import read_reply
from tests.waiting import wait_for

DEADLINE = 0.5
MARGIN = 2.0  # config.settings.DEADLINE_MARGIN_SECONDS
CLIENT_TIMEOUT = 20.0  # far past the deadline and its margin: what answers first is the worker


@pytest.fixture(scope="module")
def deadline_service(tmp_path_factory):
    from tests.servers import Service

    server = Service(
        tmp_path_factory.mktemp("deadline"),
        OME_RANKER_REQUEST_DEADLINE=str(DEADLINE),
        OME_RANKER_CLIENT_TIMEOUT=str(CLIENT_TIMEOUT),
    ).start()
    yield server
    server.stop()


def _stalled_upload(port: int, length: int, first: int) -> socket.socket:
    """A request whose body stops after ``first`` of its ``length`` bytes (more than the
    worker buffers, so a thread reads the rest)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = b"POST /v1/rank HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    sock.sendall(head + b"Content-Length: %d\r\n\r\n" % length + b" " * first)
    return sock


def test_a_body_read_past_the_deadline_is_503_from_the_application(deadline_service):
    """Bodies over 1 MiB are read in steps with a deadline check between two."""
    sock = _stalled_upload(deadline_service.port, 2 * 1024 * 1024, 600 * 1024)
    with sock:
        time.sleep(DEADLINE + 0.5)  # the service's own clock: nothing to wait for but its time
        sock.sendall(b" " * (1024 * 1024))
        reply = read_reply(sock)
    assert reply.status == 503
    error = reply.error()
    assert error["code"] == "DeadlineExceeded"
    assert f"({DEADLINE:g} s)" in error["message"]
    assert reply.header("X-Request-ID")  # answered by the application
    deadline_service.assert_still_serving()


def test_code_that_never_checks_is_answered_by_the_worker(deadline_service):
    """Here the thread waits in a read of the body that never ends."""
    sock = _stalled_upload(deadline_service.port, 512 * 1024, 300 * 1024)
    started = time.monotonic()
    with sock:
        reply = read_reply(sock, timeout=CLIENT_TIMEOUT + 10)
    answered = time.monotonic() - started
    assert reply.status == 503
    assert reply.error()["code"] == "DeadlineExceeded"
    assert reply.header("Connection") == "close"
    # After the deadline and its margin, and before the client timeout would have ended
    # the wait (a 408): the worker's own answer.
    assert DEADLINE + MARGIN <= answered < CLIENT_TIMEOUT
    assert deadline_service.wait_for_log("still running after")
    deadline_service.assert_still_serving()


def test_a_worker_being_killed_answers_what_it_holds(start_service):
    """The master's worker timeout (SIGABRT): the requests in flight get a JSON 503 rather
    than a reset."""
    service = start_service(OME_RANKER_WORKERS="1")
    (worker,) = service.worker_pids()
    sock = _stalled_upload(service.port, 512 * 1024, 300 * 1024)
    with sock:
        time.sleep(0.5)  # in a thread, waiting for the rest of the body
        os.kill(worker, signal.SIGABRT)
        reply = read_reply(sock, timeout=5)
    assert reply.status == 503
    assert reply.error()["code"] == "DeadlineExceeded"
    wait_for(lambda: worker not in service.worker_pids() and service.worker_pids(), "a new worker")
    service.assert_still_serving()
