"""The bounds of a YAML stream (rules §15), the same whichever reader loads it: the fast path
(``ryml_reader``) and the PyYAML path (``pyyaml_reader``) refuse past them with these texts.

Nodes are counted as the PyYAML path composes them: every scalar, sequence and mapping, mapping
keys included, an alias as the nodes of what it names (expanded). Depth is JSON's bound
(``decoding.MAX_DEPTH``), which only the PyYAML path meets: ryml's JSON writer stops at 64 levels.
"""

from __future__ import annotations

from app.errors import MalformedRequest

MAX_ALIASES = 1_000  # alias uses in the whole stream
MAX_NODES = 1_000_000  # nodes of one document, aliases expanded, mapping keys included
# Nodes of the whole stream, counted the same way: a body cut into many documents costs no more
# than one document at MAX_NODES (a bound per document was not enough: four documents at it took
# longer than the 30 s worker timeout).
MAX_STREAM_NODES = 1_000_000
# Documents in the stream, empty ones included: room for OME_RANKER_MAX_RUNTIMES' default of
# 10 000 runtimes plus the model, the InferenceService and stray empty documents, twice over.
# Each document costs more than a node (its own Python object, its label, its checks), so a body
# of tiny documents is refused here before it reaches the node budget.
MAX_DOCUMENTS = 20_000
MAX_NUMBER_CHARS = 4_300  # Python's int/str digit limit; longer numbers are refused unparsed


def stream_too_large(what: str) -> str:
    return f"YAML stream holds more than {what}"


def refuse_past_bounds(documents: int, nodes: int) -> None:
    """``MalformedRequest`` for a stream of more documents or nodes than the bounds allow."""
    if documents > MAX_DOCUMENTS:
        raise MalformedRequest(stream_too_large(f"{MAX_DOCUMENTS} documents"))
    if nodes > MAX_STREAM_NODES:
        raise MalformedRequest(stream_too_large(f"{MAX_STREAM_NODES} nodes"))
