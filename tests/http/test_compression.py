"""Compressed answers (README "Compression"): gzip on every endpoint, byte-identical once
inflated; cached answers sent as stored; ETags per representation."""

from __future__ import annotations

import gzip

import pytest
from isal import isal_zlib
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from app.cache.framing import COMPRESS_MIN_BYTES
from app.http.compression import gzip_etag, identity_tags, takes_gzip
from tests.builders import model_doc, rank_body, runtime_doc
from tests.paths import SEED_YAML

YAML = {"Content-Type": "application/yaml"}
GZIP = {"Accept-Encoding": "gzip"}
SEED_MODEL = "llama-3-2-3b-instruct"
BY_NAME = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"


def large_rank_body(runtimes: int = 40) -> dict:
    return rank_body(model_doc(), *(runtime_doc(f"rt-{i}") for i in range(runtimes)))


def both(client, method: str, path: str, **kwargs):
    """The identity answer and the gzip one of the same request (a fresh copy of kwargs each)."""
    headers = kwargs.pop("headers", {})
    plain = client.open(path, method=method, headers=headers, **kwargs)
    packed = client.open(path, method=method, headers={**headers, **GZIP}, **kwargs)
    for response in (plain, packed):
        response.get_data()
        response.close()  # as a WSGI server does: a static file's handle is closed
    return plain, packed


def assert_same_after_inflating(plain, packed) -> None:
    assert plain.headers.get("Content-Encoding") is None
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.status_code == plain.status_code
    assert packed.content_type == plain.content_type
    assert gzip.decompress(packed.get_data()) == plain.get_data()
    assert len(packed.get_data()) < len(plain.get_data())
    for response in (plain, packed):
        assert "Accept-Encoding" in response.headers["Vary"]


@pytest.fixture
def seeded(client):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    assert client.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML).status_code == 200
    return client


@pytest.mark.parametrize(
    "path", ["/openapi.json", "/docs", "/ui/static/app.js", "/ui/static/app.css"]
)
def test_every_large_get_answer_is_gzip_when_asked(client, path):
    assert_same_after_inflating(*both(client, "GET", path))


@pytest.mark.parametrize("accept", ["application/json", "text/plain", "application/yaml"])
def test_rank_answers_are_gzip_in_every_representation(client, accept):
    body = large_rank_body()
    plain, packed = both(client, "POST", "/v1/rank", json=body, headers={"Accept": accept})
    assert (plain.headers["X-Cache"], packed.headers["X-Cache"]) == ("miss", "hit")
    assert_same_after_inflating(plain, packed)
    assert packed.headers["Vary"] == "Accept, Accept-Encoding"


def test_an_error_answer_is_gzip_too(client):
    runtimes = [{"kind": "ClusterServingRuntime", "metadata": {"name": f"r{i}"}} for i in range(60)]
    plain, packed = both(client, "POST", "/v1/lint", json=runtimes)
    assert plain.status_code >= 400 or len(plain.get_data()) >= COMPRESS_MIN_BYTES
    assert_same_after_inflating(plain, packed)


@pytest.mark.parametrize("path", ["/healthz", "/"])
def test_small_answers_stay_uncompressed_but_say_they_could_vary(client, path):
    plain, packed = both(client, "GET", path)
    assert len(plain.get_data()) < COMPRESS_MIN_BYTES
    assert packed.headers.get("Content-Encoding") is None
    assert packed.get_data() == plain.get_data()
    assert "Accept-Encoding" in packed.headers["Vary"]


def test_a_static_file_s_gzip_etag_is_not_modified_as_well(client):
    with client.get("/ui/static/app.js", headers=GZIP) as packed:
        packed.get_data()
    tag = packed.headers["ETag"]
    assert tag.endswith('-gzip"')
    with client.get("/ui/static/app.js", headers={"If-None-Match": tag, **GZIP}) as again:
        assert (again.status_code, again.headers["ETag"]) == (304, tag)


@pytest.mark.parametrize(
    ("accept_encoding", "compressed"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("deflate", False),  # not offered
        ("br", False),
    ],
)
def test_accept_encoding_is_honoured(client, accept_encoding, compressed):
    response = client.get("/openapi.json", headers={"Accept-Encoding": accept_encoding})
    assert (response.headers.get("Content-Encoding") == "gzip") is compressed
    body = response.get_data()
    assert (body[:2] == b"\x1f\x8b") is compressed


def test_a_cached_answer_is_sent_as_stored_without_compressing_again(client, monkeypatch):
    body = large_rank_body()
    first = client.post("/v1/rank", json=body, headers=GZIP)
    assert first.headers["X-Cache"] == "miss"
    compressions = []
    real = isal_zlib.compressobj
    monkeypatch.setattr(isal_zlib, "compressobj", lambda *a: compressions.append(a) or real(*a))
    repeats = [client.post("/v1/rank", json=body, headers=GZIP) for _ in range(3)]
    plain = client.post("/v1/rank", json=body)
    assert [r.headers["X-Cache"] for r in repeats] == ["hit"] * 3
    assert compressions == []
    assert {r.get_data() for r in repeats} == {first.get_data()}
    assert gzip.decompress(first.get_data()) == plain.get_data()


def test_a_miss_compresses_its_answer_once(client, monkeypatch):
    compressions = []
    real = isal_zlib.compressobj
    monkeypatch.setattr(isal_zlib, "compressobj", lambda *a: compressions.append(a) or real(*a))
    response = client.post("/v1/rank", json=large_rank_body(), headers=GZIP)
    assert response.headers["Content-Encoding"] == "gzip"
    assert len(compressions) == 1  # stored under two keys and sent: one gzip member


def test_catalog_answers_have_an_etag_per_representation(seeded):
    plain, packed = both(seeded, "GET", BY_NAME)
    assert_same_after_inflating(plain, packed)
    generation = plain.headers["ETag"].strip('"')
    assert plain.headers["ETag"] == f'"{generation}"'
    assert packed.headers["ETag"] == f'"{generation}-gzip"'


@pytest.mark.parametrize("gzip_client", [True, False])
@pytest.mark.parametrize("gzip_tag", [True, False])
def test_if_none_match_works_for_both_representations(seeded, gzip_client, gzip_tag):
    plain = seeded.get(BY_NAME)
    tag = plain.headers["ETag"]
    sent = tag[:-1] + '-gzip"' if gzip_tag else tag
    headers = {"If-None-Match": sent, **(GZIP if gzip_client else {})}
    response = seeded.get(BY_NAME, headers=headers)
    assert response.status_code == 304
    assert response.get_data() == b""
    assert response.headers["ETag"] == sent  # the representation the client holds
    assert "Accept-Encoding" in response.headers["Vary"]


def test_an_older_generation_s_gzip_tag_is_not_modified_no_longer(seeded):
    old = seeded.get(BY_NAME, headers=GZIP).headers["ETag"]
    extra = runtime_doc("late-arrival")
    assert seeded.post("/v1/clusters/prod/objects", json=extra).status_code == 200
    response = seeded.get(BY_NAME, headers={"If-None-Match": old, **GZIP})
    assert response.status_code == 200
    assert response.headers["ETag"] != old
    assert response.headers["ETag"].endswith('-gzip"')


def test_if_match_takes_the_gzip_tag_of_the_current_generation(seeded):
    tag = seeded.get(BY_NAME, headers=GZIP).headers["ETag"]
    assert tag.endswith('-gzip"')
    extra = runtime_doc("late-arrival")
    written = seeded.post("/v1/clusters/prod/objects", json=extra, headers={"If-Match": tag})
    assert written.status_code == 200
    again = seeded.post("/v1/clusters/prod/objects", json=extra, headers={"If-Match": tag})
    assert again.status_code == 412


# --- the representations' tags and the request's Accept-Encoding (app/http/compression.py) ------


@pytest.mark.parametrize(
    ("tag", "gzip_tag"),
    [('"7"', '"7-gzip"'), ('"7-gzip"', '"7-gzip"'), ("unquoted", "unquoted")],
)
def test_the_gzip_representation_has_its_own_tag(tag, gzip_tag):
    assert gzip_etag(tag) == gzip_tag


def test_a_condition_naming_gzip_tags_names_their_identity_ones():
    assert identity_tags('"7-gzip", W/"8-gzip", "9"') == '"7", W/"8", "9"'


@pytest.mark.parametrize(
    ("accept_encoding", "takes"),
    [
        (None, False),
        ("gzip", True),
        ("br, gzip;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("identity", False),
        ("", False),
    ],
)
def test_whether_a_request_takes_gzip(accept_encoding, takes):
    headers = {} if accept_encoding is None else {"Accept-Encoding": accept_encoding}
    asked = Request(EnvironBuilder(headers=headers).get_environ())
    assert takes_gzip(asked) is takes
