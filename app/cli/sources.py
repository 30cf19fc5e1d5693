"""Manifests read as ``kubectl apply -f`` reads them: files, directories (``.yaml``, ``.yml``,
``.json``; subdirectories with ``-R``) and ``-`` for stdin. Every object keeps where it starts
(``file:line``), so that a message about it can point there.

Values come from the service's own loaders (``app.reading.yaml_loader``,
``app.reading.decoding``), so a file means here exactly what it would mean posted to the API;
PyYAML's composer, run beside them, gives the lines (a document that starts plainly, as nearly
all do, its line without composing it).

Without ``-R`` a directory's sub-directories are not read, as kubectl does it; unlike kubectl,
the command says so on stderr for each one that holds manifest files, since an answer about part
of the manifests looks just like an answer about all of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import click
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from app.errors import MalformedRequest
from app.reading.decoding import decode_json_body
from app.reading.positions import yaml_documents
from app.reading.yaml_loader import load_documents
from app.rendering.encode import counted

from .output import warn

STDIN = "-"
STDIN_NAME = "<stdin>"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")  # what kubectl reads from a directory
LIST_KIND = "List"
# Where one command remembers the directories it has reported (click's ``meta`` is shared by
# every context of one invocation): impact reads twice, and names one directory once.
_REPORTED = "ome_ranker.unread_directories"

try:
    _NodeLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML without libyaml
    _NodeLoader = yaml.SafeLoader


class SourceError(Exception):
    """A path that cannot be read, or a document that is not a Kubernetes object; the message
    starts with ``file:line`` when it is known."""


class _NotAnObject(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line, self.problem = line, problem


@dataclass(frozen=True)
class ManifestText:
    """The bytes a manifest was read from, to find one of its fields' lines in later."""

    raw: bytes
    is_yaml: bool


@dataclass(frozen=True)
class Manifest:
    body: dict
    origin: str  # "file:line"
    # Where the object is in its file, for its fields' places (app/reading/positions.py): the
    # file's text, the document (from 0), the path to the object in it (a List's item), the
    # name to show (the file, or a `# Source:` comment's) and the lines before that comment.
    text: ManifestText | None = field(default=None, compare=False, repr=False)
    document: int = 0
    inside: str = ""
    file: str | None = None
    line_base: int = 0

    @property
    def kind(self) -> str | None:
        """None for an object without one (or not a string), which is still sent: the service
        reports it in kubectl's words (rules §18)."""
        kind = self.body.get("kind")
        return kind if isinstance(kind, str) and kind else None

    @property
    def name(self) -> str | None:
        return _metadata_text(self.body, "name")

    @property
    def namespace(self) -> str | None:
        return _metadata_text(self.body, "namespace")

    @property
    def identity(self) -> tuple[str | None, str, str]:
        """Kind, namespace and name, as the cluster keys the object."""
        return (self.kind, self.namespace or "", self.name or "")

    def describe(self) -> str:
        """``Kind namespace/name`` (``Kind name`` without a namespace)."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind or '<no kind>'} {where}{self.name or '<unnamed>'}"


def _metadata_text(body: dict, key: str) -> str | None:
    metadata = body.get("metadata")
    value = metadata.get(key) if isinstance(metadata, dict) else None
    return value if isinstance(value, str) and value else None


def read_manifests(paths: tuple[str, ...], recursive: bool, stdin: BinaryIO) -> list[Manifest]:
    """Every object of every path, in order (files of a directory in name order)."""
    manifests: list[Manifest] = []
    stdin_read = False
    for path in paths:
        if path == STDIN:
            if not stdin_read:  # stdin can be read once; naming it twice reads it once
                manifests.extend(parse(stdin.read(), STDIN_NAME, helm_sources=True))
                stdin_read = True
            continue
        for file in files_of(path, recursive):
            try:
                with open(file, "rb") as handle:
                    raw = handle.read()
            except OSError as error:
                raise SourceError(f"{file}: cannot read: {error.strerror}") from None
            manifests.extend(parse(raw, file))
    if not recursive:
        _report_unread([path for path in paths if path != STDIN])
    return manifests


def files_of(path: str, recursive: bool) -> list[str]:
    """A file as given; a directory's manifest files, its subdirectories' too with ``-R``."""
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise SourceError(f'the path "{path}" does not exist')
    found: list[str] = []
    for directory, subdirectories, files in os.walk(path):
        subdirectories.sort()
        if not recursive:
            subdirectories.clear()
        found.extend(
            os.path.join(directory, name)
            for name in sorted(files)
            if name.endswith(MANIFEST_SUFFIXES)
        )
    return found


def unread_subdirectories(path: str) -> list[tuple[str, int]]:
    """Each sub-directory of the directory ``path`` whose manifest files only ``-R`` reads
    (``path/sub/``), with how many it holds; nothing for a file. Symbolic links to directories
    are left out, as ``-R`` does not follow them either."""
    if not os.path.isdir(path):
        return []
    with os.scandir(path) as entries:
        names = sorted(entry.name for entry in entries if entry.is_dir(follow_symlinks=False))
    found = []
    for name in names:
        directory = os.path.join(path, name)
        count = len(files_of(directory, True))
        if count:
            found.append((directory + os.sep, count))
    return found


def _report_unread(paths: list[str]) -> None:
    context = click.get_current_context(silent=True)
    reported: set[str] = set() if context is None else context.meta.setdefault(_REPORTED, set())
    for path in paths:
        for directory, count in unread_subdirectories(path):
            if os.path.realpath(directory) in reported:
                continue
            reported.add(os.path.realpath(directory))
            warn(f"not read without -R: {directory} ({counted(count, 'file')})")


def parse(raw: bytes, name: str, *, helm_sources: bool = False) -> list[Manifest]:
    """The objects of one file: Lists flattened, null documents skipped; a JSON file holds one
    object, a List, or an array of them. ``helm_sources``: a YAML document that starts with a
    ``# Source: <path>`` comment, as ``helm template`` writes, is shown as that file, its lines
    counted from the comment's (stdin)."""
    is_json, values = _documents(raw, name)
    nodes = _Nodes(raw)
    text = ManifestText(raw, not is_json)
    sources = _helm_sources(raw) if helm_sources and not is_json else {}
    starts = {} if is_json else _plain_starts(raw, values)
    manifests: list[Manifest] = []
    for position, value in enumerate(values):
        if value is None:
            continue
        shown, base = sources.get(position, (name, 0))
        try:
            if is_json:
                found = _array_items(value, nodes.of(position))
            elif position in starts:
                found = iter(((value, starts[position], position, ""),))
            else:
                node = nodes.of(position)
                found = (
                    (body, line, position, inside)
                    for body, line, inside in _objects(value, node, _line(node))
                )
            manifests.extend(
                Manifest(body, f"{shown}:{line - base}", text, document, inside, shown, base)
                for body, line, document, inside in found
            )
        except _NotAnObject as error:
            raise SourceError(f"{shown}:{error.line - base}: {error.problem}") from None
    return manifests


class _Nodes:
    """A file's document nodes, composed by PyYAML on the first document that needs them (a
    List's items, a JSON array's, a document that does not start plainly), for their lines."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.nodes: list[Node | None] | None = None

    def of(self, position: int) -> Node | None:
        if self.nodes is None:
            self.nodes = _nodes(self.raw)
        return self.nodes[position] if position < len(self.nodes) else None


# A document's first line when it is a block mapping's first key, a plain one at column 0: the
# line PyYAML's node for the document starts on. Anything else (a flow mapping, a tag or anchor,
# a quoted key, a BOM) is left to PyYAML's composer.
_PLAIN_KEY = re.compile(rb"[A-Za-z][A-Za-z0-9_.-]*:(?:[ \t]|\r?$)")
# A line before a document's content: blank, a comment, or the `---` that starts it, alone.
_BEFORE_CONTENT = re.compile(rb"[ \t]*(?:#[^\n]*)?\r?$|---[ \t]*(?:#[^\n]*)?\r?$")


def _plain_starts(raw: bytes, values: list) -> dict[int, int]:
    """The line (from 1) of each YAML document that is an object other than a List and starts
    plainly (``_PLAIN_KEY``), by document: the line its node would give, without composing it
    (PyYAML's composer was a seventh of a lint of 2 000 files). None of them when the documents
    the text shows are not the ones the loader read."""
    documents = yaml_documents(raw)
    if len(documents) != len(values):
        return {}
    starts: dict[int, int] = {}
    line, counted = 1, 0
    for position, ((start, end), value) in enumerate(zip(documents, values, strict=True)):
        if not isinstance(value, dict) or value.get("kind") == LIST_KIND:
            continue
        at = start
        while at < end:
            line_end = raw.find(b"\n", at, end)
            line_end = end if line_end < 0 else line_end
            if _PLAIN_KEY.match(raw, at, line_end):
                line += raw.count(b"\n", counted, at)
                counted = at
                starts[position] = line
                break
            if not _BEFORE_CONTENT.fullmatch(raw, at, line_end) or (
                at != start and raw.startswith(b"---", at)
            ):
                break
            at = line_end + 1
    return starts


_HELM_SOURCE = re.compile(rb"^# Source: (\S[^\r\n]*?)[ \t]*\r?$", re.MULTILINE)


def _helm_sources(raw: bytes) -> dict[int, tuple[str, int]]:
    """For each YAML document (from 0) whose first comment names its template (``# Source:
    chart/templates/x.yaml``, before any content), that name and the stream's line of it."""
    found = {}
    for document, (start, end) in enumerate(yaml_documents(raw)):
        comment = _HELM_SOURCE.search(raw, start, end)
        if comment is None or _CONTENT_BEFORE.search(raw[start : comment.start()]):
            continue
        name = comment.group(1).decode("utf-8", "replace")
        found[document] = (name, raw.count(b"\n", 0, comment.start()) + 1)
    return found


# Content before a comment: a line that is not blank, a comment or the document marker.
_CONTENT_BEFORE = re.compile(rb"(?m)^(?!---(?:[ \t\r]|$))[ \t]*[^ \t\r\n#]")


def _documents(raw: bytes, name: str) -> tuple[bool, list]:
    """Whether the file is JSON, and its documents (a JSON file is one)."""
    if _looks_like_json(raw, name):
        try:
            return True, [decode_json_body(raw)]
        except MalformedRequest as error:
            if name.endswith(".json"):
                raise SourceError(_located(name, error.message)) from None
    try:
        with _quiet_stderr():
            values = load_documents(raw)
    except MalformedRequest as error:
        raise SourceError(_located(name, error.message)) from None
    return False, values


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """rapidyaml (the loader's fast path) writes its parse errors to file descriptor 2 before
    the loader falls back to PyYAML, which names the error itself: keep the command's stderr
    to its own messages."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to protect
        yield
        return
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _looks_like_json(raw: bytes, name: str) -> bool:
    return name.endswith(".json") or raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[")


def _nodes(raw: bytes) -> list[Node | None]:
    """Document nodes, for their lines only (values come from the service's loaders)."""
    try:
        return list(yaml.compose_all(raw, Loader=_NodeLoader))
    except (yaml.YAMLError, RecursionError):  # JSON PyYAML does not take: no lines
        return []


_LINE = re.compile(r"\bline (\d+)")
_BODY = re.compile(r"^request body (is )?")


def _located(name: str, message: str) -> str:
    """``file:line: problem`` from a loader's message, which names the line where it failed
    (last: a YAML error names the construct it was in first)."""
    text = _BODY.sub("", message)
    lines = _LINE.findall(text)
    return f"{name}:{lines[-1]}: {text}" if lines else f"{name}: {text}"


def _line(node: Node | None, default: int = 1) -> int:
    return default if node is None else node.start_mark.line + 1


def _array_items(value: Any, node: Node | None) -> Iterator[tuple[dict, int, int, str]]:
    """A JSON document: an array of objects (each a document of its own, as the API numbers
    them), or one. Each object with its line, document and path inside it."""
    if not isinstance(value, list):
        for body, line, inside in _objects(value, node, _line(node)):
            yield body, line, 0, inside
        return
    for index, item in enumerate(value):
        item_node = _item_node(node, index)
        for body, line, inside in _objects(item, item_node, _line(item_node, _line(node))):
            yield body, line, index, inside


def _objects(
    value: Any, node: Node | None, line: int, inside: str = ""
) -> Iterator[tuple[dict, int, str]]:
    if not isinstance(value, dict):
        shape = "a sequence" if isinstance(value, list) else "a scalar"
        raise _NotAnObject(line, f"the document is {shape}, not a Kubernetes object")
    if value.get("kind") != LIST_KIND:  # without a kind too: the service says what kubectl would
        yield value, line, inside
        return
    if value.get("apiVersion", "v1") != "v1":
        raise _NotAnObject(line, "a List must have apiVersion v1")
    items = value.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        raise _NotAnObject(line, "the List's items is not a sequence")
    items_node = _value_node(node, "items")
    for index, item in enumerate(items):
        item_node = _item_node(items_node, index)
        yield from _objects(item, item_node, _line(item_node, line), f"{inside}items[{index}].")


def _value_node(node: Node | None, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value_node
    return None


def _item_node(node: Node | None, index: int) -> Node | None:
    if isinstance(node, SequenceNode) and index < len(node.value):
        return node.value[index]
    return None
