"""``--server``: the commands' questions to a running service over HTTP(S), with urllib3
(connection reuse, a bounded retry policy and the environment's proxy, which ``urllib`` does
not combine). Imported only when a command is given ``--server``: a local run never loads it."""

from __future__ import annotations

import ssl
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import urllib3
from urllib3.exceptions import InvalidHeader
from urllib3.util import Retry

from .transport import USER_AGENT, Query, Reply, Unreachable

# rules §17: a store that cannot be reached answers 503 with Retry-After, and a proxy in front of
# a restarting service 502 or 504. An idempotent call is asked again after the wait the answer
# names (at most RETRY_AFTER_MAX seconds, else 0.5 s, then 1 s), at most RETRIES times: the wait
# is bounded whatever the answers say. A POST (every question that sends manifests) is not.
RETRIED_STATUSES = frozenset({502, 503, 504})
RETRIES = 2
RETRY_AFTER_MAX = 10
BACKOFF_SECONDS = 0.5


class _Retry(Retry):
    """urllib3's retry policy on RETRIED_STATUSES only (urllib3 also asks again on a 413 or 429
    with ``Retry-After``), reading a ``Retry-After`` it cannot parse as absent (urllib3 raises
    on one: a proxy's bad header would end the command)."""

    RETRY_AFTER_STATUS_CODES = RETRIED_STATUSES

    def get_retry_after(self, response: Any) -> float | None:
        try:
            return super().get_retry_after(response)
        except InvalidHeader:
            return None


def retry_policy() -> Retry:
    """What ``Remote`` asks again: the idempotent methods on 502, 503 and 504, never on a
    connection error, a timeout or a redirect (which is answered as it is)."""
    return _Retry(
        total=RETRIES,
        connect=0,
        read=0,
        other=0,
        redirect=0,
        status=RETRIES,
        status_forcelist=RETRIED_STATUSES,
        allowed_methods=Retry.DEFAULT_ALLOWED_METHODS,
        backoff_factor=BACKOFF_SECONDS,
        retry_after_max=RETRY_AFTER_MAX,
        raise_on_redirect=False,
        raise_on_status=False,
    )


class Remote:
    """A running service over HTTP(S), with urllib3: a bearer token, a CA bundle, a timeout,
    ``retry_policy``, the proxy of the environment (``https_proxy``, ``no_proxy``) as urllib
    reads it; redirects are answered as they are (following one would turn a POST into a GET)."""

    def __init__(self, server: str, token: str | None, ca_file: str | None, timeout: float) -> None:
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--server must be an http:// or https:// URL, got {server!r}")
        self.where = server.rstrip("/")
        self._token = token
        self._timeout = urllib3.Timeout(connect=timeout, read=timeout)
        options: dict[str, Any] = {}
        if parts.scheme == "https":
            try:
                options["ssl_context"] = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as error:
                raise ValueError(f"cannot read the CA file {ca_file}: {error}") from None
        proxy = urllib.request.getproxies().get(parts.scheme)
        if proxy and not urllib.request.proxy_bypass(parts.hostname or ""):
            self._pool: urllib3.PoolManager = urllib3.ProxyManager(proxy, **options)
        else:
            self._pool = urllib3.PoolManager(**options)

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        url = self.where + path + (f"?{urlencode(list(query))}" if query else "")
        sent = {"User-Agent": USER_AGENT, **(headers or {})}
        if self._token:
            sent["Authorization"] = f"Bearer {self._token}"
        try:
            response = self._pool.request(
                method,
                url,
                body=body,
                headers=sent,
                timeout=self._timeout,
                retries=retry_policy(),
                redirect=False,
            )
        except urllib3.exceptions.HTTPError as error:
            raise Unreachable(f"cannot reach {self.where}: {_reason(error)}") from None
        return Reply(response.status, response.data, _lower(response.headers))

    def close(self) -> None:
        self._pool.clear()


def _lower(headers: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _reason(error: BaseException) -> str:
    """The cause of urllib3's error in a few words: the socket's (``Connection refused``),
    ``timed out``, or ``TLS: <reason>``."""
    if isinstance(error, urllib3.exceptions.MaxRetryError) and error.reason is not None:
        return _reason(error.reason)
    if isinstance(error, urllib3.exceptions.NewConnectionError) and error.__cause__ is not None:
        return _reason(error.__cause__)  # refused, or a name that does not resolve
    if isinstance(error, (TimeoutError, urllib3.exceptions.TimeoutError)):
        return "timed out"
    if isinstance(error, urllib3.exceptions.SSLError) and error.args:
        cause = error.args[0]
        return f"TLS: {getattr(cause, 'reason', None) or cause}"
    if isinstance(error, urllib3.exceptions.ProtocolError) and len(error.args) > 1:
        return _reason(error.args[1])  # the connection closed or reset before an answer
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__
