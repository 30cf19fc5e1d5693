"""Every malformed input gets its documented 4xx with a message naming the
problem: never a 500, never a traceback (SPEC §15)."""

import copy
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import EnvironBuilder

from tests.builders import (
    entry,
    isvc_doc,
    json_paths,
    model_doc,
    rank_body,
    runtime_doc,
    serving_runtime,
)

YAML = {"Content-Type": "application/yaml"}


def error_of(response, status, code):
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["error"]["code"] == code
    assert "Traceback" not in response.get_data(as_text=True)
    return body["error"]


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"{", "not valid JSON"),
        (b"[]", "exactly one BaseModel or ClusterBaseModel, found 0"),
        (b'"x"', "must be a JSON object or array, got string"),
        (b'[{"kind": "BaseModel"}, 3]', "array item 1 is a scalar"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"model": NaN}', "NaN"),
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
        (b'{"runtimes": []}', "'model'"),
        (b'{"model": [], "runtimes": []}', "'model'"),
        (b'{"model": {}, "runtimes": {}}', "'runtimes'"),
        (b'{"model": {}, "runtimes": [], "inferenceService": 3}', "'inferenceService'"),
        (b'{"model": {}, "runtimes": [], "namespace": 3}', "'namespace'"),
        (b'{"model": {}, "runtimes": [], "omeVersion": 1.3}', "'omeVersion'"),
    ],
)
def test_malformed_json(client, raw, fragment):
    response = client.post("/v1/rank", data=raw, headers={"Content-Type": "application/json"})
    assert fragment in error_of(response, 400, "MalformedRequest")["message"]


BILLION_LAUGHS = b"""
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"kind: [", "not valid YAML"),
        (b"!!python/object/apply:os.system ['true']", "python/object"),
        (BILLION_LAUGHS, "nodes"),
        (b"- 1\n- 2\n", "sequence"),
        (b"apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "found 0"),
        (b"kind: [BaseModel]\n", "found 0"),  # not read: kind isn't string type
        (b"kind: ServingRuntime\nmetadata: {name: x}\nspec: {}\n", "exactly one"),
        (
            b"kind: BaseModel\n---\nkind: ClusterBaseModel\n",
            "exactly one",
        ),
        (
            b"kind: BaseModel\n---\nkind: InferenceService\n---\nkind: InferenceService\n",
            "InferenceService",
        ),
    ],
)
def test_malformed_yaml(client, raw, fragment):
    response = client.post("/v1/rank", data=raw, headers=YAML)
    assert fragment in error_of(response, 400, "MalformedRequest")["message"]


def test_worker_survives_a_hostile_body_and_answers_the_next_request(client):
    error_of(client.post("/v1/rank", data=BILLION_LAUGHS, headers=YAML), 400, "MalformedRequest")
    assert client.post("/v1/rank", json=rank_body()).status_code == 200


def invalid(client, body, **query):
    response = client.post("/v1/rank", json=body, query_string=query)
    return error_of(response, 422, "InvalidDocument")["fields"]


def test_paths_name_the_offending_field(client):
    bad_entry = entry(priority=0)
    bad_entry["modelFormat"]["weight"] = "2"
    bad_entry["autoSelect"] = "true"
    runtimes = [
        runtime_doc("a"),
        "not an object",
        runtime_doc("c", bad_entry),
        {"kind": "ServingRuntime", "metadata": {}, "spec": {"disabled": 1}},
    ]
    fields = invalid(client, rank_body(model_doc(), *runtimes))
    assert fields == {
        "runtimes[1]": ["Not an object."],
        "runtimes[2].spec.supportedModelFormats[0].priority": ["Must be at least 1."],
        "runtimes[2].spec.supportedModelFormats[0].modelFormat.weight": ["Not a valid integer."],
        "runtimes[2].spec.supportedModelFormats[0].autoSelect": ["Not a valid boolean."],
        "runtimes[3].metadata.name": ["Missing data for required field."],
        "runtimes[3].spec.disabled": ["Not a valid boolean."],
    }


def test_priority_below_one_is_invalid_even_when_disabled(client):
    fields = invalid(
        client, rank_body(model_doc(), runtime_doc("x", entry(priority=-3), disabled=True))
    )
    assert list(fields) == ["runtimes[0].spec.supportedModelFormats[0].priority"]


def test_model_errors(client):
    model = model_doc(format_name=5)
    model["apiVersion"] = "ome.io/v1"
    model["kind"] = "ServingRuntime"
    model["spec"]["modelFramework"] = {"version": "1"}
    fields = invalid(client, rank_body(model))
    assert set(fields) == {
        "model.apiVersion",
        "model.kind",
        "model.spec.modelFormat.name",
        "model.spec.modelFramework.name",
    }


def test_wrong_types_of_read_fields(client):
    runtime = runtime_doc(
        "x",
        modelSizeRange={"min": 1},
        acceleratorRequirements={"acceleratorClasses": "a100"},
        engineConfig={"annotations": {"ome.io/deploymentMode": 5, "other": 7}},
        supportedModelFormats="nope",
    )
    fields = invalid(client, rank_body(model_doc(size=3), runtime))
    assert set(fields) == {
        "model.spec.modelParameterSize",
        "runtimes[0].spec.modelSizeRange.min",
        "runtimes[0].spec.acceleratorRequirements.acceleratorClasses",
        "runtimes[0].spec.engineConfig.annotations",
        "runtimes[0].spec.supportedModelFormats",
    }


def test_diffusion_component_paths(client):
    pipeline = {"additionalComponents": {"unet": {"library": 3}, "x.y": 4}, "vae": []}
    fields = invalid(
        client, rank_body(model_doc(), runtime_doc("x", entry(diffusionPipeline=pipeline)))
    )
    prefix = "runtimes[0].spec.supportedModelFormats[0].diffusionPipeline"
    assert set(fields) == {
        f'{prefix}.additionalComponents["unet"].library',
        f'{prefix}.additionalComponents["x.y"]',
        f"{prefix}.vae",
    }


def test_unknown_fields_are_ignored_and_nulls_are_absent(client):
    runtime = runtime_doc("x", entry(weight=2.0, priority=None), containers=[{"image": 1}])
    runtime["metadata"]["labels"] = {"a": 1}
    runtime["spec"]["modelSizeRange"] = None
    runtime["spec"]["supportedModelFormats"][0]["unknown"] = {"deep": [1, 2]}
    response = client.post("/v1/rank", json=rank_body(model_doc(quantization=None), runtime))
    assert response.status_code == 200
    assert response.get_json()["runtimes"][0]["score"] == 3


def test_duplicate_candidates_last_one_wins_with_a_warning(client):
    """SPEC §2: as `kubectl apply -f` of them all would leave the cluster. A ServingRuntime
    without a namespace lands in the target namespace; one in another namespace is not a
    candidate, so its copies are merged without a warning."""
    runtimes = [
        runtime_doc("dup", entry(priority=5)),
        serving_runtime("dup", entry(format_name="onnx")),
        runtime_doc("dup"),
        serving_runtime("dup", namespace=None),
        serving_runtime("dup", namespace="elsewhere"),
        serving_runtime("dup", namespace="elsewhere"),
    ]
    response = client.post("/v1/rank", json=rank_body(model_doc(), *runtimes))
    assert response.status_code == 200
    body = response.get_json()
    assert [(r["name"], r["scope"], r["score"]) for r in body["runtimes"]] == [
        ("dup", "Namespaced", 2),
        ("dup", "Cluster", 2),
    ]
    assert body["warnings"] == [
        "ServingRuntime dup appears 2 times in the request; the last one is used",
        "ClusterServingRuntime dup appears 2 times in the request; the last one is used",
    ]
    assert [item["namespace"] for item in body["ignored"]] == ["elsewhere"]


def test_inference_service_model_name_must_match(client):
    body = rank_body(model_doc(), inferenceService=isvc_doc(model={"name": "other"}))
    assert list(invalid(client, body)) == ["inferenceService.spec.model.name"]


def test_inference_service_shape(client):
    isvc = isvc_doc(annotations={"ome.io/accelerator-class": 3}, engine=[], runtime={"name": 4})
    isvc["kind"] = "Service"
    assert set(invalid(client, rank_body(model_doc(), inferenceService=isvc))) == {
        "inferenceService.kind",
        "inferenceService.metadata.annotations",
        "inferenceService.spec.engine",
        "inferenceService.spec.runtime.name",
    }


@pytest.mark.parametrize("version", ["", "one.three", "1.3-", "v"])
def test_bad_ome_version(client, version):
    assert list(invalid(client, rank_body(omeVersion=version))) == ["omeVersion"]
    assert list(invalid(client, rank_body(), omeVersion=version)) == ["omeVersion"]


def test_payload_too_large(make_app):
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    response = client.post(
        "/v1/rank", data=b" " * 2048, headers={"Content-Type": "application/json"}
    )
    error_of(response, 413, "PayloadTooLarge")


def _raw_post(app, body: bytes, **environ):
    """POST /v1/rank with a hand-made environ: a body shorter than announced, or chunked."""
    builder = EnvironBuilder(
        path="/v1/rank", method="POST", data=body, content_type="application/json"
    )
    env = builder.get_environ()
    env.update(environ)
    env["wsgi.input"] = io.BytesIO(body)
    return app.response_class.from_app(app, env)


def test_body_shorter_than_its_content_length(app):
    response = _raw_post(app, b'{"model": {}}', CONTENT_LENGTH="4096")
    error_of(response, 400, "MalformedRequest")


def test_chunked_body_without_content_length(make_app):
    """A body whose end the server marks (chunked transfer) is read to its end, and the size
    limit still holds."""
    app = make_app(MAX_CONTENT_LENGTH=64 * 1024)
    body = json.dumps(rank_body(model_doc(), runtime_doc("vllm"))).encode()
    chunked = {"wsgi.input_terminated": True, "HTTP_TRANSFER_ENCODING": "chunked"}
    environ = {"CONTENT_LENGTH": "", **chunked}
    response = _raw_post(app, body, **environ)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["selected"]["name"] == "vllm"
    error_of(_raw_post(app, b" " * (65 * 1024), **environ), 413, "PayloadTooLarge")


def test_empty_body(client):
    response = client.post("/v1/rank", data=b"", headers={"Content-Type": "application/json"})
    error_of(response, 400, "MalformedRequest")


def test_too_many_runtimes(make_app):
    client = make_app(MAX_RUNTIMES=2).test_client()
    body = rank_body(model_doc(), *(runtime_doc(f"r{i}") for i in range(3)))
    assert (
        "at most 2"
        in error_of(client.post("/v1/rank", json=body), 413, "PayloadTooLarge")["message"]
    )


def test_unsupported_media_type_and_routes(client):
    error_of(
        client.post("/v1/rank", data=b"a=b", content_type="application/x-www-form-urlencoded"),
        415,
        "UnsupportedMediaType",
    )
    error_of(client.get("/v1/rank"), 405, "MethodNotAllowed")
    error_of(client.get("/nowhere"), 404, "NotFound")


# Hypothesis: replace any node of a valid request with an arbitrary JSON value.
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


_BASE = rank_body(
    model_doc(size="7B"),
    runtime_doc("a", entry(diffusionPipeline={"vae": {"library": "x"}}), size_range={"min": "1B"}),
    serving_runtime("b", engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}}),
    inferenceService=isvc_doc(runtime={"name": "a"}, decoder={"acceleratorOverride": {}}),
)
_ALL_PATHS = list(json_paths(_BASE))


@settings(
    max_examples=3 * settings.default.max_examples,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(_ALL_PATHS), _json_values, st.sampled_from(["/v1/rank", "/v1/select"]))
def test_no_input_gives_a_500(fuzz_client, path, value, endpoint):
    body = copy.deepcopy(_BASE)
    if path:
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
    else:
        body = value
    response = fuzz_client.post(endpoint, data=json.dumps(body), content_type="application/json")
    assert response.status_code in (200, 400, 404, 422), response.get_data(as_text=True)
    assert "Traceback" not in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ({"supportedModelFormats": [None]}, "spec.supportedModelFormats[0]"),
        (
            {"acceleratorRequirements": {"acceleratorClasses": ["a100", None]}},
            "spec.acceleratorRequirements.acceleratorClasses[1]",
        ),
        ({"protocolVersions": [None]}, "spec.protocolVersions[0]"),
    ],
)
def test_null_list_items_are_invalid(client, spec, path):
    """README "Where the specification is silent": a null item is refused, as the CRD would."""
    runtime = runtime_doc("rt")
    runtime["spec"].update(spec)
    error = error_of(
        client.post("/v1/rank", json=rank_body(model_doc(), runtime)), 422, "InvalidDocument"
    )
    assert error["fields"] == {f"runtimes[0].{path}": ["Field may not be null."]}
