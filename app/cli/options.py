"""Options the commands share, and the two things every command does first: read its files and
open its way to the API."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from click.core import ParameterSource

from config.settings import SettingsError

from .client import Api
from .output import BAD_INPUT, Failure, warn
from .sources import Manifest, SourceError, read_manifests
from .transport import InProcess, Transport, exposed_host

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
# A bearer token as a header carries it: visible ASCII (token new writes 43 URL-safe characters).
_HEADER_TOKEN = re.compile(r"[!-~]+")
MAX_TOKEN_BYTES = 4096


def combine(*decorators: Decorator) -> Decorator:
    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return decorate


input_options = combine(
    click.option(
        "-f",
        "--filename",
        "filenames",
        multiple=True,
        metavar="PATH",
        help="A manifest file, a directory of them (.yaml, .yml, .json) or - for stdin; "
        "repeatable.",
    ),
    click.option(
        "-R", "--recursive", is_flag=True, help="Read the directories given with -f recursively."
    ),
)
output_option = click.option(
    "-o",
    "--output",
    type=click.Choice(["table", "json", "yaml"]),
    default="table",
    show_default=True,
    help="table: the API's text answer (wrapped on a terminal); json, yaml: its answer.",
)
cluster_option = click.option(
    "--cluster",
    metavar="NAME",
    help="Ask about this stored catalog of the service at --server.",
)
query_options = combine(
    click.option("--ome-version", metavar="VERSION", help="The OME version to emulate (1.3)."),
    click.option(
        "--model-cache-provider",
        metavar="NAME",
        help="The model cache provider the cluster's OME is configured with.",
    ),
)
connection_options = combine(
    click.option(
        "--server",
        envvar="OME_RANKER_SERVER",
        show_envvar=True,
        metavar="URL",
        help="Ask a running service instead of the API in this process.",
    ),
    click.option(
        "--token",
        envvar="OME_RANKER_TOKEN",
        show_envvar=True,
        metavar="TOKEN",
        help="Sent as Authorization: Bearer (stored catalogs need one).",
    ),
    click.option(
        "--token-file",
        type=click.Path(dir_okay=False),
        metavar="PATH",
        help="Read the token from this file (as `token new --secret-file` writes it), so that it "
        "is not on the command line.",
    ),
    click.option(
        "--ca-file",
        envvar="OME_RANKER_CA_FILE",
        show_envvar=True,
        type=click.Path(exists=True, dir_okay=False),
        metavar="PEM",
        help="CA certificates to verify the server's TLS certificate with.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=30.0,
        show_default=True,
        metavar="SECONDS",
        help="How long to wait for the server's answer.",
    ),
)


def connection(options: dict[str, Any]) -> tuple[str | None, str | None, str | None, float]:
    """The connection options' values, for ``open_api``."""
    return options["server"], bearer_token(options), options["ca_file"], options["timeout"]


def bearer_token(options: dict[str, Any]) -> str | None:
    """``--token-file``'s token, over ``OME_RANKER_TOKEN``; else ``--token`` (or the variable).
    A token that cannot go in a header is refused here (exit 2), not sent."""
    path, value = options.get("token_file"), options["token"]
    if path is not None:
        source = click.get_current_context().get_parameter_source("token")
        if value is not None and source is not ParameterSource.ENVIRONMENT:
            raise Failure("give --token or --token-file, not both")
        value, where = read_token(path), f"--token-file {path}"
    else:
        where = "--token"
    if value and not _HEADER_TOKEN.fullmatch(value):
        raise Failure(f"{where}: a token is visible ASCII characters without spaces")
    return value or None


def read_token(path: str) -> str:
    """The file's first line, without its line break; at most MAX_TOKEN_BYTES read."""
    try:
        with open(path, "rb") as handle:
            content = handle.read(MAX_TOKEN_BYTES + 1)
    except OSError as error:
        raise Failure(f"--token-file {path}: {error.strerror}") from None
    lines = content.decode("utf-8", "replace").splitlines()
    if len(content) > MAX_TOKEN_BYTES or len(lines) > 1:
        raise Failure(f"--token-file {path}: expected one token, on one line")
    if not lines or not lines[0].strip():
        raise Failure(f"--token-file {path} is empty")
    return lines[0].strip()


def query(**values: str | None) -> list[tuple[str, str]]:
    return [(name, value) for name, value in values.items() if value is not None]


def load(filenames: tuple[str, ...], recursive: bool) -> list[Manifest]:
    try:
        return read_manifests(filenames, recursive, sys.stdin.buffer)
    except SourceError as error:
        raise Failure(str(error), BAD_INPUT) from None


@contextmanager
def open_api(
    server: str | None, token: str | None, ca_file: str | None, timeout: float
) -> Iterator[Api]:
    transport: Transport
    try:
        if server:
            from .remote import Remote  # the HTTP client: only a --server command loads it

            transport = Remote(server, token, ca_file, timeout)
        else:
            transport = InProcess()
    except (ValueError, SettingsError) as error:  # a bad --server, CA file or service setting
        raise Failure(str(error), BAD_INPUT) from None
    host = exposed_host(server, token) if server else None
    if host is not None:  # once per command: every command opens the API once
        warn(f"sending a token over plain HTTP to {host}; use https:// or a loopback address")
    try:
        yield Api(transport)
    finally:
        transport.close()


def need_server(api: Api, what: str) -> None:
    if isinstance(api.transport, InProcess):
        raise Failure(f"{what} needs --server (or OME_RANKER_SERVER): catalogs live in a service")
