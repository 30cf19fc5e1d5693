"""A real gunicorn with the shipped config/gunicorn.conf.py on a spare loopback port, and a raw
socket client that can send what no HTTP library would."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "config" / "gunicorn.conf.py"
SEED_YAML = (ROOT / "tests" / "fixtures" / "seed_example.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


class Service:
    """gunicorn started by a test; its master's log (all of stderr) goes to a file."""

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
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.request("GET", "/healthz", timeout=2)[0] == 200:
                    return self
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gunicorn did not start:\n{self.log()}")
            time.sleep(0.1)

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

    def wait_for_log(self, text: str, timeout: float = 2) -> bool:
        """Whether ``text`` appears in the log within ``timeout`` (a line written just after
        an answer may come after the client read it)."""
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

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
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def assert_still_serving(self) -> None:
        """The master never killed a worker for its timeout, and a good request is answered
        at once."""
        started = time.monotonic()
        status, headers, body = self.request("POST", "/v1/rank", SEED_YAML, YAML)
        assert (status, headers["Content-Type"]) == (200, "application/json"), body
        assert json.loads(body)["selected"]["name"] == "team-llama"
        assert time.monotonic() - started < 2
        assert "WORKER TIMEOUT" not in self.log()


@dataclass
class Reply:
    raw: bytes
    seconds: float

    @property
    def status(self) -> int:
        assert self.raw, f"no answer in {self.seconds:.1f} s"
        return int(self.raw.split(b" ", 2)[1])

    @property
    def head(self) -> str:
        return self.raw.partition(b"\r\n\r\n")[0].decode("latin-1")

    def header(self, name: str) -> str | None:
        for line in self.head.split("\r\n")[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None

    @property
    def body(self) -> bytes:
        return self.raw.partition(b"\r\n\r\n")[2]

    def error(self) -> dict:
        """The JSON error, checked to be the documented shape."""
        assert self.header("Content-Type") == "application/json", self.head
        document = json.loads(self.body)
        assert set(document) == {"error"}, document
        assert isinstance(document["error"]["code"], str)
        assert isinstance(document["error"]["message"], str)
        return document["error"]


def exchange(
    port: int, data: bytes, *, half_close: bool = True, timeout: float = 5, then: bytes = b""
) -> Reply:
    """Send ``data`` on a new connection (then end the sending side), read until the service
    closes: the reply and how long it took."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        started = time.monotonic()
        sock.sendall(data)
        if then:
            sock.sendall(then)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return Reply(b"".join(chunks), time.monotonic() - started)


def read_reply(sock: socket.socket, timeout: float = 10) -> Reply:
    """Read from an open connection until the service closes it."""
    sock.settimeout(timeout)
    started, chunks = time.monotonic(), []
    while True:
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        chunks.append(chunk)
    return Reply(b"".join(chunks), time.monotonic() - started)
