"""``python -m bench.command_line``: the command line's start-up and a local lint, each against a
baseline measured in the same run, in fresh interpreters (bench/README.md "The command line").

* ``ome-ranker --version`` (and ``--help``) against ``python -c pass``;
* ``ome-ranker lint -R -f DIR`` of a generated repository (``bench.repository``: 200 and 2 000
  files) against parsing the same files with PyYAML's C loader (``yaml.CSafeLoader``).

Each figure is the CPU time (user + system) of the child process, the median of ``--rounds``
runs, the commands of one comparison alternating. The children find the project's modules
compiled (a temporary ``PYTHONPYCACHEPREFIX``, filled by a first, untimed run), as an installed
package does; ``--no-bytecode`` measures them compiled from source every time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .report import Table, Target, targets_table
from .repository import write_repository

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "app.cli"]  # ome-ranker, from this checkout
PARSE = """
import os, sys, yaml
for directory, subdirectories, files in os.walk(sys.argv[1]):
    subdirectories.sort()
    for name in sorted(files):
        if name.endswith((".yaml", ".yml", ".json")):
            with open(os.path.join(directory, name), "rb") as handle:
                list(yaml.load_all(handle.read(), Loader=yaml.CSafeLoader))
"""
VERSION_TARGET, LINT_TARGET = 6.0, 3.0
# A lint exits 0 (admitted) or 1 (an object refused); anything else is a failed run.
LINT_EXITS = (0, 1)


def cpu_seconds(command: Sequence[str], environment: dict[str, str], exits=(0,)) -> float:
    """User + system CPU time of one run of ``command``, its output discarded."""
    child = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    error = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in exits:
        raise SystemExit(f"{' '.join(command)} exited {code}: {error.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def compare(
    commands: dict[str, tuple[Sequence[str], tuple[int, ...]]],
    environment: dict[str, str],
    rounds: int,
) -> dict[str, float]:
    """Median CPU seconds of each command, run in turn ``rounds`` times after one untimed run."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_number in range(rounds + 1):
        for name, (command, exits) in commands.items():
            spent = cpu_seconds(command, environment, exits)
            if round_number:
                times[name].append(spent)
    return {name: statistics.median(spent) for name, spent in times.items()}


def child_environment(bytecode: bool, cache: Path) -> dict[str, str]:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("OME_RANKER_") and name not in ("REDIS_URL", "PYTHONPYCACHEPREFIX")
    }
    if bytecode:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = str(cache)
    else:
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def run(sizes: Sequence[int], rounds: int, bytecode: bool) -> tuple[Table, list[Target]]:
    workdir = Path(tempfile.mkdtemp(prefix="ome-ranker-bench-cli-"))
    try:
        environment = child_environment(bytecode, workdir / "pycache")
        table = Table(
            "The command line: CPU time of a fresh process, median of "
            f"{rounds} (modules {'compiled once' if bytecode else 'compiled every run'})",
            ("command", "ms", "baseline", "baseline ms", "ratio"),
        )
        targets = []
        bare = [sys.executable, "-c", "pass"]
        started = compare(
            {
                "pass": (bare, (0,)),
                "version": ([*COMMAND, "--version"], (0,)),
                "help": ([*COMMAND, "--help"], (0,)),
            },
            environment,
            rounds,
        )
        for name in ("version", "help"):
            ratio = started[name] / started["pass"]
            table.add(
                f"ome-ranker --{name}",
                f"{started[name] * 1000:.1f}",
                "python -c pass",
                f"{started['pass'] * 1000:.1f}",
                f"{ratio:.2f}×",
            )
            if name == "version":
                targets.append(
                    Target(
                        "ome-ranker --version vs python -c pass",
                        f"≤ {VERSION_TARGET:g}×",
                        f"{ratio:.2f}×",
                        ratio <= VERSION_TARGET,
                    )
                )
        for files in sizes:
            root = write_repository(workdir / f"repository-{files}", files)
            spent = compare(
                {
                    "parse": ([sys.executable, "-c", PARSE, str(root)], (0,)),
                    "lint": ([*COMMAND, "lint", "-R", "-f", str(root)], LINT_EXITS),
                },
                environment,
                rounds,
            )
            ratio = spent["lint"] / spent["parse"]
            table.add(
                f"ome-ranker lint -R ({files} files)",
                f"{spent['lint'] * 1000:.0f}",
                "PyYAML C loader, same files",
                f"{spent['parse'] * 1000:.0f}",
                f"{ratio:.2f}×",
            )
            targets.append(
                Target(
                    f"lint -R of {files} files vs parsing them",
                    f"≤ {LINT_TARGET:g}×",
                    f"{ratio:.2f}×",
                    ratio <= LINT_TARGET,
                )
            )
        return table, targets
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.command_line", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--sizes", default="200,2000", help="files per generated repository (200,2000)"
    )
    parser.add_argument("--rounds", type=int, default=7, help="runs per command (7)")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="compile the modules in every run"
    )
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    table, targets = run(sizes, max(args.rounds, 1), not args.no_bytecode)
    print(table.markdown())
    print(targets_table(targets).markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
