"""The ranking key sorts the runtimes (app/cache/keys.py), so one cached answer serves every order
of the same runtimes. That is only sound if no answer depends on their order: every endpoint and
representation, computed without the cache, must come out byte for byte the same."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.selection.builders import requests

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
