"""SPEC §17 "Headers": every answer carries ``X-Content-Type-Options: nosniff``; catalog answers
``Cache-Control: no-store`` beside their ETag; the HTML pages cannot be framed."""

from __future__ import annotations

import pytest

from tests.builders import rank_body

YAML = {"Content-Type": "application/yaml"}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1/rank", rank_body(), 200),
        ("POST", "/v1/rank", {"model": 3}, 400),
        ("POST", "/v1/select", rank_body(), 422),
        ("GET", "/v1/nowhere", None, 404),
        ("GET", "/healthz", None, 200),
        ("GET", "/metrics", None, 200),
        ("GET", "/openapi.json", None, 200),
        ("GET", "/docs", None, 200),
        ("GET", "/", None, 200),
        ("GET", "/v1/clusters", None, 200),
    ],
)
def test_no_answer_is_sniffed(client, method, path, body, status):
    answered = client.open(path, method=method, json=body)
    assert answered.status_code == status
    assert answered.headers["X-Content-Type-Options"] == "nosniff"


def test_catalog_answers_are_never_kept(client):
    created = client.put("/v1/clusters/prod", json={})
    etag = created.headers["ETag"]
    answers = [
        created,
        client.get("/v1/clusters"),
        client.get("/v1/clusters/prod"),
        client.get("/v1/clusters/prod", headers={"If-None-Match": etag}),  # 304
        client.get("/v1/clusters/prod/objects"),
        client.get("/v1/clusters/prod/selections", headers={"Accept": "text/plain"}),
        client.get("/v1/clusters/prod/rank?model=nope"),  # 404
        client.get("/v1/clusters/other"),  # 404
        client.delete("/v1/clusters/prod"),  # 204
    ]
    assert [a.status_code for a in answers] == [201, 200, 200, 304, 200, 200, 404, 404, 204]
    for answer in answers:
        assert answer.headers["Cache-Control"] == "no-store"
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answers[3].headers["ETag"] == etag  # a poll stays cheap
    assert "no-store" not in client.post("/v1/rank", json=rank_body()).headers.get(
        "Cache-Control", ""
    )


@pytest.mark.parametrize("path", ["/", "/docs"])
def test_pages_cannot_be_framed(client, path):
    page = client.get(path)
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Frame-Options"] == "DENY"
