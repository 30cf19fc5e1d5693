"""SPEC §17 "Bounded work" and "Limits per cluster": work over a documented bound is refused
before it starts (422 ``LimitExceeded`` naming the bound and its variable), on every endpoint,
stored catalogs and overlays included; what the bounds let through stops at the deadline."""

from __future__ import annotations

import pytest

import app.selection.admission.services as admission
import app.selection.questions.outcomes as catalog
from app.errors import LimitExceeded
from app.http.limits import check_answer, check_rankings, check_runtimes
from app.selection.values import budget
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, serving_runtime
from tests.clock import TickingClock
from tests.yaml_data import stream

YAML = {"Content-Type": "application/yaml"}


def workload(models: int = 6, runtimes: int = 10, services: int = 0, engine: bool = True):
    """``models`` models, ``runtimes`` runtimes, and ``services`` InferenceServices spread over
    the models (each model a question of its own)."""
    names = [f"model-{i}" for i in range(models)]
    spec = {"engine": {}} if engine else {}
    return [
        *(model_doc(name) for name in names),
        *(runtime_doc(f"rt-{i}", entry(priority=1 + i % 3)) for i in range(runtimes)),
        *(isvc_doc(f"svc-{i}", model={"name": names[i % models]}, **spec) for i in range(services)),
    ]


@pytest.fixture
def no_ranking(monkeypatch):
    """Fails the test if anything is ranked: a refusal must come before the work."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("ranked although the request is refused up front")

    monkeypatch.setattr(catalog, "rank_runtimes", refuse)
    monkeypatch.setattr(admission, "rank_runtimes", refuse)


def limit_of(response, variable: str, limit: int, requested: int) -> None:
    error = response.get_json()["error"]
    assert (response.status_code, error["code"]) == (422, "LimitExceeded"), error
    assert (error["variable"], error["limit"], error["requested"]) == (variable, limit, requested)
    assert variable in error["message"] and str(limit) in error["message"]


CHECKS = "OME_RANKER_MAX_RUNTIME_CHECKS"


def test_selections_of_a_stream_over_the_bound(make_app, no_ranking):
    api = make_app(MAX_RUNTIME_CHECKS=59).test_client()
    # 6 models no InferenceService names: 6 rankings of 10 runtimes.
    refused = api.post("/v1/selections", data=stream(*workload()), headers=YAML)
    limit_of(refused, CHECKS, 59, 60)
    assert "6 questions × 10 runtimes" in refused.get_json()["error"]["message"]


def test_lint_of_a_stream_over_the_bound(make_app, no_ranking):
    api = make_app(MAX_RUNTIME_CHECKS=59).test_client()
    body = stream(*workload(services=12))  # 12 InferenceServices with an engine, 6 questions
    limit_of(api.post("/v1/lint", data=body, headers=YAML), CHECKS, 59, 60)
    without_engine = stream(*workload(services=12, engine=False))  # the webhook ranks none
    assert api.post("/v1/lint", data=without_engine, headers=YAML).status_code == 200


def test_impact_counts_both_sides(make_app, no_ranking):
    api = make_app(MAX_RUNTIME_CHECKS=59).test_client()
    side = workload(models=3, services=3)  # 3 questions × 10 runtimes, on each side
    refused = api.post("/v1/impact", json={"current": side, "proposed": side})
    limit_of(refused, CHECKS, 59, 60)


def test_within_the_bound_the_same_work_is_done(make_app):
    api = make_app(MAX_RUNTIME_CHECKS=60).test_client()
    assert api.post("/v1/selections", data=stream(*workload()), headers=YAML).status_code == 200
    side = workload(models=3, services=3)
    assert api.post("/v1/impact", json={"current": side, "proposed": side}).status_code == 200


def test_a_bodys_runtimes_are_bounded_on_every_endpoint(make_app):
    api = make_app(MAX_RUNTIMES=9).test_client()
    body = stream(*workload(models=1, services=1))  # 10 runtimes
    for path in ("/v1/rank", "/v1/lint", "/v1/selections"):
        refused = api.post(path, data=body, headers=YAML)
        assert (refused.status_code, refused.get_json()["error"]["code"]) == (
            413,
            "PayloadTooLarge",
        ), path
        assert "at most 9" in refused.get_json()["error"]["message"]
    side = workload(models=1, services=1)
    refused = api.post("/v1/impact", json={"current": side, "proposed": side})
    assert refused.status_code == 413


@pytest.fixture
def catalog_api(make_app, backend_settings):
    def build(**settings):
        return make_app(**backend_settings, **settings).test_client()

    return build


def test_stored_catalogs_are_bounded_like_bodies(catalog_api):
    api = catalog_api()
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    stored = api.put("/v1/clusters/prod/objects", data=stream(*workload(services=6)), headers=YAML)
    assert stored.status_code == 200, stored.get_json()
    bounded = catalog_api(MAX_RUNTIME_CHECKS=59)
    limit_of(bounded.get("/v1/clusters/prod/selections"), CHECKS, 59, 60)
    limit_of(
        bounded.post("/v1/clusters/prod/lint", data=stream(*workload(services=6)), headers=YAML),
        CHECKS,
        59,
        60,
    )
    # Impact: the stored side (6 questions) and the side after the change (6 again).
    limit_of(
        bounded.post("/v1/clusters/prod/impact", data=stream(model_doc("x")), headers=YAML),
        CHECKS,
        59,
        120,
    )
    assert catalog_api(MAX_RUNTIME_CHECKS=60).get("/v1/clusters/prod/selections").status_code == 200


def test_a_catalog_over_a_lowered_runtime_bound_is_refused_by_name(catalog_api):
    api = catalog_api()
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    assert (
        api.put("/v1/clusters/prod/objects", data=stream(*workload()), headers=YAML).status_code
        == 200
    )
    lowered = catalog_api(MAX_RUNTIMES=9)
    for path in ("rank", "select"):
        refused = lowered.get(f"/v1/clusters/prod/{path}?model=model-0&namespace=demo")
        limit_of(refused, "OME_RANKER_MAX_RUNTIMES", 9, 10)
    overlay = stream(model_doc("model-0"), serving_runtime("mine"))
    at_the_bound = catalog_api(MAX_RUNTIMES=10)
    assert (
        at_the_bound.post("/v1/clusters/prod/rank", data=overlay, headers=YAML).status_code == 422
    )
    replaced = stream(model_doc("model-0"), runtime_doc("rt-0"))  # replaces one: still 10
    assert (
        at_the_bound.post("/v1/clusters/prod/rank", data=replaced, headers=YAML).status_code == 200
    )


def _state(api) -> tuple:
    info = api.get("/v1/clusters/prod").get_json()
    return info["generation"], info["counts"]


def test_writes_over_a_cluster_bound_store_nothing(catalog_api):
    api = catalog_api(MAX_OBJECTS_PER_CLUSTER=50, MAX_RUNTIMES=40, MAX_BYTES_PER_CLUSTER=40_000)
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    assert (
        api.put(
            "/v1/clusters/prod/objects", data=stream(*workload(runtimes=20)), headers=YAML
        ).status_code
        == 200
    )
    before = _state(api)
    sixty = [model_doc(f"m-{i}") for i in range(60)]
    for write in (api.put, api.post):
        limit_of(
            write("/v1/clusters/prod/objects", data=stream(*sixty), headers=YAML),
            "OME_RANKER_MAX_OBJECTS_PER_CLUSTER",
            50,
            60,
        )
    # 30 more objects: within the count, but together with the 26 stored ones over it.
    thirty = stream(*(model_doc(f"m-{i}") for i in range(30)))
    limit_of(
        api.post("/v1/clusters/prod/objects", data=thirty, headers=YAML),
        "OME_RANKER_MAX_OBJECTS_PER_CLUSTER",
        50,
        56,
    )
    runtimes = stream(*(runtime_doc(f"more-{i}") for i in range(21)))
    limit_of(
        api.post("/v1/clusters/prod/objects", data=runtimes, headers=YAML),
        "OME_RANKER_MAX_RUNTIMES",
        40,
        41,
    )
    big = [model_doc(f"big-{i}") for i in range(20)]
    for model in big:  # annotations are stored (a field no rule reads would not count)
        model["metadata"]["annotations"] = {"example.com/note": "x" * 2000}
    big = stream(*big)
    refused = api.post("/v1/clusters/prod/objects", data=big, headers=YAML)
    error = refused.get_json()["error"]
    assert (error["code"], error["variable"]) == (
        "LimitExceeded",
        "OME_RANKER_MAX_BYTES_PER_CLUSTER",
    )
    assert error["requested"] > 40_000
    assert _state(api) == before  # nothing was stored by any of them


def test_the_byte_quota_counts_what_is_stored_not_what_is_sent(catalog_api):
    """Containers, their env and every field no rule reads are not stored (SPEC §17), so they
    do not count either."""
    api = catalog_api(MAX_BYTES_PER_CLUSTER=20_000)
    assert api.put("/v1/clusters/prod", json={}).status_code == 201
    padded = [
        runtime_doc(
            f"rt-{i}",
            engineConfig={"runner": {"image": "x", "env": [{"name": "PAD", "value": "p" * 5000}]}},
        )
        for i in range(10)
    ]
    assert len(stream(*padded)) > 50_000
    assert (
        api.put("/v1/clusters/prod/objects", data=stream(*padded), headers=YAML).status_code == 200
    )


def test_an_answer_over_the_size_bound_is_refused_before_it_is_written(make_app):
    # Every runtime excluded: each row's message lists all 10 with their reasons.
    documents = workload(models=1, services=40)
    documents[0]["spec"]["modelFormat"]["name"] = "onnx"
    api = make_app(MAX_ANSWER_BYTES=20_000).test_client()
    refused = api.post("/v1/selections", data=stream(*documents), headers=YAML)
    error = refused.get_json()["error"]
    assert (refused.status_code, error["variable"]) == (422, "OME_RANKER_MAX_ANSWER_BYTES")
    assert error["requested"] > 20_000
    roomy = make_app(MAX_ANSWER_BYTES=10_000_000).test_client()
    answered = roomy.post("/v1/selections", data=stream(*documents), headers=YAML)
    assert answered.status_code == 200
    assert len(answered.data) < error["requested"] * 2  # the estimate is of the right order


@pytest.mark.parametrize(
    ("path", "sizes"),
    [
        ("/v1/selections", {"models": 40, "runtimes": 30}),
        ("/v1/lint", {"models": 20, "runtimes": 30, "services": 20}),
        ("/v1/rank", {"models": 1, "runtimes": 3000}),
    ],
    ids=["selections", "lint", "rank"],
)
def test_the_deadline_stops_the_work_inside_the_rules(make_app, monkeypatch, path, sizes):
    """The answer is the application's own 503 (with its request id), given as soon as the
    deadline passed inside a ranking, not at the end of the request."""
    body = stream(*workload(**sizes))  # written here, not at collection: 3 000 runtimes of YAML
    clock = TickingClock()
    monkeypatch.setattr(budget, "time", clock)
    api = make_app(REQUEST_DEADLINE_SECONDS=40).test_client()
    answered = api.post(path, data=body, headers={**YAML, "Cache-Control": "no-cache"})
    assert answered.status_code == 503
    assert answered.get_json()["error"]["code"] == "DeadlineExceeded"
    assert "X-Request-ID" in answered.headers
    assert clock.readings <= 42  # the 41st reading is past the deadline: nothing after it


# --- the checks themselves, against an app's settings (app/http/limits.py) -----------------------


@pytest.fixture
def bounded(make_app):
    """An app's context with small bounds: 4 runtimes, 10 runtime checks, 1000 answer bytes."""
    app = make_app(MAX_RUNTIMES=4, MAX_RUNTIME_CHECKS=10, MAX_ANSWER_BYTES=1000)
    with app.app_context():
        yield


def refused(check, *args, **kwargs) -> tuple[str, dict]:
    with pytest.raises(LimitExceeded) as refusal:
        check(*args, **kwargs)
    return refusal.value.message, refusal.value.details


def test_the_work_of_a_request_is_counted_before_it_starts(bounded):
    check_rankings((2, 4), (1, 2))  # 8 + 2 = 10 checks: within the bound
    assert refused(check_rankings, (2, 4), (1, 3)) == (
        "this request needs 11 runtime checks (2 questions × 4 runtimes + 1 questions × 3 "
        "runtimes); this service allows at most 10 (OME_RANKER_MAX_RUNTIME_CHECKS)",
        {"variable": "OME_RANKER_MAX_RUNTIME_CHECKS", "limit": 10, "requested": 11},
    )
    message, _ = refused(check_rankings, (1, 4), placements=7)
    assert message.startswith("this request needs 11 runtime checks (1 questions × 4 runtimes + 7")


def test_a_ranking_reads_no_more_runtimes_than_a_request_may_send(bounded):
    check_runtimes(4)
    message, details = refused(check_runtimes, 5)
    assert message == (
        "this request needs 5 runtimes in one ranking; this service allows at most 4 "
        "(OME_RANKER_MAX_RUNTIMES)"
    )
    assert details["variable"] == "OME_RANKER_MAX_RUNTIMES"
    assert refused(check_rankings, (1, 5))[0] == message  # each side is one ranking too


def test_an_answer_is_weighed_before_it_is_rendered(bounded):
    check_answer(rows=4, text_bytes=200)  # 4 × 200 + 200
    assert refused(check_answer, rows=4, text_bytes=201)[0] == (
        "this request needs 1001 bytes of answer (about); this service allows at most 1000 "
        "(OME_RANKER_MAX_ANSWER_BYTES)"
    )
