"""What a request body will take in memory once it is read, known from its bytes before a
decoder touches them (rules §17 "Safe to share": memory bounded like CPU).

A decoder turns every value into a Python object, and the objects cost far more than the bytes
that spell them: 16 MiB of ``[{},{},…]`` decode into 5.6 million dicts (~520 MB), and a YAML
flow sequence of ``1,`` into PyYAML nodes at ~300 bytes each. What a body can become is bounded
by how many values it can hold, and each value needs a byte of structure around it (a comma, a
colon, a bracket; in YAML also a line break, a dash, a tab or a question mark), so counting
those bytes bounds the values, at memchr speed, before anything is decoded.

The figures per value are the most that one costs through a whole request, measured on the
worst shapes and on real manifests (bench/README.md, "Memory"): a JSON value at most 64 bytes
once decoded (a one-key dict in a list; real manifests ~51 per structural byte, with the
validated documents and the answer on top), a YAML node at most ~384 bytes through the PyYAML
path (its nodes and marks), and about half that through the fast path. Twice the body's own
length covers the body itself and the text of its strings.
"""

from __future__ import annotations

JSON_STRUCTURE = b"{[,:"
# The structure, the closing brackets and the quotes: one translate keeps them for the estimate
# here and, where the body holds no escape, for the depth scan (``decoding.json_depth``).
JSON_MARKS = JSON_STRUCTURE + b']}"'
_NOT_JSON_MARKS = bytes(byte for byte in range(256) if byte not in JSON_MARKS)
JSON_BYTES_PER_VALUE = 64
# Where a YAML node can begin, as app/reading/ryml_reader.py counts them (a flow collection's
# first entry follows its bracket): each of these bytes, once more for each bracket.
YAML_STRUCTURE = b"\n\t-:?,[{"
_NOT_YAML_STRUCTURE = bytes(byte for byte in range(256) if byte not in YAML_STRUCTURE)
YAML_BYTES_PER_NODE = 384
BYTES_PER_BODY_BYTE = 2
# What an object costs beyond its values once it is validated, ranked and answered (its
# document, its row, its labels): a body of ten thousand tiny runtimes takes ~4 KB each. Every
# object names its kind, so the word bounds the objects (in JSON as a key, in YAML as one too).
OBJECT_WORD = b"kind"
BYTES_PER_OBJECT = 4096


def _objects_cost(raw: bytes) -> int:
    return BYTES_PER_OBJECT * raw.count(OBJECT_WORD)


def json_marks(raw: bytes) -> bytes:
    """The bytes of ``JSON_MARKS`` in the body, in order."""
    return raw.translate(None, _NOT_JSON_MARKS)


def json_memory(raw: bytes, marks: bytes | None = None) -> int:
    """The most a JSON body can take in memory through a request, in bytes (``marks``: its
    ``json_marks``, if known). Each count is a pass over the body: the structural bytes are
    kept by one translate, not counted apiece."""
    if marks is None:
        marks = json_marks(raw)
    values = len(marks.translate(None, b']}"')) + 1
    return BYTES_PER_BODY_BYTE * len(raw) + JSON_BYTES_PER_VALUE * values + _objects_cost(raw)


def yaml_nodes_ceiling(raw: bytes) -> int:
    """More nodes than a YAML stream of these bytes can hold, aliases aside (they are bounded
    by count in the loader and share their anchor's objects)."""
    structural = raw.translate(None, _NOT_YAML_STRUCTURE)  # every bracket is kept in it
    return len(structural) + structural.count(b"[") + structural.count(b"{") + 8


def yaml_memory(raw: bytes) -> int:
    """The most a YAML body can take in memory through a request, in bytes."""
    nodes = yaml_nodes_ceiling(raw)
    return BYTES_PER_BODY_BYTE * len(raw) + YAML_BYTES_PER_NODE * nodes + _objects_cost(raw)


def body_memory(raw: bytes, is_yaml: bool, marks: bytes | None = None) -> int:
    """The most a body can take in memory through a request (``marks``: a JSON body's
    ``json_marks``, if known)."""
    return yaml_memory(raw) if is_yaml else json_memory(raw, marks)
