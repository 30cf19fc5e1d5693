"""Which model (and InferenceService) a ``rank`` or ``select`` asks about, when the files hold
several: the API takes exactly one model and at most one InferenceService per request (rules
§15), so the command sends the chosen ones, every runtime, and the objects of other kinds."""

from __future__ import annotations

from dataclasses import dataclass

from app.schemas.ome_kinds import ISVC_KIND, MODEL_KINDS

from .output import Failure, warn
from .sources import Manifest

CLUSTER_MODEL_KIND = "ClusterBaseModel"


@dataclass(frozen=True)
class Question:
    """The objects to send, and the stored model to name (``?model=``) when none is sent."""

    manifests: list[Manifest]
    stored_model: str | None = None


def _listing(manifests: list[Manifest]) -> str:
    seen: dict[tuple, Manifest] = {}
    for manifest in manifests:
        seen[manifest.identity] = manifest  # the last one of each, as the service reads them
    return "".join(f"\n  {m.describe()}  ({m.origin})" for m in seen.values())


def _identities(manifests: list[Manifest]) -> set[tuple]:
    return {manifest.identity for manifest in manifests}


def _find_model(
    models: list[Manifest], name: str, namespace: str | None, kind: str | None = None
) -> list[Manifest]:
    """OME's lookup (rules §17 "Finding the model"): a BaseModel of that name in the namespace,
    else the ClusterBaseModel; without a namespace, every model of that name."""
    named = [m for m in models if m.name == name and kind in (None, m.kind)]
    if namespace is None:
        return named
    local = [m for m in named if m.kind != CLUSTER_MODEL_KIND and m.namespace in (namespace, None)]
    return local or [m for m in named if m.kind == CLUSTER_MODEL_KIND]


def choose(
    manifests: list[Manifest],
    *,
    model: str | None = None,
    namespace: str | None = None,
    inference_service: str | None = None,
    cluster: str | None = None,
) -> Question:
    # Here, not at import: ``ome-ranker --version`` and ``--help`` need none of it.
    from app.reading.manifests import unread_refusal

    unread = {id(m) for m in manifests if unread_refusal(m.body) is not None}  # rules §18
    models = [m for m in manifests if m.kind in MODEL_KINDS and id(m) not in unread]
    services = [m for m in manifests if m.kind == ISVC_KIND and id(m) not in unread]
    stored_model = None
    if inference_service is not None:
        chosen_services = _pick_service(services, inference_service, namespace)
        spec = chosen_services[-1].body.get("spec")
        reference = spec.get("model") if isinstance(spec, dict) else None
        reference = reference if isinstance(reference, dict) else {}
        name, kind = reference.get("name"), reference.get("kind")
        where = chosen_services[-1].namespace or namespace or "default"
        chosen_models = _find_model(models, name, where, kind) if isinstance(name, str) else []
        if not chosen_models and cluster is not None and isinstance(name, str):
            stored_model = name  # the catalog's model; else the service answers ModelNotFound
    elif model is not None:
        chosen_services = []
        chosen_models = _find_model(models, model, namespace)
        if not chosen_models:
            if cluster is None:
                held = _listing(models) or " none"
                raise Failure(f"no model {model} in the files; they hold:{held}")
            stored_model = model
    elif len(_identities(services)) == 1 and len(_identities(models)) > 1:
        # One InferenceService among several models: the question is about it (as
        # --inference-service would ask).
        service = _named(services[-1])
        return choose(manifests, namespace=namespace, inference_service=service, cluster=cluster)
    else:
        chosen_models, chosen_services = models, services
        if len(_identities(services)) > 1:
            raise Failure(
                f"the files hold {len(_identities(services))} InferenceServices: choose one "
                f"with --inference-service NAMESPACE/NAME{_listing(services)}"
            )
        if not models and cluster is not None:
            raise Failure("the files hold no model: name a stored one with --model NAME")
    if len(_identities(chosen_models)) > 1:
        raise Failure(
            f"the files hold {len(_identities(chosen_models))} models: choose one with "
            f"--model NAME (and --namespace NS){_listing(chosen_models)}"
        )
    if namespace is not None and inference_service is None:
        _warn_elsewhere(chosen_models, namespace)
    keep = _identities(chosen_models) | _identities(chosen_services)
    sent = [
        manifest
        for manifest in manifests
        if manifest.kind not in (*MODEL_KINDS, ISVC_KIND)
        or id(manifest) in unread  # for the answer's ``ignored``
        or manifest.identity in keep
    ]
    return Question(sent, stored_model)


def _warn_elsewhere(models: list[Manifest], namespace: str) -> None:
    """The model sent is a BaseModel of another namespace than ``--namespace``, the question's
    target: OME looks for an InferenceService's BaseModel in its own namespace only, so the
    answer is about a question the cluster cannot ask (the service ranks it all the same)."""
    model = models[-1] if models else None
    if model is None or model.kind == CLUSTER_MODEL_KIND or model.namespace in (None, namespace):
        return
    warn(
        f"--namespace {namespace}, but BaseModel {model.name} is in namespace "
        f"{model.namespace} ({model.origin}): an InferenceService in {namespace} would not find it"
    )


def _named(service: Manifest) -> str:
    return f"{service.namespace or 'default'}/{service.name}"


def _pick_service(services: list[Manifest], wanted: str, namespace: str | None) -> list[Manifest]:
    where, _, name = wanted.rpartition("/")
    where = where or namespace or "default"
    found = [s for s in services if s.name == name and (s.namespace or "default") == where]
    if not found:
        held = _listing(services) or " none"
        raise Failure(f"no InferenceService {where}/{name} in the files; they hold:{held}")
    return found
