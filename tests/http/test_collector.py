"""The cyclic collector is paused while a request is inside the app (app/http/collector.py):
on for everything else, back on however the request ends, bounded under overlapping requests."""

from __future__ import annotations

import contextlib
import gc
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask

from app.http import collector
from app.http.collector import CollectorPause
from tests.builders import entry, rank_body, serving_runtime


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def _call(app: Callable[..., Any]) -> Any:
    return app({}, lambda status, headers: None)


def test_the_app_runs_with_the_collector_off_and_it_is_back_on_after(make_app):
    app: Flask = make_app()
    seen = []

    @app.get("/probe-collector")
    def probe():
        seen.append(gc.isenabled())
        return "ok"

    assert app.test_client().get("/probe-collector").status_code == 200
    assert seen == [False]
    assert gc.isenabled()


def test_a_ranking_request_runs_with_the_collector_off(make_app, monkeypatch):
    from app.selection.ranking import selector as ranking

    seen = []
    real = ranking.RuntimeChecks

    def watched(request):
        seen.append(gc.isenabled())
        return real(request)

    monkeypatch.setattr(ranking, "RuntimeChecks", watched)
    body = rank_body(None, serving_runtime("vllm", entry()))
    answer = make_app().test_client().post("/v1/rank", json=body)
    assert answer.status_code == 200, answer.get_json()
    assert seen == [False]
    assert gc.isenabled()


def test_back_on_when_the_app_raises():
    def failing(environ, start_response):
        assert not gc.isenabled()
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        _call(CollectorPause(failing))
    assert gc.isenabled()


def test_a_collector_turned_off_by_someone_else_stays_off():
    seen = []
    pause = CollectorPause(lambda environ, start_response: seen.append(gc.isenabled()) or [b""])
    gc.disable()
    _call(pause)
    assert seen == [False]
    assert not gc.isenabled()


@contextlib.contextmanager
def _one_inside(pause_limit: int, monkeypatch) -> Iterator[CollectorPause]:
    """A pause (whose app signals ``environ["entered"]``, then runs ``environ["work"]``) with
    one request held inside it, on another thread, until the block ends."""
    monkeypatch.setattr(collector, "MAX_PAUSED_OBJECTS", pause_limit)

    def app(environ, start_response):
        environ["entered"].set()
        environ["work"]()
        return [b""]

    pause = CollectorPause(app)
    release, entered = threading.Event(), threading.Event()
    first = threading.Thread(
        target=pause, args=({"entered": entered, "work": release.wait}, lambda *a: None)
    )
    first.start()
    try:
        assert entered.wait(30)
        yield pause
    finally:
        release.set()
        first.join(30)


def _second(pause: CollectorPause, work: Callable[[], Any]) -> None:
    pause({"entered": threading.Event(), "work": work}, None)


def test_overlapping_requests_keep_it_off_until_the_last_leaves(monkeypatch):
    states = []
    with _one_inside(10**9, monkeypatch) as pause:
        _second(pause, lambda: states.append(gc.isenabled()))
        states.append(gc.isenabled())  # the second has left, the first is still inside
    assert states == [False, False]
    assert gc.isenabled()


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_cyclic_garbage_under_endless_overlap_is_collected(monkeypatch):
    """A request that ends while another is still inside, once the pause has let more than
    MAX_PAUSED_OBJECTS objects pile up, runs a pass over the youngest generation."""
    refs = []

    def garbage():  # the count the limit reads is of objects still alive: cycles are
        for _ in range(2000):
            refs.append(weakref.ref(_Node()))

    with _one_inside(1000, monkeypatch) as pause:
        _second(pause, garbage)
        assert not gc.isenabled()  # the first request is still inside
        assert all(ref() is None for ref in refs)  # but the cycles the second left are gone
    assert gc.isenabled()


def test_under_the_limit_no_pass_runs_while_others_are_inside(monkeypatch):
    refs = []
    with _one_inside(10**9, monkeypatch) as pause:
        _second(pause, lambda: refs.append(weakref.ref(_Node())))
        assert refs[0]() is not None  # kept until the collector runs again
    gc.collect()
    assert refs[0]() is None


def _answering(status: str, work: Callable[[], Any]):
    """A second request's environ and start_response: it runs ``work``, answers ``status``."""

    def second(pause: CollectorPause) -> None:
        def app(environ, start_response):
            work()
            start_response(status, [])
            return [b""]

        saved, pause.wsgi_app = pause.wsgi_app, app
        try:
            pause({}, lambda status, headers: None)
        finally:
            pause.wsgi_app = saved

    return second


@pytest.mark.parametrize(("status", "collected"), [("422 UNPROCESSABLE", True), ("200 OK", False)])
def test_an_error_answer_leaves_no_cycles_under_overlap(monkeypatch, status, collected):
    """Under the pause limit, only a request answered with an error runs a pass as it leaves:
    its refused body is what marshmallow's frames keep in cycles."""
    monkeypatch.setattr(collector, "ERROR_PASS_OBJECTS", 1000)
    refs = []

    def garbage():
        for _ in range(2000):
            refs.append(weakref.ref(_Node()))

    with _one_inside(10**9, monkeypatch) as pause:
        _answering(status, garbage)(pause)
        assert not gc.isenabled()
        assert all(ref() is None for ref in refs) is collected
    assert gc.isenabled()


def test_a_refused_large_body_is_freed_with_its_answer(make_app):
    """A 422 for 150 000 invalid entries, while another request is inside the app: the decoded
    body is gone when the answer is (it stayed in marshmallow's cycles until the next pass)."""
    app = make_app()
    pause = app.wsgi_app.flask_app  # PollAnswers, in front of the CollectorPause
    assert isinstance(pause, CollectorPause)
    body = rank_body(None, serving_runtime("vllm", *([{"priority": "x"}] * 150_000)))
    pause._enter()  # another request, inside the app the whole time
    try:
        refused = app.test_client().post("/v1/rank", json=body)
        assert refused.status_code == 422
        del body
        alive = [obj for obj in gc.get_objects() if type(obj) is list and len(obj) == 150_000]
        assert alive == []
    finally:
        pause._leave()
