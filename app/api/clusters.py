"""Clusters: settings and stored objects (SPEC §17). Writes are atomic and versioned; every
answer carries ``ETag: "<generation>"``."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app import errors
from app.catalog import get_store
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
from app.http.body import json_body, objects
from app.http.respond import respond, wanted_output
from app.rendering.answers import rendered
from app.rendering.selections import ignored_body
from app.schemas.requests import DEFAULT_OME_VERSION, version_problem
from app.selection.documents import OtherObject
from app.store import ClusterInfo, ClusterSettings, StoredObject

bp = Blueprint("clusters", __name__)
SETTINGS_KEYS = {"omeVersion", "modelCacheProvider", "description"}


def info_body(info: ClusterInfo) -> dict[str, Any]:
    settings = info.settings
    return {
        "name": info.name,
        "omeVersion": settings.ome_version,
        "modelCacheProvider": settings.model_cache_provider,
        "description": settings.description,
        "generation": info.generation,
        "updatedAt": info.updated_at,
        "counts": info.counts,
    }


def answer(body: Any, status: int = 200, info: ClusterInfo | None = None) -> Response:
    """JSON, or YAML when ``Accept`` asks for it; with the cluster's ``ETag``."""
    return respond(rendered(body, wanted_output(), status=status), info=info)


def _settings(body: Any) -> ClusterSettings:
    if not isinstance(body, dict):
        raise errors.MalformedRequest("cluster settings must be a JSON object")
    unknown = set(body) - SETTINGS_KEYS
    if unknown:
        raise errors.MalformedRequest(f"unknown settings: {', '.join(sorted(unknown))}")
    problems: dict[str, list[str]] = {}
    for key in SETTINGS_KEYS:
        if body.get(key) is not None and not isinstance(body[key], str):
            problems[key] = ["Not a valid string."]
    version = body.get("omeVersion") or DEFAULT_OME_VERSION
    if "omeVersion" not in problems:
        problem = version_problem(version)
        if problem is not None:
            problems["omeVersion"] = [problem]
    if problems:
        raise errors.InvalidDocument(problems)
    return ClusterSettings(version, body.get("modelCacheProvider"), body.get("description"))


@bp.get("/v1/clusters")
@store_errors
def list_clusters() -> Response:
    token = caller()
    infos = [info for info in get_store().list_infos() if token.can_read(info.name)]
    return answer({"clusters": [info_body(info) for info in infos]})


@bp.put("/v1/clusters/<cluster>")
@store_errors
def put_cluster(cluster: str) -> Response:
    token = may_write(cluster)
    store = get_store()
    body = json_body() if request.content_length else {}
    settings = _settings(body)
    if store.get_info(cluster) is None and not token.can_manage:
        raise errors.Forbidden(f"token {token.name} may not create clusters")
    info, created = store.put_settings(cluster, settings, if_match=if_match())
    log_write(token, cluster, "create" if created else "settings", info)
    return answer(info_body(info), 201 if created else 200, info)


@bp.get("/v1/clusters/<cluster>")
@store_errors
def get_cluster(cluster: str) -> Response:
    may_read(cluster)
    info = info_or_404(cluster)
    return not_modified(info) or answer(info_body(info), info=info)


@bp.delete("/v1/clusters/<cluster>")
@store_errors
def delete_cluster(cluster: str) -> Response:
    token = may_write(cluster)
    if not token.can_manage:
        raise errors.Forbidden(f"token {token.name} may not delete clusters")
    if not get_store().delete_cluster(cluster, if_match=if_match()):
        raise errors.ClusterNotFound(f"cluster {cluster} not found")
    log_write(token, cluster, "delete", None)
    return Response(status=204)


# --- objects ----------------------------------------------------------------------------------


def _objects_of_body() -> tuple[list[StoredObject], list[OtherObject], list[str]]:
    """The body's objects validated (SPEC §1; 422 naming the object's place in the body), the
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
    return answer(body, info=info)


def _write_objects(cluster: str, action: str) -> Response:
    token = may_write(cluster)
    info_or_404(cluster)
    objects, others, warnings = _objects_of_body()
    store = get_store()
    write = store.replace_objects if action == "replace" else store.apply_objects
    info = write(cluster, objects, if_match=if_match())
    log_write(token, cluster, action, info)
    return _write_answer(info, others, warnings)


@bp.put("/v1/clusters/<cluster>/objects")
@store_errors
def replace_objects(cluster: str) -> Response:
    """Replace every stored object with the body's."""
    return _write_objects(cluster, "replace")


@bp.post("/v1/clusters/<cluster>/objects")
@store_errors
def apply_objects(cluster: str) -> Response:
    """Add or replace the body's objects (as kubectl apply would), leave the rest."""
    return _write_objects(cluster, "apply")


@bp.delete("/v1/clusters/<cluster>/objects/<kind>/<name>")
@store_errors
def delete_object(cluster: str, kind: str, name: str) -> Response:
    token = may_write(cluster)
    info_or_404(cluster)
    namespace = request.args.get("namespace") or None
    if kind not in ("ClusterServingRuntime", "ClusterBaseModel") and namespace is None:
        namespace = "default"
    try:
        info = get_store().delete_object(cluster, kind, namespace, name, if_match=if_match())
    except ValueError as error:
        raise errors.MalformedRequest(str(error)) from None
    if info is None:
        where = f" in namespace {namespace}" if namespace else ""
        raise errors.ObjectNotFound(f"{kind} {name}{where} not found in cluster {cluster}")
    log_write(token, cluster, "delete-object", info)
    return answer(
        {"cluster": cluster, "generation": info.generation, "counts": info.counts}, info=info
    )


@bp.get("/v1/clusters/<cluster>/objects")
@store_errors
def list_objects(cluster: str) -> Response:
    may_read(cluster)
    info = info_or_404(cluster)
    unchanged = not_modified(info)
    if unchanged is not None:
        return unchanged
    catalog = get_store().read_catalog(cluster)
    if catalog is None:
        raise errors.ClusterNotFound(f"cluster {cluster} not found")
    kind, namespace = request.args.get("kind"), request.args.get("namespace")
    items = [
        item.manifest
        for item in catalog.objects
        if (kind is None or item.kind == kind)
        and (namespace is None or item.namespace == namespace)
    ]
    return answer({"apiVersion": "v1", "kind": "List", "items": items}, info=catalog.info)
