"""Answers before ``kubectl apply`` (SPEC §18, §19): what admission would say of a set of
objects (``lint``), which InferenceServices a change would move (``impact``), and the outcome of
every InferenceService and model of a stream (``POST /v1/selections``). Nothing is stored."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, request

from app import deadline, errors
from app.schemas.requests import DEFAULT_OME_VERSION, version_problem
from app.selection.admission import (
    ERROR,
    WARNING,
    Admission,
    Finding,
    admit,
    object_key,
    planned_admission_rankings,
)
from app.selection.budget import checked as each_checked
from app.selection.catalog import (
    SelectionRow,
    planned_rankings,
    selections,
    unnamed_model_rows,
)
from app.selection.documents import Runtime
from app.store import CatalogDocuments, StoredObject

from .access import caller, cluster_name, etag, may_read, store_errors
from .body import read_body
from .cluster_answers import _documents, render_selections, selection_body
from .clusters import _ignored
from .limits import check_answer, check_rankings
from .rendering import printable, to_json, to_yaml
from .streams import ObjectStream, objects_in, read_objects, split_documents
from .views import (
    JSON_MIME,
    OUTPUT_TEXT,
    OUTPUT_YAML,
    TEXT_MIME,
    YAML_MIME,
    decoded_json,
    select_answer,
    wanted_output,
)

bp = Blueprint("predict", __name__)


@bp.before_request
def _stateless_access() -> None:
    """SPEC §17: the stateless endpoints (lint, impact, selections of a body) stay open unless
    OME_RANKER_AUTH_STATELESS=true; the catalog ones check the cluster's token themselves."""
    if current_app.config["AUTH_STATELESS"] and not request.path.startswith("/v1/clusters/"):
        caller()


def _ome_version(default: str = DEFAULT_OME_VERSION) -> str:
    version = request.args.get("omeVersion") or default
    problem = version_problem(version)
    if problem is not None:
        raise errors.InvalidDocument({"omeVersion": [problem]})
    return version


def _respond(body: dict, text: str, info=None) -> Response:
    output = wanted_output()
    if output == OUTPUT_TEXT:
        response = Response(text.encode("utf-8", "replace"), content_type=TEXT_MIME)
    elif output == OUTPUT_YAML:
        response = Response(to_yaml(body), content_type=YAML_MIME)
    else:
        response = Response(to_json(body), content_type=JSON_MIME)
    response.headers["Vary"] = "Accept"
    if info is not None:
        response.headers["ETag"] = etag(info)
    return response


def _stream() -> ObjectStream:
    stream = read_objects(read_body(), limit=current_app.config["MAX_OBJECTS_PER_CLUSTER"])
    _runtimes_in_body(stream)
    return stream


def _runtimes_in_body(stream: ObjectStream) -> None:
    """SPEC §15's bound on a body's runtimes, on every endpoint as on ``/v1/rank`` (413)."""
    count = sum(1 for item in stream.objects if isinstance(item.document, Runtime))
    limit = current_app.config["MAX_RUNTIMES"]
    if count > limit:
        raise errors.PayloadTooLarge(
            f"request has {count} runtimes; this service accepts at most {limit}"
        )


def _laid_over(documents: CatalogDocuments, given: list[StoredObject], deleted=frozenset()):
    """The catalog's documents with ``given`` laid over them (same kind, namespace and name
    replaces) and ``deleted`` (kind, namespace, name) removed."""
    replaced = {item.key for item in given} | set(deleted)
    kept = [
        document
        for document in (*documents.runtimes, *documents.models, *documents.inference_services)
        if object_key(document) not in replaced
    ]
    runtimes, models, services = split_documents([*kept, *(item.document for item in given)])
    return tuple(runtimes), tuple(models), tuple(services)


# --- lint (SPEC §18) --------------------------------------------------------------------------


def finding_body(finding: Finding) -> dict[str, Any]:
    return {
        "severity": finding.severity,
        "kind": finding.kind,
        "namespace": finding.namespace,
        "name": finding.name,
        "field": finding.field,
        "code": finding.code,
        "message": finding.message,
    }


def _where(finding: Finding) -> str:
    name = finding.name if finding.namespace is None else f"{finding.namespace}/{finding.name}"
    return f"{finding.kind} {name}"


def lint_text(admission: Admission) -> str:
    """As kubectl prints it: ``Warning:`` lines, and the webhook's or the API server's refusal
    after ``error:``; what OME accepts but rarely means after ``info:``."""
    lines = []
    for finding in admission.findings:
        if finding.severity == ERROR:
            if finding.webhook is None:
                lines.append(f"error: {finding.message}")
            else:
                lines.append(
                    f'error: {_where(finding)}: admission webhook "{finding.webhook}" '
                    f"denied the request: {finding.message}"
                )
        elif finding.severity == WARNING:
            lines.append(f"Warning: {finding.message}")
        else:
            field = f" {finding.field}:" if finding.field else ""
            lines.append(f"info: {_where(finding)}:{field} {finding.message}")
    return "".join(printable(line) + "\n" for line in lines)


def _lint_answer(admission: Admission, stream: ObjectStream, info=None) -> Response:
    check_answer(len(admission.findings), sum(len(f.message) for f in admission.findings))
    body = {
        "admitted": admission.admitted,
        "counts": admission.counts(),
        "findings": [finding_body(finding) for finding in admission.findings],
        "ignored": _ignored(stream.others),
        "warnings": stream.warnings,
    }
    return _respond(body, lint_text(admission), info)


@bp.post("/v1/lint")
def lint() -> Response:
    """What applying the body's objects to a cluster that holds exactly them would answer."""
    stream = _stream()
    deadline.check()
    runtimes, models, services = stream.documents()
    full_runners = frozenset(stream.full_runners)
    check_rankings(
        (planned_admission_rankings(models, services, full_runners=full_runners), len(runtimes))
    )
    admission = admit(
        tuple(runtimes),
        tuple(models),
        tuple(services),
        invalid=stream.invalid,
        full_runners=full_runners,
        ome_version=_ome_version(),
        model_cache_provider=request.args.get("modelCacheProvider") or None,
    )
    return _lint_answer(admission, stream)


@bp.post("/v1/clusters/<cluster>/lint")
@store_errors
def lint_cluster(cluster: str) -> Response:
    """The body's objects applied over the stored catalog: findings for the body's objects."""
    cluster = cluster_name(cluster)
    may_read(cluster)
    documents = _documents(cluster)
    settings = documents.info.settings
    stream = _stream()
    deadline.check()
    runtimes, models, services = _laid_over(documents, stream.objects)
    checked = frozenset(item.key for item in stream.objects)
    full_runners = frozenset(stream.full_runners)
    planned = planned_admission_rankings(
        models, services, checked=checked, full_runners=full_runners
    )
    check_rankings((planned, len(runtimes)))
    admission = admit(
        runtimes,
        models,
        services,
        invalid=stream.invalid,
        checked=checked,
        full_runners=full_runners,
        ome_version=_ome_version(settings.ome_version),
        model_cache_provider=request.args.get("modelCacheProvider")
        or settings.model_cache_provider,
    )
    return _lint_answer(admission, stream, documents.info)


# --- impact (SPEC §19) ------------------------------------------------------------------------

IMPACT_COLUMNS = ("NAMESPACE", "INFERENCESERVICE", "MODEL", "BEFORE", "AFTER", "MESSAGE")


def _outcome(row: SelectionRow) -> dict[str, Any]:
    body = selection_body(row)
    return {"runtime": body["runtime"], "message": body["message"], "error": body["error"]}


class _Answers:
    """What ``/v1/select`` answers for each InferenceService, byte for byte, rendered once per
    ranking: InferenceServices that ask the same question share one (its answer can list every
    runtime's reason)."""

    def __init__(self) -> None:
        self._by_ranking: dict[int, tuple] = {}
        self._rankings: list = []  # kept alive, so that no id is reused while this lives

    def of(self, row: SelectionRow) -> tuple:
        if row.ranking is None:
            return (row.message, row.error)
        found = self._by_ranking.get(id(row.ranking))
        if found is None:
            answer = select_answer(row.ranking)
            found = self._by_ranking[id(row.ranking)] = (answer.status, answer.body)
            self._rankings.append(row.ranking)
        return found


def _impact(before: list[SelectionRow], after: list[SelectionRow]) -> tuple[int, list[dict]]:
    earlier = {(row.namespace, row.name): row for row in before}
    answers = _Answers()
    changes = []
    checked = 0
    for row in each_checked(after):
        old = earlier.get((row.namespace, row.name))
        if old is None:
            continue
        checked += 1
        if answers.of(old) != answers.of(row):
            changes.append(
                {
                    "namespace": row.namespace,
                    "name": row.name,
                    "model": row.model,
                    "before": _outcome(old),
                    "after": _outcome(row),
                }
            )
    return checked, changes


def _impact_text(changes: list[dict]) -> str:
    from .rendering import text_table

    def runtime(outcome: dict) -> str:
        return outcome["runtime"]["name"] if outcome["runtime"] else "-"

    return text_table(
        [IMPACT_COLUMNS]
        + [
            (
                change["namespace"],
                change["name"],
                change["model"] or "-",
                runtime(change["before"]),
                runtime(change["after"]),
                change["after"]["message"],
            )
            for change in changes
        ]
    )


def _rows(runtimes, models, services, ome_version, provider) -> list[SelectionRow]:
    return selections(
        tuple(models),
        tuple(runtimes),
        services,
        ome_version=ome_version,
        model_cache_provider=provider,
    )


def _check_impact(*sides: tuple) -> None:
    """Both sides' selections, each ``(runtimes, models, services)``: refused up front when
    together they are over the bound."""
    check_rankings(
        *(
            (planned_rankings(models, services), len(runtimes))
            for runtimes, models, services in sides
        )
    )


def _impact_answer(before_rows, after_rows, info=None) -> Response:
    checked, changes = _impact(before_rows, after_rows)
    check_answer(
        len(changes),
        sum(len(c["before"]["message"]) + len(c["after"]["message"]) for c in changes),
    )
    body = {"checked": checked, "count": len(changes), "changes": changes}
    return _respond(body, _impact_text(changes), info)


def _deleted() -> frozenset[tuple]:
    """``?delete=<kind>/<namespace>/<name>`` (``<kind>/<name>`` for cluster-scoped kinds)."""
    found = set()
    for value in request.args.getlist("delete"):
        parts = value.split("/")
        if len(parts) == 2 and parts[0] in ("ClusterServingRuntime", "ClusterBaseModel"):
            found.add((parts[0], "", parts[1]))
        elif len(parts) == 3 and all(parts):
            namespace = "" if parts[0].startswith("Cluster") else parts[1]
            found.add((parts[0], namespace, parts[2]))
        else:
            raise errors.MalformedRequest(
                f"?delete={value!r}: write <kind>/<namespace>/<name>, or <kind>/<name> for "
                "ClusterServingRuntime and ClusterBaseModel"
            )
    return frozenset(found)


@bp.post("/v1/clusters/<cluster>/impact")
@store_errors
def impact_cluster(cluster: str) -> Response:
    cluster = cluster_name(cluster)
    may_read(cluster)
    deleted = _deleted()
    documents = _documents(cluster)
    settings = documents.info.settings
    stream = _stream()
    stream.refuse_invalid()
    deadline.check()
    version = _ome_version(settings.ome_version)
    provider = request.args.get("modelCacheProvider") or settings.model_cache_provider
    stored = (documents.runtimes, documents.models, documents.inference_services)
    changed = _laid_over(documents, stream.objects, deleted)
    _check_impact(stored, changed)
    before = _rows(*stored, version, provider)
    after = _rows(*changed, version, provider)
    return _impact_answer(before, after, documents.info)


@bp.post("/v1/impact")
def impact() -> Response:
    """``{"current": [...], "proposed": [...]}``: two streams of manifests."""
    body = decoded_json(read_body())
    if not isinstance(body, dict) or set(body) - {"current", "proposed"}:
        raise errors.MalformedRequest('send {"current": [manifests], "proposed": [manifests]}')
    limit = current_app.config["MAX_OBJECTS_PER_CLUSTER"]
    sides = []
    for side in ("current", "proposed"):
        documents = body.get(side, [])
        if not isinstance(documents, list):
            raise errors.MalformedRequest(f"{side} must be an array of manifests")
        stream = objects_in(documents, side, 0, limit)
        stream.refuse_invalid()
        _runtimes_in_body(stream)
        sides.append(stream.documents())
    deadline.check()
    _check_impact(*sides)
    version = _ome_version()
    provider = request.args.get("modelCacheProvider") or None
    before = _rows(*sides[0], version, provider)
    after = _rows(*sides[1], version, provider)
    return _impact_answer(before, after)


# --- many at once (SPEC §19) ------------------------------------------------------------------


@bp.post("/v1/selections")
def selections_of_stream() -> Response:
    """Every InferenceService of the stream with its outcome, and a row for every model that
    no InferenceService names."""
    stream = _stream()
    stream.refuse_invalid()
    deadline.check()
    runtimes, models, services = stream.documents()
    version = _ome_version()
    provider = request.args.get("modelCacheProvider") or None
    namespace = request.args.get("namespace") or None
    check_rankings(
        (planned_rankings(models, services, namespace=namespace, unnamed=True), len(runtimes))
    )
    rows = selections(
        tuple(models),
        tuple(runtimes),
        services,
        ome_version=version,
        model_cache_provider=provider,
        namespace=namespace,
    )
    rows += [
        row
        for row in unnamed_model_rows(
            tuple(models),
            tuple(runtimes),
            services,
            ome_version=version,
            model_cache_provider=provider,
        )
        if namespace is None or row.namespace == namespace
    ]
    answer = render_selections(rows, wanted_output(), {"ignored": _ignored(stream.others)})
    response = Response(answer.body, status=answer.status, content_type=answer.content_type)
    response.headers["Vary"] = "Accept"
    return response


__all__ = ["bp"]
