"""``POST /v1/rank`` and ``POST /v1/select``: thin views that look up the ranking cache, then
decode, validate, rank and render (SPEC §15, §16)."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, current_app, request

from app.cache import keys
from app.http import cached, record
from app.http.access import stateless_access
from app.http.body import content_type, read_body
from app.http.ranking import compute_ranking, load_request
from app.http.respond import wanted_output
from app.rendering.answers import OUTPUT_JSON, Answer, rank_answer, select_answer
from app.selection.ranking import Ranking

bp = Blueprint("ranking", __name__)


def cached_answer(endpoint: str, output: str, render: Callable[[Ranking], Answer]) -> Response:
    """SPEC §16. First the digest of the raw request, so a repeat costs a hash and a GET; on a
    miss, decode and validate, then the key of the canonical inputs (a request that differs
    only in what selection ignores); on a miss there too, rank and render."""
    session = cached.request_session()
    raw = read_body()
    request_key = keys.request_key(
        session.cache.prefix,
        raw,
        endpoint=endpoint,
        output=output,
        content_type=content_type(),
        namespace=request.args.get("namespace"),
        ome_version=request.args.get("omeVersion"),
        model_cache_provider=request.args.get("modelCacheProvider"),
        max_runtimes=current_app.config["MAX_RUNTIMES"],
    )

    def canonical() -> tuple[str, Callable[[], Answer]]:
        rank_request = load_request(raw)
        ranking_key = keys.ranking_key(session.cache.prefix, rank_request, endpoint, output)
        return ranking_key, lambda: render(compute_ranking(rank_request))

    return cached.response(session, cached.answer_in_two(session, request_key, canonical))


bp.before_request(stateless_access)


@bp.after_request
def _cache_header(response: Response) -> Response:
    result = record.this_request().cache_result
    if result is not None:  # also on the errors of these views: they were not cached either
        response.headers["X-Cache"] = result
    return response


@bp.post("/v1/rank")
def rank() -> Response:
    """The whole ranking, as JSON, the explain table, or YAML (``Accept``)."""
    output = wanted_output()
    response = cached_answer("rank", output, lambda ranking: rank_answer(ranking, output))
    response.headers["Vary"] = "Accept"  # one URL, three representations
    return response


@bp.post("/v1/select")
def select() -> Response:
    """Only the runtime OME would use, or the error OME would report."""
    return cached_answer("select", OUTPUT_JSON, select_answer)
