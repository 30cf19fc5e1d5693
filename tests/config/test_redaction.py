"""A Redis URL's password never reaches a message (config/redaction.py): in settings errors, in
the start-up log of a real gunicorn, in what the store and the cache log."""

from __future__ import annotations

import pytest

from config.redaction import redact_url, redact_urls
from config.settings import Config, SettingsError
from tests.servers import Service

SECRET = "s3cret-pw"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://user:s3cret-pw@cache:6379/0", "redis://user:***@cache:6379/0"),
        ("rediss://:s3cret-pw@cache:6380", "rediss://:***@cache:6380"),
        ("unix://user:s3cret-pw@/run/redis.sock?db=2", "unix://user:***@/run/redis.sock?db=2"),
        ("redis://s3cret-pw@cache", "redis://***@cache"),  # a password written as a user
        ("redis://cache:6379/0?password=s3cret-pw&db=1", "redis://cache:6379/0?password=***&db=1"),
        (
            "unix:///run/redis.sock?ssl_password=s3cret-pw",
            "unix:///run/redis.sock?ssl_password=***",
        ),
        # What does not parse: an unencoded "/", "#" or "@" in the password, no scheme at all.
        ("redis://user:s3cret/pw@cache:6379/0", "redis://user:***@cache:6379/0"),
        ("redis://user:s3c#ret-pw@cache", "redis://user:***@cache"),
        ("redis://user:s3c@ret-pw@cache", "redis://user:***@cache"),
        ("user:s3cret-pw@cache:6379", "user:***@cache:6379"),
        ("redsi://:s3cret-pw@cache", "redsi://:***@cache"),
        # Several nodes, as a Redis Cluster's are sometimes written.
        (
            "redis://:s3cret-pw@node-1:7000,redis://:s3cret-pw@node-2:7000",
            "redis://:***@node-1:7000,redis://:***@node-2:7000",
        ),
        ("redis://cache:6379/0", "redis://cache:6379/0"),
        ("redis://", "redis://"),
        ("", ""),
    ],
)
def test_a_url_is_shown_without_its_password(url, shown):
    assert redact_url(url) == shown


def test_urls_quoted_in_a_message_are_redacted():
    text = "Error connecting to redis://:s3cret-pw@node:7000. (and 'rediss://u:s3cret-pw@b')"
    assert (
        redact_urls(text) == "Error connecting to redis://:***@node:7000. (and 'rediss://u:***@b')"
    )
    assert redact_urls("no URL here: user:s3cret-pw@host") == "no URL here: user:s3cret-pw@host"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://user:s3cret-pw@cache:port/0", "REDIS_URL has an invalid port"),
        ("redsi://user:s3cret-pw@cache:6379/0", "REDIS_URL must be a URL starting redis://"),
        ("redis://user:s3cret-pw@[::1:6379/0", "REDIS_URL is not a URL"),
        ("redis://user:12/s3cret-pw@cache:6379/0", "REDIS_URL: percent-encode the reserved"),
        ("redis://user:s3c#ret-pw@cache:6379/0", "REDIS_URL has an invalid port"),
    ],
)
def test_a_bad_redis_url_is_named_without_its_password(monkeypatch, url, message):
    monkeypatch.setenv("REDIS_URL", url)
    with pytest.raises(SettingsError) as refused:
        Config()
    assert str(refused.value).startswith(message)
    assert "***" in str(refused.value) and "s3c" not in str(refused.value)


@pytest.mark.gunicorn
@pytest.mark.parametrize(
    "url",
    ["redis://user:s3cret-pw@cache:port/0", "redis://user:12/s3cret-pw@127.0.0.1:6379/0"],
    ids=["invalid-port", "unencoded-slash"],
)
def test_gunicorn_never_logs_the_password_of_a_bad_redis_url(tmp_path, url):
    service = Service(tmp_path, REDIS_URL=url, OME_RANKER_WORKERS="1")
    try:
        with pytest.raises(RuntimeError, match="gunicorn did not start"):
            service.start()
    finally:
        service.stop()
    log = service.log()
    assert "REDIS_URL" in log and "redis://user:***@" in log
    assert "s3cret" not in log
