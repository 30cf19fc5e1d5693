"""Stored catalogs (rules §17): one interface (``CatalogStore``), two backends — a SQLite file
shared by the service's processes, and Redis (or Redis Cluster). No Flask here: the routes,
settings and access control are built on top of it."""

from typing import TYPE_CHECKING, Any

from .records import (
    CLUSTER_SCOPED_KINDS,
    KINDS,
    Catalog,
    CatalogDocuments,
    ClusterInfo,
    ClusterNotFound,
    ClusterSettings,
    CreationRefused,
    EmptyReplace,
    Generation,
    LimitExceeded,
    Precondition,
    PreconditionFailed,
    StoredObject,
    StoreError,
    StoreNotAsked,
    StoreUnavailable,
    UnreadableCatalog,
)

if TYPE_CHECKING:
    from .base import CatalogStore


def __getattr__(name: str) -> Any:
    """``CatalogStore`` on first use: what reads objects (the command line's lint) needs their
    records, not the stores, their guard and their codec."""
    if name == "CatalogStore":
        from .base import CatalogStore

        return CatalogStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CLUSTER_SCOPED_KINDS",
    "KINDS",
    "Catalog",
    "CatalogDocuments",
    "CatalogStore",
    "ClusterInfo",
    "ClusterNotFound",
    "ClusterSettings",
    "CreationRefused",
    "EmptyReplace",
    "Generation",
    "LimitExceeded",
    "Precondition",
    "PreconditionFailed",
    "StoreError",
    "StoreNotAsked",
    "StoreUnavailable",
    "StoredObject",
    "UnreadableCatalog",
]
