"""``app/cli/selection_checks.py`` and the codes ``ome-ranker test`` checks lint's answer with
(``app/cli/case_checks.py``): what a selection gets wrong, as a CI result."""

from __future__ import annotations

import pytest

from app.cli.case_checks import lint_codes
from app.cli.lint_report import NO_KIND, subject_of
from app.cli.output import UNAVAILABLE, Failure
from app.cli.selection_checks import refused_selection, selection_results
from app.rendering.check_results import Subject

SUBJECT = Subject("InferenceService", "demo/chat")
SELECTED = {"selected": {"name": "vllm"}, "placement": {"engine": None}}


def test_the_runtime_is_checked_before_its_classes():
    other = selection_results(SELECTED, "sglang", {"engine": "h100"}, SUBJECT)
    assert [(r.code, r.message) for r in other] == [
        ("UnexpectedRuntime", "OME selects vllm, not sglang")
    ]
    assert selection_results(SELECTED, "vllm", {}, SUBJECT) == []
    assert selection_results(SELECTED, None, {}, SUBJECT) == []


def test_no_runtime_is_a_result_with_omes_message():
    none = selection_results({"selected": None, "message": "no runtime"}, "vllm", {}, SUBJECT)
    assert [(r.code, r.severity, r.message) for r in none] == [
        ("NoRuntimeSelected", "error", "no runtime")
    ]


def test_a_refusal_lists_each_excluded_runtime_and_its_reason():
    refusal = {"code": "NoRuntimeFound", "message": "none", "excluded": {"a": "why a"}}
    result = refused_selection(refusal, SUBJECT)
    assert result.message == "NoRuntimeFound: none\na: why a"


def test_a_pinned_class_without_placement_in_the_answer_is_an_unavailable_service():
    with pytest.raises(Failure) as refused:
        selection_results({"selected": {"name": "vllm"}}, None, {"engine": "h100"}, SUBJECT)
    assert refused.value.exit_code == UNAVAILABLE


def test_the_subject_of_an_object_without_a_kind():
    assert subject_of(None, None, "x").title == f"{NO_KIND} x"
    assert subject_of("BaseModel", "demo", "m").title == "BaseModel demo/m"


def test_lint_codes_are_the_codes_lint_documents():
    codes = lint_codes()
    assert {"AutoSelected", "UnknownField", "DifferentPriorities"} <= codes
    # The codes of the checks themselves are not lint's: a case cannot expect them of lint.
    assert not {"UnexpectedRuntime", "NoRuntimeSelected", "MissingFinding"} & codes
