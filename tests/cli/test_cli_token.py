"""``ome-ranker token new``: a secret shown once, and the token file entry with its SHA-256, which
the service then accepts."""

from __future__ import annotations

import hashlib
import stat

import pytest
import yaml

from app.auth import parse_tokens
from tests.cli.support import invoke


def entries(stdout: str) -> list[dict]:
    """The command's output under ``tokens:``, as the service's token file reads it."""
    document = yaml.safe_load("tokens:\n" + stdout)
    parse_tokens(document, "the printed entry")  # SettingsError if the service would refuse it
    return document["tokens"]


def printed_secret(stderr: str) -> str:
    (line,) = stderr.splitlines()
    assert "shown only this once" in line and "keeps only its SHA-256" in line
    return line.rpartition(": ")[2]


def test_an_entry_for_the_token_file_and_its_secret_once(make_app, tmp_path):
    result = invoke("token", "new", "ci-prod", "--read", "*", "--write", "prod-east")
    assert result.exit_code == 0, result.stderr
    (entry,) = entries(result.stdout)
    secret = printed_secret(result.stderr)
    assert secret not in result.stdout
    assert entry == {
        "name": "ci-prod",
        "sha256": hashlib.sha256(secret.encode()).hexdigest(),
        "read": ["*"],
        "write": ["prod-east"],
    }
    assert result.stdout.startswith("  - name: ci-prod\n    sha256: ")  # goes under tokens:
    assert len(secret) >= 43  # 32 random bytes
    # The service takes the entry as it is printed.
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("tokens:\n" + result.stdout)
    client = make_app(AUTH_MODE="token", TOKENS_FILE=str(tokens)).test_client()
    for sent, status in ((secret, 200), ("guess", 401)):
        answer = client.get("/v1/clusters", headers={"Authorization": f"Bearer {sent}"})
        assert answer.status_code == status


def test_entries_printed_one_after_another_make_the_token_file(tmp_path):
    """As deploy/kubernetes/README.md builds one: ``{ echo 'tokens:'; ome-ranker token new …;
    …; } > tokens.yaml``, each secret in a file of its own."""
    callers = {"platform-admin": ("--write", "*"), "sync": ("--write", "prod-east"), "dash": ()}
    printed = []
    for name, rights in callers.items():
        secret_file = str(tmp_path / f"{name}.secret")
        result = invoke("token", "new", name, *rights, "--secret-file", secret_file)
        assert result.exit_code == 0, result.stderr
        printed.append(result.stdout)
    access = parse_tokens(yaml.safe_load("tokens:\n" + "".join(printed)), "tokens.yaml")
    for name in callers:
        token = access.identify(f"Bearer {(tmp_path / f'{name}.secret').read_text()}")
        assert token.name == name
        assert token.can_manage is (name == "platform-admin")


def test_every_secret_is_new_and_only_the_lists_given_are_written():
    first, second = invoke("token", "new", "a"), invoke("token", "new", "a")
    assert printed_secret(first.stderr) != printed_secret(second.stderr)
    assert set(entries(first.stdout)[0]) == {"name", "sha256"}


def test_values_yaml_would_read_as_something_else_are_quoted():
    result = invoke(
        "token", "new", "1.0", "--read", "007", "--read", "on", "--write", "*", "--read", "007"
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = entries(result.stdout)
    assert (entry["name"], entry["read"], entry["write"]) == ("1.0", ["007", "on"], ["*"])


def test_the_secret_to_a_new_file_that_only_its_owner_reads(tmp_path):
    path = tmp_path / "ci.secret"
    result = invoke("token", "new", "ci", "--write", "prod-east", "--secret-file", str(path))
    assert result.exit_code == 0, result.stderr
    secret = path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert entries(result.stdout)[0]["sha256"] == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in result.stderr + result.stdout
    assert result.stderr == f"secret written to {path}; the service keeps only its SHA-256\n"
    again = invoke("token", "new", "ci", "--secret-file", str(path))
    assert again.exit_code == 2
    assert again.stderr == f"error: --secret-file {path} exists; not overwritten\n"
    assert again.stdout == ""
    assert path.read_text() == secret


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bad name"], "token names are 1 to 63 characters"),
        ([".hidden"], "token names are"),
        (["a" * 64], "token names are"),
        (["ci", "--read", "Prod"], "--read: cluster names are DNS-1123 labels"),
        (["ci", "--write", "prod_east"], "--write: cluster names are DNS-1123 labels"),
        (["ci", "--write", "-east"], "--write: cluster names"),
        (["ci", "--read", "a" * 64], "--read: cluster names"),
        (["ci", "--secret-file", "/nonexistent/dir/secret"], "--secret-file"),
    ],
)
def test_bad_input_exits_2_and_prints_no_entry(args, message):
    result = invoke("token", "new", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and message in result.stderr
    assert result.stdout == ""
