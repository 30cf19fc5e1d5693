"""A worker's memory for requests, shared by its threads the way its CPU is (rules §17 "Safe to
share": memory bounded like CPU).

Each request with a body reserves, once the body is read and before it is decoded, the most the
body can take through the request (``app.reading.sizing``), and gives it back at the request's
teardown. A body that could take more than ``OME_RANKER_MAX_REQUEST_MEMORY`` is refused at once
(413 ``PayloadTooLarge``, naming the setting); one that does not fit beside the requests in
flight waits for them, up to the request's deadline (then 503 ``DeadlineExceeded``). All of
them together hold at most ``OME_RANKER_WORKER_MEMORY`` per worker, and anonymous requests all
but ``HOLDERS_SHARE`` of it (or one largest request), so that a token holder's write finds room
beside them. docs/operations.md ("Memory") adds the figures up for the Deployment's pod.
"""

from __future__ import annotations

import threading

from flask import Flask, current_app, request

from app import errors
from app.catalog import get_access
from app.reading.decoding import YAML_TYPES
from app.reading.sizing import body_memory, json_marks

from . import record
from .deadline import remaining

EXTENSION = "memory_budget"
MAX_REQUEST_VARIABLE = "OME_RANKER_MAX_REQUEST_MEMORY"
MIB = 1024 * 1024
# Kept for token holders: a sync of a thousand objects' stored form reserves about this much.
HOLDERS_SHARE = 16 * MIB


class MemoryBudget:
    """Bytes reserved by the requests in flight in one process, waited for when spent."""

    def __init__(self, total: int, anonymous: int) -> None:
        self.total = total
        self.anonymous = anonymous  # what anonymous requests may hold together
        self.held = self.held_anonymous = 0
        self._changed = threading.Condition()

    def _fits(self, size: int, anonymous: bool) -> bool:
        if self.held + size > self.total:
            return False
        return not anonymous or self.held_anonymous + size <= self.anonymous

    def reserve(self, size: int, *, anonymous: bool, timeout: float | None) -> bool:
        """Hold ``size`` bytes, waiting at most ``timeout`` seconds (None: as long as it takes)
        for the requests in flight to give back enough; False if they did not."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._fits(size, anonymous), timeout):
                return False
            self.held += size
            self.held_anonymous += size if anonymous else 0
            return True

    def release(self, size: int, *, anonymous: bool) -> None:
        with self._changed:
            self.held -= size
            self.held_anonymous -= size if anonymous else 0
            self._changed.notify_all()


def init_app(app: Flask) -> None:
    total, largest = app.config["WORKER_MEMORY"], app.config["MAX_REQUEST_MEMORY"]
    app.extensions[EXTENSION] = MemoryBudget(total, max(largest, total - HOLDERS_SHARE))
    app.teardown_request(_give_back)


def admit(raw: bytes) -> None:
    """Reserve what ``raw``, the request's body, can take, for the rest of the request."""
    current = record.this_request()
    if current.memory_reserved:
        return  # a body read twice is reserved once
    is_yaml = (request.mimetype or "") in YAML_TYPES
    # A JSON body's marks are kept for the depth scan (app/reading/fast_request.py).
    current.json_marks = None if is_yaml else json_marks(raw)
    need = body_memory(raw, is_yaml, current.json_marks)
    largest = current_app.config["MAX_REQUEST_MEMORY"]
    if need > largest:
        raise errors.PayloadTooLarge(
            f"this {'YAML' if is_yaml else 'JSON'} body could take about {_mib(need)} of memory "
            f"once read; this service reads at most {_mib(largest)} per request "
            f"({MAX_REQUEST_VARIABLE}): send fewer or smaller objects"
        )
    anonymous = _anonymous()
    left = remaining()
    budget: MemoryBudget = current_app.extensions[EXTENSION]
    if not budget.reserve(
        need, anonymous=anonymous, timeout=None if left is None else max(left, 0)
    ):
        raise errors.DeadlineExceeded(
            f"this body could take about {_mib(need)} of memory, and the requests in flight "
            "held this worker's memory for them until the request's deadline; try again later"
        )
    current.memory_reserved = need
    current.memory_anonymous = anonymous


def _anonymous() -> bool:
    """Whether no token of the service's is named (OME_RANKER_AUTH=none: everyone is)."""
    access = get_access()
    return access.open or access.identify(request.headers.get("Authorization")) is None


def _give_back(_error: BaseException | None) -> None:
    current = record.current()
    if current is None or not current.memory_reserved:
        return
    budget: MemoryBudget = current_app.extensions[EXTENSION]
    budget.release(current.memory_reserved, anonymous=current.memory_anonymous)
    current.memory_reserved = 0


def _mib(size: int) -> str:
    return f"{size / MIB:.0f} MiB" if size >= MIB else f"{size / MIB:.1f} MiB"
