"""Files a test makes unusable, as a deployment's mistakes do: read-only to the service even when
the tests run as root, whom file modes do not stop."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (and its directory) read-only for this process while the block runs: by its
    mode for a user, by the immutable attribute for root (``chattr +i``, which needs a file
    system that has it and CAP_LINUX_IMMUTABLE: skipped without them)."""
    if os.geteuid() != 0:
        modes = {item: item.stat().st_mode for item in (path, path.parent)}
        path.chmod(0o444)
        path.parent.chmod(0o555)
        try:
            yield
        finally:
            for item, mode in modes.items():
                item.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.skip("running as root, and chattr +i is not available to make a file read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(path)], check=True)
