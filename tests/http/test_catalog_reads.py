"""One read of a catalog's answer (app/http/catalog_reads.py): a poll that the path in front of
Flask does not answer is answered by the view with what that path looked up, handed over in the
WSGI environ: the cluster's info read once, the token decided once, on either store."""

from __future__ import annotations

import pytest
from werkzeug.test import Client

from app import errors
from app.auth import AccessControl
from app.catalog import get_access, get_store
from app.http import access
from app.http.catalog_reads import HANDED_OVER, CatalogRead
from app.store import StoreUnavailable
from tests.http.builders import (
    ADMIN,
    ELSEWHERE,
    RANK,
    READER,
    SELECT,
    STORES,
    Calls,
    FlaskCalls,
    RedisCommands,
    seeded_app,
    store_settings,
)


@pytest.fixture(params=STORES)
def settings(request, tmp_path) -> dict:
    return store_settings(request, tmp_path)


class Asked:
    """A seeded app, with what its requests ask counted: the store's ``get_info``, the tokens'
    ``identify`` and the requests that reached Flask."""

    def __init__(self, app, monkeypatch) -> None:
        self.app = app
        self.client = app.test_client()
        self.info_reads = Calls(monkeypatch, get_store(app), "get_info")
        self.identified = Calls(monkeypatch, AccessControl, "identify")
        self.flask = FlaskCalls(app)

    def counted(self, url: str, headers: dict):
        """The answer to one GET, with the counts of that request alone."""
        before = (self.info_reads.count, self.identified.count, self.flask.count)
        answer = self.client.get(url, headers=headers)
        after = (self.info_reads.count, self.identified.count, self.flask.count)
        info_reads, identified, to_flask = (a - b for a, b in zip(after, before, strict=True))
        return answer, info_reads, identified, to_flask


@pytest.fixture
def not_held(make_app, settings, tmp_path, monkeypatch) -> Asked:
    """No answer is held decoded, so every poll falls through to Flask."""
    return Asked(seeded_app(make_app, tmp_path, **settings, CACHE_HOT_BYTES=0), monkeypatch)


@pytest.fixture
def held(make_app, settings, tmp_path, monkeypatch) -> Asked:
    return Asked(seeded_app(make_app, tmp_path, **settings), monkeypatch)


# (URL, headers, warmed first, status, X-Cache)
FALLS_THROUGH = {
    "computed": (RANK, READER, False, 200, "miss"),
    "cached": (RANK, READER, True, 200, "hit"),
    "stale tag": (RANK, {**READER, "If-None-Match": '"1"'}, True, 200, "hit"),
    "gzip": (RANK, {**READER, "Accept-Encoding": "gzip"}, True, 200, "hit"),
    "yaml": (RANK, {**READER, "Accept": "application/yaml"}, False, 200, "miss"),
    "select": (SELECT, READER, True, 200, "hit"),
    "an error answer": ("/v1/clusters/prod/rank?model=nope", READER, True, 404, None),
    "unknown cluster": (RANK.replace("/prod/", "/staging/"), ADMIN, False, 404, None),
}


@pytest.mark.parametrize("case", FALLS_THROUGH)
def test_a_poll_that_falls_through_reads_the_cluster_once(not_held, case):
    url, headers, warm, status, cache = FALLS_THROUGH[case]
    if warm:
        not_held.client.get(url, headers=headers)
    answer, info_reads, identified, to_flask = not_held.counted(url, headers)
    assert (answer.status_code, answer.headers.get("X-Cache")) == (status, cache)
    assert to_flask == 1, "answered in front of Flask"
    assert info_reads == 1
    assert identified == 1


ANSWERED_IN_FRONT = {
    "hit": (RANK, READER, 200),
    "gzip hit": (RANK, {**READER, "Accept-Encoding": "gzip"}, 200),
    "304": (RANK, {**READER, "If-None-Match": '"2"'}, 304),
}


@pytest.mark.parametrize("case", ANSWERED_IN_FRONT)
def test_a_poll_answered_in_front_of_flask_reads_the_cluster_once(held, case):
    url, headers, status = ANSWERED_IN_FRONT[case]
    held.client.get(url, headers=headers)
    answer, info_reads, identified, to_flask = held.counted(url, headers)
    assert answer.status_code == status
    assert (to_flask, info_reads, identified) == (0, 1, 1)


# (URL, headers, status, the info reads and token checks it costs)
REFUSED = {
    "not a cluster name": (RANK.replace("/prod/", "/Prod_1/"), READER, 400, 0, 0),
    "no token": (RANK, {}, 401, 0, 1),
    "unknown token": (RANK, {"Authorization": "Bearer nope"}, 401, 0, 1),
    "token of another cluster": (RANK, ELSEWHERE, 403, 0, 1),
    "unknown cluster": (RANK.replace("/prod/", "/staging/"), ADMIN, 404, 1, 1),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_refused_poll_is_refused_by_the_view_with_what_the_poll_path_found(held, case):
    url, headers, status, reads, checks = REFUSED[case]
    answer, info_reads, identified, to_flask = held.counted(url, headers)
    assert answer.status_code == status
    assert answer.get_json()["error"]["code"] in {
        "MalformedRequest",
        "Unauthorized",
        "Forbidden",
        "ClusterNotFound",
    }
    assert (to_flask, info_reads, identified) == (1, reads, checks)


def test_a_store_that_fails_the_poll_path_is_asked_once(not_held):
    """The view raises what the poll path's read met: it does not ask the store again."""
    not_held.info_reads.fail = StoreUnavailable("the store went away")
    answer, info_reads, _, to_flask = not_held.counted(RANK, READER)
    assert (answer.status_code, answer.headers["Retry-After"]) == (503, "5")
    assert answer.get_json()["error"]["code"] == "StoreUnavailable"
    assert (to_flask, info_reads) == (1, 1)


def test_flask_alone_reads_the_cluster_itself(held):
    """Without the poll path in front (no hand-over in the environ), the view reads it once."""
    flask_only = held.app.wsgi_app.flask_app
    held.app.wsgi_app = flask_only
    answer, info_reads, identified, _ = held.counted(RANK, READER)
    assert answer.status_code == 200
    assert (info_reads, identified) == (1, 1)


def test_the_view_answers_with_the_read_it_was_handed(held):
    """What the environ hands over is what the view uses, and it reads no info itself: the held
    answer of the handed generation is a 304 for its ``If-None-Match``, and a refusal is raised
    as it is."""
    info = get_store(held.app).get_info("prod")
    flask_only = Client(held.app.wsgi_app.flask_app)
    reader = access.decide(get_access(held.app), READER["Authorization"], "prod")
    refused = access.Decision(reader.token, errors.Forbidden("handed over"))
    before = held.info_reads.count
    for decision, status in ((reader, 304), (refused, 403)):
        handed = {HANDED_OVER: CatalogRead("prod", decision, info=info)}
        answer = flask_only.get(
            RANK, headers={**READER, "If-None-Match": access.etag(info)}, environ_base=handed
        )
        assert answer.status_code == status
    assert answer.get_json()["error"]["message"] == "handed over"
    assert held.info_reads.count == before


def test_redis_gets_one_hmget_for_a_poll_that_falls_through(
    make_app, redis_url, redis_prefix, tmp_path, monkeypatch
):
    app = seeded_app(
        make_app, tmp_path, REDIS_URL=redis_url, CACHE_PREFIX=redis_prefix, CACHE_HOT_BYTES=0
    )
    client = app.test_client()
    assert client.get(RANK, headers=READER).headers["X-Cache"] == "miss"
    commands = RedisCommands(monkeypatch, app)
    assert client.get(RANK, headers=READER).headers["X-Cache"] == "hit"  # from Redis, by Flask
    assert commands.count("HMGET") == 1
