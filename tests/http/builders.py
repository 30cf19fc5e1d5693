"""Builders of the HTTP layer's tests: a stored catalog to poll, and a counter of the requests
that reach Flask."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from flask import Flask

from tests.builders import isvc_doc, token_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEED_YAML = (FIXTURES / "seed_example.yaml").read_bytes()
SEED_MODEL = "llama-3-2-3b-instruct"
YAML = {"Content-Type": "application/yaml"}
READER = {"Authorization": "Bearer reader-secret"}
ADMIN = {"Authorization": "Bearer admin-secret"}
RANK = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"
SELECT = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"


def seeded_app(make_app: Callable[..., Flask], tmp_path: Path, **settings: Any) -> Flask:
    """An app with tokens (``admin`` writes all, ``reader`` reads ``prod``, ``elsewhere`` reads
    ``staging``) and the cluster ``prod`` holding the seed example and an InferenceService."""
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "admin", "secret": "admin-secret", "write": ["*"]},
        {"name": "reader", "secret": "reader-secret", "read": ["prod"]},
        {"name": "elsewhere", "secret": "elsewhere-secret", "read": ["staging"]},
    )
    app = make_app(**settings, AUTH_MODE="token", TOKENS_FILE=tokens)
    client = app.test_client()
    assert client.put("/v1/clusters/prod", json={}, headers=ADMIN).status_code == 201
    isvc = isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL})
    seed = SEED_YAML + b"\n---\n" + yaml.safe_dump(isvc, sort_keys=False).encode()
    written = client.put("/v1/clusters/prod/objects", data=seed, headers={**ADMIN, **YAML})
    assert written.status_code == 200, written.get_data(as_text=True)
    return app


class FlaskCalls:
    """How many requests the poll path in front of Flask (app/http/polls.py) handed to Flask."""

    def __init__(self, app: Flask) -> None:
        self.count = 0
        polls = app.wsgi_app
        flask_app = polls.flask_app  # type: ignore[attr-defined]

        def counted(environ: dict, start_response: Callable) -> Any:
            self.count += 1
            return flask_app(environ, start_response)

        polls.flask_app = counted  # type: ignore[attr-defined]
