"""``python -m bench`` (``make bench``): every benchmark of bench/README.md in one run.

Prints each section's table as it finishes, then the targets, and writes all of it to
``bench/results/latest.md``. ``--quick`` is a short smoke run (smaller sizes, short load).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import redis

from . import core, hot, load, memory
from .manifests import encoded_body
from .report import Table, Target, targets_table
from .timing import Budget
from .wsgi import build_app, quiet_logs

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("core", "cold", "hot", "load", "memory")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/12"  # the tests use 13; we never flush either


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="short run: sizes up to 1000, 3 s load"
    )
    parser.add_argument(
        "--sizes", help="runtime counts, comma-separated (default 10,100,1000,5000)"
    )
    parser.add_argument("--budget", type=float, help="seconds of sampling per comparison (2)")
    parser.add_argument("--duration", type=float, help="seconds per load scenario (10)")
    parser.add_argument("--connections", type=int, default=64, help="concurrent connections (64)")
    parser.add_argument("--workers", type=int, help="gunicorn workers (the shipped default)")
    parser.add_argument("--load-runtimes", type=int, default=100, help="runtimes per load request")
    parser.add_argument("--memory-runtimes", type=int, help="runtimes for the memory run (5000)")
    parser.add_argument("--load-client", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL, help="loopback Redis, own db")
    parser.add_argument("--no-redis", action="store_true", help="in-process cache only")
    parser.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"subset of {','.join(SECTIONS)}"
    )
    parser.add_argument("--output", default=str(ROOT / "bench" / "results" / "latest.md"))
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = [
        int(s) for s in (args.sizes or ("10,100,1000" if quick else "10,100,1000,5000")).split(",")
    ]
    args.budget = args.budget if args.budget is not None else (0.5 if quick else 2.0)
    args.duration = args.duration if args.duration is not None else (3.0 if quick else 10.0)
    if args.memory_runtimes is None:
        args.memory_runtimes = max(args.sizes) if quick else 5000
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    if args.duration <= 0 or args.duration > 600 or args.connections < 1:
        parser.error("--duration must be in (0, 600] and --connections at least 1")
    return args


def reachable_redis(url: str) -> tuple[str | None, str]:
    """The URL when it is a loopback Redis that answers; otherwise None and why."""
    parts = urlsplit(url)
    if parts.scheme != "unix" and parts.hostname not in LOOPBACK_HOSTS:
        raise SystemExit(f"--redis-url must be a loopback address, got {url!r}")
    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        return None, f"no Redis at {url} ({error}): Redis figures skipped"
    finally:
        client.close()
    return url, f"Redis {url}"


def machine() -> list[str]:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(line.split(":", 1)[1].strip() for line in cpuinfo if "model name" in line)
    except (OSError, StopIteration):
        pass
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if _git("status", "--porcelain") else ""
    return [
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"machine: nproc {os.cpu_count()}, {model}, load average at start "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"python: {platform.python_version()} ({sys.executable})",
        f"commit: {commit or 'unknown'}{dirty}",
    ]


def _git(*args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()


def _stop_on_sigterm() -> None:
    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, handler)


class Run:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.started = time.monotonic()
        self.tables: list[Table] = []
        self.targets: list[Target] = []
        self.notes: list[str] = []

    def progress(self, message: str) -> None:
        print(f"[{time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr, flush=True)

    def show(self, table: Table) -> None:
        self.tables.append(table)
        print(table.markdown(), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    _stop_on_sigterm()
    run = Run(args)
    header = machine()
    redis_url, redis_note = (None, "Redis not used (--no-redis)")
    if not args.no_redis:
        redis_url, redis_note = reachable_redis(args.redis_url)
    header.append(redis_note)
    client_name, _ = load.load_client(args.load_client)
    header.append(f"load generator: {client_name}")
    for line in header:
        print(line)
    print()
    prefix = f"ome-ranker-bench:{uuid.uuid4().hex[:12]}:"
    workdir = Path(tempfile.mkdtemp(prefix="ome-ranker-bench-"))
    try:
        sections(run, Context(args, redis_url, prefix, workdir))
    except KeyboardInterrupt:
        print("interrupted: every process started here has been stopped", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        if redis_url:
            client = redis.Redis.from_url(redis_url, socket_timeout=5)
            try:
                hot.delete_prefix(client, prefix)
            finally:
                client.close()
    run.show(targets_table(run.targets))
    write_results(Path(args.output), header, run)
    run.progress(f"done; results in {args.output}")
    return 0


class Context:
    """What every section needs: the options, the sampling budget, Redis, key prefix, temp dir."""

    def __init__(self, args, redis_url: str | None, prefix: str, workdir: Path) -> None:
        self.args = args
        self.budget = Budget(args.budget)
        self.redis_url = redis_url
        self.prefix = prefix
        self.workdir = workdir
        self._bodies: dict[int, bytes] | None = None

    @property
    def bodies(self) -> dict[int, bytes]:
        if self._bodies is None:
            self._bodies = {count: encoded_body(count) for count in self.args.sizes}
        return self._bodies


def section_core(run: Run, ctx: Context) -> None:
    table, growths = core.selection_core(ctx.bodies, ctx.budget)
    run.show(table)
    worst = max(growths) if growths else None
    measured = ", ".join(f"{growth:.1f}×" for growth in growths)
    run.targets.append(
        Target(
            "selection core grows linearly",
            "≤ 11× time per 10× runtimes",
            "-" if worst is None else f"worst {worst:.1f}× ({measured})",
            None if worst is None else worst <= 11,
        )
    )


def section_cold(run: Run, ctx: Context) -> None:
    app = build_app(redis_url=None, prefix=ctx.prefix)
    with quiet_logs():
        overhead = core.harness_overhead(Budget(min(ctx.budget.seconds, 0.5)))
        table, shares, ratios = core.cold_requests(app, ctx.bodies, ctx.budget, ctx.prefix)
    table.notes.append(
        "in process: the Flask app called as a WSGI callable with a prepared environ (the "
        f"driver itself costs {overhead.median * 1e6:.1f} µs per call around a no-op app); "
        "in-process cache backend; log lines formatted and written to /dev/null"
    )
    run.show(table)
    run.show(shares)
    ratio = ratios.get(1000)
    run.targets.append(
        Target(
            "cold request, 1 000 runtimes",
            "≤ 3× JSON round trip of the body",
            "-" if ratio is None else f"{ratio:.2f}×",
            None if ratio is None else ratio <= 3,
        )
    )


def section_hot(run: Run, ctx: Context) -> None:
    with quiet_logs():
        table, ratios = hot.hot_requests(ctx.bodies, ctx.budget, ctx.redis_url, ctx.prefix)
    run.show(table)
    measured = {count: r["redis"] for count, r in ratios.items() if "redis" in r}
    run.targets.append(
        Target(
            "hot request (Redis hit), per size",
            "≤ 1.5× sha256(body) + one GET",
            ", ".join(f"{count}: {ratio:.2f}×" for count, ratio in measured.items()) or "-",
            all(ratio <= 1.5 for ratio in measured.values()) if measured else None,
        )
    )


def section_memory(run: Run, ctx: Context) -> None:
    count = ctx.args.memory_runtimes
    table, _ = memory.memory_section(encoded_body(count), count, ctx.workdir)
    run.show(table)


def section_load(run: Run, ctx: Context) -> None:
    args = ctx.args
    workers = args.workers or load.shipped_workers()
    run.progress(f"   {workers} workers, {args.duration:g} s per scenario")
    table, outcome = load.load_section(
        body=encoded_body(args.load_runtimes),
        runtimes=args.load_runtimes,
        seconds=args.duration,
        connections=args.connections,
        workers=workers,
        redis_url=ctx.redis_url,
        prefix=f"{ctx.prefix}load:",
        workdir=ctx.workdir,
        client_choice=args.load_client,
        progress=run.progress,
    )
    run.show(table)
    ratio, errors = outcome["hit_ratio"], outcome["hit_errors"]
    run.targets.append(
        Target(
            "under load, 100 % cache hits" + (" (Redis)" if ctx.redis_url else " (in-process)"),
            "≥ 0.7× /healthz requests/s, 0 errors",
            "-" if ratio is None else f"{ratio:.2f}×, {errors} errors",
            None if ratio is None else ratio >= 0.7 and errors == 0,
        )
    )


# In this order: the in-process figures first, the load last (it owns the machine).
SECTION_RUNNERS = (
    ("core", "1. selection core", section_core),
    ("cold", "2. cold requests", section_cold),
    ("hot", "3. hot requests", section_hot),
    ("memory", "5. peak memory", section_memory),
    ("load", "4. under load", section_load),
)


def sections(run: Run, ctx: Context) -> None:
    for name, title, runner in SECTION_RUNNERS:
        if name in ctx.args.sections:
            run.progress(f"{title} …")
            runner(run, ctx)


def write_results(path: Path, header: list[str], run: Run) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python -m bench", *sys.argv[1:]])
    lines = ["# ome-ranker benchmark results", "", f"`{command}`", ""]
    lines += [f"- {line}" for line in header]
    lines.append("")
    lines += [table.markdown() for table in run.tables]
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
