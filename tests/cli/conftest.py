"""Fixtures of the command-line tests; the helpers are in ``tests/cli/support.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.support import write_tree
from tests.servers import Service


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """A real gunicorn for the module's ``--server`` commands, without access control."""
    directory = tmp_path_factory.mktemp("cli-service")
    server = Service(
        directory,
        OME_RANKER_AUTH="none",
        OME_RANKER_STORE_PATH=str(directory / "catalogs.sqlite3"),
    ).start()
    yield server
    server.stop()
