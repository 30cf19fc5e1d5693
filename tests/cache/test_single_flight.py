"""Requests of one worker that miss the same catalog answer at once wait for one computation
(a recycled worker's first polls, a catalog just written)."""

from __future__ import annotations

import threading

from app.api import cluster_answers
from app.cache import get_ranking_cache
from tests.paths import SEED_YAML
from tests.waiting import wait_for

URL = "/v1/clusters/prod/rank?model=llama-3-2-3b-instruct&namespace=llama-demo"
ASKING = 4


def test_concurrent_misses_of_one_answer_compute_it_once(app, monkeypatch):
    client = app.test_client()
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    yaml = {"Content-Type": "application/yaml"}
    assert client.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=yaml).status_code == 200
    flights = get_ranking_cache(app).flights
    release = threading.Event()
    computed = []
    real = cluster_answers.compute_ranking

    def held_computation(rank_request, **how):
        computed.append(rank_request)
        release.wait(timeout=60)
        return real(rank_request, **how)

    monkeypatch.setattr(cluster_answers, "compute_ranking", held_computation)
    answers: list = [None] * ASKING

    def ask(index: int) -> None:
        response = app.test_client().get(URL)
        answers[index] = (response.status_code, response.headers["X-Cache"], response.get_data())

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(ASKING)]
    for thread in threads:
        thread.start()
    # Every request is in: one computing, the others waiting for its answer.
    try:
        wait_for(lambda: flights.requests() == ASKING, "every request in")
    finally:
        release.set()
        for thread in threads:
            thread.join(timeout=60)
    assert len(computed) == 1
    assert sorted(cache for _, cache, _ in answers) == ["hit"] * (ASKING - 1) + ["miss"]
    assert {(status, body) for status, _, body in answers} == {(200, answers[0][2])}
    assert flights.requests() == 0  # no lock left behind


def test_a_bypass_computes_its_own_answer(app, monkeypatch):
    client = app.test_client()
    client.put("/v1/clusters/prod", json={})
    client.put(
        "/v1/clusters/prod/objects", data=SEED_YAML, headers={"Content-Type": "application/yaml"}
    )
    assert client.get(URL).headers["X-Cache"] == "miss"
    computed = []
    real = cluster_answers.compute_ranking
    monkeypatch.setattr(
        cluster_answers, "compute_ranking", lambda r, **how: computed.append(r) or real(r, **how)
    )
    assert client.get(URL, headers={"Cache-Control": "no-cache"}).headers["X-Cache"] == "bypass"
    assert len(computed) == 1
