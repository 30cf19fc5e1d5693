"""/openapi.json: valid OpenAPI, complete (every route, content type and error code), and its
examples are what the service really answers."""

from __future__ import annotations

import re
import tomllib

import pytest
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from app.api.examples import SEED_YAML_PATH
from app.api.openapi import build_spec
from app.errors import HTTP_CODES, ApiError
from app.http.described import YAML_BODIES as YAML_REQUEST_TYPES
from app.schemas.rank_answers import ERROR_CODES
from app.version import __version__
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
    assert rank["requestBody"]["content"]["application/yaml"]["examples"]["seed"]["value"] == (
        seed_yaml.decode()
    )
    answers = rank["responses"]["200"]["content"]
    table = answers["text/plain"]["examples"]["seed"]["value"]
    assert table == (FIXTURES / "seed_example.txt").read_text(encoding="utf-8")
    real = client.post("/v1/rank", data=seed_yaml, headers={"Content-Type": "application/yaml"})
    assert answers["application/json"]["examples"]["seed"]["value"] == real.get_json()
    json_request = rank["requestBody"]["content"]["application/json"]["examples"]["seed"]
    assert client.post("/v1/rank", json=json_request["value"]).get_json() == real.get_json()
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
