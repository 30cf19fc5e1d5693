"""app/api/cluster_answers.py: a model asked by name that is not where the question looks is
OME's 404, with the namespaces that do hold a BaseModel of that name, for a caller that may
read the cluster (rules §17 "Finding the model")."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.builders import model_doc, runtime_doc
from tests.http.builders import ADMIN, ELSEWHERE, READER, SEED_MODEL, seeded_app

NOT_FOUND = f"No BaseModel or ClusterBaseModel with the name: {SEED_MODEL}"
RUNTIMES_ONLY = yaml.safe_dump(runtime_doc("another")).encode()


@pytest.fixture
def client(make_app, tmp_path):
    return seeded_app(
        make_app, tmp_path, STORE_PATH=str(tmp_path / "catalog.sqlite3")
    ).test_client()


def error_of(answer) -> dict:
    assert answer.status_code == 404, answer.get_data(as_text=True)
    return answer.get_json()["error"]


@pytest.mark.parametrize(
    ("question", "looked_in"),
    [
        (f"/v1/clusters/prod/select?model={SEED_MODEL}", "default"),
        (f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=other", "other"),
        (f"/v1/clusters/prod/rank?model={SEED_MODEL}&modelKind=BaseModel", "default"),
    ],
)
def test_a_model_asked_by_name_elsewhere_says_where_it_is(client, question, looked_in):
    assert error_of(client.get(question, headers=READER)) == {
        "code": "ModelNotFound",
        "message": NOT_FOUND,  # OME's text, as it is
        "namespaces": ["llama-demo"],
        "hint": f"not in namespace {looked_in}; found in llama-demo",
    }


def test_laid_over_the_catalog_too(client):
    answer = client.post(
        f"/v1/clusters/prod/select?model={SEED_MODEL}",
        data=RUNTIMES_ONLY,
        headers={**READER, "Content-Type": "application/yaml"},
    )
    assert error_of(answer)["hint"] == "not in namespace default; found in llama-demo"


@pytest.mark.parametrize(
    "question",
    [
        f"/v1/clusters/prod/select?model={SEED_MODEL}&modelKind=ClusterBaseModel",
        "/v1/clusters/prod/select?model=nowhere",
    ],
)
def test_no_namespace_to_name_no_hint(client, question):
    error = error_of(client.get(question, headers=READER))
    assert set(error) == {"code", "message"}


def test_the_hint_names_a_few_and_the_list_all(client):
    models = [model_doc(SEED_MODEL, namespace=f"team-{n}") for n in range(7)]
    body = json.dumps(models).encode()
    written = client.post(
        "/v1/clusters/prod/objects",
        data=body,
        headers={**ADMIN, "Content-Type": "application/json"},
    )
    assert written.status_code == 200, written.get_data(as_text=True)
    error = error_of(client.get(f"/v1/clusters/prod/select?model={SEED_MODEL}", headers=READER))
    assert error["namespaces"] == ["llama-demo", *(f"team-{n}" for n in range(7))]
    assert error["hint"] == (
        "not in namespace default; found in llama-demo, team-0, team-1, team-2, team-3 and 3 more"
    )


@pytest.mark.parametrize(("headers", "status"), [(ELSEWHERE, 403), ({}, 401)])
def test_only_a_caller_that_may_read_the_cluster_learns_where(client, headers, status):
    answer = client.get(f"/v1/clusters/prod/select?model={SEED_MODEL}", headers=headers)
    assert answer.status_code == status
    assert b"llama-demo" not in answer.get_data()
