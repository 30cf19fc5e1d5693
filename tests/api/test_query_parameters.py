"""The query parameters several routes share are checked where a route takes them, once access
is decided (app/http/query.py): ``?namespace=Bad_Name`` is a 422 on the routes whose operation
takes a namespace, after their 401 and 403, and changes nothing on the others."""

from __future__ import annotations

import pytest
import yaml

from tests.builders import runtime_doc, token_file
from tests.servers import SEED_YAML

YAML = {"Content-Type": "application/yaml"}
ADMIN = {"Authorization": "Bearer admin-secret"}
ELSEWHERE = {"Authorization": "Bearer elsewhere-secret"}
PATH_VALUES = {
    "cluster": "prod",
    "kind": "ServingRuntime",
    "name": "team-llama",
    "filename": "app.css",
}
EXAMPLE = "seed_example.yaml"
BODY = SEED_YAML + b"---\n" + yaml.safe_dump(runtime_doc("extra")).encode()
BAD_NAMESPACE = "Bad_Name"
LONG_PROVIDER = "p" * 257


@pytest.fixture
def app(make_app, tmp_path):
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "elsewhere", "secret": "elsewhere-secret", "read": ["staging"]},
    )
    app = make_app(AUTH_MODE="token", TOKENS_FILE=tokens, AUTH_STATELESS=True)
    client = app.test_client()
    assert client.put("/v1/clusters/prod", json={}, headers=ADMIN).status_code == 201
    written = client.put("/v1/clusters/prod/objects", data=SEED_YAML, headers={**ADMIN, **YAML})
    assert written.status_code == 200
    return app


def _parameters(spec: dict, operation: dict) -> set[str]:
    names = set()
    for parameter in operation["parameters"]:
        if "$ref" in parameter:
            parameter = spec["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
        if parameter["in"] == "query":
            names.add(parameter["name"])
    return names


def _operations(app) -> list[tuple[str, str, set[str]]]:
    spec = app.test_client().get("/openapi.json", headers=ADMIN).get_json()
    found = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            url = path.replace("{name}", EXAMPLE) if path.startswith("/ui/examples/") else path
            found.append((url.format(**PATH_VALUES), method, _parameters(spec, operation)))
    return found


def _ask(client, method: str, url: str, headers: dict):
    body: dict = {}
    if url.startswith("/v1/impact"):
        body = {"json": {"current": [], "proposed": []}}
    elif method in ("post", "put") and url.split("?")[0] != "/v1/clusters/prod":
        body = {"data": BODY, "headers": {**YAML, **headers}}
    answer = getattr(client, method)(url, **{"headers": headers, **body})
    answer.get_data()  # read whole, so that a file answered is closed
    answer.close()
    return answer


def _refused_at(answer, field: str) -> bool:
    if answer.status_code != 422:
        return False
    error = answer.get_json()["error"]
    return error["code"] == "InvalidDocument" and field in error["fields"]


@pytest.mark.parametrize(
    "parameter, value", [("namespace", BAD_NAMESPACE), ("modelCacheProvider", LONG_PROVIDER)]
)
def test_a_parameter_is_refused_where_a_route_takes_it_and_ignored_elsewhere(app, parameter, value):
    client = app.test_client()
    refused = ignored = 0
    for url, method, takes in _operations(app):
        if method == "delete" and url == "/v1/clusters/prod":
            continue  # it would take the cluster the others ask about
        separator = "&" if "?" in url else "?"
        answer = _ask(client, method, f"{url}{separator}{parameter}={value}", ADMIN)
        if parameter in takes:
            assert _refused_at(answer, parameter), (method, url, answer.get_data())
            refused += 1
        else:
            assert not _refused_at(answer, parameter), (method, url, answer.get_data())
            plain = _ask(client, method, url, ADMIN)
            assert answer.status_code == plain.status_code, (method, url)
            ignored += 1
    assert refused >= 5 and ignored >= 10


@pytest.mark.parametrize(
    "url",
    [
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/docs",
        "/",
        f"/ui/examples/{EXAMPLE}",
        "/v1/clusters",
        "/v1/clusters/prod",
    ],
)
def test_a_route_that_takes_no_namespace_ignores_one(app, url):
    answer = _ask(app.test_client(), "get", f"{url}?namespace={BAD_NAMESPACE}", ADMIN)
    assert answer.status_code == 200


@pytest.mark.parametrize(
    "method, url",
    [
        ("post", "/v1/rank"),
        ("post", "/v1/select"),
        ("post", "/v1/selections"),
        ("get", "/v1/clusters/prod/rank?model=llama-3-2-3b-instruct"),
        ("get", "/v1/clusters/prod/selections"),
        ("get", "/v1/clusters/prod/objects"),
        ("post", "/v1/clusters/prod/select"),
        ("delete", "/v1/clusters/prod/objects/ServingRuntime/team-llama"),
    ],
)
def test_access_is_decided_before_the_namespace(app, method, url):
    client = app.test_client()
    separator = "&" if "?" in url else "?"
    url = f"{url}{separator}namespace={BAD_NAMESPACE}"
    assert _ask(client, method, url, {}).status_code == 401
    if url.startswith("/v1/clusters/"):
        assert _ask(client, method, url, ELSEWHERE).status_code == 403
    assert _refused_at(_ask(client, method, url, ADMIN), "namespace")
