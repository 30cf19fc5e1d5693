"""What every catalog route (rules §17) shares: the caller's token, the store and its errors,
``ETag`` / ``If-Match`` / ``If-None-Match`` on the cluster's generation (the conditions read by
app/http/conditions.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from flask import Flask, Response, current_app, request

from app import errors
from app.auth import NO_TOKEN_SENT, UNKNOWN_TOKEN, AccessControl, Token, bearer_secret
from app.catalog import get_access, get_store
from app.store import (
    CatalogDocuments,
    ClusterInfo,
    ClusterNotFound,
    EmptyReplace,
    LimitExceeded,
    Precondition,
    PreconditionFailed,
    StoreError,
    StoreNotAsked,
    StoreUnavailable,
)
from app.store.records import CLUSTER_NAME

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


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a request's token may do what it asks, decided once: the token (None: none was
    sent, or an unknown one) and why it may not (None: it may)."""

    token: Token | None
    refusal: errors.ApiError | None = None

    def granted(self, seen: record.RequestRecord) -> Token:
        """The token, its name noted in ``seen`` for the log line (never the secret); else the
        refusal raised."""
        if self.token is not None:
            seen.token_name = self.token.name
        if self.refusal is not None:
            raise self.refusal
        assert self.token is not None  # a decision without a token is a refusal
        return self.token


def identified(access: AccessControl, authorization: str | None) -> Decision:
    """The token an ``Authorization`` header names, or 401 saying why: none sent, an unknown
    one, or no token in force (no token file configured, or one that states none)."""
    token = access.identify(authorization)
    if token is not None:
        return Decision(token)
    if not access.configured:
        return Decision(None, errors.Unauthorized(access.refusal))
    sent = bearer_secret(authorization) is not None
    return Decision(None, errors.Unauthorized(UNKNOWN_TOKEN if sent else NO_TOKEN_SENT))


def decide(
    access: AccessControl, authorization: str | None, cluster: str, action: str = "read"
) -> Decision:
    """Whether the token an ``Authorization`` header names may ``action`` (read or write)
    ``cluster``, a path's name: refused as the views refuse, in this order: a name that is not
    a cluster's (400), no token (401), a token without the right (403)."""
    if not CLUSTER_NAME.match(cluster):
        return Decision(
            None,
            errors.MalformedRequest(
                f"cluster names are DNS-1123 labels ([a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 "
                f"characters), got {cluster[:80]!r}"
            ),
        )
    decision = identified(access, authorization)
    token = decision.token
    if token is None:
        return decision
    if not (token.can_read(cluster) if action == "read" else token.can_write(cluster)):
        return Decision(
            token, errors.Forbidden(f"token {token.name} may not {action} cluster {cluster}")
        )
    return decision


def caller() -> Token:
    """The request's token, or 401 (``identified``)."""
    decision = identified(get_access(), request.headers.get("Authorization"))
    return decision.granted(record.this_request())


def stateless_access() -> None:
    """rules §17: the stateless endpoints stay open unless OME_RANKER_AUTH_STATELESS=true, which
    asks any known token of them; the catalog ones check the cluster's token themselves."""
    if current_app.config["AUTH_STATELESS"] and not request.path.startswith("/v1/clusters/"):
        caller()


def may_read(cluster: str) -> Token:
    """The request's token, which may read ``cluster`` (a path's name, checked first)."""
    return _may(cluster, "read")


def may_write(cluster: str) -> Token:
    """The request's token, which may write ``cluster`` (a path's name, checked first)."""
    return _may(cluster, "write")


def _may(cluster: str, action: str) -> Token:
    decision = decide(get_access(), request.headers.get("Authorization"), cluster, action)
    return decision.granted(record.this_request())


def store_errors(view: Callable[..., T]) -> Callable[..., T]:
    """The store's errors as the API's: 404, 409, 412, 422, and 503 with ``Retry-After``."""

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> T:
        try:
            return view(*args, **kwargs)
        except ClusterNotFound as error:  # the store's, as the API's: the one translation
            raise errors.ClusterNotFound(error.cluster) from None
        except PreconditionFailed as error:
            current = error.current_generation
            raise errors.PreconditionFailed(
                "If-Match does not name the cluster's current generation"
                + (" (there is no such cluster)" if current is None else f" ({current})"),
                generation=current,
            ) from None
        except EmptyReplace as error:
            raise errors.EmptyReplace(
                f"cluster {error.cluster} holds {error.stored} objects and the body none: "
                "replacing them with nothing is refused; send ?allowEmpty=true to empty the "
                "catalog",
                stored=error.stored,
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
        raise errors.ClusterNotFound(cluster)
    return documents


def info_or_404(cluster: str, app: Flask | None = None) -> ClusterInfo:
    """The cluster's info, read from the store of ``app`` (the current one by default)."""
    info = get_store(app).get_info(cluster)
    if info is None:
        raise errors.ClusterNotFound(cluster)
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
