"""OME's own Go tests of its admission webhooks, transcribed as data (``ome_cases/``, each case
naming the Go test it comes from), run through ``POST /v1/lint`` (rules §18 "Parity").

Each case is an object applied to a cluster holding ``cluster``. What is compared is what OME's
webhook answers for that object: whether it is refused, and the refusal's text (exact where the
Go test or its format string pins it, else the substring the Go test checks). The webhook's
refusal is the object's error, or, when the API server refuses the object first (Go tests build
objects the CRD would refuse, such as entries without ``modelFramework``), the ``AlsoRefused``
info that follows that error. Cases that manifests cannot decide (``set_aside`` in the data) and
the differences listed in ``DIFFERENCES`` (with why) are not run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests import yaml_data

CASES = Path(__file__).parent / "ome_cases"
SCHEMA_CODES = {"UnknownField", "Required", "Unsupported", "Invalid"}

MODEL_OR_RUNTIME = "at least one of spec.model or spec.runtime must be set"
NOT_MODELLED = "lint does not model this rule of OME's webhook (see docs/lint.md)"
# Case id -> why lint answers differently from the Go test (see docs/lint.md).
DIFFERENCES: dict[str, str] = {
    "inference_service_validation_test[107] sanitized env-var collision rejected": (
        "a model named foo_bar cannot exist (not an RFC 1123 name), so the webhook refuses the "
        "overlay as not found first"
    ),
    **{
        f"inference_service_validation_test[{index}] {name}": NOT_MODELLED
        for index, name in (
            (125, "garbage JSON on create is denied"),
            (126, "unknown schemaVersion on create is denied"),
            (127, "component the ISVC lacks on create is denied"),
            (128, "negative instance on create is denied"),
        )
    },
    **{
        f"inference_service_validation_readypolicy_test[{index}] {name}": NOT_MODELLED
        for index, name in (
            (0, "multi-pod engine with None, top-level OMENative annotation - rejected"),
            (1, "multi-pod engine with None, no annotation (shape heuristic) - rejected"),
            (2, "multi-pod engine with None, spec.deploymentMode OMENative - rejected"),
            (7, "multi-pod decoder with None, per-component OMENative annotations - rejected"),
        )
    },
}


def _load() -> list:
    found = []
    for path in sorted(CASES.glob("*.yaml")):
        for index, case in enumerate(yaml_data.load(path.read_text()) or []):
            case_id = f"{path.stem}[{index}] {case['name']}"
            marks = []
            if case.get("set_aside"):
                marks.append(pytest.mark.skip(reason=f"set aside: {case['set_aside']}"))
            elif case.get("operation") == "update":
                marks.append(pytest.mark.skip(reason="an update: lint applies creates"))
            elif not case["object"].get("metadata", {}).get("name"):
                marks.append(pytest.mark.skip(reason="the Go test's object has no name"))
            elif case_id in DIFFERENCES:
                marks.append(pytest.mark.skip(reason=DIFFERENCES[case_id]))
            found.append(pytest.param(case, id=case_id, marks=marks))
    return found


def webhook_answer(findings: list[dict], obj: dict) -> tuple[list[str], list[str]]:
    """(refusals, warnings) of OME's webhook for ``obj``, from lint's findings."""
    kind, name = obj["kind"], obj["metadata"].get("name", "")
    mine = [f for f in findings if f["kind"] == kind and f["name"] == name]
    refusals = []
    for finding in mine:
        if finding["severity"] == "error" and finding["code"] not in SCHEMA_CODES:
            refusals.append(finding["message"])
        elif finding["code"] == "AlsoRefused":
            text = finding["message"].removeprefix("then: ")
            if not text.startswith((f"The {kind} ", f"{kind} in version ")):
                refusals.append(text)
    warnings = [f["message"] for f in mine if f["severity"] == "warning"]
    return refusals, warnings


def expected(case: dict) -> dict:
    """What the whole webhook answers. A Go test of one of its checks pins that check's answer;
    where the whole webhook answers otherwise the data says so (``webhook_expect``), or, for an
    object with neither a model nor a runtime that the check admits, OME's next check refuses
    it."""
    if not str(case.get("scope", "webhook")).startswith("unit:"):
        return case["expect"]
    if case.get("webhook_expect"):
        return case["webhook_expect"]
    spec = case["object"].get("spec") or {}
    named = (spec.get("model") or {}).get("name") or (spec.get("runtime") or {}).get("name")
    isvc = case["object"]["kind"] == "InferenceService"
    if isvc and case["expect"].get("admitted") and not named:
        return {"admitted": False, "error": MODEL_OR_RUNTIME}
    return case["expect"]


@pytest.mark.parametrize("case", _load())
def test_lint_answers_as_omes_webhook(client, case):
    body = yaml.safe_dump_all([*case.get("cluster", []), case["object"]]).encode()
    response = client.post("/v1/lint", data=body, headers={"Content-Type": "application/yaml"})
    assert response.status_code == 200, response.get_data(as_text=True)
    refusals, warnings = webhook_answer(response.get_json()["findings"], case["object"])
    want = expected(case)
    if "admitted" not in want:
        pass  # a test of warnings only
    elif want["admitted"]:
        assert refusals == []
    else:
        assert refusals, "OME refuses it"
        first = refusals[0]
        if "error" in want:
            assert first == want["error"]
        elif "error_derived" in want:
            assert first == want["error_derived"]
        else:
            assert want["error_contains"] in first
    if "warnings" in want:
        assert warnings == want["warnings"]
    if "warnings_count" in want:
        assert len(warnings) == want["warnings_count"]
    for text in want.get("warnings_derived") or ():
        assert text in warnings
    for text in want.get("warnings_contains") or ():
        assert any(text in warning for warning in warnings)
