"""The settings a catalog view is read with, from a query (and a body's flags): ``omeVersion``,
``modelCacheProvider`` and ``acceleratorClassesKnown`` (rules §14, §17, §20.8). Free of marshmallow:
a local lint reads them without loading the schemas."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from app.errors import InvalidDocument, MalformedRequest
from app.selection.values import DEFAULT_OME_VERSION, length_problem

KNOWN_FLAG = "acceleratorClassesKnown"
QUERY_BOOLEANS = {"true": True, "false": False}


def classes_known_setting(body: Mapping[str, Any], query: Mapping[str, str]) -> bool | None:
    """rules §20.8, §20.10 item 20: ``acceleratorClassesKnown``, a boolean in the body or
    ``true``/``false`` as a query parameter (the body's wins); None when neither gives it."""
    value = body.get(KNOWN_FLAG)
    if value is not None:
        if not isinstance(value, bool):
            raise MalformedRequest(f"'{KNOWN_FLAG}' must be a boolean")
        return value
    return query_boolean(query, KNOWN_FLAG)


def query_boolean(query: Mapping[str, str], name: str) -> bool | None:
    """The query parameter ``name``, ``true`` or ``false``; None when it is not given."""
    text = query.get(name)
    if text is None:
        return None
    if text not in QUERY_BOOLEANS:  # a bad query value, as every other's (rules §15)
        raise InvalidDocument({name: ["Must be true or false."]})
    return QUERY_BOOLEANS[text]


def version_problem(version: str) -> str | None:
    """rules §14: an ``omeVersion`` is any version ``packaging`` reads; else the message. Bounded
    first, as every string the rules read: ``packaging`` converts its digits with ``int()``."""
    problem = length_problem(version)
    if problem is not None:
        return problem
    try:
        Version(version)
    except InvalidVersion:
        return f"Not a valid version: {version!r}."
    return None


def provider_refusal(providers: Iterable[str]) -> InvalidDocument | None:
    """rules §17: every ``?modelCacheProvider=`` is bounded as every string the rules read; the
    422 of the first that is not, or None."""
    for provider in providers:
        problem = length_problem(provider)
        if problem is not None:
            return InvalidDocument({"modelCacheProvider": [problem]})
    return None


def query_ome_version(query: Mapping[str, str], default: str = DEFAULT_OME_VERSION) -> str:
    """``?omeVersion=``, or ``default`` (a cluster's setting); 422 for one that is not a
    version."""
    version = query.get("omeVersion") or default
    problem = version_problem(version)
    if problem is not None:
        raise InvalidDocument({"omeVersion": [problem]})
    return version


def query_settings(
    query: Mapping[str, str],
    ome_version: str = DEFAULT_OME_VERSION,
    model_cache_provider: str | None = None,
    classes_known: bool | None = None,
) -> dict[str, Any]:
    """What a catalog view is read with (``CatalogView``'s fields): the query's ``omeVersion``,
    ``modelCacheProvider`` and ``acceleratorClassesKnown`` (rules §14, §20.8), each defaulting
    to the one given (a cluster's setting, else the service's default)."""
    version = query_ome_version(query, ome_version)
    provider = query.get("modelCacheProvider") or model_cache_provider
    known = classes_known_setting({}, query)
    return {
        "ome_version": version,
        "model_cache_provider": provider,
        "classes_known": classes_known if known is None else known,
    }
