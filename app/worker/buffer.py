"""When has a client sent a whole HTTP/1.1 request? Answered from the bytes alone, as they come.

The worker's event loop reads every request into a ``RequestBuffer`` before a thread is
committed to it, so a client that sends slowly, or not at all, costs a buffer and never a
thread. The buffer does not validate: it only finds where the request ends (the head's blank
line, then ``Content-Length`` bytes or the chunked body's last chunk and trailers). Anything it
cannot follow (a malformed head or chunk, a duplicate length, a bare LF) is handed over at once:
gunicorn's parser rejects it from the bytes already there, without waiting for more.
"""

from __future__ import annotations

from enum import Enum
from typing import cast

_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
# A chunk-size line (size and extensions) and a trailer section longer than these are refused by
# gunicorn's parser (limit_request_field_size, by default 8190): stop waiting for their end.
_CHUNK_LINE_LIMIT = 8192
_TRAILERS_LIMIT = 8192 * 32


class Readiness(Enum):
    WAITING = "waiting"  # more bytes are needed before the request can be parsed
    WHOLE = "whole"  # a thread can parse and answer it from the bytes here, without waiting
    PARTIAL = "partial"  # a thread must read the rest from the client (over the buffer size,
    # or Expect: 100-continue): the worker bounds how many threads do that at once


class RequestBuffer:
    """The bytes of one request (and any that follow it), and how far they go.

    ``limit``: bytes buffered before the request counts as ``PARTIAL``. ``max_line``: the
    request line's limit (gunicorn's ``limit_request_line``), past which the parser answers 414.
    ``max_body_bytes``: a ``Content-Length`` over it is ``WHOLE`` as soon as the head is, since
    the application answers 413 without reading the body. Each ``feed`` resumes where the last
    one stopped, so a client sending one byte at a time costs linear time.
    """

    def __init__(self, limit: int, max_line: int, max_body_bytes: int) -> None:
        self.data = bytearray()
        self.limit = limit
        self.max_line = max_line
        self.max_body_bytes = max_body_bytes
        self.readiness = Readiness.WAITING
        self._line_ok = False  # the request line ends in CRLF
        self._scanned = 0  # where the next search for a terminator resumes
        self._head_end: int | None = None  # offset of the body
        self._need: int | None = None  # total bytes of a request with a Content-Length
        self._chunk_at: int | None = None  # offset of the next chunk-size line
        self._in_trailers = False
        self._expects_continue = False  # the client waits for "100 Continue" before its body
        # The head's first Authorization value, once the head is here: the worker decides from
        # it, before any body, whether the request is a token holder's (worker.py).
        self.authorization: bytes | None = None

    @property
    def head_complete(self) -> bool:
        return self._head_end is not None

    def __len__(self) -> int:
        return len(self.data)

    def feed(self, chunk: bytes) -> Readiness:
        self.data += chunk
        if self.readiness is Readiness.WAITING:
            self.readiness = self._readiness()
        return self.readiness

    def end_of_input(self) -> Readiness:
        """The client closed its side: whatever is here is all there will be."""
        self.readiness = Readiness.WHOLE
        return self.readiness

    def raise_limit(self, limit: int) -> Readiness:
        """Buffer up to ``limit`` bytes before the request counts as ``PARTIAL`` (a token
        holder's long body, read by the loop instead of a thread). A request whose client waits
        for "100 Continue" stays ``PARTIAL``: its thread sends that."""
        self.limit = max(self.limit, limit)
        if self.readiness is Readiness.PARTIAL and not self._expects_continue:
            self.readiness = self._readiness()
        return self.readiness

    def hand_over(self) -> None:
        """Stop buffering: a thread reads the rest (the worker's buffer budget is spent)."""
        self.readiness = Readiness.PARTIAL

    def take(self) -> bytes:
        data, self.data = bytes(self.data), bytearray()
        return data

    def request_line(self, limit: int = 120) -> str:
        """The start of the request line, for log messages."""
        line = bytes(self.data[:limit]).removeprefix(b"\r\n").split(b"\r\n", 1)[0]
        return line.decode("latin-1")

    def _readiness(self) -> Readiness:
        if self._head_end is None:
            decided = self._read_head()
            if decided is not None:
                return decided
            if self._head_end is None:
                return self._waiting_or_partial()
        if self._need is not None:
            return Readiness.WHOLE if len(self.data) >= self._need else self._waiting_or_partial()
        decided = self._walk_chunks()
        return decided if decided is not None else self._waiting_or_partial()

    def _waiting_or_partial(self) -> Readiness:
        return Readiness.PARTIAL if len(self.data) > self.limit else Readiness.WAITING

    def _search(self, terminator: bytes, start: int, window: int | None = None) -> int:
        """Offset of ``terminator`` from ``start`` (within ``window`` bytes of it), resuming
        after what earlier calls searched; -1 if not there yet."""
        end = len(self.data) if window is None else min(len(self.data), start + window)
        found = self.data.find(terminator, max(start, self._scanned - len(terminator) + 1), end)
        self._scanned = end if found < 0 else 0
        return found

    def _read_head(self) -> Readiness | None:
        start = 2 if self.data[:2] == b"\r\n" else 0  # one empty line may precede a request
        if not self._line_ok:
            line_end = self._search(b"\n", start, self.max_line + 2)
            if line_end < 0:
                if len(self.data) - start > self.max_line + 1:
                    return Readiness.WHOLE  # refused by the parser (414)
                return None
            if self.data[line_end - 1 : line_end] != b"\r":
                return Readiness.WHOLE  # a bare LF, refused by the parser
            self._line_ok = True
            self._scanned = line_end
        end = self._search(b"\r\n\r\n", start)
        if end < 0:
            return None
        self._head_end = end + 4
        return self._framing(self._head_end)

    def _framing(self, head_end: int) -> Readiness | None:
        """Read the body's framing from the head (``head_end``: the offset of the body just
        found); a readiness when that decides it at once."""
        lengths: list[bytes] = []
        codings: list[bytes] = []
        expect = False
        head = bytes(self.data[:head_end]).removeprefix(b"\r\n")
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if b"\n" in line:
                return Readiness.WHOLE  # a bare LF, refused by the parser
            if name == b"content-length":
                lengths.append(value)
            elif name == b"transfer-encoding":
                codings.extend(part.strip().lower() for part in value.split(b","))
            elif name == b"expect" and value.lower() == b"100-continue":
                expect = True
            elif name == b"authorization" and self.authorization is None:
                self.authorization = value
        if codings:
            if lengths or codings[-1] != b"chunked":
                return Readiness.WHOLE  # refused by the parser
            if expect:
                self._expects_continue = True
                return Readiness.PARTIAL  # the client waits for "100 Continue" before the body
            self._chunk_at = head_end
            return None
        if not lengths:
            self._need = head_end
            return None
        if len(lengths) > 1 or not lengths[0].isdigit():
            return Readiness.WHOLE  # refused by the parser
        digits = lengths[0].lstrip(b"0") or b"0"
        # More digits than the limit has is over it: never int() of thousands of digits (past
        # Python's 4 300 it raises, in the loop, and the worker would exit).
        length = int(digits) if len(digits) <= len(str(self.max_body_bytes)) else None
        if length is None or length > self.max_body_bytes:
            return Readiness.WHOLE  # answered 413 unread
        self._need = head_end + length
        if expect and length:
            self._expects_continue = True
            return Readiness.PARTIAL
        return None

    def _walk_chunks(self) -> Readiness | None:
        """Follow chunk sizes from ``_chunk_at``: WHOLE after the trailers (or at anything the
        parser will refuse), None while more is needed."""
        data = self.data
        while not self._in_trailers:
            # Set by _framing (chunked) before the first walk, and by every walk after.
            at = cast(int, self._chunk_at)
            line_end = self._search(b"\r\n", at, _CHUNK_LINE_LIMIT)
            if line_end < 0:
                return Readiness.WHOLE if len(data) - at >= _CHUNK_LINE_LIMIT else None
            size_text = bytes(data[at:line_end]).split(b";", 1)[0].rstrip(b" \t")
            if not size_text or not _HEX_DIGITS.issuperset(size_text) or len(size_text) > 16:
                return Readiness.WHOLE  # refused by the parser
            size = int(size_text, 16)
            if size == 0:
                self._in_trailers, self._chunk_at = True, line_end + 2
                break
            chunk_end = line_end + 2 + size
            if len(data) < chunk_end + 2:
                self._scanned = 0
                return None
            if data[chunk_end : chunk_end + 2] != b"\r\n":
                return Readiness.WHOLE  # refused by the parser
            self._chunk_at, self._scanned = chunk_end + 2, 0
        at = cast(int, self._chunk_at)  # as above
        if len(data) < at + 2:
            return None
        if data[at : at + 2] == b"\r\n":
            return Readiness.WHOLE
        if self._search(b"\r\n\r\n", at, _TRAILERS_LIMIT) >= 0:
            return Readiness.WHOLE
        return Readiness.WHOLE if len(data) - at >= _TRAILERS_LIMIT else None
