"""Findings an object asks not to hear about: its annotation ``ome-ranker.io/ignore``, a list of
codes (``"NoAutoSelect,AutoSelected"``). A choice of this service's lint, not a rule of OME,
whose webhooks ignore the annotation: a suppressed finding is not reported or counted, but an
error among them still refuses the object (``Admission.admitted``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..values import ObjectKey, get
from .findings import Finding

IGNORE_ANNOTATION = "ome-ranker.io/ignore"


def ignored_codes(manifest: Mapping[str, Any] | None) -> frozenset[str]:
    """The codes the manifest's annotation names (comma-separated, blanks around them
    dropped); none when it is absent or not a string."""
    value = get(manifest, "metadata", "annotations", IGNORE_ANNOTATION)
    if not isinstance(value, str):
        return frozenset()
    return frozenset(code.strip() for code in value.split(",") if code.strip())


def split_suppressed(
    findings: list[Finding], manifests: Mapping[ObjectKey, Mapping[str, Any]]
) -> tuple[list[Finding], list[Finding]]:
    """(reported, suppressed): each finding whose object's annotation names its code is
    suppressed, in the findings' order."""
    ignored: dict[ObjectKey, frozenset[str]] = {}
    reported: list[Finding] = []
    suppressed: list[Finding] = []
    for finding in findings:
        key = (finding.kind or "", finding.namespace or "", finding.name)
        if key not in ignored:
            ignored[key] = ignored_codes(manifests.get(key))
        (suppressed if finding.code in ignored[key] else reported).append(finding)
    return reported, suppressed
