"""Workers that recycle (OME_RANKER_MAX_REQUESTS) or stop (SIGTERM) never reset a connection a
client is using: the last answers say ``Connection: close``, then the worker drains and exits.

Real keep-alive clients against a real gunicorn: each thread holds one ``http.client``
connection, sends a request as soon as the previous answer is read (so there is always a request
on its way when a worker decides to go) and counts every socket error. The tests wait for the
events they need (log lines, a worker's exit), never for a clock.
"""

from __future__ import annotations

import http.client
import os
import signal
import threading
import time

import pytest

CLIENTS = 16
REQUESTS_PER_CLIENT = 2_000  # a bound: the tests stop the clients long before
RECYCLES_WANTED = 4
RECYCLE_LINE = "Recycling worker after"
CLOSING_LINE = "closing: "


class KeepAliveClients:
    """``CLIENTS`` threads, each on one keep-alive connection, reopened only when an answer said
    ``Connection: close``; every socket error is counted, never retried."""

    def __init__(self, port: int, *, reconnect: bool = True) -> None:
        self.port = port
        self.reconnect = reconnect
        self.answers = 0
        self.closing_answers = 0  # answers that carried Connection: close
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run) for _ in range(CLIENTS)]

    def _run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            for _ in range(REQUESTS_PER_CLIENT):
                if self._stop.is_set():
                    return
                try:
                    connection.request("GET", "/healthz")
                    response = connection.getresponse()
                    response.read()
                except (OSError, http.client.HTTPException) as error:
                    with self._lock:
                        self.errors.append(repr(error))
                    return
                closing = response.getheader("Connection", "").lower() == "close"
                with self._lock:
                    self.answers += 1
                    self.closing_answers += closing
                assert response.status == 200
                if closing:
                    connection.close()  # http.client opens a new one for the next request
                    if not self.reconnect:
                        return
        finally:
            connection.close()

    def __enter__(self) -> KeepAliveClients:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def __exit__(self, *_exc) -> None:
        self.stop()

    def wait_until(self, condition, bound: float = 120) -> bool:
        """Until ``condition()`` holds (polled; the bound only stops a broken run)."""
        deadline = time.monotonic() + bound
        while not condition():
            if time.monotonic() > deadline or not any(t.is_alive() for t in self._threads):
                return condition()
            time.sleep(0.05)
        return True


def test_recycling_workers_drop_no_keep_alive_connection(start_service):
    service = start_service(
        OME_RANKER_MAX_REQUESTS="60", OME_RANKER_MAX_REQUESTS_JITTER="20", OME_RANKER_WORKERS="2"
    )
    booted = set(service.worker_pids())
    with KeepAliveClients(service.port) as clients:
        recycled = clients.wait_until(
            lambda: service.log().count(RECYCLE_LINE) >= RECYCLES_WANTED or clients.errors
        )
    assert clients.errors == []
    assert recycled, service.log()[-2000:]
    assert clients.closing_answers >= RECYCLES_WANTED  # the last answers said so
    assert service.worker_pids() - booted  # new workers took over
    assert "Traceback" not in service.log()


@pytest.mark.parametrize("drain_seconds", ["0", "1"])
def test_sigterm_closes_every_keep_alive_connection_with_an_answer(start_service, drain_seconds):
    """Each client's connection is open when SIGTERM comes; each must end with an answer that
    says ``Connection: close``, not with a reset (no reconnecting here: after a drain a load
    balancer sends new connections elsewhere)."""
    service = start_service(OME_RANKER_DRAIN_SECONDS=drain_seconds)
    with KeepAliveClients(service.port, reconnect=False) as clients:
        assert clients.wait_until(lambda: clients.answers >= 4 * CLIENTS)
        os.kill(service.pid, signal.SIGTERM)
        assert service.process.wait(timeout=60) == 0
        clients.wait_until(lambda: not any(t.is_alive() for t in clients._threads), bound=30)
    assert clients.errors == []
    assert clients.closing_answers == CLIENTS
    assert service.log().count(CLOSING_LINE) == 2  # both workers
