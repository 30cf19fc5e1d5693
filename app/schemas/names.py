"""Kubernetes names (rules §17 "Names are Kubernetes names"): an object's ``metadata.name`` is a
DNS-1123 subdomain and a namespace a DNS-1123 label, as the API server requires, so that no
object a cluster could not hold reaches a catalog, an answer or a text table. The messages are
the API server's own (the schemas' validators raise them: ``fields.validate_object_name``)."""

from __future__ import annotations

import re
from typing import TypeGuard

SUBDOMAIN_MAX, LABEL_MAX = 253, 63
_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
# The length is checked first, so these run on at most 253 characters.
SUBDOMAIN = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\Z")
LABEL = re.compile(rf"{_LABEL}\Z")
# The same as JSON Schema patterns (the OpenAPI description): a label, and a namespace, which
# may also be empty (absent, as in kubectl).
LABEL_PATTERN = f"^{_LABEL}$"
NAMESPACE_PATTERN = f"^({_LABEL})?$"
SUBDOMAIN_TEXT = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_TEXT = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def _shown(value: str) -> str:
    """The value as Go's %q would quote it, cut short: never a raw control character."""
    clipped = value if len(value) <= 80 else value[:80] + "..."
    return '"' + clipped.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


def _problem(value: str, pattern: re.Pattern, maximum: int, rule: str) -> str | None:
    if len(value) > maximum:
        return f"Invalid value: {_shown(value)}: must be no more than {maximum} characters"
    if not pattern.match(value):
        return f"Invalid value: {_shown(value)}: {rule}"
    return None


def subdomain_problem(value: str) -> str | None:
    """The API server's refusal of ``value`` as an object name, or None."""
    return _problem(value, SUBDOMAIN, SUBDOMAIN_MAX, SUBDOMAIN_TEXT)


def label_problem(value: str) -> str | None:
    """The API server's refusal of ``value`` as a namespace, or None."""
    return _problem(value, LABEL, LABEL_MAX, LABEL_TEXT)


def is_object_name(value: object) -> TypeGuard[str]:
    return type(value) is str and len(value) <= SUBDOMAIN_MAX and bool(SUBDOMAIN.match(value))


def is_namespace(value: object) -> bool:
    """A namespace, or an empty one (absent, as in kubectl)."""
    return type(value) is str and (
        value == "" or (len(value) <= LABEL_MAX and bool(LABEL.match(value)))
    )
