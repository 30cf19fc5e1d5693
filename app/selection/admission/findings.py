"""Findings of an admission (rules §18): what the API server, OME's webhooks and kubectl answer
to an object, and the whole answer's order and counts."""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}
SERVING_RUNTIME_WEBHOOK = "servingruntime.ome-webhook-server.validator"
WEBHOOKS = {
    "ServingRuntime": SERVING_RUNTIME_WEBHOOK,
    "ClusterServingRuntime": "clusterservingruntime.ome-webhook-server.validator",
    "InferenceService": "inferenceservice.ome-webhook-server.validator",
    "BaseModel": "basemodel.ome-webhook-server.validator",
    "ClusterBaseModel": "clusterbasemodel.ome-webhook-server.validator",
}
# The API server's own refusals (rules §18 "Parity"): strict decoding and the CRD's schema, and
# an object's name; and kubectl's, before any server (an apiVersion or kind not set: Invalid).
SCHEMA_CODES = frozenset({"UnknownField", "Required", "Unsupported", "Invalid"})
NO_KIND_MATCH = "NoKindMatch"  # kubectl maps no resource to the kind and version (rules §18)
UNHOOKED_CODES = SCHEMA_CODES | {NO_KIND_MATCH}
ALSO_REFUSED = "AlsoRefused"
# (severity, kind, namespace, name, field, code, message): the order of the findings.
FindingOrder = tuple[int, str, bytes, bytes, int, bytes, str, bytes]
# (code, field, message) of one refusal, before it is known whether it is the first.
Refusal = tuple[str, "str | None", str]


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    kind: str | None  # None: an object without one (rules §18, kubectl's refusal)
    namespace: str | None
    name: str
    field: str | None
    code: str
    message: str
    # the place of an AlsoRefused finding among its object's refusals (OME's order, kept when
    # the findings are sorted); 0 for every other finding
    sequence: int = 0

    @property
    def webhook(self) -> str | None:
        """The admission webhook that refuses it; None for the API server's own refusals."""
        if self.severity != ERROR or self.code in UNHOOKED_CODES or self.kind is None:
            return None
        return WEBHOOKS.get(self.kind)


def _bytes(text: str) -> bytes:
    # surrogatepass: a lone surrogate that a JSON body carried orders, rather than failing
    return text.encode("utf-8", "surrogatepass")


def finding_order(finding: Finding) -> FindingOrder:
    return (
        SEVERITY_ORDER[finding.severity],
        finding.kind or "",
        _bytes(finding.namespace or ""),
        _bytes(finding.name),
        finding.sequence,
        _bytes(finding.field or ""),
        finding.code,
        _bytes(finding.message),
    )


def refused(
    kind: str | None, namespace: str | None, name: str, refusals: list[Refusal]
) -> list[Finding]:
    """One error per object, as kubectl shows it (rules §18): the first refusal in the order
    the object meets them, then each one that would follow once it is fixed, as an info."""
    found = []
    for index, (code, field, message) in enumerate(refusals):
        if index == 0:
            found.append(Finding(ERROR, kind, namespace, name, field, code, message))
        else:
            found.append(
                Finding(INFO, kind, namespace, name, field, ALSO_REFUSED, f"then: {message}", index)
            )
    return found


@dataclass(frozen=True, slots=True)
class Admission:
    findings: tuple[Finding, ...]
    # What the objects' own annotations ask not to report (``suppressions``): not counted, but
    # an error among them still refuses the object, as kubectl apply would.
    suppressed: tuple[Finding, ...] = ()

    @property
    def admitted(self) -> bool:
        return not any(f.severity == ERROR for f in (*self.findings, *self.suppressed))

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys((ERROR, WARNING, INFO), 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts
