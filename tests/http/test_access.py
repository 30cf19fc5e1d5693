"""Tokens and the store's errors (app/http/access.py): one ``ClusterNotFound``, the API's."""

from __future__ import annotations

import pytest

from app import errors
from app.http import access
from app.store import ClusterNotFound as StoreClusterNotFound
from tests.http.builders import ADMIN, SEED_YAML, YAML, seeded_app


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
