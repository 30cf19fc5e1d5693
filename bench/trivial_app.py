"""The production app plus one route, for the load baselines: gunicorn serves
``bench.trivial_app:create_bench_app()`` with the shipped config.

``POST /bench/trivial`` reads the request body and answers a fixed JSON document: the same
request bytes as a ranking request and the same hooks (request id, metrics, the INFO log line),
without the cache or the ranking, so that the load table can tell what carrying the body costs
from what answering it costs. ``GET /healthz`` is the service's own trivial endpoint.
"""

from __future__ import annotations

from flask import Flask, Response, request

from app import create_app

TRIVIAL_PATH = "/bench/trivial"
TRIVIAL_ANSWER = b'{"status":"ok"}'


def create_bench_app() -> Flask:
    app = create_app()

    @app.post(TRIVIAL_PATH)
    def bench_trivial() -> Response:
        request.get_data(cache=False)
        return Response(TRIVIAL_ANSWER, status=200, content_type="application/json")

    return app
