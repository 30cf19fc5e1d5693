"""Clusters: settings and stored objects (rules §17). Writes are atomic and versioned; every
answer carries ``ETag: "<generation>"``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app import errors
from app.catalog import get_store
from app.http import cached
from app.http.access import (
    caller,
    if_match,
    info_or_404,
    log_write,
    max_objects,
    may_read,
    may_write,
    not_modified,
    store_errors,
)
from app.http.body import objects, one_document
from app.http.described import (
    CATALOG_ERRORS,
    MANIFESTS,
    NAMESPACE_SCHEMA,
    NOT_MODIFIED,
    ONE_DOCUMENT,
    STREAM_ERRORS,
    YAML,
    answer,
    body,
    described,
    parameter,
)
from app.http.fleet_reads import bounded_outcomes, counts_body, readable_clusters
from app.http.query import NAMESPACE, check_query
from app.http.respond import respond, wanted_output
from app.rendering.answers import ignored_body, rendered
from app.rendering.encode import sorted_keys
from app.schemas.catalog_answers import (
    ClusterInfoSchema,
    ClusterSettingsSchema,
    ObjectDeletedSchema,
    ObjectListSchema,
    ObjectsWrittenSchema,
)
from app.schemas.fleet_answers import ClusterSummaryListSchema
from app.schemas.query_settings import query_boolean, version_problem
from app.selection.values import DEFAULT_OME_VERSION, OtherObject, length_problem
from app.store import (
    CLUSTER_SCOPED_KINDS,
    KINDS,
    ClusterInfo,
    ClusterSettings,
    CreationRefused,
    StoredObject,
)

bp = Blueprint("clusters", __name__)
SETTINGS = ClusterSettingsSchema()
JSON_OR_YAML = ("application/json", YAML)
WRITE_ERRORS = (*CATALOG_ERRORS, *STREAM_ERRORS, "PreconditionFailed")
ALLOW_EMPTY = "allowEmpty"


def _tagged(description: str, schema: type) -> dict[str, Any]:
    """An answer of one cluster, with its ``ETag``."""
    return answer(description, schema, JSON_OR_YAML, headers=("ETag",))


# Each setting's attribute (ClusterSettings) and its key in JSON; the booleans among them.
SETTINGS_KEYS = {name: field.data_key or name for name, field in SETTINGS.fields.items()}
FLAGS = frozenset({"accelerator_classes_known"})


def info_body(info: ClusterInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        **SETTINGS.dump(info.settings),
        "generation": info.generation,
        "updatedAt": info.updated_at,
        "counts": info.counts,
    }


def reply(body: Any, status: int = 200, info: ClusterInfo | None = None) -> Response:
    """JSON, or YAML when ``Accept`` asks for it; with the cluster's ``ETag``."""
    return respond(rendered(body, wanted_output(), status=status), info=info)


def _settings(body: Any) -> ClusterSettings:
    if not isinstance(body, dict):
        raise errors.MalformedRequest("cluster settings must be an object")
    unknown = set(body) - set(SETTINGS_KEYS.values())
    if unknown:
        raise errors.MalformedRequest(f"unknown settings: {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {name: body.get(key) for name, key in SETTINGS_KEYS.items()}
    problems = {
        SETTINGS_KEYS[name]: [f"Not a valid {'boolean' if name in FLAGS else 'string'}."]
        for name, value in values.items()
        if value is not None and not isinstance(value, bool if name in FLAGS else str)
    }
    values["ome_version"] = values["ome_version"] or DEFAULT_OME_VERSION
    if "omeVersion" not in problems:
        problem = version_problem(values["ome_version"])
        if problem is not None:
            problems["omeVersion"] = [problem]
    provider = values["model_cache_provider"]
    if "modelCacheProvider" not in problems and provider is not None:
        problem = length_problem(provider)  # rules §17: read by the rules, so bounded
        if problem is not None:
            problems["modelCacheProvider"] = [problem]
    if problems:
        raise errors.InvalidDocument(problems)
    return ClusterSettings(**values)


@bp.get("/v1/clusters")
@described(
    "listClusters",
    "clusters",
    "The clusters the token may read",
    answers={
        200: answer(
            "Each cluster's settings, generation and counts, and its InferenceServices by "
            "outcome (rules §21).",
            ClusterSummaryListSchema,
            JSON_OR_YAML,
        )
    },
    errors=("Unauthorized", "StoreUnavailable"),
    secured=True,
)
@store_errors
def list_clusters() -> Response:
    store = get_store()
    infos, _ = readable_clusters(store, caller())
    # rules §21: counted as far as the request's bounds allow (the list answers whatever they
    # cost); each cluster as its counts were made, a write that landed meanwhile the one listed.
    counted = bounded_outcomes(cached.request_session(), store, infos)
    return reply(
        {
            "clusters": [
                {
                    **info_body(info),
                    "inferenceServices": None if counts is None else counts_body(counts),
                }
                for info, counts in counted
            ]
        }
    )


@bp.put("/v1/clusters/<cluster>")
@described(
    "putCluster",
    "clusters",
    "Create (201) or update (200) a cluster's settings",
    parameters=("IfMatch",),
    body=body(
        "The settings, as JSON or YAML (one document); no body keeps the defaults.",
        ClusterSettingsSchema,
        media=ONE_DOCUMENT,
        required=False,
    ),
    answers={
        200: _tagged("Updated.", ClusterInfoSchema),
        201: _tagged("Created.", ClusterInfoSchema),
    },
    errors=(  # no 404: a PUT creates the cluster it does not find
        *(code for code in CATALOG_ERRORS if code != "ClusterNotFound"),
        "PayloadTooLarge",
        "UnsupportedMediaType",
        "PreconditionFailed",
        "InvalidDocument",
        "LimitExceeded",
    ),
    secured=True,
)
@store_errors
def put_cluster(cluster: str) -> Response:
    token = may_write(cluster)
    body = one_document() if request.content_length else {}
    settings = _settings(body)
    try:
        # rules §17: only write on `*` creates; decided inside the write, so a cluster deleted
        # meanwhile is not created again by a token that may only write it.
        info, created = get_store().put_settings(
            cluster, settings, if_match=if_match(), may_create=token.can_manage
        )
    except CreationRefused:
        raise errors.Forbidden(f"token {token.name} may not create clusters") from None
    log_write(token, cluster, "create" if created else "settings", info)
    return reply(info_body(info), 201 if created else 200, info)


@bp.get("/v1/clusters/<cluster>")
@described(
    "getCluster",
    "clusters",
    "One cluster",
    parameters=("IfNoneMatch",),
    answers={200: _tagged("The cluster.", ClusterInfoSchema), 304: NOT_MODIFIED},
    errors=CATALOG_ERRORS,
    secured=True,
)
@store_errors
def get_cluster(cluster: str) -> Response:
    may_read(cluster)
    info = info_or_404(cluster)
    return not_modified(info) or reply(info_body(info), info=info)


@bp.delete("/v1/clusters/<cluster>")
@described(
    "deleteCluster",
    "clusters",
    "Delete a cluster, its settings and objects",
    parameters=("IfMatch",),
    answers={204: answer("Deleted.", media=())},
    errors=(*CATALOG_ERRORS, "PreconditionFailed"),
    secured=True,
)
@store_errors
def delete_cluster(cluster: str) -> Response:
    token = may_write(cluster)
    if not token.can_manage:
        raise errors.Forbidden(f"token {token.name} may not delete clusters")
    if not get_store().delete_cluster(cluster, if_match=if_match()):
        raise errors.ClusterNotFound(cluster)
    log_write(token, cluster, "delete", None)
    return Response(status=204)


# --- objects ----------------------------------------------------------------------------------


def _objects_of_body() -> tuple[list[StoredObject], list[OtherObject], list[str]]:
    """The body's objects validated (rules §1; 422 naming the object's place in the body), the
    other kinds, and the warnings for objects given more than once (the last one wins)."""
    stream = objects(limit=max_objects())
    stream.refuse_invalid()
    return stream.objects, stream.others, stream.warnings


def _write_answer(info: ClusterInfo, others: list[OtherObject], warnings: list[str]) -> Response:
    body = {
        "cluster": info.name,
        "generation": info.generation,
        "counts": info.counts,
        "ignored": ignored_body(others),
        "warnings": warnings,
    }
    return reply(body, info=info)


def _write_objects(cluster: str, action: str) -> Response:
    token = may_write(cluster)
    info_or_404(cluster)
    # rules §17: no objects at all (an empty body, only nulls, only kinds not stored) over a
    # catalog that holds some is a 409, decided when the write commits.
    allow_empty = action == "replace" and bool(query_boolean(request.args, ALLOW_EMPTY))
    objects, others, warnings = _objects_of_body()
    store = get_store()
    if action == "replace":
        info = store.replace_and_mark(
            cluster, objects, if_match=if_match(), allow_empty=allow_empty
        )
    else:
        info = store.apply_objects(cluster, objects, if_match=if_match())
    log_write(token, cluster, action, info)
    return _write_answer(info, others, warnings)


@bp.put("/v1/clusters/<cluster>/objects")
@described(
    "replaceObjects",
    "clusters",
    "Replace every stored object with the body's",
    description="A body of no object at all (empty, only `null` documents or items, only kinds "
    "not stored) over a catalog that holds some is a 409 `EmptyReplace` and writes nothing, "
    "unless `?allowEmpty=true`: an empty `kubectl get` does not wipe a catalog by accident.",
    parameters=(
        "IfMatch",
        parameter(
            ALLOW_EMPTY,
            "`true`: a body of no object empties a catalog that holds some (else 409).",
            type="string",
            enum=["true", "false"],
        ),
    ),
    body=MANIFESTS,
    answers={200: _tagged("What was stored.", ObjectsWrittenSchema)},
    errors=(*WRITE_ERRORS, "EmptyReplace"),
    secured=True,
)
@store_errors
def replace_objects(cluster: str) -> Response:
    """Replace every stored object with the body's."""
    return _write_objects(cluster, "replace")


@bp.post("/v1/clusters/<cluster>/objects")
@described(
    "applyObjects",
    "clusters",
    "Add or replace the body's objects, leave the rest",
    parameters=("IfMatch",),
    body=MANIFESTS,
    answers={200: _tagged("What was stored.", ObjectsWrittenSchema)},
    errors=WRITE_ERRORS,
    secured=True,
)
@store_errors
def apply_objects(cluster: str) -> Response:
    """Add or replace the body's objects (as kubectl apply would), leave the rest."""
    return _write_objects(cluster, "apply")


@bp.delete("/v1/clusters/<cluster>/objects/<kind>/<name>")
@described(
    "deleteObject",
    "clusters",
    "Remove one object",
    parameters=(
        parameter(
            "kind",
            "One of the stored kinds (`counts` lists them).",
            "path",
            required=True,
            type="string",
            enum=list(KINDS),
        ),
        parameter("name", "The object's name.", "path", required=True),
        "IfMatch",
        parameter("namespace", "For namespaced kinds (default `default`).", **NAMESPACE_SCHEMA),
    ),
    answers={200: _tagged("The new generation and counts.", ObjectDeletedSchema)},
    errors=(*CATALOG_ERRORS, "ObjectNotFound", "PreconditionFailed", "InvalidDocument"),
    secured=True,
)
@store_errors
def delete_object(cluster: str, kind: str, name: str) -> Response:
    token = may_write(cluster)
    check_query(NAMESPACE)
    info_or_404(cluster)
    namespace = request.args.get("namespace") or None
    if kind not in CLUSTER_SCOPED_KINDS and namespace is None:
        namespace = "default"
    try:
        info = get_store().delete_object(cluster, kind, namespace, name, if_match=if_match())
    except ValueError as error:
        raise errors.MalformedRequest(str(error)) from None
    if info is None:
        where = f" in namespace {namespace}" if namespace else ""
        raise errors.ObjectNotFound(f"{kind} {name}{where} not found in cluster {cluster}")
    log_write(token, cluster, "delete-object", info)
    return reply(
        {"cluster": cluster, "generation": info.generation, "counts": info.counts}, info=info
    )


@bp.get("/v1/clusters/<cluster>/objects")
@described(
    "listObjects",
    "clusters",
    "The stored objects as a `kind: List`, in their stored form",
    parameters=(
        "IfNoneMatch",
        parameter("kind", "Only objects of this kind."),
        parameter("namespace", "Only objects of this namespace.", **NAMESPACE_SCHEMA),
    ),
    answers={200: _tagged("The objects as stored.", ObjectListSchema), 304: NOT_MODIFIED},
    errors=(*CATALOG_ERRORS, "InvalidDocument"),
    secured=True,
)
@store_errors
def list_objects(cluster: str) -> Response:
    may_read(cluster)
    check_query(NAMESPACE)
    info = info_or_404(cluster)
    unchanged = not_modified(info)
    if unchanged is not None:
        return unchanged
    catalog = get_store().read_catalog(cluster)
    if catalog is None:
        raise errors.ClusterNotFound(cluster)
    kind, namespace = request.args.get("kind"), request.args.get("namespace")
    items = [
        sorted_keys(item.manifest)  # as `kubectl get -o json` writes a custom resource
        for item in catalog.objects
        if (kind is None or item.kind == kind)
        and (namespace is None or item.namespace == namespace)
    ]
    return reply({"apiVersion": "v1", "kind": "List", "items": items}, info=catalog.info)
