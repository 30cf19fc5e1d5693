"""The PyYAML path of the YAML loader (``yaml_loader``): libyaml's event parser, our metering
composer, PyYAML's SafeConstructor. It reads every YAML stream the fast path (``ryml_reader``)
cannot vouch for, gives the values the fast path is held to, and names what is wrong with a body
(its line and column).

The composer meters the stream as it goes (``yaml_bounds``: aliases, nodes per document and per
stream, documents; ``decoding.MAX_DEPTH``), refusing at the first bound crossed, before anything
is constructed, and checks the request's deadline every ``NODES_PER_CHECK`` nodes. The
constructor builds only JSON values: no tag but the standard scalar ones, timestamps as strings,
scalar keys in their JSON spelling, numbers of at most ``MAX_NUMBER_CHARS`` characters, a key at
most once per mapping.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, ScalarEvent
from yaml.nodes import MappingNode, ScalarNode
from yaml.reader import Reader
from yaml.resolver import Resolver

from app.errors import MalformedRequest
from app.selection.values import DeadlinePassed, checkpoint

from .decoding import MAX_DEPTH, clip
from .yaml_bounds import (
    MAX_ALIASES,
    MAX_DOCUMENTS,
    MAX_NODES,
    MAX_NUMBER_CHARS,
    MAX_STREAM_NODES,
    stream_too_large,
)

try:  # libyaml scans and parses in C (5x faster); composing stays in Python, see _Composer
    from yaml._yaml import CParser as _EventParser
except ImportError:  # pragma: no cover - PyYAML without libyaml: the same stages in Python
    from yaml.parser import Parser
    from yaml.scanner import Scanner

    class _EventParser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: bytes) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


NODES_PER_CHECK = 256  # PyYAML composes a node in ~3 us: a deadline check every ~1 ms


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

    peek_event: Callable[[], Any]  # the parser's, mixed in with this class

    def __init__(self) -> None:
        Composer.__init__(self)
        self._aliases = self._nodes = self._stream_nodes = self._documents = 0
        self._depth = 0  # collections open on the current path
        self._peak = 0  # deepest expanded depth reached inside the node being composed
        self._measured: dict[Any, tuple[int, int]] = {}  # anchored node -> (nodes, height)
        self._next_check = 0  # stream nodes at which the request's deadline is next checked

    def compose_node(self, parent: Any, index: Any) -> Any:
        event: Any = self.peek_event()
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
                # libyaml's parser gives its own Mark class, which PyYAML's errors print as well.
                mark: Any = event.start_mark
                raise ComposerError(None, None, "found a recursive alias", mark)
            nodes, height = self._measured[node]
            if self._stream_nodes + nodes > MAX_STREAM_NODES:
                self._refuse(f"YAML aliases expand to more than {MAX_STREAM_NODES} nodes", event)
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
        self._documents += 1
        if self._documents > MAX_DOCUMENTS:
            self._refuse(stream_too_large(f"{MAX_DOCUMENTS} documents"), self.peek_event())
        self._nodes = 0  # rules §15: MAX_NODES is per expanded document
        return super().compose_document()

    def _charge(self, nodes: int, depth: int, event: Any) -> None:
        if self._stream_nodes >= self._next_check:  # the deadline holds in here too
            checkpoint()
            self._next_check = self._stream_nodes + NODES_PER_CHECK
        self._nodes += nodes
        self._stream_nodes += nodes
        self._peak = max(self._peak, depth)
        if depth > MAX_DEPTH:
            self._refuse(f"YAML document is nested deeper than {MAX_DEPTH} levels", event)
        if self._nodes > MAX_NODES:
            self._refuse(f"YAML document expands to more than {MAX_NODES} nodes", event)
        if self._stream_nodes > MAX_STREAM_NODES:
            self._refuse(stream_too_large(f"{MAX_STREAM_NODES} nodes"), event)

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
            problem = f"malformed or too long number {clip(node.value, 40)}"
            raise ConstructorError(None, None, problem, node.start_mark) from None
        return value

    return construct_number


def _unsupported(self: Any, node: Any) -> Any:
    raise ConstructorError(None, None, f"tag {node.tag} is not supported", node.start_mark)


MERGE_TAG = "tag:yaml.org,2002:merge"


def _json_key(key: object) -> str:
    """A scalar key's JSON spelling: strings stay, others as json.dumps writes them."""
    return key if isinstance(key, str) else json.dumps(key)


class _Constructor(SafeConstructor):
    """SafeConstructor whose results are always JSON-serialisable (so no datetime/bytes/set)."""

    def __init__(self) -> None:
        SafeConstructor.__init__(self)
        self._flattened: set[Any] = set()  # mapping nodes whose own keys were checked

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        # Scalar keys that are not strings get their JSON spelling (1 -> "1", true -> "true",
        # null -> "null"), as kubectl's YAML-to-JSON step does. Converting here rather than after
        # construction keeps `1:` and `true:` apart (1 == True in a dict), and `'1'` after `1`
        # overrides it: they are different YAML keys with one JSON spelling.
        if not isinstance(node, MappingNode):  # `!!map x`
            raise ConstructorError(
                None, None, f"expected a mapping, found {node.id}", node.start_mark
            )
        checkpoint()
        self.flatten_mapping(node)  # merge keys (`<<: *base`); the merged pairs come first
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (list, dict)):
                problem = "found a sequence or mapping as a key"
                raise ConstructorError(None, None, problem, key_node.start_mark)
            mapping[_json_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping

    def flatten_mapping(self, node: Any) -> None:
        # Refuse a key written twice in one mapping, as kubectl does: two manifests concatenated
        # without `---` would otherwise merge silently into one wrong document. Only the
        # mapping's own keys are compared (merged ones may be overridden); each mapping node is
        # checked once, the first time it is flattened (an alias flattens it again, merged).
        first_time = node not in self._flattened
        own = sum(key.tag != MERGE_TAG for key, _ in node.value) if first_time else 0
        super().flatten_mapping(node)
        if first_time:
            self._flattened.add(node)
            self._refuse_duplicate_keys(node.value[len(node.value) - own :])

    def _refuse_duplicate_keys(self, pairs: list) -> None:
        seen = set()
        for key_node, _ in pairs:
            if not isinstance(key_node, ScalarNode):  # refused in construct_mapping
                continue
            key = self.construct_object(key_node)
            identity = (isinstance(key, str), _json_key(key))  # `1` and `'1'` are two keys
            if identity in seen:
                spelling = json.dumps(clip(identity[1]), ensure_ascii=False)
                line = key_node.start_mark.line + 1
                raise MalformedRequest(
                    f"request body is not valid YAML: key {spelling} appears twice in one "
                    f"mapping (line {line})"
                )
            seen.add(identity)


def _scalar_text(loader: Any, node: Any) -> Any:
    """A timestamp: its text, as JSON would carry it."""
    return loader.construct_scalar(node)


for _tag in ("binary", "set", "omap", "pairs"):  # bytes, set, tuples: not JSON, so refused
    _Constructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _unsupported)
_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _scalar_text)
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
        parts = [clip(exc.context or "", 160) + _at(exc.context_mark)] if exc.context else []
        parts.append(clip(exc.problem or "syntax error", 160) + _at(exc.problem_mark))
        return "request body is not valid YAML: " + "; ".join(parts)
    if isinstance(exc, yaml.reader.ReaderError):
        return f"request body is not valid YAML: {exc.reason} (position {exc.position})"
    # Anything else PyYAML lets out (RecursionError, TypeError...): name it, nothing more.
    return f"request body could not be loaded as YAML ({type(exc).__name__})"


def pyyaml_documents(raw: bytes) -> list:
    """The stream's documents as PyYAML's SafeLoader reads them, within the bounds."""
    try:
        loader = _Loader(raw)
        try:
            documents = []
            while loader.check_data():
                documents.append(loader.get_data())
            return documents
        finally:
            loader.dispose()
    except (MalformedRequest, DeadlinePassed):
        raise
    except Exception as exc:
        raise MalformedRequest(_yaml_error(exc)) from None


# What the fast path asks of this path: how it types a plain scalar (YAML 1.1, no timestamps).
STR_TAG = "tag:yaml.org,2002:str"
VALUE_TAG = "tag:yaml.org,2002:value"
_RESOLVER = _Resolver()
_CONSTRUCTOR = _Constructor()


def yaml11_scalar(text: str) -> tuple[str, Any]:
    """(tag, value) of a plain scalar with this text, as this path reads it."""
    tag = _RESOLVER.resolve(ScalarNode, text, (True, False))
    if tag in (STR_TAG, VALUE_TAG, MERGE_TAG):
        return tag, text
    return tag, _Constructor.yaml_constructors[tag](_CONSTRUCTOR, ScalarNode(tag, text))
