"""What admission would answer (rules §18), as findings and as kubectl prints them."""

from __future__ import annotations

from typing import Any

from app.selection.admission import ERROR, INFO, WARNING, Admission, Finding

from .encode import counted, printable

# (document, line, column) of a finding in the body it came in: each None where not known.
Where = tuple["int | None", "int | None", "int | None"]
NOWHERE: Where = (None, None, None)


def finding_body(finding: Finding, where: Where = NOWHERE) -> dict[str, Any]:
    document, line, column = where
    return {
        "severity": finding.severity,
        "kind": finding.kind,
        "namespace": finding.namespace,
        "name": finding.name,
        "field": finding.field,
        "code": finding.code,
        "message": finding.message,
        "document": document,
        "line": line,
        "column": column,
    }


def _where(finding: Finding) -> str:
    name = finding.name if finding.namespace is None else f"{finding.namespace}/{finding.name}"
    return f"{finding.kind} {name}"


def counts_line(counts: dict[str, int], suppressed: int = 0) -> str:
    """``1 error, 0 warnings, 2 infos``: the last line of a lint answer's text, then
    `` (3 suppressed)`` when findings were."""
    line = ", ".join(
        counted(counts.get(severity, 0), severity) for severity in (ERROR, WARNING, INFO)
    )
    return f"{line} ({suppressed} suppressed)" if suppressed else line


def lint_text(admission: Admission) -> str:
    """As kubectl prints it: ``Warning:`` lines, and the webhook's or the API server's refusal
    after ``error:``; what OME accepts but rarely means after ``info:``. Then the counts, so that
    an answer without findings is not an empty body."""
    lines = []
    for finding in admission.findings:
        if finding.severity == ERROR:
            if finding.webhook is None:
                lines.append(f"error: {finding.message}")
            else:
                lines.append(
                    f'error: {_where(finding)}: admission webhook "{finding.webhook}" '
                    f"denied the request: {finding.message}"
                )
        elif finding.severity == WARNING:
            lines.append(f"Warning: {finding.message}")
        else:
            field = f" {finding.field}:" if finding.field else ""
            lines.append(f"info: {_where(finding)}:{field} {finding.message}")
    lines.append(counts_line(admission.counts(), len(admission.suppressed)))
    return "".join(printable(line) + "\n" for line in lines)


def message_bytes(admission: Admission) -> int:
    return sum(len(finding.message) for finding in (*admission.findings, *admission.suppressed))
