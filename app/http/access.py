"""What every catalog route (rules §17) shares: the caller's token, the store and its errors,
``ETag`` / ``If-Match`` / ``If-None-Match`` on the cluster's generation (the conditions read by
app/http/conditions.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import Response, current_app, request

from app import errors
from app.auth import Token
from app.catalog import get_access, get_store
from app.store import (
    CatalogDocuments,
    ClusterInfo,
    ClusterNotFound,
    LimitExceeded,
    Precondition,
    PreconditionFailed,
    StoreError,
    StoreNotAsked,
    StoreUnavailable,
)
from app.store.records import check_cluster_name

from . import record
from .conditions import MalformedTags, unless_none_match, write_precondition

log = logging.getLogger("app.catalog")
# The setting behind each bound of a store (app/store/records.py Bound).
LIMIT_VARIABLES = {
    "objects": "OME_RANKER_MAX_OBJECTS_PER_CLUSTER",
    "bytes": "OME_RANKER_MAX_BYTES_PER_CLUSTER",
    "runtimes": "OME_RANKER_MAX_RUNTIMES",
    "clusters": "OME_RANKER_MAX_CLUSTERS",
}
T = TypeVar("T")


def caller() -> Token:
    """The request's token, or 401 (none sent, unknown, or no token in force: no token file
    configured, or one that states none)."""
    access = get_access()
    token = access.identify(request.headers.get("Authorization"))
    if token is None:
        if not access.configured:
            raise errors.Unauthorized(access.refusal)
        raise errors.Unauthorized("send Authorization: Bearer <token>")
    record.this_request().token_name = token.name  # for the log line, never the secret
    return token


def stateless_access() -> None:
    """rules §17: the stateless endpoints stay open unless OME_RANKER_AUTH_STATELESS=true, which
    asks any known token of them; the catalog ones check the cluster's token themselves."""
    if current_app.config["AUTH_STATELESS"] and not request.path.startswith("/v1/clusters/"):
        caller()


def cluster_name(cluster: str) -> str:
    try:
        return check_cluster_name(cluster)
    except ValueError:
        raise errors.MalformedRequest(
            f"cluster names are DNS-1123 labels ([a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 "
            f"characters), got {cluster[:80]!r}"
        ) from None


def may_read(cluster: str) -> Token:
    """The request's token, which may read ``cluster`` (a path's name, checked first)."""
    return _may(cluster, "read")


def may_write(cluster: str) -> Token:
    """The request's token, which may write ``cluster`` (a path's name, checked first)."""
    return _may(cluster, "write")


def _may(cluster: str, action: str) -> Token:
    cluster_name(cluster)
    token = caller()
    allowed = token.can_read(cluster) if action == "read" else token.can_write(cluster)
    if not allowed:
        raise errors.Forbidden(f"token {token.name} may not {action} cluster {cluster}")
    return token


def store_errors(view: Callable[..., T]) -> Callable[..., T]:
    """The store's errors as the API's: 404, 412, 422, and 503 with ``Retry-After``."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        try:
            return view(*args, **kwargs)
        except ClusterNotFound:
            raise errors.ClusterNotFound(f"cluster {kwargs.get('cluster')} not found") from None
        except PreconditionFailed as error:
            current = error.current_generation
            raise errors.PreconditionFailed(
                "If-Match does not name the cluster's current generation"
                + (" (there is no such cluster)" if current is None else f" ({current})"),
                generation=current,
            ) from None
        except LimitExceeded as error:
            variable = LIMIT_VARIABLES[error.bound]
            raise errors.LimitExceeded(
                f"{error.message} ({variable})",
                variable=variable,
                limit=error.limit,
                requested=error.requested,
            ) from None
        except StoreUnavailable as error:
            if not isinstance(error, StoreNotAsked):  # the breaker logged why it opened
                log.warning("catalog store unavailable: %s", error)
            raise errors.StoreUnavailable("the catalog store is unavailable; try again") from None
        except StoreError as error:  # pragma: no cover - every kind is handled above
            raise errors.StoreUnavailable(str(error)) from None

    return wrapped


def etag(info: ClusterInfo) -> str:
    return f'"{info.generation}"'


def if_match() -> Precondition | None:
    """What a write's ``If-Match`` asks of the cluster (app/http/conditions.py), or None; 400
    for a value that is neither ``*`` nor a list of entity tags."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    try:
        return write_precondition(raw)
    except MalformedTags as error:
        raise errors.MalformedRequest(
            f'If-Match must be * or a list of entity tags such as "7": {error}'
        ) from None


def not_modified(info: ClusterInfo, status: int = 200) -> Response | None:
    """304 for a read whose ``If-None-Match`` names the current generation, once its answer is
    known to be a 2xx of ``status``; 412 for a POST's (app/http/conditions.py)."""
    return unless_none_match(etag(info), info.generation, status)


def documents_or_404(cluster: str) -> CatalogDocuments:
    """The cluster's documents, as ranking reads them."""
    documents = get_store().read_documents(cluster)
    if documents is None:
        raise errors.ClusterNotFound(f"cluster {cluster} not found")
    return documents


def info_or_404(cluster: str) -> ClusterInfo:
    info = get_store().get_info(cluster)
    if info is None:
        raise ClusterNotFound(cluster)
    return info


def log_write(token: Token, cluster: str, action: str, info: ClusterInfo | None) -> None:
    """rules §17: every write logged with token, cluster, generation and counts."""
    log.info(
        "catalog write",
        extra={
            "fields": {
                "token": token.name,
                "cluster": cluster,
                "action": action,
                "generation": None if info is None else info.generation,
                "counts": None if info is None else info.counts,
            }
        },
    )


def max_objects() -> int:
    return current_app.config["MAX_OBJECTS_PER_CLUSTER"]
