"""SPEC §17 "Names are Kubernetes names": an object's name is a DNS-1123 subdomain and a namespace
a DNS-1123 label, on every endpoint (422 at the field, in the API server's words); and a text
answer never holds a control character, whatever an object references."""

from __future__ import annotations

import re

import pytest
import yaml
from marshmallow import ValidationError

from app.rendering.encode import printable
from app.schemas.fields import validate_namespace, validate_object_name
from app.schemas.names import (
    LABEL_TEXT,
    SUBDOMAIN_TEXT,
    is_namespace,
    is_object_name,
    label_problem,
    subdomain_problem,
)
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

YAML = {"Content-Type": "application/yaml"}
FORGED = "evil\n\x1b[31mFAKE   Cluster   Yes"
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def stream(*documents: dict) -> bytes:
    return yaml.safe_dump_all(documents, sort_keys=False).encode()


BAD_NAMES = [FORGED, "Bad_Name", "UPPER", "-leading", "trailing-", "a..b", "x" * 254, "a b"]
GOOD_NAMES = ["a", "a.b-c", "0", "x" * 253, "a-b.c-d.e"]
BAD_NAMESPACES = ["Team_A", "a.b", "x" * 64, "-a", "a\n"]


def _fields(response) -> dict:
    error = response.get_json()["error"]
    assert (response.status_code, error["code"]) == (422, "InvalidDocument"), error
    return error["fields"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_rank_refuses_object_names_the_api_server_refuses(client, name):
    body = rank_body(model_doc(), runtime_doc("fine"), runtime_doc(name))
    fields = _fields(client.post("/v1/rank", json=body))
    assert list(fields) == ["runtimes[1].metadata.name"]
    [message] = fields["runtimes[1].metadata.name"]
    assert message.startswith("Invalid value: ")
    assert not CONTROL.search(message)  # quoted with escapes, as Go's %q would
    model = client.post("/v1/rank", json=rank_body(model_doc(name)))
    assert list(_fields(model)) == ["model.metadata.name"]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_rank_takes_every_kubernetes_name(client, name):
    body = rank_body(model_doc(name), runtime_doc(name), serving_runtime(name))
    answered = client.post("/v1/rank", json=body)
    assert answered.status_code == 200, answered.get_json()
    assert {row["name"] for row in answered.get_json()["runtimes"]} == {name}


def test_a_name_too_long_and_a_bad_one_say_so_as_kubernetes_does(client):
    long = _fields(client.post("/v1/rank", json=rank_body(model_doc("x" * 254))))
    assert long["model.metadata.name"][0].endswith("must be no more than 253 characters")
    bad = _fields(client.post("/v1/rank", json=rank_body(model_doc("Bad_Name"))))
    assert bad["model.metadata.name"] == [
        'Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
        "character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]


@pytest.mark.parametrize("namespace", BAD_NAMESPACES)
def test_namespaces_are_labels_in_documents_bodies_and_queries(client, namespace):
    documents = _fields(client.post("/v1/rank", json=rank_body(model_doc(namespace=namespace))))
    assert list(documents) == ["model.metadata.namespace"]
    isvc = isvc_doc(namespace=namespace, model={"name": "llama"})
    assert "inferenceService.metadata.namespace" in _fields(
        client.post("/v1/rank", json=rank_body(inferenceService=isvc))
    )
    body = _fields(client.post("/v1/rank", json=rank_body(namespace=namespace)))
    assert list(body) == ["namespace"]
    for path in ("/v1/rank", "/v1/select", "/v1/selections"):  # lint takes no namespace
        query = client.post(path, query_string={"namespace": namespace}, json=rank_body())
        assert list(_fields(query)) == ["namespace"], path
    catalog = client.get("/v1/clusters/prod/selections", query_string={"namespace": namespace})
    assert list(_fields(catalog)) == ["namespace"]


def test_an_empty_namespace_is_an_absent_one(client):
    answered = client.post(
        "/v1/rank?namespace=", json=rank_body(model_doc(namespace=""), namespace="")
    )
    assert (answered.status_code, answered.get_json()["namespace"]) == (200, "default")


def test_catalog_writes_refuse_bad_names_and_store_nothing(client):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    for bad in (runtime_doc(FORGED), serving_runtime("ok", namespace="Team_A"), model_doc("B")):
        for write in (client.put, client.post):
            body = stream(model_doc("m"), bad)
            refused = write("/v1/clusters/prod/objects", data=body, headers=YAML)
            [path] = _fields(refused)
            assert path.startswith("document 2.metadata.")  # where in the body, then the field
    info = client.get("/v1/clusters/prod").get_json()
    assert (info["generation"], sum(info["counts"].values())) == (1, 0)


def test_lint_reports_a_bad_name_as_the_api_server_refuses_it(client):
    answered = client.post("/v1/lint", data=stream(runtime_doc("Bad_Name")), headers=YAML)
    [finding] = answered.get_json()["findings"]
    assert (finding["severity"], finding["code"], finding["field"]) == (
        "error",
        "Invalid",
        "metadata.name",
    )
    assert answered.get_json()["admitted"] is False


# --- text answers never hold a control character --------------------------------------------


def _reference_with_controls() -> list[dict]:
    """Names are validated; what an object references is not (nor are versions, annotations):
    a forged row would come through those."""
    return [
        model_doc("llama"),
        runtime_doc("vllm", entry(format_version=f"1.0\n{FORGED}")),
        isvc_doc("svc", model={"name": "llama"}, runtime={"name": FORGED}, engine={}),
        isvc_doc("other", model={"name": f"nope\u202e{FORGED}"}, engine={}),
    ]


@pytest.mark.parametrize("path", ["/v1/selections", "/v1/lint"])
def test_text_answers_escape_every_control_character(client, path):
    answered = client.post(
        path, data=stream(*_reference_with_controls()), headers={**YAML, "Accept": "text/plain"}
    )
    assert answered.status_code == 200, answered.get_data(as_text=True)
    text = answered.get_data(as_text=True)
    lines = text.split("\n")
    assert lines[-1] == ""  # every line ends in a newline, and that is the only LF
    assert not CONTROL.search("".join(lines))
    assert "\\x1b[31mFAKE" in text  # escaped, still readable


def test_the_explain_table_escapes_reasons(client):
    body = rank_body(model_doc(), runtime_doc("vllm", entry(format_version=f"2\n{FORGED}")))
    table = client.post("/v1/rank", json=body, headers={"Accept": "text/plain"})
    text = table.get_data(as_text=True)
    assert len(text.splitlines()) == 2  # the header and one row
    assert not CONTROL.search(text.replace("\n", ""))
    as_json = client.post("/v1/rank", json=body).get_json()
    assert "\n" in as_json["runtimes"][0]["reason"]  # JSON keeps the value exact


def test_printable_escapes_as_go_quotes_and_leaves_the_rest():
    assert printable("plain é 🙂 text") == "plain é 🙂 text"
    assert printable("a\tb\nc\rd\x00e\x1bf\x7fg\x85h\u2028i\u202ej\u2066k") == (
        "a\\tb\\nc\\rd\\x00e\\x1bf\\x7fg\\u0085h\\u2028i\\u202ej\\u2066k"
    )


# --- the names themselves, in the API server's words (app/schemas/names.py) ----------------------


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_an_object_name_is_a_dns_1123_subdomain(name):
    assert subdomain_problem(name) is None
    assert is_object_name(name)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_what_the_api_server_refuses_as_an_object_name(name):
    assert subdomain_problem(name) is not None
    assert not is_object_name(name)
    with pytest.raises(ValidationError):
        validate_object_name(name)


def test_the_refusals_texts_are_the_api_servers():
    assert subdomain_problem("Bad_Name") == f'Invalid value: "Bad_Name": {SUBDOMAIN_TEXT}'
    assert subdomain_problem("x" * 254) == (
        f'Invalid value: "{"x" * 80}...": must be no more than 253 characters'
    )
    assert label_problem("a.b") == f'Invalid value: "a.b": {LABEL_TEXT}'
    assert label_problem("x" * 64).endswith("must be no more than 63 characters")


def test_a_refused_value_is_shown_without_a_control_character():
    shown = subdomain_problem(FORGED)
    assert shown is not None and CONTROL.search(shown) is None
    assert shown.startswith('Invalid value: "evil\\n\\x1b[31mFAKE   Cluster   Yes":')


@pytest.mark.parametrize("namespace", BAD_NAMESPACES)
def test_a_namespace_is_a_dns_1123_label(namespace):
    assert not is_namespace(namespace)
    with pytest.raises(ValidationError):
        validate_namespace(namespace)


@pytest.mark.parametrize("namespace", ["", "a", "team-a", "x" * 63])
def test_namespaces_and_the_empty_one_of_an_absent_namespace(namespace):
    assert is_namespace(namespace)
    validate_namespace(namespace)
    assert not is_namespace(None)
