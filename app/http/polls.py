"""Polls of a stored catalog's answer, answered in front of Flask (rules §16, §17).

A dashboard asks ``GET /v1/clusters/<cluster>/rank?model=…`` (or ``…/select``) every few
seconds, and between two writes of the catalog the answer is one this worker already holds
decoded (app/cache/hot.py). Finding it costs a token check, the cluster's info and a dict
lookup; Flask's request handling around it (the request context, routing, the hooks, a response
object and its header set) cost more than all of that together, so such a poll is answered
here, by the WSGI callable in front of Flask's: the same checks, the same status, headers and
body, the same metrics and log line, and ``304`` for an ``If-None-Match`` that names the
cluster's generation, on an answer held (so a question that is no valid one, a model that does
not exist, never gets a 304: RFC 9110 §13.2.1).

Anything else goes to Flask unchanged, which also answers every refusal with its error: a method
but ``GET``, a ``Cache-Control`` header (``no-cache`` skips the cache), a cluster name that is
not one, a namespace that is not a label, no token or one that may not read the cluster, a
cluster that does not exist, a store that fails, an answer this worker does not hold (Flask
computes it or reads the cache's backend, and keeps it for the next poll), an error answer, and
one that would be compressed on its way out. tests/api/test_polls.py holds the two paths to
each other: every kind of poll gets the same answer and the same log line from both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from flask import Flask, Request

from app.cache import HIT, get_ranking_cache, keys
from app.cache.framing import COMPRESS_MIN_BYTES
from app.catalog import get_access, get_store
from app.rendering.payloads import OUTPUT_JSON, Answer
from app.store import ClusterInfo, StoreError
from app.store.records import CLUSTER_NAME

from . import record
from .access import etag
from .compression import GZIP, GZIP_SUFFIX, gzip_etag, identity_tags, takes_gzip
from .conditions import none_match
from .observability import REQUEST_ID_HEADER, finish, request_id_from
from .query import NO_STORE, NOSNIFF, namespace_problem
from .respond import output_for

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

_BY_NAME = re.compile(r"/v1/clusters/([^/]+)/(rank|select)\Z")
# The query parameters an answer by name depends on, in the order of its cache key.
BY_NAME_PARAMETERS = (
    "model",
    "modelKind",
    "namespace",
    "inferenceService",
    "acceleratorClassesKnown",  # as written: a value other than true or false is Flask's 422
)
Headers = list[tuple[str, str]]


def by_name_question(endpoint: str, output: str, args: Mapping[str, str]) -> list:
    """What an answer by name is about, for its cache key: every parameter it reads."""
    return [endpoint, output, *(args.get(name) for name in BY_NAME_PARAMETERS)]


@dataclass(frozen=True)
class _Endpoint:
    name: str  # rank | select
    rule: str  # the view's route, the label of its metrics
    vary: str  # Vary of its answers, as the view and the compression hook leave it
    negotiated: bool  # whether Accept chooses the output (else JSON)


class PollAnswers:
    """The WSGI callable in front of ``app``'s own (``app.wsgi_app``)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.flask_app = app.wsgi_app
        rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
        self.endpoints = {
            "rank": _Endpoint(
                "rank", rules["cluster_answers.rank_by_name"], "Accept, Accept-Encoding", True
            ),
            "select": _Endpoint(
                "select", rules["cluster_answers.select_by_name"], "Accept-Encoding", False
            ),
        }

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET" and "HTTP_CACHE_CONTROL" not in environ:
            asked = _BY_NAME.match(environ.get("PATH_INFO", ""))
            if asked is not None and CLUSTER_NAME.match(asked[1]):
                answered = self._answer(environ, asked[1], self.endpoints[asked[2]])
                if answered is not None:
                    status, headers, body = answered
                    start_response(status, headers)
                    return [body]
        return self.flask_app(environ, start_response)

    def _answer(
        self, environ: WSGIEnvironment, cluster: str, endpoint: _Endpoint
    ) -> tuple[str, Headers, bytes] | None:
        seen = record.RequestRecord()
        asked = self.app.request_class(environ)
        args = asked.args
        if namespace_problem(args.getlist("namespace")) is not None:
            return None
        token = get_access(self.app).identify(asked.headers.get("Authorization"))
        if token is None or not token.can_read(cluster):
            return None
        try:
            info = get_store(self.app).get_info(cluster)
        except StoreError:
            return None
        if info is None:
            return None
        answered = self._held(info, endpoint, asked)
        if answered is None:
            return None
        seen.cache_result = HIT
        status, headers, body = answered
        seen.token_name = token.name
        seen.request_id = request_id_from(asked.headers.get(REQUEST_ID_HEADER))
        headers += [
            ("Vary", endpoint.vary),
            NOSNIFF,
            NO_STORE,
            (REQUEST_ID_HEADER, seen.request_id),
        ]
        finish(
            self.app,
            seen,
            method="GET",
            path=asked.path,
            endpoint=endpoint.rule,
            status=int(status[:3]),
            remote_addr=asked.remote_addr,
        )
        return status, headers, body

    def _held(
        self, info: ClusterInfo, endpoint: _Endpoint, asked: Request
    ) -> tuple[str, Headers, bytes] | None:
        """The answer as the view sends a cache hit, if this worker holds it decoded; its 304
        when ``If-None-Match`` names the generation (a condition on that answer, never on an
        answer this worker does not hold: Flask's path knows whether the query is valid)."""
        output = output_for(asked.accept_mimetypes) if endpoint.negotiated else OUTPUT_JSON
        cache = get_ranking_cache(self.app)
        question = by_name_question(endpoint.name, output, asked.args)
        key = keys.catalog_key(cache.prefix, info.name, info.uid, info.generation, question)
        found: Answer | None = cache.held(key)
        if found is None or found.status != 200:
            return None  # an error's code belongs in the log line: Flask's path sets it
        conditions = asked.headers.get("If-None-Match")
        if conditions is not None and none_match(identity_tags(conditions), etag(info)):
            cache.count("hits")  # on the answer it names, as Flask's path finds it
            return "304 NOT MODIFIED", [("ETag", _tag(info, GZIP_SUFFIX + '"' in conditions))], b""
        takes = takes_gzip(asked)
        if takes and found.gzipped is None and len(found.body) >= COMPRESS_MIN_BYTES:
            return None  # compressed on its way out, by Flask's path
        cache.count("hits")
        packed = found.gzipped if takes else None
        body = found.body if packed is None else packed
        headers = [("Content-Type", found.content_type), ("Content-Length", str(len(body)))]
        if packed is not None:
            headers.append(("Content-Encoding", GZIP))
        headers += [("X-Cache", HIT), ("ETag", _tag(info, packed is not None))]
        return "200 OK", headers, body


def _tag(info: ClusterInfo, gzipped: bool) -> str:
    return gzip_etag(etag(info)) if gzipped else etag(info)
