"""ome-ranker: which serving runtime will OME pick for this model, and why?

Docstrings cite the rules they implement as ``rules §N``: the sections of docs/rules.md. The layout
of the package is in docs/development.md ("Layout").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the package is imported by everything, the command line too: no Flask here
    from flask import Flask

    from config.settings import Config


def create_app(config: Config | None = None) -> Flask:
    """Build the WSGI application; the only place that wires things together."""
    from flask import Flask

    from config.settings import Config

    # No static folder: the page at / serves its own files under /ui/static (app/web), and
    # Flask's /static/<path> route would be a route the OpenAPI description does not list.
    app = Flask(__name__, static_folder=None)
    settings = config or Config()
    app.config.from_object(settings)
    app.config.update(vars(settings))

    from . import cache, catalog, web
    from .api import (
        cluster_answers,
        cluster_history,
        clusters,
        docs,
        fleet,
        fleet_impact,
        impact,
        lint,
        operations,
        ranking,
        selections,
    )
    from .http import (
        collector,
        compression,
        deadline,
        error_answers,
        memory,
        observability,
        polls,
        query,
        readiness,
    )

    # First, so that its before_request hook (request id, timer) runs before any other.
    observability.init_app(app)
    # Then the request's clock (OME_RANKER_REQUEST_DEADLINE), before any view runs.
    deadline.init_app(app)
    # What the requests in flight may hold in memory; each body reserves its share when read.
    memory.init_app(app)
    error_answers.init_app(app)
    query.init_app(app)
    # Last of the app's hooks: its after_request runs first, so the others see the answer as
    # sent (its before_request takes -gzip off conditions, before any view compares them).
    compression.init_app(app)
    # Here, not at import: each gunicorn worker builds its app, so its own Redis pool.
    cache.init_app(app)
    # The token file is read here (a bad one stops start-up); the store connects on first use.
    catalog.init_app(app)
    # What /readyz reads: checks of the store and the cache that run beside it, never in it.
    readiness.init_app(app)
    for module in (
        ranking,
        clusters,
        cluster_answers,
        cluster_history,
        lint,
        impact,
        fleet_impact,
        selections,
        fleet,
        operations,
        docs,
        web,
    ):
        app.register_blueprint(module.bp)
    # Flask's own WSGI callable runs with the cyclic collector paused (app/http/collector.py).
    app.wsgi_app = collector.CollectorPause(app.wsgi_app)  # type: ignore[method-assign]
    # In front of it: polls of a catalog's answer this worker holds.
    app.wsgi_app = polls.PollAnswers(app)  # type: ignore[method-assign]
    return app
