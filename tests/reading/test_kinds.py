"""Kinds and versions as kubectl maps them (rules §18, revision 3.1): what kubectl refuses of
an object before any server sees it, in its words, and how each reader of a stream treats it."""

from __future__ import annotations

import pytest

from app.reading.kinds import OME_KINDS, Unmapped, unmapped
from app.reading.manifests import read_stream, split_objects
from app.reading.object_streams import objects_in
from app.schemas.crd import KINDS as VENDORED_KINDS
from app.selection.admission import ERROR, Finding
from tests.builders import isvc_doc, model_doc, retyped, runtime_doc, serving_runtime

# OME's CRDs, as config/crd/kustomization.yaml of its repository lists them: every kind of group
# ome.io, each served at v1beta1 alone.
OMES_CRDS = (
    "InferenceService",
    "ClusterServingRuntime",
    "ServingRuntime",
    "BaseModel",
    "ClusterBaseModel",
    "FineTunedWeight",
    "BenchmarkJob",
    "AcceleratorClass",
)
NO_KIND = "kind not set"
TYPO = 'no matches for kind "ServingRuntme" in version "ome.io/v1beta1"'
ALPHA = 'no matches for kind "ServingRuntime" in version "ome.io/v1alpha1"'


def test_the_kinds_are_omes_crds_and_hold_every_vendored_schema():
    assert frozenset(OMES_CRDS) == OME_KINDS
    assert VENDORED_KINDS <= OME_KINDS


@pytest.mark.parametrize("kind", [*OMES_CRDS, "ServingRuntimeList", "InferenceServiceList"])
def test_every_kind_ome_serves_is_mapped(kind):
    assert unmapped({"apiVersion": "ome.io/v1beta1", "kind": kind}) is None


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [
        ("v1", "Namespace"),
        ("apps/v1", "Deployment"),
        ("serving.kserve.io/v1beta1", "InferenceService"),  # KServe's: what it serves, unknown
        ("v1", "ServingRuntme"),
        ("ome.io", "ServingRuntime"),  # no "/": the core group's version "ome.io"
        ("OME.io/v1beta1", "Nothing"),  # groups are compared exactly
    ],
)
def test_other_groups_are_not_refused(api_version, kind):
    assert unmapped({"apiVersion": api_version, "kind": kind}) is None


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            {"apiVersion": "ome.io/v1beta1", "kind": "ServingRuntme"},
            Unmapped("NoKindMatch", "kind", TYPO, False),
        ),
        (
            {"apiVersion": "ome.io/v1alpha1", "kind": "ServingRuntime"},
            Unmapped("NoKindMatch", "apiVersion", ALPHA, True),
        ),
        (
            {"apiVersion": "ome.io/v1", "kind": "Widget"},
            Unmapped(
                "NoKindMatch", "kind", 'no matches for kind "Widget" in version "ome.io/v1"', False
            ),
        ),
        (
            {"apiVersion": "ome.io/", "kind": "BaseModel"},
            Unmapped(
                "NoKindMatch",
                "apiVersion",
                'no matches for kind "BaseModel" in version "ome.io/"',
                True,
            ),
        ),
        (
            {"apiVersion": "ome.io/v1beta1", "kind": 'Say "hi"\n'},
            Unmapped(
                "NoKindMatch",
                "kind",
                'no matches for kind "Say \\"hi\\"\\n" in version "ome.io/v1beta1"',
                False,
            ),
        ),
        ({"kind": "ServingRuntime"}, Unmapped("Invalid", "apiVersion", "apiVersion not set", True)),
        (
            {"apiVersion": "", "kind": "Namespace"},
            Unmapped("Invalid", "apiVersion", "apiVersion not set", True),
        ),
        (
            {"apiVersion": None, "kind": "Namespace"},
            Unmapped("Invalid", "apiVersion", "apiVersion not set", True),
        ),
        ({"apiVersion": "v1"}, Unmapped("Invalid", "kind", NO_KIND, False)),
        ({"apiVersion": "v1", "kind": ""}, Unmapped("Invalid", "kind", NO_KIND, False)),
        (
            {"apiVersion": "v1", "kind": ["BaseModel"]},
            Unmapped("Invalid", "kind", "kind isn't string type", False),
        ),
        (
            {"apiVersion": 1, "kind": "BaseModel"},
            Unmapped("Invalid", "apiVersion", "apiVersion isn't string type", True),
        ),
        (
            {"apiVersion": "a/b/c", "kind": "BaseModel"},
            Unmapped("Invalid", "apiVersion", "unexpected GroupVersion string: a/b/c", True),
        ),
        ({}, Unmapped("Invalid", "apiVersion", "[apiVersion not set, kind not set]", False)),
    ],
)
def test_what_kubectl_refuses_in_its_words(manifest, expected):
    assert unmapped(manifest) == expected


def _stream(*documents: dict) -> list[dict]:
    return [
        model_doc("llama", namespace="demo"),
        *documents,
        runtime_doc("vllm"),
    ]


def test_rank_reads_on_past_what_kubectl_would_not_map_and_lists_it():
    documents = _stream(
        retyped(runtime_doc("typo"), kind="ServingRuntme"),
        retyped(runtime_doc("alpha"), api_version="ome.io/v1alpha1"),
        {"metadata": {"name": "bare", "namespace": "demo"}},
        retyped(serving_runtime("lenient"), api_version=None),  # rules §1: read all the same
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}},
    )
    read = read_stream(documents)
    assert [doc["metadata"]["name"] for doc in read.request["runtimes"]] == ["lenient", "vllm"]
    assert [(o.kind, o.name, o.namespace, o.reason) for o in read.others] == [
        ("ServingRuntme", "typo", None, TYPO),
        (
            "ClusterServingRuntime",
            "alpha",
            None,
            'no matches for kind "ClusterServingRuntime" in version "ome.io/v1alpha1"',
        ),
        (None, "bare", "demo", "[apiVersion not set, kind not set]"),
        ("Namespace", "demo", None, "Namespace is not read by runtime selection"),
    ]


def test_a_lenient_stream_of_objects_ignores_them_and_reads_a_missing_api_version():
    documents = _stream({"apiVersion": "v1", "metadata": {"name": "x"}})
    documents.append(retyped(serving_runtime("plain"), api_version=None))
    stream = objects_in(documents)
    assert [item.name for item in stream.objects] == ["llama", "vllm", "plain"]
    assert [(o.kind, o.reason) for o in stream.others] == [(None, NO_KIND)]
    assert stream.invalid == [] and stream.apart == []


def test_a_strict_stream_reports_what_kubectl_refuses_and_reads_no_other_object_of_it():
    typo = retyped(runtime_doc("typo"), kind="ServingRuntme")
    namespace = {"kind": "Namespace", "metadata": {"name": "demo"}}
    bare = {"apiVersion": "v1", "metadata": {"name": "bare", "namespace": "demo"}}
    stream = objects_in(_stream(typo, namespace, bare), strict=True)
    assert stream.invalid == [
        Finding(ERROR, "ServingRuntme", None, "typo", "kind", "NoKindMatch", TYPO),
        Finding(ERROR, "Namespace", None, "demo", "apiVersion", "Invalid", "apiVersion not set"),
        Finding(ERROR, None, "demo", "bare", "kind", "Invalid", NO_KIND),
    ]
    assert stream.others == [] and stream.apart == []
    assert [item.name for item in stream.objects] == ["llama", "vllm"]


def test_split_objects_keeps_a_read_kind_with_a_wrong_api_version_for_lint_to_judge_apart():
    alpha = retyped(runtime_doc("alpha"), api_version="ome.io/v1alpha1")
    objects = [("document 1", alpha), ("document 2", {"apiVersion": "v1", "kind": "X"})]
    read, others, refused = split_objects(objects, strict=True)
    assert read == [("document 1", alpha)] and refused == []
    assert [other.kind for other in others] == ["X"]


def test_objects_kubectl_or_the_api_server_refuses_for_what_they_are_are_judged_apart():
    no_version = retyped(serving_runtime("plain"), api_version=None)
    alpha = retyped(isvc_doc("alpha", model={"name": "llama"}), api_version="ome.io/v1alpha1")
    named = runtime_doc("Invalid-Name")
    stream = objects_in(_stream(no_version, alpha, named), strict=True)
    assert [(type(d).__name__, d.name, d.namespace) for d in stream.apart] == [
        ("Runtime", "plain", "demo"),
        ("InferenceService", "alpha", "demo"),
        ("Runtime", "Invalid-Name", None),
    ]
    assert [item.name for item in stream.objects] == ["llama", "vllm"]
    first = {key: refusals[0] for key, refusals in stream.refused.items()}
    assert first[("ServingRuntime", "demo", "plain")].message == "apiVersion not set"
    assert first[("InferenceService", "demo", "alpha")].message == (
        'no matches for kind "InferenceService" in version "ome.io/v1alpha1"'
    )
    assert first[("ClusterServingRuntime", "", "Invalid-Name")].message.startswith(
        'The ClusterServingRuntime "Invalid-Name" is invalid: metadata.name: Invalid value: '
        '"Invalid-Name": a lowercase RFC 1123 subdomain'
    )


def test_the_last_object_of_a_key_decides_whether_it_is_judged_apart():
    valid, unversioned = serving_runtime("rt"), retyped(serving_runtime("rt"), api_version=None)
    later_valid = objects_in(_stream(unversioned, valid), strict=True)
    assert later_valid.apart == [] and "rt" in [item.name for item in later_valid.objects]
    later_apart = objects_in(_stream(valid, unversioned), strict=True)
    assert [d.name for d in later_apart.apart] == ["rt"]
    assert "rt" not in [item.name for item in later_apart.objects]
