"""``app/cli/transport.py``'s API in this process: ``POST /v1/lint`` answered without Flask gives
the service's status, media type and bytes; every command runs bounded by its files, not by the
service's limits or deadline, which the service itself keeps."""

from __future__ import annotations

import json

import pytest

from app.cli.transport import LIFTED_LIMITS, InProcess, local_config
from app.selection.values import budget
from bench.repository import write_repository
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.cli.support import SEED, invoke, write_tree
from tests.clock import TickingClock

ACCEPTS = ("application/json", "text/plain", "application/yaml")
CLASH = [runtime_doc("vllm", entry(priority=2)), runtime_doc("vllm-2", entry(priority=2))]
MANIFESTS = [
    model_doc("llama", namespace="demo", size="8B"),
    isvc_doc("chat", namespace="demo", model={"name": "llama"}, engine={}),
    *CLASH,
    {**runtime_doc("typo"), "spec": {"supportedModelFormat": []}},  # an unknown field
    {**model_doc("broken", namespace="demo"), "spec": {"modelFormat": "safetensors"}},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}},
    {
        "apiVersion": "ome.io/v1beta1",
        "kind": "AcceleratorClass",
        "metadata": {"name": "nvidia-h100"},
        "spec": {"vendor": "nvidia", "capabilities": {"memoryGB": "80Gi"}},
    },
    runtime_doc("vllm", entry(priority=3)),  # given twice: a warning
]
BODIES = {
    "manifests": json.dumps(MANIFESTS).encode(),
    "one object": json.dumps(MANIFESTS[0]).encode(),
    "not JSON": b'[{"kind": ',
    "a scalar": b"3",
    "nothing": b"",
}
QUERIES = {
    "none": [],
    "settings": [("omeVersion", "1.2"), ("modelCacheProvider", "oci")],
    "classes known": [("acceleratorClassesKnown", "true")],
    "bad version": [("omeVersion", "one")],
    "long provider": [("modelCacheProvider", "x" * 5000)],
    "bad flag": [("acceleratorClassesKnown", "maybe")],
    "twice": [("omeVersion", "1.2"), ("omeVersion", "one")],
}


def flask_reply(client, body: bytes, query, accept: str, content_type: str):
    response = client.post(
        "/v1/lint",
        data=body,
        query_string=query,
        headers={"Accept": accept, "Content-Type": content_type},
    )
    return response.status_code, response.headers["Content-Type"], response.get_data()


@pytest.mark.parametrize("query", QUERIES, ids=str)
@pytest.mark.parametrize("body", BODIES, ids=str)
def test_the_local_lint_is_the_services_byte_for_byte(client, body, query):
    transport = InProcess()
    try:
        for accept in ACCEPTS:
            headers = {"Accept": accept, "Content-Type": "application/json"}
            reply = transport.request(
                "POST", "/v1/lint", query=QUERIES[query], body=BODIES[body], headers=headers
            )
            assert transport._app is None
            expected = flask_reply(
                client, BODIES[body], QUERIES[query], accept, headers["Content-Type"]
            )
            assert (reply.status, reply.headers["content-type"], reply.body) == expected
    finally:
        transport.close()


def test_a_yaml_body_and_other_requests(client):
    yaml_body = b"kind: ClusterServingRuntime\napiVersion: ome.io/v1beta1\nmetadata: {name: x}\n"
    transport = InProcess()
    try:
        asked = {"Accept": "text/plain", "Content-Type": "application/yaml"}
        reply = transport.request("POST", "/v1/lint", body=yaml_body, headers=asked)
        assert (reply.status, reply.body) == flask_reply(
            client, yaml_body, [], "text/plain", "application/yaml"
        )[::2]
        assert transport._app is None
        # An Accept the command never sends, or another parameter: the app answers.
        odd = {"Accept": "application/*", "Content-Type": "application/json"}
        assert transport.request("POST", "/v1/lint", body=b"[]", headers=odd).status == 200
        assert transport._app is not None
    finally:
        transport.close()


def test_the_in_process_service_lifts_the_limits_and_the_deadline(tmp_path, monkeypatch):
    for name, value in LOW_LIMITS.items():
        monkeypatch.setenv(name, value)
    config = local_config(str(tmp_path))
    assert config.REQUEST_DEADLINE_SECONDS is None
    assert all(getattr(config, name) > 10**15 for name in LIFTED_LIMITS)


# Every bound of work at its lowest (OME_RANKER_MAX_REQUEST_MEMORY's lowest is 1 MiB).
LOW_LIMITS = {
    "OME_RANKER_MAX_BODY_BYTES": "1",
    "OME_RANKER_MAX_RUNTIMES": "1",
    "OME_RANKER_MAX_RUNTIME_CHECKS": "1",
    "OME_RANKER_MAX_ANSWER_BYTES": "1",
    "OME_RANKER_MAX_OBJECTS_PER_CLUSTER": "1",
    "OME_RANKER_MAX_REQUEST_MEMORY": str(1024 * 1024),
    "OME_RANKER_WORKER_MEMORY": str(1024 * 1024),
    "OME_RANKER_REQUEST_DEADLINE": "0.1",
}
COMMANDS = (
    ("lint", "-R", "-f", "{tree}", "--severity", "info"),
    ("selections", "-R", "-f", "{tree}"),
    ("impact", "-R", "--current", "{tree}", "--proposed", "{seed}"),
    ("rank", "-f", "{seed}"),
    ("select", "-f", "{seed}", "-o", "json"),
)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda args: args[0])
def test_local_commands_are_bounded_by_their_files_not_the_services_limits(
    tmp_path, monkeypatch, command
):
    """With every limit at its lowest and a clock that passes a second at every reading, each
    command answers as it does with the defaults: no LimitExceeded, 413 or DeadlineExceeded."""
    tree = write_tree(tmp_path)
    args = [arg.format(tree=tree, seed=SEED) for arg in command]
    expected = invoke(*args)
    assert expected.exit_code in (0, 1), expected.stderr
    clock = TickingClock()
    monkeypatch.setattr(budget, "time", clock)
    bounded = invoke(*args, env=LOW_LIMITS)
    assert (bounded.exit_code, bounded.stdout, bounded.stderr) == (
        expected.exit_code,
        expected.stdout,
        expected.stderr,
    )
    assert clock.readings == 0  # no deadline was started, so none was read


@pytest.mark.parametrize(
    ("setting", "code"),
    [
        ("OME_RANKER_MAX_RUNTIME_CHECKS", "LimitExceeded"),
        ("OME_RANKER_MAX_OBJECTS_PER_CLUSTER", "LimitExceeded"),
        ("OME_RANKER_MAX_RUNTIMES", "PayloadTooLarge"),
        ("OME_RANKER_MAX_BODY_BYTES", "PayloadTooLarge"),
    ],
)
def test_the_service_keeps_its_limits(make_app, monkeypatch, setting, code):
    """The limits the command lifts bind the service: the same lint body is refused."""
    monkeypatch.setenv(setting, LOW_LIMITS[setting])
    answered = make_app().test_client().post("/v1/lint", json=MANIFESTS)
    assert answered.get_json()["error"]["code"] == code


def test_the_service_keeps_its_deadline(make_app, monkeypatch):
    monkeypatch.setattr(budget, "time", TickingClock())
    client = make_app(REQUEST_DEADLINE_SECONDS=1.0).test_client()
    answered = client.post("/v1/lint", json=MANIFESTS)
    assert (answered.status_code, answered.get_json()["error"]["code"]) == (503, "DeadlineExceeded")


@pytest.mark.scale
def test_a_repository_of_1400_files_is_linted_locally(tmp_path):
    """A repository as a team keeps one (420 runtimes, 280 models, 700 InferenceServices): every
    finding, whatever the service's limits would say of it as one request."""
    root = write_repository(tmp_path / "repository", 1400)
    result = invoke("lint", "-R", "-f", str(root), "-o", "json", "--severity", "info")
    assert result.exit_code in (0, 1), result.stderr
    answer = json.loads(result.stdout)
    assert sum(answer["counts"].values()) == len(answer["findings"]) > 1400
