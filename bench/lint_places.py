"""``python -m bench.lint_places``: what saying where lint's findings are costs.

A stream of ``bench/manifests.py``'s model and N runtimes (YAML as kubectl users write it, and
the same documents as compact JSON), linted in process (``POST /v1/lint``, limits lifted so that
the stream is judged whole), against the part of it that finds the findings' places
(``app.reading.positions``, asked for the same spots). CPU seconds, medians of 5 runs, in one
run of this command; the places are also timed for a stream whose objects have no finding
(nothing to read again).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import yaml

from app import create_app
from app.reading.positions import Spot, positions
from config.settings import Config

from .manifests import model_manifest, runtime_manifest

RUNS = 5


def _median_cpu(work: Callable[[], object]) -> float:
    samples = []
    for _ in range(RUNS):
        start = time.process_time()
        work()
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def _documents(runtimes: int) -> list[dict]:
    import random

    rng = random.Random(20240601)
    return [model_manifest(), *(runtime_manifest(index, rng) for index in range(runtimes))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtimes", type=int, default=1_000)
    args = parser.parse_args()
    documents = _documents(args.runtimes)
    bodies = {
        "YAML": (yaml.dump_all(documents, Dumper=yaml.CSafeDumper, sort_keys=False).encode(), True),
        "JSON": (json.dumps(documents, separators=(",", ":")).encode(), False),
    }
    with tempfile.TemporaryDirectory() as directory:
        config = Config()
        config.REDIS_URL = None
        config.STORE_PATH = os.path.join(directory, "catalogs.sqlite3")
        config.LOG_LEVEL = "ERROR"
        config.REQUEST_DEADLINE_SECONDS = 600.0
        config.MAX_RUNTIME_CHECKS = 10**9
        config.MAX_REQUEST_MEMORY = 1 << 36
        config.WORKER_MEMORY = 1 << 36
        client = create_app(config).test_client()
        print(f"lint of a model and {args.runtimes} runtimes, CPU seconds (median of {RUNS})")
        print(f"{'body':6} {'bytes':>9} {'findings':>9} {'documents':>9} {'lint':>7} {'places':>7}")
        for name, (raw, is_yaml) in bodies.items():
            kind = "application/yaml" if is_yaml else "application/json"

            def lint(raw: bytes = raw, kind: str = kind) -> dict:
                response = client.post("/v1/lint", data=raw, headers={"Content-Type": kind})
                assert response.status_code == 200, response.get_data(as_text=True)[:200]
                return response.get_json()

            answer = lint()
            spots = [
                Spot(f["document"], f["field"] or "kind", f["code"] in ("Unsupported", "Invalid"))
                for f in answer["findings"]
            ]
            lint_seconds = _median_cpu(lint)
            places = _median_cpu(
                lambda raw=raw, spots=spots, is_yaml=is_yaml: positions(raw, is_yaml, spots)
            )
            documents_found = len({spot.document for spot in spots})
            print(
                f"{name:6} {len(raw):>9} {len(spots):>9} {documents_found:>9} "
                f"{lint_seconds:>7.3f} {places:>7.3f}  ({places / lint_seconds:.0%} of the lint)"
            )


if __name__ == "__main__":
    main()
