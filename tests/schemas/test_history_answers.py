"""The history's answer schema (rules §17.1) takes what the route answers and refuses what it
never answers."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from app.schemas.history_answers import HistorySchema

OUTCOME = {
    "runtime": "vllm",
    "scope": "Cluster",
    "engineClass": None,
    "decoderClass": None,
    "outcome": "selected",
}
CHANGE = {
    "seq": 2,
    "generation": 5,
    "at": "2026-12-01T00:00:00.000Z",
    "namespace": "demo",
    "name": "svc",
    "before": None,
    "after": OUTCOME,
    "truncated": None,
}
MARK = {
    **CHANGE,
    "seq": 3,
    "namespace": None,
    "name": None,
    "after": None,
    "truncated": "working out the changes needs 9 runtime checks",
}


def test_a_change_and_a_mark_are_answers():
    body = {"cluster": "c", "generation": 5, "count": 2, "changes": [MARK, CHANGE], "next": None}
    assert HistorySchema().load(body) is not None


@pytest.mark.parametrize(
    "change",
    [
        {**CHANGE, "after": {**OUTCOME, "outcome": "maybe"}},
        {**CHANGE, "after": {**OUTCOME, "scope": "Namespace"}},
        {**CHANGE, "extra": 1},
        {key: value for key, value in CHANGE.items() if key != "truncated"},
    ],
)
def test_what_the_route_never_answers_is_refused(change):
    body = {"cluster": "c", "generation": 5, "count": 1, "changes": [change], "next": 4}
    with pytest.raises(ValidationError):
        HistorySchema().load(body)
