"""What the docs' commands write into the repository's root (token secrets, the token file) is
ignored by git, so that following them never stages a secret; and no tracked file is hidden by
the ignore rules (deploy/kubernetes/examples/tokens.yaml is an example, not a token file)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.paths import ROOT

PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "deploy/kubernetes/README.md",
]
# `--secret-file NAME` and `} > NAME` of the shell blocks: files the commands create (not the
# placeholders of option tables, `--secret-file PATH`).
WRITTEN = re.compile(r"--secret-file ([a-z][\w.-]*)|\} > ([a-z][\w.-]*)")


def git(*args: str) -> subprocess.CompletedProcess:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    return subprocess.run(
        ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, check=False
    )


def written_by_the_docs() -> set[str]:
    found = set()
    for page in PAGES:
        for secret, redirected in WRITTEN.findall(page.read_text(encoding="utf-8")):
            found.add(secret or redirected)
    return found


def test_what_the_docs_write_is_ignored():
    names = written_by_the_docs()
    assert {"tokens.yaml", "admin.secret", "sync-prod-east.secret"} <= names
    checked = git("check-ignore", "--no-index", *sorted(names))
    assert sorted(checked.stdout.split()) == sorted(names), checked.stderr


def test_no_tracked_file_is_ignored():
    hidden = git("ls-files", "--cached", "--ignored", "--exclude-standard")
    assert hidden.returncode == 0, hidden.stderr
    assert hidden.stdout == ""
    assert git("check-ignore", "deploy/kubernetes/examples/tokens.yaml").returncode == 1
