"""OME's BaseModel and ClusterBaseModel webhook (app/selection/admission/models.py): the storage
URI's shape, ``pvc://`` and ``stage://``, refused in OME's words (OME's
``basemodel_webhook_test.go``, ``basemodel_webhook_stage_test.go`` and ``basemodel_test.go``)."""

from __future__ import annotations

import pytest

from app.selection.admission.models import model_refusals
from tests.builders import model_doc

FIELD = "spec.storage.storageUri"
STAGE_SOURCE = "stage:///mnt/nfs-src/qwen/Qwen3-32B"


def base_model(uri=None, *, cluster=False, path=None, **spec):
    storage = {}
    if uri is not None:
        storage["storageUri"] = uri
    if path is not None:
        storage["path"] = path
    if storage:
        spec["storage"] = storage
    if cluster:
        return model_doc("llama", kind="ClusterBaseModel", namespace=None, **spec)
    return model_doc("llama", **spec)


def refusal(text: str) -> list:
    return [("InvalidStorage", FIELD, text)]


@pytest.mark.parametrize(
    "manifest",
    [
        base_model(),
        base_model("oci://n/ns/b/bucket/o/path"),
        base_model("hf://meta-llama/Llama-3.1-8B"),
        base_model("local:///mnt/data/models/x"),
        base_model("pvc://my-pvc/models/llama"),
        base_model("pvc://shared:my-pvc/models/llama", cluster=True),
        base_model("pvc://my-pvc/models/llama", distribution="PerNode"),
        base_model(STAGE_SOURCE, path="/mnt/data/models/qwen3-32b"),
        base_model(STAGE_SOURCE, cluster=True, path="/mnt/data/models/qwen3-32b"),
        base_model(["pvc://"]),  # not a string: the API server's error, not the webhook's
    ],
)
def test_what_the_webhook_admits(manifest):
    assert model_refusals(manifest) == []


def test_a_namespaced_model_names_no_namespace_in_its_pvc_uri():
    assert model_refusals(base_model("pvc://shared:my-pvc/models/llama")) == refusal(
        "namespaced BaseModel PVC URI must not specify a namespace; the BaseModel's own "
        'namespace is used, got "pvc://shared:my-pvc/models/llama"'
    )


def test_a_cluster_model_names_the_namespace_of_its_claim():
    assert model_refusals(base_model("pvc://my-pvc/models/llama", cluster=True)) == refusal(
        "ClusterBaseModel PVC URI must specify a namespace (format: "
        'pvc://{namespace}:{pvc-name}/{sub-path}), got "pvc://my-pvc/models/llama"'
    )


@pytest.mark.parametrize("cluster", [False, True])
def test_a_malformed_pvc_uri_quotes_it_with_the_parsers_text(cluster):
    assert model_refusals(base_model("pvc://", cluster=cluster)) == refusal(
        'invalid PVC storage URI "pvc://": invalid PVC storage URI format: missing content '
        "after prefix"
    )


def test_a_pvc_uri_and_sharded_distribution_refuse_before_the_uri_is_parsed():
    manifest = base_model("pvc://", distribution="Sharded")
    assert model_refusals(manifest) == refusal(
        "PVC storage URIs are not compatible with distribution=Sharded; use "
        "distribution=PerNode (or omit) for pvc:// models"
    )


@pytest.mark.parametrize("path", [None, ""])
def test_a_stage_uri_needs_a_destination(path):
    assert model_refusals(base_model(STAGE_SOURCE, path=path)) == refusal(
        "stage:// storage requires spec.storage.path to name the node-local destination"
    )


def test_a_stage_destination_is_absolute():
    assert model_refusals(base_model(STAGE_SOURCE, path="models/qwen3-32b")) == refusal(
        'stage:// spec.storage.path must be an absolute path, got "models/qwen3-32b"'
    )


@pytest.mark.parametrize(
    ("path", "cleaned"),
    [
        ("/mnt/nfs-src/qwen/Qwen3-32B/copy", "/mnt/nfs-src/qwen/Qwen3-32B/copy"),
        ("/mnt/nfs-src/qwen/Qwen3-32B", "/mnt/nfs-src/qwen/Qwen3-32B"),
        ("/mnt/other/../nfs-src/qwen/Qwen3-32B/./x/", "/mnt/nfs-src/qwen/Qwen3-32B/x"),
        ("//mnt/nfs-src/qwen/Qwen3-32B", "/mnt/nfs-src/qwen/Qwen3-32B"),  # Go keeps one slash
    ],
)
def test_a_stage_destination_is_not_inside_its_source_once_cleaned(path, cleaned):
    assert model_refusals(base_model(STAGE_SOURCE, path=path)) == refusal(
        f'stage:// spec.storage.path "{cleaned}" must not be inside the source '
        '"/mnt/nfs-src/qwen/Qwen3-32B"'
    )


def test_a_destination_beside_the_source_with_a_longer_name_is_not_inside_it():
    assert model_refusals(base_model(STAGE_SOURCE, path="/mnt/nfs-src/qwen/Qwen3-32B-copy")) == []


@pytest.mark.parametrize(
    ("uri", "source"),
    [("stage://relative/source", "relative/source"), ("stage:///mnt/../etc", "/mnt/../etc")],
)
def test_a_stage_source_is_absolute_without_dot_dot(uri, source):
    assert model_refusals(base_model(uri, path="/mnt/data/x")) == refusal(
        f'invalid stage storage URI "{uri}": the source "{source}" must be an absolute path '
        "without .. segments"
    )
