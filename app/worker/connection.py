"""One client connection as the worker holds it: its socket, its buffer, its timers."""

from __future__ import annotations

import errno
import socket
import threading

from gunicorn.workers.gthread import TConn

from .buffer import RequestBuffer

_INTERIM = b"HTTP/1.1 1"  # "100 Continue" is written before the answer, not as it


class ClientSocket(socket.socket):
    """An accepted socket whose answer is written once: by the request's thread, or by the
    worker for it (a request past its deadline, a worker being killed), never both.

    The thread claims the socket with its first write; the worker's ``answer_for_thread``
    writes only if the thread has not, and the thread's later writes then fail as if the client
    had gone (``EPIPE``), which gunicorn already handles quietly.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._answer_lock = threading.Lock()
        self.answer_started = False
        self.answered_by_worker = False

    @classmethod
    def adopt(cls, sock: socket.socket) -> ClientSocket:
        return cls(sock.family, sock.type, sock.proto, fileno=sock.detach())

    def sendall(self, data, flags: int = 0) -> None:
        self._claim(data)
        return super().sendall(data, flags)

    def send(self, data, flags: int = 0) -> int:
        self._claim(data)
        return super().send(data, flags)

    def _claim(self, data) -> None:
        with self._answer_lock:
            if self.answered_by_worker:
                raise BrokenPipeError(errno.EPIPE, "the worker has answered this request")
            if bytes(data[: len(_INTERIM)]) != _INTERIM:
                self.answer_started = True

    def answer_for_thread(self, response: bytes) -> bool:
        """Write ``response`` (a few hundred bytes) unless an answer was begun; never blocks."""
        with self._answer_lock:
            if self.answer_started or self.answered_by_worker:
                return False
            self.answered_by_worker = True
        try:
            super().send(response, socket.MSG_DONTWAIT)
        except OSError:
            return False
        return True


class Connection(TConn):
    """gunicorn's connection, plus what the event loop needs while it reads or lingers."""

    def __init__(self, cfg, sock: ClientSocket, client, server, buffer: RequestBuffer) -> None:
        super().__init__(cfg, sock, client, server)
        self.buffer = buffer
        self.deadline = 0.0  # monotonic time at which the current state times out
        self.registered = False  # in the worker's selector
        self.partial = False  # in a thread that reads part of the request from the client
        self.limited = False  # in one of the threads that may not all be taken (worker.py)
        self.dispatched_at: float | None = None  # handed to the thread pool, when
        self.request_line = ""  # for log messages
        self.overdue = False  # answered by the watchdog; its thread has not returned
        self.unread_body: int | None = 0  # body bytes left unread (None: unknown)
        self.discarded = 0  # bytes read and dropped while lingering
        self.discard_limit = 0
        self.ops = False  # came in on the operations listener (OME_RANKER_OPS_BIND)
        # The request's head names a token of the service (None: its head is not here yet).
        self.holder: bool | None = None
        self.buffered = 0  # bytes of its buffer counted in the worker's buffer budget

    @property
    def received_nothing(self) -> bool:
        return len(self.buffer) == 0
