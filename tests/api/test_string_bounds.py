"""SPEC §17 "Safe to share": every string the rules read is bounded, refused at its field (422
``InvalidDocument``) on every endpoint that reads documents, before any rule runs; lint reports
it as the object's refusal. Thousands of digits in a version are refused so, and no tenant's
object of them reaches a catalog (test_long_numbers.py: numbers within the bound)."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from marshmallow import ValidationError

from app.catalog import get_store
from app.schemas.document_schemas import inference_service_document_schema, model_document_schema
from app.selection.values import MAX_URI_CHARS, MAX_VALUE_CHARS, ModelRef, too_long
from app.store import StoredObject
from tests.api import reading_endpoints
from tests.api.reading_endpoints import CLUSTER, ENDPOINTS, isvc, model, request_of
from tests.builders import entry, model_doc, rank_body, runtime_doc

DIGITS = "1" * 5000
OVER = "v" * (MAX_VALUE_CHARS + 1)
TOO_LONG = too_long(MAX_VALUE_CHARS)


def _refused(response) -> dict[str, list[str]]:
    assert response.status_code == 422, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == "InvalidDocument"
    assert OVER not in response.get_data(as_text=True)  # a message never repeats the string
    assert DIGITS not in response.get_data(as_text=True)
    return error["fields"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_version_of_thousands_of_digits_is_refused_at_its_field_everywhere(client, endpoint):
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    method, path, arguments, field = request_of(endpoint, DIGITS)
    fields = _refused(client.open(path, method=method, **arguments))
    assert fields == {field: [TOO_LONG]}


@pytest.mark.parametrize("path", ["/v1/lint", f"/v1/clusters/{CLUSTER}/lint"])
def test_lint_reports_it_as_the_object_s_refusal(client, path):
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    refused = model(DIGITS)
    refused["spec"]["storage"] = {"storageUri": "hf://meta-llama/Llama-3.2-3B"}  # the CRD's
    answered = client.post(path, json=[refused, runtime_doc("rt")])
    assert answered.status_code == 200
    body = answered.get_json()
    [finding] = [f for f in body["findings"] if f["field"] == "spec.modelFormat.version"]
    assert (finding["severity"], finding["code"], finding["name"]) == ("error", "Invalid", "llama")
    assert TOO_LONG in finding["message"] and not body["admitted"]


# --- every string the rules read --------------------------------------------------------------


def _set(document: dict, path: str, value) -> dict:
    changed = copy.deepcopy(document)
    *steps, last = path.split(".")
    node = changed
    for step in steps:
        node = node.setdefault(step, {})
    node[last] = value
    return changed


def _class(**spec) -> dict:
    body = {"discovery": {}, "capabilities": {"memoryGB": "80Gi"}, **spec}
    return {"kind": "AcceleratorClass", "metadata": {"name": "a100"}, "spec": body}


MODEL_FIELDS = [
    "spec.modelFormat.name",
    "spec.modelFormat.version",
    "spec.modelFramework.name",
    "spec.modelFramework.version",
    "spec.modelArchitecture",
    "spec.quantization",
    "spec.modelParameterSize",
    "spec.distribution",
    "spec.diffusionPipeline.className",
    "spec.diffusionPipeline.vae.library",
]
SERVICE_FIELDS = [
    "spec.runtime.name",
    "spec.runtime.kind",
    "spec.model.name",
    "spec.deploymentMode",
    "spec.acceleratorSelector.acceleratorClass",
    "spec.acceleratorSelector.constraints.minArchitectureVersion",
]


@pytest.mark.parametrize("field", MODEL_FIELDS)
def test_every_model_string_the_rules_read(client, field):
    body = rank_body(_set(model(), field, OVER), runtime_doc("rt"))
    assert _refused(client.post("/v1/rank", json=body)) == {f"model.{field}": [TOO_LONG]}
    within = rank_body(_set(model(), field, OVER[1:]), runtime_doc("rt"))
    assert client.post("/v1/rank", json=within).status_code == 200


@pytest.mark.parametrize("field", SERVICE_FIELDS)
def test_every_inference_service_string_the_rules_read(client, field):
    service = _set(isvc(), field, OVER)
    body = rank_body(model(), inferenceService=service)
    fields = _refused(client.post("/v1/rank", json=body))
    assert fields == {f"inferenceService.{field}": [TOO_LONG]}


@pytest.mark.parametrize(
    ("document", "field"),
    [
        (
            runtime_doc("rt", entry(operator=OVER)),
            "spec.supportedModelFormats[0].modelFormat.operator",
        ),
        (runtime_doc("rt", size_range={"min": "1" * 257}), "spec.modelSizeRange.min"),
        (runtime_doc("rt", protocolVersions=["openAI", OVER]), "spec.protocolVersions[1]"),
        (
            runtime_doc("rt", engineConfig={"annotations": {"ome.io/deploymentMode": OVER}}),
            "spec.engineConfig.annotations",
        ),
    ],
)
def test_runtime_strings_on_the_request_path(client, document, field):
    fields = _refused(client.post("/v1/rank", json=rank_body(model(), document)))
    [message] = fields[f"runtimes[0].{field}"]
    assert message.endswith(TOO_LONG)


def test_annotations_the_rules_read_name_themselves():
    service = isvc(annotations={"ome.io/accelerator-class": OVER, "other": OVER * 10})
    with pytest.raises(ValidationError) as refused:
        inference_service_document_schema.load(service)
    assert refused.value.messages == {
        "metadata": {"annotations": [f"Annotation ome.io/accelerator-class: {TOO_LONG}"]}
    }
    service["metadata"]["annotations"]["ome.io/accelerator-class"] = "a100"
    inference_service_document_schema.load(service)  # the annotations no rule reads: unbounded


def test_constraint_lists_are_refused_at_their_item(client):
    constraints = {"requiredFeatures": ["fp8", OVER], "excludedClasses": ["h100"]}
    service = isvc(acceleratorSelector={"constraints": constraints})
    body = rank_body(model(), inferenceService=service)
    fields = _refused(client.post("/v1/rank", json=body))
    path = "inferenceService.spec.acceleratorSelector.constraints.requiredFeatures[1]"
    assert fields == {path: [TOO_LONG]}


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"vendor": OVER}, "spec.vendor"),
        ({"capabilities": {"memoryGB": "1" * 300 + "Gi"}}, "spec.capabilities.memoryGB"),
        ({"capabilities": {"features": ["fp8", OVER]}}, "spec.capabilities.features[1]"),
        ({"cost": {"perHour": "0." + "0" * 300 + "1"}}, "spec.cost.perHour"),
        ({"cost": {"tier": OVER}}, "spec.cost.tier"),
        ({"resources": [{"name": OVER}]}, "spec.resources[0].name"),
        ({"resources": [{"name": "gpu", "quantity": "1" * 300}]}, "spec.resources[0].quantity"),
    ],
)
def test_accelerator_class_strings_and_quantities(client, spec, field):
    body = rank_body(model(), runtime_doc("rt"), acceleratorClasses=[_class(**spec)])
    fields = _refused(client.post("/v1/rank", json=body))
    assert fields == {f"acceleratorClasses[0].{field}": [TOO_LONG]}


def test_a_storage_uri_has_a_path_s_bound(client):
    uri = "pvc://models/" + "p" * (MAX_URI_CHARS - len("pvc://models/"))
    fine = client.post("/v1/rank", json=rank_body(_set(model(), "spec.storage.storageUri", uri)))
    assert fine.status_code == 200
    over = rank_body(_set(model(), "spec.storage.storageUri", uri + "p"))
    assert _refused(client.post("/v1/rank", json=over)) == {
        "model.spec.storage.storageUri": [too_long(MAX_URI_CHARS)]
    }


# --- the request's own strings -----------------------------------------------------------------


def test_request_settings_are_bounded_in_bodies_queries_and_cluster_settings(client):
    body = rank_body(model(), runtime_doc("rt"))
    for key in ("omeVersion", "modelCacheProvider"):
        assert _refused(client.post("/v1/rank", json={**body, key: DIGITS})) == {key: [TOO_LONG]}
        query = client.post(f"/v1/rank?{key}={DIGITS}", json=body)
        assert _refused(query) == {key: [TOO_LONG]}
        settings = client.put(f"/v1/clusters/{CLUSTER}", json={key: DIGITS})
        assert _refused(settings) == {key: [TOO_LONG]}
    assert client.get(f"/v1/clusters/{CLUSTER}").status_code == 404  # nothing created
    # packaging reads a version's numbers with int(): within the bound, never past its limit.
    assert client.post("/v1/rank?omeVersion=" + "9" * MAX_VALUE_CHARS, json=body).status_code == 200


# --- one tenant cannot break a stored catalog ---------------------------------------------------


def test_a_tenant_s_huge_number_is_refused_at_the_write_and_stores_nothing(empty_cluster):
    """SPEC §17: objects are validated when written; a bad one is refused with its path and
    never breaks a later read. Before, such a version was stored (200), and every unfiltered
    selections and impact of the cluster was a 500 for every reader."""
    _, client = empty_cluster
    for method in ("PUT", "POST"):
        written = client.open(
            f"/v1/clusters/{CLUSTER}/objects",
            method=method,
            json=reading_endpoints.tenants(DIGITS),
        )
        assert _refused(written) == {"document 1.spec.modelFormat.version": [TOO_LONG]}
    info = client.get(f"/v1/clusters/{CLUSTER}").get_json()
    assert info["generation"] == 1 and not any(info["counts"].values())


def test_a_catalog_stored_before_the_bound_breaks_no_reader(empty_cluster):
    """Defence in depth: a catalog written before the schemas bounded versions may hold one of
    thousands of digits; the rules read it as a version that matches nothing."""
    app, client = empty_cluster
    written = client.put(f"/v1/clusters/{CLUSTER}/objects", json=reading_endpoints.tenants("1.0.0"))
    assert written.status_code == 200
    manifest = model(DIGITS, "model-a", "tenant-a")
    document = dataclasses.replace(
        model_document_schema.load(model("1.0.0", "model-a", "tenant-a")),
        format=ModelRef("safetensors", DIGITS),
    )
    poisoned = StoredObject("BaseModel", "tenant-a", "model-a", manifest, document)
    with app.app_context():
        get_store().apply_objects(CLUSTER, [poisoned])
    reading_endpoints.assert_every_reader_answered(client)


def test_names_keep_the_api_server_s_bounds_and_words(client):
    """Names and namespaces have Kubernetes' bounds (253, 63), said as the API server says
    them, however long they are: the bound of this service is not theirs."""
    body = rank_body(model_doc("x" * 300, namespace="y" * 300), runtime_doc("rt"))
    fields = _refused(client.post("/v1/rank", json=body))
    assert fields["model.metadata.name"][0].endswith("must be no more than 253 characters")
    assert fields["model.metadata.namespace"][0].endswith("must be no more than 63 characters")


def test_the_openapi_description_shows_every_bound(client):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    assert schemas["EntryRef"]["properties"]["version"]["maxLength"] == MAX_VALUE_CHARS
    assert schemas["Entry"]["properties"]["modelCacheProviders"]["items"]["maxLength"] == 256
    assert schemas["Storage"]["properties"]["storageUri"]["maxLength"] == MAX_URI_CHARS
    assert schemas["Metadata"]["properties"]["namespace"]["maxLength"] == 63
    annotations = schemas["RuntimeMetadata"]["properties"]["annotations"]["properties"]
    assert annotations["ome.io/inherit-from"]["maxLength"] == MAX_VALUE_CHARS
