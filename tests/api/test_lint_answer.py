"""``POST /v1/lint``'s findings say where they are (the body's document, and the line and column
of their field when the body is YAML or JSON text), and an object's ``ome-ranker.io/ignore``
annotation sets findings apart as suppressed (docs/lint.md)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.builders import entry, runtime_doc

ROOT = Path(__file__).resolve().parents[2]
LINT_YAML = (ROOT / "examples" / "lint.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}


def lint(client, body: bytes, content_type: str = "application/yaml", url: str = "/v1/lint"):
    response = client.post(url, data=body, headers={"Content-Type": content_type})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def one(answer: dict, code: str, name: str) -> dict:
    (found,) = [f for f in answer["findings"] if f["code"] == code and f["name"] == name]
    return found


def text_at(body: bytes, finding: dict) -> str:
    return body.decode().splitlines()[finding["line"] - 1][finding["column"] - 1 :]


def test_findings_point_at_their_fields_in_a_yaml_stream(client):
    answer = lint(client, LINT_YAML)
    typo = one(answer, "UnknownField", "typo")
    # the fifth document (from 0: 4), the key of the typo, not the object's first line
    assert (typo["document"], text_at(LINT_YAML, typo)) == (4, "autoselect: true")
    assert LINT_YAML.decode().splitlines()[typo["line"] - 2].strip().startswith("modelFramework")
    # a bad value: the value itself
    priority = one(answer, "Invalid", "rt")
    assert text_at(LINT_YAML, priority) == "0"
    # about the whole object: its kind
    warning = one(answer, "AutoSelected", "chat")
    assert (warning["document"], text_at(LINT_YAML, warning)) == (1, "kind: InferenceService")
    assert all(f["line"] is not None for f in answer["findings"])


def test_findings_point_at_their_fields_in_a_json_array(client):
    documents = list(yaml.safe_load_all(LINT_YAML))
    body = json.dumps(documents, indent=2).encode()
    answer = lint(client, body, "application/json")
    typo = one(answer, "UnknownField", "typo")
    assert (typo["document"], text_at(body, typo)) == (4, '"autoselect": true')
    # one line of compact JSON: the column says where
    compact = json.dumps(documents, separators=(",", ":")).encode()
    typo = one(lint(client, compact, "application/json"), "UnknownField", "typo")
    assert typo["line"] == 1
    assert compact.decode()[typo["column"] - 1 :].startswith('"autoselect":true')


def test_an_object_repeated_is_found_at_its_last_copy(client):
    bad = runtime_doc("rt", entry(priority=0))
    body = yaml.safe_dump_all([bad, bad], sort_keys=False).encode()
    (finding,) = [f for f in lint(client, body)["findings"] if f["severity"] == "error"]
    assert finding["document"] == 1


def test_an_annotation_suppresses_its_codes_and_the_summary_counts_them(client):
    quiet = runtime_doc("quiet", entry(auto_select=False))
    quiet["metadata"]["annotations"] = {"ome-ranker.io/ignore": "NoAutoSelect, Other"}
    loud = runtime_doc("loud", entry(auto_select=False))
    body = yaml.safe_dump_all([quiet, loud], sort_keys=False).encode()
    answer = lint(client, body)
    assert [(f["name"], f["code"]) for f in answer["findings"]] == [("loud", "NoAutoSelect")]
    assert [(f["name"], f["code"], f["document"]) for f in answer["suppressed"]] == [
        ("quiet", "NoAutoSelect", 0)
    ]
    assert answer["counts"] == {"error": 0, "warning": 0, "info": 1}
    text = client.post("/v1/lint", data=body, headers={**YAML, "Accept": "text/plain"})
    last = text.get_data(as_text=True).splitlines()[-1]
    assert last == "0 errors, 0 warnings, 1 info (1 suppressed)"


def test_a_suppressed_error_still_refuses_the_object(client):
    bad = runtime_doc("rt", entry(priority=0))
    bad["metadata"]["annotations"] = {"ome-ranker.io/ignore": "Invalid"}
    answer = lint(client, yaml.safe_dump(bad).encode())
    assert answer["findings"] == []
    assert [f["code"] for f in answer["suppressed"]] == ["Invalid"]
    assert answer["admitted"] is False
    assert answer["counts"]["error"] == 0


def test_over_a_stored_catalog_the_places_are_the_bodys(client):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    stored = runtime_doc("stored", entry(auto_select=False))
    put = client.put("/v1/clusters/prod/objects", json=[stored])
    assert put.status_code == 200, put.get_data(as_text=True)
    fresh = runtime_doc("fresh", entry(auto_select=False))
    answer = lint(client, yaml.safe_dump(fresh).encode(), url="/v1/clusters/prod/lint")
    assert [(f["name"], f["document"]) for f in answer["findings"]] == [("fresh", 0)]


def test_objects_kubectl_does_not_map_are_placed_too(client):
    typo = runtime_doc("typo")
    typo["kind"] = "ServingRuntme"
    bare = {"metadata": {"name": "bare"}}
    body = yaml.safe_dump_all([runtime_doc("fine"), typo, bare], sort_keys=False).encode()
    answer = lint(client, body)
    by_code = {f["code"]: f for f in answer["findings"] if f["severity"] == "error"}
    assert (by_code["NoKindMatch"]["document"], text_at(body, by_code["NoKindMatch"])) == (
        1,
        "kind: ServingRuntme",
    )
    unset = by_code["Invalid"]
    assert unset["document"] == 2
    assert text_at(body, unset) == "metadata:"  # no apiVersion, no kind: the object itself
