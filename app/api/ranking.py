"""``POST /v1/rank`` and ``POST /v1/select``: thin views that look up the ranking cache, then
decode, validate, rank and render (rules §15, §16)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from flask import Blueprint, Response, current_app, request

from app.cache import keys
from app.errors import SELECTION_ERRORS
from app.http import cached, record
from app.http.access import stateless_access
from app.http.body import content_type, read_body
from app.http.described import (
    JSON,
    NEGOTIATED,
    TEXT,
    YAML,
    YAML_BODIES,
    answer,
    described,
    ranking_body,
)
from app.http.query import MODEL_CACHE_PROVIDER, NAMESPACE, check_query
from app.http.rank_request import compute_ranking, load_request
from app.http.respond import wanted_output
from app.rendering.answers import OUTPUT_JSON, Answer
from app.rendering.payloads import rank_answer, select_answer, shows_advice
from app.schemas.rank_answers import RankRequestSchema, RankResponseSchema, SelectResponseSchema
from app.selection.prediction import Prediction

from .examples import seed_examples

bp = Blueprint("ranking", __name__)

RANKING_BODY = ranking_body(
    "The model, the candidate runtimes and optionally the InferenceService: the object below; "
    "or, as `kubectl apply -f` takes JSON, a manifest (an object with a top-level `kind`: one "
    "object, or a `kind: List` as `kubectl get -o json` prints it) or an array of manifests, read "
    "exactly like the same YAML stream.",
    RankRequestSchema,
    "YAML: a `---`-separated stream of manifests and/or `kind: List` objects, as `kubectl apply "
    "-f` takes it (the schema describes one of its documents; an empty one is skipped): exactly "
    "one BaseModel or ClusterBaseModel, any number of ServingRuntimes and ClusterServingRuntimes, "
    "at most one InferenceService; objects of other kinds (Namespace, Kustomization …) are "
    "skipped and listed under `ignored`; an object repeated with the same kind, namespace and "
    "name counts once (the last), with a warning. `namespace`, `omeVersion` and "
    "`modelCacheProvider` come as query parameters. Loaded safely: no object-building tags, at "
    "most 1 000 aliases, at most 1 000 000 nodes per document with aliases expanded, at most 200 "
    "levels of nesting; YAML only the PyYAML reader reads (anchors, aliases, tags, YAML 1.1 "
    "scalars such as `yes`, flow collections over several lines) at most 131 072 nodes per MiB "
    "of body.",
    examples=lambda: {
        JSON: {"seed": seed_examples()["json_request"]},
        **{media: {"seed": seed_examples()["yaml_request"]} for media in YAML_BODIES},
    },
)
RANKING_PARAMETERS = (
    "Namespace",
    "OmeVersion",
    "ModelCacheProvider",
    "AcceleratorClassesKnown",
    "CacheControl",
)
RANKING_ERRORS = ("MalformedRequest", "PayloadTooLarge", "UnsupportedMediaType", "InvalidDocument")


def cached_answer(endpoint: str, output: str, render: Callable[[Prediction], Answer]) -> Response:
    """rules §16. First the digest of the raw request, so a repeat costs a hash and a GET; on a
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
        accelerator_classes_known=request.args.get("acceleratorClassesKnown"),
        max_runtimes=current_app.config["MAX_RUNTIMES"],
    )

    def canonical() -> tuple[str, Callable[[], Answer]]:
        rank_request = load_request(raw)
        ranking_key = keys.ranking_key(session.cache.prefix, rank_request, endpoint, output)
        advised = shows_advice(endpoint, output)
        return ranking_key, lambda: render(compute_ranking(rank_request, with_advice=advised))

    return cached.response(session, cached.answer_in_two(session, request_key, canonical))


bp.before_request(stateless_access)
bp.before_request(partial(check_query, NAMESPACE, MODEL_CACHE_PROVIDER))  # once access is decided


@bp.after_request
def _cache_header(response: Response) -> Response:
    result = record.this_request().cache_result
    if result is not None:  # also on the errors of these views: they were not cached either
        response.headers["X-Cache"] = result
    return response


@bp.post("/v1/rank")
@described(
    "rankRuntimes",
    "ranking",
    "Rank every candidate runtime as OME would",
    description="Every candidate runtime in OME's order, with priority, weight, score, size "
    "distance and the reason for each incompatible one, plus the selected runtime and OME's "
    "message.\n\nThe answer follows `Accept`: `application/json` (the default, also for an "
    "`Accept` naming no supported type), `text/plain` (the explain table, byte for byte as "
    "`kubectl ome runtime explain` writes it to a file) or `application/yaml` (the JSON answer "
    "as YAML).",
    parameters=RANKING_PARAMETERS,
    body=RANKING_BODY,
    answers={
        200: answer(
            "The ranking.",
            RankResponseSchema,
            NEGOTIATED,
            headers=("Vary",),
            examples=lambda: {
                JSON: {"seed": seed_examples()["rank_response"]},
                TEXT: {"seed": seed_examples()["explain_table"]},
                YAML: {"seed": seed_examples()["rank_response"]},
            },
        )
    },
    errors=(*RANKING_ERRORS, "ModelNotFound", "ModelNotReady"),
    headers=("X-Cache",),
)
def rank() -> Response:
    """The whole ranking, as JSON, the explain table, or YAML (``Accept``)."""
    output = wanted_output()
    response = cached_answer("rank", output, lambda prediction: rank_answer(prediction, output))
    response.headers["Vary"] = "Accept"  # one URL, three representations
    return response


@bp.post("/v1/select")
@described(
    "selectRuntime",
    "ranking",
    "The runtime OME would use",
    description="Only the runtime OME would use, or the error OME would report: 422 "
    "`NoRuntimeFound` when nothing qualifies; 404 `RuntimeNotFound`, 422 `RuntimeDisabled`, "
    "`RuntimeInheritanceError` or `RuntimeIncompatible` for an explicit `spec.runtime.name` "
    "that cannot be used; 422 `ModelNotReady` for a model without a format.",
    parameters=RANKING_PARAMETERS,
    body=RANKING_BODY,
    answers={
        200: answer(
            "The selected runtime.",
            SelectResponseSchema,
            examples=lambda: {JSON: {"seed": seed_examples()["select_response"]}},
        )
    },
    errors=(*RANKING_ERRORS, "ModelNotFound", *SELECTION_ERRORS, "NoRuntimeFound"),
    headers=("X-Cache",),
)
def select() -> Response:
    """Only the runtime OME would use, or the error OME would report."""
    return cached_answer("select", OUTPUT_JSON, select_answer)
