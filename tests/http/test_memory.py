"""rules §17 "Safe to share": memory bounded like CPU (app/reading/sizing.py, app/http/memory.py).

A body is measured from its bytes before it is decoded; one that could take more than
``OME_RANKER_MAX_REQUEST_MEMORY`` is refused at once, naming the setting; the others reserve
their share of the worker's ``OME_RANKER_WORKER_MEMORY`` for the rest of the request, and wait
for it, up to their deadline, while the requests in flight hold it.
"""

from __future__ import annotations

import json
import threading

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from app.http.memory import EXTENSION, MemoryBudget
from app.reading import sizing
from app.reading.manifests import MAX_BODY_OBJECTS
from app.schemas.fields import MAX_ITEM_ERRORS
from tests.builders import token_file

MIB = 1024 * 1024
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
SEED = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "BaseModel",
    "metadata": {"name": "m", "namespace": "default"},
    "spec": {"modelFormat": {"name": "safetensors"}},
}


def empty_dicts(count: int) -> bytes:
    """A manifest array of ``count`` empty objects: 3 bytes each, ~90 bytes each decoded."""
    return b"[" + b"{}," * (count - 1) + b"{}]"


# --- the measure --------------------------------------------------------------------------------


def test_a_json_body_counts_its_values_objects_and_bytes():
    raw = b'{"kind":"X","a":[1,2,{}]}'
    values = 3 + 1 + 2 + 2 + 1  # {{ [ ,, :: plus one
    assert sizing.json_memory(raw) == 2 * len(raw) + 64 * values + 4096


def test_a_yaml_body_counts_where_nodes_can_begin():
    raw = b"kind: X\nspec:\n  - [1, 2]\n"
    nodes = 3 + 2 + 1 + 1 + 1 + 1 + 8  # \n \n\n ... : : - , [ and the bracket again, plus 8
    assert sizing.yaml_nodes_ceiling(raw) == nodes
    assert sizing.yaml_memory(raw) == 2 * len(raw) + 384 * nodes + 4096


# Bodies where the counted bytes are dense, words overlap ("kindkind", "kinkind") and brackets
# sit among the other structural bytes.
_SIZING_BYTES = st.lists(
    st.sampled_from(
        [b"kind", b"kin", b"d", b"{", b"[", b",", b":", b"]", b"}", b'"', b"\n", b"\t", b"-", b"?"]
    )
    | st.binary(max_size=4)
).map(b"".join)


@given(_SIZING_BYTES)
def test_the_sizing_counts_each_counted_byte_and_word_once(raw):
    """The passes are combined for speed: each total is still the plain count of its bytes."""
    words = raw.count(b"kind")
    values = sum(raw.count(byte) for byte in (b"{", b"[", b",", b":")) + 1
    assert sizing.json_memory(raw) == 2 * len(raw) + 64 * values + 4096 * words
    assert sizing.json_memory(raw, sizing.json_marks(raw)) == sizing.json_memory(raw)
    nodes = sum(raw.count(bytes([byte])) for byte in b"\n\t-:?,[{")
    nodes += raw.count(b"[") + raw.count(b"{") + 8
    assert sizing.yaml_nodes_ceiling(raw) == nodes
    assert sizing.yaml_memory(raw) == 2 * len(raw) + 384 * nodes + 4096 * words


def test_the_same_values_weigh_more_as_yaml_than_as_json():
    """YAML's nodes cost more (PyYAML's nodes and marks), and a body may take that path."""
    documents = [SEED] * 50
    as_json = json.dumps(documents).encode()
    as_yaml = yaml.safe_dump_all(documents).encode()
    assert sizing.body_memory(as_yaml, True) > 2 * sizing.body_memory(as_json, False)


# --- the bound of one request --------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/rank", "/v1/lint", "/v1/selections", "/v1/select"])
def test_a_body_that_could_take_too_much_is_refused_before_it_is_decoded(
    make_app, monkeypatch, path
):
    api = make_app(MAX_REQUEST_MEMORY=8 * MIB, WORKER_MEMORY=8 * MIB).test_client()

    def never(*_args, **_kwargs):
        raise AssertionError("decoded although the body was refused by its size")

    monkeypatch.setattr("app.reading.decoding.orjson_value", never)
    body = empty_dicts(100_000)  # 300 KB that would decode into 100 000 dicts
    refused = api.post(path, data=body, headers=JSON)
    error = refused.get_json()["error"]
    assert (refused.status_code, error["code"]) == (413, "PayloadTooLarge")
    assert "OME_RANKER_MAX_REQUEST_MEMORY" in error["message"]
    assert "at most 8 MiB per request" in error["message"]


def test_a_real_catalog_fits_the_default_bound(client):
    runtimes = [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterServingRuntime",
            "metadata": {"name": f"rt-{i}", "labels": {"team": "a"}},
            "spec": {"supportedModelFormats": [{"modelFormat": {"name": "safetensors"}}]},
        }
        for i in range(5000)
    ]
    answer = client.post("/v1/rank", json={"model": SEED, "runtimes": runtimes})
    assert answer.status_code == 200, answer.get_json()
    assert len(answer.get_json()["runtimes"]) == 5000


def test_a_yaml_stream_is_measured_as_yaml(make_app):
    api = make_app(MAX_REQUEST_MEMORY=2 * MIB, WORKER_MEMORY=2 * MIB).test_client()
    body = yaml.safe_dump_all([SEED] * 300).encode()
    assert sizing.json_memory(body) < 2 * MIB < sizing.yaml_memory(body)
    assert api.post("/v1/lint", data=body, headers=YAML).status_code == 413
    assert api.post("/v1/lint", data=json.dumps([SEED] * 300), headers=JSON).status_code == 200


def test_objects_of_one_body_are_bounded_before_they_are_labelled(make_app):
    api = make_app(MAX_REQUEST_MEMORY=2048 * MIB, WORKER_MEMORY=2048 * MIB).test_client()
    items = [{"kind": "ConfigMap"}] * (MAX_BODY_OBJECTS + 1)
    refused = api.post("/v1/lint", json={"apiVersion": "v1", "kind": "List", "items": items})
    error = refused.get_json()["error"]
    assert (refused.status_code, error["code"]) == (413, "PayloadTooLarge")
    assert f"more than {MAX_BODY_OBJECTS} objects" in error["message"]
    many = api.post("/v1/lint", json={"apiVersion": "v1", "kind": "List", "items": items[:1000]})
    assert many.status_code == 200


def test_a_list_stops_being_validated_after_some_invalid_items(client):
    """100 000 invalid entries held 450 MB of errors; a few of them name the mistake."""
    entries = [{"priority": "x"}] * 1000
    runtime = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "rt"},
        "spec": {"supportedModelFormats": entries},
    }
    refused = client.post("/v1/rank", json={"model": SEED, "runtimes": [runtime]})
    error = refused.get_json()["error"]
    assert (refused.status_code, error["code"]) == (422, "InvalidDocument")
    paths = error["fields"]
    prefix = "runtimes[0].spec.supportedModelFormats"
    assert len(paths) == MAX_ITEM_ERRORS + 1
    assert paths[f"{prefix}[0].priority"] == ["Not a valid integer."]
    last = paths[f"{prefix}[{MAX_ITEM_ERRORS}]"]
    assert last == [
        f"Not validated: the {1000 - MAX_ITEM_ERRORS} items from here on "
        f"(over {MAX_ITEM_ERRORS} items of this list are invalid)."
    ]


# --- the worker's memory --------------------------------------------------------------------------


def test_a_reservation_waits_for_room_and_gets_it_when_given_back():
    budget = MemoryBudget(total=100, anonymous=80)
    assert budget.reserve(70, anonymous=False, timeout=0)
    got = threading.Event()

    def second():
        if budget.reserve(50, anonymous=False, timeout=30):
            got.set()

    waiter = threading.Thread(target=second)
    waiter.start()
    assert not got.wait(0.2)  # 70 + 50 > 100: it waits
    budget.release(70, anonymous=False)
    waiter.join(30)
    assert got.is_set() and budget.held == 50


def test_anonymous_requests_leave_room_for_token_holders():
    budget = MemoryBudget(total=100, anonymous=80)
    assert budget.reserve(60, anonymous=True, timeout=0)
    assert not budget.reserve(30, anonymous=True, timeout=0)  # past the anonymous share
    assert budget.reserve(30, anonymous=False, timeout=0)  # a token holder's fits
    assert not budget.reserve(20, anonymous=False, timeout=0)  # past the whole
    budget.release(60, anonymous=True)
    budget.release(30, anonymous=False)
    assert (budget.held, budget.held_anonymous) == (0, 0)


def test_every_request_gives_its_memory_back(make_app):
    app = make_app()
    api = app.test_client()
    budget = app.extensions[EXTENSION]
    answers = [
        api.post("/v1/rank", json={"model": SEED, "runtimes": []}),
        api.post("/v1/rank", data=b"{not json", headers=JSON),
        api.post("/v1/lint", data=empty_dicts(10), headers=JSON),  # 10 `kind not set`
        api.post("/v1/rank", json={"model": {"kind": "BaseModel"}, "runtimes": []}),
    ]
    assert [answer.status_code for answer in answers] == [200, 400, 200, 422]
    assert (budget.held, budget.held_anonymous) == (0, 0)


def test_a_request_that_finds_no_room_by_its_deadline_is_answered_busy(make_app):
    app = make_app(MAX_REQUEST_MEMORY=4 * MIB, WORKER_MEMORY=4 * MIB, REQUEST_DEADLINE_SECONDS=0.2)
    budget = app.extensions[EXTENSION]
    assert budget.reserve(4 * MIB, anonymous=False, timeout=0)  # a request in flight
    try:
        busy = app.test_client().post("/v1/rank", json={"model": SEED, "runtimes": []})
    finally:
        budget.release(4 * MIB, anonymous=False)
    error = busy.get_json()["error"]
    assert (busy.status_code, error["code"]) == (503, "DeadlineExceeded")
    assert "held this worker's memory" in error["message"]
    assert budget.held == 0


def test_a_token_holder_is_not_held_back_by_anonymous_requests(make_app, tmp_path):
    tokens = token_file(tmp_path / "tokens.yaml", {"name": "sync", "secret": "s", "write": ["*"]})
    app = make_app(
        AUTH_MODE="token",
        TOKENS_FILE=tokens,
        MAX_REQUEST_MEMORY=4 * MIB,
        WORKER_MEMORY=5 * MIB,
        REQUEST_DEADLINE_SECONDS=0.2,
    )
    budget = app.extensions[EXTENSION]
    assert budget.anonymous == 4 * MIB  # the largest request: the holders' share is more
    assert budget.reserve(4 * MIB, anonymous=True, timeout=0)  # anonymous ones in flight
    try:
        api = app.test_client()
        anonymous = api.post("/v1/rank", json={"model": SEED, "runtimes": []})
        holder = api.put("/v1/clusters/prod", json={}, headers={"Authorization": "Bearer s"})
    finally:
        budget.release(4 * MIB, anonymous=True)
    assert anonymous.status_code == 503
    assert holder.status_code == 201, holder.get_json()


@pytest.mark.parametrize(
    ("largest", "total"), [("2097152", "1048576"), ("100", "1048576"), ("x", "1048576")]
)
def test_the_settings_are_checked_at_start(monkeypatch, largest, total):
    from config.settings import Config, SettingsError

    monkeypatch.setenv("OME_RANKER_MAX_REQUEST_MEMORY", largest)
    monkeypatch.setenv("OME_RANKER_WORKER_MEMORY", total)
    with pytest.raises(SettingsError, match="OME_RANKER_MAX_REQUEST_MEMORY"):
        Config()
