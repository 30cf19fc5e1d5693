"""ome-ranker: which serving runtime will OME pick for this model, and why?"""

from __future__ import annotations

from flask import Flask

from config.settings import Config


def create_app(config: Config | None = None) -> Flask:
    """Build the WSGI application; the only place that wires things together."""
    app = Flask(__name__)
    settings = config or Config()
    app.config.from_object(settings)
    app.config.update(vars(settings))

    from . import errors
    from .api.views import bp as ranking_bp

    errors.register_error_handlers(app)
    app.register_blueprint(ranking_bp)
    return app
