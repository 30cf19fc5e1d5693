"""rules §17 "No silent wipe": ``PUT …/objects`` of no object at all over a catalog that holds
some is a 409 ``EmptyReplace`` that writes nothing, unless ``?allowEmpty=true``; ``null``
documents and items are no objects (tests/api/test_null_documents.py), so a body of only nulls
is refused too. On SQLite and on real Redis (``empty_cluster``)."""

from __future__ import annotations

import json

import pytest

from tests.api.reading_endpoints import CLUSTER, YAML
from tests.servers import SEED_YAML

OBJECTS = f"/v1/clusters/{CLUSTER}/objects"
JSON = {"Content-Type": "application/json"}
CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}

# Bodies of no object: what an empty `kubectl get` or a sync gone wrong sends.
NO_OBJECTS = {
    "0-byte yaml": (b"", YAML),
    "null yaml": (b"null\n", YAML),
    "empty yaml documents": (b"---\n---\n", YAML),
    "json [null]": (b"[null]", JSON),
    "json []": (b"[]", JSON),
    "empty kind: List": (b"apiVersion: v1\nkind: List\nitems: []\n", YAML),
    "a List of nulls": (json.dumps({"kind": "List", "items": [None, None]}).encode(), JSON),
    "only a kind not stored": (json.dumps([CONFIG_MAP]).encode(), JSON),
}


def _seeded(client) -> dict:
    written = client.put(OBJECTS, data=SEED_YAML, headers=YAML)
    assert written.status_code == 200, written.get_data()
    return written.get_json()


@pytest.mark.parametrize("body", list(NO_OBJECTS), ids=list(NO_OBJECTS))
def test_no_objects_over_a_full_catalog_is_refused_and_writes_nothing(empty_cluster, body):
    _, client = empty_cluster
    seeded = _seeded(client)
    data, headers = NO_OBJECTS[body]
    refused = client.put(OBJECTS, data=data, headers=headers)
    assert refused.status_code == 409, refused.get_data()
    error = refused.get_json()["error"]
    stored = sum(seeded["counts"].values())
    assert (error["code"], error["stored"]) == ("EmptyReplace", stored)
    assert "?allowEmpty=true" in error["message"]
    info = client.get(f"/v1/clusters/{CLUSTER}").get_json()
    assert (info["generation"], info["counts"]) == (seeded["generation"], seeded["counts"])


@pytest.mark.parametrize("data", [b"", b"null"], ids=["0 bytes", "null"])
def test_a_json_body_that_is_no_array_or_object_is_a_400(empty_cluster, data):
    _, client = empty_cluster
    seeded = _seeded(client)
    assert client.put(OBJECTS, data=data, headers=JSON).status_code == 400
    assert client.get(f"/v1/clusters/{CLUSTER}").get_json()["counts"] == seeded["counts"]


def test_allow_empty_true_empties_it(empty_cluster):
    _, client = empty_cluster
    seeded = _seeded(client)
    emptied = client.put(f"{OBJECTS}?allowEmpty=true", data=b"[null]", headers=JSON)
    assert emptied.status_code == 200, emptied.get_data()
    assert emptied.get_json()["generation"] == seeded["generation"] + 1
    assert sum(emptied.get_json()["counts"].values()) == 0
    assert client.get(OBJECTS).get_json()["items"] == []


def test_allow_empty_false_is_the_default_and_anything_else_a_422(empty_cluster):
    _, client = empty_cluster
    _seeded(client)
    assert client.put(f"{OBJECTS}?allowEmpty=false", data=b"[]", headers=JSON).status_code == 409
    bad = client.put(f"{OBJECTS}?allowEmpty=yes", data=b"[]", headers=JSON)
    assert bad.status_code == 422
    assert bad.get_json()["error"]["fields"] == {"allowEmpty": ["Must be true or false."]}


@pytest.mark.parametrize("body", ["json [null]", "0-byte yaml"])
def test_an_empty_catalog_replaced_by_nothing_is_fine(empty_cluster, body):
    _, client = empty_cluster
    data, headers = NO_OBJECTS[body]
    kept = client.put(OBJECTS, data=data, headers=headers)
    assert kept.status_code == 200, kept.get_data()
    assert kept.get_json()["generation"] == 1  # nothing changed, nothing written


def test_some_objects_among_nulls_replace_as_usual(empty_cluster):
    _, client = empty_cluster
    _seeded(client)
    runtime = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "only-one"},
        "spec": {"disabled": True},
    }
    written = client.put(OBJECTS, data=json.dumps([None, runtime, None]), headers=JSON)
    assert written.status_code == 200
    assert sum(written.get_json()["counts"].values()) == 1


def test_apply_of_nothing_is_no_wipe_and_not_refused(empty_cluster):
    _, client = empty_cluster
    seeded = _seeded(client)
    applied = client.post(OBJECTS, data=b"[null]", headers=JSON)
    assert applied.status_code == 200
    assert applied.get_json()["counts"] == seeded["counts"]


def test_the_refusal_comes_after_access_existence_and_if_match(empty_cluster):
    _, client = empty_cluster
    seeded = _seeded(client)
    missing = client.put("/v1/clusters/nope/objects", data=b"[]", headers=JSON)
    assert missing.status_code == 404
    stale = client.put(OBJECTS, data=b"[]", headers={**JSON, "If-Match": '"1"'})
    assert stale.status_code == 412
    current = {**JSON, "If-Match": f'"{seeded["generation"]}"'}
    assert client.put(OBJECTS, data=b"[]", headers=current).status_code == 409
