"""The PyYAML path of the YAML loader (``yaml_loader``): libyaml's event parser, our metering
composer, PyYAML's SafeConstructor. It reads every YAML stream the fast path (``ryml_reader``)
cannot vouch for, gives the values the fast path is held to, and names what is wrong with a body
(its line and column).

The composer meters the stream as it goes (``yaml_bounds``: aliases, nodes per document and per
stream, documents, the nodes this path composes for the body's size; ``decoding.MAX_DEPTH``),
refusing at the first bound crossed, before anything is constructed, and checks the request's
deadline every ``NODES_PER_CHECK`` nodes. The
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
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, ScalarNode
from yaml.reader import Reader
from yaml.resolver import Resolver

from app.errors import MalformedRequest
from app.selection.values import DeadlinePassed, checkpoint

from .decoding import MAX_DEPTH, clip
from .sizing import yaml_nodes_ceiling
from .yaml_bounds import (
    MAX_ALIASES,
    MAX_DOCUMENTS,
    MAX_NODES,
    MAX_NUMBER_CHARS,
    MAX_STREAM_NODES,
    past_pyyaml_budget,
    pyyaml_budget,
    stream_too_large,
)

try:  # libyaml scans and parses in C (much faster); composing stays in Python, see _Composer
    from yaml._yaml import CParser as _EventParser
except ImportError:  # pragma: no cover - PyYAML without libyaml: the same stages in Python
    from yaml.parser import Parser
    from yaml.scanner import Scanner

    class _EventParser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: bytes) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


# A node is cheap to compose: a deadline check every 256 keeps the checks a small share of the
# work and the stop near the deadline (bench/README.md § "Figures behind the code").
NODES_PER_CHECK = 256


def _at(mark: Any) -> str:
    return "" if mark is None else f" at line {mark.line + 1}, column {mark.column + 1}"


class _Meter:
    """A stream's nodes charged in the order they are composed, against every bound: depth, nodes
    of the document and of the stream (aliases expanded), documents, and the nodes composed
    (aliases once) against this path's budget for the body's size; the first crossed refuses
    the body, naming where. The request's deadline is checked every ``NODES_PER_CHECK``."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.budget = pyyaml_budget(size)
        self.documents = self.nodes = self.stream_nodes = self.composed = 0
        self._next_check = 0  # stream nodes at which the request's deadline is next checked

    def document(self, event: Any) -> None:
        self.documents += 1
        if self.documents > MAX_DOCUMENTS:
            _refuse(stream_too_large(f"{MAX_DOCUMENTS} documents"), event)
        self.nodes = 0  # rules §15: MAX_NODES is per expanded document

    def charge(self, nodes: int, depth: int, event: Any) -> None:
        if self.stream_nodes >= self._next_check:  # the deadline holds in here too
            checkpoint()
            self._next_check = self.stream_nodes + NODES_PER_CHECK
        self.nodes += nodes
        self.stream_nodes += nodes
        self.composed += 1
        if depth > MAX_DEPTH:
            _refuse(f"YAML document is nested deeper than {MAX_DEPTH} levels", event)
        if self.nodes > MAX_NODES:
            _refuse(f"YAML document expands to more than {MAX_NODES} nodes", event)
        if self.stream_nodes > MAX_STREAM_NODES:
            _refuse(stream_too_large(f"{MAX_STREAM_NODES} nodes"), event)
        if self.composed > self.budget:
            raise MalformedRequest(past_pyyaml_budget(self.size, _at(event.start_mark)))


def _refuse(message: str, event: Any) -> None:
    raise MalformedRequest(message + _at(event.start_mark))


class _Composer(Composer):
    """PyYAML's composer, metering the stream (``_Meter``) as if every alias were expanded.

    The node graph keeps aliases as shared references, so composing a billion-laughs body is
    cheap; each alias is charged the memoised expanded size and height of its anchored node, and
    we stop at the first bound crossed, before constructing anything. Depth is checked before
    descending, so recursion stays near 3 frames x MAX_DEPTH. libyaml's own composer is not used:
    it recurses in C without a limit and segfaults on ~100 000 nested '['.
    """

    peek_event: Callable[[], Any]  # the parser's, mixed in with this class

    def __init__(self, size: int) -> None:
        Composer.__init__(self)
        self._meter = _Meter(size)
        self._aliases = 0
        self._depth = 0  # collections open on the current path
        self._peak = 0  # deepest expanded depth reached inside the node being composed
        self._measured: dict[Any, tuple[int, int]] = {}  # anchored node -> (nodes, height)

    def compose_node(self, parent: Any, index: Any) -> Any:
        event: Any = self.peek_event()
        meter = self._meter
        if type(event) is ScalarEvent:  # most nodes: one more node, no deeper, height 0
            meter.charge(1, self._depth, event)
            node = super().compose_node(parent, index)
            if event.anchor is not None:
                self._measured[node] = (1, 0)
            return node
        if type(event) is AliasEvent:
            node = super().compose_node(parent, index)  # raises on an undefined alias
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                _refuse(f"YAML stream uses more than {MAX_ALIASES} aliases", event)
            if node not in self._measured:  # its anchor is still open: `&a [*a]`, a cycle
                # libyaml's parser gives its own Mark class, which PyYAML's errors print as well.
                mark: Any = event.start_mark
                raise ComposerError(None, None, "found a recursive alias", mark)
            nodes, height = self._measured[node]
            if meter.stream_nodes + nodes > MAX_STREAM_NODES:
                _refuse(f"YAML aliases expand to more than {MAX_STREAM_NODES} nodes", event)
            self._peak = max(self._peak, self._depth + height)
            meter.charge(nodes, self._depth + height, event)
            return node
        self._depth += 1  # a sequence or mapping
        first, outer_peak, self._peak = meter.nodes, self._peak, self._depth
        meter.charge(1, self._depth, event)
        node = super().compose_node(parent, index)
        self._depth -= 1
        if event.anchor is not None:
            self._measured[node] = (meter.nodes - first, self._peak - self._depth)
        self._peak = max(outer_peak, self._peak)
        return node

    def compose_document(self) -> Any:
        self._meter.document(self.peek_event())
        return super().compose_document()


def _bounded_number(construct: Any) -> Any:
    """Make SafeConstructor's int/float raise ConstructorError for bad or huge numbers.

    PyYAML lets ValueError out (`0b_`, > 4300 decimal digits) and converts sexagesimal
    `1:0:0:...` in quadratic time (16 MB would pin a worker for hours), hence
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
        _Composer.__init__(self, len(stream))
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


def _metered_before_composing(raw: bytes) -> None:
    """Meter the stream on libyaml's events alone, as the composer would (``_Meter``), so that a
    body past a bound is refused, with the composer's own words, before any of it is composed:
    an event costs a fraction of what composing its node does. Only a body with room for more
    nodes than its bounds allow (``sizing.yaml_nodes_ceiling``) is metered so; the rest of the
    stream is left to the composer from its first alias on (what that expands to is known to the
    composer only), and from a syntax error on (the composer names it)."""
    meter = _Meter(len(raw))
    if yaml_nodes_ceiling(raw) <= min(meter.budget, MAX_STREAM_NODES):
        return
    parser = _EventParser(raw)
    depth = 0  # collections open
    try:
        while (event := parser.get_event()) is not None:
            kind = type(event)
            if kind is ScalarEvent:
                meter.charge(1, depth, event)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                depth += 1
                meter.charge(1, depth, event)
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                depth -= 1
            elif kind is DocumentStartEvent:
                meter.document(event)
            elif kind is AliasEvent:
                return
    except yaml.YAMLError:
        return
    finally:
        parser.dispose()


def pyyaml_documents(raw: bytes) -> list:
    """The stream's documents as PyYAML's SafeLoader reads them, within the bounds."""
    try:
        _metered_before_composing(raw)
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
