"""How the command line asks the HTTP API: the app itself, in this process (the default), or a
service at ``--server``. Both send the same requests and get the same bytes back.

Each way imports what it uses when it is first used: a local lint loads neither Flask nor
``urllib``'s client, a ``--server`` command never the app.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

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
        return json.loads(self.body)

    def error(self) -> dict[str, Any]:
        """The API's ``error`` object (rules §15), or the body's text as its message."""
        try:
            error = self.json()["error"]
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                return error
        except (ValueError, KeyError, TypeError):
            pass
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


def _no_redirects() -> Any:
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        """A redirect is answered as it is: following one would turn a POST into a GET."""

        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    return NoRedirects()


class Remote:
    """A running service over HTTP(S), with urllib: a bearer token, a CA bundle, a timeout."""

    def __init__(self, server: str, token: str | None, ca_file: str | None, timeout: float) -> None:
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--server must be an http:// or https:// URL, got {server!r}")
        self.where = server.rstrip("/")
        self._token = token
        self._timeout = timeout
        import ssl
        import urllib.request

        handlers: list[Any] = [_no_redirects()]
        if parts.scheme == "https":
            try:
                context = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as error:
                raise ValueError(f"cannot read the CA file {ca_file}: {error}") from None
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        import http.client
        import urllib.error
        import urllib.request

        url = self.where + path + (f"?{urlencode(list(query))}" if query else "")
        sent = {"User-Agent": USER_AGENT, **(headers or {})}
        if self._token:
            sent["Authorization"] = f"Bearer {self._token}"
        request = urllib.request.Request(url, data=body, headers=sent, method=method)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                return Reply(response.status, response.read(), _lower(response.headers))
        except urllib.error.HTTPError as error:
            with error:
                return Reply(error.code, error.read(), _lower(error.headers))
        except urllib.error.URLError as error:
            raise Unreachable(f"cannot reach {self.where}: {_reason(error.reason)}") from None
        except (OSError, http.client.HTTPException) as error:
            raise Unreachable(f"cannot reach {self.where}: {_reason(error)}") from None

    def close(self) -> None:
        pass


def exposed_host(server: str, token: str | None) -> str | None:
    """The host a token would travel to unencrypted (an ``http://`` server that is not this
    machine), or None: no token, ``https://``, or loopback."""
    parts = urlsplit(server)
    if not token or parts.scheme != "http" or is_loopback_host(parts.hostname or ""):
        return None
    return parts.hostname or server


def _lower(headers: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _reason(error: object) -> str:
    import ssl

    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {getattr(error, 'reason', None) or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
