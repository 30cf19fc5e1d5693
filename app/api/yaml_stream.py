"""kubectl-style YAML streams as request bodies: bounded, tag-free, flattened (SPEC §15).

Depth counts as in ``decoding``; YAML aliases count as if expanded where they are used, and a
``kind: List`` counts before flattening (its items sit at depth 3).
"""

from __future__ import annotations

import json
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, ScalarEvent
from yaml.nodes import MappingNode
from yaml.resolver import Resolver

from app.schemas.documents import ISVC_KIND as SERVICE_KIND
from app.schemas.documents import MODEL_KINDS, RUNTIME_KINDS

from .decoding import MAX_DEPTH, MalformedRequest, _clip, _utf8

try:  # libyaml scans and parses in C (5x faster); composing stays in Python, see _Composer
    from yaml.cyaml import CParser as _EventParser
except ImportError:  # pragma: no cover - PyYAML without libyaml: the same stages in Python
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _EventParser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: bytes) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


MAX_ALIASES = 1_000  # alias uses in the whole stream
MAX_NODES = 1_000_000  # nodes of one document, aliases expanded, mapping keys included; also
#                          the budget of alias-expanded nodes of the whole stream
MAX_NUMBER_CHARS = 4_300  # Python's int/str digit limit; longer numbers are refused unparsed


def _at(mark: Any) -> str:
    return "" if mark is None else f" at line {mark.line + 1}, column {mark.column + 1}"


class _Composer(Composer):
    """PyYAML's composer, metering the stream as if every alias were expanded.

    The node graph keeps aliases as shared references, so composing a billion-laughs body is
    cheap; each alias is charged the memoised expanded size and height of its anchored node, and
    we stop at the first bound crossed, before constructing anything. Depth is checked before
    descending, so recursion stays near 3 frames x MAX_DEPTH. libyaml's own composer is not used:
    it recurses in C without a limit and segfaults on ~100 000 nested '['.
    """

    def __init__(self) -> None:
        Composer.__init__(self)
        self._aliases = self._nodes = 0
        self._expanded = 0  # nodes that alias expansion adds, over the whole stream
        self._depth = 0  # collections open on the current path
        self._peak = 0  # deepest expanded depth reached inside the node being composed
        self._measured: dict[Any, tuple[int, int]] = {}  # anchored node -> (nodes, height)

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if type(event) is ScalarEvent:  # most nodes: one more node, no deeper, height 0
            self._charge(1, self._depth, event)
            node = super().compose_node(parent, index)
            if event.anchor is not None:
                self._measured[node] = (1, 0)
            return node
        if type(event) is AliasEvent:
            node = super().compose_node(parent, index)  # raises on an undefined alias
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                self._refuse(f"YAML stream uses more than {MAX_ALIASES} aliases", event)
            if node not in self._measured:  # its anchor is still open: `&a [*a]`, a cycle
                raise ComposerError(None, None, "found a recursive alias", event.start_mark)
            nodes, height = self._measured[node]
            # Anchors never cross documents, but the alias budget is the stream's: without a
            # stream-wide bound, many small documents could each expand to the per-document cap.
            self._expanded += nodes
            if self._expanded > MAX_NODES:
                self._refuse(f"YAML aliases expand to more than {MAX_NODES} nodes", event)
            self._charge(nodes, self._depth + height, event)
            return node
        self._depth += 1  # a sequence or mapping
        first, outer_peak, self._peak = self._nodes, self._peak, self._depth
        self._charge(1, self._depth, event)
        node = super().compose_node(parent, index)
        self._depth -= 1
        if event.anchor is not None:
            self._measured[node] = (self._nodes - first, self._peak - self._depth)
        self._peak = max(outer_peak, self._peak)
        return node

    def compose_document(self) -> Any:
        # SPEC §15: the node bound is per expanded document.
        self._nodes = 0
        return super().compose_document()

    def _charge(self, nodes: int, depth: int, event: Any) -> None:
        self._nodes += nodes
        self._peak = max(self._peak, depth)
        if depth > MAX_DEPTH:
            self._refuse(f"YAML document is nested deeper than {MAX_DEPTH} levels", event)
        if self._nodes > MAX_NODES:
            self._refuse(f"YAML document expands to more than {MAX_NODES} nodes", event)

    def _refuse(self, message: str, event: Any) -> None:
        raise MalformedRequest(message + _at(event.start_mark))


def _bounded_number(construct: Any) -> Any:
    """Make SafeConstructor's int/float raise ConstructorError for bad or huge numbers.

    PyYAML lets ValueError out (`0b_`, > 4300 decimal digits) and converts sexagesimal
    `1:0:0:...` in quadratic time (64 KB: 0.12 s, so 16 MB would pin a worker for hours), hence
    the length cap. A 4300-char hex int still exceeds the decimal digit limit json.dumps needs.
    """

    def construct_number(self: Any, node: Any) -> Any:
        try:
            if len(node.value) > MAX_NUMBER_CHARS:
                raise ValueError
            value = construct(self, node)
            if isinstance(value, int) and value.bit_length() > 64:
                str(value)  # raises ValueError past the digit limit
        except ValueError:
            problem = f"malformed or too long number {_clip(node.value, 40)}"
            raise ConstructorError(None, None, problem, node.start_mark) from None
        return value

    return construct_number


def _unsupported(self: Any, node: Any) -> Any:
    raise ConstructorError(None, None, f"tag {node.tag} is not supported", node.start_mark)


class _Constructor(SafeConstructor):
    """SafeConstructor whose results are always JSON-serialisable (so no datetime/bytes/set)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        # Scalar keys that are not strings get their JSON spelling (1 -> "1", true -> "true",
        # null -> "null"), as kubectl's YAML-to-JSON step does. Converting here rather than after
        # construction keeps `1:` and `true:` apart (1 == True in a dict). Duplicates: last wins.
        if not isinstance(node, MappingNode):  # `!!map x`
            raise ConstructorError(
                None, None, f"expected a mapping, found {node.id}", node.start_mark
            )
        self.flatten_mapping(node)  # merge keys (`<<: *base`)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (list, dict)):
                problem = "found a sequence or mapping as a key"
                raise ConstructorError(None, None, problem, key_node.start_mark)
            key = key if isinstance(key, str) else json.dumps(key)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


for _tag in ("binary", "set", "omap", "pairs"):  # bytes, set, tuples: not JSON, so refused
    _Constructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _unsupported)
_Constructor.add_constructor("tag:yaml.org,2002:timestamp", SafeConstructor.construct_scalar)
for _tag, _construct in (
    ("int", SafeConstructor.construct_yaml_int),
    ("float", SafeConstructor.construct_yaml_float),
):
    _Constructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _bounded_number(_construct))


class _Resolver(Resolver):
    """YAML 1.1 implicit types minus timestamps: `version: 2024-01-01` stays a string."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(":timestamp")]
        for first, resolvers in Resolver.yaml_implicit_resolvers.items()
    }


class _Loader(_Composer, _EventParser, _Constructor, _Resolver):
    # _Composer comes first so that its methods shadow the C composer's in CParser.
    def __init__(self, stream: bytes) -> None:
        _EventParser.__init__(self, stream)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


def _yaml_error(exc: Exception) -> str:
    if isinstance(exc, yaml.MarkedYAMLError):  # our own text: str(exc) quotes body snippets
        parts = [_clip(exc.context or "", 160) + _at(exc.context_mark)] if exc.context else []
        parts.append(_clip(exc.problem or "syntax error", 160) + _at(exc.problem_mark))
        return "request body is not valid YAML: " + "; ".join(parts)
    if isinstance(exc, yaml.reader.ReaderError):
        return f"request body is not valid YAML: {exc.reason} (position {exc.position})"
    # Anything else PyYAML lets out (RecursionError, TypeError...): name it, nothing more.
    return f"request body could not be loaded as YAML ({type(exc).__name__})"


def _load_documents(raw: bytes) -> list:
    try:
        loader = _Loader(raw)
        try:
            documents = []
            while loader.check_data():
                documents.append(loader.get_data())
            return documents
        finally:
            loader.dispose()
    except MalformedRequest:
        raise
    except Exception as exc:
        raise MalformedRequest(_yaml_error(exc)) from None


def _flatten(document: object, label: str, out: list[tuple[str, dict]]) -> None:
    """Append (label, object) for a Kubernetes object, or for each item of a (nested) v1 List."""
    if not isinstance(document, dict):
        shape = "a sequence" if isinstance(document, list) else "a scalar"
        raise MalformedRequest(f"{label} is {shape}, not a Kubernetes object")
    if document.get("kind") != "List":
        out.append((label, document))
        return
    if document.get("apiVersion", "v1") != "v1":
        version = _clip(document["apiVersion"])
        raise MalformedRequest(f"{label} is a List of apiVersion {version}, expected v1")
    items = document.get("items")
    if items is None:  # absent or null: an empty List, as kubectl reads it
        return
    if not isinstance(items, list):
        raise MalformedRequest(f"{label} is a List whose items is not a sequence")
    for index, item in enumerate(items):  # recursion bounded by MAX_DEPTH
        _flatten(item, f"{label} items[{index}]", out)


def decode_yaml_body(raw: bytes) -> dict:
    """Decode a kubectl-style YAML stream into ``{"model", "runtimes"[, "inferenceService"]}``.

    Documents are numbered from 1 in stream order, counting the empty/null ones that are skipped
    (so numbers match the `---` separators); List items are named `items[i]`, counted from 0.
    """
    _utf8(raw)  # libyaml would also take UTF-16 (with a BOM)
    objects: list[tuple[str, dict]] = []
    for position, document in enumerate(_load_documents(raw), start=1):
        if document is not None:
            _flatten(document, f"document {position}", objects)
    models, runtimes, services = [], [], []
    for label, obj in objects:
        kind = obj.get("kind")
        if not isinstance(kind, str):  # first: an unhashable kind must not reach `in`
            raise MalformedRequest(f"{label} has {'no' if kind is None else 'a non-string'} kind")
        if kind in MODEL_KINDS:
            models.append(obj)
        elif kind in RUNTIME_KINDS:
            runtimes.append(obj)
        elif kind == SERVICE_KIND:
            services.append(obj)
        else:
            allowed = ", ".join((*MODEL_KINDS, *RUNTIME_KINDS, SERVICE_KIND))
            message = f"{label} has unsupported kind {_clip(kind)!r}; expected one of {allowed}"
            raise MalformedRequest(message)
    if len(models) != 1:
        wanted, n = " or ".join(MODEL_KINDS), len(models)
        raise MalformedRequest(f"YAML stream must contain exactly one {wanted}, found {n}")
    if len(services) > 1:
        n = len(services)
        raise MalformedRequest(f"YAML stream must contain at most one {SERVICE_KIND}, found {n}")
    request = {"model": models[0], "runtimes": runtimes}
    if services:
        request["inferenceService"] = services[0]
    return request
