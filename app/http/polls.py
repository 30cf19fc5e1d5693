"""Polls of a stored catalog's answer, answered in front of Flask (rules §16, §17).

A dashboard asks ``GET /v1/clusters/<cluster>/rank?model=…`` (or ``…/select``) every few
seconds, and between two writes of the catalog the answer is one this worker already holds
decoded (app/cache/hot.py). Finding it costs a token check, the cluster's info and a dict
lookup; Flask's request handling around it (the request context, routing, the hooks, a response
object and its header set) cost more than all of that together, so such a poll is answered
here, by the WSGI callable in front of Flask's, with what the views use
(app/http/catalog_reads.py): the same checks, the same status, headers and body, the same
metrics and log line, and ``304`` for an ``If-None-Match`` that names the cluster's generation,
on an answer held (so a question that is no valid one, a model that does not exist, never gets a
304: RFC 9110 §13.2.1).

A poll of ``GET /v1/fleet`` (rules §21) whose ``If-None-Match`` names the fleet's tag is
answered ``304`` here too: the token decided, the clusters' infos listed, the tag made as the
view makes it (app/http/fleet_reads.py); any other fleet request is Flask's.

Anything else goes to Flask unchanged, which also answers every refusal with its error: a method
but ``GET``, a ``Cache-Control`` header (``no-cache`` skips the cache), a query that Flask's
hooks refuse, a cluster name that is not one, no token or one that may not read the cluster, a
cluster that does not exist, a store that fails, an answer this worker does not hold (Flask
computes it or reads the cache's backend, and keeps it for the next poll), an error answer, and
one that would be compressed on its way out. What this path looked up on the way (the token's
decision, the cluster's info) goes with the request, so the view does not look it up again.
tests/http/test_polls.py holds the two paths to each other: every kind of poll gets the same
answer and the same log line from both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from flask import Flask, Request

from app.cache import HIT, get_ranking_cache
from app.cache.framing import COMPRESS_MIN_BYTES
from app.catalog import get_access, get_store
from app.rendering.answers import Answer
from app.store import ClusterInfo, StoreError

from . import record
from .access import etag, identified
from .cached import served
from .catalog_reads import HANDED_OVER, RANK_BY_NAME, SELECT_BY_NAME, ByName, answer_key, look_up
from .compression import GZIP_SUFFIX, gzip_etag, identity_tags, takes_gzip
from .conditions import none_match
from .fleet_reads import generations_etag, readable_generations
from .observability import REQUEST_ID_HEADER, finish, request_id_from
from .query import FLEET_PATH, NAMESPACE, NO_STORE, NOSNIFF, query_refusal

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

Headers = list[tuple[str, str]]
FLEET_VARY = "Accept, Accept-Encoding"  # as GET /v1/fleet's view and compression leave it


class _Endpoint:
    """An answer by name as this path sends it: its view's route (the label of its metrics)
    and its ``Vary``, as the view and the compression hook leave it."""

    def __init__(self, by_name: ByName, rule: str) -> None:
        self.by_name = by_name
        self.rule = rule
        self.vary = ", ".join(name for name in (by_name.vary, "Accept-Encoding") if name)


def _path_pattern(rule: str) -> str:
    """A route's path as a pattern whose one group is its ``<cluster>``, as Flask's default
    converter takes it (no slash)."""
    before, variable, after = rule.partition("<cluster>")
    if not variable or "<" in after:
        raise ValueError(f"not a route of one cluster: {rule}")
    return f"{re.escape(before)}([^/]+){re.escape(after)}"


class PollAnswers:
    """The WSGI callable in front of ``app``'s own (``app.wsgi_app``)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.flask_app = app.wsgi_app
        rules = {rule.endpoint: rule.rule for rule in app.url_map.iter_rules()}
        # Routed as Flask routes them: the views' own rules, one group each.
        self.endpoints = [
            _Endpoint(by_name, rules[by_name.view]) for by_name in (RANK_BY_NAME, SELECT_BY_NAME)
        ]
        self.paths = re.compile("|".join(_path_pattern(each.rule) for each in self.endpoints))

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET" and "HTTP_CACHE_CONTROL" not in environ:
            path = environ.get("PATH_INFO", "")
            answered = None
            if path == FLEET_PATH:
                if "HTTP_IF_NONE_MATCH" in environ:
                    answered = self._fleet_unchanged(environ)
            else:
                asked = self.paths.fullmatch(path)
                if asked is not None and asked.lastindex is not None:
                    endpoint = self.endpoints[asked.lastindex - 1]
                    answered = self._answer(environ, asked[asked.lastindex], endpoint)
            if answered is not None:
                status, headers, body = answered
                start_response(status, headers)
                return [body]
        return self.flask_app(environ, start_response)

    def _fleet_unchanged(self, environ: WSGIEnvironment) -> tuple[str, Headers, bytes] | None:
        """``GET /v1/fleet``'s 304, when its ``If-None-Match`` names the fleet's tag as the
        token sees it; None for anything else (Flask answers it, refusals included)."""
        asked = self.app.request_class(environ)
        decision = identified(get_access(self.app), asked.headers.get("Authorization"))
        if decision.token is None or decision.refusal is not None:
            return None
        try:
            readable, hidden = readable_generations(get_store(self.app), decision.token)
        except StoreError:
            return None  # Flask's path answers the store's failure
        tag = generations_etag(readable, hidden)
        conditions = asked.headers.get("If-None-Match", "")
        if not none_match(identity_tags(conditions), tag):
            return None
        seen = record.RequestRecord()
        decision.granted(seen)
        named_gzip = GZIP_SUFFIX + '"' in conditions
        headers = [("ETag", gzip_etag(tag) if named_gzip else tag)]
        self._sent(seen, asked, FLEET_PATH, FLEET_VARY, "304 NOT MODIFIED", headers)
        return "304 NOT MODIFIED", headers, b""

    def _answer(
        self, environ: WSGIEnvironment, cluster: str, endpoint: _Endpoint
    ) -> tuple[str, Headers, bytes] | None:
        seen = record.RequestRecord()
        asked = self.app.request_class(environ)
        if query_refusal(asked.args, (NAMESPACE,)) is not None:  # what an answer by name takes
            return None  # refused by Flask's hook, before any view looks anything up
        read = look_up(self.app, cluster, asked.headers.get("Authorization"))
        environ[HANDED_OVER] = read  # if Flask answers, its view takes what was looked up
        info = read.info
        if read.decision.refusal is not None or info is None:
            return None
        answered = self._held(info, endpoint.by_name, asked)
        if answered is None:
            return None
        seen.cache_result = HIT
        status, headers, body = answered
        read.decision.granted(seen)
        self._sent(seen, asked, endpoint.rule, endpoint.vary, status, headers)
        return status, headers, body

    def _sent(
        self,
        seen: record.RequestRecord,
        asked: Request,
        rule: str,
        vary: str,
        status: str,
        headers: Headers,
    ) -> None:
        """The headers every answer of this path adds to its own, and its log line and metrics,
        as Flask's hooks make them for the view of ``rule``."""
        seen.request_id = request_id_from(asked.headers.get(REQUEST_ID_HEADER))
        headers += [("Vary", vary), NOSNIFF, NO_STORE, (REQUEST_ID_HEADER, seen.request_id)]
        finish(
            self.app,
            seen,
            method="GET",
            path=asked.path,
            endpoint=rule,
            status=int(status[:3]),
            remote_addr=asked.remote_addr,
        )

    def _held(
        self, info: ClusterInfo, by_name: ByName, asked: Request
    ) -> tuple[str, Headers, bytes] | None:
        """The answer as the view sends a cache hit, if this worker holds it decoded; its 304
        when ``If-None-Match`` names the generation (a condition on that answer, never on an
        answer this worker does not hold: Flask's path knows whether the query is valid)."""
        cache = get_ranking_cache(self.app)
        question = by_name.question(by_name.output(asked.accept_mimetypes), asked.args)
        found: Answer | None = cache.held(answer_key(cache.prefix, info, question))
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
        body, headers = served(found, takes, HIT)
        headers.append(("ETag", _tag(info, takes and found.gzipped is not None)))
        return "200 OK", headers, body


def _tag(info: ClusterInfo, gzipped: bool) -> str:
    return gzip_etag(etag(info)) if gzipped else etag(info)
