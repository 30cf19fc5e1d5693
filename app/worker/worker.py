"""The gunicorn worker: gthread's thread pool behind an event loop that reads requests whole.

Sync workers face clients directly: three clients sending their headers a byte a second hold
three workers, and every request waits. gthread hands a connection to a thread as soon as it is
readable, so slow clients hold threads instead. Here the event loop (the worker's main thread)
reads each request into a ``RequestBuffer`` and hands it to a thread only once it is whole; the
thread parses and answers it without waiting for the client. So:

- a slow or idle client costs a buffer and a file descriptor, never a thread; a client that has
  not sent its whole request ``OME_RANKER_CLIENT_TIMEOUT`` after its first byte gets a 408
  ``RequestTimeout`` (an idle one is closed quietly);
- a request longer than the buffer, or one that waits for ``100 Continue``, is read by its
  thread; such requests, and the open endpoints' work that any anonymous client can ask for
  (``POST /v1/rank``, ``…/select``, ``…/lint``, ``…/impact``, ``…/selections``), hold at most
  ``threads - 1`` threads at a time, and long bodies ``threads - 2`` of those: one thread is
  always left for the rest (catalog requests of token holders, probes) and, with the default 4
  threads, one for whole open requests that slow uploaders cannot take; the others wait in the
  loop, unread and in order, for at most the request deadline, then 503;
- a request whose head names a token of the service's is a token holder's: the loop reads its
  long body too, in a share of the buffer budget of its own, and it takes a thread only when
  whole, never one of the slots above, so anonymous uploads cannot make it wait;
- with ``OME_RANKER_OPS_BIND``, the operations listener's requests (``/healthz``, ``/readyz``,
  ``/metrics``, nothing else) have threads and a connection cap of their own: a flood of the
  API's listener never delays a probe;
- gunicorn's own error answers are the service's JSON errors (``handle_error``);
- after an answer that closes the connection the loop lingers: it reads and drops what the
  client still sends (the rest of a body refused with 413), bounded in bytes and seconds, so a
  client that sends its whole body before it reads gets the answer instead of a reset;
- a request still running ``DEADLINE_MARGIN_SECONDS`` after ``OME_RANKER_REQUEST_DEADLINE`` is
  answered 503 ``DeadlineExceeded`` by the loop (the application's ``deadline.check()`` answers
  first wherever the code checks); if every thread is stuck so, the worker retires;
- SIGTERM starts a drain: ``/readyz`` answers 503, connections are still accepted and answered
  (with ``Connection: close``) for ``OME_RANKER_DRAIN_SECONDS``; then the worker closes (below);
- a worker that has served ``OME_RANKER_MAX_REQUESTS`` requests (with gunicorn's jitter) closes
  and exits, and gunicorn starts another in its place;
- closing never resets a connection a client may be using: the worker stops accepting, answers
  the next request of every connection it holds with ``Connection: close`` (the requests in
  flight, and the keep-alive connections whose next request is on its way), waits for each client
  to close, and exits when it holds none, or after ``OME_RANKER_GRACEFUL_TIMEOUT``. A keep-alive
  connection that stays idle is closed at its keep-alive timeout, as it would have been anyway.
  gunicorn's own recycling would stop the loop at once and close the idle keep-alive connections
  under their clients' next requests.

The loop never blocks: every socket operation in it is non-blocking, so the worker's heartbeat
never stops while it is alive, and the master's worker timeout does not kill it for a slow request.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import selectors
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, cast

from flask import Flask
from gunicorn import http
from gunicorn.http.body import ChunkedReader, LengthReader
from gunicorn.util import parse_address
from gunicorn.workers.gthread import ThreadWorker

from app.errors import ApiError, DeadlineExceeded, RequestTimeout, error_body
from config.settings import (
    DEADLINE_MARGIN_SECONDS,
    DRAINING_ENVIRON_KEY,
    OPS_LISTENER_ENVIRON_KEY,
    ServerSettings,
)

from .buffer import Readiness
from .client_loop import OPS_CONNECTIONS, ConnectionReading, peer_of
from .connection import Connection
from .refusals import error_response, is_client_error, parser_error

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

SCAN_SECONDS = 0.25  # how often timers are checked
# What the operations listener serves; everything else there is a 404, as /metrics is on the
# API's listener once the operations listener exists.
OPS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
OPS_THREADS = 2
_QUIET_ERRNOS = frozenset({errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN, errno.EBADF})


class RankerWorker(ConnectionReading, ThreadWorker):
    """gunicorn's ``gthread`` worker, reading requests whole first (see the module docstring)."""

    # Set by gunicorn's Worker and ThreadWorker, which have no type information.
    alive: bool
    _accepting: bool
    max_requests: int
    wsgi: WSGIApplication

    def init_process(self) -> None:
        # Before super(), which ends by running the loop.
        self.settings = ServerSettings.from_environment()
        self.ops_listener = self._ops_listener()
        # Probes and scrapes get threads of their own (a scrape beside a probe): the API's load
        # never delays them.
        self.ops_pool = (
            ThreadPoolExecutor(OPS_THREADS, thread_name_prefix="ops") if self.ops_listener else None
        )
        self._ops_accepting = False
        self.flask_app: Flask | None = None
        # Threads that open work (and reading long bodies) may hold, and of those, threads that
        # reading long bodies may hold: a slow uploader never holds the last of either.
        self.limited_slots = max(1, self.cfg.threads - 1)
        self.partial_slots = max(1, self.cfg.threads - 2)
        self.limited_busy = self.partial_busy = 0
        self.in_flight: set[Connection] = set()
        self.init_reading()
        self.draining_until: float | None = None
        self._drain_logged = False
        # Recycling: gunicorn's own (ThreadWorker.handle_request) would end the loop at once;
        # this worker closes first (see the module docstring).
        self.recycle_after = self.max_requests  # set by gunicorn's Worker, jitter included
        self.max_requests = sys.maxsize
        self.served = itertools.count(1)  # next() is atomic: the threads count without a lock
        self.retiring = False
        super().init_process()

    # -- the application ------------------------------------------------------------------

    def _ops_listener(self):
        """gunicorn's listener of ``OME_RANKER_OPS_BIND`` (config/gunicorn.conf.py binds it)."""
        if self.settings.ops_bind is None:
            return None
        address = parse_address(self.settings.ops_bind)
        for listener in self.sockets:
            if listener.cfg_addr == address:
                return listener
        return None  # gunicorn was given other addresses (-b): it serves them all alike

    def is_token_holder(self, authorization: bytes | None) -> bool:
        """Whether a request's Authorization value names a token of the service's (not
        OME_RANKER_AUTH=none, which makes everyone the same anonymous caller)."""
        if authorization is None or self.flask_app is None:
            return False
        from app.catalog import get_access  # the app's, reloaded as its token file changes

        access = get_access(self.flask_app)
        header = authorization.decode("latin-1")
        return not access.open and access.identify(header) is not None

    def load_wsgi(self) -> None:
        super().load_wsgi()
        application = self.wsgi
        self.flask_app = application if isinstance(application, Flask) else None

        def with_worker_state(environ, start_response):
            environ[DRAINING_ENVIRON_KEY] = self.draining_until is not None
            response = getattr(start_response, "__self__", None)  # gunicorn's Response
            listener = getattr(getattr(response, "req", None), "ome_listener", None)
            environ[OPS_LISTENER_ENVIRON_KEY] = listener == "ops"
            refused = _listener_refusal(listener, environ.get("PATH_INFO", ""))
            if refused is not None:
                start_response("404 NOT FOUND", refused)
                return [_NOT_HERE]

            def start_closing_unless_read(status, headers, exc_info=None):
                # A body left unread (refused with 413) or unreadable (malformed chunks): the
                # connection closes after this answer, and the answer says so.
                if response is not None and _unread_body(response.req) != 0:
                    response.force_close()
                return start_response(status, headers, exc_info)

            return application(environ, start_closing_unless_read)

        self.wsgi = with_worker_state

    def handle_request(self, req, conn) -> bool:
        if next(self.served) >= self.recycle_after and not self.retiring:
            self.retiring = True
            self.log.info("Recycling worker after %d requests: closing", self.recycle_after)
            self.method_queue.defer(lambda: None)  # wake the loop
        if self.draining_until is not None or self.retiring:
            req.force_close()  # the client's next request goes to a new connection
        if self.ops_listener is not None:
            req.ome_listener = "ops" if conn.ops else "api"
        return super().handle_request(req, conn)

    # -- the loop -------------------------------------------------------------------------

    def run(self) -> None:
        self.poller.register(
            self.method_queue.fileno(), selectors.EVENT_READ, self.method_queue.run_callbacks
        )
        self.set_accept_enabled(True)
        next_scan = 0.0
        while self.alive:
            self.notify()
            now = time.monotonic()
            if self.draining_until is not None:
                self._log_drain()
                if now >= self.draining_until:
                    break
            if self.retiring:
                break
            can_accept = self.api_conns < self.worker_connections
            if can_accept != self._accepting:
                self.set_accept_enabled(can_accept)
            self._set_ops_accepting(self.ops_conns < OPS_CONNECTIONS)
            self.wait_for_and_dispatch_events(timeout=SCAN_SECONDS)
            now = time.monotonic()
            if now >= next_scan:
                self._scan(now)
                next_scan = now + SCAN_SECONDS
            if not self.is_parent_alive():
                break
        self.alive = False
        self._finish()

    def _finish(self) -> None:
        """Stop accepting; answer the next request of every connection held with
        ``Connection: close`` (gunicorn closes every answer once ``alive`` is False) and wait
        for each to end, within the graceful timeout. An idle keep-alive connection ends at its
        keep-alive timeout, if its client sends nothing before."""
        self.set_accept_enabled(False)
        self._set_ops_accepting(False)
        for listener in self.sockets:
            listener.close()
        self.log.info(
            "closing: %d connection(s) held, each closed after its next answer",
            self.nr_conns,
        )
        limit = time.monotonic() + self.settings.graceful_timeout
        while self.in_flight or self.reading or self.waiting_for_thread or self.lingering:
            now = time.monotonic()
            if now >= limit:
                break
            self.notify()
            self.wait_for_and_dispatch_events(timeout=min(SCAN_SECONDS, limit - now))
            self._scan(time.monotonic())
        for conn in [*self.reading, *self.waiting_for_thread, *self.lingering]:
            self._unregister(conn)
            self._close(conn)
        stuck = len(self.in_flight)
        self.tpool.shutdown(wait=False)
        if self.ops_pool is not None:
            self.ops_pool.shutdown(wait=False)
        self.poller.close()
        self.method_queue.close()
        if stuck:
            # Their threads would keep the interpreter from exiting until the master kills it.
            self.log.warning("exiting with %d request(s) still running", stuck)
            logging.shutdown()
            os._exit(0)

    def _log_drain(self) -> None:
        if not self._drain_logged:
            self._drain_logged = True
            self.log.info(
                "draining: /readyz answers 503; accepting for %d s more, then stopping",
                self.settings.drain_seconds,
            )

    def set_accept_enabled(self, enabled: bool) -> None:
        """gthread's, for the API's listeners: the operations listener has its own cap."""
        if enabled == self._accepting:
            return
        for listener in self.sockets:
            if listener is self.ops_listener:
                continue
            if enabled:
                listener.setblocking(False)
                self.poller.register(listener, selectors.EVENT_READ, self.accept)
            else:
                self.poller.unregister(listener)
        self._accepting = enabled

    def _set_ops_accepting(self, enabled: bool) -> None:
        if self.ops_listener is None or enabled == self._ops_accepting:
            return
        if enabled:
            self.ops_listener.setblocking(False)
            self.poller.register(self.ops_listener, selectors.EVENT_READ, self.accept)
        else:
            self.poller.unregister(self.ops_listener)
        self._ops_accepting = enabled

    def _may_start(self, conn: Connection) -> bool:
        """Whether a thread may take ``conn`` now (see the module docstring)."""
        if conn.ops or conn.holder:
            return True  # their own thread; the threads anonymous requests may not all take
        partial = conn.buffer.readiness is Readiness.PARTIAL
        if not partial and not is_open_work(conn.buffer.request_line()):
            return True
        if partial and self.partial_busy >= self.partial_slots:
            return False
        return self.limited_busy < self.limited_slots

    def _dispatch(self, conn: Connection) -> None:
        if not self._may_start(conn):
            # It waits for a thread, not for its client, for at most a deadline.
            conn.deadline = time.monotonic() + self.settings.request_deadline
            self.waiting_for_thread.append(conn)  # unread meanwhile: TCP slows the client down
            return
        request_line = conn.buffer.request_line()
        self._uncount(conn)  # its thread has the buffer now
        if not (conn.ops or conn.holder):
            conn.partial = conn.buffer.readiness is Readiness.PARTIAL
            conn.limited = conn.partial or is_open_work(request_line)
            self.partial_busy += conn.partial
            self.limited_busy += conn.limited
        conn.request_line = request_line
        conn.dispatched_at = time.monotonic()
        self.in_flight.add(conn)
        pool = self.ops_pool if conn.ops and self.ops_pool is not None else self.tpool
        future = pool.submit(self.handle, conn)
        future.add_done_callback(
            lambda done: self.method_queue.defer(self.finish_request, conn, done)
        )

    def finish_request(self, conn: Connection, future) -> None:
        self.in_flight.discard(conn)
        if conn.limited:
            self.partial_busy -= conn.partial
            self.limited_busy -= 1
            conn.partial = conn.limited = False
            # The first waiting ones that may start now, in order (a long body waiting for a
            # reader's slot does not hold up a whole request behind it).
            for waiting in list(self.waiting_for_thread):
                if self.limited_busy >= self.limited_slots:
                    break
                if self._may_start(waiting):
                    self.waiting_for_thread.remove(waiting)
                    self._dispatch(waiting)
        keepalive = not future.cancelled() and future.exception() is None and future.result()
        # Also while closing: an answer sent as keep-alive is followed by the client's next
        # request, which is read and answered with Connection: close, never dropped.
        if keepalive and not conn.sock.answered_by_worker:
            self._new_request(conn)
            leftover = conn.parser.unreader.take_buffered()  # a pipelined next request
            if leftover:
                conn.buffer.feed(leftover)
            self._read(conn, self.cfg.keepalive)
        else:
            self._linger(conn)

    def _scan(self, now: float) -> None:
        """Timers: idle and slow clients, lingering connections, requests past the deadline."""
        self._expire_clients(now)
        limit = self.settings.request_deadline + DEADLINE_MARGIN_SECONDS
        stuck = 0
        for conn in self.in_flight:
            # Set by _dispatch before it adds the connection to in_flight.
            dispatched_at = cast(float, conn.dispatched_at)
            if now - dispatched_at > limit:
                stuck += not conn.ops
                if not conn.overdue:
                    conn.overdue = True
                    self._answer_overdue(conn, now - dispatched_at)
        if stuck >= self.cfg.threads and self.alive:
            self.log.error("all %d threads are stuck past the deadline; retiring", stuck)
            self.alive = False

    def _answer_overdue(self, conn: Connection, seconds: float) -> None:
        deadline = self.settings.request_deadline
        error = DeadlineExceeded(
            f"the request took longer than this service's deadline ({deadline:g} s); "
            "try again later"
        )
        if _cut_off(conn, error):
            self.log.warning(
                "request %r still running after %.1f s: answered 503", conn.request_line, seconds
            )

    # -- a thread -------------------------------------------------------------------------

    def handle(self, conn: Connection) -> bool:
        """Parse and answer one request (in a thread); True to keep the connection."""
        req = None
        sock = conn.sock
        try:
            if sock.answered_by_worker:
                return False
            conn.init()
            sock.settimeout(self.settings.client_timeout)
            conn.parser.unreader.unread(conn.buffer.take())
            req = next(conn.parser)
            keepalive = self.handle_request(req, conn)
            conn.unread_body = _unread_body(req)
            return keepalive and conn.unread_body == 0
        except http.errors.NoMoreData as error:
            self.log.debug("Ignored premature client disconnection. %s", error)
        except StopIteration as error:
            self.log.debug("Closing connection. %s", error)
        except TimeoutError:
            self.log.info("client %s too slow: 408", peer_of(conn))
            self._write_error(sock, RequestTimeout("the request did not arrive in time"))
        except OSError as error:
            if error.errno in _QUIET_ERRNOS:
                self.log.debug("Ignoring %s", error)
            else:
                self.log.exception("Socket error processing request.")
        except Exception as error:
            self.handle_error(req, sock, conn.client, error)
        # A refused head: what follows is nobody's body. Else the rest of the body is unknown.
        conn.unread_body = None if req is not None else 0
        return False

    def handle_error(self, req, client, addr, exc) -> None:
        """gunicorn's, with the service's JSON error instead of an HTML page."""
        error = parser_error(exc)
        if is_client_error(exc):
            peer = addr[0] if isinstance(addr, tuple) and addr else ""
            self.log.warning("Invalid request from ip=%s: %s", peer, exc)
        else:
            self.log.exception("Error handling request %s", getattr(req, "uri", "(no URI read)"))
        self._write_error(client, error)

    def _write_error(self, sock, error: ApiError) -> None:
        try:
            sock.sendall(error_response(error))
        except OSError as failure:
            self.log.debug("Failed to send error message: %s", failure)

    # -- signals --------------------------------------------------------------------------

    def handle_exit(self, sig, frame) -> None:
        """SIGTERM: drain first (a second SIGTERM, or no drain period, stops at once)."""
        if self.alive and self.draining_until is None and self.settings.drain_seconds > 0:
            self.draining_until = time.monotonic() + self.settings.drain_seconds
            self.method_queue.defer(lambda: None)  # wake the loop
            return
        super().handle_exit(sig, frame)

    def handle_abort(self, sig, frame) -> None:
        """The master's worker timeout: answer what can still be answered, then go."""
        error = DeadlineExceeded("the worker answering this request was stopped; try again")
        for conn in list(self.in_flight):
            _cut_off(conn, error)
        super().handle_abort(sig, frame)


# The open endpoints (README "API"): POSTs whose work grows with the body, answered to anyone
# unless OME_RANKER_AUTH_STATELESS=true.
OPEN_WORK_PATHS = frozenset({"/v1/rank", "/v1/select", "/v1/lint", "/v1/impact", "/v1/selections"})


def is_open_work(request_line: str) -> bool:
    """Whether a request line asks one of the open endpoints for work."""
    method, _, rest = request_line.partition(" ")
    target = rest.partition(" ")[0]
    return method == "POST" and target.partition("?")[0] in OPEN_WORK_PATHS


def _cut_off(conn: Connection, error: ApiError) -> bool:
    """Answer for a request its thread is still at, and end the connection (which also ends a
    read the thread waits in); False if the thread had begun its own answer."""
    if not conn.sock.answer_for_thread(error_response(error)):
        return False
    with contextlib.suppress(OSError):
        conn.sock.shutdown(socket.SHUT_RDWR)
    return True


def _unread_body(req) -> int | None:
    """Body bytes the application left unread: 0, a count, or None when unknown."""
    body = req.body
    if body is None:
        return 0
    if body.failed:
        return None
    reader = body.reader
    if isinstance(reader, LengthReader):
        return reader.length
    if isinstance(reader, ChunkedReader):
        return 0 if reader.parser is None else None
    return None


_NOT_HERE = error_body("NotFound", "The requested URL was not found on the server.")


def _listener_refusal(listener: str | None, path: str) -> list[tuple[str, str]] | None:
    """The headers of a 404 for a path that the request's listener (``"ops"``, ``"api"``, or
    None without an operations listener) does not serve: anything but the operations endpoints
    on the operations listener, and /metrics on the API's once the operations listener exists
    (rules §17 "Safe to share": metrics are not for anyone who can reach the API). None: the
    application answers."""
    served = path in OPS_PATHS if listener == "ops" else path != "/metrics" or listener is None
    if served:
        return None
    return [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(_NOT_HERE))),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ]
