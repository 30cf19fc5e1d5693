"""The shell blocks of the README and docs/ marked ``<!-- runs as written -->`` run as written,
from the repository's root, against a real service: each command exits as the page says, and a
block's output, where the page shows it, is the output (docs/development.md, "Documentation")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.markdown import PAGES, README, ROOT, Block, blocks, commands
from tests.servers import Service

pytestmark = pytest.mark.gunicorn  # a real server per module or test

DOCUMENTED_ADDRESS = "127.0.0.1:8080"
RUNNABLE = [block for page in PAGES for block in blocks(page) if block.runs]
# Settings a developer may have exported that must not reach the commands or the service.
UNSET = ("OME_RANKER_SERVER", "OME_RANKER_TOKEN", "OME_RANKER_CA_FILE", "OME_RANKER_TOKENS_FILE")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The service of `make run`: loopback, no access control, its own store; one worker, so
    that it takes one core of the two the tests share."""
    directory = tmp_path_factory.mktemp("docs-service")
    server = Service(
        directory,
        OME_RANKER_AUTH="none",
        OME_RANKER_TOKENS_FILE="",  # empty is unset: a developer's token file stays out
        OME_RANKER_WORKERS="1",
        OME_RANKER_STORE_PATH=str(directory / "catalogs.sqlite3"),
    ).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The repository's root as a reader's shell sees it, and its environment: every top-level
    entry linked into a scratch directory (so that what a command writes there goes away), the
    virtualenv of `make run` (``.venv``: this checkout's, else one whose ``bin/python`` runs the
    tests' interpreter), and an ``ome-ranker`` on PATH that runs this checkout's command, as
    ``pip install .`` would."""
    root = tmp_path_factory.mktemp("root")
    for entry in ROOT.iterdir():
        if entry.name not in (".git", "var"):
            (root / entry.name).symlink_to(entry)
    if not (root / ".venv").exists():
        (root / ".venv" / "bin").mkdir(parents=True)
        _script(root / ".venv" / "bin" / "python", "")
    bin_directory = tmp_path_factory.mktemp("bin")
    _script(bin_directory / "ome-ranker", "-m app.cli ")
    environment = {key: value for key, value in os.environ.items() if key not in UNSET}
    environment["PATH"] = f"{bin_directory}{os.pathsep}{environment.get('PATH', '')}"
    environment["PYTHONPATH"] = str(ROOT)
    return root, environment


def _script(path: Path, arguments: str) -> None:
    """An executable that runs the tests' interpreter with ``arguments`` first."""
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" {arguments}"$@"\n')
    path.chmod(0o755)


def test_the_pages_hold_blocks_that_run():
    assert len(RUNNABLE) >= 8
    worked = [block for block in RUNNABLE if block.page == README and block.output is not None]
    assert worked, "the README's worked example must show the answer it gets"
    for block in RUNNABLE:
        assert block.language == "bash", block.name
        # What needs a cluster, Docker or a secret of the reader's cannot run here.
        assert not any(word in block.text for word in ("kubectl ", "docker ", "$ADMIN")), block.name


@pytest.mark.parametrize("block", RUNNABLE, ids=[block.name for block in RUNNABLE])
def test_a_block_runs_as_written(block: Block, service: Service, workspace) -> None:
    root, environment = workspace
    printed = []
    for command in commands(block):
        text = command.text.replace(DOCUMENTED_ADDRESS, f"127.0.0.1:{service.port}")
        result = subprocess.run(
            ["bash", "-o", "pipefail", "-c", text],
            cwd=root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == command.exit_code, (
            f"{block.page.name}:{command.line}: {command.text}\n{result.stdout}{result.stderr}"
        )
        printed.append(result.stdout)
    if block.output is not None:
        assert "".join(printed) == block.output


def test_the_readmes_json_answer_is_the_services(service: Service) -> None:
    """The worked example's JSON, where "…" stands for the rows it leaves out."""
    (shown,) = [block for block in blocks(README) if block.language == "json"]
    documented = json.loads(shown.text)
    seed = (ROOT / "examples" / "seed.yaml").read_bytes()
    status, _, body = service.request(
        "POST", "/v1/rank", seed, {"Content-Type": "application/yaml"}
    )
    assert status == 200
    answer = json.loads(body)
    rows = documented.pop("runtimes")
    assert rows[-1] == "…"
    assert rows[:-1] == answer.pop("runtimes")[: len(rows) - 1]
    assert documented == answer
