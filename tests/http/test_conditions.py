"""Conditional requests on stored catalogs (rules §17, RFC 9110 §13.1.1-§13.1.2), on both
stores: ``If-Match`` compares strongly, a list matches when any of its tags does, ``*`` matches
only a cluster that exists; ``If-None-Match`` compares weakly."""

from __future__ import annotations

import pytest
import yaml

from app.http.conditions import (
    EntityTag,
    MalformedTags,
    entity_tags,
    none_match,
    write_precondition,
)
from app.store import Precondition
from tests.builders import runtime_doc
from tests.servers import SEED_YAML

YAML = {"Content-Type": "application/yaml"}


@pytest.fixture
def client(make_app, backend_settings):
    return make_app(**backend_settings).test_client()


@pytest.fixture
def prod(client):
    """A cluster at generation 2."""
    assert client.put("/v1/clusters/prod").status_code == 201
    assert client.put("/v1/clusters/prod/objects", data=SEED_YAML, headers=YAML).status_code == 200
    return client


def _writes() -> dict[str, tuple]:
    """Every write that honours If-Match, each changing something at generation 2."""
    extra = yaml.safe_dump(runtime_doc("extra")).encode()
    return {
        "put settings": ("put", "/v1/clusters/prod", {"json": {"description": "x"}}),
        "put objects": ("put", "/v1/clusters/prod/objects", {"data": extra}),
        "post objects": ("post", "/v1/clusters/prod/objects", {"data": extra}),
        "delete object": (
            "delete",
            "/v1/clusters/prod/objects/ClusterServingRuntime/vllm-llama",
            {},
        ),
        "delete cluster": ("delete", "/v1/clusters/prod", {}),
    }


WRITES = ("put settings", "put objects", "post objects", "delete object", "delete cluster")


def _write(client, name: str, if_match: str):
    method, url, options = _writes()[name]
    return getattr(client, method)(url, headers={**YAML, "If-Match": if_match}, **options)


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize(
    "if_match",
    ['W/"2"', '"1", "3"', '"02"', '"2-x"', "", ' , W/"2" ,'],
    ids=["weak", "others", "leading zero", "foreign", "empty", "weak in a list"],
)
def test_if_match_that_names_no_current_strong_tag_fails(prod, name, if_match):
    """A weak tag never matches If-Match (strong comparison), whatever it names."""
    refused = _write(prod, name, if_match)
    assert refused.status_code == 412, refused.get_data()
    error = refused.get_json()["error"]
    assert (error["code"], error["generation"]) == ("PreconditionFailed", 2)
    assert prod.get("/v1/clusters/prod").get_json()["generation"] == 2


@pytest.mark.parametrize("name", WRITES)
@pytest.mark.parametrize(
    "if_match",
    ['"1", "2"', '"9",W/"2","2"', "*", '"a,b", "2"', '"2-gzip", "7"'],
    ids=["list", "weak and strong", "any", "comma in a tag", "gzip tag"],
)
def test_if_match_that_names_the_current_tag_among_others_holds(prod, name, if_match):
    written = _write(prod, name, if_match)
    assert written.status_code in (200, 204), written.get_data()
    cluster = prod.get("/v1/clusters/prod")
    if name == "delete cluster":
        assert cluster.status_code == 404
    else:
        assert cluster.get_json()["generation"] == 3


def test_if_match_any_never_creates_a_cluster(client):
    """RFC 9110 §13.1.1: ``*`` matches a current representation only."""
    refused = client.put("/v1/clusters/new", json={}, headers={"If-Match": "*"})
    assert refused.status_code == 412
    assert refused.get_json()["error"]["message"].endswith("(there is no such cluster)")
    assert client.get("/v1/clusters/new").status_code == 404
    # Without the condition these answer 404, so the condition is not evaluated (§13.2.2).
    assert client.delete("/v1/clusters/new", headers={"If-Match": "*"}).status_code == 404
    objects = client.post(
        "/v1/clusters/new/objects", data=SEED_YAML, headers={**YAML, "If-Match": "*"}
    )
    assert objects.get_json()["error"]["code"] == "ClusterNotFound"
    assert client.put("/v1/clusters/new", json={}).status_code == 201


@pytest.mark.parametrize("if_match", ["2", '"2', "W/2", '*, "2"', '"2" "3"', 'W/ "2"'])
def test_an_if_match_that_is_no_condition_is_refused(prod, if_match):
    refused = prod.put("/v1/clusters/prod", json={}, headers={"If-Match": if_match})
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert error["code"] == "MalformedRequest"
    assert error["message"].startswith("If-Match must be * or a list of entity tags")
    assert prod.get("/v1/clusters/prod").get_json()["generation"] == 2


@pytest.mark.parametrize(
    "if_none_match",
    ['"2"', 'W/"2"', '"1", W/"2"', "*", '"x,y" , "2"', '"2-gzip"'],
    ids=["strong", "weak", "weak in a list", "any", "comma in a tag", "gzip tag"],
)
@pytest.mark.parametrize("path", ["/v1/clusters/prod", "/v1/clusters/prod/objects"])
def test_if_none_match_compares_weakly(prod, path, if_none_match):
    response = prod.get(path, headers={"If-None-Match": if_none_match})
    assert response.status_code == 304
    # A 304 names the representation the request named (app/http/compression.py).
    assert response.headers["ETag"] == ('"2-gzip"' if "gzip" in if_none_match else '"2"')


@pytest.mark.parametrize("if_none_match", ['"1"', 'W/"1", "3"', "2", '"2'])
def test_if_none_match_naming_nothing_current_is_answered(prod, if_none_match):
    response = prod.get("/v1/clusters/prod", headers={"If-None-Match": if_none_match})
    assert (response.status_code, response.get_json()["generation"]) == (200, 2)


SEED_MODEL = "llama-3-2-3b-instruct"
BY_NAME = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"
CURRENT = ['"2"', "*", 'W/"2"', '"2-gzip"']


@pytest.mark.parametrize("if_none_match", CURRENT)
@pytest.mark.parametrize(
    "url, status, code",
    [
        ("/v1/clusters/prod/select?model=doesnotexist", 404, "ModelNotFound"),
        ("/v1/clusters/prod/rank?model=doesnotexist", 404, "ModelNotFound"),
        ("/v1/clusters/prod/select", 400, "MalformedRequest"),
        (
            "/v1/clusters/prod/rank?inferenceService=llama-demo/nope",
            404,
            "InferenceServiceNotFound",
        ),
        (BY_NAME + "&acceleratorClassesKnown=yes", 422, "InvalidDocument"),
        ("/v1/clusters/prod/selections?acceleratorClassesKnown=yes", 422, "InvalidDocument"),
    ],
    ids=[
        "select unknown model",
        "rank unknown model",
        "no model",
        "unknown isvc",
        "bad flag",
        "selections bad flag",
    ],
)
def test_an_invalid_read_is_answered_whatever_it_names(prod, url, status, code, if_none_match):
    """RFC 9110 §13.2.1: conditions are evaluated once the request is known to be valid."""
    for _ in range(2):  # computed, then whatever the cache holds
        answer = prod.get(url, headers={"If-None-Match": if_none_match})
        assert answer.status_code == status, answer.get_data()
        assert answer.get_json()["error"]["code"] == code


def test_a_select_that_finds_no_runtime_is_its_422_whatever_it_names(prod):
    """An answer that is not a 2xx is sent as it is: a 304 would tell the client that the copy
    it holds (of a 200) is still the answer."""
    gone = prod.delete("/v1/clusters/prod/objects/ServingRuntime/team-llama?namespace=llama-demo")
    assert gone.status_code == 200
    for name in ("vllm-llama", "srt-llama-small", "srt-llama-large"):
        gone = prod.delete(f"/v1/clusters/prod/objects/ClusterServingRuntime/{name}")
        assert gone.status_code == 200
    for _ in range(2):  # computed, then cached (an OME refusal is an answer, rules §16)
        answer = prod.get(BY_NAME, headers={"If-None-Match": "*"})
        assert answer.status_code == 422, answer.get_data()
        assert answer.get_json()["error"]["code"] == "NoRuntimeFound"


@pytest.mark.parametrize("if_none_match", CURRENT)
def test_a_valid_read_naming_the_generation_is_304(prod, if_none_match):
    for _ in range(2):
        answer = prod.get(BY_NAME, headers={"If-None-Match": if_none_match})
        assert answer.status_code == 304
        assert answer.get_data() == b""


OVERLAY_BODY = yaml.safe_dump(runtime_doc("extra")).encode()


@pytest.mark.parametrize("endpoint", ["rank", "select"])
@pytest.mark.parametrize("if_none_match", CURRENT)
def test_a_post_naming_the_generation_is_412_after_its_body_is_read(prod, endpoint, if_none_match):
    """RFC 9110 §13.1.2: for a method other than GET or HEAD a condition that holds is 412,
    never 304; the body is read and validated first."""
    url = f"/v1/clusters/prod/{endpoint}?model={SEED_MODEL}&namespace=llama-demo"
    headers = {**YAML, "If-None-Match": if_none_match}
    malformed = prod.post(url, data=b"kind: [", headers=headers)
    assert malformed.status_code == 400
    assert malformed.get_json()["error"]["code"] == "MalformedRequest"
    unknown = prod.post(url.replace(SEED_MODEL, "nope"), data=OVERLAY_BODY, headers=headers)
    assert unknown.status_code == 404
    for _ in range(2):
        refused = prod.post(url, data=OVERLAY_BODY, headers=headers)
        assert refused.status_code == 412, refused.get_data()
        error = refused.get_json()["error"]
        assert (error["code"], error["generation"]) == ("PreconditionFailed", 2)
    answered = prod.post(url, data=OVERLAY_BODY, headers={**YAML, "If-None-Match": '"1"'})
    assert answered.status_code == 200


# --- the header values themselves (app/http/conditions.py) ---------------------------------------


@pytest.mark.parametrize(
    ("value", "tags"),
    [
        ('"7"', (EntityTag("7", weak=False),)),
        ('W/"7"', (EntityTag("7", weak=True),)),
        (
            ' "1" ,W/"2",, "a,b"\t',
            (EntityTag("1", False), EntityTag("2", True), EntityTag("a,b", False)),
        ),
        ('""', (EntityTag("", False),)),
        (",", ()),  # empty list elements are skipped
    ],
)
def test_a_conditions_entity_tags(value, tags):
    assert entity_tags(value) == tags


@pytest.mark.parametrize("value", ["*", " * ", "\t*"])
def test_a_star_is_no_list(value):
    assert entity_tags(value) is None


@pytest.mark.parametrize("value", ["7", '"7', 'w/"7"', '"a"b"', '"7" "8"', '"\x7f"'])
def test_what_is_not_an_entity_tag_is_malformed(value):
    with pytest.raises(MalformedTags):
        entity_tags(value)


@pytest.mark.parametrize(
    ("if_match", "generations"),
    [
        ('"7"', {7}),
        ('"7", "8", W/"9"', {7, 8}),  # If-Match compares strongly: a weak tag never matches
        ('"07", "x", "-1", "99999999999999999999999"', set()),  # none names a generation
    ],
)
def test_what_an_if_match_asks_of_a_write(if_match, generations):
    assert write_precondition(if_match) == Precondition(frozenset(generations))


def test_if_match_star_asks_for_a_cluster_that_exists():
    assert write_precondition("*") is Precondition.EXISTS


@pytest.mark.parametrize(
    ("if_none_match", "named"),
    [
        ('"7"', True),
        ('W/"7"', True),  # If-None-Match compares weakly
        ('"6", W/"7"', True),
        ("*", True),
        ('"8"', False),
        ("not a tag", False),  # no condition: the read is answered
    ],
)
def test_whether_an_if_none_match_names_the_tag(if_none_match, named):
    assert none_match(if_none_match, '"7"') is named
