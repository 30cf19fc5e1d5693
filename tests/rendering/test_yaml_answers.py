"""``Accept: application/yaml`` on real answers: YAML that reads back as the JSON answer, and a
large answer that stops being written at the request's deadline (rules §17 "Bounded work")."""

from __future__ import annotations

import pytest
import yaml

from app.selection.values import budget
from tests.builders import entry, isvc_doc, model_doc, runtime_doc, serving_runtime
from tests.clock import TickingClock
from tests.servers import SEED_YAML
from tests.yaml_data import stream

MANIFESTS = {"Content-Type": "application/yaml"}
AS_YAML = {"Accept": "application/yaml"}
SEED_MODEL = "llama-3-2-3b-instruct"


# Names, messages and annotations with what YAML reads otherwise: booleans, numbers, dates,
# colons, quotes, a line break, non-ASCII.
ODD = {
    "yes": "no",
    "version": "1.0",
    "when": "2024-01-01",
    "note": "a: b # c",
    "quote": 'it\'s "quoted"',
    "lines": "one\ntwo",
    "text": "ünïcödé ☃",
}
CATALOG = [
    model_doc("m", annotations=None),
    {**model_doc("odd"), "metadata": {"name": "odd", "namespace": "demo", "annotations": ODD}},
    runtime_doc("rt-a", entry(priority=1)),
    runtime_doc("rt-b", entry(format_name="onnx")),
    serving_runtime("rt-c", entry(priority=2, weight=7)),
    isvc_doc("svc", model={"name": "m"}, engine={}),
    isvc_doc("svc-none", model={"name": "odd"}, runtime={"name": "yes"}),
]


@pytest.fixture
def api(make_app):
    client = make_app().test_client()
    assert client.put("/v1/clusters/prod").status_code == 201
    assert client.put("/v1/clusters/prod/objects", data=stream(*CATALOG), headers=MANIFESTS)
    return client


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/rank", SEED_YAML),
        ("POST", "/v1/selections", stream(*CATALOG)),
        ("POST", "/v1/lint", stream(*CATALOG)),
        ("POST", "/v1/impact", None),
        ("GET", "/v1/clusters", None),
        ("GET", "/v1/clusters/prod", None),
        ("GET", "/v1/clusters/prod/objects", None),
        ("GET", "/v1/clusters/prod/rank?model=m&namespace=demo", None),
        ("GET", "/v1/clusters/prod/selections", None),
    ],
    ids=lambda part: part if isinstance(part, str) else None,
)
def test_yaml_reads_back_as_the_json_answer(api, method, path, body):
    if path == "/v1/impact":
        changed = [*CATALOG[:2], runtime_doc("rt-a", entry(priority=3)), *CATALOG[3:]]
        kwargs = {"json": {"current": CATALOG, "proposed": changed}}
    else:
        kwargs = {} if body is None else {"data": body, "headers": MANIFESTS}
    as_json = api.open(path, method=method, **kwargs)
    headers = {**kwargs.pop("headers", {}), **AS_YAML}
    as_yaml = api.open(path, method=method, headers=headers, **kwargs)
    assert (as_json.status_code, as_yaml.status_code) == (200, 200), as_json.get_data()[:300]
    assert as_yaml.mimetype == "application/yaml"
    assert yaml.safe_load(as_yaml.get_data()) == as_json.get_json()


def test_a_large_answer_stops_being_written_at_the_deadline(make_app, monkeypatch):
    """Listing 3 000 stored objects checks the deadline only while writing YAML: with the
    ticking clock (each reading a second later) and a deadline the JSON answer fits in, the YAML
    answer is the application's 503, and the clock is not read again after the check that
    found the deadline passed."""
    app = make_app()
    client = app.test_client()
    client.put("/v1/clusters/big")
    runtimes = [runtime_doc(f"rt-{n:04d}") for n in range(3000)]
    assert client.put("/v1/clusters/big/objects", data=stream(*runtimes), headers=MANIFESTS)
    clock = TickingClock()
    monkeypatch.setattr(budget, "time", clock)
    listed = client.get("/v1/clusters/big/objects")
    assert listed.status_code == 200
    json_readings = clock.readings
    deadline = json_readings + 10
    monkeypatch.setattr(clock, "readings", 0)
    app.config["REQUEST_DEADLINE_SECONDS"] = deadline
    answered = client.get("/v1/clusters/big/objects", headers=AS_YAML)
    assert answered.status_code == 503
    assert answered.get_json()["error"]["code"] == "DeadlineExceeded"
    assert "X-Request-ID" in answered.headers
    assert clock.readings <= deadline + 2  # the start, the checks up to the deadline, no more
