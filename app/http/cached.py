"""One path for cached answers (rules §16, §17): ``/v1/rank``, ``/v1/select`` and every catalog
route look their answer up, compute it on a miss, store it and build the response here.

A request's cache session honours ``Cache-Control: no-cache`` (reads skipped, the answer still
stored). ``X-Cache`` says ``hit``, ``miss`` or ``bypass``; an OME error answered (a 404/422 of
``/v1/select``), computed or cached, leaves its code for the request's log line. An answer is
compressed once, before it is stored, and a client that accepts gzip is sent that gzip member
(app/http/compression.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator

from flask import Response, current_app, request

from app.cache import CacheSession, get_ranking_cache
from app.cache.framing import compressed
from app.rendering.answers import Answer

from . import record
from .compression import GZIP, accepts_gzip

Compute = Callable[[], Answer]


def request_session() -> CacheSession:
    """This request's view of the app's ranking cache."""
    session = get_ranking_cache(current_app).session(bypass=bool(request.cache_control.no_cache))
    record.this_request().cache_result = session.result
    return session


def answer(session: CacheSession, key: str, compute: Compute) -> Answer:
    """The answer stored under ``key``, else ``compute()``'s, stored there."""
    return answer_in_two(session, key, lambda: (None, compute))


def answer_in_two(
    session: CacheSession, key: str, canonical: Callable[[], tuple[str | None, Compute]]
) -> Answer:
    """The answer under ``key`` (the raw request's digest, so a repeat decodes nothing); on a
    miss, ``canonical()`` decodes and validates and gives the key of the canonical inputs and
    how to compute the answer: a request that differs only in what selection ignores finds it
    there. A computed answer is stored under both keys, a found one under the first."""
    found = session.lookup(key)
    if found is not None:
        return found
    second, compute = canonical()
    if second is not None:
        found = session.lookup(second)
        if found is not None:
            session.store({key: found}, fresh=False)
            return found
    found = compressed(compute())  # once, for the cache and for this answer
    entries = {key: found} if second is None else {key: found, second: found}
    session.store(entries, fresh=True)
    return found


def response(session: CacheSession, found: Answer) -> Response:
    """The HTTP response of an answer, with ``X-Cache``."""
    seen = record.this_request()
    seen.cache_result = session.result
    if found.status >= 400:  # an OME error, computed or cached: its code for the log line
        seen.error_code = json.loads(found.body)["error"]["code"]
    body, headers = served(found, accepts_gzip(), session.result)
    return Response(body, status=found.status, headers=headers)


def served(found: Answer, gzip: bool, result: str) -> tuple[bytes, list[tuple[str, str]]]:
    """The body and headers of an answer as sent, ``X-Cache: <result>`` the last: its gzip
    member, as stored (nothing is compressed here), to a client that takes gzip. The poll path
    (app/http/polls.py) sends these too."""
    packed = found.gzipped if gzip else None
    body = found.body if packed is None else packed
    headers = [("Content-Type", found.content_type), ("Content-Length", str(len(body)))]
    if packed is not None:
        headers.append(("Content-Encoding", GZIP))
    headers.append(("X-Cache", result))
    return body, headers


@contextlib.contextmanager
def computing(session: CacheSession, key: str) -> Iterator[Answer | None]:
    """After a miss on ``key``: wait while another request of this worker computes it, then
    the answer it stored (None: compute it, holding the key meanwhile). A bypass computes
    its own (rules §16: ``no-cache`` skips the reads)."""
    with session.cache.flights.computing(key) as waited:
        yield session.lookup(key) if waited and not session.bypass else None


def computed(session: CacheSession, key: str, compute: Compute) -> Answer:
    """``compute()``'s answer, stored under ``key`` (after a miss the caller made itself)."""
    found = compressed(compute())
    session.store({key: found}, fresh=True)
    return found
