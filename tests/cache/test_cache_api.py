"""The ranking cache through /v1/rank and /v1/select, on both backends (SPEC §16)."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from app.cache import get_ranking_cache, keys
from app.http import record
from app.rendering.answers import Answer
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

JSON = {"Content-Type": "application/json"}
NO_CACHE = {"Cache-Control": "no-cache"}


@pytest.fixture(params=["memory", "redis"])
def cached_app(request, make_app):
    if request.param == "memory":
        return make_app()
    return request.getfixturevalue("redis_app")


@pytest.fixture
def api(cached_app):
    return cached_app.test_client()


def _body() -> dict:
    return rank_body(
        model_doc(size="7B"),
        runtime_doc("vllm", entry(weight=2), size_range={"min": "1B", "max": "70B"}),
        runtime_doc("srt", entry(priority=3), size_range={"min": "1b"}),
        serving_runtime("team", entry(auto_select=False)),
        serving_runtime("elsewhere", entry(), namespace="other"),
    )


def _post(api, body, endpoint="/v1/rank", headers=None, **query):
    data = body if isinstance(body, bytes) else json.dumps(body)
    return api.post(endpoint, data=data, headers={**JSON, **(headers or {})}, query_string=query)


PER_REQUEST_HEADERS = frozenset({"X-Cache", "X-Request-ID"})


def _headers(response) -> list[tuple[str, str]]:
    return [(name, value) for name, value in response.headers if name not in PER_REQUEST_HEADERS]


def _same_answer(first, second) -> None:
    """Byte for byte the same response, ``X-Cache`` (and the request id) aside."""
    assert first.status_code == second.status_code
    assert _headers(first) == _headers(second)
    assert first.get_data() == second.get_data()


def test_a_repeat_is_a_hit(api, cached_app):
    first = _post(api, _body())
    second = _post(api, _body())
    assert (first.headers["X-Cache"], second.headers["X-Cache"]) == ("miss", "hit")
    _same_answer(first, second)
    stats = get_ranking_cache(cached_app).stats()
    assert (stats["hits"], stats["misses"], stats["errors"]) == (1, 1, 0)


@pytest.mark.parametrize("accept", ["application/json", "text/plain", "application/yaml"])
def test_cached_rank_answer_is_byte_identical(api, make_app, accept):
    headers = {"Accept": accept}
    miss, hit = (_post(api, _body(), headers=headers) for _ in range(2))
    fresh = _post(api, _body(), headers={**headers, **NO_CACHE})
    uncached = _post(make_app(CACHE_LOCAL_ENTRIES=0).test_client(), _body(), headers=headers)
    assert [r.headers["X-Cache"] for r in (miss, hit, fresh)] == ["miss", "hit", "bypass"]
    for response in (hit, fresh, uncached):
        _same_answer(miss, response)
    assert miss.status_code == 200 and miss.mimetype == accept


def _select_cases():
    ok = _body()
    nothing = rank_body(model_doc(), runtime_doc("a", entry(format_name="onnx")))
    missing = rank_body(
        model_doc(), runtime_doc("a"), inferenceService=isvc_doc(runtime={"name": "b"})
    )
    disabled = rank_body(
        model_doc(),
        runtime_doc("a", disabled=True),
        inferenceService=isvc_doc(runtime={"name": "a"}),
    )
    return [
        (ok, 200, None),
        (nothing, 422, "NoRuntimeFound"),
        (missing, 404, "RuntimeNotFound"),
        (disabled, 422, "RuntimeDisabled"),
    ]


@pytest.mark.parametrize(("body", "status", "code"), _select_cases())
def test_cached_select_answer_is_byte_identical(api, make_app, body, status, code):
    miss, hit = (_post(api, body, "/v1/select") for _ in range(2))
    uncached = _post(make_app(CACHE_LOCAL_ENTRIES=0).test_client(), body, "/v1/select")
    assert (miss.headers["X-Cache"], hit.headers["X-Cache"]) == ("miss", "hit")
    _same_answer(miss, hit)
    _same_answer(miss, uncached)
    assert miss.status_code == status
    if code is not None:
        assert miss.get_json()["error"]["code"] == code


@pytest.mark.parametrize(
    ("data", "headers", "status"),
    [
        (b"{not json", JSON, 400),
        (b'{"model": {}, "runtimes": []}', JSON, 422),
        (b"a=b", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
        (json.dumps(rank_body(model_doc(), *(runtime_doc(f"r{i}") for i in range(3)))), JSON, 413),
    ],
)
def test_input_errors_are_never_cached(make_app, data, headers, status):
    app = make_app(MAX_RUNTIMES=2)
    api = app.test_client()
    for _ in range(2):
        response = api.post("/v1/rank", data=data, headers=headers)
        assert response.status_code == status
        assert response.headers["X-Cache"] == "miss"
    assert get_ranking_cache(app).backend.details()["entries"] == 0


def test_input_errors_leave_nothing_in_redis(redis_app, redis_client, redis_prefix):
    api = redis_app.test_client()
    assert _post(api, b"{not json").status_code == 400
    assert _post(api, {"model": {}, "runtimes": []}).status_code == 422
    assert list(redis_client.scan_iter(match=f"{redis_prefix}*")) == []


def test_equivalent_requests_share_the_entry(api):
    body = _body()
    assert _post(api, body).headers["X-Cache"] == "miss"
    other = copy.deepcopy(body)
    other["runtimes"].reverse()
    for runtime in other["runtimes"]:
        runtime["metadata"]["labels"] = {"team": "infra"}
        runtime["spec"]["containers"] = [{"name": "main", "image": "vllm/vllm:v0.10"}]
    text = json.dumps(other, indent=2, sort_keys=True)  # other whitespace, other key order
    first, again = _post(api, text.encode()), _post(api, text.encode())
    assert (first.headers["X-Cache"], again.headers["X-Cache"]) == ("hit", "hit")
    _same_answer(first, _post(api, body))


def test_yaml_and_json_of_the_same_documents_share_the_entry(api):
    body = _body()
    assert _post(api, body, namespace="demo").headers["X-Cache"] == "miss"
    stream = yaml.safe_dump_all([body["model"], *body["runtimes"]]).encode()
    response = api.post(
        "/v1/rank",
        data=stream,
        headers={"Content-Type": "application/yaml"},
        query_string={"namespace": "demo"},
    )
    assert response.headers["X-Cache"] == "hit"


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b["runtimes"][0]["spec"]["supportedModelFormats"][0]["modelFormat"].update(
            weight=5
        ),
        lambda b: b["model"]["spec"]["modelFormat"].update(version="1.0.1"),
        lambda b: b.update(namespace="other"),
        lambda b: b.update(omeVersion="1.2"),
    ],
    ids=["weight", "version", "namespace", "omeVersion"],
)
def test_a_changed_input_misses(api, change):
    body = _body()
    _post(api, body)
    changed = copy.deepcopy(body)
    change(changed)
    assert _post(api, changed).headers["X-Cache"] == "miss"
    assert _post(api, changed).headers["X-Cache"] == "hit"


def test_copies_of_a_runtime_in_another_order_are_not_answered_from_the_cache(api):
    """rules §2: the last copy of a runtime is the one used, so the same runtimes with their
    copies in another order are another question, however the cache canonicalises runtimes."""
    enabled = runtime_doc("vllm", entry())
    disabled = copy.deepcopy(enabled)
    disabled["spec"]["disabled"] = True
    last_enabled = rank_body(model_doc(), disabled, enabled)
    last_disabled = rank_body(model_doc(), enabled, disabled)
    first = _post(api, last_enabled, endpoint="/v1/select")
    assert first.status_code == 200 and first.json["selected"]["name"] == "vllm"
    second = _post(api, last_disabled, endpoint="/v1/select")
    assert second.headers["X-Cache"] == "miss"
    assert second.status_code != 200  # the runtime it kept is disabled: no runtime found
    assert _post(api, last_enabled, endpoint="/v1/select").headers["X-Cache"] == "hit"


def test_no_cache_bypasses_the_read_not_the_write(api, cached_app):
    first = _post(api, _body(), headers=NO_CACHE)
    assert first.headers["X-Cache"] == "bypass"
    assert _post(api, _body()).headers["X-Cache"] == "hit"
    assert _post(api, _body(), headers=NO_CACHE).headers["X-Cache"] == "bypass"
    stats = get_ranking_cache(cached_app).stats()
    assert (stats["bypasses"], stats["hits"], stats["misses"]) == (2, 1, 0)


def test_cache_result_is_left_in_the_record_of_every_request(cached_app):
    seen = []

    @cached_app.after_request
    def remember(response):
        seen.append(record.this_request().cache_result)
        return response

    api = cached_app.test_client()
    _post(api, _body())
    _post(api, _body())
    _post(api, _body(), headers=NO_CACHE)
    _post(api, b"{not json")
    _post(api, b"{not json", headers=NO_CACHE)
    assert seen == ["miss", "hit", "bypass", "miss", "bypass"]


def test_a_miss_leaves_the_ranking_for_the_logs(cached_app):
    seen = []

    @cached_app.after_request
    def remember(response):
        seen.append(
            (
                record.this_request().runtime_count,
                record.this_request().ranking is not None,
                record.this_request().selection_seconds is not None,
            )
        )
        return response

    api = cached_app.test_client()
    _post(api, _body())
    _post(api, _body())
    assert seen == [(4, True, True), (None, False, False)]


def test_entries_expire_after_the_ttl(make_app, redis_url, redis_prefix, redis_client):
    api = make_app(
        REDIS_URL=redis_url, CACHE_PREFIX=redis_prefix, CACHE_TTL_SECONDS=120
    ).test_client()
    _post(api, _body())
    stored = list(redis_client.scan_iter(match=f"{redis_prefix}*"))
    assert len(stored) == 2
    assert {key.decode().split(":")[-3] for key in stored} == {"rank", "req"}
    for key in stored:
        assert 0 < redis_client.ttl(key) <= 120


def test_entries_of_older_rules_are_never_served(api, cached_app, monkeypatch):
    cache = get_ranking_cache(cached_app)
    monkeypatch.setattr(keys, "RULES_VERSION", keys.RULES_VERSION - 1)
    assert _post(api, _body()).headers["X-Cache"] == "miss"
    assert _post(api, _body()).headers["X-Cache"] == "hit"
    # Poison what the older rules stored: if it were ever read, the test would see it.
    old_keys = [key for key in _stored_keys(cache) if f":v{keys.RULES_VERSION}:" in key]
    assert len(old_keys) == 2
    stale = Answer(200, "application/json", b'{"stale":true}')
    cache.backend.put_many(dict.fromkeys(old_keys, stale), ttl=60)
    monkeypatch.undo()
    response = _post(api, _body())
    assert response.headers["X-Cache"] == "miss"
    assert b"stale" not in response.get_data()
    assert response.get_json()["omeVersion"] == "1.3"


def _stored_keys(cache) -> list[str]:
    if cache.backend.name == "memory":
        return cache.backend._entries.oldest_first()
    return [key.decode() for key in cache.backend.client.scan_iter(match=f"{cache.prefix}*")]


def test_describe(cached_app):
    description = get_ranking_cache(cached_app).describe()
    assert description["backend"] in ("memory", "redis")
    assert description["state"] == "up"
    assert {"hits", "misses", "errors", "bypasses"} <= description.keys()
    assert "@" not in json.dumps(description)  # never credentials


def test_a_cached_ome_error_leaves_its_code_for_the_log_line(cached_app):
    seen = []

    @cached_app.after_request
    def remember(response):
        seen.append((record.this_request().cache_result, record.this_request().error_code))
        return response

    api = cached_app.test_client()
    nothing = rank_body(model_doc(), runtime_doc("a", entry(format_name="onnx")))
    _post(api, nothing, "/v1/select")
    _post(api, nothing, "/v1/select")
    assert seen == [("miss", "NoRuntimeFound"), ("hit", "NoRuntimeFound")]
