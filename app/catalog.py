"""The service's stored catalogs (rules §17), bound to an app in ``create_app``: the store the
settings ask for (Redis with ``REDIS_URL``, else a SQLite file) and the access control (a token
file re-read as it changes).

Like the ranking cache, the store is built per app, so every gunicorn worker opens its own
connections after the fork; nothing connects before the first catalog request.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from flask import Flask, current_app

from config.settings import SettingsError

from .auth import AccessControl, TokenFile, TokensStatus, access_source
from .rendering.selection_history import selection_history
from .schemas.stored import stored_form
from .store import CatalogStore
from .store.redis import RedisCatalogStore
from .store.sqlite import SqliteCatalogStore

STORE_EXTENSION = "catalog_store"
ACCESS_EXTENSION = "access_control"


def build_store(config: Any) -> CatalogStore:
    limits = {
        "max_objects": config["MAX_OBJECTS_PER_CLUSTER"],
        "max_bytes": config["MAX_BYTES_PER_CLUSTER"],
        "max_runtimes": config["MAX_RUNTIMES"],
        "max_clusters": config["MAX_CLUSTERS"],
        # rules §17 "Selection history": worked out within the bounds of any request's work.
        "history": partial(
            selection_history,
            max_runtime_checks=config["MAX_RUNTIME_CHECKS"],
            max_runtimes=config["MAX_RUNTIMES"],
        ),
        "history_max_changes": config["HISTORY_MAX_CHANGES"],
    }
    if config["REDIS_URL"]:
        return RedisCatalogStore.from_url(
            config["REDIS_URL"],
            prefix=f"{config['CACHE_PREFIX']}catalog:",
            timeout=config["STORE_TIMEOUT_SECONDS"],
            cluster=config["REDIS_CLUSTER"],
            **limits,
        )
    path = config["STORE_PATH"]
    if not path:
        raise SettingsError("OME_RANKER_STORE_PATH: a SQLite file is needed without REDIS_URL")
    return SqliteCatalogStore(path, manifest_form=stored_form, **limits)


def init_app(app: Flask) -> None:
    # The token file is read at start-up, so a bad one stops the service naming the variable;
    # then again whenever it changes (app/auth.py, TokenFile).
    app.extensions[ACCESS_EXTENSION] = access_source(
        app.config["AUTH_MODE"], app.config["TOKENS_FILE"]
    )
    app.extensions[STORE_EXTENSION] = build_store(app.config)


def get_store(app: Flask | None = None) -> CatalogStore:
    return (app or current_app).extensions[STORE_EXTENSION]


def get_access(app: Flask | None = None) -> AccessControl:
    """The tokens in force now (the token file's latest good version)."""
    return (app or current_app).extensions[ACCESS_EXTENSION].current()


def tokens_status(app: Flask) -> TokensStatus | None:
    """The token file's tokens in force and its problem (re-read first if due); None without
    a token file, where nothing is re-read."""
    source = app.extensions[ACCESS_EXTENSION]
    return source.status() if isinstance(source, TokenFile) else None
