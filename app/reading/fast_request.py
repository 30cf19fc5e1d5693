"""A ``/v1/rank`` JSON body decoded straight into its runtimes, when every one of them is plain.

The request object (rules §15: an object without a top-level ``kind``) is most often a catalog
of runtime manifests, and most of their bytes are what no rule reads: containers, labels,
resources, most of a config. Decoded into Python objects, then validated, each of those costs a
dict, a string, an integer; here msgspec decodes the body in one C call into the runtime
documents as ``fast_runtime.RuntimeDocument`` describes them, skipping what no rule reads, and
the other members of the request (the model, the InferenceService, the AcceleratorClasses, the
settings) as plain values, exactly as the standard library's decoder gives them (integers past 64
bits exact, the last of duplicate keys winning, in the first one's place).

It answers only where it gives what the usual path gives (``decoding.decode_json_body`` and
``fast_runtime.load_runtime``), and ``None`` for anything else: a body that is not such an object,
that msgspec does not read as the stdlib would (a byte-order mark, a lone surrogate, a number past
a double), that is nested deeper than the bound, or with a runtime that is not plain. The usual
path then reads the body and decides, with its own errors. tests/reading/test_fast_request.py
holds the two to each other on generated bodies.
"""

from __future__ import annotations

from typing import Any

import msgspec

from app.schemas.fast_runtime import RuntimeDocument, runtime_from_document
from app.selection.values import Runtime, checked

from .decoding import MAX_DEPTH, json_depth

_ABSENT: Any = msgspec.UNSET


class _RequestObject(msgspec.Struct):
    runtimes: list[RuntimeDocument]
    model: Any = None
    inferenceService: Any = None  # (the request's own field names)
    namespace: Any = None
    omeVersion: Any = None
    modelCacheProvider: Any = None
    acceleratorClassesKnown: Any = None
    acceleratorClasses: Any = None
    kind: Any = _ABSENT  # set: a manifest, not the request object (rules §15)


_DECODER = msgspec.json.Decoder(_RequestObject)
_MEMBERS = tuple(name for name in _RequestObject.__struct_fields__ if name not in ("kind",))


def fast_request_object(
    raw: bytes, marks: bytes | None = None
) -> tuple[dict[str, Any], list[Runtime]] | None:
    """The request object of a JSON body, its ``runtimes`` loaded (each as ``load_runtime``
    loads it), or None for the usual path to read the body. ``marks``: the body's
    ``sizing.json_marks``, if the memory estimate made them."""
    if raw[:1] != b"{" and raw.lstrip(b" \t\r\n")[:1] != b"{":
        return None
    try:
        decoded = _DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # (RecursionError: nested past msgspec's own bound, at once)
    # After decoding: the depth scan is exact, and cheap, on valid JSON only.
    if json_depth(raw, marks) > MAX_DEPTH:
        return None
    if decoded.kind is not _ABSENT:
        return None
    runtimes = []
    for document in checked(decoded.runtimes, every=32):
        runtime = runtime_from_document(document)
        if runtime is None:
            return None
        runtimes.append(runtime)
    body = {name: getattr(decoded, name) for name in _MEMBERS}
    body["runtimes"] = runtimes
    return body, runtimes
