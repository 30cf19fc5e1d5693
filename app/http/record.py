"""What a request learnt on its way, for its log line and metrics (app/http/observability.py).

One typed record per request instead of loose ``flask.g`` attributes written here and there:
this module is the only one that touches ``g``; the views and the layers under them fill the
record's fields, and the observability hooks read them once the response exists.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flask import g, has_request_context

if TYPE_CHECKING:
    from app.selection.ranking import Ranking

_KEY = "ome_ranker_record"


@dataclass
class RequestRecord:
    request_id: str | None = None
    started: float = field(default_factory=time.perf_counter)
    cache_result: str | None = None  # hit | miss | bypass, when the answer went through the cache
    runtime_count: int | None = None  # runtimes of a validated ranking request
    selection_seconds: float | None = None  # time spent in the rules (advice included)
    ranking: Ranking | None = None  # for the "Selected runtime" log line
    error_code: str | None = None  # the code of the error answered, if any
    token_name: str | None = None  # the caller's token, never its secret
    memory_reserved: int = 0  # bytes of the worker's request memory held (app/http/memory.py)
    memory_anonymous: bool = True  # held in the anonymous requests' share
    json_marks: bytes | None = None  # a JSON body's app.reading.sizing.json_marks, once read


def begin() -> RequestRecord:
    """A fresh record for the current request."""
    record = RequestRecord()
    setattr(g, _KEY, record)
    return record


def current() -> RequestRecord | None:
    """The current request's record; None outside a request."""
    if not has_request_context():
        return None
    record = g.get(_KEY)
    return record if record is not None else begin()


def this_request() -> RequestRecord:
    """The current request's record (made if an earlier hook answered before ``begin``)."""
    record = current()
    if record is None:
        raise RuntimeError("no request is being served")
    return record
