"""Whole answers (status, media type, bytes) as the service sends and caches them: a body in the
representation a request asked for, an error in the service's error format, and the list of the
objects an answer did not read, which several answers carry (rules §15, §18). Apart from the
rankings' answers (``payloads``), whose rules a lint does not load."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.errors import ApiError, error_body
from app.selection.values import OtherObject

from .encode import to_json, to_yaml

JSON_MIME = "application/json"
TEXT_MIME = "text/plain; charset=utf-8"
YAML_MIME = "application/yaml"
OUTPUT_JSON, OUTPUT_TEXT, OUTPUT_YAML = "json", "text", "yaml"  # part of the cache keys


@dataclass(frozen=True, slots=True)
class Answer:
    """A whole answer, exactly as a view sends it and the cache keeps it (``X-Cache`` aside);
    ``gzipped`` is the body as one gzip member, for an answer that gzip shrinks and that is long
    enough to be worth it (``app.cache.framing.compressed`` makes it), else None."""

    status: int
    content_type: str
    body: bytes
    gzipped: bytes | None = None


def rendered(
    body: Any, output: str, text: Callable[[], str] | None = None, status: int = 200
) -> Answer:
    """``body`` as JSON or YAML, or ``text()`` as text; JSON where no text is offered."""
    if output == OUTPUT_TEXT and text is not None:
        return Answer(status, TEXT_MIME, text().encode("utf-8", "replace"))
    if output == OUTPUT_YAML:
        return Answer(status, YAML_MIME, to_yaml(body))
    return Answer(status, JSON_MIME, to_json(body))


def error_answer(error: ApiError) -> Answer:
    return Answer(error.status, JSON_MIME, error_body(error.code, error.message, **error.details))


def ignored_body(others: Iterable[OtherObject]) -> list[dict[str, Any]]:
    """rules §15, §18: the objects of kinds no rule reads, and those kubectl would not map,
    skipped and reported."""
    return [
        {
            "kind": other.kind,
            "name": other.name,
            "namespace": other.namespace,
            "reason": other.reason,
        }
        for other in sorted(
            others, key=lambda o: (o.namespace or "", o.name or "", o.kind or "", o.reason)
        )
    ]
