"""The command line warns, once per command, before it sends a token unencrypted to another
machine: ``http://`` to a host that is not loopback. A real service, reached through this
machine's own network address."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from app.cli.transport import exposed_host
from config.settings import is_loopback_host
from tests.builders import token_file
from tests.cli.support import SEED, invoke
from tests.servers import Service, free_port

pytestmark = pytest.mark.gunicorn  # a real server per module or test

SECRET = "sync-secret"


def warning(host: str) -> str:
    return (
        f"Warning: sending a token over plain HTTP to {host}; use https:// or a loopback address\n"
    )


@pytest.mark.parametrize(
    ("server", "token", "host"),
    [
        ("http://10.0.0.1:1", "t", "10.0.0.1"),
        ("http://ome-ranker.example.com", "t", "ome-ranker.example.com"),
        ("http://[fd00::2]:8080/", "t", "fd00::2"),
        ("http://0.0.0.0:8080", "t", "0.0.0.0"),
        ("https://ome-ranker.example.com", "t", None),
        ("http://127.0.0.1:8080", "t", None),
        ("http://127.9.9.9:8080", "t", None),
        ("http://localhost:8080", "t", None),
        ("http://[::1]:8080", "t", None),
        ("http://10.0.0.1:1", None, None),
        ("http://10.0.0.1:1", "", None),
    ],
)
def test_which_requests_expose_the_token(server, token, host):
    assert exposed_host(server, token) == host


def own_address() -> str:
    """This machine's address on its default route (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            pytest.skip("no route off this machine, so no address of its own to ask through")
        address = probe.getsockname()[0]
    if is_loopback_host(address):
        pytest.skip("this machine has only loopback addresses")
    return address


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """Listening on every address (so with a token file: open access would be refused)."""
    directory = tmp_path_factory.mktemp("cli-transport")
    server = Service(
        directory,
        OME_RANKER_TOKENS_FILE=token_file(
            directory / "tokens.yaml", {"name": "sync", "secret": SECRET, "write": ["*"]}
        ),
        OME_RANKER_STORE_PATH=str(directory / "catalogs.sqlite3"),
        OME_RANKER_WORKERS="1",
    )
    server.environment["OME_RANKER_BIND"] = f"0.0.0.0:{server.port}"
    yield server.start()
    server.stop()


def test_a_token_over_plain_http_to_another_address_is_warned_about_once(service):
    address = own_address()
    result = invoke(
        "push", "north", "-f", str(SEED), "--create",
        "--server", f"http://{address}:{service.port}", "--token", SECRET,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stderr == warning(address)  # three requests, one warning


def test_no_warning_without_a_token_over_loopback_or_in_process(service):
    address = own_address()
    unsent = invoke("select", "-f", str(SEED), "--server", f"http://{address}:{service.port}")
    loopback = invoke(
        "select", "-f", str(SEED), "--server", f"http://127.0.0.1:{service.port}", "--token", SECRET
    )
    in_process = invoke("select", "-f", str(SEED), "--token", SECRET)
    for result in (unsent, loopback, in_process):
        assert result.exit_code == 0, result.stderr
        assert "Warning" not in result.stderr


def test_no_warning_over_https():
    address = own_address()
    server = f"https://{address}:{free_port()}"  # nothing listens: only the warning matters
    result = invoke("select", "-f", str(SEED), "--server", server, "--token", SECRET)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error: cannot reach {server}")
    assert "Warning" not in result.stderr
