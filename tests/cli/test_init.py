"""``app/cli/__init__.py``: the commands are imported on demand. ``ome-ranker --version`` and
``--help`` load none of the service's heavy dependencies, the listing ``--help`` prints is the
one the commands themselves would give, and a local lint loads neither Flask nor Redis."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from app.cli import COMMANDS, cli
from bench.repository import write_repository
from tests.cli.support import ROOT, invoke, write_tree

HEAVY = ("flask", "werkzeug", "redis", "redis.asyncio", "marshmallow", "jsonschema")
# What only the service uses: a lint in this process answers without them.
SERVICE_ONLY = ("flask", "werkzeug", "redis", "redis.asyncio", "gunicorn", "prometheus_client")
# What only a command given --server uses (app/cli/remote.py).
REMOTE_ONLY = ("urllib3", "app.cli.remote")


def loaded_after(*args: str) -> dict:
    """The modules loaded once ``ome-ranker <args>`` has run, in a fresh interpreter, and its
    exit code."""
    script = (
        "import json, sys\n"
        "from app.cli import cli\n"
        "try:\n"
        f"    cli.main({list(args)!r}, prog_name='ome-ranker')\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        "print(json.dumps({'modules': sorted(sys.modules), 'code': code}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("option", ["--version", "--help", "-h"])
def test_version_and_help_import_no_heavy_dependency(option):
    after = loaded_after(option)
    assert after["code"] == 0
    assert sorted(set(HEAVY + REMOTE_ONLY) & set(after["modules"])) == []
    assert not any(module.startswith("app.cli.") for module in after["modules"])


def test_a_local_lint_loads_what_it_uses_and_not_the_service(tmp_path):
    tree = write_tree(tmp_path)
    after = loaded_after("lint", "-R", "-f", str(tree))
    assert after["code"] == 1  # the tree's runtimes clash
    assert sorted(set(SERVICE_ONLY + REMOTE_ONLY) & set(after["modules"])) == []
    assert "app.linting" in after["modules"]
    assert "app.cli.serve" not in after["modules"]


def test_the_listing_is_the_commands_own():
    """``--help`` lists the commands from ``COMMANDS``: the same text click writes from the
    commands themselves."""
    eager = click.Group(
        "ome-ranker",
        help=cli.help,
        context_settings=cli.context_settings,
        params=cli.params,
        commands=[cli.get_command(click.Context(cli), name) for name in COMMANDS],
    )
    listed = invoke("--help")
    assert listed.exit_code == 0
    assert listed.stdout == CliRunner().invoke(eager, ["--help"], prog_name="cli").stdout
    for name, (_, line) in COMMANDS.items():
        command = cli.get_command(click.Context(cli), name)
        assert command is not None and command.name == name
        assert command.get_short_help_str(1000) == line, name


def test_an_unknown_command_is_a_usage_error():
    result = invoke("lnit")
    assert result.exit_code == 2
    assert "No such command 'lnit'" in result.stderr


def run_command(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )


def test_the_process_ends_with_its_output_written_and_its_exit_code(tmp_path):
    """``main`` ends the process without the interpreter's teardown: what the command wrote is
    all there, piped, and the exit code is the command's."""
    tree = write_tree(tmp_path)
    linted = run_command("lint", "-R", "-f", str(tree), "--severity", "info", "-o", "json")
    assert linted.returncode == 1
    assert json.loads(linted.stdout)["admitted"] is False
    assert linted.stderr == "error: the manifests would not be admitted\n"
    assert run_command("--version").stdout == "ome-ranker, version 0.2.0\n"
    assert run_command("lint").returncode == 2
    assert run_command("nope").returncode == 2


def test_a_reader_that_goes_away_is_no_traceback(tmp_path):
    """An answer larger than a pipe holds, to a reader that stops after its first byte."""
    root = write_repository(tmp_path / "repository", 300)
    shell = f"{sys.executable} -m app.cli lint -R -f {root} -o json | head -c 1"
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {shell}"], cwd=ROOT, capture_output=True, text=True
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 1  # the command's own


def test_a_local_lint_of_valid_manifests_loads_no_schema(tmp_path):
    """The plain loaders read every runtime, model and InferenceService of a generated
    repository: marshmallow and the schemas built on it are not imported (issue #32 item 7)."""
    root = write_repository(tmp_path / "repository", 50)
    after = loaded_after("lint", "-R", "-f", str(root))
    assert after["code"] in (0, 1)
    assert "app.linting" in after["modules"]
    loaded = set(after["modules"])
    assert (
        sorted(loaded & {"marshmallow", "app.schemas.document_schemas", "app.schemas.stored"}) == []
    )


def test_a_local_lint_of_an_unusual_manifest_loads_the_schemas(tmp_path):
    """A document out of the plain loaders' reach is read by marshmallow, as the service reads
    it (the same answer: tests/test_linting.py)."""
    (tmp_path / "model.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata: {name: m}\n"
        "spec: {modelFormat: {name: safetensors}, diffusionPipeline: {className: P}}\n"
    )
    after = loaded_after("lint", "-f", str(tmp_path / "model.yaml"))
    assert after["code"] in (0, 1)
    assert "marshmallow" in after["modules"]
