"""A store that hangs or refuses the service, under a real gunicorn with dashboards polling: the
probes answer, catalog requests fail fast, the stateless endpoints keep working, and no log line
holds the Redis password."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tests.servers import SEED_YAML, YAML, Service
from tests.waiting import wait_for

ASK = "/v1/clusters/prod/rank?model=llama-3-2-3b-instruct&namespace=llama-demo"
# Longer than the 2 s default, so that a probe or a poll that waited for the store stands apart
# from one answered at once even on a busy machine: the bounds below are half of it.
STORE_TIMEOUT = 8.0
AT_ONCE = STORE_TIMEOUT / 2
PASSWORD = "wrong-s3cret-of-the-redis"


class Dashboards:
    """Threads polling a catalog's answer as fast as it comes, timing each answer."""

    def __init__(self, service: Service, count: int) -> None:
        self.service = service
        self.answers: list[tuple[float, float, int]] = []  # (asked at, seconds, status)
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._poll) for _ in range(count)]

    def _poll(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            status = self.service.request("GET", ASK, timeout=60)[0]
            self.answers.append((started, time.monotonic() - started, status))

    def __enter__(self) -> Dashboards:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def readyz_durations(service: Service) -> list[float]:
    """How long the app took over each /readyz (its DEBUG request lines), in seconds."""
    return [
        line["durationMs"] / 1000
        for line in service.log_lines()
        if line.get("path") == "/readyz" and "durationMs" in line
    ]


def test_a_hung_store_under_polling_keeps_the_probes_answered(tmp_path: Path, hung_server):
    service = Service(
        tmp_path,
        REDIS_URL=hung_server.url,
        OME_RANKER_AUTH="none",
        OME_RANKER_WORKERS="1",
        OME_RANKER_THREADS="4",
        OME_RANKER_LOG_LEVEL="DEBUG",
        OME_RANKER_STORE_TIMEOUT=str(STORE_TIMEOUT),
    ).start()
    try:
        with Dashboards(service, 6) as dashboards:
            # The first polls find the store closed and wait for its timeout; from then on the
            # breaker answers for it.
            wait_for(
                lambda: any(status == 503 for _, _, status in dashboards.answers),
                "a catalog answer",
            )
            settled = time.monotonic()
            probes = []
            for _ in range(20):
                started = time.monotonic()
                status, _, body = service.request("GET", "/readyz", timeout=60)
                probes.append((time.monotonic() - started, status, json.loads(body)))
                time.sleep(0.2)
            assert service.request("POST", "/v1/rank", SEED_YAML, YAML)[0] == 200
        assert max(readyz_durations(service)) < AT_ONCE
        assert max(seconds for seconds, _, _ in probes) < AT_ONCE
        assert {status for _, status, _ in probes} == {200}  # down is not unready
        assert probes[-1][2]["store"]["state"] == "down"
        later = [seconds for asked, seconds, _ in dashboards.answers if asked > settled]
        assert {status for _, _, status in dashboards.answers} == {503}
        # One try per 5 s cool-down waits for the timeout; every other poll is refused at once.
        assert len(later) > 30 and sum(seconds > AT_ONCE for seconds in later) <= 3
    finally:
        service.stop()


def test_a_redis_that_refuses_the_password_is_named_and_never_logs_it(tmp_path: Path, redis_server):
    server = redis_server("--requirepass", "the-right-one")
    url = f"redis://:{PASSWORD}@127.0.0.1:{server.port}/0"
    service = Service(tmp_path, REDIS_URL=url, OME_RANKER_AUTH="none").start()
    try:
        answer = wait_for(
            lambda: (got := service.request("GET", "/readyz"))[0] == 503 and got,
            "/readyz names the refused password",
        )
        body = json.loads(answer[2])
        assert body["status"] == "degraded"
        assert body["store"] == {
            "backend": "redis",
            "state": "refused",
            "reason": "Redis refuses the credentials of REDIS_URL (AuthenticationError)",
        }
        status, headers, _ = service.request("GET", ASK)
        assert (status, headers["Retry-After"]) == (503, "5")
        assert service.request("POST", "/v1/rank", SEED_YAML, YAML)[0] == 200
        assert service.wait_for_log("catalog store unavailable")
    finally:
        service.stop()
    assert PASSWORD not in service.log()
