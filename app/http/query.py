"""The query parameters the endpoints share, each checked where a route takes it, once access
is decided (a route ignores a parameter it does not take, as it ignores any other); and the
headers every answer carries (rules §17 "Headers")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from flask import Flask, Response, request
from werkzeug.datastructures import MultiDict

from app import errors
from app.schemas.names import label_problem
from app.schemas.query_settings import classes_known_setting, provider_refusal, query_settings
from app.selection.values import CatalogView
from app.store import ClusterSettings

NAMESPACE, MODEL_CACHE_PROVIDER = "namespace", "modelCacheProvider"


def check_query(*names: str) -> None:
    """rules §17: the query parameters ``names`` (of ``NAMESPACE`` and ``MODEL_CACHE_PROVIDER``)
    of a route that takes them, every value given: ``namespace`` a DNS-1123 label (empty:
    absent), ``modelCacheProvider`` bounded as every string the rules read; else 422."""
    refusal = query_refusal(request.args, names)
    if refusal is not None:
        raise refusal


def query_refusal(
    args: MultiDict[str, str], names: Iterable[str] = (NAMESPACE, MODEL_CACHE_PROVIDER)
) -> errors.InvalidDocument | None:
    """``check_query``'s 422 for ``args``, or None: also asked before a poll is answered in front
    of Flask (app/http/polls.py), for a route that takes both."""
    if NAMESPACE in names:
        problem = namespace_problem(args.getlist(NAMESPACE))
        if problem is not None:
            return errors.InvalidDocument({NAMESPACE: [problem]})
    if MODEL_CACHE_PROVIDER in names:
        return provider_refusal(args.getlist(MODEL_CACHE_PROVIDER))
    return None


def namespace_problem(values: Iterable[str]) -> str | None:
    """What is wrong with the first of a request's ``namespace`` values that is not a label."""
    for value in values:
        problem = label_problem(value) if value else None
        if problem is not None:
            return problem
    return None


def read_with_query(view: CatalogView, settings: ClusterSettings | None = None) -> CatalogView:
    """``view`` read with the query's ``omeVersion``, ``modelCacheProvider`` and
    ``acceleratorClassesKnown`` (rules §20.8), each defaulting to the cluster's setting (or, for
    a stream, the service's default)."""
    check_query(MODEL_CACHE_PROVIDER)
    settings = settings or ClusterSettings()
    return replace(
        view,
        **query_settings(
            request.args,
            settings.ome_version,
            settings.model_cache_provider,
            settings.accelerator_classes_known,
        ),
    )


def accelerator_classes_known(default: bool | None = None) -> bool | None:
    """``?acceleratorClassesKnown=true|false`` (400 for anything else), or ``default`` (a
    cluster's setting)."""
    known = classes_known_setting({}, request.args)
    return default if known is None else known


CATALOG_PATHS = "/v1/clusters"
FLEET_PATHS = "/v1/fleet/"  # answers about the catalogs of several clusters
FLEET_PATH = "/v1/fleet"  # rules §21: every readable catalog's counts, per token
NOSNIFF = ("X-Content-Type-Options", "nosniff")
NO_STORE = ("Cache-Control", "no-store")


def _headers(response: Response) -> Response:
    """No answer is sniffed as another type; no catalog answer is kept by a browser or a
    proxy (its ETag still makes a poll cheap): it holds what only some tokens may read."""
    response.headers.set(*NOSNIFF)
    path = request.path
    if (
        path in (CATALOG_PATHS, FLEET_PATH)
        or path.startswith(CATALOG_PATHS + "/")
        or path.startswith(FLEET_PATHS)
    ):
        response.headers.set(*NO_STORE)
    return response


def init_app(app: Flask) -> None:
    app.after_request(_headers)
