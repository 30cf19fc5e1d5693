"""/openapi.json: valid OpenAPI, complete (every route, content type and error code), and its
examples are what the service really answers."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
import yaml
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from app.api.examples import SEED_YAML_PATH
from app.api.openapi import build_spec
from app.errors import HTTP_CODES, ApiError
from app.http.described import YAML_BODIES as YAML_REQUEST_TYPES
from app.schemas.rank_answers import ERROR_CODES
from app.version import __version__
from tests.builders import token_file
from tests.paths import FIXTURES, ROOT

AUTOMATIC_METHODS = {"HEAD", "OPTIONS"}  # Flask adds them to every route


@pytest.fixture
def spec(client) -> dict:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def resolve(spec: dict, item: dict) -> dict:
    while "$ref" in item:
        node = spec
        for part in item["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        item = node
    return item


def operations(spec: dict):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_the_spec_is_valid_openapi(spec):
    validate(spec)
    assert spec["openapi"].startswith("3.1")


def test_every_route_the_app_serves_is_in_the_spec_and_nothing_else(app, spec):
    served = {
        (re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        for method in rule.methods - AUTOMATIC_METHODS
    }
    documented = {(path, method) for path, method, _ in operations(spec)}
    assert served == documented


def test_every_response_carries_the_request_id_header(spec):
    for path, method, operation in operations(spec):
        for status, response in operation["responses"].items():
            headers = resolve(spec, response).get("headers", {})
            assert "X-Request-ID" in headers, (path, method, status)


def test_ranking_bodies_in_every_content_type(spec):
    for path in ("/v1/rank", "/v1/select"):
        body = spec["paths"][path]["post"]["requestBody"]
        assert body["required"] is True
        assert set(body["content"]) == {"application/json", *YAML_REQUEST_TYPES}
    answers = spec["paths"]["/v1/rank"]["post"]["responses"]["200"]["content"]
    assert set(answers) == {"application/json", "text/plain", "application/yaml"}


def _readme_error_table() -> set[tuple[str, str]]:
    """(status, code) of each row of the error table of docs/api.md."""
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    errors = page[page.index("\n## Errors\n") :]
    return set(re.findall(r"^\| (\d{3}) \| `(\w+)` \|", errors, flags=re.MULTILINE))


def _error_codes(spec: dict, response: dict) -> set[str]:
    content = resolve(spec, response).get("content", {}).get("application/json", {})
    return {example["value"]["error"]["code"] for example in content.get("examples", {}).values()}


def test_every_error_code_is_documented_with_its_status(spec):
    documented = {
        (status, code)
        for _, _, operation in operations(spec)
        for status, response in operation["responses"].items()
        if status >= "400"
        for code in _error_codes(spec, response)
    }
    # No operation can answer these two (they are about paths and methods the spec does not
    # list), so they are documented as components only.
    responses = spec["components"]["responses"]
    documented |= {("404", code) for code in _error_codes(spec, responses["NotFound"])}
    documented |= {("405", code) for code in _error_codes(spec, responses["MethodNotAllowed"])}
    table = _readme_error_table()
    assert len(table) >= 9
    assert table <= documented
    codes = set(spec["components"]["schemas"]["ErrorDetail"]["properties"]["code"]["enum"])
    assert {code for _, code in documented} <= codes


def _validator(spec: dict, schema: dict) -> OAS31Validator:
    return OAS31Validator({**schema, "components": spec["components"]})


def test_every_example_validates_against_its_schema(spec):
    checked = 0
    media = []
    for _, _, operation in operations(spec):
        body = operation.get("requestBody")
        if body:
            media += body["content"].values()
        for response in operation["responses"].values():
            media += resolve(spec, response).get("content", {}).values()
    for response in spec["components"]["responses"].values():
        media += response["content"].values()
    for item in media:
        values = [example["value"] for example in item.get("examples", {}).values()]
        if "example" in item:
            values.append(item["example"])
        for value in values:
            errors = list(_validator(spec, item["schema"]).iter_errors(value))
            assert errors == [], errors[0].message
            checked += 1
    assert checked >= 20


def test_examples_are_the_seed_example_and_the_real_answers(client, spec):
    seed_yaml = (FIXTURES / "seed_example.yaml").read_bytes()
    assert SEED_YAML_PATH.read_bytes() == seed_yaml  # the copy shipped in the image
    rank = spec["paths"]["/v1/rank"]["post"]
    # YAML's example is the stream's documents as one `kind: List`, a value its schema describes.
    yaml_example = rank["requestBody"]["content"]["application/yaml"]["examples"]["seed"]["value"]
    assert yaml_example == {
        "apiVersion": "v1",
        "kind": "List",
        "items": [document for document in yaml.safe_load_all(seed_yaml) if document],
    }
    answers = rank["responses"]["200"]["content"]
    table = answers["text/plain"]["examples"]["seed"]["value"]
    assert table == (FIXTURES / "seed_example.txt").read_text(encoding="utf-8")
    real = client.post("/v1/rank", data=seed_yaml, headers={"Content-Type": "application/yaml"})
    assert answers["application/json"]["examples"]["seed"]["value"] == real.get_json()
    json_request = rank["requestBody"]["content"]["application/json"]["examples"]["seed"]
    assert client.post("/v1/rank", json=json_request["value"]).get_json() == real.get_json()
    as_yaml = client.post(
        "/v1/rank", data=yaml.safe_dump(yaml_example), headers={"Content-Type": "application/yaml"}
    )
    assert as_yaml.get_json() == real.get_json()
    select = spec["paths"]["/v1/select"]["post"]["responses"]["200"]["content"]
    real_select = client.post(
        "/v1/select", data=seed_yaml, headers={"Content-Type": "application/yaml"}
    )
    assert select["application/json"]["examples"]["seed"]["value"] == real_select.get_json()


def test_the_spec_states_the_deployments_limits(make_app):
    spec = make_app(MAX_CONTENT_LENGTH=4096, MAX_RUNTIMES=7).test_client().get("/openapi.json")
    spec = spec.get_json()
    runtimes = spec["components"]["schemas"]["RankRequest"]["properties"]["runtimes"]
    assert runtimes["maxItems"] == 7
    assert "4096 bytes (4 KiB)" in spec["info"]["description"]
    assert "at most 7 runtimes" in spec["info"]["description"]
    for path in ("/v1/rank", "/v1/select"):
        assert "413" in spec["paths"][path]["post"]["responses"]


def test_the_spec_version_is_the_projects(client):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "app.version.__version__"
    }
    assert client.get("/openapi.json").get_json()["info"]["version"] == __version__


def test_the_spec_is_built_once_per_app(app, client):
    first = client.get("/openapi.json").get_json()
    built = app.extensions["openapi_spec"]
    assert client.get("/openapi.json").get_json() == first
    assert app.extensions["openapi_spec"] is built


def test_every_code_the_service_answers_with_is_in_the_error_table():
    # ERROR_CODES is derived from app/errors.py; the table of docs/api.md is written by hand.
    raised = {kind.code for kind in ApiError.__subclasses__()} | set(HTTP_CODES.values())
    assert raised <= set(ERROR_CODES)
    assert {code for _, code in _readme_error_table()} == raised


def test_every_route_declares_its_operation(make_app):
    app = make_app()

    @app.get("/undescribed")
    def undescribed():
        return "x"

    with pytest.raises(LookupError, match="undescribed"):
        build_spec(app)


def _request_bodies(spec: dict):
    for path, method, operation in operations(spec):
        body = operation.get("requestBody")
        if body:
            yield path, method, body["content"]


def test_a_yaml_body_is_described_as_what_it_parses_to(spec):
    """A YAML body is described by the value a document parses to, never as a string (a
    client made from the description would send a YAML string)."""
    seen = 0
    for path, method, content in _request_bodies(spec):
        for media in YAML_REQUEST_TYPES:
            if media in content:
                schema = content[media]["schema"]
                assert schema.get("type") != "string", (path, method, media)
                assert "object" in json.dumps(schema) or "$ref" in json.dumps(schema)
                seen += 1
    assert seen >= 3 * 12


def _manifest_bodies(spec: dict):
    for path, method, content in _request_bodies(spec):
        for media, item in content.items():
            options = item["schema"].get("anyOf", [])
            for option in options:
                if option.get("type") == "object" and "kind" in option.get("properties", {}):
                    yield path, method, media, option


def test_a_manifest_without_a_kind_is_described_as_read_and_listed_apart(spec, client):
    """rules §18: an object without ``kind`` is listed under ``ignored`` (lint: an error), not
    refused with the body, so no manifest schema requires one."""
    found = list(_manifest_bodies(spec))
    assert len({(path, method) for path, method, _, _ in found}) >= 10
    for path, method, media, manifest in found:
        assert "required" not in manifest, (path, method, media)
        assert "ignored" in manifest["properties"]["kind"]["description"]
    assert (
        client.post("/v1/impact", json={"current": [{}], "proposed": [{"kind": 5}]}).status_code
        == 200
    )


def _parameter(spec: dict, operation: dict, name: str) -> dict:
    for item in operation["parameters"]:
        item = resolve(spec, item)
        if item["name"] == name:
            return item
    raise LookupError(name)


def test_names_carry_their_pattern_and_bounds(spec):
    label = re.compile(
        _parameter(spec, spec["paths"]["/v1/clusters/{cluster}"]["get"], "cluster")["schema"][
            "pattern"
        ]
    )
    assert label.match("prod-east") and not label.match("Prod_1") and not label.match("-a")
    for path, method, operation in operations(spec):
        if "{cluster}" in path:
            cluster = _parameter(spec, operation, "cluster")["schema"]
            assert (cluster["pattern"], cluster["maxLength"]) == (label.pattern, 63), path
        for item in operation["parameters"]:
            item = resolve(spec, item)
            if item["name"] == "namespace":
                schema = item["schema"]
                assert schema["maxLength"] == 63, (path, method)
                namespace = re.compile(schema["pattern"])
                assert namespace.match("") and namespace.match("llama-demo"), (path, method)
                assert not namespace.match("Bad_Name"), (path, method)
            if item["name"] == "acceleratorClassesKnown":
                assert item["schema"]["enum"] == ["true", "false"], (path, method)
    delete = _parameter(spec, spec["paths"]["/v1/clusters/{cluster}/impact"]["post"], "delete")
    pattern = re.compile(delete["schema"]["items"]["pattern"])
    assert pattern.match("ServingRuntime/llama-demo/team-llama")
    assert pattern.match("ClusterServingRuntime/vllm-llama")
    assert not pattern.match("ServingRuntime/team-llama")
    assert not pattern.match("ClusterBaseModel/")


@pytest.mark.parametrize("value", ["ServingRuntime/team-llama", "ClusterBaseModel/", "a//b"])
def test_a_deletion_the_pattern_refuses_the_service_refuses(make_app, value):
    client = make_app().test_client()
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    answer = client.post(f"/v1/clusters/prod/impact?delete={value}", json=[])
    assert answer.status_code == 400


def test_accelerator_classes_may_be_null_as_the_service_takes_it(client, spec):
    classes = spec["components"]["schemas"]["RankRequest"]["properties"]["acceleratorClasses"]
    assert classes["type"] == ["array", "null"]
    body = {
        **spec["paths"]["/v1/rank"]["post"]["requestBody"]["content"]["application/json"][
            "examples"
        ]["seed"]["value"],
        "acceleratorClasses": None,
    }
    assert client.post("/v1/rank", json=body).status_code == 200


@pytest.mark.parametrize("endpoint", ["rank", "select"])
def test_the_overlay_documents_the_body_and_parameters_it_reads(spec, endpoint):
    operation = spec["paths"][f"/v1/clusters/{{cluster}}/{endpoint}"]["post"]
    json_body = operation["requestBody"]["content"]["application/json"]["schema"]
    overlay = resolve(spec, json_body["anyOf"][0])
    assert "model" not in overlay.get("required", [])
    assert set(overlay["properties"]) == set(
        spec["components"]["schemas"]["RankRequest"]["properties"]
    )
    names = {resolve(spec, item)["name"] for item in operation["parameters"]}
    assert {"omeVersion", "modelCacheProvider", "Cache-Control", "If-None-Match"} <= names
    assert "412" in operation["responses"]


STATELESS = {
    ("/v1/rank", "post"),
    ("/v1/select", "post"),
    ("/v1/lint", "post"),
    ("/v1/impact", "post"),
    ("/v1/selections", "post"),
}


@pytest.mark.parametrize("stateless", [False, True])
def test_the_stateless_endpoints_need_a_token_where_the_deployment_says_so(
    make_app, tmp_path, stateless
):
    tokens = token_file(tmp_path / "tokens.yaml", {"name": "t", "secret": "s", "read": ["*"]})
    app = make_app(AUTH_MODE="token", TOKENS_FILE=tokens, AUTH_STATELESS=stateless)
    spec = app.test_client().get("/openapi.json").get_json()
    for path, method in STATELESS:
        operation = spec["paths"][path][method]
        assert ("security" in operation) is stateless, path
        assert ("401" in operation["responses"]) is stateless, path
        answered = app.test_client().post(path, json={})
        assert (answered.status_code == 401) is stateless, path
    assert "security" not in spec["paths"]["/healthz"]["get"]


def test_answers_the_http_server_may_give_itself_need_no_request_id(spec):
    for path, method, operation in operations(spec):
        for status, response in operation["responses"].items():
            header = resolve(spec, resolve(spec, response)["headers"]["X-Request-ID"])
            worker = int(status) in (400, 408, 414, 417, 431, 501, 503)
            assert header.get("required", False) is not worker, (path, method, status)


def test_catalog_answers_name_x_cache_and_304s_vary(spec):
    for path in ("rank", "select", "selections"):
        operation = spec["paths"][f"/v1/clusters/{{cluster}}/{path}"]["get"]
        assert "X-Cache" in operation["responses"]["200"]["headers"], path
        assert "Vary" in operation["responses"]["304"]["headers"], path
    put = spec["paths"]["/v1/clusters/{cluster}"]["put"]
    assert "404" not in put["responses"]


def test_the_page_s_example_is_documented_as_the_stream_it_serves(client, spec):
    operation = spec["paths"]["/ui/examples/{name}"]["get"]
    schema = operation["responses"]["200"]["content"]["application/yaml"]["schema"]
    answer = client.get("/ui/examples/seed_example.yaml")
    documents = [document for document in yaml.safe_load_all(answer.get_data()) if document]
    answer.close()
    assert len(documents) > 1
    assert list(_validator(spec, schema).iter_errors(documents)) == []
    outside = client.get("/ui/examples/seed_example.yaml", headers={"Range": "bytes=999999-"})
    outside.close()
    assert outside.status_code == 416
    assert outside.get_json()["error"]["code"] == "RangeNotSatisfiable"
    assert "416" in operation["responses"]


def test_impact_s_sides_are_described_as_the_service_reads_them(client, spec):
    sides = spec["components"]["schemas"]["ImpactRequest"]["properties"]
    for side in ("current", "proposed"):
        assert sides[side]["type"] == ["array", "null"]
        manifest, null = sides[side]["items"]["anyOf"]
        assert (manifest["type"], null) == ("object", {"type": "null"})
    assert client.post("/v1/impact", json={"current": None, "proposed": [None]}).status_code == 200
    assert client.post("/v1/impact", json={"current": [1]}).status_code == 400
