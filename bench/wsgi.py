"""The app in process: built from environment settings, called as a WSGI callable.

Calling ``app(environ, start_response)`` with an environ prepared once costs a dict copy and a
``BytesIO`` per request. ``app.test_client()`` builds the environ anew on every call
(``EnvironBuilder``, header parsing, a response wrapper), tens of microseconds that would land
in the hot-request figure, so the benchmarks use this instead.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from flask import Flask
from werkzeug.test import EnvironBuilder

from app import create_app


class BenchError(RuntimeError):
    """The service did not answer as the benchmark expects: its figures would be meaningless."""


@contextlib.contextmanager
def environment(values: Mapping[str, str | None]) -> Iterator[None]:
    """Set (or, for ``None``, remove) environment variables, and restore them afterwards."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def build_app(*, redis_url: str | None, prefix: str) -> Flask:
    """The production app (``Config`` from the environment) with the given cache backend:
    Redis with ``redis_url``, else the in-process LRU. Metrics in a per-app registry, as
    without gunicorn."""
    settings = {
        "REDIS_URL": redis_url,
        "OME_RANKER_REDIS_CLUSTER": None,
        "OME_RANKER_CACHE_PREFIX": prefix,
        "OME_RANKER_CACHE_LOCAL_ENTRIES": None,
        "OME_RANKER_MAX_RUNTIMES": None,
        "OME_RANKER_MAX_BODY_BYTES": None,
        "OME_RANKER_LOG_LEVEL": None,
        "PROMETHEUS_MULTIPROC_DIR": None,
    }
    with environment(settings):
        return create_app()


@contextlib.contextmanager
def quiet_logs() -> Iterator[None]:
    """Send the app's JSON log lines to /dev/null: they are still formatted and written (a real
    per-request cost), but do not flood the benchmark's output."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
        yield


class WsgiCall:
    """One request, prepared once and sent as often as needed; checks every answer."""

    def __init__(
        self,
        app: Callable[..., Any],
        path: str,
        *,
        method: str = "POST",
        body: bytes = b"",
        headers: Mapping[str, str] | None = None,
        expect_cache: str | None = None,
    ) -> None:
        self.app = app
        self.body = body
        self.expect_cache = expect_cache
        builder = EnvironBuilder(path=path, method=method, data=body, headers=dict(headers or {}))
        try:
            self.environ = builder.get_environ()
        finally:
            builder.close()
        self._status = ""
        self._headers: list[tuple[str, str]] = []

    def _start_response(self, status: str, headers: list[tuple[str, str]], exc_info=None):
        self._status, self._headers = status, headers

    def __call__(self) -> bytes:
        environ = dict(self.environ)
        environ["wsgi.input"] = io.BytesIO(self.body)
        chunks = self.app(environ, self._start_response)
        try:
            answer = b"".join(chunks)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        if not self._status.startswith("200"):
            raise BenchError(f"{self.environ['PATH_INFO']} answered {self._status}: {answer[:200]}")
        if self.expect_cache is not None and self.header("X-Cache") != self.expect_cache:
            raise BenchError(
                f"expected X-Cache: {self.expect_cache}, got {self.header('X-Cache')!r}"
            )
        return answer

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self._headers if key.lower() == wanted), None)


def trivial_wsgi(environ, start_response):
    """A WSGI callable that does nothing: what ``WsgiCall`` itself costs."""
    start_response("200 OK", [("Content-Type", "application/json")])
    return [b"{}"]
