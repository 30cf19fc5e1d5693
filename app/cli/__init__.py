"""``ome-ranker``: the service's command line. Every command is a client of the HTTP API, answered
by the app in this process (the default) or by a service at ``--server`` (README "Command
line")."""

from __future__ import annotations

from importlib import metadata

import click

from .catalog import push
from .commands import rank, select
from .reports import impact, lint, selections
from .serve import serve
from .tokens import token


def _version() -> str:
    try:
        return metadata.version("ome-ranker")
    except metadata.PackageNotFoundError:  # run from a checkout (python -m app.cli)
        return "not installed"


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(_version(), prog_name="ome-ranker")
def cli() -> None:
    """Which serving runtime will the OME operator pick for this model, and why?

    Exit codes: 0 selected / admitted / unchanged, 1 not (no runtime, refused, changed),
    2 bad input or usage, 3 service unreachable or unusable.
    """


for _command in (rank, select, lint, impact, selections, push, serve, token):
    cli.add_command(_command)


def main() -> None:
    cli.main(prog_name="ome-ranker")
