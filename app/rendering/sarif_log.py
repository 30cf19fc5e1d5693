"""A command's results as a SARIF 2.1.0 log, the format GitHub code scanning (and others)
reads: one rule per code, with its help and the URL of its documentation; each result at its
field's line and column, with a fingerprint that stays the same across runs, and suppressed ones
carried with their ``suppressions``, so that code scanning shows them as dismissed."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .check_results import CheckReport, CheckResult, SourcePlace
from .finding_codes import help_of

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION = "2.1.0"
TOOL_NAME = "ome-ranker"
FINGERPRINT = "omeRankerFinding/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(file: str) -> str:
    """A file as a SARIF artifact URI: a relative path as it is (code scanning resolves it
    against the repository's root), an absolute one as a ``file://`` URI."""
    path = file.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if path.startswith("/"):
        return "file://" + quote(path)
    return quote(path)


def _location(place: SourcePlace) -> dict[str, Any] | None:
    if place.file is None:
        return None
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(place.file)}}
    if place.line is not None:
        region: dict[str, Any] = {"startLine": place.line}
        if place.column is not None:
            region["startColumn"] = place.column
        physical["region"] = region
    return {"physicalLocation": physical}


def _result(result: CheckResult, rule_index: int) -> dict[str, Any]:
    body: dict[str, Any] = {
        "ruleId": result.code,
        "ruleIndex": rule_index,
        "level": LEVELS[result.severity],
        "message": {"text": f"{result.subject.title}: {result.message}"},
    }
    location = _location(result.place)
    if location is not None:
        body["locations"] = [location]
    body["partialFingerprints"] = {FINGERPRINT: result.fingerprint()}
    if result.suppression is not None:
        suppression: dict[str, Any] = {"kind": result.suppression}
        if result.justification:
            suppression["justification"] = result.justification
        body["suppressions"] = [suppression]
    body["properties"] = {
        "severity": result.severity,
        "object": result.subject.title,
        "field": result.field,
    }
    return body


def _rule(code: str, level: str, docs_url: str | None) -> dict[str, Any]:
    found = help_of(code)
    text = f"{found.summary} See docs/{found.page}#{found.anchor}."
    rule: dict[str, Any] = {
        "id": code,
        "name": code,
        "shortDescription": {"text": found.summary},
        "help": {
            "text": text,
            "markdown": f"{found.summary} See `docs/{found.page}#{found.anchor}`.",
        },
        "defaultConfiguration": {"level": level},
    }
    uri = found.uri(docs_url)
    if uri is not None:
        rule["helpUri"] = uri
    return rule


def sarif_log(report: CheckReport, version: str, docs_url: str | None = None) -> dict[str, Any]:
    """The log of one run. ``docs_url``: where docs/ is published, for the rules' ``helpUri``."""
    results = report.visible()
    rules: dict[str, int] = {}
    levels: dict[str, str] = {}
    for result in results:
        rules.setdefault(result.code, len(rules))
        levels.setdefault(result.code, LEVELS[result.severity])
    driver: dict[str, Any] = {
        "name": TOOL_NAME,
        "version": version,
        "semanticVersion": version,
        "rules": [_rule(code, levels[code], docs_url) for code in rules],
    }
    run = {
        "tool": {"driver": driver},
        "automationDetails": {"id": f"{TOOL_NAME}/{report.command}/"},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True}],
        "results": [_result(result, rules[result.code]) for result in results],
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
