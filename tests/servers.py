"""The real servers tests start, in one place: gunicorn with the shipped
``config/gunicorn.conf.py`` on a spare loopback port (``Service``), a redis-server of the test's
own that it may kill, fill or cluster (``RedisServer``), a TCP server that accepts connections
but never answers (``HungServer``), an HTTP proxy that records what a client sends a service
(``Proxy``), and an HTTP server that answers from a script (``ScriptedServer``: another service,
or a proxy whose service is down). The fixtures that start them are in ``tests/conftest.py``."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import pytest
import redis

from tests.paths import ROOT
from tests.waiting import wait_for

# How long a test of a real server lets one answer take before calling it a hang: far more than
# any answer takes (well under a second on an idle machine), so that no busy machine reaches it;
# less than the worker timeout (30 s) at which gunicorn kills a worker stuck on one request.
HANG_SECONDS = 20.0
CONF = ROOT / "config" / "gunicorn.conf.py"
SEED_YAML = (ROOT / "tests" / "fixtures" / "seed_example.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


class Service:
    """gunicorn started by a test; its master's log (all of stderr) goes to a file."""

    # Run in the child before gunicorn starts (e.g. to join a cgroup), or None.
    preexec: Callable[[], None] | None = None

    def __init__(self, directory: Path, **environment: str) -> None:
        self.port = free_port()
        self.log_path = directory / f"gunicorn-{self.port}.log"
        self.environment = {
            "OME_RANKER_BIND": f"127.0.0.1:{self.port}",
            "OME_RANKER_WORKERS": "2",
            "OME_RANKER_DRAIN_SECONDS": "0",
            "PROMETHEUS_MULTIPROC_DIR": str(directory / f"metrics-{self.port}"),
            **environment,
        }
        self.process: subprocess.Popen | None = None

    def start(self) -> Service:
        env = {**os.environ, **self.environment}
        for name in ("REDIS_URL", "OME_RANKER_CACHE_SECRET"):
            if name not in self.environment:
                env.pop(name, None)
        command = [sys.executable, "-m", "gunicorn", "--config", str(CONF), "app:create_app()"]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=self.preexec,
            )
        process = self.process

        def outcome() -> str | None:
            if process.poll() is not None:
                return "it exited"
            try:
                healthy = self.request("GET", "/healthz", timeout=HANG_SECONDS)[0] == 200
            except OSError:
                return None
            return "up" if healthy else None

        try:
            started = wait_for(outcome, "gunicorn answers /healthz", every=0.1)
        except AssertionError as never:
            started = str(never)
        if started != "up":
            self.stop()
            raise RuntimeError(f"gunicorn did not start ({started}):\n{self.log()}")
        return self

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        returncode, self.process = self.process.returncode, None
        return returncode

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str) -> bool:
        """True once ``text`` is in the log (a line written just after an answer may come after
        the client read it); fails if it never comes."""
        return wait_for(lambda: text in self.log(), f"{text!r} in the log")

    def log_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log().splitlines() if line.startswith("{")]

    def worker_pids(self) -> set[int]:
        booted = re.findall(r'"Booting worker with pid: (\d+)"', self.log())
        exited = re.findall(r'"Worker exiting \(pid: (\d+)\)"', self.log())
        return {int(pid) for pid in booted} - {int(pid) for pid in exited}

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 5,
        port: int | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request on a new connection, to the API's port or ``port``."""
        connection = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def assert_still_serving(self) -> None:
        """The master never killed a worker for its timeout, and a good request is answered
        (within HANG_SECONDS: no worker is stuck)."""
        status, headers, body = self.request(
            "POST", "/v1/rank", SEED_YAML, YAML, timeout=HANG_SECONDS
        )
        assert (status, headers["Content-Type"]) == (200, "application/json"), body
        assert json.loads(body)["selected"]["name"] == "team-llama"
        assert "WORKER TIMEOUT" not in self.log()


# --- Redis --------------------------------------------------------------------------------------

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def require_redis_server() -> None:
    """Skip without a redis-server binary, except under CI=true, where that is a failure."""
    if not os.access(REDIS_SERVER, os.X_OK):
        message = f"no redis-server binary at {REDIS_SERVER}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


class RedisServer:
    """A redis-server process on a free port that keeps nothing on disk. With
    ``--requirepass`` among its options, the test's own clients send that password (``url``
    has none: a test writes the credentials it means to)."""

    def __init__(self, directory: Path, *options: str) -> None:
        self.port = free_port()
        self.directory = directory
        self.options = options
        self.password = (
            options[options.index("--requirepass") + 1] if "--requirepass" in options else None
        )
        self.process: subprocess.Popen | None = None
        self.started = False

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A client for the test to poke the server with; the caller closes it."""
        return redis.Redis(
            port=self.port, password=self.password, socket_connect_timeout=2, socket_timeout=5
        )

    def start(self) -> RedisServer:
        """Start it, and wait until it answers. A first start whose port another process took
        between ``free_port`` and the bind (the server exits at once) moves to new free ports."""
        for _ in range(5):
            if self._spawn():
                self.started = True
                return self
            if self.started:
                break  # a restart keeps its port: the test reconnects to it
            self.port = free_port()
            if "--cluster-port" in self.options:
                options = list(self.options)
                options[options.index("--cluster-port") + 1] = str(free_port())
                self.options = tuple(options)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def _spawn(self) -> bool:
        """True once the server answers; False when it exited first. Waits for an event (an
        answer, an exit), with a generous bound for a busy machine."""
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                *("--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory)),
                *("--save", "", "--appendonly", "no", "--loglevel", "warning"),
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while True:
            probe = redis.Redis(
                port=self.port, password=self.password, socket_connect_timeout=0.2, socket_timeout=1
            )
            try:
                probe.ping()
                return True
            except redis.ConnectionError:
                if self.process.poll() is not None:
                    self.stop()
                    return False
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"redis-server on port {self.port} did not start") from None
                time.sleep(0.02)
            finally:
                probe.close()

    def stop(self) -> None:
        """Kill it (SIGKILL: no goodbye to the clients, as when a node dies)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class HungServer:
    """Accepts TCP connections and never sends a byte, like a Redis stuck in a long command or a
    firewall that swallows packets after the handshake. Counts the connections made to it."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = self._listener.getsockname()[1]
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def connections(self) -> int:
        """The connections clients have made so far, exactly, without waiting: by the time a
        client has given up waiting for an answer, the kernel holds its connection in the
        listener's queue, and what waits there is accepted (and counted) now."""
        with self._lock:
            while True:
                try:
                    connection, _ = self._listener.accept()
                except BlockingIOError:
                    return len(self._connections)
                self._connections.append(connection)

    def _accept_forever(self) -> None:
        # Keeps the queue short while clients connect; connections() counts what is left.
        while not self._stopping.is_set():
            select.select([self._listener], [], [], 0.05)
            self.connections()

    def close(self) -> None:
        self._stopping.set()
        self._thread.join()
        for connection in self._connections:
            with contextlib.suppress(OSError):
                connection.close()
        self._listener.close()


# --- HTTP ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Forwarded:
    method: str
    path: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case


class _Serving(http.server.ThreadingHTTPServer):
    """An HTTP server of a test's own on a spare loopback port, served from a thread while
    ``running``."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}"

    @contextlib.contextmanager
    def running(self) -> Iterator[Self]:
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.shutdown()
            self.server_close()
            thread.join()


class Proxy(_Serving):
    """A plain HTTP proxy on a spare loopback port to a service at ``upstream``: it records
    every request it forwards (``forwarded``), and calls ``before(request)`` just before it
    forwards one (another writer's turn, say)."""

    def __init__(self, upstream: int, before: Callable[[Forwarded], None] | None = None) -> None:
        self.upstream = upstream
        self.before = before
        self.forwarded: list[Forwarded] = []
        super().__init__(("127.0.0.1", 0), _Forward)


class _Forward(http.server.BaseHTTPRequestHandler):
    server: Proxy

    def log_message(self, *args: object) -> None:  # the test's output stays clean
        pass

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = Forwarded(self.command, self.path, body)
        self.server.forwarded.append(request)
        if self.server.before is not None:
            self.server.before(request)
        connection = http.client.HTTPConnection("127.0.0.1", self.server.upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
        try:
            connection.request(self.command, self.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
        finally:
            connection.close()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _forward


@dataclass(frozen=True)
class Scripted:
    """One answer of a ``ScriptedServer``: a status, a body, headers."""

    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()


class ScriptedServer(_Serving):
    """Something else at the address a client is given (another service, a proxy whose service
    is down), on a spare loopback port: it answers each request with the next answer of its
    script (the last one again once the script is done) and records every request
    (``forwarded``: method, path and body)."""

    def __init__(self, *script: Scripted) -> None:
        self.script = list(script)
        self.forwarded: list[Forwarded] = []
        super().__init__(("127.0.0.1", 0), _Scripted)

    def next_answer(self, request: Forwarded) -> Scripted:
        self.forwarded.append(request)
        return self.script[min(len(self.forwarded), len(self.script)) - 1]


class _Scripted(http.server.BaseHTTPRequestHandler):
    server: ScriptedServer

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        answer = self.server.next_answer(Forwarded(self.command, self.path, body, headers))
        self.send_response(answer.status)
        for name, value in answer.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    do_GET = do_PUT = do_POST = do_DELETE = _answer
