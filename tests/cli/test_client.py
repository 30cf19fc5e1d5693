"""``app/cli/client.py``: where an object the answer names starts, found in one pass over the
files' objects; and what an answer means for the command line when ``--server`` points at
something other than an ome-ranker service, or at a proxy whose service is down: one line
naming the request, exit 3 (docs/cli.md "Exit codes"), asked once."""

from __future__ import annotations

import json

import pytest

from app.cli.client import Sent
from app.cli.sources import Manifest
from tests.builders import runtime_doc, serving_runtime
from tests.cli.support import SEED, invoke
from tests.servers import Scripted, ScriptedServer


class CountedList(list):
    """A list that counts the passes made over it."""

    passes = 0

    def __iter__(self):
        self.passes += 1
        return super().__iter__()


def test_each_object_is_found_where_the_last_of_its_identity_starts():
    manifests = CountedList(
        [
            Manifest(runtime_doc("vllm"), "a.yaml:1"),
            Manifest(serving_runtime("team", namespace="demo"), "a.yaml:9"),
            Manifest(runtime_doc("vllm"), "b.yaml:4"),  # the one the service reads
            Manifest(serving_runtime("team", namespace="other"), "b.yaml:20"),
            *(Manifest(runtime_doc(f"more-{n}"), f"c.yaml:{n}") for n in range(200)),
        ]
    )
    sent = Sent(manifests)
    assert sent.origin_of("ClusterServingRuntime", None, "vllm") == "b.yaml:4"
    assert sent.origin_of("ServingRuntime", "demo", "team") == "a.yaml:9"
    assert sent.origin_of("ServingRuntime", None, "team") == "b.yaml:20"  # any namespace
    assert sent.origin_of("ServingRuntime", "elsewhere", "team") is None
    assert sent.origin_of("ServingRuntime", "demo", "vllm") is None  # another kind
    assert sent.origin_of(None, None, "vllm") is None
    for n in range(200):
        assert sent.origin_of("ClusterServingRuntime", None, f"more-{n}") == f"c.yaml:{n}"
    assert manifests.passes == 1


HTML = (("Content-Type", "text/html"),)
JSON = (("Content-Type", "application/json"),)

# (the command, what the other service answers): what the command says after "<url>: "
ANOTHER_SERVICE = {
    "push, a 404 without a body": (
        ("push", "demo", "-f", str(SEED)),
        Scripted(404),
        "not an ome-ranker service (404 on GET /v1/clusters/demo)",
    ),
    "by name, a 404 page": (
        ("select", "--cluster", "demo", "--model", "m"),
        Scripted(404, b"<!DOCTYPE HTML>\n<html>Not Found</html>", HTML),
        "not an ome-ranker service (404 on GET /v1/clusters/demo/select)",
    ),
    "a 404 of another API": (
        ("rank", "-f", str(SEED)),
        Scripted(404, b'{"detail":"Not Found"}', JSON),
        "not an ome-ranker service (404 on POST /v1/rank)",
    ),
    "a page where JSON is asked for": (
        ("select", "-f", str(SEED)),
        Scripted(200, b"<!DOCTYPE HTML>\n<html>Welcome</html>", HTML),
        "not an ome-ranker service (200 text/html on POST /v1/select)",
    ),
    "JSON that does not parse": (
        ("lint", "-f", str(SEED)),
        Scripted(200, b"{not json", JSON),
        "not an ome-ranker service (200 application/json on POST /v1/lint)",
    ),
    "no media type": (
        ("selections", "-f", str(SEED)),
        Scripted(200, b"ok"),
        "not an ome-ranker service (200 untyped on POST /v1/selections)",
    ),
    "a method it does not take": (
        ("select", "-f", str(SEED)),
        Scripted(501, b"<!DOCTYPE HTML>\n<p>Unsupported method ('POST')</p>", HTML),
        "not an ome-ranker service (501 on POST /v1/select)",
    ),
    "a proxy whose service is down": (
        ("select", "-f", str(SEED)),
        Scripted(502, b"<html>Bad Gateway</html>", HTML),
        "POST /v1/select: 502 Bad Gateway (not an answer of ome-ranker's)",
    ),
}


@pytest.mark.parametrize("case", ANOTHER_SERVICE)
def test_another_service_at_server_is_named_so_exit_3(case):
    args, answer, said = ANOTHER_SERVICE[case]
    with ScriptedServer(answer).running() as server:
        result = invoke(*args, "--server", server.url)
    assert (result.exit_code, result.stdout) == (3, "")
    assert result.stderr == f"error: {server.url}: {said}\n"
    assert len(server.forwarded) == 1  # asked once: a POST, or an answer not worth asking again


def test_a_gateway_error_of_a_get_is_asked_again_before_it_is_reported():
    """The catalog asked by name through a proxy whose service restarts: once it answers, the
    command answers as if nothing happened."""
    answer = b'{"error":{"code":"ClusterNotFound","message":"cluster demo not found"}}'
    script = (Scripted(503, b"", (("Retry-After", "0"),)), Scripted(404, answer, JSON))
    with ScriptedServer(*script).running() as server:
        result = invoke("select", "--cluster", "demo", "--model", "m", "--server", server.url)
    assert (result.exit_code, result.stderr) == (2, "error: cluster demo not found\n")
    assert [request.path for request in server.forwarded] == [
        "/v1/clusters/demo/select?model=m"
    ] * 2


NOT_IN_DEFAULT = {
    "code": "ModelNotFound",
    "message": "No BaseModel or ClusterBaseModel with the name: llama",
    "namespaces": ["llama-demo"],
    "hint": "not in namespace default; found in llama-demo",
}


@pytest.mark.parametrize(
    ("namespaces", "ask"),
    [(["llama-demo"], "--namespace llama-demo"), (["a", "b"], "--namespace and one of them")],
)
def test_a_model_the_catalog_holds_elsewhere_is_a_usage_error(namespaces, ask):
    """Not OME's refusal (exit 1): the question looked in the wrong namespace (exit 2)."""
    error = {**NOT_IN_DEFAULT, "namespaces": namespaces}
    answer = Scripted(404, json.dumps({"error": error}).encode(), JSON)
    with ScriptedServer(answer).running() as server:
        result = invoke("select", "--cluster", "demo", "--model", "llama", "--server", server.url)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: No BaseModel or ClusterBaseModel with the name: llama\n"
        f"  not in namespace default; found in llama-demo: ask with {ask}\n"
    )


def test_a_model_the_catalog_does_not_hold_stays_omes_refusal():
    error = {key: NOT_IN_DEFAULT[key] for key in ("code", "message")}
    answer = Scripted(404, json.dumps({"error": error}).encode(), JSON)
    with ScriptedServer(answer).running() as server:
        result = invoke("rank", "--cluster", "demo", "--model", "llama", "--server", server.url)
    assert result.exit_code == 1
    assert result.stderr == "error: No BaseModel or ClusterBaseModel with the name: llama\n"
