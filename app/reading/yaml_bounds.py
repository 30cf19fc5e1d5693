"""The bounds of a YAML stream (rules §15), the same whichever reader loads it: the fast path
(``ryml_reader``) and the PyYAML path (``pyyaml_reader``) refuse past them, with the texts
written here when both give them. The PyYAML path's own cost is bounded by the body's size
(``pyyaml_budget``): the fast path refuses a body past it that it leaves to that path, before
that path composes anything, and that path meters what it composes against it.

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
# What the PyYAML path composes, by the body's size: its cost is per node composed (a scalar, a
# collection, a key, an alias), and it costs tens of times the fast path's (bench/README.md,
# "YAML cost bounded by size"), so the nodes a body may hold there are bounded by its bytes:
# this many per MiB, and as many for any body under a MiB. Manifests hold a node per 11 to 22
# bytes (up to ~95 000 per MiB); a flow sequence of integers holds one per 2 bytes, and a body of
# them that needs the PyYAML path is refused here rather than composed for seconds.
PYYAML_NODES_PER_MIB = 131_072
MIB = 1024 * 1024


def stream_too_large(what: str) -> str:
    return f"YAML stream holds more than {what}"


def refuse_past_bounds(documents: int, nodes: int) -> None:
    """``MalformedRequest`` for a stream of more documents or nodes than the bounds allow."""
    if documents > MAX_DOCUMENTS:
        raise MalformedRequest(stream_too_large(f"{MAX_DOCUMENTS} documents"))
    if nodes > MAX_STREAM_NODES:
        raise MalformedRequest(stream_too_large(f"{MAX_STREAM_NODES} nodes"))


def pyyaml_budget(size: int) -> int:
    """The nodes the PyYAML path composes of a body of ``size`` bytes, aliases counted once."""
    return max(size, MIB) * PYYAML_NODES_PER_MIB // MIB


def past_pyyaml_budget(size: int, where: str = "") -> str:
    return (
        f"YAML stream holds more than {pyyaml_budget(size)} nodes{where}: YAML the fast reader "
        "leaves to PyYAML (anchors, aliases, tags, YAML 1.1 scalars such as yes, flow collections "
        f"over several lines) is read up to {PYYAML_NODES_PER_MIB} nodes per MiB of body; send "
        "it as JSON, or without those"
    )


def refuse_past_pyyaml_budget(nodes: int, size: int) -> None:
    """``MalformedRequest`` for a body of ``size`` bytes of which the PyYAML path would compose
    ``nodes`` at least, past its budget: refused before that path composes one."""
    if nodes > pyyaml_budget(size):
        raise MalformedRequest(past_pyyaml_budget(size))
