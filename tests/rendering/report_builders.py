"""Reports for the tests of the CI formats: results of each severity, suppressed ones, and a
message and a file name that need escaping."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from app.rendering.check_results import (
    EXTERNAL,
    IN_SOURCE,
    CheckReport,
    CheckResult,
    SourcePlace,
    Subject,
)

TYPO = Subject("ClusterServingRuntime", "typo", SourcePlace("runtimes/typo.yaml", 3))
CHAT = Subject("InferenceService", "demo/chat", SourcePlace("apps/chat.yaml", 1))
CLEAN = Subject("BaseModel", "demo/llama", SourcePlace("apps/chat.yaml", 12))


def result(code: str, severity: str, subject: Subject = TYPO, **extra) -> CheckResult:
    extra.setdefault("place", SourcePlace(subject.place.file, 9, 7))
    return CheckResult(code, severity, f"{code} message", subject, **extra)


def sample_report(fail_on: str = "error", shown: str = "info") -> CheckReport:
    """An error, a warning and an info; one suppressed by a file, one by an annotation; an
    object without findings."""
    return CheckReport(
        "lint",
        [
            result("UnknownField", "error", field="spec.supportedModelFormats[0].autoselect"),
            result("AutoSelected", "warning", CHAT, place=SourcePlace("apps/chat.yaml", 1, 1)),
            result("NoAutoSelect", "info", field="spec.supportedModelFormats"),
            result(
                "Invalid",
                "error",
                CHAT,
                suppression=EXTERNAL,
                justification="ignored by .ome-ranker.yaml:3",
            ),
            result("NoParameterSize", "info", CLEAN, suppression=IN_SOURCE),
        ],
        [TYPO, CHAT, CLEAN],
        fail_on=fail_on,
        shown=shown,
    )


SARIF_SCHEMA = json.loads((Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json").read_text())


def valid_sarif(log: dict) -> dict:
    """The log, after checking it against SARIF 2.1.0's schema (as JSON, as it is written)."""
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(json.loads(json.dumps(log)))
    return log
