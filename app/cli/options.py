"""Options the commands share, and the two things every command does first: read its files and
open its way to the API."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from config.settings import SettingsError

from .client import Api
from .output import BAD_INPUT, Failure, warn
from .sources import Manifest, SourceError, read_manifests
from .transport import InProcess, Remote, Transport, exposed_host

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


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
    return options["server"], options["token"], options["ca_file"], options["timeout"]


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
        transport = Remote(server, token, ca_file, timeout) if server else InProcess()
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
