"""Real servers the fault tests break on purpose: a redis-server of their own (killed, filled,
clustered) and a TCP server that accepts connections but never answers."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest
import redis

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def require_redis_server() -> None:
    """Skip without a redis-server binary, except under CI=true, where that is a failure."""
    if not os.access(REDIS_SERVER, os.X_OK):
        message = f"no redis-server binary at {REDIS_SERVER}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server process on a free port that keeps nothing on disk."""

    def __init__(self, directory: Path, *options: str) -> None:
        self.port = free_port()
        self.directory = directory
        self.options = options
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A client for the test to poke the server with; the caller closes it."""
        return redis.Redis(port=self.port, socket_connect_timeout=2, socket_timeout=5)

    def start(self) -> RedisServer:
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
        deadline = time.monotonic() + 10
        while True:
            probe = redis.Redis(port=self.port, socket_connect_timeout=0.2, socket_timeout=1)
            try:
                probe.ping()
                return self
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
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
    firewall that swallows packets after the handshake. Counts the connections it accepted."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.accepted = 0
        self._connections: list[socket.socket] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _accept_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            self._connections.append(connection)
            self.accepted += 1

    def close(self) -> None:
        self._stopping.set()
        self._thread.join()
        for connection in self._connections:
            with contextlib.suppress(OSError):
                connection.close()
        self._listener.close()


class ManualClock:
    """A monotonic clock the test moves by hand: cool-downs pass without sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
