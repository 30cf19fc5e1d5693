"""``ome-ranker``: the service's command line. Every command is a client of the HTTP API, answered
by the app in this process (the default) or by a service at ``--server`` (docs/cli.md).

A command's module is imported when that command runs (or prints its own ``--help``), never
before: ``ome-ranker --version`` and ``--help`` load click and this module, not Flask, Redis,
marshmallow or the rules (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys

import click

from app.version import __version__

# Each command: the module that defines it (as an attribute of the command's name, ``-`` as
# ``_``), and the line ``ome-ranker --help`` lists it with, the first sentence of its
# docstring, written here so that listing the commands imports none of them (a test holds
# each to its command's own).
COMMANDS: dict[str, tuple[str, str]] = {
    "impact": ("app.cli.reports", "InferenceServices a change would move."),
    "lint": ("app.cli.reports", "What kubectl apply would answer."),
    "push": ("app.cli.push", "Store the files as CLUSTER's catalog."),
    "rank": ("app.cli.commands", "Rank the runtimes for one model, as OME does."),
    "select": ("app.cli.commands", "The runtime OME selects for one model."),
    "selections": ("app.cli.reports", "The runtime of every InferenceService."),
    "serve": ("app.cli.serve", "Run the HTTP service."),
    "test": ("app.cli.expectation_run", "Check many expected outcomes in one run."),
    "token": ("app.cli.tokens", "Tokens of the service's token file (OME_RANKER_TOKENS_FILE)."),
}


class Commands(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = COMMANDS.get(cmd_name)
        if found is None:
            return None
        command: click.Command = getattr(
            importlib.import_module(found[0]), cmd_name.replace("-", "_")
        )
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, from ``COMMANDS`` instead of the commands themselves."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        # A command that only carries the line shortens it as the command itself would.
        rows = [
            (name, click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=Commands,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
# The version the code carries, not the installed package's metadata: the same from a checkout
# (python -m app.cli) as installed.
@click.version_option(__version__, prog_name="ome-ranker")
def cli() -> None:
    """Which serving runtime will the OME operator pick for this model, and why?

    Exit codes: 0 selected / admitted / unchanged / as expected, 1 not (no runtime, refused,
    changed, a test case missed),
    2 bad input or usage, 3 service unreachable or unusable, 4 the runtime is right but
    --expect-class pins an accelerator class OME does not give for certain.
    """


def main() -> None:
    """The ``ome-ranker`` console script (and ``python -m app.cli``). A command lives as long as
    its answer takes: the cyclic collector stays off (what it would find goes with the process,
    and its passes over the modules and CRD schemas just loaded cost a local lint ~7 % of its
    time), and the process ends once its output is flushed, without the interpreter's teardown,
    which frees every object one by one (another ~7 %)."""
    gc.disable()
    code: object = 0
    try:
        cli.main(prog_name="ome-ranker")
    except SystemExit as stop:  # click's main always ends with one
        code = stop.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        # a reader that went away (| head) or a closed stream: nothing more can be written
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code if isinstance(code, int) else 0)
