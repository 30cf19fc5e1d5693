"""Every InferenceService's outcome as rows (app/rendering/selections_body.py, rules §17
``selections``): the JSON row, the explain table's layout with ``-`` for none, and the objects of
a stream that no rule reads."""

from __future__ import annotations

from app.rendering.answers import ignored_body
from app.rendering.selections_body import (
    message_bytes,
    selection_body,
    selections_body,
    selections_table,
)
from app.selection.values import OtherObject
from tests.rendering.builders import CLUSTER, outcomes

CHAT = "Runtime a will be auto-selected for model llama"
LOST = "No BaseModel or ClusterBaseModel with the name: ghost"


def test_a_row_with_a_runtime_and_one_without():
    chat, lost = outcomes(*CLUSTER)
    assert selection_body(chat) == {
        "namespace": "demo",
        "name": "chat",
        "model": "llama",
        "runtime": {"name": "a", "scope": "Cluster", "explicit": False},
        "message": CHAT,
        "error": None,
        "engineAcceleratorClass": None,
        "decoderAcceleratorClass": None,
    }
    assert (selection_body(lost)["runtime"], selection_body(lost)["error"]) == (
        None,
        "ModelNotFound",
    )


def test_the_body_counts_its_rows_after_what_the_view_adds():
    rows = outcomes(*CLUSTER)
    body = selections_body(rows, {"cluster": "prod"})
    assert list(body) == ["cluster", "count", "selections"]
    assert body["count"] == 2


def test_the_table_reads_as_the_explain_table_does():
    assert selections_table(outcomes(*CLUSTER)) == (
        "NAMESPACE   INFERENCESERVICE   MODEL   RUNTIME   SCOPE     MESSAGE\n"
        f"demo        chat               llama   a         Cluster   {CHAT}\n"
        f"demo        lost               ghost   -         -         {LOST}\n"
    )


def test_what_the_messages_weigh():
    assert message_bytes(outcomes(*CLUSTER)) == len(CHAT) + len(LOST)


def test_objects_no_rule_reads_are_listed_in_order_with_why():
    others = [
        OtherObject("Secret", "token", "demo"),
        OtherObject("Namespace", "demo", None),
        OtherObject("ConfigMap", "token", "demo"),
    ]
    assert ignored_body(others) == [
        {
            "kind": "Namespace",
            "name": "demo",
            "namespace": None,
            "reason": "Namespace is not read by runtime selection",
        },
        {
            "kind": "ConfigMap",
            "name": "token",
            "namespace": "demo",
            "reason": "ConfigMap is not read by runtime selection",
        },
        {
            "kind": "Secret",
            "name": "token",
            "namespace": "demo",
            "reason": "Secret is not read by runtime selection",
        },
    ]
