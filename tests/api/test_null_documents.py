"""One rule for ``null`` in a stream of manifests (docs/api.md, "Request body"): a YAML document,
an item of a JSON array and an item of a ``kind: List`` that is ``null`` is skipped, in JSON and
YAML alike, as ``kubectl apply`` skips YAML's empty documents; any other item that is not an
object is a 400."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.servers import SEED_YAML

SEED = list(yaml.safe_load_all(SEED_YAML))
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}


def _list(*items) -> dict:
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


# The seed, and the same objects with nulls wherever a stream can hold one.
WITH_NULLS = [None, _list(None, SEED[0], None), None, *SEED[1:], _list(None), None]


def _json(documents: list) -> bytes:
    return json.dumps(documents).encode()


def _yaml(documents: list) -> bytes:
    return b"".join(b"---\n" + yaml.safe_dump(document).encode() for document in documents)


def _post(client, url: str, documents: list, as_yaml: bool):
    data, headers = (_yaml(documents), YAML) if as_yaml else (_json(documents), JSON)
    return client.post(url, data=data, headers=headers)


@pytest.mark.parametrize("as_yaml", [False, True], ids=["json", "yaml"])
@pytest.mark.parametrize("url", ["/v1/rank", "/v1/select", "/v1/lint", "/v1/selections"])
def test_a_null_document_or_item_is_skipped(client, url, as_yaml):
    plain = _post(client, url, SEED, as_yaml)
    assert plain.status_code == 200
    with_nulls = _post(client, url, WITH_NULLS, as_yaml)
    assert with_nulls.status_code == 200, with_nulls.get_data()
    if url != "/v1/lint":
        assert with_nulls.get_data() == plain.get_data()
        return
    # lint's findings say where they are: in the body with nulls, further on
    assert _unplaced(with_nulls.get_json()) == _unplaced(plain.get_json())
    assert [f["document"] for f in with_nulls.get_json()["findings"]] != [
        f["document"] for f in plain.get_json()["findings"]
    ]


def _unplaced(answer: dict) -> dict:
    places = ("document", "line", "column")
    for finding in answer["findings"]:
        for key in places:
            finding.pop(key)
    return answer


@pytest.mark.parametrize("as_yaml", [False, True], ids=["json", "yaml"])
def test_a_catalog_stores_the_same_objects(client, as_yaml):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    data, headers = (_yaml(WITH_NULLS), YAML) if as_yaml else (_json(WITH_NULLS), JSON)
    written = client.put("/v1/clusters/prod/objects", data=data, headers=headers)
    assert written.status_code == 200, written.get_data()
    counts = written.get_json()["counts"]
    assert (counts["BaseModel"], counts["ClusterServingRuntime"], counts["ServingRuntime"]) == (
        1,
        3,
        1,
    )


def test_impact_skips_them_too_and_a_null_side_is_an_empty_one(client):
    plain = client.post("/v1/impact", json={"current": SEED, "proposed": SEED[:-1]})
    with_nulls = client.post(
        "/v1/impact", json={"current": WITH_NULLS, "proposed": [None, *SEED[:-1]]}
    )
    assert with_nulls.get_data() == plain.get_data()
    empty = client.post("/v1/impact", json={"current": None, "proposed": []})
    assert (empty.status_code, empty.get_json()["checked"]) == (200, 0)


@pytest.mark.parametrize("as_yaml", [False, True], ids=["json", "yaml"])
@pytest.mark.parametrize("item", [1, "x", [SEED[0]], True])
def test_any_other_item_that_is_no_object_is_a_400(client, item, as_yaml):
    for documents in ([*SEED, item], [_list(SEED[0], item), *SEED[1:]]):
        refused = _post(client, "/v1/rank", documents, as_yaml)
        assert refused.status_code == 400
        assert "not a Kubernetes object" in refused.get_json()["error"]["message"]
