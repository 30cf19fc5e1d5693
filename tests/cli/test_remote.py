"""app/cli/remote.py: a service at ``--server`` over urllib3, whose ``Retry`` asks an
idempotent call again on 502, 503 and 504 after the ``Retry-After`` the answer names (capped),
never a POST, a refused connection or any other answer. The waits are recorded, not slept."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
import urllib3.util.retry

from app.cli.remote import RETRIES, RETRY_AFTER_MAX, Remote
from app.cli.transport import Unreachable
from tests.servers import Scripted, ScriptedServer, free_port

OK = Scripted(200, b"{}", (("Content-Type", "application/json"),))


def unavailable(status: int = 503, *headers: tuple[str, str]) -> Scripted:
    body = b'{"error":{"code":"StoreUnavailable","message":"the store is down"}}'
    return Scripted(status, body, (("Content-Type", "application/json"), *headers))


@pytest.fixture
def waits(monkeypatch) -> list[float]:
    """Every wait urllib3's Retry asks for, in seconds, instead of sleeping it."""
    asked: list[float] = []
    clock = SimpleNamespace(sleep=asked.append, time=time.time)
    monkeypatch.setattr(urllib3.util.retry, "time", clock)
    return asked


def ask(server: ScriptedServer, method: str = "GET", body: bytes | None = None):
    return Remote(server.url, None, None, 30).request(method, "/v1/clusters/demo", body=body)


def test_an_idempotent_call_waits_as_retry_after_says_then_gets_its_answer(waits):
    with ScriptedServer(unavailable(503, ("Retry-After", "1")), OK).running() as server:
        reply = ask(server)
    assert (reply.status, reply.body) == (200, b"{}")
    assert [request.method for request in server.forwarded] == ["GET", "GET"]
    assert waits == [1]


@pytest.mark.parametrize("status", [502, 503, 504])
@pytest.mark.parametrize("method", ["GET", "PUT"])
def test_gateway_statuses_are_asked_again_a_bounded_number_of_times(waits, status, method):
    with ScriptedServer(unavailable(status)).running() as server:
        reply = ask(server, method, b"{}" if method == "PUT" else None)
    assert reply.status == status  # the last answer, for the command to report
    assert len(server.forwarded) == 1 + RETRIES
    assert all(request.method == method for request in server.forwarded)
    assert waits == [1.0]  # no Retry-After: at once, then 2 x 0.5 s


def test_a_long_retry_after_is_capped(waits):
    with ScriptedServer(unavailable(503, ("Retry-After", "3600"))).running() as server:
        assert ask(server).status == 503
    assert len(server.forwarded) == 1 + RETRIES
    assert waits == [RETRY_AFTER_MAX] * RETRIES


def test_a_retry_after_that_does_not_parse_is_read_as_absent(waits):
    with ScriptedServer(unavailable(503, ("Retry-After", "soon")), OK).running() as server:
        assert ask(server).status == 200
    assert len(server.forwarded) == 2


def test_a_post_is_asked_once(waits):
    """Not idempotent: every question that sends manifests."""
    with ScriptedServer(unavailable(503, ("Retry-After", "0")), OK).running() as server:
        assert ask(server, "POST", b"[]").status == 503
    assert len(server.forwarded) == 1
    assert waits == []


@pytest.mark.parametrize(
    "answer",
    [
        Scripted(404),  # another service: asked once, answered at once
        Scripted(500, b"<html>oops</html>"),
        Scripted(429, b"", (("Retry-After", "1"),)),
        Scripted(308, b"", (("Location", "https://elsewhere.example/"),)),
    ],
    ids=lambda answer: str(answer.status),
)
def test_other_answers_are_not_asked_again(waits, answer):
    with ScriptedServer(answer, OK).running() as server:
        assert ask(server).status == answer.status
    assert len(server.forwarded) == 1
    assert waits == []


def test_a_refused_connection_is_not_asked_again(waits):
    server = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(Unreachable, match=f"^cannot reach {server}: Connection refused$"):
        Remote(server, None, None, 30).request("GET", "/v1/clusters")
    assert waits == []
