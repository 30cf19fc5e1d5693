"""OME_RANKER_AUTH=none opens every catalog, so it stops start-up where it cannot be meant: beside
a token file, or on an address other machines reach (SPEC §17 "Safe to share")."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import create_app
from config.settings import (
    Config,
    SettingsError,
    TestConfig,
    access_settings,
    is_loopback_bind,
    is_loopback_host,
)


@pytest.fixture(autouse=True)
def no_access_settings(monkeypatch):
    for variable in ("OME_RANKER_AUTH", "OME_RANKER_TOKENS_FILE"):
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize(
    "bind",
    [
        "127.0.0.1:8080",
        "127.1.2.3:1",
        "127.0.0.1",
        "tcp://127.0.0.1:8080",
        "[::1]:8080",
        "[::1]",
        "::1",
        "localhost:80",
        "LOCALHOST:80",
        "localhost",
        "unix:/tmp/x",
        "unix:///run/ome-ranker.sock",
        "[::ffff:127.0.0.1]:80",
    ],
)
def test_loopback_binds(bind):
    assert is_loopback_bind(bind)


@pytest.mark.parametrize(
    "bind",
    [
        "0.0.0.0:8080",
        "[::]:80",
        "example.com:80",
        "10.0.0.1:80",
        "192.168.1.5:8080",
        "tcp://0.0.0.0:8080",
        "localhost.example.com:80",
        "127.0.0.1.nip.io:80",
        "[::ffff:10.0.0.1]:80",
        "[fe80::1]:80",
        ":8080",  # gunicorn listens on every address
        "",
        "fd://3",  # an inherited socket: where it listens cannot be checked
    ],
)
def test_binds_other_machines_reach(bind):
    assert not is_loopback_bind(bind)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.255.0.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("Localhost.", True),
        ("0.0.0.0", False),
        ("10.0.0.1", False),
        ("ome-ranker.example.com", False),
        ("", False),
    ],
)
def test_loopback_hosts(host, loopback):
    assert is_loopback_host(host) is loopback


def test_none_beside_a_token_file_stops_start_up(monkeypatch, tmp_path):
    tokens = str(tmp_path / "tokens.yaml")
    monkeypatch.setenv("OME_RANKER_AUTH", "none")
    monkeypatch.setenv("OME_RANKER_TOKENS_FILE", tokens)
    with pytest.raises(SettingsError, match=r"OME_RANKER_AUTH=none .* OME_RANKER_TOKENS_FILE"):
        Config()
    monkeypatch.setenv("OME_RANKER_AUTH", "token")
    config = Config()
    assert config.AUTH_MODE == "token"
    assert Path(config.TOKENS_FILE) == tmp_path / "tokens.yaml"


def test_settings_made_in_code_are_checked_by_the_app(tmp_path):
    config = TestConfig()
    assert config.AUTH_MODE == "none"  # the tests' open access
    assert config.TOKENS_FILE is None
    config.TOKENS_FILE = str(tmp_path / "tokens.yaml")
    with pytest.raises(SettingsError, match="OME_RANKER_AUTH"):
        create_app(config)


def test_none_only_on_a_loopback_address(monkeypatch):
    monkeypatch.setenv("OME_RANKER_AUTH", "none")
    assert access_settings("127.0.0.1:8080") == ("none", None)  # make run
    assert access_settings() == ("none", None)  # the address is not known: the app's own check
    with pytest.raises(SettingsError, match=r"OME_RANKER_AUTH=none .* '0\.0\.0\.0:8080'"):
        access_settings("0.0.0.0:8080")
    monkeypatch.setenv("OME_RANKER_AUTH", "token")
    assert access_settings("0.0.0.0:8080") == ("token", None)  # the image's default
