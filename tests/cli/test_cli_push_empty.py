"""rules §17 "No silent wipe" from the command line: ``ome-ranker push`` of files that hold no
object the catalog stores refuses, before sending anything, to empty a catalog that holds some
(exit 2) unless ``--allow-empty``, which sends ``?allowEmpty=true``; a catalog filled between
push's read and its write is refused by the service (409) and said the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.support import SEED, invoke
from tests.servers import Proxy, Service

pytestmark = pytest.mark.gunicorn

# What `kubectl get … -A -o yaml` prints for a cluster with none of the kinds.
EMPTY_LIST = 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'


def _url(service: Service) -> str:
    return f"http://127.0.0.1:{service.port}"


def _counts(service: Service, cluster: str) -> int:
    return sum(json.loads(service.request("GET", f"/v1/clusters/{cluster}")[2])["counts"].values())


@pytest.fixture
def empty_file(tmp_path: Path) -> Path:
    path = tmp_path / "objects.yaml"
    path.write_text(EMPTY_LIST)
    return path


@pytest.mark.parametrize("text", [EMPTY_LIST, "---\nnull\n---\n", ""], ids=["List", "nulls", "0"])
def test_push_of_no_object_over_a_full_catalog_sends_nothing(service, tmp_path, text):
    empty = tmp_path / "objects.yaml"
    empty.write_text(text)
    assert (
        invoke("push", "keep", "-f", str(SEED), "--create", "--server", _url(service)).exit_code
        == 0
    )
    stored = _counts(service, "keep")
    with Proxy(service.port).running() as proxy:
        refused = invoke("push", "keep", "-f", str(empty), "--server", proxy.url)
    assert refused.exit_code == 2, refused.stderr
    assert refused.stderr == (
        f"error: the files hold no object to store: not replacing the {stored} objects of "
        "catalog keep with none; add --allow-empty to empty it\n"
    )
    assert [request.method for request in proxy.forwarded] == ["GET"]
    assert _counts(service, "keep") == stored


def test_if_match_does_not_skip_the_check(service, empty_file):
    assert (
        invoke("push", "pinned", "-f", str(SEED), "--create", "--server", _url(service)).exit_code
        == 0
    )
    generation = json.loads(service.request("GET", "/v1/clusters/pinned")[2])["generation"]
    refused = invoke(
        "push", "pinned", "-f", str(empty_file), "--if-match", str(generation),
        "--server", _url(service),
    )  # fmt: skip
    assert refused.exit_code == 2
    assert _counts(service, "pinned") > 0


def test_allow_empty_empties_it_and_an_empty_catalog_takes_nothing(service, empty_file):
    assert (
        invoke("push", "wipe", "-f", str(SEED), "--create", "--server", _url(service)).exit_code
        == 0
    )
    with Proxy(service.port).running() as proxy:
        emptied = invoke(
            "push", "wipe", "-f", str(empty_file), "--allow-empty", "--server", proxy.url
        )
    assert emptied.exit_code == 0, emptied.stderr
    assert emptied.stdout.startswith("cluster wipe: 0 objects stored")
    (put,) = [request for request in proxy.forwarded if request.method == "PUT"]
    assert put.path == "/v1/clusters/wipe/objects?allowEmpty=true"
    assert _counts(service, "wipe") == 0
    again = invoke("push", "wipe", "-f", str(empty_file), "--server", _url(service))
    assert again.exit_code == 0, again.stderr


def test_objects_the_service_does_not_store_are_refused_by_it(service, tmp_path):
    """A kind of ``ome.io`` in a version OME does not serve is sent (the service says why it is
    not read) and stores nothing: the service's 409, said as push says its own refusal."""
    unserved = tmp_path / "unserved.yaml"
    unserved.write_text(
        "apiVersion: ome.io/v1alpha1\nkind: ClusterServingRuntime\nmetadata:\n  name: old\n"
    )
    assert (
        invoke("push", "kept", "-f", str(SEED), "--create", "--server", _url(service)).exit_code
        == 0
    )
    stored = _counts(service, "kept")
    refused = invoke("push", "kept", "-f", str(unserved), "--server", _url(service))
    assert refused.exit_code == 2, refused.stderr
    assert refused.stderr == (
        f"error: the files hold no object to store: not replacing the {stored} objects of "
        "catalog kept with none; add --allow-empty to empty it\n"
    )
    assert _counts(service, "kept") == stored
