"""Each case of ``ome-ranker test`` against what OME and kubectl answer: its selection (one
``/v1/select`` a case, as ``select`` asks it) and its object's findings (one ``/v1/lint`` for
all the cases, asked the first time a case needs it), as results at its expectations' lines."""

from __future__ import annotations

from typing import Any

from app.rendering.check_results import CheckResult, Subject
from app.rendering.finding_codes import CODE_HELP, LINT_PAGE
from app.schemas.ome_kinds import ISVC_KIND, MODEL_KINDS, RUNTIME_KINDS

from .client import Api, Call, Sent, refusal
from .commands import NOT_SELECTED_CODES
from .expectations import TestCase
from .picking import choose
from .selection_checks import OTHER_RUNTIME, refused_selection, selection_results

ACCELERATOR_CLASS_KIND = "AcceleratorClass"
__all__ = ["ACCELERATOR_CLASS_KIND", "RUNTIME_KINDS", "CaseRun", "lint_codes"]


def lint_codes() -> set[str]:
    return {code for code, found in CODE_HELP.items() if found.page == LINT_PAGE}


class CaseRun:
    def __init__(self, api: Api, sent: Sent, params: list[tuple[str, str]]) -> None:
        self.api, self.sent, self.params = api, sent, params
        self._lint: dict[str, Any] | None = None

    def check(self, case: TestCase, subject: Subject) -> list[CheckResult]:
        question = choose(
            self.sent.manifests,
            model=case.model,
            namespace=case.namespace,
            inference_service=case.inference_service,
        )
        chosen = [m for m in question.manifests if m.kind == ISVC_KIND] or [
            m for m in question.manifests if m.kind in MODEL_KINDS
        ]
        target = chosen[-1]
        results = []
        expect = case.expect
        if expect.checks_runtime or expect.classes:
            results += self._selection(case, subject, Sent(question.manifests))
        if expect.admitted is not None or expect.findings or expect.no_findings:
            results += self._findings(
                case, subject, target.kind or "", target.namespace, target.name
            )
        return results

    def _at(self, case: TestCase, key: str, code: str, message: str, subject: Subject):
        place = case.places.get(key) or case.place
        return CheckResult(code, "error", message, subject, place=place)

    def _selection(self, case: TestCase, subject: Subject, sent: Sent) -> list[CheckResult]:
        params = [*self.params]
        if case.namespace is not None:
            params.append(("namespace", case.namespace))
        call = Call("POST", "/v1/select", params, sent, sent.body())
        reply = self.api.ask(call)
        expect = case.expect
        if reply.status != 200:
            error = reply.error()
            if error.get("code") not in NOT_SELECTED_CODES:
                raise refusal(reply, sent)
            if expect.checks_runtime and expect.runtime is None:
                return []  # none was expected
            found = refused_selection(error, subject)
            return [self._at(case, "runtime", found.code, found.message, subject)]
        answer = reply.json()
        selected = answer.get("selected")
        if expect.checks_runtime and expect.runtime is None and selected is not None:
            message = f"OME selects {selected['name']}, expected none"
            return [self._at(case, "runtime", OTHER_RUNTIME, message, subject)]
        runtime = expect.runtime if expect.checks_runtime else None
        keys = {"UnexpectedEngineClass": "engineClass", "UnexpectedDecoderClass": "decoderClass"}
        return [
            self._at(case, keys.get(r.code, "runtime"), r.code, r.message, subject)
            for r in selection_results(answer, runtime, expect.classes, subject)
        ]

    def lint_answer(self) -> dict[str, Any]:
        if self._lint is None:
            call = Call("POST", "/v1/lint", self.params, self.sent, self.sent.applied_body())
            self._lint = self.api.answer(call)[1]
        return self._lint

    def _findings(
        self, case: TestCase, subject: Subject, kind: str, namespace: str | None, name: str | None
    ) -> list[CheckResult]:
        answer = self.lint_answer()

        def about(finding: dict[str, Any]) -> bool:
            same_namespace = namespace is None or finding["namespace"] in (namespace, None)
            return finding["kind"] == kind and finding["name"] == name and same_namespace

        reported = [f for f in answer["findings"] if about(f)]
        suppressed = [f for f in answer.get("suppressed") or [] if about(f)]
        title = f"{kind} {namespace + '/' if namespace else ''}{name}"
        expect, results = case.expect, []
        errors = [f for f in (*reported, *suppressed) if f["severity"] == "error"]
        if expect.admitted is not None and expect.admitted != (not errors):
            if errors:
                message = f"kubectl apply would refuse {title}: {errors[0]['message']}"
            else:
                message = f"kubectl apply would admit {title}"
            results.append(self._at(case, "admitted", "UnexpectedAdmission", message, subject))
        codes = [f["code"] for f in reported]
        listed = ", ".join(sorted(set(codes))) or "none"
        for index, code in enumerate(expect.findings):
            if code not in codes:
                message = f"lint finds no {code} on {title} (it finds: {listed})"
                key = f"findings[{index}]"
                results.append(self._at(case, key, "MissingFinding", message, subject))
        for index, code in enumerate(expect.no_findings):
            for finding in reported:
                if finding["code"] == code:
                    message = f"lint finds {code} on {title}: {finding['message']}"
                    key = f"noFindings[{index}]"
                    results.append(self._at(case, key, "UnexpectedFinding", message, subject))
        return results
