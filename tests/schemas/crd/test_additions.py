"""Fields of OME's newer types laid over the vendored CRD schemas (app/schemas/crd/additions.py):
each is added where it belongs, without replacing what a schema already holds, so that strict
decoding accepts what a cluster running OME 1.3 accepts and the enums the API server checks
still refuse."""

from __future__ import annotations

import copy

import pytest

from app.schemas.crd import refusals
from app.schemas.crd.additions import ADDITIONS, additions_of, lay_over
from app.schemas.crd.schemas import kind_schema
from tests.builders import entry, isvc_doc, model_doc, runtime_doc


def node(schema, path):
    for step in path:
        schema = schema["items"] if step == "[]" else schema["properties"][step]
    return schema


@pytest.mark.parametrize(
    ("kinds", "path", "name", "addition"),
    ADDITIONS,
    ids=[f"{kinds[0]}:{'.'.join((*path, name))}" for kinds, path, name, _ in ADDITIONS],
)
def test_each_addition_is_in_the_schema_of_each_of_its_kinds(kinds, path, name, addition):
    for kind in kinds:
        assert node(kind_schema(kind).schema, path)["properties"][name] == addition


def test_laying_over_keeps_what_a_schema_already_holds():
    schema = {
        "properties": {
            "spec": {
                "properties": {
                    "distribution": {"type": "string", "enum": ["Sharded", "PerNode"]},
                }
            }
        }
    }
    before = copy.deepcopy(schema)
    lay_over(additions_of("BaseModel"), schema)
    assert schema == before
    lay_over(additions_of("AcceleratorClass"), schema)  # a kind without additions
    assert schema == before


def test_what_the_additions_let_through_and_what_their_enums_refuse():
    assert refusals(runtime_doc("rt", entry(priority=1, modelCacheProviders=["DragonFly"]))) == ()
    storage = {"storageUri": "hf://meta-llama/Llama-3.2-1B"}
    assert refusals(model_doc(distribution="Sharded", storage=storage)) == ()
    service = isvc_doc(model={"name": "llama"}, engine={"autoscaler": {"class": "KEDA"}})
    assert refusals(service) == ()
    service["spec"]["scalingPolicy"] = {"mode": "Lockstep"}
    [found] = refusals(service)
    assert (found.code, found.field) == ("Unsupported", "spec.scalingPolicy.mode")
