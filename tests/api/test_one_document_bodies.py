"""Bodies that are one document, not a stream (app/http/body.py ``one_document``): a cluster's
settings (``PUT /v1/clusters/{cluster}``) and ``/v1/impact``'s two streams honour
``Content-Type`` as every other body does: JSON, or YAML as the endpoints that read streams take
it, and 415 for any other type."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.servers import SEED_YAML

YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml")
SETTINGS = {"description": "east", "omeVersion": "1.2"}
SEED = list(yaml.safe_load_all(SEED_YAML))
# The seed with its ServingRuntime turned off: the change moves nothing that is not asked.
IMPACT = {"current": SEED, "proposed": SEED[:-1]}


@pytest.mark.parametrize("media", YAML_TYPES)
def test_settings_come_as_yaml_too(client, media):
    created = client.put(
        "/v1/clusters/prod", data=yaml.safe_dump(SETTINGS), headers={"Content-Type": media}
    )
    assert created.status_code == 201, created.get_data()
    assert {key: created.get_json()[key] for key in SETTINGS} == SETTINGS


@pytest.mark.parametrize("media", ["text/plain", "application/x-www-form-urlencoded"])
def test_settings_of_another_type_are_a_415_and_change_nothing(client, media):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    refused = client.put(
        "/v1/clusters/prod", data=json.dumps(SETTINGS), headers={"Content-Type": media}
    )
    assert refused.status_code == 415
    assert refused.get_json()["error"]["code"] == "UnsupportedMediaType"
    assert client.get("/v1/clusters/prod").get_json()["generation"] == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("description: a\n---\ndescription: b\n", "one YAML document, found 2"),
        ("# nothing\n", "one YAML document, found 0"),
        ("- description: a\n", "cluster settings must be an object"),
    ],
)
def test_settings_in_yaml_are_one_mapping(client, text, message):
    refused = client.put(
        "/v1/clusters/prod", data=text, headers={"Content-Type": "application/yaml"}
    )
    assert refused.status_code == 400
    assert message in refused.get_json()["error"]["message"]
    assert client.get("/v1/clusters/prod").status_code == 404


@pytest.mark.parametrize("media", YAML_TYPES)
def test_impact_comes_as_yaml_too(client, media):
    expected = client.post("/v1/impact", json=IMPACT)
    assert expected.status_code == 200
    answered = client.post(
        "/v1/impact", data=yaml.safe_dump(IMPACT), headers={"Content-Type": media}
    )
    assert answered.status_code == 200, answered.get_data()
    assert answered.get_data() == expected.get_data()


def test_impact_of_another_type_is_a_415(client):
    refused = client.post(
        "/v1/impact", data=json.dumps(IMPACT), headers={"Content-Type": "text/plain"}
    )
    assert refused.status_code == 415
    assert refused.get_json()["error"]["code"] == "UnsupportedMediaType"
