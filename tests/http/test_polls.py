"""Polls answered in front of Flask (app/http/polls.py) against Flask's own path: the same
status, headers, body, log line and metrics for every poll it answers, and Flask's answer for
every other request."""

from __future__ import annotations

import json
import re

import pytest
from werkzeug.test import Client

from app.cache import get_ranking_cache, keys
from app.catalog import get_store
from app.http.polls import PollAnswers
from app.rendering.answers import Answer
from tests.http.builders import (
    ADMIN,
    ELSEWHERE,
    RANK,
    READER,
    SEED_MODEL,
    SEED_YAML,
    SELECT,
    YAML,
    seeded_app,
)

# The line fields that differ between any two requests.
PER_REQUEST = ("ts", "durationMs")


class Polled:
    """One app, asked through its WSGI callable (polls first) and through Flask's alone."""

    def __init__(self, app) -> None:
        self.app = app
        self.answers = app.wsgi_app
        self.client = app.test_client()
        self.flask_only = Client(self.answers.flask_app)
        self.to_flask = 0
        flask_app = self.answers.flask_app

        def counted(environ, start_response):
            self.to_flask += 1
            return flask_app(environ, start_response)

        self.answers.flask_app = counted

    def both(self, url: str, headers: dict) -> tuple:
        """(Flask's answer, the answer through the polls, whether Flask answered the latter)."""
        # As the test client sends it (REMOTE_ADDR, the user agent).
        base = self.client.environ_base
        reference = self.flask_only.get(url, headers=headers, environ_base=base)
        before = self.to_flask
        polled = self.client.get(url, headers=headers)
        return reference, polled, self.to_flask > before


@pytest.fixture
def polled(make_app, backend_settings, tmp_path) -> Polled:
    return Polled(seeded_app(make_app, tmp_path, **backend_settings))


def _access_lines(captured: str) -> list[dict]:
    lines = [json.loads(line) for line in captured.splitlines() if line.startswith("{")]
    return [line for line in lines if line["logger"] == "app.access"]


def _same_line(reference: dict, polled: dict, request_id_given: bool) -> None:
    ignored = PER_REQUEST if request_id_given else (*PER_REQUEST, "requestId")
    assert list(polled) == list(reference)  # the same fields, in the same order
    assert {k: v for k, v in polled.items() if k not in ignored} == {
        k: v for k, v in reference.items() if k not in ignored
    }


def _headers(response, request_id_given: bool) -> list[tuple[str, str]]:
    return [
        (name, value if name != "X-Request-ID" or request_id_given else "<generated>")
        for name, value in response.headers.items()
    ]


ANSWERED = {
    "json": (RANK, {}),
    "gzip": (RANK, {"Accept-Encoding": "gzip"}),
    "gzip refused": (RANK, {"Accept-Encoding": "gzip;q=0, identity"}),
    "any encoding": (RANK, {"Accept-Encoding": "*"}),
    "text": (RANK, {"Accept": "text/plain", "Accept-Encoding": "gzip"}),
    "yaml": (RANK, {"Accept": "application/yaml"}),
    "negotiated": (RANK, {"Accept": "application/yaml;q=0.5, text/plain;q=0.9, */*;q=0.1"}),
    "request id": (RANK, {"X-Request-ID": "poll-1"}),
    "unusable request id": (RANK, {"X-Request-ID": "has space"}),
    "unknown parameter": (RANK + "&output=wide", {}),
    "repeated parameter": (RANK + "&model=other", {}),
    "empty namespace": ("/v1/clusters/prod/rank?inferenceService=llama-demo/chat&namespace=", {}),
    "inferenceService": ("/v1/clusters/prod/rank?inferenceService=llama-demo/chat", {}),
    "select": (SELECT, {"Accept-Encoding": "gzip", "Accept": "text/plain"}),
    "stale tag": (RANK, {"If-None-Match": '"1"'}),
    "304": (RANK, {"If-None-Match": '"2"'}),
    "304 of the gzip tag": (RANK, {"If-None-Match": '"2-gzip"', "Accept-Encoding": "gzip"}),
    "304 weak among others": (RANK, {"If-None-Match": '"9", W/"2"'}),
    "304 star": (SELECT, {"If-None-Match": "*"}),
    "If-Match is no matter": (RANK, {"If-Match": '"7"'}),
}


def test_the_app_answers_polls_in_front_of_flask(polled):
    """``create_app`` puts the poll path in front of Flask's WSGI callable, which it keeps."""
    assert isinstance(polled.app.wsgi_app, PollAnswers)
    assert polled.app.wsgi_app.flask_app is not None


@pytest.mark.parametrize("case", ANSWERED)
def test_a_poll_gets_flask_s_answer_and_log_line_without_flask(polled, capsys, case):
    url, headers = ANSWERED[case]
    headers = {**READER, **headers}
    given = "X-Request-ID" in headers and headers["X-Request-ID"] == "poll-1"
    polled.client.get(url, headers=headers)  # the answer computed once: this worker holds it
    capsys.readouterr()
    reference, answer, by_flask = polled.both(url, headers)
    assert not by_flask, "answered by Flask"
    assert answer.status == reference.status
    assert _headers(answer, given) == _headers(reference, given)
    assert answer.get_data() == reference.get_data()
    flask_line, poll_line = _access_lines(capsys.readouterr().err)
    _same_line(flask_line, poll_line, given)
    assert poll_line["token"] == "reader"
    if not given:
        assert poll_line["requestId"] == answer.headers["X-Request-ID"]
        assert re.fullmatch("[0-9a-f]{32}", poll_line["requestId"])


def _series(app, names: tuple[str, ...]) -> dict[str, float]:
    text = app.test_client().get("/metrics").get_data(as_text=True)
    found = {}
    for line in text.splitlines():
        if line.startswith(names):
            series, _, value = line.rpartition(" ")
            found[series] = float(value)
    return found


def test_a_poll_is_counted_as_flask_counts_it(polled):
    names = ("ome_ranker_http_requests_total", "ome_ranker_cache_hits_total")
    headers = {**READER, "Accept-Encoding": "gzip"}
    polled.client.get(RANK, headers=headers)
    deltas = []
    flask_only = polled.flask_only
    for ask in (flask_only.get, polled.client.get):
        before = _series(polled.app, names)
        for _ in range(3):
            assert ask(RANK, headers=headers).headers["X-Cache"] == "hit"
        after = _series(polled.app, names)
        deltas.append({k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k)})
    flask_deltas, poll_deltas = deltas
    assert poll_deltas == flask_deltas
    rank_series = 'endpoint="/v1/clusters/<cluster>/rank",method="GET",status="200"'
    assert poll_deltas["ome_ranker_cache_hits_total"] == 3
    assert any(rank_series in series and n == 3 for series, n in poll_deltas.items())


TO_FLASK = {
    "no token": (RANK, {}, 401),
    "unknown token": (RANK, {"Authorization": "Bearer nope"}, 401),
    "token of another cluster": (RANK, {"Authorization": "Bearer elsewhere-secret"}, 403),
    "unknown cluster": (RANK.replace("/prod/", "/staging/"), ADMIN, 404),
    "not a cluster name": (RANK.replace("/prod/", "/Prod_1/"), ADMIN, 400),
    "not a label": (f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=Bad_Name", READER, 422),
    "no-cache": (RANK, {**READER, "Cache-Control": "no-cache"}, 200),
    "unknown model": ("/v1/clusters/prod/rank?model=nope", READER, 404),
    "no model named": ("/v1/clusters/prod/rank", READER, 400),
    # A condition is evaluated on a valid request's answer only (RFC 9110 §13.2.1).
    "unknown model, current tag": (
        "/v1/clusters/prod/rank?model=nope",
        {**READER, "If-None-Match": '"2"'},
        404,
    ),
    "no model named, any tag": ("/v1/clusters/prod/select", {**READER, "If-None-Match": "*"}, 400),
    "trailing slash": (RANK.replace("/rank?", "/rank/?"), READER, 404),
    "selections": ("/v1/clusters/prod/selections", READER, 200),
}


@pytest.mark.parametrize("case", TO_FLASK)
def test_anything_else_is_flask_s_to_answer(polled, case):
    url, headers, status = TO_FLASK[case]
    for warm in (READER, ADMIN):  # whatever could be held is
        polled.client.get(RANK, headers=warm)
        polled.client.get(url, headers=warm)
    before = polled.to_flask
    answer = polled.client.get(url, headers=headers)
    assert polled.to_flask == before + 1
    assert answer.status_code == status


def test_other_methods_go_to_flask(polled):
    for method in ("head", "post", "delete"):
        before = polled.to_flask
        getattr(polled.client, method)(RANK, headers=READER)
        assert polled.to_flask == before + 1, method


def test_an_answer_not_held_goes_to_flask_once(polled):
    """After a write, the first poll computes (Flask); the next is answered in front of it."""
    assert polled.client.get(RANK, headers=READER).headers["ETag"] == '"2"'
    polled.client.post(
        "/v1/clusters/prod/objects", data=SEED_YAML, headers={**ADMIN, **YAML}
    )  # the same objects: nothing changed, the same generation
    polled.client.put("/v1/clusters/prod", json={"description": "moved"}, headers=ADMIN)
    before = polled.to_flask
    first = polled.client.get(RANK, headers=READER)
    second = polled.client.get(RANK, headers=READER)
    assert polled.to_flask == before + 1
    assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("miss", "hit")
    assert first.headers["ETag"] == second.headers["ETag"] == '"3"'
    assert first.get_data() == second.get_data()


def test_a_write_by_another_worker_is_seen_by_the_next_poll(make_app, tmp_path):
    """Two workers share one SQLite file: a poll answered from the first worker's memory never
    outlives a write through the second."""
    path = str(tmp_path / "shared.sqlite3")
    first, second = (make_app(STORE_PATH=path).test_client() for _ in range(2))
    assert first.put("/v1/clusters/prod", json={}).status_code == 201
    first.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML)
    url = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"
    before = first.get(url).get_json()
    assert first.get(url).headers["X-Cache"] == "hit"
    gone = second.delete("/v1/clusters/prod/objects/ServingRuntime/team-llama?namespace=llama-demo")
    assert gone.status_code == 200, gone.get_data(as_text=True)
    after = first.get(url)
    assert (after.headers["ETag"], after.headers["X-Cache"]) == ('"3"', "miss")
    assert after.get_json() != before
    second.delete("/v1/clusters/prod")
    assert first.get(url).status_code == 404


def test_a_refused_namespace_is_refused_whatever_the_worker_holds(polled):
    """Flask refuses a namespace that is not a label before any view runs, so no answer is ever
    held for one; a poll checks it all the same, before looking."""
    url = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=Bad_Name"
    held = polled.client.get(RANK, headers=READER)
    cache = get_ranking_cache(polled.app)
    info = get_store(polled.app).get_info("prod")
    question = keys.by_name_question("rank", "json", {"model": SEED_MODEL, "namespace": "Bad_Name"})
    key = keys.catalog_key(cache.prefix, "prod", info.uid, info.generation, question)
    cache.hot.put_many({key: Answer(200, "application/json", held.get_data())})
    before = polled.to_flask
    assert polled.client.get(url, headers=READER).status_code == 422
    assert polled.to_flask == before + 1


FLEET = "/v1/fleet"
# (the token, the request's other headers, given the fleet's tag as the token sees it)
FLEET_POLLS = {
    "304": (READER, {}),
    "304 of the gzip tag": (READER, {"Accept-Encoding": "gzip"}),
    "304 weak among others": (ADMIN, {}),
    "request id": (READER, {"X-Request-ID": "poll-1"}),
}


def _fleet_tag(polled, token: dict, gzip: bool) -> str:
    asked = {**token, **({"Accept-Encoding": "gzip"} if gzip else {})}
    return polled.client.get(FLEET, headers=asked).headers["ETag"]


@pytest.mark.parametrize("case", FLEET_POLLS)
def test_a_fleet_poll_gets_flask_s_304_and_log_line_without_flask(polled, capsys, case):
    token, headers = FLEET_POLLS[case]
    tag = _fleet_tag(polled, token, "Accept-Encoding" in headers)
    condition = f'"x", W/{tag}' if case == "304 weak among others" else tag
    headers = {**token, **headers, "If-None-Match": condition}
    given = headers.get("X-Request-ID") == "poll-1"
    capsys.readouterr()
    reference, answer, by_flask = polled.both(FLEET, headers)
    assert not by_flask, "answered by Flask"
    assert (answer.status_code, reference.status_code) == (304, 304)
    assert _headers(answer, given) == _headers(reference, given)
    flask_line, poll_line = _access_lines(capsys.readouterr().err)
    _same_line(flask_line, poll_line, given)


FLEET_TO_FLASK = {
    "no condition": (READER, None),
    "another tag": (READER, '"fleet-0"'),
    "another token's tag": (ELSEWHERE, "reader's"),
    "no token": ({}, "reader's"),
    "an unknown token": ({"Authorization": "Bearer nope"}, "reader's"),
}


@pytest.mark.parametrize("case", FLEET_TO_FLASK)
def test_any_other_fleet_request_is_flask_s(polled, case):
    token, condition = FLEET_TO_FLASK[case]
    if condition == "reader's":
        condition = _fleet_tag(polled, READER, False)
    headers = {**token, **({} if condition is None else {"If-None-Match": condition})}
    before = polled.to_flask
    answer = polled.client.get(FLEET, headers=headers)
    assert polled.to_flask == before + 1
    assert answer.status_code in (200, 401)


def test_a_write_moves_the_fleet_s_tag_past_a_poll(polled):
    tag = _fleet_tag(polled, READER, False)
    polled.client.delete(
        "/v1/clusters/prod/objects/InferenceService/chat?namespace=llama-demo",
        headers=ADMIN,
    )
    before = polled.to_flask
    answer = polled.client.get(FLEET, headers={**READER, "If-None-Match": tag})
    assert polled.to_flask == before + 1
    assert answer.status_code == 200 and answer.headers["ETag"] != tag
