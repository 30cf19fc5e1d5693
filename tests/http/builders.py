"""Builders of the HTTP layer's tests: a stored catalog to poll, and counters of what a
request asks on its way (the store's methods, the tokens, Flask's WSGI callable)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask

from app.auth import AccessControl, parse_tokens
from app.catalog import get_store
from tests.builders import isvc_doc, token_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SEED_YAML = (FIXTURES / "seed_example.yaml").read_bytes()
SEED_MODEL = "llama-3-2-3b-instruct"
YAML = {"Content-Type": "application/yaml"}
READER = {"Authorization": "Bearer reader-secret"}
ADMIN = {"Authorization": "Bearer admin-secret"}
ELSEWHERE = {"Authorization": "Bearer elsewhere-secret"}
RANK = f"/v1/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"
SELECT = f"/v1/clusters/prod/select?model={SEED_MODEL}&namespace=llama-demo"
STORES = ("sqlite", "redis")


def store_settings(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    """The settings of a catalog store of the kind ``request.param`` names (one of ``STORES``):
    a SQLite file, or the tests' Redis under the test's own prefix (its cache there too)."""
    if request.param == "sqlite":
        return {"STORE_PATH": str(tmp_path / "catalog.sqlite3")}
    return {
        "REDIS_URL": request.getfixturevalue("redis_url"),
        "CACHE_PREFIX": request.getfixturevalue("redis_prefix"),
    }


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


def token_control(*tokens: dict) -> AccessControl:
    """The access control of ``{"name", "secret", "read"?, "write"?}`` tokens, as a token file
    of them gives it."""
    entries = [
        {**{k: v for k, v in token.items() if k != "secret"}, "sha256": _sha256(token["secret"])}
        for token in tokens
    ]
    return parse_tokens({"tokens": entries}, "tokens")


def _sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Calls:
    """The calls of ``owner.name`` (a method of an object, or of a class), counted and passed
    on; ``fail``, when set, is raised instead of calling it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
        self.count = 0
        self.fail: Exception | None = None
        real = getattr(owner, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            if self.fail is not None:
                raise self.fail
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


class RedisCommands:
    """The commands the app's Redis catalog store sends, by name, counted."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, app: Flask) -> None:
        self.sent: list[str] = []
        client = get_store(app).client  # type: ignore[attr-defined]
        real = client.execute_command

        def counted(*args: Any, **options: Any) -> Any:
            self.sent.append(str(args[0]).upper())
            return real(*args, **options)

        monkeypatch.setattr(client, "execute_command", counted)

    def count(self, command: str) -> int:
        return self.sent.count(command)


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
