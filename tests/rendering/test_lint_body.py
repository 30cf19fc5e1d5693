"""What admission would answer as findings and as kubectl prints them
(app/rendering/lint_body.py, rules §18): ``error:`` with the webhook that denies it, or the API
server's own text, ``Warning:`` and ``info:`` lines, then the counts."""

from __future__ import annotations

from app.rendering.lint_body import counts_line, finding_body, lint_text, message_bytes
from app.selection.admission import ERROR, INFO, WARNING, Admission, Finding

REFUSED = Finding(
    ERROR,
    "ServingRuntime",
    "demo",
    "rt",
    "spec.supportedModelFormats",
    "DifferentPriorities",
    "different priorities assigned for the model format vllm under the servingruntime rt",
)
SCHEMA = Finding(
    ERROR, "ClusterBaseModel", None, "llama", "spec.x", "UnknownField", 'unknown field "spec.x"'
)
WARNED = Finding(
    WARNING,
    "InferenceService",
    "demo",
    "svc",
    None,
    "AutoSelected",
    "Runtime rt will be auto-selected for model llama",
)
NOTED = Finding(
    INFO,
    "ClusterServingRuntime",
    None,
    "quiet",
    "spec.supportedModelFormats",
    "NoAutoSelect",
    "never\tauto-selected",
)
UNPLACED = Finding(INFO, "BaseModel", "demo", "llama", None, "Note", "a note")


def test_each_finding_is_one_line_as_kubectl_prints_it_then_the_counts():
    admission = Admission((REFUSED, SCHEMA, WARNED, NOTED, UNPLACED))
    assert lint_text(admission) == (
        'error: ServingRuntime demo/rt: admission webhook "servingruntime.ome-webhook-server.'
        'validator" denied the request: different priorities assigned for the model format vllm '
        "under the servingruntime rt\n"
        'error: unknown field "spec.x"\n'
        "Warning: Runtime rt will be auto-selected for model llama\n"
        "info: ClusterServingRuntime quiet: spec.supportedModelFormats: never\\tauto-selected\n"
        "info: BaseModel demo/llama: a note\n"
        "2 errors, 1 warning, 2 infos\n"
    )


def test_an_answer_without_findings_is_its_counts():
    assert lint_text(Admission(())) == "0 errors, 0 warnings, 0 infos\n"
    assert counts_line({"info": 1}) == "0 errors, 0 warnings, 1 info"


def test_a_findings_body_and_what_the_messages_weigh():
    assert finding_body(WARNED) == {
        "severity": "warning",
        "kind": "InferenceService",
        "namespace": "demo",
        "name": "svc",
        "field": None,
        "code": "AutoSelected",
        "message": "Runtime rt will be auto-selected for model llama",
        "document": None,
        "line": None,
        "column": None,
    }
    placed = finding_body(REFUSED, (2, 12, 7))
    assert (placed["document"], placed["line"], placed["column"]) == (2, 12, 7)
    assert message_bytes(Admission((WARNED, UNPLACED))) == len(WARNED.message) + len("a note")
