"""How the command line asks the HTTP API: the app itself, in this process (the default), or a
service at ``--server``. Both send the same requests and get the same bytes back.

Each way imports what it uses when it is first used: a local lint loads neither Flask nor
the HTTP client (``remote.py``), a ``--server`` command never the app.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

from config.settings import Config, is_loopback_host

Query = Sequence[tuple[str, str]]
USER_AGENT = "ome-ranker-cli"


class Unreachable(Exception):
    """No answer from the service (refused, timed out, TLS, a redirect); one line to print."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)  # names in lower case

    @property
    def mimetype(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def json(self) -> Any:
        """The body as JSON (parsed once); ``ValueError`` when it is not."""
        return self._parsed

    @cached_property
    def _parsed(self) -> Any:
        return json.loads(self.body)

    def api_error(self) -> dict[str, Any] | None:
        """The API's ``error`` object (rules §15), or None: the answer is not one of the API's
        errors (a proxy's page, another service's answer, an empty body)."""
        try:
            error = self.json()["error"]
        except (ValueError, KeyError, TypeError):
            return None
        if isinstance(error, dict) and all(
            isinstance(error.get(key), str) for key in ("code", "message")
        ):
            return error
        return None

    def error(self) -> dict[str, Any]:
        """The API's ``error`` object, or the body's first line as its message."""
        error = self.api_error()
        if error is not None:
            return error
        text = self.body.decode("utf-8", "replace").strip()
        return {"code": "", "message": text.splitlines()[0] if text else ""}


class Transport(Protocol):
    where: str  # for messages: "the in-process service" or the server's URL

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply: ...

    def close(self) -> None: ...


def segment(value: str) -> str:
    """One path segment (a cluster name), quoted."""
    return quote(value, safe="")


# The service's bounds of work, which the API in this process lifts: a command's work is bounded
# by the files it reads, which are its user's own (docs/cli.md "Local runs"). What the readers
# bound in every body (a YAML stream's nodes and aliases, nesting, a string's length) stays.
LIFTED_LIMITS = (
    "MAX_CONTENT_LENGTH",  # OME_RANKER_MAX_BODY_BYTES
    "MAX_RUNTIMES",
    "MAX_RUNTIME_CHECKS",
    "MAX_ANSWER_BYTES",
    "MAX_OBJECTS_PER_CLUSTER",
    "MAX_REQUEST_MEMORY",
    "WORKER_MEMORY",
)


def local_config(directory: str) -> Config:
    """The service's settings for one command: no Redis, no access control (nothing leaves the
    process), catalogs in a temporary file, only errors logged (stderr is the command's), and
    neither the bounds of work nor the deadline of a request (``LIFTED_LIMITS``)."""
    config = Config()  # a bad setting in the environment is still an error
    for name in LIFTED_LIMITS:
        setattr(config, name, sys.maxsize)
    config.REQUEST_DEADLINE_SECONDS = None  # type: ignore[assignment]
    config.REDIS_URL = None
    config.REDIS_CLUSTER = False
    config.STORE_PATH = os.path.join(directory, "catalogs.sqlite3")
    config.AUTH_MODE = "none"
    config.TOKENS_FILE = None
    config.AUTH_STATELESS = False
    config.LOG_LEVEL = "ERROR"
    return config


# What the in-process API answers without Flask (``app.linting.local_answer``): the lint of a
# stream, asked as the command asks it. Anything else goes to ``create_app``'s test client.
LOCAL_LINT = ("POST", "/v1/lint")
LOCAL_LINT_QUERY = frozenset({"omeVersion", "modelCacheProvider", "acceleratorClassesKnown"})
LOCAL_OUTPUTS = {"application/json": "json", "text/plain": "text", "application/yaml": "yaml"}


class InProcess:
    """The API without a server or a network: ``create_app`` and its test client, built on first
    use, and ``POST /v1/lint`` answered without them (the same status and bytes)."""

    where = "the in-process service"

    def __init__(self) -> None:
        self._directory = tempfile.TemporaryDirectory(prefix="ome-ranker-cli-")
        try:
            self._config = local_config(self._directory.name)  # a bad setting: SettingsError
        except BaseException:
            self._directory.cleanup()
            raise
        self._app: Any = None

    def _client(self) -> Any:
        if self._app is None:
            from app import create_app  # only here: --server never builds the app

            self._app = create_app(self._config)
        return self._app.test_client()

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        if (method, path) == LOCAL_LINT:
            reply = _local_lint(query, body or b"", headers or {})
            if reply is not None:
                return reply
        response = self._client().open(
            path, method=method, query_string=list(query), data=body, headers=dict(headers or {})
        )
        reply_headers = {name.lower(): value for name, value in response.headers.items()}
        return Reply(response.status_code, response.get_data(), reply_headers)

    def close(self) -> None:
        if self._app is not None:
            from app.cache import get_ranking_cache

            get_ranking_cache(self._app).close()
            self._app = None
        self._directory.cleanup()


def _local_lint(query: Query, body: bytes, headers: Mapping[str, str]) -> Reply | None:
    """The lint the command asks for, answered by ``app.linting``; None for a request it does
    not ask (another representation, another parameter), which the app answers."""
    output = LOCAL_OUTPUTS.get(headers.get("Accept", ""))
    if output is None or any(name not in LOCAL_LINT_QUERY for name, _ in query):
        return None
    from app.linting import local_answer

    mimetype = headers.get("Content-Type", "").split(";")[0].strip().lower()
    answer = local_answer(body, mimetype, query, output)
    return Reply(
        answer.status, answer.body, {"content-type": answer.content_type, "vary": "Accept"}
    )


def exposed_host(server: str, token: str | None) -> str | None:
    """The host a token would travel to unencrypted (an ``http://`` server that is not this
    machine), or None: no token, ``https://``, or loopback."""
    parts = urlsplit(server)
    if not token or parts.scheme != "http" or is_loopback_host(parts.hostname or ""):
        return None
    return parts.hostname or server
