"""``python -m bench.fleet_poll``: a dashboard's poll of the fleet (``GET /v1/fleet``, rules §21)
against ``GET /healthz``, in process (Flask's test client, so the WSGI stack but no sockets), on
the SQLite store: the fleet of ``bench.fleet_impact`` (12 clusters × 500 InferenceServices).

* the poll: ``If-None-Match`` naming the fleet's tag, answered ``304`` in front of Flask
  (``app/http/polls.py``) — what a dashboard sends every few seconds;
* the answer: a ``200`` whose counts are cached (every request works out the ages).

Each figure is the median of ``--samples`` requests, the three kinds interleaved in batches of
100, after a warm-up; the ratio, not microseconds, compares machines.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from .fleet_impact import fleet_client, store_fleet

BATCH = 100


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def run(clusters: int, services: int, samples: int) -> dict[str, float]:
    client = fleet_client()
    store_fleet(client, clusters, 100, services, 50)
    first = client.get("/v1/fleet")  # counts every cluster once: cached from here on
    assert first.status_code == 200, first.get_data()[:300]
    tag = first.headers["ETag"]

    def healthz() -> None:
        assert client.get("/healthz").status_code == 200

    def poll() -> None:
        assert client.get("/v1/fleet", headers={"If-None-Match": tag}).status_code == 304

    def answer() -> None:
        assert client.get("/v1/fleet").status_code == 200

    kinds: dict[str, Callable[[], None]] = {"healthz": healthz, "poll": poll, "answer": answer}
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(3):  # warm-up
        for ask in kinds.values():
            ask()
    for _ in range(max(1, samples // BATCH)):
        for name, ask in kinds.items():
            for _ in range(BATCH):
                started = time.perf_counter()
                ask()
                times[name].append(time.perf_counter() - started)
    medians = {name: _median_us(values) for name, values in times.items()}
    base = medians["healthz"]
    print(f"{clusters} clusters x {services} InferenceServices, SQLite, in process")
    print(f"GET /healthz: {base:.0f} µs")
    print(
        f"GET /v1/fleet, If-None-Match (304): {medians['poll']:.0f} µs "
        f"({medians['poll'] / base:.2f}x /healthz, target <= 1.2x)"
    )
    print(
        f"GET /v1/fleet, counts cached (200): {medians['answer']:.0f} µs "
        f"({medians['answer'] / base:.2f}x /healthz)"
    )
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=12)
    parser.add_argument("--services", type=int, default=500)
    parser.add_argument("--samples", type=int, default=3000)
    args = parser.parse_args()
    run(args.clusters, args.services, args.samples)


if __name__ == "__main__":
    main()
