"""Section 4: gunicorn with the shipped config, a load generator on loopback.

One gunicorn per cache backend (``config/gunicorn.conf.py``; only the bind address, the worker
count, the cache settings and a shorter graceful timeout come from the environment) serving the
production app plus one bench route (``bench/trivial_app.py``), then scenarios of a fixed
duration, each at the same concurrency: ``GET /healthz`` (the baseline: a fixed JSON document from
the same app, through the same hooks), ``POST /bench/trivial`` (the same body, read and answered
with a fixed document: what carrying the body costs), 100 % cache hits, a 90/10 mix, 100 %
misses (``Cache-Control: no-cache``: skip the reads, rank, store). ``wrk`` sends the load
when it is installed (``bench/wrk_post.lua`` posts the body); otherwise a Python client (threads,
``http.client``), which on a small machine competes with the server for the CPUs and measures
less. Every process started here is stopped here, also on Ctrl-C or an error.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .report import Table
from .timing import milliseconds
from .trivial_app import TRIVIAL_PATH

ROOT = Path(__file__).resolve().parent.parent
LUA_SCRIPT = Path(__file__).resolve().parent / "wrk_post.lua"
LOOPBACK = "127.0.0.1"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 15.0
GRACEFUL_SECONDS = "5"
CACHE_COUNTERS = ("hits", "misses", "bypasses", "errors")
MAX_CLIENT_REQUESTS = 1_000_000  # per Python client thread: a bound besides the deadline


@dataclass(frozen=True)
class Scenario:
    name: str
    path: str
    post: bool
    miss_every: int  # every n-th request sends Cache-Control: no-cache (0: none)


@dataclass(frozen=True)
class LoadResult:
    requests: int
    seconds: float
    p50: float
    p99: float
    non_2xx: int
    socket_errors: int
    client_cpu: float = 0.0  # seconds of CPU the load generator used

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds

    @property
    def errors(self) -> int:
        return self.non_2xx + self.socket_errors


def _stat_fields(pid: int) -> list[str]:
    # After the ")" closing the command name: state, ppid, … utime, stime, cutime, cstime.
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()


def process_tree_cpu(root: int) -> float:
    """CPU seconds of ``root``, its children that have exited (recycled workers), and its live
    children; ``/proc`` only, so Linux only (0 elsewhere)."""
    ticks = os.sysconf("SC_CLK_TCK")
    try:
        fields = _stat_fields(root)
    except OSError:
        return 0.0
    total = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            child = _stat_fields(int(entry.name))
        except (OSError, ValueError):
            continue
        if child[1] == str(root):
            total += int(child[11]) + int(child[12])
    return total / ticks


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def shipped_workers() -> int:
    """The worker count config/gunicorn.conf.py picks on this machine (CPUs + 1)."""
    import runpy

    return int(runpy.run_path(str(ROOT / "config" / "gunicorn.conf.py"))["workers"])


class Gunicorn:
    """``gunicorn --config config/gunicorn.conf.py 'app:create_app()'`` on a loopback port."""

    def __init__(self, *, workers: int, redis_url: str | None, prefix: str, workdir: Path):
        self.port = free_port()
        self.workers = workers
        self.log_path = workdir / f"gunicorn-{self.port}.log"
        self.env = dict(os.environ)
        for name in ("PROMETHEUS_MULTIPROC_DIR", "OME_RANKER_CACHE_LOCAL_ENTRIES"):
            self.env.pop(name, None)  # the config makes (and removes) its own metrics directory
        self.env.update(
            OME_RANKER_BIND=f"{LOOPBACK}:{self.port}",
            OME_RANKER_WORKERS=str(workers),
            OME_RANKER_GRACEFUL_TIMEOUT=GRACEFUL_SECONDS,
            OME_RANKER_CACHE_PREFIX=prefix,
            REDIS_URL=redis_url or "",
        )
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Gunicorn:
        command = [
            sys.executable, "-m", "gunicorn", "--config", "config/gunicorn.conf.py",
            "bench.trivial_app:create_bench_app()",
        ]  # fmt: skip
        with open(self.log_path, "wb") as log:
            # Its own session: a Ctrl-C in the terminal reaches the benchmark, which stops it.
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited at start-up:\n{self.log_tail()}")
            try:
                status, _, _ = self.request("GET", "/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"gunicorn not ready after {START_TIMEOUT:.0f}s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM (graceful), then SIGKILL to the whole process group if it lingers."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT)

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def worker_boots(self) -> int:
        try:
            return self.log_path.read_text(errors="replace").count("Booting worker")
        except OSError:
            return 0

    def request(self, method: str, path: str, body: bytes | None = None, headers=None):
        connection = http.client.HTTPConnection(LOOPBACK, self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def cache_counters(self) -> dict[str, float]:
        """The cache counters of /metrics, summed over every worker."""
        _, _, text = self.request("GET", "/metrics")
        found = dict.fromkeys(CACHE_COUNTERS, 0.0)
        for counter in CACHE_COUNTERS:
            match = re.search(rf"^ome_ranker_cache_{counter}_total (\S+)$", text.decode(), re.M)
            if match:
                found[counter] = float(match[1])
        return found


def run_wrk(
    server: Gunicorn,
    scenario: Scenario,
    body_file: Path,
    seconds: float,
    connections: int,
    headers: dict[str, str] | None = None,
) -> LoadResult:
    """One wrk run; ``headers`` go on every request of a GET scenario."""
    threads = max(1, min(connections, os.cpu_count() or 1))
    env = dict(os.environ)
    env["BENCH_BODY_FILE"] = str(body_file) if scenario.post else ""
    env["BENCH_MISS_EVERY"] = str(scenario.miss_every)
    command = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s",
        "-s", str(LUA_SCRIPT), f"http://{LOOPBACK}:{server.port}{scenario.path}",
        *(f"-H{name}: {value}" for name, value in (headers or {}).items()),
    ]  # fmt: skip
    cpu_before = _children_cpu()
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=seconds + 60, check=False
    )
    client_cpu = _children_cpu() - cpu_before
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH_JSON ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    summary = json.loads(line.removeprefix("BENCH_JSON "))
    return LoadResult(
        requests=summary["requests"],
        seconds=summary["duration_us"] / 1e6,
        p50=summary["p50_us"] / 1e6,
        p99=summary["p99_us"] / 1e6,
        non_2xx=summary["status"],
        socket_errors=sum(summary[k] for k in ("connect", "read", "write", "timeout")),
        client_cpu=client_cpu,
    )


def run_python_client(
    server: Gunicorn, scenario: Scenario, body_file: Path, seconds: float, connections: int
) -> LoadResult:
    """Fallback load generator: one thread and one keep-alive connection per connection."""
    body = body_file.read_bytes() if scenario.post else None
    method = "POST" if scenario.post else "GET"
    plain = {"Content-Type": "application/json"} if scenario.post else {}
    miss = {**plain, "Cache-Control": "no-cache"}
    latencies: list[list[float]] = [[] for _ in range(connections)]
    errors = [[0, 0] for _ in range(connections)]  # non-2xx, socket
    deadline = time.monotonic() + seconds

    def client(index: int) -> None:
        connection = http.client.HTTPConnection(LOOPBACK, server.port, timeout=10)
        sent = 0
        try:
            while time.monotonic() < deadline and sent < MAX_CLIENT_REQUESTS:
                sent += 1
                missing = scenario.miss_every and sent % scenario.miss_every == 0
                started = time.perf_counter()
                try:
                    connection.request(method, scenario.path, body, miss if missing else plain)
                    response = connection.getresponse()
                    response.read()
                except (OSError, http.client.HTTPException):
                    errors[index][1] += 1
                    connection.close()
                    continue
                latencies[index].append(time.perf_counter() - started)
                if not 200 <= response.status < 300:
                    errors[index][0] += 1
        finally:
            connection.close()

    started, cpu_before = time.monotonic(), _own_cpu()
    workers = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(connections)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=seconds + 30)
    elapsed = time.monotonic() - started
    merged = sorted(value for values in latencies for value in values)
    if not merged:
        raise RuntimeError("the Python load client got no answer at all")
    return LoadResult(
        requests=len(merged),
        seconds=elapsed,
        p50=merged[len(merged) // 2],
        p99=merged[min(len(merged) - 1, int(len(merged) * 0.99))],
        non_2xx=sum(e[0] for e in errors),
        socket_errors=sum(e[1] for e in errors),
        client_cpu=_own_cpu() - cpu_before,
    )


def load_client(choice: str):
    """``wrk`` when asked for or found, else the Python client."""
    if choice == "python":
        return "python", run_python_client
    if shutil.which("wrk"):
        return "wrk", run_wrk
    if choice == "wrk":
        raise RuntimeError("--load-client wrk, but wrk is not installed (apt-get install wrk)")
    return "python", run_python_client


def _warm(server: Gunicorn, body: bytes, rounds: int) -> str | None:
    """Fill the cache (every worker, for the in-process backend); the last answer's X-Cache."""
    result = None
    for _ in range(rounds):
        status, headers, answer = server.request(
            "POST", "/v1/rank", body, {"Content-Type": "application/json"}
        )
        if status != 200:
            raise RuntimeError(f"/v1/rank answered {status}: {answer[:200]!r}")
        result = headers.get("X-Cache")
    return result


HEALTHZ = Scenario("GET /healthz (baseline)", "/healthz", post=False, miss_every=0)
TRIVIAL_POST = Scenario("POST /bench/trivial (same body)", TRIVIAL_PATH, post=True, miss_every=0)
HIT = Scenario("100 % hit", "/v1/rank", post=True, miss_every=0)
SCENARIOS = (
    HEALTHZ,
    TRIVIAL_POST,
    HIT,
    Scenario("90 % hit, 10 % no-cache", "/v1/rank", post=True, miss_every=10),
    Scenario("100 % no-cache (miss)", "/v1/rank", post=True, miss_every=1),
)
MEMORY_SCENARIOS = (HIT,)


def redis_cpu(url: str | None) -> float | None:
    """CPU seconds the Redis server has used (INFO cpu): every client's, not only ours."""
    if url is None:
        return None
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        info = client.info("cpu")
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    except redis.RedisError:
        return None
    finally:
        client.close()


def _per_request(seconds: float | None, requests: int) -> str:
    if seconds is None or requests == 0:
        return "-"
    return f"{seconds * 1000 / requests:.2f}"


def load_section(
    *,
    body: bytes,
    runtimes: int,
    seconds: float,
    connections: int,
    workers: int,
    redis_url: str | None,
    prefix: str,
    workdir: Path,
    client_choice: str,
    progress,
) -> tuple[Table, dict[str, float | int | None]]:
    client_name, run = load_client(client_choice)
    body_file = workdir / f"body-{runtimes}.json"
    body_file.write_bytes(body)
    table = Table(
        f"4. Under load: gunicorn ({workers} sync workers, shipped config), {client_name}, "
        f"{connections} connections, {seconds:g} s per scenario, {runtimes} runtimes "
        f"({len(body) / 1024:.0f} KiB body)",
        (
            "backend",
            "scenario",
            "requests/s",
            "vs /healthz",
            "vs trivial POST",
            "p50 ms",
            "p99 ms",
            "errors (non-2xx + socket)",
            "server-side hit / miss / bypass",
            "CPU ms/request: server / client / Redis",
        ),
    )
    outcome: dict[str, float | int | None] = {"hit_ratio": None, "hit_errors": None}
    backends = [("redis", redis_url, SCENARIOS)] if redis_url else []
    backends.append(("memory", None, MEMORY_SCENARIOS if redis_url else SCENARIOS))
    baseline: float | None = None
    post_baseline: float | None = None
    boots = []
    for backend, url, scenarios in backends:
        with Gunicorn(
            workers=workers, redis_url=url, prefix=f"{prefix}{backend}:", workdir=workdir
        ) as server:
            for scenario in scenarios:
                ranking = scenario.path == "/v1/rank"
                if ranking and scenario.miss_every != 1:
                    warmed = _warm(server, body, rounds=4 * workers if url is None else 2)
                    if warmed != "hit":
                        raise RuntimeError(f"{backend}: a repeated request got X-Cache {warmed}")
                progress(f"load: {backend}, {scenario.name} …")
                before = server.cache_counters()
                server_cpu, store_cpu = process_tree_cpu(server.process.pid), redis_cpu(url)
                result = run(server, scenario, body_file, seconds, connections)
                server_cpu = process_tree_cpu(server.process.pid) - server_cpu
                if store_cpu is not None:
                    after_cpu = redis_cpu(url)
                    store_cpu = None if after_cpu is None else after_cpu - store_cpu
                after = server.cache_counters()
                counts = {k: int(after[k] - before[k]) for k in CACHE_COUNTERS}
                if scenario is HEALTHZ:
                    baseline = result.per_second
                if scenario is TRIVIAL_POST:
                    post_baseline = result.per_second
                versus = f"{result.per_second / baseline:.2f}" if baseline else "-"
                versus_post = "-"
                if post_baseline and scenario.post:
                    versus_post = f"{result.per_second / post_baseline:.2f}"
                if scenario is HIT:
                    ratio = result.per_second / baseline if baseline else None
                    if outcome["hit_ratio"] is None or backend == "redis":
                        outcome["hit_ratio"], outcome["hit_errors"] = ratio, result.errors
                    outcome[f"{backend}_hit_ratio"] = ratio
                    outcome[f"{backend}_hit_errors"] = result.errors
                    if post_baseline:
                        outcome[f"{backend}_hit_vs_post"] = result.per_second / post_baseline
                cache_counts = "-"
                if ranking:
                    cache_counts = f"{counts['hits']} / {counts['misses']} / {counts['bypasses']}"
                    if counts["errors"]:
                        cache_counts += f", {counts['errors']} cache errors"
                table.add(
                    backend,
                    scenario.name,
                    f"{result.per_second:.0f}",
                    versus,
                    versus_post,
                    milliseconds(result.p50),
                    milliseconds(result.p99),
                    f"{result.errors} ({result.non_2xx} + {result.socket_errors})",
                    cache_counts,
                    " / ".join(
                        _per_request(cpu, result.requests)
                        for cpu in (server_cpu, result.client_cpu, store_cpu)
                    ),
                )
                time.sleep(0.5)
            boots.append(f"{backend}: {server.worker_boots()}")
    table.notes.append(
        "vs /healthz: requests/s divided by GET /healthz's, measured first on the same server "
        "(the same app, hooks, workers and client); the target is ≥ 0.7 for 100 % hit. "
        "vs trivial POST: divided by POST /bench/trivial's (the same body, read and answered "
        "with a fixed document), i.e. without what carrying the body costs"
    )
    table.notes.append(
        "server-side counts: the deltas of ome_ranker_cache_*_total on /metrics over each "
        "scenario; CPU ms/request: the gunicorn master and workers (recycled ones included), the "
        "load generator, and the Redis server (INFO cpu: every client's), over the scenario"
    )
    table.notes.append(
        "worker boots (start-up + recycling after OME_RANKER_MAX_REQUESTS): " + ", ".join(boots)
    )
    return table, outcome
