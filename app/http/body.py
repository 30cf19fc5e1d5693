"""The request body, read once, bounded, and with every way of reading it failing as a JSON 4xx;
then decoded by its ``Content-Type`` (app/reading).

Under gunicorn, ``wsgi.input`` parses the body's framing as it is read: a malformed chunked body
(a bad chunk size or extension, a chunk without its CRLF, a bad trailer, a connection closed
before the last chunk) raises gunicorn's own exceptions from ``read``. They are the client's
fault, so they are answered as a 400 ``MalformedRequest`` here instead of reaching the catch-all
500; a read that times out is a 408 ``RequestTimeout``.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from gunicorn.http.errors import NoMoreData, ParseException
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from app.errors import MalformedRequest, RequestTimeout
from app.reading.manifests import ManifestStream, decode_body, request_of
from app.reading.object_streams import ObjectStream, read_objects

from . import deadline, memory

# Bodies larger than this are read in steps of this size, with a deadline check between two.
READ_STEP = 1024 * 1024


def read_body() -> bytes:
    """The request body, at most ``MAX_CONTENT_LENGTH`` bytes of it (else 413).

    With a ``Content-Length`` (the usual case), one read of exactly that many bytes: Werkzeug's
    ``get_data`` reads in 64 KiB pieces and copies them twice, which for a 2 MiB body cost more
    than hashing it; a body shorter than announced is a 400. A chunked body has no length and
    Werkzeug does not limit it when the server marks its end (gunicorn does): read at most one
    byte over the limit, so an endless body costs the limit and no more.
    """
    raw = _read_bounded()
    memory.admit(raw)  # before anything decodes it
    return raw


def _read_bounded() -> bytes:
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    length = request.content_length
    try:
        if length is not None:
            if limit is not None and length > limit:
                raise RequestEntityTooLarge()
            raw = _read(length) if length else b""
            if len(raw) != length:
                raise MalformedRequest(
                    f"the request body ended after {len(raw)} of the {length} bytes its "
                    "Content-Length announced"
                )
            return raw
        if not request.environ.get("wsgi.input_terminated"):
            return b""  # WSGI: no length and no end marked by the server, no body
        if limit is None:
            return request.environ["wsgi.input"].read()
        raw = _read(limit + 1)
    except (ParseException, NoMoreData, ClientDisconnected) as error:
        raise MalformedRequest(_framing_message(error)) from None
    except TimeoutError:
        raise RequestTimeout("the request body did not arrive in time") from None
    except ConnectionError:
        raise MalformedRequest("the connection broke while the request body was read") from None
    if len(raw) > limit:
        raise RequestEntityTooLarge()
    return raw


def _read(size: int) -> bytes:
    """Up to ``size`` bytes: in one read when small, else in steps with a deadline check."""
    stream = request.environ["wsgi.input"]
    if size <= READ_STEP:
        return stream.read(size)
    parts, remaining = [], size
    while remaining > 0:
        part = stream.read(min(READ_STEP, remaining))
        if not part:
            break
        parts.append(part)
        remaining -= len(part)
        deadline.check()
    return b"".join(parts)


def _framing_message(error: Exception) -> str:
    if isinstance(error, NoMoreData | ClientDisconnected):
        return "the connection ended before the request body was complete"
    detail = str(error) or type(error).__name__
    return f"the request body is malformed (chunked encoding): {detail}"


def content_type() -> str:
    """The body's media type; none reads as JSON."""
    return request.mimetype or "application/json"


def one_document() -> Any:
    """A body that is one document, not a stream (a cluster's settings, ``/v1/impact``'s two
    streams): JSON, or YAML holding exactly one document (null ones skipped, as in every stream);
    415 for another type."""
    is_yaml, value = decoded(read_body())
    if not is_yaml:
        return value
    documents = [document for document in value if document is not None]
    if len(documents) != 1:
        raise MalformedRequest(f"the body must hold one YAML document, found {len(documents)}")
    return documents[0]


def decoded(raw: bytes) -> tuple[bool, Any]:
    """``(is_yaml, value)`` of a body read already (415 for another type)."""
    return decode_body(raw, content_type())


def ranking_request(raw: bytes, *, require_model: bool = True) -> ManifestStream:
    """The request a ranking body makes: the request object itself, or manifests (rules §15)."""
    is_yaml, data = decoded(raw)
    return request_of(is_yaml, data, require_model=require_model)


def objects(limit: int | None = None, *, strict: bool = False) -> ObjectStream:
    """The body's objects, any number of each kind (lint, impact, selections, catalog writes);
    ``strict``: also as the API server decodes and validates them (lint)."""
    return read_objects(read_body(), content_type(), limit=limit, strict=strict)
