"""``POST /v1/rank`` and ``POST /v1/select``: thin views that decode, validate,
rank and render (SPEC §15)."""

from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, g, request

from app.errors import (
    MalformedRequest,
    NoRuntimeFound,
    PayloadTooLarge,
    RuntimeDisabled,
    RuntimeNotFound,
    UnsupportedMediaType,
)
from app.schemas.requests import load_rank_request
from app.selection.ranking import Ranking, rank_runtimes

from . import decoding, yaml_stream
from .rendering import (
    excluded_reasons,
    explain_table,
    ranking_body,
    select_body,
    to_json,
    to_yaml,
)

bp = Blueprint("ranking", __name__)

JSON_TYPES = frozenset({"application/json"})
YAML_TYPES = frozenset({"application/yaml", "application/x-yaml", "text/yaml"})
JSON_MIME = "application/json"
TEXT_MIME = "text/plain; charset=utf-8"
YAML_MIME = "application/yaml"
RANK_OUTPUTS = (
    "application/json",
    "text/plain",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
)


def _decoded_body() -> dict:
    """The request body as a dict, from JSON or a kubectl-style YAML stream."""
    mimetype = request.mimetype or "application/json"
    raw = request.get_data(cache=False)
    try:
        if mimetype in JSON_TYPES or mimetype.endswith("+json"):
            return decoding.decode_json_body(raw)
        if mimetype in YAML_TYPES:
            return yaml_stream.decode_yaml_body(raw)
    except decoding.MalformedRequest as error:
        raise MalformedRequest(str(error)) from None
    raise UnsupportedMediaType(
        f"unsupported Content-Type {mimetype!r}: send application/json or application/yaml"
    )


def compute_ranking() -> Ranking:
    """Decode, validate and rank the request body.

    Leaves ``g.runtime_count``, ``g.selection_seconds`` and ``g.ranking`` for the
    request log line and the metrics.
    """
    body = _decoded_body()
    runtime_docs = body.get("runtimes")
    limit = current_app.config["MAX_RUNTIMES"]
    if isinstance(runtime_docs, list) and len(runtime_docs) > limit:
        raise PayloadTooLarge(
            f"request has {len(runtime_docs)} runtimes; this service accepts at most {limit}"
        )
    rank_request = load_rank_request(body, request.args)
    started = time.perf_counter()
    ranking = rank_runtimes(rank_request)
    g.selection_seconds = time.perf_counter() - started
    g.runtime_count = len(rank_request.runtimes)
    g.ranking = ranking
    return ranking


def _respond(payload: bytes, mimetype: str, status: int = 200) -> Response:
    return Response(payload, status=status, content_type=mimetype)


@bp.post("/v1/rank")
def rank() -> Response:
    """The whole ranking, as JSON, the explain table, or YAML (``Accept``)."""
    wanted = request.accept_mimetypes.best_match(RANK_OUTPUTS, default=JSON_MIME)
    ranking = compute_ranking()
    if wanted == "text/plain":
        return _respond(explain_table(ranking).encode("utf-8", "replace"), TEXT_MIME)
    body = ranking_body(ranking)
    if wanted in YAML_TYPES:
        return _respond(to_yaml(body), YAML_MIME)
    return _respond(to_json(body), JSON_MIME)


@bp.post("/v1/select")
def select() -> Response:
    """Only the runtime OME would use, or the error OME would report."""
    ranking = compute_ranking()
    error = ranking.explicit_error
    if error is not None:
        kind = RuntimeNotFound if error.code == RuntimeNotFound.code else RuntimeDisabled
        raise kind(error.message)
    if ranking.selected is None:
        raise NoRuntimeFound(ranking.message, excluded=excluded_reasons(ranking))
    return _respond(to_json(select_body(ranking)), JSON_MIME)
