"""The command as installed: the console script pyproject declares, ``python -m app.cli``, the
files an installed copy needs, ``ome-ranker serve``, the version, and the CI examples of
docs/cli.md."""

from __future__ import annotations

import http.client
import os
import re
import shlex
import signal
import subprocess
import sys
import tomllib

import pytest
import yaml

from app.version import __version__
from tests.cli.support import ROOT, invoke
from tests.servers import free_port
from tests.waiting import wait_for

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGES = ("app", "config", "migrations")


def test_pyproject_declares_the_console_script_and_a_build():
    assert PYPROJECT["project"]["scripts"] == {"ome-ranker": "app.cli:main"}
    assert PYPROJECT["build-system"]["build-backend"] == "setuptools.build_meta"
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    assert set(setuptools["packages"]["find"]["include"]) == {"app*", "config*", "migrations*"}


def test_every_file_the_packages_read_is_package_data():
    """Files under app/, config/, migrations/ that are not Python modules must be matched by a
    package-data pattern, or an installed copy misses them (/docs, the OpenAPI examples)."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    packages = [init.parent for top in PACKAGES for init in (ROOT / top).rglob("__init__.py")]
    declared = {
        path.resolve()
        for package, patterns in data.items()
        for directory in (packages if package == "*" else [ROOT / package.replace(".", "/")])
        for pattern in patterns
        for path in directory.glob(pattern)
        if path.is_file()
    }
    needed = {
        path.resolve()
        for top in PACKAGES
        for path in (ROOT / top).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc")
    }
    assert needed <= declared, sorted(str(path) for path in needed - declared)
    assert (ROOT / "config" / "gunicorn.conf.py").resolve() in declared


def python_m_app_cli(*args: str) -> subprocess.CompletedProcess:
    """The command run from the checkout, as a developer runs it without installing."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_python_m_app_cli():
    result = python_m_app_cli("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: ome-ranker [OPTIONS] COMMAND [ARGS]...")
    for command in ("rank", "select", "lint", "impact", "selections", "push", "serve", "token"):
        assert re.search(rf"^  {command}\s", result.stdout, re.MULTILINE), command
    assert result.stderr == ""


def _get(port: int, path: str, method: str = "GET") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request(method, path, body=b"{}" if method == "PUT" else None)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.gunicorn
def test_serve_runs_the_service_from_anywhere(tmp_path):
    """From a directory that holds packages named app and config (they must not stand in for the
    service's), with the store where the command was started, as `make run` keeps it."""
    for decoy in ("app", "config"):
        (tmp_path / decoy).mkdir()
        (tmp_path / decoy / "__init__.py").write_text("raise ImportError('a decoy')\n")
    port = free_port()
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "OME_RANKER_BIND")},
        "PYTHONPATH": str(ROOT),  # where an installed script finds the packages
        "OME_RANKER_AUTH": "none",
        "OME_RANKER_WORKERS": "1",
        "OME_RANKER_DRAIN_SECONDS": "0",
    }
    environment.pop("OME_RANKER_STORE_PATH", None)
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(
        # -P: like the console script, no current directory on sys.path
        [sys.executable, "-P", "-m", "app.cli", "serve", "--bind", f"127.0.0.1:{port}"],
        cwd=tmp_path,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:

        def answering() -> bool:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                return _get(port, "/healthz")[0] == 200
            except OSError:
                return False

        wait_for(answering, "the served app answers /healthz")
        assert _get(port, "/docs")[0] == 200
        assert _get(port, "/v1/clusters/local", "PUT")[0] == 201
        assert (tmp_path / "var" / "ome-ranker.sqlite3").is_file()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
        log.close()
    assert process.returncode == 0


def test_serve_refuses_open_access_on_an_address_others_reach(tmp_path):
    """Before gunicorn starts (a subprocess: serve replaces the process that runs it)."""
    environment = {
        **{k: v for k, v in os.environ.items() if k != "OME_RANKER_TOKENS_FILE"},
        "OME_RANKER_AUTH": "none",
    }
    bind = f"0.0.0.0:{free_port()}"
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--bind", bind],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: OME_RANKER_AUTH=none (no access control)")
    assert repr(bind) in result.stderr


def _fenced_yaml(section: str) -> list[str]:
    page = (ROOT / "docs" / "cli.md").read_text()
    start = page.index(f"## {section}\n")
    end = page.find("\n## ", start + 1)
    return re.findall(r"```yaml\n(.*?)```", page[start : end if end >= 0 else None], re.DOTALL)


def test_the_ci_jobs_are_yaml_that_runs_the_command():
    blocks = _fenced_yaml("Use it in CI")
    assert len(blocks) == 2
    github, gitlab = (yaml.safe_load(block) for block in blocks)
    steps = next(iter(github["jobs"].values()))["steps"]
    assert any(step.get("uses", "").startswith("actions/checkout@") for step in steps)
    python = next(step for step in steps if step.get("uses", "").startswith("actions/setup-python"))
    assert str(python["with"]["python-version"]) == "3.11"
    commands = "\n".join(step.get("run", "") for step in steps)
    job = next(value for value in gitlab.values() if isinstance(value, dict) and "script" in value)
    for script in (commands, "\n".join(job["before_script"] + job["script"])):
        assert "ome-ranker lint -R -f manifests/" in script
        assert re.search(r"ome-ranker select -f manifests/ .*--expect ", script)
        assert "pip install" in script
        assert "your-org" not in script  # no placeholder to install from


def test_the_ci_jobs_commands_pass_on_the_example_repository():
    """The steps that need no service, on examples/manifests/ (a repository's manifests/)."""
    github, _ = (yaml.safe_load(block) for block in _fenced_yaml("Use it in CI"))
    steps = next(iter(github["jobs"].values()))["steps"]
    commands = [
        step["run"]
        for step in steps
        if step.get("run", "").startswith("ome-ranker ") and not step.get("env")
    ]
    assert len(commands) == 2
    for command in commands:
        args = shlex.split(
            command.replace("manifests/", str(ROOT / "examples" / "manifests") + "/")
        )
        result = invoke(*args[1:])
        assert result.exit_code == 0, (command, result.stdout, result.stderr)


def test_the_version_has_one_source():
    """app/version.py, which the package's metadata reads and --version prints, from a checkout
    as installed."""
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert "version" not in PYPROJECT["project"]
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]
    assert dynamic["version"] == {"attr": "app.version.__version__"}
    result = python_m_app_cli("--version")
    assert (result.returncode, result.stdout) == (0, f"ome-ranker, version {__version__}\n")
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(__version__)}\b", changelog, flags=re.MULTILINE)


def test_the_licence_is_declared_and_shipped():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text
