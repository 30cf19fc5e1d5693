"""The token file of SPEC §17: parsed strictly at start-up, secrets compared by their SHA-256."""

from __future__ import annotations

import hashlib

import pytest
import yaml

from app import auth
from app.auth import ANONYMOUS, access_source, parse_tokens
from config.settings import SettingsError

SECRET = "s3cret"
DIGEST = hashlib.sha256(SECRET.encode()).hexdigest()


def test_a_token_is_found_by_its_secret_and_rights_follow_the_file():
    access = parse_tokens(
        {"tokens": [{"name": "ci", "sha256": DIGEST.upper(), "read": ["a"], "write": ["b"]}]}, "f"
    )
    token = access.identify(f"Bearer {SECRET}")
    assert token.name == "ci"
    assert (
        token.can_read("a"),
        token.can_write("a"),
        token.can_read("b"),
        token.can_read("c"),
    ) == (
        True,
        False,
        True,
        False,
    )
    assert not token.can_manage
    for header in (None, "", "Bearer", f"Basic {SECRET}", "Bearer wrong", f"Bearer {DIGEST}"):
        assert access.identify(header) is None


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ({}, "'tokens' list"),
        ({"tokens": [{"name": "x", "sha256": "abc"}]}, "64 hex digits"),
        ({"tokens": [{"name": "", "sha256": DIGEST}]}, "short name"),
        ({"tokens": [{"name": "x", "sha256": DIGEST}, {"name": "x", "sha256": "0" * 64}]}, "twice"),
        (
            {"tokens": [{"name": "x", "sha256": DIGEST}, {"name": "y", "sha256": DIGEST}]},
            "same secret",
        ),
        ({"tokens": [{"name": "x", "sha256": DIGEST, "read": "a"}]}, "list of cluster names"),
        ({"tokens": [{"name": "x", "sha256": DIGEST, "secret": SECRET}]}, "unknown keys"),
    ],
)
def test_a_bad_token_file_stops_start_up_naming_the_problem(document, fragment):
    with pytest.raises(SettingsError, match=fragment):
        parse_tokens(document, "OME_RANKER_TOKENS_FILE")


def test_loading_from_settings(tmp_path):
    assert access_source("none", None).current().identify(None) is ANONYMOUS
    closed = access_source("token", None).current()
    assert not closed.configured and closed.identify(f"Bearer {SECRET}") is None
    path = tmp_path / "tokens.yaml"
    path.write_text(yaml.safe_dump({"tokens": [{"name": "ci", "sha256": DIGEST}]}))
    assert access_source("token", str(path)).current().identify(f"Bearer {SECRET}").name == "ci"
    with pytest.raises(SettingsError, match="OME_RANKER_TOKENS_FILE"):
        access_source("token", str(tmp_path / "missing.yaml")).current()


def test_no_token_and_an_unknown_one_do_the_same_work(monkeypatch):
    """Each compares the digest of what was sent with every token's: the time tells neither
    which case it was nor which tokens exist."""
    access = parse_tokens(
        {"tokens": [{"name": n, "sha256": hashlib.sha256(n.encode()).hexdigest()} for n in "abc"]},
        "f",
    )
    compared: list[bytes] = []

    def compare_digest(known: bytes, sent: bytes) -> bool:
        compared.append(known)
        return known == sent

    monkeypatch.setattr(auth.hmac, "compare_digest", compare_digest)
    for header in (None, "", "Basic x", "Bearer", "Bearer unknown", "Bearer a"):
        compared.clear()
        access.identify(header)
        assert len(compared) == 3, header
