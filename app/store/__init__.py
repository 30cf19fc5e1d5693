"""Stored catalogs (rules §17): one interface (``CatalogStore``), two backends — a SQLite file
shared by the service's processes, and Redis (or Redis Cluster). No Flask here: the routes,
settings and access control are built on top of it."""

from .base import CatalogStore
from .records import (
    CLUSTER_SCOPED_KINDS,
    KINDS,
    Catalog,
    CatalogDocuments,
    ClusterInfo,
    ClusterNotFound,
    ClusterSettings,
    CreationRefused,
    LimitExceeded,
    Precondition,
    PreconditionFailed,
    StoredObject,
    StoreError,
    StoreNotAsked,
    StoreUnavailable,
    UnreadableCatalog,
)

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
    "LimitExceeded",
    "Precondition",
    "PreconditionFailed",
    "StoreError",
    "StoreNotAsked",
    "StoreUnavailable",
    "StoredObject",
    "UnreadableCatalog",
]
