"""Kinds and versions as kubectl maps them (rules §18 "Kinds and versions as kubectl maps them").

Before any server sees an object, ``kubectl apply`` validates that it has an ``apiVersion`` and a
``kind`` (its words: ``apiVersion not set``, ``kind not set``), then maps the kind and version to
a resource the cluster serves (``no matches for kind "<kind>" in version "<group/version>"``).
Of group ``ome.io`` a cluster running OME serves exactly OME's CRDs, so a kind they do not
define, or a version they do not serve, is refused; what the cluster serves of any other group
this service cannot know, so those objects stay ignored.

An empty ``apiVersion`` or ``kind`` counts as not set: kubectl's decoder refuses both as
missing, in other words, and the fix is the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.selection.admission import NO_KIND_MATCH
from app.selection.values import go_quote

OME_GROUP = "ome.io"
# OME's CRDs (config/crd/ of its repository, at the commit app/schemas/crd/openapi/COMMIT
# names): every kind of group ome.io, each served at v1beta1 alone (OME's main branch has never
# served another version of any of them).
OME_KINDS = frozenset(
    {
        "AcceleratorClass",
        "BaseModel",
        "BenchmarkJob",
        "ClusterBaseModel",
        "ClusterServingRuntime",
        "FineTunedWeight",
        "InferenceService",
        "ServingRuntime",
    }
)
SERVED_VERSIONS = frozenset({"v1beta1"})
# kubectl reads a ``<Kind>List`` of items as a list, not as a resource to map: not refused here.
_LIST_KINDS = frozenset(f"{kind}List" for kind in OME_KINDS)
INVALID = "Invalid"  # the code of kubectl's validation errors, as of the API server's
API_VERSION_FIELD, KIND_FIELD = "apiVersion", "kind"


@dataclass(frozen=True, slots=True)
class Unmapped:
    """kubectl's refusal of an object before any server sees it: ``code`` and ``field`` are
    those of its first problem, ``message`` kubectl's words for all of them."""

    code: str
    field: str
    message: str
    # The object has a kind (a non-empty string) that kubectl would map once its apiVersion is
    # set right: a lenient reader reads it by that kind (rules §1: apiVersion is optional).
    kind_readable: bool


def _set(value: Any) -> bool:
    return value is not None and value != ""


def unmapped(manifest: dict[str, Any]) -> Unmapped | None:
    """What kubectl says of ``manifest`` before it reaches a server, or None when it maps it
    (or cannot say, for a group other than ome.io)."""
    api_version, kind = manifest.get("apiVersion"), manifest.get("kind")
    if type(api_version) is str and type(kind) is str and api_version and kind:
        group, slash, version = api_version.partition("/")
        if "/" in version:
            return _invalid(api_version, kind)
        if not slash or group != OME_GROUP:  # no "/": a version of the core group
            return None
        known = kind in OME_KINDS or kind in _LIST_KINDS
        if known and version in SERVED_VERSIONS:
            return None
        return Unmapped(
            NO_KIND_MATCH,
            API_VERSION_FIELD if known else KIND_FIELD,
            f"no matches for kind {go_quote(kind)} in version {go_quote(api_version)}",
            known,
        )
    return _invalid(api_version, kind)


def _invalid(api_version: Any, kind: Any) -> Unmapped:
    """kubectl's validation errors of an object whose apiVersion or kind is wrong, aggregated
    as it prints them: one alone, several in brackets."""
    problems: list[tuple[str, str]] = []
    if not _set(api_version):
        problems.append((API_VERSION_FIELD, "apiVersion not set"))
    elif not isinstance(api_version, str):
        problems.append((API_VERSION_FIELD, "apiVersion isn't string type"))
    elif api_version.count("/") > 1:
        problems.append((API_VERSION_FIELD, f"unexpected GroupVersion string: {api_version}"))
    kind_is_text = isinstance(kind, str) and kind != ""
    if not _set(kind):
        problems.append((KIND_FIELD, "kind not set"))
    elif not kind_is_text:
        problems.append((KIND_FIELD, "kind isn't string type"))
    texts = [text for _, text in problems]
    message = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return Unmapped(INVALID, problems[0][0], message, kind_is_text)
