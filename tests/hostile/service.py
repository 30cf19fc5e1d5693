"""A raw socket client that can send what no HTTP library would, for the hostile suite (the
gunicorn it talks to is ``tests.servers.Service``)."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass

from tests.servers import HANG_SECONDS


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
    port: int,
    data: bytes,
    *,
    half_close: bool = True,
    timeout: float = HANG_SECONDS,
    then: bytes = b"",
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


def read_reply(sock: socket.socket, timeout: float = HANG_SECONDS) -> Reply:
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
