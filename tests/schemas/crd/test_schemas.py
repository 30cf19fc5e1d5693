"""``app/schemas/crd/schemas.py``: a document jsonschema-rs finds valid, against its schema cut
down to the fields of the documents checked with it, is one jsonschema (with kube-openapi's
``integer``) finds no error in against the whole schema, so the answer never depends on which of
the two looked; and a valid document never imports jsonschema."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.crd.schemas import FastCheck, cut_to_held, held_fields, kind_schema
from bench.manifests import model_manifest, runtime_manifest
from tests.builders import entry, isvc_doc, json_paths, model_doc, runtime_doc
from tests.cli.support import ROOT

BASES = [
    runtime_doc("rt", entry(priority=1)),
    runtime_manifest(0, random.Random(1)),
    runtime_manifest(7, random.Random(2)),
    model_manifest(),
    model_doc(storage={"storageUri": "hf://meta-llama/Llama-3.2-1B"}),
    isvc_doc(model={"name": "llama"}, engine={"minReplicas": 1, "maxReplicas": 2}),
    {
        "apiVersion": "ome.io/v1beta1",
        "kind": "AcceleratorClass",
        "metadata": {"name": "nvidia-h100"},
        "spec": {
            "vendor": "nvidia",
            "discovery": {"nodeSelector": {"nvidia.com/gpu.product": "nvidia-h100"}},
            "capabilities": {"memoryGB": "80Gi"},
        },
    },
]
# Values that each keyword of OME's schemas treats at its edge: integral floats for `integer`,
# a trailing new line for `pattern` (Python's `$` takes it), numbers past 64 bits, NaN.
ODD_VALUES = [
    None, True, False, 0, 1, -1, 1.0, 2.5, -1.0, 2**31, 2**63, 2**70, -(2**70),
    float("nan"), float("inf"), "", "x", "1Gi", "1Gi\n", "-1", "1e3", "a:b", "a/b", "Always",
    "IfNotPresent", "TCP", [], [1], ["x"], {}, {"x": 1}, {"name": "x"},
]  # fmt: skip


def mutated(document, path, value):
    copied = copy.deepcopy(document)
    if not path:
        return copied
    node = copied
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copied


@st.composite
def documents(draw):
    """A base document with up to three changes: a value replaced by an odd one, or an odd
    value under a new or existing key of a mapping."""
    document = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(0, 3))):
        paths = [path for path in json_paths(document) if path and path[0] != "kind"]
        path = draw(st.sampled_from(paths))
        value = draw(st.sampled_from(ODD_VALUES))
        if draw(st.booleans()):
            parent = mutated(document, (), None)
            for step in path:
                parent = parent[step]
            if isinstance(parent, dict):
                key = draw(st.sampled_from(["extra", "name", "image", "port", "priority"]))
                path = (*path, key)
        document = mutated(document, path, value)
    return document


def surely_valid(document, *others):
    """The fast check of ``document``, made with ``others`` (their fields kept too)."""
    schema = kind_schema(document["kind"])
    batch = [(kind_schema(other["kind"]), other) for other in (document, *others)]
    return FastCheck(batch).surely_valid(schema, document)


@settings(max_examples=8 * settings.default.max_examples)
@given(documents(), st.lists(documents(), max_size=2))
def test_what_the_fast_check_admits_jsonschema_admits(document, others):
    if surely_valid(document, *others):
        assert list(kind_schema(document["kind"]).validator.iter_errors(document)) == []


def test_each_base_is_valid_and_each_broken_one_goes_to_jsonschema():
    for document in BASES:
        assert surely_valid(document)
        assert list(kind_schema(document["kind"]).validator.iter_errors(document)) == []
    broken = mutated(BASES[0], ("spec", "supportedModelFormats", 0, "priority"), 1.5)
    assert not surely_valid(broken, *BASES)
    missing = mutated(BASES[5], ("spec",), {"engine": {"minReplicas": "one"}})
    assert not surely_valid(missing)
    # what it cannot read is left to jsonschema, which decides
    assert not surely_valid({**BASES[3], 1: "a key not a string"})


def test_the_cut_schema_keeps_only_the_fields_held():
    """A runtime's schema is cut to the few fields a runtime sets: jsonschema-rs builds the
    whole of it (~560 KB) in longer than it checks thousands of documents."""
    runtime, whole = BASES[1], kind_schema(BASES[1]["kind"]).schema
    held: dict = {}
    held_fields(whole, runtime, held)
    kept = cut_to_held(whole, held)
    assert set(kept["properties"]) == set(runtime)  # apiVersion, kind, metadata, spec
    assert set(kept["properties"]["spec"]["properties"]) == set(runtime["spec"])
    assert len(json.dumps(kept)) < len(json.dumps(whole)) / 20


LOADS_JSONSCHEMA = """
import json, sys
from app.schemas.crd import refusals
for document in json.load(sys.stdin):
    refused = refusals(document)
    print(bool(refused), "jsonschema" in sys.modules)
"""


def test_a_valid_document_never_imports_jsonschema():
    invalid = mutated(BASES[0], ("spec", "supportedModelFormats", 0, "priority"), "high")
    done = subprocess.run(
        [sys.executable, "-c", LOADS_JSONSCHEMA],
        cwd=ROOT,
        input=json.dumps([*BASES, invalid]),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == ["False False"] * len(BASES) + ["True True"]
