"""SIGTERM under load: /readyz turns 503 at once, and no request fails during the drain."""

from __future__ import annotations

import http.client
import os
import signal
import threading
import time

from tests.servers import SEED_YAML, YAML
from tests.waiting import wait_for

DRAIN_SECONDS = 5  # slack for a busy machine: the workers get SIGTERM in turn
DRAIN_LINE = "draining: /readyz answers 503"
CONNECTIONS = 64


class Load:
    """``CONNECTIONS`` clients posting one request after another, each on a new connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.results: list[tuple[float, int | str]] = []  # (sent at, status or error)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._post_forever) for _ in range(CONNECTIONS)]

    def _post_forever(self) -> None:
        while not self._stop.is_set():
            sent = time.monotonic()
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                connection.request("POST", "/v1/rank", body=SEED_YAML, headers=YAML)
                response = connection.getresponse()
                response.read()
                outcome: int | str = response.status
            except OSError as error:
                outcome = repr(error)
            finally:
                connection.close()
            with self._lock:
                self.results.append((sent, outcome))

    def __enter__(self) -> Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def _readyz_statuses(service, until: float) -> list[tuple[int, int | str]]:
    """Probe /readyz until ``until``: (how many workers had logged their drain when the probe was
    sent, its status)."""
    seen = []
    while time.monotonic() < until:
        draining = service.log().count(DRAIN_LINE)
        connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=5)
        try:
            connection.request("GET", "/readyz")
            response = connection.getresponse()
            seen.append((draining, response.status))
            response.read()
        except OSError as error:
            seen.append((draining, repr(error)))
        finally:
            connection.close()
        time.sleep(0.1)
    return seen


def test_sigterm_under_load_drops_nothing_during_the_drain(start_service):
    service = start_service(OME_RANKER_DRAIN_SECONDS=str(DRAIN_SECONDS))
    with Load(service.port) as load:
        wait_for(lambda: len(load.results) >= CONNECTIONS, "the load is being answered")
        terminated = time.monotonic()
        os.kill(service.pid, signal.SIGTERM)
        readyz = _readyz_statuses(service, until=terminated + DRAIN_SECONDS - 0.5)
    drained = terminated + DRAIN_SECONDS - 0.5
    during = [(sent, outcome) for sent, outcome in load.results if terminated <= sent < drained]
    failed = [outcome for sent, outcome in load.results if sent < drained and outcome != 200]
    assert failed == []
    assert len(during) >= 5  # the load did go on after SIGTERM
    # Each worker logs its drain once it has the signal (the master passes it on, so the two may
    # be some time apart on a busy machine): from then on that worker answers /readyz 503. The
    # test waits for the event, not for a clock: every probe sent once both workers had logged it
    # is a 503, and there were such probes, while the load was answered all along.
    after = [status for draining, status in readyz if draining == 2]
    assert after, readyz
    assert set(after) == {503}

    assert service.process.wait(timeout=30) == 0
    # Drained, then stopped: not waiting out the graceful timeout (20 s after SIGTERM).
    assert time.monotonic() - terminated < DRAIN_SECONDS + 10
    log = service.log()
    assert "WORKER TIMEOUT" not in log
    assert log.count(DRAIN_LINE) == 2  # both workers


def test_without_a_drain_sigterm_stops_at_once(start_service):
    service = start_service(OME_RANKER_DRAIN_SECONDS="0")
    assert service.stop() == 0  # not killed after stop()'s 30 s
    assert "draining" not in service.log()  # no drain: stopped at once
