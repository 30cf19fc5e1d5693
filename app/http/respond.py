"""One way to answer: the representation a request asks for (``Accept``), and a rendered answer
as a response with its ``ETag`` and ``Vary`` (rules §15, §17)."""

from __future__ import annotations

from flask import Response, request
from werkzeug.datastructures import MIMEAccept

from app.reading.decoding import YAML_TYPES
from app.rendering.answers import JSON_MIME, OUTPUT_JSON, OUTPUT_TEXT, OUTPUT_YAML, Answer, rendered
from app.rendering.selections_body import message_bytes, selections_body, selections_table
from app.selection.questions import SelectionRow
from app.store import ClusterInfo

from .access import etag
from .limits import check_answer

# What a request may ask for, in the order a tie prefers.
OUTPUTS = ("application/json", "text/plain", *YAML_TYPES)


def wanted_output() -> str:
    """JSON (the default), text or YAML, by ``Accept``."""
    return output_for(request.accept_mimetypes)


def output_for(accept: MIMEAccept) -> str:
    """The output an ``Accept`` header asks for (``wanted_output``)."""
    wanted = accept.best_match(OUTPUTS, default=JSON_MIME)
    if wanted in YAML_TYPES:
        return OUTPUT_YAML
    return OUTPUT_TEXT if wanted == "text/plain" else OUTPUT_JSON


def respond(answer: Answer, *, info: ClusterInfo | None = None, vary: bool = False) -> Response:
    """The response of ``answer``; with the cluster's ``ETag`` for an answer about a catalog,
    and ``Vary: Accept`` where one URL has several representations."""
    response = Response(answer.body, status=answer.status, content_type=answer.content_type)
    if info is not None:
        response.headers["ETag"] = etag(info)
    if vary:
        response.headers["Vary"] = "Accept"
    return response


def selections_answer(rows: list[SelectionRow], output: str, extra: dict) -> Answer:
    """Every InferenceService's outcome as the request asked for it, within the answer's bound
    (rules §17 "Bounded work": each row's message can list every runtime's reason)."""
    check_answer(len(rows), message_bytes(rows))
    return rendered(selections_body(rows, extra), output, lambda: selections_table(rows))
