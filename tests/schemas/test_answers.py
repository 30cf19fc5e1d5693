"""The answer schemas are the one list of what they describe."""

from __future__ import annotations

import dataclasses

from app.schemas.catalog_answers import ClusterInfoSchema, ClusterSettingsSchema
from app.store import ClusterSettings


def test_the_settings_schema_names_every_stored_setting():
    stored = [field.name for field in dataclasses.fields(ClusterSettings)]
    assert list(ClusterSettingsSchema().fields) == stored
    # and a cluster's answer carries each, under the same JSON name
    info = ClusterInfoSchema().fields
    for name, field in ClusterSettingsSchema().fields.items():
        assert info[name].data_key == field.data_key


def test_a_cluster_answer_dumps_its_settings_through_the_schema(client):
    created = client.put(
        "/v1/clusters/prod", json={"modelCacheProvider": "oci", "description": "east"}
    )
    assert created.status_code == 201
    body = created.get_json()
    assert (body["omeVersion"], body["modelCacheProvider"], body["description"]) == (
        "1.3",
        "oci",
        "east",
    )
    refused = client.put("/v1/clusters/prod", json={"colour": "blue"})
    assert refused.status_code == 400
    assert refused.get_json()["error"]["message"] == "unknown settings: colour"
    wrong = client.put("/v1/clusters/prod", json={"description": 5, "omeVersion": 1})
    assert wrong.get_json()["error"]["fields"] == {
        "omeVersion": ["Not a valid string."],
        "description": ["Not a valid string."],
    }
