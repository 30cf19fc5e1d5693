"""The cyclic garbage collector, paused while the app answers a request.

A ranking request builds one large graph that lives exactly as long as the request: the decoded
body, its documents, the rows, the answer. Reference counting frees all of it when the request
ends, and almost none of it is cyclic, but the collector does not know that: every 700 new
objects it runs, and the longer the request, the more of the graph each of its passes walks
again (a full pass walks the whole heap whenever it has grown by a quarter), so the cost grew
faster than the body (bench/README.md, round 5, has the figures).

So while at least one request of this process is inside the app, the collector is off; when the
last one leaves, it is back on, and its next pass finds the cycles the requests left, if any.
Requests that overlap without end (threads under steady load) would keep it off: each request
that ends while the pause has let more than ``MAX_PAUSED_OBJECTS`` objects accumulate runs a pass
over the youngest generation, so what cyclic garbage the pause keeps is bounded, and each pass
costs what the objects since the last one do.

An error answer is the exception: marshmallow raises a document's validation errors from frames
that hold them, so a refused body stays alive in a cycle with them (every frame keeps its callers'
frames, and their locals, alive). A request answered with an error while more than
``ERROR_PASS_OBJECTS`` objects have accumulated runs a pass over the youngest generation as it
leaves, so that a 422 for a large body gives its memory back with its answer (rules §17 "Safe to
share": a 422 for 400 000 invalid entries held 100 MB until the next pass).

Only the app's own work is paused: the body of a streamed answer is produced after the app
returns, with the collector as usual. A collector that someone else turned off stays off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterable
from typing import Any

# Objects (that the collector tracks: containers, not strings or numbers) allocated and still
# alive since its last pass: several times what the largest ranking holds at its peak, so that
# only requests in flight together, or kept cycles, reach it.
MAX_PAUSED_OBJECTS = 2_000_000
# After an error answer: a refused body of this many objects is worth a pass (a pass costs little
# per object, bench/README.md § "Figures behind the code"; a small refused body keeps little).
ERROR_PASS_OBJECTS = 100_000

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class CollectorPause:
    """WSGI middleware: ``wsgi_app`` runs with the cyclic collector paused (module docstring)."""

    def __init__(self, wsgi_app: WsgiApp) -> None:
        self.wsgi_app = wsgi_app
        self._lock = threading.Lock()
        self._inside = 0  # requests of this process inside wsgi_app
        self._paused = False  # whether this pause turned the collector off

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        statuses: list[str] = []

        def noting_status(status: str, headers: Any, exc_info: Any = None) -> Any:
            statuses.append(status)
            if exc_info is None:
                return start_response(status, headers)
            return start_response(status, headers, exc_info)

        self._enter()
        try:
            return self.wsgi_app(environ, noting_status)
        finally:
            self._leave(failed=bool(statuses) and statuses[-1][:1] in "45")

    def _enter(self) -> None:
        with self._lock:
            self._inside += 1
            if self._inside == 1 and gc.isenabled():
                gc.disable()
                self._paused = True

    def _leave(self, *, failed: bool = False) -> None:
        with self._lock:
            self._inside -= 1
            if not self._paused:
                return
            young = gc.get_count()[0]
            if self._inside == 0:
                self._paused = False
                gc.enable()
                if failed and young > ERROR_PASS_OBJECTS:
                    gc.collect(0)  # now, not at the next 700 allocations' threshold
            elif young > MAX_PAUSED_OBJECTS or (failed and young > ERROR_PASS_OBJECTS):
                gc.collect(0)
