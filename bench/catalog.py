"""``python -m bench.catalog``: stored catalogs through the app (SPEC §17), each figure against a
baseline measured in the same run, in process (Flask's test client), on the SQLite store.

* rank by name, the first ask after a write (the store is read and decoded, the model ranked,
  the answer rendered and cached) vs. the selection core alone on the same documents;
* the same ask again (a cache hit) vs. ``GET /healthz`` through the same app;
* ``PUT …/objects`` of the runtimes as YAML vs. the JSON round trip (``json.loads`` +
  ``json.dumps``) of the same documents;
* ``selections`` for every InferenceService vs. asking ``rank`` once per InferenceService.

Medians of ``--rounds`` runs after one warm-up; ratios, not milliseconds, compare machines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from app import create_app
from app.schemas.requests import load_rank_request
from app.selection.ranking import rank_runtimes
from config.settings import TestConfig

from .manifests import (
    MODEL_NAME,
    TARGET_NAMESPACE,
    inference_services,
    model_copies,
    rank_request_body,
)

YAML_HEADERS = {"Content-Type": "application/yaml"}


def median_ms(action: Callable[[], object], rounds: int) -> float:
    action()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def run(runtimes: int, services: int, models: int, rounds: int) -> None:
    body = rank_request_body(runtimes)
    settings = TestConfig()
    settings.STORE_PATH = str(Path(tempfile.mkdtemp(prefix="ome-ranker-bench-")) / "c.sqlite3")
    client = create_app(settings).test_client()
    client.put("/v1/clusters/bench", json={})
    documents = [body["model"], *body["runtimes"]]
    as_yaml = yaml.safe_dump_all(documents, sort_keys=False).encode()
    as_json = json.dumps(documents).encode()
    assert (
        client.put("/v1/clusters/bench/objects", data=as_yaml, headers=YAML_HEADERS).status_code
        == 200
    )

    request = load_rank_request(body, {})
    core = median_ms(lambda: rank_runtimes(request), rounds)
    url = f"/v1/clusters/bench/rank?model={MODEL_NAME}&namespace={TARGET_NAMESPACE}"
    flip = {"n": 0}

    def first_ask_after_a_write() -> None:
        flip["n"] += 1
        extra = {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterServingRuntime",
            "metadata": {"name": "flip"},
            "spec": {"disabled": bool(flip["n"] % 2)},
        }
        assert client.post("/v1/clusters/bench/objects", json=extra).status_code == 200  # not timed
        started = time.perf_counter()
        assert client.get(url).headers["X-Cache"] == "miss"
        first_times.append(time.perf_counter() - started)

    first_times: list[float] = []
    for _ in range(rounds + 1):
        first_ask_after_a_write()
    first = statistics.median(first_times[1:]) * 1000
    hit = median_ms(lambda: client.get(url), rounds)
    health = median_ms(lambda: client.get("/healthz"), rounds)

    round_trip = median_ms(lambda: json.dumps(json.loads(as_json)), rounds)
    put_yaml = median_ms(
        lambda: client.put("/v1/clusters/bench/objects", data=as_yaml, headers=YAML_HEADERS),
        max(3, rounds // 3),
    )

    catalog = [
        *documents,
        *model_copies(body["model"], models),
        *inference_services(services, models),
    ]
    client.put("/v1/clusters/bench/objects", json=catalog)
    headers = {"Cache-Control": "no-cache"}
    selections = median_ms(
        lambda: client.get("/v1/clusters/bench/selections", headers=headers), max(3, rounds // 5)
    )

    def every_service() -> None:
        for i in range(services):
            client.get(
                f"/v1/clusters/bench/rank?inferenceService={TARGET_NAMESPACE}/svc-{i}",
                headers=headers,
            )

    separately = median_ms(every_service, 1)

    print(
        f"{runtimes} runtimes, {services} InferenceServices over {models} models, {rounds} rounds"
    )
    print(
        f"rank by name, first ask after a write: {first:.1f} ms; selection core {core:.1f} ms "
        f"({first / core:.2f}x, target <= 1.5x)"
    )
    print(
        f"rank by name, cached: {hit:.2f} ms; GET /healthz {health:.2f} ms "
        f"({hit / health:.2f}x, target <= 1.5x)"
    )
    print(
        f"PUT objects as YAML: {put_yaml:.1f} ms; JSON round trip {round_trip:.1f} ms "
        f"({put_yaml / round_trip:.2f}x, target <= 3x)"
    )
    print(
        f"selections: {selections:.0f} ms; {services} separate rank asks {separately:.0f} ms "
        f"({selections / separately:.3f}x, target <= 0.2x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtimes", type=int, default=1000)
    parser.add_argument("--services", type=int, default=500)
    parser.add_argument("--models", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    run(args.runtimes, args.services, args.models, args.rounds)


if __name__ == "__main__":
    main()
