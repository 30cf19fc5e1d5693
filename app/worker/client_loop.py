"""The worker's event loop, on the client's side: connections while their request arrives, and
while they linger after an answer that closes them (see worker.py for why).

A mixin of ``RankerWorker``: it uses the worker's ``settings``, ``cfg``, ``poller``, ``log`` and
gunicorn's connection count, and hands whole requests to ``_dispatch``. Nothing here blocks.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from gunicorn.http.message import MAX_REQUEST_LINE

from app.errors import DeadlineExceeded, RequestTimeout

from .buffer import Readiness, RequestBuffer
from .connection import ClientSocket, Connection
from .refusals import error_response

if TYPE_CHECKING:
    from config.settings import ServerSettings

# A request (head and body) up to this size is read whole before a thread takes it; a token
# holder's, up to the body limit (below).
REQUEST_BUFFER_BYTES = 256 * 1024
# Bytes buffered for all the connections of one worker, those waiting for a thread included;
# past it, anonymous requests are handed over as they are (and wait for a thread, unread, when
# none is free). Token holders' requests may buffer this much more, so that anonymous ones
# never leave them without room: their long bodies still arrive without holding a thread.
BUFFER_BUDGET_BYTES = 8 * 1024 * 1024
HOLDER_BUFFER_BYTES = 16 * 1024 * 1024
RECV_BYTES = 64 * 1024
# What one read takes once the budget is spent: the request is then handed over, so that a
# thousand connections past the budget add at most a few MiB.
RECV_BYTES_OVER_BUDGET = 4 * 1024
# Connections of the operations listener one worker holds at once (a probe or a scrape each).
OPS_CONNECTIONS = 16
ACCEPTS_PER_EVENT = 16
# After an answer that closes the connection: what the client still sends is dropped, up to the
# unread rest of its body (at most four body limits) or this many bytes, for the client timeout
# (a refused body) or this long (anything else).
LINGER_BYTES = 64 * 1024
LINGER_SECONDS = 2.0
LINGER_BODY_LIMITS = 4


class WorkerLog(Protocol):
    """gunicorn's logger (``gunicorn.glogging.Logger``), as far as the worker uses it."""

    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def info(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def error(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None: ...


class ReadingWorker(Protocol):
    """What ``ConnectionReading`` uses of the worker class it is mixed into: gunicorn's
    ``ThreadWorker`` (``cfg``, ``log``, ``poller``, the connection count) and ``RankerWorker``
    (``settings``, ``_dispatch``)."""

    cfg: Any  # gunicorn's Config, which has no type information
    log: WorkerLog
    poller: selectors.BaseSelector  # set in gunicorn's init_process, before any reading
    nr_conns: int
    worker_connections: int
    settings: ServerSettings
    ops_listener: Any  # gunicorn's listener socket of OME_RANKER_OPS_BIND, or None

    def _dispatch(self, conn: Connection) -> None: ...
    def is_token_holder(self, authorization: bytes | None) -> bool: ...


if TYPE_CHECKING:
    _Worker = ReadingWorker
else:
    _Worker = object  # at run time the mixin is a plain class, as it always was


class ConnectionReading(_Worker):
    """Accept, read requests whole, time out slow clients, linger; ``_dispatch`` is the
    worker's."""

    def init_reading(self) -> None:
        self.reading: set[Connection] = set()
        self.lingering: set[Connection] = set()
        self.waiting_for_thread: deque[Connection] = deque()
        self.buffered_bytes = 0  # of the connections reading or waiting for a thread
        self.ops_conns = 0

    @property
    def api_conns(self) -> int:
        return self.nr_conns - self.ops_conns

    def accept(self, listener: socket.socket) -> None:
        ops = listener is self.ops_listener
        for _ in range(ACCEPTS_PER_EVENT):
            try:
                sock, client = listener.accept()
            except OSError as error:
                if error.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.ECONNABORTED):
                    return
                raise
            self.nr_conns += 1
            self.ops_conns += ops
            conn = Connection(
                self.cfg, ClientSocket.adopt(sock), client, listener.getsockname(), self._buffer()
            )
            conn.ops = ops
            self._read(conn, self.settings.client_timeout)
            if (
                (self.ops_conns >= OPS_CONNECTIONS)
                if ops
                else (self.api_conns >= self.worker_connections)
            ):
                return

    def _buffer(self) -> RequestBuffer:
        return RequestBuffer(
            REQUEST_BUFFER_BYTES,
            self.cfg.limit_request_line or MAX_REQUEST_LINE,
            self.settings.max_body_bytes,
        )

    def _read(self, conn: Connection, idle_seconds: float) -> None:
        """Wait for the connection's next request: its first byte within ``idle_seconds``,
        the whole of it within the client timeout of that."""
        if conn.buffer.readiness is not Readiness.WAITING:  # pipelined, already here
            self._dispatch(conn)
            return
        conn.sock.setblocking(False)
        timeout = idle_seconds if conn.received_nothing else self.settings.client_timeout
        conn.deadline = time.monotonic() + timeout
        self.reading.add(conn)
        self._count(conn, len(conn.buffer) - conn.buffered)
        self._register(conn, self._on_readable)

    def _leave_reading(self, conn: Connection) -> None:
        self.reading.discard(conn)
        self._unregister(conn)

    def _count(self, conn: Connection, size: int) -> None:
        conn.buffered += size
        self.buffered_bytes += size

    def _uncount(self, conn: Connection) -> None:
        """The connection's buffer leaves the budget: a thread has it, or it is closing."""
        self.buffered_bytes -= conn.buffered
        conn.buffered = 0

    def _budget(self, conn: Connection) -> int:
        return BUFFER_BUDGET_BYTES + (HOLDER_BUFFER_BYTES if conn.holder else 0)

    def _on_readable(self, conn: Connection, _fileobj) -> None:
        over_budget = self.buffered_bytes > self._budget(conn)
        try:
            data = conn.sock.recv(RECV_BYTES_OVER_BUDGET if over_budget else RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = None
        if not data:
            if data is None or conn.received_nothing:  # reset, or closed between requests
                self._leave_reading(conn)
                self._close(conn)
                return
            conn.buffer.end_of_input()
        else:
            if conn.received_nothing:
                conn.deadline = time.monotonic() + self.settings.client_timeout
            readiness = conn.buffer.feed(data)
            self._count(conn, len(data))
            if conn.holder is None and conn.buffer.head_complete:
                readiness = self._identify(conn)
            if readiness is Readiness.WAITING and self.buffered_bytes > self._budget(conn):
                conn.buffer.hand_over()
        if conn.buffer.readiness is not Readiness.WAITING:
            self._leave_reading(conn)
            self._dispatch(conn)

    def _identify(self, conn: Connection) -> Readiness:
        """Decide from the head alone whether a token holder sent the request (rules §17
        "Safe to share"): its long body is then read here, in the holders' share of the buffer
        budget, and it takes a thread only when whole; anonymous ones take the shared slots."""
        conn.holder = not conn.ops and self.is_token_holder(conn.buffer.authorization)
        if conn.holder:
            return conn.buffer.raise_limit(self.settings.max_body_bytes + REQUEST_BUFFER_BYTES)
        return conn.buffer.readiness

    def _linger(self, conn: Connection, *, quick: bool = False) -> None:
        """Half-close, then drop what the client still sends, until it closes or a bound."""
        self._uncount(conn)
        conn.buffer.take()  # what a refused request had sent is nobody's any more
        unread = None if quick else conn.unread_body
        if unread == 0 or quick:
            conn.discard_limit, seconds = LINGER_BYTES, LINGER_SECONDS
        else:
            cap = LINGER_BODY_LIMITS * self.settings.max_body_bytes
            conn.discard_limit = max(LINGER_BYTES, min(cap, unread or cap))
            seconds = self.settings.client_timeout
        try:
            conn.sock.shutdown(socket.SHUT_WR)
            conn.sock.setblocking(False)
        except OSError:
            self._close(conn)
            return
        conn.discarded = 0
        conn.deadline = time.monotonic() + seconds
        self.lingering.add(conn)
        self._register(conn, self._on_lingering)

    def _on_lingering(self, conn: Connection, _fileobj) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        conn.discarded += len(data)
        if not data or conn.discarded >= conn.discard_limit:
            self.lingering.discard(conn)
            self._close(conn)

    def _expire_clients(self, now: float) -> None:
        """Idle connections close, slow clients get their 408, lingering ends."""
        for conn in [conn for conn in self.reading if conn.deadline <= now]:
            self._leave_reading(conn)
            if conn.received_nothing:
                self._close(conn)
            else:
                self._time_out(conn)
        for conn in [conn for conn in self.waiting_for_thread if conn.deadline <= now]:
            self.waiting_for_thread.remove(conn)
            # Unread while it waited: whatever the client still had to send, it was not late.
            self._busy(conn)
        for conn in [conn for conn in self.lingering if conn.deadline <= now]:
            self.lingering.discard(conn)
            self._close(conn)

    def _busy(self, conn: Connection) -> None:
        seconds = self.settings.request_deadline
        self.log.warning(
            "request %r waited %g s for a thread: 503", conn.buffer.request_line(), seconds
        )
        threads = (
            "every thread that may read a long body"
            if conn.buffer.readiness is Readiness.PARTIAL
            else "every thread of this worker"
        )
        conn.sock.answer_for_thread(
            error_response(
                DeadlineExceeded(
                    f"{threads} was busy for the request's deadline ({seconds:g} s); "
                    "try again later"
                )
            )
        )
        self._linger(conn, quick=True)

    def _time_out(self, conn: Connection) -> None:
        seconds = self.settings.client_timeout
        self.log.info("client %s sent no whole request in %g s: 408", peer_of(conn), seconds)
        conn.sock.answer_for_thread(
            error_response(RequestTimeout(f"the request did not arrive within {seconds:g} s"))
        )
        self._linger(conn, quick=True)

    def _new_request(self, conn: Connection) -> None:
        """Ready the connection for its next request (keep-alive)."""
        conn.buffer = self._buffer()
        conn.holder = None

    def _register(self, conn: Connection, callback: Callable[[Connection, Any], None]) -> None:
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(callback, conn))
        conn.registered = True

    def _unregister(self, conn: Connection) -> None:
        if conn.registered:
            conn.registered = False
            with contextlib.suppress(KeyError, ValueError, OSError):
                self.poller.unregister(conn.sock)

    def _close(self, conn: Connection) -> None:
        self._unregister(conn)
        self._uncount(conn)
        self.nr_conns -= 1
        self.ops_conns -= conn.ops
        conn.close()


def peer_of(conn: Connection) -> str:
    return conn.client[0] if isinstance(conn.client, tuple) and conn.client else "?"
