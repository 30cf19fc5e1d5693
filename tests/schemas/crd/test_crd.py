"""The API server's strict decoding and CRD validation of OME's objects (rules §18 "Parity"),
against OME's vendored CRD schemas: what kubectl apply answers before any webhook."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from app.schemas.crd import KINDS, refusals
from app.schemas.crd.schemas import OPENAPI, kind_schema
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.paths import FIXTURES


def runtime(*entries, **spec):
    return runtime_doc("rt", *(entries or (entry(priority=1),)), **spec)


def messages(manifest):
    return [(found.code, found.field, found.message) for found in refusals(manifest)]


def test_a_valid_runtime_model_and_service_are_accepted():
    model = model_doc(storage={"storageUri": "hf://meta-llama/Llama-3.2-1B"})
    service = isvc_doc(model={"name": "llama"}, engine={"minReplicas": 1})
    for manifest in (runtime(), model, service):
        assert refusals(manifest) == ()


def test_a_typo_in_a_field_name_is_an_unknown_field():
    typo = runtime({**entry(), "autoselect": True})
    assert messages(typo) == [
        (
            "UnknownField",
            "spec.supportedModelFormats[0].autoselect",
            'ClusterServingRuntime in version "v1beta1" cannot be handled as a '
            "ClusterServingRuntime: strict decoding error: unknown field "
            '"spec.supportedModelFormats[0].autoselect"',
        )
    ]


def test_a_name_that_is_no_rfc_1123_subdomain_is_the_validations_first_error():
    manifest = runtime_doc("Invalid-Name", {"name": "x", "priority": 0})
    [(code, field, message)] = messages(manifest)
    assert (code, field) == ("Invalid", "metadata.name")
    assert message.startswith(
        'The ClusterServingRuntime "Invalid-Name" is invalid: [metadata.name: Invalid value: '
        '"Invalid-Name": a lowercase RFC 1123 subdomain must consist of '
    )
    assert message.endswith(
        ", spec.supportedModelFormats[0].priority: Invalid value: 0: "
        "spec.supportedModelFormats[0].priority in body should be greater than or equal to 1, "
        "spec.supportedModelFormats[0].modelFormat: Required value, "
        "spec.supportedModelFormats[0].modelFramework: Required value]"
    )
    # an empty name is a missing one, which the schema does not refuse here
    assert messages(runtime_doc("", entry(priority=1))) == []


def test_every_unknown_field_is_named_in_document_order():
    manifest = runtime(bogus=1)
    manifest["metadata"]["lables"] = {"a": "b"}
    manifest["spec"]["engineConfig"] = {
        "runner": {"name": "main", "image": "x", "imagePolicy": "Always"}
    }
    manifest["spec"]["nodeSelector"] = {"gpu": "h100"}  # a map: any key is a field
    [(code, field, message)] = messages(manifest)
    assert (code, field) == ("UnknownField", "metadata.lables")
    assert message.endswith(
        'strict decoding error: unknown field "metadata.lables", unknown field "spec.bogus", '
        'unknown field "spec.engineConfig.runner.imagePolicy"'
    )


def test_required_enum_type_and_minimum_in_the_api_servers_words():
    manifest = runtime(
        {
            **entry(framework=None, priority=0),
            "autoSelect": "yes",
        },
        engineConfig={"scaleMetric": "bogus"},
    )
    [(code, field, message)] = messages(manifest)
    assert (code, field) == ("Invalid", "spec.supportedModelFormats[0].autoSelect")
    assert message == (
        'The ClusterServingRuntime "rt" is invalid: ['
        'spec.supportedModelFormats[0].autoSelect: Invalid value: "string": '
        'spec.supportedModelFormats[0].autoSelect in body must be of type boolean: "string", '
        "spec.supportedModelFormats[0].priority: Invalid value: 0: "
        "spec.supportedModelFormats[0].priority in body should be greater than or equal to 1, "
        "spec.supportedModelFormats[0].modelFramework: Required value, "
        'spec.engineConfig.scaleMetric: Unsupported value: "bogus": supported values: "cpu", '
        '"memory", "concurrency", "rps"]'
    )


def test_one_error_is_not_bracketed_and_names_its_code():
    manifest = runtime(entry(priority="2"))
    assert messages(manifest) == [
        (
            "Invalid",
            "spec.supportedModelFormats[0].priority",
            'The ClusterServingRuntime "rt" is invalid: spec.supportedModelFormats[0].priority: '
            'Invalid value: "string": spec.supportedModelFormats[0].priority in body must be of '
            'type integer: "string"',
        )
    ]
    assert messages(runtime(entry(framework=None)))[0][:2] == (
        "Required",
        "spec.supportedModelFormats[0].modelFramework",
    )
    assert messages(runtime(engineConfig={"scaleMetric": "x"}))[0][0] == "Unsupported"


def test_a_quantity_must_match_the_kubernetes_pattern():
    manifest = runtime(engineConfig={"runner": {"resources": {"limits": {"cpu": "lots"}}}})
    [(_, field, message)] = messages(manifest)
    assert field == "spec.engineConfig.runner.resources.limits.cpu"
    assert (
        'Invalid value: "lots": spec.engineConfig.runner.resources.limits.cpu in body '
        "should match '^(\\+|-)?" in message
    )


def test_a_float_where_an_integer_belongs_is_a_number():
    [(_, _, message)] = messages(runtime(entry(priority=1.5)))
    assert 'must be of type integer: "number"' in message


def test_nulls_are_dropped_as_the_api_server_drops_them():
    manifest = runtime(entry(priority=1), disabled=None, modelSizeRange=None)
    manifest["metadata"]["creationTimestamp"] = None
    assert refusals(manifest) == ()
    required = runtime({**entry(), "modelFramework": None})
    assert messages(required)[0][:2] == ("Required", "spec.supportedModelFormats[0].modelFramework")
    # an unknown field is unknown whatever its value
    assert messages(runtime(bogus=None))[0][0] == "UnknownField"


def test_what_kubectl_get_prints_is_accepted():
    documents = list(yaml.safe_load_all((FIXTURES / "kubectl_get_seed_cluster.yaml").read_text()))
    items = [item for document in documents for item in document.get("items", [document])]
    checked = [item for item in items if item.get("kind") in KINDS]
    assert checked
    for item in checked:
        assert refusals(item) == (), item["metadata"]["name"]


def test_status_is_decoded_strictly_and_validated_only_without_a_subresource():
    model = model_doc(storage={"storageUri": "hf://x/y"})
    model["status"] = {"state": "Ready", "bogus": 1}
    assert messages(model)[0][1] == "status.bogus"
    model["status"] = {"nodesReady": "many"}  # BaseModel: status is a subresource, reset
    assert refusals(model) == ()
    assert kind_schema("BaseModel").status_subresource
    assert not kind_schema("ClusterServingRuntime").status_subresource


def test_newer_fields_of_omes_types_are_accepted():
    sharded = model_doc(storage={"storageUri": "oci://n/b/o"}, distribution="Sharded")
    cached = runtime({**entry(priority=1), "modelCacheProviders": ["DragonFly"]})
    pinned = isvc_doc(
        model={"name": "llama", "overlays": [{"name": "lora"}]},
        runtime={"name": "vllm", "autoSync": False, "revision": "cr-vllm-0a1b2c3d"},
        engine={"autoscaler": {"class": "KEDA"}, "lifecycle": {}},
        scalingPolicy={"mode": "Independent"},
        deploymentMode="OMENative",
    )
    for manifest in (sharded, cached, pinned):
        assert refusals(manifest) == (), manifest["kind"]
    assert messages(runtime({**entry(), "modelCacheProviders": "DragonFly"}))[0][0] == "Invalid"


def test_the_vendored_schemas_name_their_source():
    commit = (OPENAPI / "COMMIT").read_text().strip()
    assert len(commit) == 40 and int(commit, 16) >= 0
    assert "Apache License" in (OPENAPI / "LICENSE").read_text()
    source = (OPENAPI / "SOURCE.md").read_text()
    assert commit in source
    for kind in KINDS:
        served = json.loads(next(OPENAPI.glob(f"ome.io_{kind.lower()}*.json")).read_text())
        assert served["schema"]["type"] == "object"
        assert "description" not in json.dumps(served)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_object_of_each_kind_is_checked(kind):
    manifest = {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": {"name": "x"}}
    manifest["spek"] = {}
    assert messages(manifest)[0][:2] == ("UnknownField", "spek")
    assert kind_schema(kind) is kind_schema(kind)  # read once


def test_the_check_does_not_change_the_manifest():
    manifest = runtime(entry(priority=0), disabled=None)
    before = copy.deepcopy(manifest)
    refusals(manifest)
    assert manifest == before
