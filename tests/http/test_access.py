"""Tokens and the store's errors (app/http/access.py): one ``ClusterNotFound``, the API's, and
one decision of what a token may do, in the order the views refuse."""

from __future__ import annotations

import pytest

from app import errors
from app.auth import AccessControl
from app.http import access
from app.http.record import RequestRecord
from app.store import ClusterNotFound as StoreClusterNotFound
from tests.http.builders import ADMIN, READER, SEED_YAML, YAML, seeded_app, token_control


def test_a_cluster_read_that_finds_none_raises_the_api_s_error(make_app):
    app = make_app()
    with app.test_request_context():
        with pytest.raises(errors.ClusterNotFound) as raised:
            access.info_or_404("nowhere")
        assert not isinstance(raised.value, StoreClusterNotFound)
        assert raised.value.message == "cluster nowhere not found"
        with pytest.raises(errors.ClusterNotFound):
            access.documents_or_404("nowhere")


def test_the_store_s_error_is_translated_once_into_the_api_s(make_app):
    @access.store_errors
    def write(cluster: str) -> None:
        raise StoreClusterNotFound(cluster)

    with make_app().test_request_context(), pytest.raises(errors.ClusterNotFound) as raised:
        write(cluster="gone")
    assert raised.value.message == "cluster gone not found"


WRITES_TO_NO_CLUSTER = {
    "objects": ("post", "/v1/clusters/staging/objects", SEED_YAML),
    "delete object": ("delete", "/v1/clusters/staging/objects/BaseModel/m", None),
    "delete cluster": ("delete", "/v1/clusters/staging", None),
}


@pytest.mark.parametrize("write", WRITES_TO_NO_CLUSTER)
def test_a_write_to_no_cluster_answers_the_one_404(make_app, tmp_path, write):
    method, url, body = WRITES_TO_NO_CLUSTER[write]
    client = seeded_app(make_app, tmp_path).test_client()
    answer = client.open(url, method=method, data=body, headers={**ADMIN, **YAML})
    assert answer.status_code == 404
    assert answer.get_json()["error"] == {
        "code": "ClusterNotFound",
        "message": "cluster staging not found",
    }


TOKENS = token_control({"name": "reader", "secret": "reader-secret", "read": ["prod"]})
BEARER = READER["Authorization"]
# (the tokens, Authorization, cluster, action): the token decided, the refusal's class, message
DECISIONS = {
    "may read": (TOKENS, BEARER, "prod", "read", "reader", None, None),
    "not a cluster name": (TOKENS, BEARER, "Prod_1", "read", None, errors.MalformedRequest, None),
    "no token sent": (
        TOKENS,
        None,
        "prod",
        "read",
        None,
        errors.Unauthorized,
        "no token was sent: send Authorization: Bearer <token>",
    ),
    "another scheme": (
        TOKENS,
        "Basic cmVhZGVyOnJlYWRlci1zZWNyZXQ=",
        "prod",
        "read",
        None,
        errors.Unauthorized,
        "no token was sent: send Authorization: Bearer <token>",
    ),
    "unknown token": (
        TOKENS,
        "Bearer nope",
        "prod",
        "read",
        None,
        errors.Unauthorized,
        "the token is not one this service knows",
    ),
    "no token in force": (
        AccessControl(refusal="no tokens here"),
        BEARER,
        "prod",
        "read",
        None,
        errors.Unauthorized,
        "no tokens here",
    ),
    "may not write": (
        TOKENS,
        BEARER,
        "prod",
        "write",
        "reader",
        errors.Forbidden,
        "token reader may not write cluster prod",
    ),
    "another cluster": (
        TOKENS,
        BEARER,
        "staging",
        "read",
        "reader",
        errors.Forbidden,
        "token reader may not read cluster staging",
    ),
}


@pytest.mark.parametrize("case", DECISIONS)
def test_a_decision_names_the_token_and_the_first_refusal(case):
    tokens, authorization, cluster, action, name, refusal, message = DECISIONS[case]
    decision = access.decide(tokens, authorization, cluster, action)
    assert (decision.token and decision.token.name) == name
    seen = RequestRecord()
    if refusal is None:
        assert decision.refusal is None
        assert decision.granted(seen) is decision.token
    else:
        assert type(decision.refusal) is refusal
        if message is not None:
            assert decision.refusal.message == message
        with pytest.raises(refusal):
            decision.granted(seen)
    assert seen.token_name == name  # noted for the log line, refused or not
