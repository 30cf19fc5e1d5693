"""``python -m bench.fleet_impact``: one change against a fleet (rules §19 "Fleet impact"), in
process (Flask's test client), on the SQLite store: ``POST /v1/fleet/impact`` of a 1-runtime
change over 12 clusters × 500 InferenceServices, against the 12 ``POST …/clusters/{c}/impact``
requests that answer the same, measured in the same interleaved rounds.

The fleet is what one platform team ships: every cluster holds the same runtimes and models
(``bench/manifests.py``), a quarter of them one runtime more (a canary), and each cluster its
own 500 InferenceServices over the models. The change disables the runtime they select. The
fleet's answer is checked to be the per-cluster answers, cluster by cluster.

Medians of ``--rounds`` rounds after one warm-up; the ratio, not milliseconds, compares
machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from app import create_app
from config.settings import TestConfig

from .manifests import TARGET_NAMESPACE, inference_services, model_copies, rank_request_body

JSON_HEADERS = {"Content-Type": "application/json"}


def fleet_client() -> Any:
    """A test client of an app on a SQLite file of its own, without the request bounds that
    would refuse a fleet of this size (the benchmarks measure the work, not the refusal)."""
    settings = TestConfig()
    settings.STORE_PATH = str(Path(tempfile.mkdtemp(prefix="ome-ranker-bench-")) / "c.sqlite3")
    settings.REQUEST_DEADLINE_SECONDS = None
    settings.MAX_RUNTIME_CHECKS = 10**9
    settings.MAX_ANSWER_BYTES = 10**9
    return create_app(settings).test_client()


def store_fleet(client, clusters: int, runtimes: int, services: int, models: int) -> dict:
    """Store the fleet; the change: the runtime the InferenceServices select, disabled."""
    body = rank_request_body(runtimes + 1)
    shipped, canary = body["runtimes"][:runtimes], body["runtimes"][runtimes]
    shared = [*shipped, *model_copies(body["model"], models)]
    for index in range(clusters):
        name = f"cluster-{index:02d}"
        objects = [*shared, *inference_services(services, models, index * 7)]
        if index % 4 == 3:
            objects.append(canary)
        assert client.put(f"/v1/clusters/{name}", json={}).status_code == 201
        written = client.put(f"/v1/clusters/{name}/objects", json=objects)
        assert written.status_code == 200, written.get_data()[:300]
    asked = f"/v1/clusters/cluster-00/select?inferenceService={TARGET_NAMESPACE}/svc-0"
    selected = client.get(asked).get_json()["selected"]["name"]
    (runtime,) = [item for item in shipped if item["metadata"]["name"] == selected]
    return {**runtime, "spec": {**runtime["spec"], "disabled": True}}


def run(clusters: int, runtimes: int, services: int, models: int, rounds: int) -> float:
    client = fleet_client()
    change = json.dumps(store_fleet(client, clusters, runtimes, services, models)).encode()
    names = [f"cluster-{index:02d}" for index in range(clusters)]

    def fleet() -> dict:
        answer = client.post("/v1/fleet/impact", data=change, headers=JSON_HEADERS)
        assert answer.status_code == 200, answer.get_data()[:300]
        return answer.get_json()

    def one_by_one() -> list[dict]:
        answers = []
        for name in names:
            answer = client.post(f"/v1/clusters/{name}/impact", data=change, headers=JSON_HEADERS)
            assert answer.status_code == 200, answer.get_data()[:300]
            answers.append(answer.get_json())
        return answers

    together, apart = fleet(), one_by_one()  # the warm-up, and the check that they agree
    for part, own in zip(together["clusters"], apart, strict=True):
        assert {key: part[key] for key in own} == own
    fleet_times, apart_times = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        fleet()
        fleet_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        one_by_one()
        apart_times.append(time.perf_counter() - started)
    fleet_ms = statistics.median(fleet_times) * 1000
    apart_ms = statistics.median(apart_times) * 1000
    ratio = fleet_ms / apart_ms
    print(
        f"{clusters} clusters x {services} InferenceServices over {models} models, {runtimes} "
        f"runtimes (+1 in every 4th), a 1-runtime change, {rounds} rounds"
    )
    print(f"answer: {together['summary']}")
    print(
        f"fleet impact: {fleet_ms:.0f} ms; {clusters} per-cluster impacts {apart_ms:.0f} ms "
        f"({ratio:.3f}x, target <= 0.5x)"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=12)
    parser.add_argument("--runtimes", type=int, default=100)
    parser.add_argument("--services", type=int, default=500)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    run(args.clusters, args.runtimes, args.services, args.models, args.rounds)


if __name__ == "__main__":
    main()
