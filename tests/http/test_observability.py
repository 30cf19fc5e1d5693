"""The request id and the JSON lines every request logs."""

from __future__ import annotations

import json
import logging

import pytest

from app.http.observability import request_id_from
from tests.builders import model_doc, rank_body, runtime_doc
from tests.paths import ROOT, SEED_YAML

YAML = {"Content-Type": "application/yaml"}


def json_lines(captured: str) -> list[dict]:
    return [json.loads(line) for line in captured.splitlines() if line.startswith("{")]


def request_lines(captured: str) -> list[dict]:
    return [line for line in json_lines(captured) if line["logger"] == "app.access"]


@pytest.mark.parametrize("given", ["abc-123", "!", "~" * 128, "0af7651916cd43dd8448eb211c80319c"])
def test_a_usable_request_id_is_kept_and_echoed(client, given):
    response = client.get("/healthz", headers={"X-Request-ID": given})
    assert response.headers["X-Request-ID"] == given
    assert request_id_from(given) == given


@pytest.mark.parametrize("given", [None, "", "a" * 129, "has space", "tab\there", "naïve"])
def test_an_unusable_request_id_is_replaced(given):
    replaced = request_id_from(given)
    assert replaced != given
    assert len(replaced) == 32
    int(replaced, 16)


def test_every_response_gets_an_id_errors_too(client):
    for response in (
        client.get("/nowhere"),
        client.post("/v1/rank", data=b"{", headers={"X-Request-ID": "x" * 200}),
        client.post("/v1/rank", data=b"a,b", headers={"Content-Type": "text/csv"}),
    ):
        assert len(response.headers["X-Request-ID"]) == 32


def test_one_request_line_per_request(client, capsys):
    client.post("/v1/rank", data=SEED_YAML, headers={**YAML, "X-Request-ID": "req-1"})
    client.post("/v1/rank", data=SEED_YAML, headers={**YAML, "X-Request-ID": "req-2"})
    client.post("/v1/select", data=b"[]", headers={"X-Request-ID": "req-3"})
    first, second, third = request_lines(capsys.readouterr().err)
    assert first["msg"] == "request"
    assert first["level"] == "info"
    assert {key: first[key] for key in ("method", "path", "status", "cache", "runtimes")} == {
        "method": "POST",
        "path": "/v1/rank",
        "status": 200,
        "cache": "miss",
        "runtimes": 4,
    }
    assert first["requestId"] == "req-1"
    assert first["durationMs"] > 0
    assert first["error"] is None
    assert isinstance(first["pid"], int)
    assert first["ts"].endswith("Z")
    assert (second["cache"], second["requestId"]) == ("hit", "req-2")
    assert (third["status"], third["error"], third["requestId"]) == (
        400,
        "MalformedRequest",
        "req-3",
    )


def test_selected_runtime_line_like_omes(client, capsys):
    client.post("/v1/rank", data=SEED_YAML, headers={**YAML, "X-Request-ID": "seed"})
    selected, request_line = json_lines(capsys.readouterr().err)
    assert selected == {
        "ts": selected["ts"],
        "level": "info",
        "logger": "app.ranking",
        "msg": "Selected runtime",
        "pid": selected["pid"],
        "runtime": "team-llama",
        "isCluster": False,
        "score": 2,
        "explicit": False,
        "model": "llama-3-2-3b-instruct",
        "namespace": "llama-demo",
        "requestId": "seed",
    }
    assert request_line["msg"] == "request"


def test_a_cluster_runtime_is_logged_as_cluster(client, capsys):
    body = rank_body(model_doc(), runtime_doc("vllm", kind="ClusterServingRuntime"))
    assert client.post("/v1/select", json=body).status_code == 200
    selected = json_lines(capsys.readouterr().err)[0]
    assert (selected["runtime"], selected["isCluster"]) == ("vllm", True)


def test_request_bodies_never_reach_the_logs(client, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    marker = "do-not-log-7f3a9c"
    body = rank_body(
        model_doc(storage={"storageUri": f"hf://{marker}"}),
        runtime_doc("rt", engineConfig={"runner": {"image": marker}}),
    )
    client.post("/v1/rank", json=body)
    client.post("/v1/rank", data=f'{{"model": "{marker}"'.encode())
    client.post("/v1/rank", data=f"kind: {marker}\n".encode(), headers=YAML)
    client.post("/v1/rank", json={"model": {"spec": marker}, "runtimes": [marker]})
    assert marker not in capsys.readouterr().err
    assert marker not in caplog.text
    for record in caplog.records:
        assert marker not in json.dumps(getattr(record, "fields", {}), default=str)


def test_probes_and_scrapes_log_at_debug_only(make_app, capsys):
    quiet = make_app().test_client()
    for path in ("/healthz", "/readyz", "/metrics"):
        quiet.get(path)
    quiet.get("/docs")
    assert [line["path"] for line in request_lines(capsys.readouterr().err)] == ["/docs"]

    chatty = make_app(LOG_LEVEL="DEBUG").test_client()
    chatty.get("/healthz")
    (line,) = request_lines(capsys.readouterr().err)
    assert (line["path"], line["level"]) == ("/healthz", "debug")


def test_an_unexpected_error_is_logged_with_its_traceback_and_id(app, capsys):
    @app.get("/boom")
    def boom():
        raise RuntimeError("kaboom")

    response = app.test_client().get("/boom", headers={"X-Request-ID": "boom-1"})
    assert response.status_code == 500
    assert b"kaboom" not in response.data
    error_line, request_line = json_lines(capsys.readouterr().err)
    assert error_line["level"] == "error"
    assert error_line["requestId"] == "boom-1"
    assert "RuntimeError: kaboom" in error_line["exc"]
    assert (request_line["status"], request_line["error"]) == (500, "InternalError")


def test_the_documented_log_lines_have_the_fields_of_the_real_ones(client, capsys):
    page = (ROOT / "docs" / "operations.md").read_text("utf-8")
    logs = page[page.index("\n## Logs\n") :]
    documented = [
        json.loads(block.replace("\n", ""))
        for block in logs.split("```json\n")[1:3]
        for block in [block.split("\n```", 1)[0]]
    ]
    client.post("/v1/rank", data=SEED_YAML, headers=YAML)
    selected, request_line = json_lines(capsys.readouterr().err)
    assert [list(line) for line in documented] == [list(request_line), list(selected)]
