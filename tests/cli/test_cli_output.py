"""Tables on a terminal: long last cells wrapped under their column, never cut; piped output is
the API's text as it came."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import yaml

from app.cli.output import wrap_line, wrap_table
from tests.cli.support import ROOT, SEED, invoke, write_yaml

TABLE = (
    "RUNTIME   SCOPE     REASON\n"
    "a         Cluster   -\n"
    "b-long    Cluster   model format safetensors does not match entry format gguf-quantized\n"
)


def test_the_last_column_wraps_under_itself():
    assert wrap_table(TABLE, 50).splitlines() == [
        "RUNTIME   SCOPE     REASON",
        "a         Cluster   -",
        "b-long    Cluster   model format safetensors does",
        "                    not match entry format",
        "                    gguf-quantized",
    ]
    assert wrap_table(TABLE, 200) == TABLE


def test_words_are_never_cut_and_cells_keep_a_minimum_width():
    text = "A   B\nx   " + "w" * 30 + " short\n"
    assert wrap_table(text, 10).splitlines() == ["A   B", "x   " + "w" * 30, "    short"]
    line = "file.yaml:1: error: ClusterServingRuntime vllm: " + "word " * 12
    wrapped = wrap_line(line.strip(), 40).splitlines()
    assert all(len(piece) <= 40 for piece in wrapped)
    assert all(piece.startswith("    ") for piece in wrapped[1:])
    assert " ".join(piece.strip() for piece in wrapped) == line.strip()


def test_on_a_terminal_the_command_wraps_to_its_width(tmp_path):
    path = write_yaml(
        tmp_path / "m.yaml",
        *[doc for doc in yaml.safe_load_all(SEED.read_text()) if doc["kind"] != "ServingRuntime"],
    )
    piped = invoke("select", "-f", str(path)).stdout
    assert max(len(line) for line in piped.splitlines()) > 70
    leader, follower = pty.openpty()
    environment = {**os.environ, "COLUMNS": "70", "PYTHONPATH": str(ROOT)}
    process = subprocess.run(
        [sys.executable, "-m", "app.cli", "select", "-f", str(path)],
        stdout=follower,
        stderr=subprocess.PIPE,
        env=environment,
        cwd=ROOT,
        timeout=60,
    )
    os.close(follower)
    assert process.returncode == 0, process.stderr
    shown = os.read(leader, 65536).decode().replace("\r\n", "\n")
    os.close(leader)
    assert max(len(line) for line in shown.splitlines()) <= 70
    assert shown.split() == piped.split()  # the same words, only wrapped
