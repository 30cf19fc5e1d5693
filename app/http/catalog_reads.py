"""One path for a stored catalog's answers (rules §16, §17), whichever of two ways it leaves by.

A dashboard's poll of an answer by name (``GET /v1/clusters/<cluster>/rank`` or ``…/select``)
that this worker holds decoded is answered in front of Flask (app/http/polls.py); every other
catalog answer by the views (app/api/cluster_answers.py). Both take from here what an answer
about a catalog needs, each decided once per request:

- the caller's token and whether it may read the cluster (app/http/access.py ``decide``), then
  the cluster's info, read once (``look_up``);
- the answer's key in the cache: the question asked (app/cache/keys.py) about the cluster's uid
  and generation (``answer_key``);
- the answer itself: ``304`` for an ``If-None-Match`` naming the generation, else the cached
  answer, computed on a miss (``catalog_answer``); app/http/cached.py builds its status,
  headers and body (``served``), and the poll path sends the same.

When the poll path looked the token and the info up and does not answer (the answer is not
held, or a check refused), it leaves its ``CatalogRead`` in the WSGI environ under
``HANDED_OVER`` (``"ome_ranker.catalog_read"``), and the view takes it from there
(``may_read``, ``catalog_answer``) instead of asking again: a poll that falls through reads the
cluster's info once and decides its token once, and what either refused (400, 401, 403, 404,
the store's error) is raised by the view where its own check would have raised it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from flask import Flask, Response, request
from werkzeug.datastructures import MIMEAccept

from app import errors
from app.auth import Token
from app.cache import keys
from app.catalog import get_access
from app.rendering.answers import OUTPUT_JSON, Answer
from app.store import CatalogDocuments, ClusterInfo, StoreError

from . import access, cached, record
from .respond import output_for

# The WSGI environ's key of the read the poll path hands to the view.
HANDED_OVER = "ome_ranker.catalog_read"


@dataclass(frozen=True, slots=True)
class ByName:
    """An answer by name (``GET /v1/clusters/<cluster>/rank|select``, rules §17): the view
    that answers it, the endpoint its question names, and whether ``Accept`` chooses its output
    (else JSON), which its ``Vary`` then names."""

    view: str
    name: str
    negotiated: bool

    @property
    def vary(self) -> str | None:
        """``Vary`` as the view sets it (every answer's ``Accept-Encoding`` comes after)."""
        return "Accept" if self.negotiated else None

    def output(self, accept: MIMEAccept) -> str:
        return output_for(accept) if self.negotiated else OUTPUT_JSON

    def question(self, output: str, args: Mapping[str, str]) -> list:
        return keys.by_name_question(self.name, output, args)


RANK_BY_NAME = ByName("cluster_answers.rank_by_name", "rank", negotiated=True)
SELECT_BY_NAME = ByName("cluster_answers.select_by_name", "select", negotiated=False)


@dataclass(slots=True)
class CatalogRead:
    """One request's read of one cluster: whether its token may read it, decided once, and, if
    it may, the cluster's info, read once (or why not: 404, or the store's error)."""

    cluster: str
    decision: access.Decision
    info: ClusterInfo | None = None
    failure: Exception | None = None

    def current(self) -> ClusterInfo:
        """The cluster's info as read; what the read met, raised."""
        if self.failure is not None:
            raise self.failure
        assert self.info is not None  # read, since the token was not refused
        return self.info


def look_up(app: Flask, cluster: str, authorization: str | None) -> CatalogRead:
    """``cluster`` read for the token an ``Authorization`` header names, in the views' order:
    the token's decision, then, unless it refused, the cluster's info."""
    read = CatalogRead(cluster, access.decide(get_access(app), authorization, cluster))
    if read.decision.refusal is None:
        try:
            read.info = access.info_or_404(cluster, app)
        except (errors.ClusterNotFound, StoreError) as failure:
            read.failure = failure
    return read


def answer_key(prefix: str, info: ClusterInfo, question: list) -> str:
    """The cache key of the answer to ``question`` about this generation of the catalog."""
    return keys.catalog_key(prefix, info.name, info.uid, info.generation, question)


def _handed_over(cluster: str) -> CatalogRead | None:
    """What the poll path read of ``cluster`` for this request, if it read it."""
    read = request.environ.get(HANDED_OVER)
    return read if isinstance(read, CatalogRead) and read.cluster == cluster else None


def may_read(cluster: str) -> Token:
    """The request's token, which may read ``cluster``: as the poll path decided it, else
    decided now (app/http/access.py ``may_read``)."""
    read = _handed_over(cluster)
    if read is None:
        return access.may_read(cluster)
    return read.decision.granted(record.this_request())


def catalog_answer(
    cluster: str, question: list, compute: Callable[[CatalogDocuments], Answer]
) -> Response:
    """The answer to ``question`` about the current generation of the catalog (rules §16,
    §17), after ``may_read``: the cluster's info (as the poll path read it, else read now) and
    a cache GET when it is cached; on a miss, the documents are read, in their own snapshot, and
    the answer is stored under the generation it was computed from. Requests of one worker that
    miss the same answer at once wait for one computation. ``If-None-Match`` is evaluated on the
    answer (a 304, or a POST's 412), never instead of it (RFC 9110 §13.2.1)."""
    read = _handed_over(cluster)
    info = access.info_or_404(cluster) if read is None else read.current()
    session = cached.request_session()
    prefix = session.cache.prefix
    key = answer_key(prefix, info, question)
    found = session.lookup(key)
    if found is None:
        with cached.computing(session, key) as found:
            if found is None:
                documents = access.documents_or_404(cluster)
                info = documents.info  # a write may have landed in between: key by what is read
                key = answer_key(prefix, info, question)
                found = cached.computed(session, key, lambda: compute(documents))
    response = cached.response(session, found)  # records the cache's result, a 304's too
    response = access.not_modified(info, found.status) or response
    response.headers["ETag"] = access.etag(info)
    return response
