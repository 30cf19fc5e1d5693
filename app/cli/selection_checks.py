"""What a CI job checks of one selection: the runtime OME selects (``--expect``, a case's
``runtime``) and the AcceleratorClass each component gets (``--expect-class``, a case's
``engineClass`` and ``decoderClass``), as results of a report (``app/rendering/check_results``)
that every CI format prints."""

from __future__ import annotations

from typing import Any

from app.rendering.check_results import CheckResult, Subject

from .placement_report import pin_problems

NO_RUNTIME, OTHER_RUNTIME = "NoRuntimeSelected", "UnexpectedRuntime"
CLASS_CODES = {"engine": "UnexpectedEngineClass", "decoder": "UnexpectedDecoderClass"}


def error(code: str, message: str, subject: Subject, field: str | None = None) -> CheckResult:
    return CheckResult(code, "error", message, subject, field=field, place=subject.place)


def refused_selection(refusal: dict[str, Any], subject: Subject) -> CheckResult:
    """OME's answer that no runtime serves the question (``NoRuntimeFound`` …), with the
    excluded runtimes' reasons."""
    lines = [f"{refusal.get('code')}: {refusal['message']}"]
    excluded = refusal.get("excluded")
    if isinstance(excluded, dict):
        lines += [f"{name}: {reason}" for name, reason in excluded.items()]
    return error(NO_RUNTIME, "\n".join(lines), subject)


def selection_results(
    answer: dict[str, Any], expected: str | None, pinned: dict[str, str], subject: Subject
) -> list[CheckResult]:
    """The runtime first: another one (or none) is one result, and its classes are not
    checked then, as ``select`` exits 1 before looking at them."""
    selected = answer.get("selected")
    if selected is None:
        return [error(NO_RUNTIME, answer.get("message") or "no runtime selected", subject)]
    if expected is not None and selected["name"] != expected:
        message = f"OME selects {selected['name']}, not {expected}"
        return [error(OTHER_RUNTIME, message, subject)]
    return [
        error(CLASS_CODES[component], problem, subject)
        for component, problem in pin_problems(answer, pinned)
    ]
