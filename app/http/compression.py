"""Compressed answers, on every endpoint (README "Compression", rules §15).

- A client that accepts gzip (``Accept-Encoding: gzip``, or ``*``, with a quality above 0) gets
  every answer of ``COMPRESS_MIN_BYTES`` (1 KiB) or more as one gzip member, with
  ``Content-Encoding: gzip``; a smaller answer, or one gzip would not shrink, goes as it is (it
  fits one TCP segment either way, and gzip adds 18 bytes of its own).
- Every answer carries ``Vary: Accept-Encoding``, so a shared cache keys on it.
- A cached answer (app/http/cached.py) brings its gzip member from the cache, made once when it
  was stored: its hit is a cache read and a socket write. Other answers are compressed here,
  at deflate level 1 (app/cache/framing.py says why).
- ``ETag`` per representation: the gzip one is the identity one with ``-gzip`` before its
  closing quote (``"7"`` and ``"7-gzip"``). ``If-None-Match`` and ``If-Match`` may name either:
  the suffix is taken off before any view compares tags (both name the same generation), and a
  304 names the representation the client holds.
- ``deflate`` is not offered: clients have never agreed whether it means a zlib stream or raw
  deflate, and every client that sends it also sends gzip.
"""

from __future__ import annotations

from flask import Flask, Request, Response, request

from app.cache.framing import COMPRESS_MIN_BYTES, gzip_member

GZIP = "gzip"
GZIP_SUFFIX = "-gzip"
# Set when the request's If-None-Match named a gzip representation (the 304 names it back).
_NAMED_GZIP = "ome_ranker.if_none_match_gzip"
_CONDITIONS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MATCH")
_NO_BODY = frozenset({204, 206, 304})


def accepts_gzip() -> bool:
    """Whether the request's ``Accept-Encoding`` takes gzip (by name or ``*``)."""
    return takes_gzip(request)


def takes_gzip(asked: Request) -> bool:
    """``accepts_gzip`` of any request object."""
    return "HTTP_ACCEPT_ENCODING" in asked.environ and asked.accept_encodings[GZIP] > 0


def gzip_etag(tag: str) -> str:
    """The gzip representation's tag of an identity one: ``"7"`` -> ``"7-gzip"``."""
    if not tag.endswith('"') or tag.endswith(GZIP_SUFFIX + '"'):
        return tag
    return tag[:-1] + GZIP_SUFFIX + '"'


def identity_tags(value: str) -> str:
    """A condition's tags with every gzip one named as its identity one."""
    return value.replace(GZIP_SUFFIX + '"', '"')


def _identity_tags() -> None:
    """Conditions that name a gzip representation compare as its identity one."""
    environ = request.environ
    for name in _CONDITIONS:
        value = environ.get(name)
        if value and GZIP_SUFFIX + '"' in value:
            environ[name] = identity_tags(value)
            if name == "HTTP_IF_NONE_MATCH":
                environ[_NAMED_GZIP] = True


def _compress(response: Response) -> Response:
    response.vary.add("Accept-Encoding")
    status = response.status_code
    if status == 304:
        if request.environ.get(_NAMED_GZIP) and "ETag" in response.headers:
            response.headers["ETag"] = gzip_etag(response.headers["ETag"])
        return response
    encoding = response.headers.get("Content-Encoding")
    if encoding is None and status not in _NO_BODY and status >= 200 and accepts_gzip():
        response.direct_passthrough = False  # a file (the page's static files): read it whole
        body = response.get_data()
        if len(body) >= COMPRESS_MIN_BYTES:
            packed = gzip_member(body)
            if len(packed) < len(body):
                response.set_data(packed)
                response.headers["Content-Encoding"] = encoding = GZIP
    if encoding == GZIP and "ETag" in response.headers:
        response.headers["ETag"] = gzip_etag(response.headers["ETag"])
    return response


def init_app(app: Flask) -> None:
    """Registered after the other app hooks' owners: Flask runs ``after_request`` functions
    last registered first, so this one sees the answer with every header the views set."""
    app.before_request(_identity_tags)
    app.after_request(_compress)
