"""Storage URIs as OME parses them (``pkg/utils/storage``), for its webhooks' rules."""

from __future__ import annotations

import re

from ..values import go_quote

PVC, STAGE = "pvc://", "stage://"
_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def parse_pvc(uri: str) -> tuple[str, str, str] | str:
    """(namespace or "", claim, subpath) of ``pvc://[<namespace>:]<claim>/<subpath>``, or the
    text of OME's parse error, checked in OME's order: the claim part before the subpath."""
    prefix = "invalid PVC storage URI format: "
    rest = uri.removeprefix(PVC)
    if not rest:
        return prefix + "missing content after prefix"
    head, slash, subpath = rest.partition("/")
    if not slash:
        return prefix + "missing subpath"
    namespace = ""
    if ":" in head:
        namespace, _, head = head.partition(":")
        if not namespace:
            return prefix + "empty namespace before colon"
        if not head:
            return prefix + "empty PVC name after colon"
        if ":" in head:
            return prefix + "multiple colons not allowed in namespace:pvc-name"
        if len(namespace) > 63 or not _NAMESPACE.fullmatch(namespace):
            return (
                prefix + f"invalid namespace {go_quote(namespace)} (must be lowercase "
                "alphanumeric with hyphens, max 63 chars)"
            )
    elif not head:
        return prefix + "missing PVC name"
    if not subpath:
        return prefix + "missing subpath"
    return namespace, head, subpath
