"""What the command line sends a service (rules §17 "Stored is what is read"): ``push``, ``rank``,
``select``, ``selections`` and ``impact`` send each object's stored form, made by the service's
own code, so that a container's env, args and command, volumes and a storage URI that may carry a
credential never leave the machine; the service stores, and answers, exactly what it does for the
whole manifests. ``lint`` sends them whole: the API server's strict decoding judges every field.

The equivalence is checked on OME's documented examples, the recorded ``kubectl get`` output,
realistic runtimes (containers, env, args, volumes) and, by Hypothesis, on invalid manifests:
a manifest the service refuses is refused, at the same path, in its stored form too."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.cli.client import Sent, stored_forms
from app.cli.sources import Manifest, parse
from app.schemas.stored import DROPPED_ANNOTATIONS, stored_form
from bench.manifests import rank_request_body
from tests import yaml_data
from tests.builders import MARKER, dump, json_paths
from tests.cli.support import SEED, invoke, write_yaml
from tests.ome_docs.support import load_cases
from tests.paths import FIXTURES
from tests.servers import Proxy

JSON = {"Content-Type": "application/json", "Cache-Control": "no-cache"}
ACCEPTS = ("application/json", "text/plain")
SEED_MODEL = "llama-3-2-3b-instruct"
(LAST_APPLIED,) = DROPPED_ANNOTATIONS


def _manifests(documents: list) -> list[Manifest]:
    """The documents as the command line reads them from a file (Lists flattened)."""
    return parse(json.dumps(documents).encode(), "objects.json")


def whole_and_stored(documents: list) -> tuple[bytes, bytes]:
    """The body of the whole manifests, and the one the command line sends."""
    sent = Sent(_manifests(documents))
    return sent.applied_body(), sent.body()


# --- the same answers ---------------------------------------------------------------------------


def _case_questions() -> Iterator[tuple[str, list, list[tuple[str, str]]]]:
    """OME's documented examples (tests/ome_docs) and realistic runtimes (bench/manifests.py),
    each a question with its query."""
    for param in load_cases():
        (case,) = param.values
        documents = [d for d in yaml_data.load_all(case["manifests"]) if d is not None]
        query = sorted((case.get("query") or {}).items())
        yield param.id, documents, [(key, str(value)) for key, value in query]
    realistic = rank_request_body(60)
    namespace = [("namespace", realistic["namespace"])]
    yield "realistic-runtimes", [realistic["model"], *realistic["runtimes"]], namespace
    yield (
        "accelerators",
        list(yaml_data.load_all((FIXTURES / "select_accelerators.yaml").read_text())),
        [],
    )


QUESTIONS = list(_case_questions())


@pytest.mark.parametrize(
    ("documents", "query"),
    [(documents, query) for _, documents, query in QUESTIONS],
    ids=[name for name, _, _ in QUESTIONS],
)
def test_rank_and_select_answer_the_stored_form_as_the_whole_manifests(client, documents, query):
    whole, stored = whole_and_stored(documents)
    assert len(stored) <= len(whole)
    for endpoint in ("/v1/rank", "/v1/select"):
        for accept in ACCEPTS:
            headers = {**JSON, "Accept": accept}
            expected = client.post(endpoint, data=whole, headers=headers, query_string=query)
            answer = client.post(endpoint, data=stored, headers=headers, query_string=query)
            assert (answer.status_code, answer.data) == (expected.status_code, expected.data)


def test_realistic_runtimes_lose_their_containers_and_keep_their_answers():
    """The comparison above is not between equal bodies: what is dropped is most of them."""
    _, documents, _ = next(q for q in QUESTIONS if q[0] == "realistic-runtimes")
    whole, stored = whole_and_stored(documents)
    assert b'"env"' in whole and b'"args"' in whole and b'"volumes"' in whole
    assert b'"env"' not in stored and b'"args"' not in stored and b'"volumes"' not in stored
    assert len(stored) < len(whole) / 2


def _kubectl_get_with_secrets() -> list:
    """The recorded `kubectl get … -A -o yaml` with secrets in every object (a marker each)."""
    return yaml.safe_load(dump())["items"]


def test_selections_and_impact_answer_the_stored_form_as_the_whole_manifests(client):
    documents = _kubectl_get_with_secrets()
    whole, stored = whole_and_stored(documents)
    assert MARKER.encode() in whole and MARKER.encode() not in stored
    for accept in ACCEPTS:
        headers = {**JSON, "Accept": accept}
        expected = client.post("/v1/selections", data=whole, headers=headers)
        answer = client.post("/v1/selections", data=stored, headers=headers)
        assert expected.status_code == 200, expected.data
        assert answer.data == expected.data
    proposed = [d for d in documents if d["metadata"]["name"] != "team-llama"]
    whole_change = {"current": documents, "proposed": proposed}
    stored_change = {side: stored_forms(_manifests(items)) for side, items in whole_change.items()}
    expected = client.post("/v1/impact", data=json.dumps(whole_change), headers=JSON)
    answer = client.post("/v1/impact", data=json.dumps(stored_change), headers=JSON)
    assert expected.get_json()["count"] > 0  # the change moves an InferenceService
    assert answer.data == expected.data


def test_a_catalog_stored_from_the_stored_form_is_the_one_of_the_whole_manifests(client):
    whole, stored = whole_and_stored(_kubectl_get_with_secrets())
    answers = {}
    for cluster, body in (("whole", whole), ("stored", stored)):
        assert client.put(f"/v1/clusters/{cluster}", json={}).status_code == 201
        written = client.put(f"/v1/clusters/{cluster}/objects", data=body, headers=JSON)
        assert written.status_code == 200, written.data
        answers[cluster] = [
            written.get_json()["counts"],
            client.get(f"/v1/clusters/{cluster}/objects").get_json(),
            client.get(f"/v1/clusters/{cluster}/selections", headers={"Accept": "text/plain"}).data,
        ]
    assert answers["stored"] == answers["whole"]
    assert sum(answers["whole"][0].values()) == 7
    # Writing the whole manifests over the stored form's catalog changes nothing in it.
    generation = client.get("/v1/clusters/stored").get_json()["generation"]
    again = client.put("/v1/clusters/stored/objects", data=whole, headers=JSON)
    assert again.get_json()["generation"] == generation


# --- invalid manifests: refused alike ------------------------------------------------------------


def _holds(node, path: tuple) -> bool:
    try:
        for key in path:
            node = node[key]
    except (KeyError, IndexError):
        return False
    return True


def _dropped_places(objects: list[dict]) -> list[tuple[int, tuple]]:
    """One place (object, path) for each field of a kind that the stored form drops: a value
    there must not matter to the service, whatever it is (a value kept is the same both ways)."""
    places: dict[tuple, tuple[int, tuple]] = {}
    for index, manifest in enumerate(objects):
        kept = stored_form(manifest)
        for path in json_paths(manifest):
            if path and not _holds(kept, path):
                field = tuple("[]" if isinstance(key, int) else key for key in path)
                places.setdefault((manifest["kind"], *field), (index, path))
    return list(places.values())


def _with_junk(objects: list[dict], place: tuple[int, tuple], value) -> tuple[bytes, bytes]:
    """``whole_and_stored`` of the objects with ``value`` at ``place``."""
    objects = copy.deepcopy(objects)
    index, path = place
    parent = objects[index]
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return whole_and_stored(objects)


# Values that break a field of any type, among them a storage URI of each kind.
JUNK = (None, True, -1, 2**64, 1.5, "", "x", "pvc://claim/model", "hf://org/model", [], [1], {})
_CATALOG = _kubectl_get_with_secrets() + list(
    yaml.safe_load_all((FIXTURES / "select_accelerators.yaml").read_text())
)
_CATALOG_PLACES = _dropped_places(_CATALOG)
# Where a value is dropped or kept by what it is: a storage URI other than a PVC's (it may carry
# a credential), and kubectl's copy of the whole manifest.
_STORAGE_URI = next(place for place in _CATALOG_PLACES if place[1][-1] == "storageUri")
_LAST_APPLIED = next(place for place in _CATALOG_PLACES if place[1][-1] == LAST_APPLIED)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_CATALOG_PLACES), st.sampled_from(JUNK))
@example(_STORAGE_URI, 5)
@example(_STORAGE_URI, ["s3://bucket/model?secret=1"])
@example(_LAST_APPLIED, 5)
def test_an_object_refused_whole_is_refused_in_its_stored_form(fuzz_client, place, value):
    index, path = place
    whole, stored = _with_junk([_CATALOG[index]], (0, path), value)  # objects are read alone
    answers = []
    for cluster, body in (("junk-whole", whole), ("junk-stored", stored)):
        fuzz_client.put(f"/v1/clusters/{cluster}", json={})
        written = fuzz_client.put(f"/v1/clusters/{cluster}/objects", data=body, headers=JSON)
        answer = written.get_json()
        for key in ("cluster", "generation"):
            answer.pop(key, None)
        objects = fuzz_client.get(f"/v1/clusters/{cluster}/objects").get_json()
        answers.append((written.status_code, answer, objects))
    assert answers[1] == answers[0]


_SEED_OBJECTS = [
    manifest.body for manifest in _manifests(list(yaml.safe_load_all(SEED.read_text())))
]
_SEED_PLACES = _dropped_places(_SEED_OBJECTS)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_SEED_PLACES), st.sampled_from(JUNK))
def test_a_question_is_answered_alike_whatever_the_stored_form_drops(fuzz_client, place, value):
    whole, stored = _with_junk(_SEED_OBJECTS, place, value)
    headers = {**JSON, "Accept": "text/plain"}
    expected = fuzz_client.post("/v1/rank", data=whole, headers=headers)
    answer = fuzz_client.post("/v1/rank", data=stored, headers=headers)
    assert (answer.status_code, answer.data) == (expected.status_code, expected.data)


# --- through a real service: what leaves the machine -------------------------------------------


@pytest.fixture
def with_secrets(tmp_path: Path) -> Path:
    """The recorded `kubectl get` output, secrets in every object, as a file."""
    path = tmp_path / "objects.yaml"
    path.write_bytes(dump())
    return path


def _sent(proxy: Proxy) -> bytes:
    return b"".join(request.body for request in proxy.forwarded)


def test_push_sends_no_secret_and_stores_what_the_whole_manifests_store(service, with_secrets):
    with Proxy(service.port).running() as proxy:
        pushed = invoke(
            "push", "pushed", "-f", str(with_secrets), "--create", "--server", proxy.url
        )
    assert pushed.exit_code == 0, pushed.stderr
    (put,) = [r for r in proxy.forwarded if r.method == "PUT" and r.path.endswith("/objects")]
    assert b"llama-3-2-3b-instruct" in put.body
    assert MARKER.encode() not in _sent(proxy)
    whole = json.dumps(yaml.safe_load(with_secrets.read_bytes())).encode()
    assert service.request("PUT", "/v1/clusters/whole", b"{}", JSON)[0] == 201
    assert service.request("PUT", "/v1/clusters/whole/objects", whole, JSON)[0] == 200
    for route in (
        "/objects",
        "/selections",
        f"/select?model={SEED_MODEL}&namespace=llama-demo",
        "/rank?inferenceService=llama-demo/llama-pinned",
    ):
        stored_answer = service.request("GET", f"/v1/clusters/pushed{route}")
        whole_answer = service.request("GET", f"/v1/clusters/whole{route}")
        assert stored_answer[0] == whole_answer[0] == 200, route
        assert stored_answer[2] == whole_answer[2].replace(b'"whole"', b'"pushed"'), route


def test_questions_send_no_secret_and_lint_sends_the_manifests_whole(
    service, with_secrets, tmp_path
):
    documents = yaml.safe_load(with_secrets.read_bytes())["items"]
    change = write_yaml(tmp_path / "change.yaml", *documents[1:])
    questions = [
        ("select", "-f", str(with_secrets), "--inference-service", "llama-demo/llama-chat"),
        ("rank", "-f", str(with_secrets), "--model", SEED_MODEL, "--namespace", "llama-demo"),
        ("selections", "-f", str(with_secrets)),
        ("impact", "--current", str(with_secrets), "--proposed", str(change)),
    ]
    for question in questions:
        with Proxy(service.port).running() as proxy:
            asked = invoke(*question, "--server", proxy.url)
        assert asked.exit_code in (0, 1), (question, asked.stderr)
        assert proxy.forwarded and proxy.forwarded[0].method == "POST", question
        assert MARKER.encode() not in _sent(proxy), question
        # The answer is the in-process one (whose equal to the whole manifests' is above).
        assert asked.stdout == invoke(*question).stdout, question
    # lint answers what the API server says of every field: the manifests go whole.
    with Proxy(service.port).running() as proxy:
        linted = invoke("lint", "-f", str(with_secrets), "--server", proxy.url)
    assert linted.stdout == invoke("lint", "-f", str(with_secrets)).stdout
    assert MARKER.encode() in _sent(proxy)


def test_the_files_as_read_are_sent_in_order_with_their_kinds():
    """Objects of other kinds keep what the service reports of them (kind, name, namespace),
    and the order that names them in errors (``document 2``)."""
    read = parse(
        b"apiVersion: v1\nkind: Namespace\nmetadata: {name: demo, uid: '1'}\nspec: {a: b}\n---\n"
        + SEED.read_bytes(),
        "objects.yaml",
    )
    sent = json.loads(Sent(read).body())
    assert sent[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
    assert [item["kind"] for item in sent] == [manifest.kind for manifest in read]
