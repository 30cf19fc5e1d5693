"""``ome-ranker``: the service's command line. Every command is a client of the HTTP API, answered
by the app in this process (the default) or by a service at ``--server`` (docs/cli.md)."""

from __future__ import annotations

import click

from app.version import __version__

from .commands import rank, select
from .push import push
from .reports import impact, lint, selections
from .serve import serve
from .tokens import token


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
# The version the code carries, not the installed package's metadata: the same from a checkout
# (python -m app.cli) as installed.
@click.version_option(__version__, prog_name="ome-ranker")
def cli() -> None:
    """Which serving runtime will the OME operator pick for this model, and why?

    Exit codes: 0 selected / admitted / unchanged, 1 not (no runtime, refused, changed),
    2 bad input or usage, 3 service unreachable or unusable, 4 the runtime is right but
    --expect-class pins an accelerator class OME does not give for certain.
    """


for _command in (rank, select, lint, impact, selections, push, serve, token):
    cli.add_command(_command)


def main() -> None:
    cli.main(prog_name="ome-ranker")
