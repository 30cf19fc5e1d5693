"""``admit`` with objects judged apart (rules §18 "One error per object", "Kinds and versions as
kubectl maps them"): each is judged after its error against the cluster, and no other object is
judged against it."""

from __future__ import annotations

import dataclasses

from app.schemas.objects import load_object
from app.selection.admission import admit, planned_admission_rankings
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, model_doc, runtime_doc

NOT_FOUND = (
    'referenced model "llama" not found in namespace "demo": ensure a BaseModel exists in this '
    "namespace or a ClusterBaseModel exists cluster-wide with this name"
)
NO_VERSION = ("Invalid", "apiVersion", "apiVersion not set")


def document(manifest: dict):
    loaded = load_object(manifest, "document", {})
    assert loaded is not None
    return loaded[1]


def findings(admission) -> list[tuple]:
    return [(f.severity, f.kind, f.name, f.code, f.message) for f in admission.findings]


def test_an_object_judged_apart_is_judged_after_its_error_but_no_other_against_it():
    model = document(model_doc("llama", storage={"storageUri": "hf://meta/llama"}))
    engine = {"engine": {}, "model": {"name": "llama"}}
    service = document(isvc_doc("chat", **engine))
    admission = admit(
        CatalogView.of([service]),
        apart=[model],
        refused_by_schema={("BaseModel", "demo", "llama"): [NO_VERSION]},
    )
    assert findings(admission) == [
        ("error", "BaseModel", "llama", "Invalid", "apiVersion not set"),
        ("error", "InferenceService", "chat", "ModelNotFound", NOT_FOUND),
    ]


def test_what_the_webhook_refuses_of_an_object_apart_follows_as_also_refused():
    # a ClusterBaseModel on a malformed PVC URI: OME's webhook refuses it
    uri = {"storageUri": "pvc://x"}
    manifest = model_doc("Big", kind="ClusterBaseModel", namespace=None, storage=uri)
    model = document(model_doc("big", kind="ClusterBaseModel", namespace=None, storage=uri))
    model = dataclasses.replace(model, name="Big")  # a name the API server refuses
    name = ("Invalid", "metadata.name", 'The ClusterBaseModel "Big" is invalid: metadata.name: …')
    key = ("ClusterBaseModel", "", "Big")
    admission = admit(
        CatalogView.of([]),
        apart=[model],
        manifests={key: manifest},
        refused_by_schema={key: [name]},
    )
    assert [(f.severity, f.code, f.field, f.sequence) for f in admission.findings] == [
        ("error", "Invalid", "metadata.name", 0),
        ("info", "AlsoRefused", "spec.storage.storageUri", 1),
    ]
    assert admission.findings[1].message.startswith('then: invalid PVC storage URI "pvc://x"')


def test_a_stored_object_of_the_same_key_is_not_judged_in_the_place_of_the_one_apart():
    stored = document(isvc_doc("chat", model={"name": "llama"}))  # refused: its model is missing
    applied = document(isvc_doc("chat", runtime={"name": "vllm"}))  # admitted once it applies
    key = ("InferenceService", "demo", "chat")
    admission = admit(
        CatalogView.of([stored]),
        checked=frozenset({key}),
        apart=[applied],
        refused_by_schema={key: [NO_VERSION]},
    )
    assert findings(admission) == [
        ("error", "InferenceService", "chat", "Invalid", "apiVersion not set"),
    ]


def test_the_rankings_of_the_objects_apart_are_counted_too():
    model = document(model_doc("llama", storage={"storageUri": "hf://meta/llama"}))
    runtime = document(runtime_doc("vllm", entry()))
    engine = {"engine": {}, "model": {"name": "llama"}}
    chat, other = document(isvc_doc("chat", **engine)), document(isvc_doc("other", **engine))
    view = CatalogView.of([model, runtime, chat])
    assert planned_admission_rankings(view) == 1
    # the same question, asked of another cluster: ranked again
    assert planned_admission_rankings(view, apart=[other]) == 2
    # an InferenceService apart finds the model; one in the cluster does not find one apart
    assert planned_admission_rankings(CatalogView.of([runtime, chat]), apart=[model]) == 0
