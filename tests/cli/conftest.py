"""Fixtures of the command-line tests; the helpers are in ``tests/cli/support.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.support import write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)
