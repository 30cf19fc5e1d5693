"""The decoded answers a worker keeps in front of its cache backend (app/cache/hot.py)."""

from __future__ import annotations

import sys

from app.cache import get_ranking_cache
from app.cache.framing import compressed
from app.cache.hot import HotAnswers
from app.cache.lru import ENTRY_BYTES
from app.rendering.answers import Answer
from tests.builders import model_doc, rank_body, runtime_doc


def _answer(size: int, tag: bytes = b"x") -> Answer:
    return Answer(200, "application/json", tag * size)


def _held(key: str, answer: Answer) -> int:
    """What holding ``answer`` costs: its objects, the key and the map's entry."""
    parts = (key, answer, answer.content_type, answer.body)
    return sum(sys.getsizeof(part) for part in parts) + ENTRY_BYTES


def test_bounded_by_bytes_least_recently_used_out():
    each = _held("a", _answer(1000))
    hot = HotAnswers(4 * each + 10)
    hot.put_many({"a": _answer(1000), "b": _answer(1000), "c": _answer(1000)})
    assert hot.get("a") is not None  # a is now the most recently used
    hot.put_many({"d": _answer(1000), "e": _answer(1000)})
    assert hot.size == 4 * each
    assert hot.get("b") is None
    assert {k for k in "acde" if hot.get(k) is not None} == set("acde")
    hot.put_many({"a": _answer(500, b"y")})  # replaced, counted once
    assert hot.get("a").body == b"y" * 500
    assert hot.size == 3 * each + _held("a", _answer(500))


def test_the_gzip_member_is_counted_too():
    answer = compressed(_answer(5000))
    hot = HotAnswers(1 << 20)
    hot.put_many({"a": answer})
    assert hot.size == _held("a", answer) + sys.getsizeof(answer.gzipped)


def test_an_answer_over_a_quarter_of_the_bound_is_not_kept():
    bound = 4 * _held("small", _answer(1000))
    hot = HotAnswers(bound)
    hot.put_many({"small": _answer(1000), "large": _answer(1001)})
    assert (hot.get("small") is not None, hot.get("large")) == (True, None)


def test_a_hit_is_served_without_the_backend(make_app, redis_server):
    server = redis_server()
    app = make_app(REDIS_URL=server.url, CACHE_PREFIX="ome-ranker-hot:", CACHE_HOT_BYTES=1 << 20)
    api = app.test_client()
    body = rank_body(model_doc(), runtime_doc("a"))
    first = api.post("/v1/rank", json=body)
    assert first.headers["X-Cache"] == "miss"
    server.stop()  # the backend is gone: the answer is still this worker's
    again = api.post("/v1/rank", json=body)
    assert (again.headers["X-Cache"], again.get_data()) == ("hit", first.get_data())
    cache = get_ranking_cache(app)
    assert cache.counts["errors"] == 0
    # no-cache skips every read, this one too.
    fresh = api.post("/v1/rank", json=body, headers={"Cache-Control": "no-cache"})
    assert (fresh.headers["X-Cache"], fresh.get_data()) == ("bypass", first.get_data())


def test_off_with_zero_bytes(make_app):
    app = make_app(CACHE_HOT_BYTES=0)
    assert get_ranking_cache(app).hot is None
    api = app.test_client()
    body = rank_body(model_doc(), runtime_doc("a"))
    api.post("/v1/rank", json=body)
    assert api.post("/v1/rank", json=body).headers["X-Cache"] == "hit"  # from the backend
