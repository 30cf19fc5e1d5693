"""``ome-ranker serve``: the service itself, as ``make run`` and the image start it: gunicorn
with ``config/gunicorn.conf.py`` and ``app:create_app()``, in place of this process."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

import app
import config
from config.settings import SettingsError, access_settings

from .output import BAD_INPUT, Failure

CONF = Path(config.__file__).resolve().parent / "gunicorn.conf.py"
# The directory holding the app and config packages: a checkout, or site-packages.
ROOT = Path(app.__file__).resolve().parent.parent
# Settings that name files, made absolute before gunicorn starts in ROOT.
PATH_SETTINGS = ("OME_RANKER_STORE_PATH", "OME_RANKER_TOKENS_FILE", "PROMETHEUS_MULTIPROC_DIR")
DEFAULT_STORE_PATH = "var/ome-ranker.sqlite3"  # config.settings.Config's default


def gunicorn_command(bind: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment to run the service with, from ROOT.

    gunicorn imports ``app`` and ``config`` by name and puts its working directory first on
    ``sys.path`` before it reads its configuration: run from anywhere else, a directory of the
    same names there would stand in for them. So it runs from ROOT, and the settings that name
    files are made absolute first, relative to where the command was started (as `make run`
    reads them).
    """
    environment = dict(os.environ, OME_RANKER_BIND=bind)
    environment.setdefault("OME_RANKER_STORE_PATH", DEFAULT_STORE_PATH)
    for name in PATH_SETTINGS:
        if environment.get(name):
            environment[name] = os.path.abspath(environment[name])
    command = [sys.executable, "-m", "gunicorn", "--config", str(CONF), "app:create_app()"]
    return command, environment


@click.command()
@click.option(
    "--bind",
    envvar="OME_RANKER_BIND",
    show_envvar=True,
    default="127.0.0.1:8080",
    show_default=True,
    metavar="HOST:PORT",
    help="Where to listen.",
)
def serve(bind: str) -> None:
    """Run the HTTP service.

    gunicorn with config/gunicorn.conf.py and app:create_app(); every other setting comes from
    the environment (docs/configuration.md).
    """
    if not CONF.is_file():
        raise click.ClickException(f"the gunicorn configuration is missing: {CONF}")
    try:
        access_settings(bind)  # as the master would refuse them, but before gunicorn starts
    except SettingsError as error:
        raise Failure(str(error), BAD_INPUT) from None
    command, environment = gunicorn_command(bind)
    sys.stdout.flush()
    os.chdir(ROOT)
    os.execve(sys.executable, command, environment)
