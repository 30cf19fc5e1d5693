"""A cluster's objects as one value (app/selection/values/catalog_view.py, rules §17–§19): how a
cluster keys an object, objects laid over others as ``kubectl apply`` leaves them, and OME's
model lookup."""

from __future__ import annotations

import pytest

from app.selection.values.catalog_view import (
    CatalogView,
    ModelLookup,
    find_inference_service,
    find_model,
    model_not_found,
    object_key,
    overlaid,
)
from tests.builders import entry, isvc_doc, loaded, model_doc, runtime_doc, serving_runtime

LLAMA = loaded(model_doc("llama", namespace="demo"))
SHARED_LLAMA = loaded(model_doc("llama", kind="ClusterBaseModel", namespace=None))
OTHER_LLAMA = loaded(model_doc("llama", namespace="other"))
NAMELESS = loaded(model_doc("llama", namespace=None))  # a namespaced kind that names none


def test_an_object_is_keyed_by_kind_namespace_and_name():
    assert object_key(LLAMA) == ("BaseModel", "demo", "llama")
    assert object_key(SHARED_LLAMA) == ("ClusterBaseModel", "", "llama")
    assert object_key(loaded(runtime_doc("rt"))) == ("ClusterServingRuntime", "", "rt")
    assert object_key(loaded(isvc_doc("svc"))) == ("InferenceService", "demo", "svc")


def test_a_namespaced_object_that_names_no_namespace_is_in_the_one_given():
    assert object_key(NAMELESS) == ("BaseModel", "", "llama")
    assert object_key(NAMELESS, "team") == ("BaseModel", "team", "llama")
    assert object_key(SHARED_LLAMA, "team") == ("ClusterBaseModel", "", "llama")


def test_overlaid_replaces_same_keys_keeps_the_rest_first_and_deletes():
    a, b = loaded(runtime_doc("a", entry(priority=1))), loaded(runtime_doc("b"))
    a2 = loaded(runtime_doc("a", entry(priority=2)))
    c = loaded(serving_runtime("a", namespace="demo"))  # another kind of the same name
    assert overlaid([a, b], [a2, c]) == [b, a2, c]
    assert overlaid([a, b], [], deleted=[("ClusterServingRuntime", "", "b")]) == [a]


def test_overlaid_puts_a_nameless_namespace_in_the_one_given():
    assert overlaid([LLAMA], [NAMELESS], namespace="demo") == [NAMELESS]
    assert overlaid([LLAMA], [NAMELESS]) == [LLAMA, NAMELESS]


def test_a_view_sorts_documents_by_kind_in_their_order_and_lays_changes_over():
    runtime, service = loaded(runtime_doc("rt")), loaded(isvc_doc("svc"))
    view = CatalogView.of([service, LLAMA, runtime, SHARED_LLAMA], ome_version="1.2")
    assert (view.runtimes, view.models, view.services) == (
        (runtime,),
        (LLAMA, SHARED_LLAMA),
        (service,),
    )
    changed = view.laid_over([loaded(runtime_doc("rt", disabled=True))], [object_key(LLAMA)])
    assert [r.disabled for r in changed.runtimes] == [True]
    assert changed.models == (SHARED_LLAMA,)
    assert changed.ome_version == "1.2"


@pytest.mark.parametrize(
    ("namespace", "kind", "found"),
    [
        ("demo", None, LLAMA),  # the BaseModel of the namespace first
        ("team", None, SHARED_LLAMA),  # then the ClusterBaseModel
        ("demo", "ClusterBaseModel", SHARED_LLAMA),
        ("team", "BaseModel", None),
        (None, "BaseModel", None),  # no namespace is "default"
    ],
)
def test_omes_model_lookup(namespace, kind, found):
    models = [LLAMA, OTHER_LLAMA, SHARED_LLAMA]
    assert ModelLookup(models).find("llama", namespace, kind) is found
    assert find_model(models, "llama", namespace, kind) is found


def test_no_namespace_looks_in_default():
    default = loaded(model_doc("llama", namespace="default"))
    assert find_model([default, SHARED_LLAMA], "llama", None) is default


def test_the_text_of_a_lookup_that_fails():
    assert model_not_found("ghost") == "No BaseModel or ClusterBaseModel with the name: ghost"


def test_an_inference_service_is_found_by_namespace_and_name():
    services = [loaded(isvc_doc("svc", namespace="a")), loaded(isvc_doc("svc", namespace="b"))]
    assert find_inference_service(services, "b", "svc") is services[1]
    assert find_inference_service(services, "c", "svc") is None
