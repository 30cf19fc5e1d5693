"""Slow clients against a running service, and a probe that must not notice them.

    .venv/bin/python -m tests.hostile.slow_clients 127.0.0.1:8080 --clients 50 --seconds 60

Each slow client holds one connection and trickles a request over it a byte at a time: its head
(``head``), or a complete head and then its body (``body``), or a quarter of a 1 MiB body at once
and then the rest (``upload``, which a thread has to read). When the service closes the
connection (a 408 once the client timeout has passed), the client opens another. Meanwhile the
probe asks ``GET /healthz`` and ``POST /v1/rank`` every half second, each on a new connection;
the run fails if a probe fails or takes longer than ``--max-latency`` seconds.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import socket
import sys
import threading
import time
from dataclasses import dataclass, field

from tests.paths import SEED_YAML
from tests.waiting import wait_for

KINDS = ("head", "body", "upload")
UPLOAD_BYTES = 1024 * 1024


@dataclass
class Report:
    probes: list[tuple[str, float, int]] = field(default_factory=list)  # (what, seconds, status)
    failures: list[str] = field(default_factory=list)
    connections: int = 0  # opened by the slow clients
    answers: dict[int, int] = field(default_factory=dict)  # status -> count, to slow clients

    @property
    def slowest(self) -> float:
        return max((seconds for _, seconds, _ in self.probes), default=0.0)

    def summary(self) -> str:
        # A slow client is usually cut off before any answer: say so, not "(answers )".
        answered = ", ".join(f"{status}: {n}" for status, n in sorted(self.answers.items()))
        return (
            f"{len(self.probes)} probes, slowest {self.slowest:.3f} s, {len(self.failures)} "
            f"failed; slow clients opened {self.connections} connections "
            f"({f'answers {answered}' if answered else 'no answers'})"
        )


def slow_request(kind: str) -> tuple[bytes, int]:
    """The request a slow client sends, and how many bytes of it go at once at the start."""
    if kind == "head":
        head = (
            b"POST /v1/rank HTTP/1.1\r\nHost: slow\r\nContent-Type: application/yaml\r\n"
            + b"X-Padding: "
            + b"p" * 4000
            + b"\r\n"
        )
        return head + b"Content-Length: %d\r\n\r\n" % len(SEED_YAML) + SEED_YAML, 0
    if kind == "body":
        head = b"POST /v1/rank HTTP/1.1\r\nHost: slow\r\nContent-Type: application/yaml\r\n"
        head += b"Content-Length: %d\r\n\r\n" % (len(SEED_YAML) * 20)
        return head + SEED_YAML * 20, len(head)
    head = b"POST /v1/rank HTTP/1.1\r\nHost: slow\r\nContent-Type: application/json\r\n"
    head += b"Content-Length: %d\r\n\r\n" % UPLOAD_BYTES
    return head + b" " * UPLOAD_BYTES, len(head) + UPLOAD_BYTES // 4


def _status_of(reply: bytes) -> int:
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


class SlowClient(threading.Thread):
    def __init__(self, host, port, kind, trickle, stop, report, lock) -> None:
        super().__init__(daemon=True)
        self.address, self.kind, self.trickle = (host, port), kind, trickle
        self.stop, self.report, self.lock = stop, report, lock

    def run(self) -> None:
        request, burst = slow_request(self.kind)
        while not self.stop.is_set():
            try:
                sock = socket.create_connection(self.address, timeout=2)
            except OSError:
                self.stop.wait(0.1)
                continue
            with self.lock:
                self.report.connections += 1
            try:
                self._trickle(sock, request, burst)
            finally:
                sock.close()

    def _trickle(self, sock: socket.socket, request: bytes, burst: int) -> None:
        try:
            if burst:
                sock.sendall(request[:burst])
            for offset in range(burst, len(request)):
                if self.stop.wait(self.trickle):
                    return
                sock.sendall(request[offset : offset + 1])
                if _answered(sock):
                    break
            sock.settimeout(2)
            reply = sock.recv(200)
        except OSError:
            return
        status = _status_of(reply)
        with self.lock:
            self.report.answers[status] = self.report.answers.get(status, 0) + 1


def _answered(sock: socket.socket) -> bool:
    """The service wrote something (an answer) or closed: stop sending."""
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)
        return True
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def probe(host: str, port: int, what: str, timeout: float) -> tuple[float, int]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    started = time.monotonic()
    try:
        if what == "healthz":
            connection.request("GET", "/healthz")
        else:
            connection.request(
                "POST", "/v1/rank", body=SEED_YAML, headers={"Content-Type": "application/yaml"}
            )
        response = connection.getresponse()
        response.read()
        return time.monotonic() - started, response.status
    finally:
        connection.close()


def run(
    host: str,
    port: int,
    *,
    clients: int = 50,
    seconds: float = 60.0,
    interval: float = 0.5,
    trickle: float = 1.0,
    max_latency: float = 1.0,
) -> Report:
    report, lock, stop = Report(), threading.Lock(), threading.Event()
    slow = [
        SlowClient(host, port, kind, trickle, stop, report, lock)
        for kind, _ in zip(itertools.cycle(KINDS), range(clients), strict=False)
    ]
    for client in slow:
        client.start()
    wait_for(lambda: report.connections >= clients, "every slow client connected")
    ends = time.monotonic() + seconds
    try:
        while time.monotonic() < ends:
            tick = time.monotonic()
            for what, expected in (("healthz", 200), ("rank", 200)):
                try:
                    latency, status = probe(host, port, what, timeout=max_latency * 5)
                except OSError as error:
                    report.failures.append(f"{what}: {error!r}")
                    continue
                report.probes.append((what, latency, status))
                if status != expected or latency > max_latency:
                    report.failures.append(f"{what}: {status} after {latency:.3f} s")
            time.sleep(max(0.0, interval - (time.monotonic() - tick)))
    finally:
        stop.set()
        for client in slow:
            client.join(timeout=5)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="host:port of the service")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--trickle", type=float, default=1.0, help="seconds between two bytes")
    parser.add_argument("--max-latency", type=float, default=1.0)
    options = parser.parse_args(argv)
    host, _, port = options.address.rpartition(":")
    report = run(
        host or "127.0.0.1",
        int(port),
        clients=options.clients,
        seconds=options.seconds,
        trickle=options.trickle,
        max_latency=options.max_latency,
    )
    print(report.summary())
    for failure in report.failures:
        print("  " + failure)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
