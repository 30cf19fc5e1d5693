"""Load a kubectl-style YAML stream into Python documents: bounded, tag-free (rules §15).

``load_documents(raw)`` takes the body's bytes and gives one Python value per document (dicts,
lists, scalars; ``None`` for an empty or null document), or raises ``MalformedRequest``. Values
are those of PyYAML's SafeLoader (YAML 1.1 implicit types) except that timestamps stay strings
and scalar keys that are not strings take their JSON spelling (``1`` -> ``"1"``, ``true`` ->
``"true"``, ``null`` -> ``"null"``), as kubectl's YAML-to-JSON step does.

Two readers give those values:

* the fast path (``ryml_reader``): rapidyaml parses the stream and writes it as JSON, which
  orjson reads; it answers only when its result is certainly the PyYAML path's, and steps aside
  otherwise;
* the PyYAML path (``pyyaml_reader``): libyaml's event parser, our metering composer, PyYAML's
  SafeConstructor; it reads everything else, and names what is wrong with a body.

tests/reading/test_yaml_loader.py holds the two to each other, differentially.

Bounds (``MalformedRequest``, ``yaml_bounds``): at most ``MAX_ALIASES`` alias uses in the
stream; at most ``MAX_NODES`` nodes in one document and ``MAX_STREAM_NODES`` in the whole stream,
aliases expanded and mapping keys included; at most ``MAX_DOCUMENTS`` documents; nesting at most
``MAX_DEPTH`` (counted as in ``decoding``: a mapping or sequence is one level deeper than the
collection holding it, aliases count as if expanded where they are used); no tags but the
standard scalar ones (``!!binary``, ``!!set``, ``!!omap``, ``!!pairs`` and every
``!!python/...`` are refused); numbers of at most ``MAX_NUMBER_CHARS`` characters; UTF-8 only; a
key at most once per mapping (merge keys ``<<`` bring keys in without being duplicates of them;
an explicit key overrides a merged one).
"""

from __future__ import annotations

from .decoding import check_utf8
from .pyyaml_reader import pyyaml_documents
from .ryml_reader import fast_documents


def load_documents(raw: bytes) -> list:
    """The stream's documents, in order; ``MalformedRequest`` for anything refused."""
    if not raw.isascii():
        check_utf8(raw)  # libyaml would also take UTF-16 (with a BOM); ryml would take any bytes
    documents = fast_documents(raw)
    if documents is None:
        return pyyaml_documents(raw)
    return documents
