"""The ranking key sorts the runtimes (app/cache/keys.py), so one cached answer serves every order
of the same runtimes. That is only sound if no answer depends on their order: every endpoint and
representation, computed without the cache, must come out byte for byte the same. The key is
canonical JSON, so the same holds of the key order within every map of the request."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.builders import reordered_keys
from tests.selection.builders import requests

ACCELERATORS = Path(__file__).resolve().parents[1] / "fixtures" / "select_accelerators.yaml"
ANSWERS = [
    ("/v1/rank", "application/json"),
    ("/v1/rank", "text/plain"),
    ("/v1/rank", "application/yaml"),
    ("/v1/select", "application/json"),
]


# One app for every example is what we want: it never caches (no-cache, and no entries).
@settings(
    max_examples=3 * settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(requests(), st.randoms(use_true_random=False), st.sampled_from(ANSWERS))
def test_shuffled_runtimes_give_the_same_bytes(make_app, body, random, answer):
    client = make_app(CACHE_LOCAL_ENTRIES=0).test_client()
    path, accept = answer
    shuffled = copy.deepcopy(body)
    random.shuffle(shuffled["runtimes"])
    headers = {"Accept": accept, "Cache-Control": "no-cache"}
    first = client.post(path, json=body, headers=headers)
    second = client.post(path, json=shuffled, headers=headers)
    assert first.status_code == second.status_code
    assert first.get_data() == second.get_data()


def _accelerated() -> dict:
    """The *Select accelerators* request (tests/fixtures), each map it echoes given several keys:
    the entry's ``acceleratorConfig`` for the class picked (nested), the class's node selector
    and resources."""
    documents = list(yaml.safe_load_all(ACCELERATORS.read_text(encoding="utf-8")))
    model, runtime, h100, h200, isvc = documents
    runtime["spec"]["supportedModelFormats"][0]["acceleratorConfig"] = {
        "nvidia-h100": {
            "tensorParallelismOverride": {"tensorParallelSize": 4, "pipelineParallelSize": 2},
            "runtimeArgsOverride": ["--mem-frac=0.85"],
            "environmentOverride": {"ZED": "1", "ALPHA": "2", "MID": "3"},
        },
        "nvidia-h200": {"runtimeArgsOverride": ["--x"]},
    }
    for accelerator in (h100, h200):
        accelerator["spec"]["discovery"]["nodeSelector"].update(
            {"zone": "b", "accelerator": "gpu", "node.kubernetes.io/pool": "a"}
        )
        accelerator["spec"]["resources"] += [
            {"name": "memory", "quantity": "80Gi"},
            {"name": "cpu", "quantity": "8"},
        ]
    return {
        "model": model,
        "runtimes": [runtime],
        "acceleratorClasses": [h100, h200],
        "inferenceService": isvc,
    }


@settings(
    max_examples=settings.default.max_examples // 2,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.randoms(use_true_random=False), st.sampled_from(ANSWERS))
def test_key_order_within_maps_gives_the_same_bytes_cached_or_not(make_app, random, answer):
    """rules §16: the maps an answer echoes are written with sorted keys, so the answer cached
    for one key order is the answer of every other."""
    client = make_app().test_client()
    path, accept = answer
    # As written: the test client's json= would send every key sorted.
    body = json.dumps(_accelerated())
    reordered = json.dumps(
        reordered_keys(_accelerated(), lambda keys: random.sample(keys, len(keys)))
    )
    headers = {"Accept": accept, "Content-Type": "application/json"}
    first = client.post(path, data=body, headers=headers)
    hit = client.post(path, data=reordered, headers=headers)
    computed = client.post(path, data=reordered, headers={**headers, "Cache-Control": "no-cache"})
    assert (first.status_code, hit.headers["X-Cache"]) == (200, "hit")
    assert first.get_data() == hit.get_data() == computed.get_data()
