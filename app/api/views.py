"""``POST /v1/rank`` and ``POST /v1/select``: thin views that look up the ranking cache, then
decode, validate, rank and render (SPEC §15, §16)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, g, request

from app import deadline
from app.cache import CachedAnswer, answers, keys
from app.errors import (
    MODEL_NOT_READY_HINT,
    SELECTION_ERRORS,
    ApiError,
    MalformedRequest,
    ModelNotFound,
    ModelNotReady,
    NoRuntimeFound,
    PayloadTooLarge,
    UnsupportedMediaType,
    error_response,
)
from app.schemas.requests import load_rank_request
from app.selection.documents import RankRequest
from app.selection.ranking import Ranking, rank_runtimes

from . import decoding, manifests
from .body import read_body
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
OUTPUT_JSON, OUTPUT_TEXT, OUTPUT_YAML = "json", "text", "yaml"  # part of the cache keys
RANK_OUTPUTS = (
    "application/json",
    "text/plain",
    "application/yaml",
    "application/x-yaml",
    "text/yaml",
)


def content_type() -> str:
    return request.mimetype or "application/json"


def decoded_json(raw: bytes) -> dict | list:
    """A JSON body (400 when it does not parse)."""
    try:
        return decoding.decode_json_body(raw)
    except decoding.MalformedRequest as error:
        raise MalformedRequest(str(error)) from None


def body_payload(raw: bytes) -> tuple[bool, Any]:
    """``(is_yaml, value)``: a YAML body's documents, or a JSON body's object or array; 400 when
    it does not decode, 415 for another content type."""
    mimetype = content_type()
    try:
        if mimetype in JSON_TYPES or mimetype.endswith("+json"):
            return False, decoding.decode_json_body(raw)
        if mimetype in YAML_TYPES:
            return True, manifests.yaml_documents(raw)
    except decoding.MalformedRequest as error:
        raise MalformedRequest(str(error)) from None
    raise UnsupportedMediaType(
        f"unsupported Content-Type {mimetype!r}: send application/json or application/yaml"
    )


def decoded_body(raw: bytes, require_model: bool = True) -> manifests.ManifestStream:
    """The request body, from JSON or a kubectl-style YAML stream. SPEC §15: a JSON object with a
    top-level ``kind`` is a manifest (one object or a ``kind: List``), an array a list of
    manifests; any other object is the request itself."""
    is_yaml, data = body_payload(raw)
    try:
        if is_yaml:
            return manifests.read_stream(data, require_model=require_model)
        if isinstance(data, list):
            return manifests.read_stream(data, "array item", 0, require_model=require_model)
        if "kind" in data:
            return manifests.read_stream([data], "manifest", require_model=require_model)
        return manifests.ManifestStream(request=data)
    except decoding.MalformedRequest as error:
        raise MalformedRequest(str(error)) from None
    except manifests.ModelNotInStream as error:
        raise ModelNotFound(str(error)) from None


def load_request(raw: bytes) -> RankRequest:
    """Decode and validate the request body; leaves ``g.runtime_count`` for the log and
    metrics. Raises the 400/413/415/422 errors, which are never cached."""
    stream = decoded_body(raw)
    deadline.check()  # each stage is linear in the body; check between them
    body = stream.request
    runtime_docs = body.get("runtimes")
    limit = current_app.config["MAX_RUNTIMES"]
    if isinstance(runtime_docs, list) and len(runtime_docs) > limit:
        raise PayloadTooLarge(
            f"request has {len(runtime_docs)} runtimes; this service accepts at most {limit}"
        )
    rank_request = load_rank_request(body, request.args, stream.others, stream.repeated)
    g.runtime_count = len(rank_request.runtimes)
    deadline.check()
    return rank_request


def compute_ranking(rank_request: RankRequest) -> Ranking:
    """Rank a validated request; leaves ``g.selection_seconds`` and ``g.ranking`` for the
    request log line and the metrics."""
    started = time.perf_counter()
    ranking = rank_runtimes(rank_request)
    g.selection_seconds = time.perf_counter() - started
    deadline.check()  # before anything is rendered or stored
    g.ranking = ranking
    return ranking


def cached_answer(
    endpoint: str, output: str, render: Callable[[Ranking], CachedAnswer]
) -> Response:
    """SPEC §16. First the digest of the raw request, so a repeat costs a hash and a GET; on a
    miss, decode and validate, then the key of the canonical inputs (a request that differs
    only in what selection ignores); on a miss there too, rank and render."""
    session = answers.request_session()
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

    def canonical() -> tuple[str, Callable[[], CachedAnswer]]:
        rank_request = load_request(raw)
        ranking_key = keys.ranking_key(session.cache.prefix, rank_request, endpoint, output)
        return ranking_key, lambda: render(compute_ranking(rank_request))

    return answers.response(session, answers.answer_in_two(session, request_key, canonical))


@bp.before_request
def _stateless_access() -> None:
    """SPEC §17: the stateless endpoints stay open unless OME_RANKER_AUTH_STATELESS=true, which
    asks any known token of them."""
    if current_app.config["AUTH_STATELESS"]:
        from .access import caller

        caller()


@bp.after_request
def _cache_header(response: Response) -> Response:
    result = g.get("cache_result")
    if result is not None:  # also on the errors of these views: they were not cached either
        response.headers["X-Cache"] = result
    return response


def _model_not_ready(ranking: Ranking) -> CachedAnswer | None:
    error = ranking.error
    if error is None or error.code != ModelNotReady.code:
        return None
    return error_answer(ModelNotReady(error.message, hint=MODEL_NOT_READY_HINT))


def rank_answer(ranking: Ranking, output: str) -> CachedAnswer:
    # SPEC §15: both endpoints refuse a model that is not Ready; OME's other errors are a 200
    # ranking on /v1/rank.
    refused = _model_not_ready(ranking)
    if refused is not None:
        return refused
    if output == OUTPUT_TEXT:
        return CachedAnswer(200, TEXT_MIME, explain_table(ranking).encode("utf-8", "replace"))
    body = ranking_body(ranking)
    if output == OUTPUT_YAML:
        return CachedAnswer(200, YAML_MIME, to_yaml(body))
    return CachedAnswer(200, JSON_MIME, to_json(body))


def error_answer(error: ApiError) -> CachedAnswer:
    response = error_response(error.status, error.code, error.message, **error.details)
    return CachedAnswer(response.status_code, response.content_type, response.get_data())


def select_answer(ranking: Ranking) -> CachedAnswer:
    # OME's own errors are answers about the inputs, cached like a 200 (SPEC §7, §15).
    refused = _model_not_ready(ranking)
    if refused is not None:
        return refused
    error = ranking.error
    if error is not None:
        return error_answer(SELECTION_ERRORS[error.code](error.message))
    if ranking.selected is None:
        return error_answer(NoRuntimeFound(ranking.message, excluded=excluded_reasons(ranking)))
    return CachedAnswer(200, JSON_MIME, to_json(select_body(ranking)))


def wanted_output() -> str:
    """JSON (the default), the text table or YAML, by ``Accept``."""
    wanted = request.accept_mimetypes.best_match(RANK_OUTPUTS, default=JSON_MIME)
    if wanted in YAML_TYPES:
        return OUTPUT_YAML
    return OUTPUT_TEXT if wanted == "text/plain" else OUTPUT_JSON


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
