"""``python -m bench.catalog_load``: a stored catalog's cached answer under load, over HTTP.

gunicorn with the shipped config (SQLite store, the embedded default) holding a catalog of
``--runtimes`` runtimes; ``wrk`` (required) sends ``GET /healthz`` and then the cached
``GET /v1/clusters/{c}/rank?model=…`` for the same duration at one connection (latency) and at
``--connections`` (throughput). Prints each pair and its ratio: the issue's targets are a cached
ask within 1.5x the latency of /healthz, and at 64 connections at least 0.7x its requests/s with
no errors.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from .load import Gunicorn, LoadResult, Scenario, run_wrk, shipped_workers
from .manifests import MODEL_NAME, TARGET_NAMESPACE, rank_request_body


def _row(label: str, base: LoadResult, asked: LoadResult) -> str:
    return (
        f"{label}: /healthz {base.per_second:,.0f} req/s p50 {base.p50 * 1000:.2f} ms "
        f"p99 {base.p99 * 1000:.2f} ms; cached rank {asked.per_second:,.0f} req/s "
        f"p50 {asked.p50 * 1000:.2f} ms p99 {asked.p99 * 1000:.2f} ms; "
        f"throughput {asked.per_second / base.per_second:.2f}x, "
        f"p50 latency {asked.p50 / base.p50:.2f}x; errors (non-2xx + socket) "
        f"{base.non_2xx} + {base.socket_errors}, {asked.non_2xx} + {asked.socket_errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtimes", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=shipped_workers())
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required (Debian: apt-get install wrk)")
    workdir = Path(tempfile.mkdtemp(prefix="ome-ranker-bench-"))
    os.environ["OME_RANKER_AUTH"] = "none"
    os.environ["OME_RANKER_STORE_PATH"] = str(workdir / "catalogs.sqlite3")
    body = rank_request_body(args.runtimes)
    with Gunicorn(workers=args.workers, redis_url=None, prefix="bench:", workdir=workdir) as server:
        server.request("PUT", "/v1/clusters/bench", b"{}", {"Content-Type": "application/json"})
        documents = json.dumps([body["model"], *body["runtimes"]]).encode()
        status, _, answer = server.request(
            "PUT", "/v1/clusters/bench/objects", documents, {"Content-Type": "application/json"}
        )
        if status != 200:
            raise SystemExit(f"PUT objects: {status} {answer[:200]!r}")
        path = f"/v1/clusters/bench/rank?model={MODEL_NAME}&namespace={TARGET_NAMESPACE}"
        for _ in range(args.workers * 20):  # every worker has answered it once
            server.request("GET", path)
        health = Scenario("healthz", "/healthz", post=False, miss_every=0)
        asked = Scenario("cached rank", path, post=False, miss_every=0)
        print(f"{args.runtimes} runtimes, {args.workers} workers, {args.seconds:g} s per run")
        for connections in (1, args.connections):
            base = run_wrk(server, health, workdir / "none", args.seconds, connections)
            result = run_wrk(server, asked, workdir / "none", args.seconds, connections)
            print(_row(f"{connections} connection(s)", base, result))


if __name__ == "__main__":
    main()
