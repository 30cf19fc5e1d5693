"""kubectl-style YAML streams as request bodies: bounded, tag-free, flattened (SPEC §15).

Loading the stream into documents, with its bounds, is ``yaml_loader``'s (``load_documents``
here); ``manifests`` reads the documents as a stream of objects. Depth counts as in
``decoding``; YAML aliases count as if expanded where they are used, and a ``kind: List`` counts
before flattening (its items sit at depth 3).
"""

from __future__ import annotations

from .yaml_loader import (  # noqa: F401 - the bounds are part of this module's interface
    MAX_ALIASES,
    MAX_DOCUMENTS,
    MAX_NODES,
    MAX_NUMBER_CHARS,
    MAX_STREAM_NODES,
    load_documents,
)
