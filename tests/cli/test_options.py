"""app/cli/options.py: the token a command sends, from ``--token``, ``OME_RANKER_TOKEN`` or
``--token-file`` (as ``token new --secret-file`` writes it), and the tokens it refuses to send."""

from __future__ import annotations

import pytest

from tests.cli.support import SEED, invoke
from tests.servers import Scripted, ScriptedServer

ANSWER = Scripted(
    200,
    b'{"admitted":true,"findings":[],"counts":{},"warnings":[]}',
    (("Content-Type", "application/json"),),
)


def sent_authorization(*args: str, env: dict | None = None) -> tuple[int, str, list]:
    """The command ``lint -f SEED <args>`` against a server that records what it is sent:
    its exit code, its stderr, and the ``Authorization`` of each request."""
    with ScriptedServer(ANSWER).running() as server:
        result = invoke("lint", "-f", str(SEED), "--server", server.url, *args, env=env)
    return (
        result.exit_code,
        result.stderr,
        [request.headers.get("authorization") for request in server.forwarded],
    )


def test_the_secret_token_new_writes_is_the_token_token_file_sends(tmp_path):
    secret = tmp_path / "ci.secret"
    made = invoke("token", "new", "ci", "--read", "prod", "--secret-file", str(secret))
    assert made.exit_code == 0, made.stderr
    assert secret.stat().st_mode & 0o777 == 0o600
    code, stderr, sent = sent_authorization("--token-file", str(secret))
    assert (code, stderr) == (0, "")
    assert sent == [f"Bearer {secret.read_text()}"]


def test_a_token_file_written_by_hand_may_end_with_a_line_break(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("by-hand\n")
    assert sent_authorization("--token-file", str(secret))[2] == ["Bearer by-hand"]


def test_token_file_wins_over_the_variable_and_not_beside_token(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("from-the-file")
    environment = {"OME_RANKER_TOKEN": "from-the-variable"}
    assert sent_authorization("--token-file", str(secret), env=environment)[2] == [
        "Bearer from-the-file"
    ]
    assert sent_authorization(env=environment)[2] == ["Bearer from-the-variable"]
    both = sent_authorization("--token-file", str(secret), "--token", "t")
    assert both == (2, "error: give --token or --token-file, not both\n", [])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, ": No such file or directory"),
        ("", " is empty"),
        ("\n", " is empty"),
        ("one\ntwo\n", ": expected one token, on one line"),
        ("x" * 5000, ": expected one token, on one line"),
        ("with space", ": a token is visible ASCII characters without spaces"),
    ],
    ids=["missing", "empty", "blank", "two lines", "too long", "a space"],
)
def test_a_token_file_that_holds_no_token_is_refused_before_anything_is_sent(
    tmp_path, content, problem
):
    path = tmp_path / "secret"
    if content is not None:
        path.write_text(content)
    code, stderr, sent = sent_authorization("--token-file", str(path))
    assert (code, sent) == (2, [])
    assert stderr == f"error: --token-file {path}{problem}\n"


@pytest.mark.parametrize("token", ["two\nlines", "tab\there", "é"])
def test_a_token_that_cannot_go_in_a_header_is_refused_not_sent(token):
    code, stderr, sent = sent_authorization("--token", token)
    assert (code, sent) == (2, [])
    assert stderr == "error: --token: a token is visible ASCII characters without spaces\n"
