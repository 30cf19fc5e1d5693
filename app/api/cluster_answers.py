"""Answers by name from a stored catalog (rules §17): ``rank`` and ``select`` for a model or an
InferenceService, the same with a request's manifests laid over the catalog, and every
InferenceService's outcome (``selections``). Answers about a catalog are cached under its uid
and generation, so a write makes every older answer unreachable at once."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

from flask import Blueprint, Response, request

from app import errors
from app.http import deadline
from app.http.access import store_errors
from app.http.body import content_type, ranking_request, read_body
from app.http.catalog_reads import RANK_BY_NAME, SELECT_BY_NAME, ByName, catalog_answer, may_read
from app.http.described import (
    CATALOG_ERRORS,
    NAMESPACE_SCHEMA,
    NEGOTIATED,
    NOT_MODIFIED,
    STREAM_ERRORS,
    answer,
    described,
    parameter,
    ranking_body,
)
from app.http.limits import check_rankings, check_runtimes
from app.http.query import MODEL_CACHE_PROVIDER, NAMESPACE, accelerator_classes_known, check_query
from app.http.rank_request import check_counts, compute_ranking
from app.http.respond import selections_answer, wanted_output
from app.rendering.answers import OUTPUT_JSON, Answer
from app.rendering.payloads import rank_answer, select_answer, shows_advice
from app.schemas.catalog_answers import SelectionsSchema
from app.schemas.ome_kinds import MODEL_KINDS
from app.schemas.rank_answers import (
    OverlayRequestSchema,
    RankResponseSchema,
    SelectResponseSchema,
)
from app.schemas.requests import load_rank_request
from app.selection.prediction import Prediction
from app.selection.questions import planned_placements, planned_rankings, selections
from app.selection.ranking import target_namespace
from app.selection.values import (
    DEFAULT_NAMESPACE,
    RankRequest,
    find_inference_service,
    find_model,
    model_not_found,
    namespaces_holding,
    overlaid,
)
from app.store import CatalogDocuments

bp = Blueprint("cluster_answers", __name__)

BY_NAME = (
    parameter("model", "The model's name (or use `inferenceService`)."),
    parameter(
        "namespace", "Where a BaseModel is looked for; the target namespace.", **NAMESPACE_SCHEMA
    ),
    parameter(
        "modelKind",
        "`BaseModel` or `ClusterBaseModel`: look only there.",
        type="string",
        enum=list(MODEL_KINDS),
    ),
    parameter("inferenceService", "`<namespace>/<name>` of a stored InferenceService."),
    "AcceleratorClassesKnown",
)
BY_NAME_ERRORS = (
    *CATALOG_ERRORS,
    "InvalidDocument",
    "LimitExceeded",
    "ModelNotFound",
    "InferenceServiceNotFound",
    *errors.SELECTION_ERRORS,
)
OVERLAID_ERRORS = (*BY_NAME_ERRORS, *STREAM_ERRORS, "PreconditionFailed")
# RFC 9110 §13.1.2: on a POST a condition that holds is a 412.
IF_NONE_MATCH_POST = parameter(
    "If-None-Match",
    "412 `PreconditionFailed` when the catalog's ETag is still one of these (a list, compared "
    "weakly, or `*`), after the body is read and ranked: answer only against a catalog that "
    "changed since.",
    "header",
)
HINTED_NAMESPACES = 5  # the hint names at most these; ``namespaces`` lists them all
OVERLAID_PARAMETERS = (
    IF_NONE_MATCH_POST,
    "CacheControl",
    *BY_NAME[:3],
    "OmeVersion",
    "ModelCacheProvider",
    "AcceleratorClassesKnown",
)
RANKING = answer(
    "The ranking.", RankResponseSchema, NEGOTIATED, headers=("ETag", "Vary", "X-Cache")
)
SELECTED = answer("The selected runtime.", SelectResponseSchema, headers=("ETag", "X-Cache"))
OVERLAY_BODY = ranking_body(
    "`/v1/rank`'s body, its runtimes and AcceleratorClasses laid over the stored ones (the same "
    "kind, namespace and name replaces); `model` may be left out when `?model=` names a stored "
    "one. Nothing is stored.",
    OverlayRequestSchema,
    "YAML: a `---`-separated stream of manifests and/or `kind: List` objects, as `/v1/rank` "
    "reads it (the schema describes one of its documents), but for its model, which may be left "
    "out when `?model=` names a stored one.",
)


def _rank_request_by_name(documents: CatalogDocuments) -> RankRequest:
    """``?model=<name>`` (with ``?namespace=``, ``?modelKind=``) or
    ``?inferenceService=<namespace>/<name>``: the request the stored objects make, with the
    stored AcceleratorClasses and the cluster's ``acceleratorClassesKnown`` (rules §20.8)."""
    args = request.args
    isvc = None
    namespace = args.get("namespace") or None
    if "inferenceService" in args:
        where, _, name = args["inferenceService"].rpartition("/")
        where = where or namespace or "default"
        isvc = find_inference_service(documents.inference_services, where, name)
        if isvc is None:
            raise errors.InferenceServiceNotFound(
                f"InferenceService {name} not found in namespace {where}"
            )
        if not isvc.model_name:
            raise errors.ModelNotFound(f"InferenceService {name} names no model")
        model = find_model(documents.models, isvc.model_name, where)  # spec.model.kind is not read
        if model is None:
            raise errors.ModelNotFound(model_not_found(isvc.model_name))
    elif args.get("model"):
        model = find_model(documents.models, args["model"], namespace, args.get("modelKind"))
        if model is None:
            raise _no_model(documents, args["model"], namespace, args.get("modelKind"))
    else:
        raise errors.MalformedRequest("name ?model=<name> or ?inferenceService=<namespace>/<name>")
    view = documents.view()
    known = accelerator_classes_known(view.classes_known)
    return dataclasses.replace(view, classes_known=known).rank_request(model, isvc, namespace)


def _no_model(
    documents: CatalogDocuments, name: str, namespace: str | None, kind: str | None
) -> errors.ModelNotFound:
    """OME's 404 for a model asked by name (``?model=``), with the namespaces that do hold a
    BaseModel of that name, when some do (``namespaces``, and in words as ``hint``): only a
    caller that may read the cluster gets this far."""
    elsewhere = namespaces_holding(documents.models, name, namespace, kind)
    if not elsewhere:
        return errors.ModelNotFound(model_not_found(name))
    named = ", ".join(elsewhere[:HINTED_NAMESPACES])
    if len(elsewhere) > HINTED_NAMESPACES:
        named += f" and {len(elsewhere) - HINTED_NAMESPACES} more"
    hint = f"not in namespace {namespace or DEFAULT_NAMESPACE}; found in {named}"
    return errors.ModelNotFound(model_not_found(name), namespaces=elsewhere, hint=hint)


def _by_name(
    cluster: str, by_name: ByName, render: Callable[[Prediction, str], Answer]
) -> Response:
    """The answer by name: asked of the catalog as the poll path asks it (app/http/polls.py),
    which may have looked the token and the cluster up already."""
    may_read(cluster)
    check_query(NAMESPACE)
    output = by_name.output(request.accept_mimetypes)

    def compute(documents: CatalogDocuments) -> Answer:
        check_runtimes(len(documents.runtimes))
        rank_request = _rank_request_by_name(documents)
        advised = shows_advice(by_name.name, output)
        return render(compute_ranking(rank_request, with_advice=advised), output)

    response = catalog_answer(cluster, by_name.question(output, request.args), compute)
    if by_name.vary is not None:
        response.headers["Vary"] = by_name.vary
    return response


@bp.get("/v1/clusters/<cluster>/rank")
@described(
    "rankByName",
    "clusters",
    "`/v1/rank`'s answer from the stored objects",
    parameters=("IfNoneMatch", "CacheControl", *BY_NAME),
    answers={200: RANKING, 304: NOT_MODIFIED},
    errors=BY_NAME_ERRORS,
    secured=True,
)
@store_errors
def rank_by_name(cluster: str) -> Response:
    return _by_name(cluster, RANK_BY_NAME, rank_answer)


@bp.get("/v1/clusters/<cluster>/select")
@described(
    "selectByName",
    "clusters",
    "`/v1/select`'s answer from the stored objects",
    parameters=("IfNoneMatch", "CacheControl", *BY_NAME),
    answers={200: SELECTED, 304: NOT_MODIFIED},
    errors=(*BY_NAME_ERRORS, "NoRuntimeFound"),
    secured=True,
)
@store_errors
def select_by_name(cluster: str) -> Response:
    return _by_name(cluster, SELECT_BY_NAME, lambda prediction, _json: select_answer(prediction))


def _overlaid(cluster: str, endpoint: str, output: str, render) -> Response:
    """A request's manifests over the stored catalog: nothing is stored (rules §17). The answer
    is cached under the catalog's generation and the digest of the raw request."""
    may_read(cluster)
    check_query(NAMESPACE, MODEL_CACHE_PROVIDER)
    raw = read_body()
    question = [
        "overlay",
        endpoint,
        output,
        hashlib.sha256(raw).hexdigest(),
        content_type(),
        sorted(request.args.items(multi=True)),
    ]

    def compute(documents: CatalogDocuments) -> Answer:
        advised = shows_advice(endpoint, output)
        return render(compute_ranking(_overlay_request(documents, raw), with_advice=advised))

    return catalog_answer(cluster, question, compute)


def _overlay_request(documents: CatalogDocuments, raw: bytes) -> RankRequest:
    settings = documents.info.settings
    stream = ranking_request(raw, require_model=False)
    check_counts(stream.request)
    deadline.check()
    stored_model = None
    if "model" not in stream.request:
        name = request.args.get("model")
        if not name:
            raise errors.MalformedRequest("the body holds no model: name a stored one with ?model=")
        namespace, kind = request.args.get("namespace"), request.args.get("modelKind")
        stored_model = find_model(documents.models, name, namespace, kind)
        if stored_model is None:
            raise _no_model(documents, name, namespace, kind)
    query = {"omeVersion": settings.ome_version, **request.args.to_dict()}
    if settings.model_cache_provider is not None:
        query.setdefault("modelCacheProvider", settings.model_cache_provider)
    given = load_rank_request(
        stream.request,
        query,
        stream.others,
        stream.repeated,
        stored_model=stored_model,
        release=True,
    )
    runtimes = overlaid(documents.runtimes, given.runtimes, namespace=target_namespace(given))
    check_runtimes(len(runtimes))
    # The body's classes over the stored ones; the request's own acceleratorClassesKnown (body
    # or query) over the cluster's setting.
    classes = overlaid(documents.classes, given.accelerator_classes)
    known = given.accelerator_classes_known
    return dataclasses.replace(
        given,
        runtimes=tuple(runtimes),
        accelerator_classes=tuple(classes),
        accelerator_classes_known=settings.accelerator_classes_known if known is None else known,
    )


@bp.post("/v1/clusters/<cluster>/rank")
@described(
    "rankOverlaid",
    "clusters",
    "The body's manifests over the stored runtimes; nothing stored",
    parameters=OVERLAID_PARAMETERS,
    body=OVERLAY_BODY,
    answers={200: RANKING},
    errors=OVERLAID_ERRORS,
    secured=True,
)
@store_errors
def rank_overlaid(cluster: str) -> Response:
    output = wanted_output()
    response = _overlaid(cluster, "rank", output, lambda r: rank_answer(r, output))
    response.headers["Vary"] = "Accept"
    return response


@bp.post("/v1/clusters/<cluster>/select")
@described(
    "selectOverlaid",
    "clusters",
    "The body's manifests over the stored runtimes; nothing stored",
    parameters=OVERLAID_PARAMETERS,
    body=OVERLAY_BODY,
    answers={200: SELECTED},
    errors=(*OVERLAID_ERRORS, "NoRuntimeFound"),
    secured=True,
)
@store_errors
def select_overlaid(cluster: str) -> Response:
    return _overlaid(cluster, "select", OUTPUT_JSON, select_answer)


# --- selections -------------------------------------------------------------------------------


@bp.get("/v1/clusters/<cluster>/selections")
@described(
    "clusterSelections",
    "clusters",
    "Every stored InferenceService with its outcome",
    parameters=(
        "IfNoneMatch",
        "CacheControl",
        parameter("namespace", "Only this namespace.", **NAMESPACE_SCHEMA),
        "AcceleratorClassesKnown",
    ),
    answers={
        200: answer(
            "The selections.", SelectionsSchema, NEGOTIATED, headers=("ETag", "Vary", "X-Cache")
        ),
        304: NOT_MODIFIED,
    },
    errors=(*CATALOG_ERRORS, "InvalidDocument", "LimitExceeded"),
    secured=True,
)
@store_errors
def cluster_selections(cluster: str) -> Response:
    may_read(cluster)
    check_query(NAMESPACE)
    output = wanted_output()
    namespace = request.args.get("namespace") or None

    known = accelerator_classes_known()

    def compute(documents: CatalogDocuments) -> Answer:
        view = documents.view()
        if known is not None:  # the query's over the cluster's setting
            view = dataclasses.replace(view, classes_known=known)
        check_rankings(
            (planned_rankings(view, namespace=namespace), len(view.runtimes)),
            placements=planned_placements(view, namespace=namespace),
        )
        rows = selections(view, namespace=namespace)
        extra = {"cluster": cluster, "generation": documents.info.generation}
        return selections_answer(rows, output, extra)

    response = catalog_answer(cluster, ["selections", output, namespace, known], compute)
    response.headers["Vary"] = "Accept"
    return response
