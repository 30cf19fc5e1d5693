"""Which InferenceServices a change moves (app/rendering/impact_body.py, rules §19 impact): each
one whose ``/v1/select`` answer changes, its placement included, compared only when both sides
hold it, and the table of the changes."""

from __future__ import annotations

from app.rendering.impact_body import changes, impact_text, message_bytes
from tests.builders import entry, isvc_doc, runtime_doc
from tests.rendering.builders import CLUSTER, outcomes

BETTER = runtime_doc("b", entry(priority=2))


def test_a_change_that_moves_an_inference_service_is_listed_before_and_after():
    compared, found = changes(outcomes(*CLUSTER), outcomes(*CLUSTER, BETTER))
    assert compared == 2
    [moved] = found
    assert (moved["namespace"], moved["name"], moved["model"]) == ("demo", "chat", "llama")
    assert moved["before"]["runtime"]["name"] == "a"
    assert moved["after"]["runtime"]["name"] == "b"
    assert moved["after"]["message"] == "Runtime b will be auto-selected for model llama"
    assert moved["after"]["placement"]["entry"]["index"] == 0
    assert impact_text(found) == (
        "NAMESPACE   INFERENCESERVICE   MODEL   BEFORE   AFTER   MESSAGE\n"
        "demo        chat               llama   a        b       "
        "Runtime b will be auto-selected for model llama\n"
    )
    assert message_bytes(found) > 2 * len("Runtime b will be auto-selected for model llama")


def test_nothing_moves_when_no_answer_changes():
    same = runtime_doc("z", entry(priority=1, format_name="onnx"))  # takes no model
    assert changes(outcomes(*CLUSTER), outcomes(*CLUSTER, same)) == (2, [])
    assert impact_text([]) == "NAMESPACE   INFERENCESERVICE   MODEL   BEFORE   AFTER   MESSAGE\n"


def test_an_inference_service_only_one_side_holds_is_not_compared():
    added = isvc_doc("new", model={"name": "llama"}, engine={})
    compared, found = changes(outcomes(*CLUSTER), outcomes(*CLUSTER, added))
    assert (compared, found) == (2, [])
