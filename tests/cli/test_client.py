"""``app/cli/client.py``: where an object the answer names starts, found in one pass over the
files' objects however many findings name them."""

from __future__ import annotations

from app.cli.client import Sent
from app.cli.sources import Manifest
from tests.builders import runtime_doc, serving_runtime


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
