"""A broken Redis never breaks an answer (SPEC §16): killed, hung, full, or holding garbage.

Every fault is real: a redis-server of the test's own that is killed and restarted or filled
up, a TCP server that never answers, values overwritten in the tests' Redis database.
"""

from __future__ import annotations

import json
import logging

import pytest
import redis

from app.breaker import CLOSED, OPEN
from app.cache import get_ranking_cache
from tests.builders import entry, model_doc, rank_body, runtime_doc, serving_runtime
from tests.clock import ManualClock
from tests.servers import free_port

THRESHOLD = 3
COOLDOWN = 30.0
CACHE_LOGGER = "app.cache.ranking_cache"


def _body(n: int = 0) -> dict:
    return rank_body(
        model_doc(size="7B"),
        runtime_doc("vllm", entry(weight=2 + n), size_range={"min": "1B", "max": "70B"}),
        serving_runtime("team", entry()),
    )


def _post(api, body: dict):
    return api.post("/v1/rank", data=json.dumps(body), headers={"Content-Type": "application/json"})


def _answer(response) -> tuple[int, str, bytes]:
    return response.status_code, response.content_type, response.get_data()


@pytest.fixture
def reference(make_app):
    """The right answers, from an app that caches nothing."""
    api = make_app(CACHE_LOCAL_ENTRIES=0).test_client()
    return lambda body: _answer(_post(api, body))


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def app_on(make_app, clock):
    """An app caching in the Redis at ``url``, with a breaker on the test's clock."""

    def build(url: str, **settings):
        app = make_app(
            REDIS_URL=url,
            CACHE_PREFIX="ome-ranker-test:",
            CACHE_BREAKER_FAILURES=THRESHOLD,
            CACHE_BREAKER_COOLDOWN_SECONDS=COOLDOWN,
            CACHE_LOG_INTERVAL_SECONDS=3600.0,
            # What these tests watch is the backend: no decoded answers in front of it.
            CACHE_HOT_BYTES=0,
            **settings,
        )
        get_ranking_cache(app).breaker.clock = clock
        return app

    return build


def test_redis_killed_mid_run_then_back(app_on, redis_server, reference, clock):
    server = redis_server()
    app = app_on(server.url)
    cache = get_ranking_cache(app)
    api = app.test_client()
    assert _post(api, _body()).headers["X-Cache"] == "miss"
    assert _post(api, _body()).headers["X-Cache"] == "hit"

    server.stop()
    for _ in range(THRESHOLD + 3):
        response = _post(api, _body())
        assert _answer(response) == reference(_body())
        assert response.headers["X-Cache"] == "miss"
    # One failed operation per request until the breaker opened; nothing tried since.
    assert cache.counts["errors"] == THRESHOLD
    assert cache.breaker.state == OPEN
    assert cache.describe()["state"] == "down"
    assert cache.stats()["skipped"] >= 3

    server.start()  # same port, empty
    clock.advance(COOLDOWN)
    assert _post(api, _body()).headers["X-Cache"] == "miss"  # the probe worked: stored again
    assert cache.breaker.state == CLOSED
    assert cache.describe()["state"] == "up"
    response = _post(api, _body())
    assert response.headers["X-Cache"] == "hit"
    assert _answer(response) == reference(_body())


def test_a_server_that_never_answers(app_on, hung_server, reference, clock, caplog):
    caplog.set_level(logging.WARNING, CACHE_LOGGER)
    app = app_on(hung_server.url, REDIS_TIMEOUT_SECONDS=0.05)  # each request waits this long
    cache = get_ranking_cache(app)
    api = app.test_client()
    for n in range(THRESHOLD):
        response = _post(api, _body(n))
        assert _answer(response) == reference(_body(n))
        assert response.headers["X-Cache"] == "miss"
    assert cache.breaker.state == OPEN
    assert cache.counts["errors"] == THRESHOLD
    connections = hung_server.connections()
    assert connections == THRESHOLD  # one attempt per request, none retried

    for n in range(5):  # open: no connection attempted at all
        assert _answer(_post(api, _body(n))) == reference(_body(n))
    assert hung_server.connections() == connections
    assert cache.counts["errors"] == THRESHOLD

    clock.advance(COOLDOWN)  # half-open: exactly one probe, which fails and re-opens
    for n in range(3):
        assert _answer(_post(api, _body(n))) == reference(_body(n))
    assert hung_server.connections() == connections + 1
    assert cache.counts["errors"] == THRESHOLD + 1
    assert cache.breaker.state == OPEN

    messages = [r.getMessage() for r in caplog.records if r.name == CACHE_LOGGER]
    assert sum("answering uncached" in m for m in messages) == 1  # once per interval
    assert sum("times in a row" in m for m in messages) == 1
    assert "TimeoutError" in cache.describe()["last_error"]


def test_connection_refused_from_the_start(app_on, reference):
    app = app_on(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    api = app.test_client()
    for n in range(THRESHOLD + 2):
        assert _answer(_post(api, _body(n))) == reference(_body(n))
    cache = get_ranking_cache(app)
    assert cache.breaker.state == OPEN
    assert not cache.ping()


CORRUPTIONS = {
    "garbage": lambda client, key, value: client.set(key, b"garbage"),
    "empty": lambda client, key, value: client.set(key, b""),
    "flipped byte": lambda client, key, value: client.set(
        key, value[:20] + bytes((value[20] ^ 0x40,)) + value[21:]
    ),
    "truncated": lambda client, key, value: client.set(key, value[:-3]),
    "plain json": lambda client, key, value: client.set(key, b'{"selected": null}'),
    "a list": lambda client, key, value: (client.delete(key), client.rpush(key, value)),
    "a hash": lambda client, key, value: (client.delete(key), client.hset(key, "v", value)),
}


@pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_a_corrupt_value_is_never_served(redis_app, redis_client, redis_prefix, reference, corrupt):
    cache = get_ranking_cache(redis_app)
    api = redis_app.test_client()
    _post(api, _body())
    stored = list(redis_client.scan_iter(match=f"{redis_prefix}*"))
    assert len(stored) == 2
    for key in stored:
        corrupt(redis_client, key, redis_client.get(key))

    response = _post(api, _body())
    assert response.headers["X-Cache"] == "miss"
    assert _answer(response) == reference(_body())
    assert cache.stats()["corrupt"] == 2
    assert cache.breaker.state == CLOSED  # Redis is fine; the values were not
    for key in stored:  # overwritten with good frames
        frame = redis_client.get(key)
        assert cache.backend.codec.decode(frame, key.decode()).body == response.get_data()
    assert _post(api, _body()).headers["X-Cache"] == "hit"


def test_a_corrupt_request_entry_falls_back_to_the_inputs_entry(
    redis_app, redis_client, redis_prefix, reference
):
    api = redis_app.test_client()
    _post(api, _body())
    [request_key] = redis_client.scan_iter(match=f"{redis_prefix}req:*")
    redis_client.set(request_key, b"garbage")
    response = _post(api, _body())
    assert response.headers["X-Cache"] == "hit"
    assert _answer(response) == reference(_body())
    codec = get_ranking_cache(redis_app).backend.codec
    frame = redis_client.get(request_key)
    assert codec.decode(frame, request_key.decode()).body == response.get_data()


def _fill(client: redis.Redis) -> None:
    filler = b"x" * 16_384
    for n in range(10_000):
        try:
            client.set(f"filler:{n}", filler)
        except redis.exceptions.OutOfMemoryError:
            return
    raise AssertionError("maxmemory never reached")


def test_a_full_redis(app_on, redis_server, reference):
    server = redis_server("--maxmemory-policy", "noeviction")
    app = app_on(server.url)
    cache = get_ranking_cache(app)
    api = app.test_client()
    _post(api, _body(0))  # cached before Redis fills up
    poke = server.client()
    try:
        poke.config_set("maxmemory", "1mb")
        _fill(poke)
        for _ in range(2):  # SET fails with OOM: answered, not stored
            response = _post(api, _body(1))
            assert response.headers["X-Cache"] == "miss"
            assert _answer(response) == reference(_body(1))
        assert cache.counts["errors"] == 2
        assert "OutOfMemoryError" in cache.last_error
        # Redis answered: reads still work, the breaker stays closed.
        assert cache.breaker.state == CLOSED
        assert _post(api, _body(0)).headers["X-Cache"] == "hit"

        poke.config_set("maxmemory", "0")  # room again
    finally:
        poke.close()
    assert _post(api, _body(1)).headers["X-Cache"] == "miss"
    response = _post(api, _body(1))
    assert response.headers["X-Cache"] == "hit"
    assert _answer(response) == reference(_body(1))


def test_describe_a_redis_cache(redis_app, redis_url):
    cache = get_ranking_cache(redis_app)
    assert cache.ping()
    description = cache.describe()
    assert description["backend"] == "redis"
    assert description["state"] == "up"
    assert description["breaker"] == CLOSED
    assert description["endpoint"].endswith("/13")


def test_error_replies_are_counted_but_do_not_open_the_breaker(app_on, redis_server, reference):
    # An ACL that forbids GET: Redis answers, quickly, with an error (as a read-only replica
    # does for SET). Counted and logged; the breaker stays closed and nothing is cached.
    server = redis_server()
    poke = server.client()
    try:
        poke.acl_setuser(
            "ranker", enabled=True, passwords=["+pw"], keys=["*"], commands=["+@all", "-get"]
        )
    finally:
        poke.close()
    app = app_on(f"redis://ranker:pw@127.0.0.1:{server.port}/0")
    cache = get_ranking_cache(app)
    api = app.test_client()
    for _ in range(THRESHOLD + 2):
        response = _post(api, _body())
        assert _answer(response) == reference(_body())
        assert response.headers["X-Cache"] == "miss"
    assert cache.breaker.state == CLOSED
    assert (
        cache.counts["misses"] == THRESHOLD + 2
        and cache.counts["hits"] == 0
        and cache.counts["bypasses"] == 0
    )
    assert cache.counts["errors"] == 2 * (THRESHOLD + 2)  # both GETs of every request
    assert "NoPermissionError" in cache.last_error
    assert "pw" not in json.dumps(cache.describe())
