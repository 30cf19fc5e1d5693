"""A stream of any number of OME objects (app/reading/object_streams.py, rules §15's reading and
§17-§19): each object validated alone, the last of each key kept in its own place, other kinds
reported, invalid ones refused as the API server would, and what lint reads strictly."""

from __future__ import annotations

import pytest

from app.errors import InvalidDocument, LimitExceeded
from app.reading.object_streams import (
    has_full_runner,
    manifest_key,
    objects_in,
    read_objects,
)
from app.selection.admission import ERROR, Finding
from app.selection.values.request_objects import OtherObject
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.yaml_data import stream

CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "demo"},
}


def test_objects_are_kept_once_a_key_the_last_one_in_its_place():
    found = objects_in(
        [
            model_doc(),
            runtime_doc("rt", entry(priority=1)),
            isvc_doc("svc", model={"name": "llama"}),
            runtime_doc("rt", entry(priority=2)),
        ]
    )
    assert [(item.kind, item.name) for item in found.objects] == [
        ("BaseModel", "llama"),
        ("InferenceService", "svc"),
        ("ClusterServingRuntime", "rt"),
    ]
    assert found.objects[-1].document.entries[0].priority == 2
    assert found.warnings == [
        "ClusterServingRuntime rt appears 2 times in the request; the last one is used"
    ]
    assert found.documents() == [item.document for item in found.objects]


def test_other_kinds_and_empty_documents_are_reported_or_skipped():
    found = objects_in([CONFIG_MAP, None, runtime_doc("rt")])
    assert found.others == [OtherObject("ConfigMap", "cm", "demo")]
    assert [item.name for item in found.objects] == ["rt"]


def test_an_invalid_object_is_refused_by_its_own_path_as_the_api_server_words_it():
    found = objects_in([model_doc(), runtime_doc("bad", entry(priority=0))])
    assert found.problems == {
        "document 2.spec.supportedModelFormats[0].priority": ["Must be at least 1."]
    }
    assert found.invalid == [
        Finding(
            ERROR,
            "ClusterServingRuntime",
            None,
            "bad",
            "spec.supportedModelFormats[0].priority",
            "Invalid",
            'The ClusterServingRuntime "bad" is invalid: spec.supportedModelFormats[0].priority: '
            "Must be at least 1.",
        )
    ]
    assert [item.name for item in found.objects] == ["llama"]
    with pytest.raises(InvalidDocument):
        found.refuse_invalid()


def test_more_objects_than_a_cluster_holds_are_refused_before_any_is_read():
    with pytest.raises(LimitExceeded) as refused:
        objects_in([runtime_doc(f"rt-{n}") for n in range(3)], limit=2)
    assert str(refused.value) == (
        "the body holds 3 objects; a cluster holds at most 2 (OME_RANKER_MAX_OBJECTS_PER_CLUSTER)"
    )


def test_a_body_is_read_as_yaml_or_json():
    yaml_body = stream(model_doc(), runtime_doc("rt"))
    from_yaml = read_objects(yaml_body, "application/yaml")
    from_json = read_objects(
        b'{"apiVersion": "v1", "kind": "List", "items": []}', "application/json"
    )
    assert [item.kind for item in from_yaml.objects] == ["BaseModel", "ClusterServingRuntime"]
    assert from_json.objects == []


def test_lint_reads_each_manifest_strictly_and_judges_the_last_one_applied():
    typo = runtime_doc("rt", bogus=1)
    found = objects_in([typo, runtime_doc("ok")], strict=True)
    key = ("ClusterServingRuntime", "", "rt")
    assert list(found.manifests) == [key, ("ClusterServingRuntime", "", "ok")]
    [refusal] = found.refused[key]
    assert (refusal.code, refusal.field) == ("UnknownField", "spec.bogus")
    fixed = objects_in([typo, runtime_doc("rt")], strict=True)
    assert fixed.refused == {}


def test_lint_keeps_a_class_it_can_create_under_its_name_the_last_one():
    gpu = {"apiVersion": "ome.io/v1beta1", "kind": "AcceleratorClass", "metadata": {"name": "gpu"}}
    later = {**gpu, "spec": {"vendor": "nvidia"}}
    found = objects_in([gpu, later], strict=True)
    assert found.classes == {"gpu": later}
    assert found.warnings == [
        "AcceleratorClass gpu appears 2 times in the request; the last one is used"
    ]
    nameless = objects_in([{**gpu, "metadata": {"name": "Bad_Name"}}], strict=True)
    assert nameless.classes == {}
    assert [finding.code for finding in nameless.invalid] == ["Invalid"]


@pytest.mark.parametrize(
    ("manifest", "key"),
    [
        (model_doc("llama", namespace=None), ("BaseModel", "default", "llama")),
        (model_doc("llama", namespace="team"), ("BaseModel", "team", "llama")),
        (runtime_doc("rt"), ("ClusterServingRuntime", "", "rt")),
        ({"kind": "BaseModel", "metadata": "garbage"}, ("BaseModel", "default", "")),
    ],
)
def test_a_manifests_key_before_it_is_validated(manifest, key):
    assert manifest_key(manifest) == key


@pytest.mark.parametrize(
    ("engine", "full"),
    [
        ({"runner": {"image": "ome/sglang"}}, True),
        ({"leader": {"runner": {"image": "a"}}, "worker": {"runner": {"image": "b"}}}, True),
        ({"leader": {"runner": {"image": "a"}}, "worker": {}}, False),
        ({"runner": {"image": ""}}, False),
        ({}, False),
        (None, False),
    ],
)
def test_a_complete_runner_configuration_as_ome_reads_it(engine, full):
    spec = {} if engine is None else {"engine": engine}
    assert has_full_runner(isvc_doc("svc", model={"name": "llama"}, **spec)) is full
    found = objects_in([isvc_doc("svc", model={"name": "llama"}, **spec)])
    assert (found.full_runners == {("demo", "svc")}) is full
