"""``app/reading/positions.py``: the line and column of a path in a document of a YAML stream or
a JSON body, held to the places PyYAML's composer gives the same nodes."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from app.reading.positions import Position, Spot, positions
from tests.work import cpu_seconds_under

STREAM = b"""# a comment before the first document
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: typo
  annotations:
    ome.io/inherit-from: base
spec:
  supportedModelFormats:
    - name: safetensors
      autoselect: true
    - name: other
      priority: "high"
---
---
apiVersion: v1
kind: List
items:
- kind: BaseModel
  spec: {storage: [1, {path: x}]}
"""


def at(spot: Spot, raw: bytes = STREAM, is_yaml: bool = True) -> Position | None:
    return positions(raw, is_yaml, [spot]).get(spot)


def test_the_key_of_a_field_in_a_later_document_at_its_own_line():
    assert at(Spot(0, "spec.supportedModelFormats[0].autoselect")) == Position(12, 7)
    assert at(Spot(0, "kind")) == Position(4, 1)
    # a key with dots and a slash, written as an annotation's path is
    assert at(Spot(0, "metadata.annotations[ome.io/inherit-from]")) == Position(8, 5)


def test_the_value_when_asked_for_it():
    assert at(Spot(0, "spec.supportedModelFormats[1].priority", at_value=True)) == Position(14, 17)


def test_a_path_the_document_does_not_hold_gives_its_deepest_part():
    # the entry, for a field it lacks; the section, for a section it lacks
    assert at(Spot(0, "spec.supportedModelFormats[1].modelFramework")) == Position(13, 7)
    assert at(Spot(0, "spec.supportedModelFormats[5].name")) == Position(10, 3)
    assert at(Spot(0, "spec.engineConfig")) == Position(9, 1)
    # past a scalar: the scalar's key
    assert at(Spot(0, "metadata.name.first")) == Position(6, 3)


def test_empty_documents_count_and_list_items_are_paths():
    assert at(Spot(2, "items[0].kind")) == Position(20, 3)
    assert at(Spot(2, "items[0].spec.storage[1].path")) == Position(21, 24)
    assert at(Spot(3, "kind")) is None  # no such document


def test_a_stream_without_a_first_marker_and_crlf_lines():
    raw = b"kind: A\r\nspec:\r\n  x: 1\r\n---\r\nkind: B\r\nspec:\r\n  y: 2\r\n"
    assert at(Spot(0, "spec.x"), raw) == Position(3, 3)
    assert at(Spot(1, "spec.y"), raw) == Position(7, 3)


def test_json_array_items_are_documents():
    documents = yaml.safe_load_all(STREAM)
    raw = json.dumps(list(documents), indent=2).encode()
    lines = raw.decode().splitlines()
    found = at(Spot(0, "spec.supportedModelFormats[0].autoselect"), raw, False)
    assert found is not None
    assert lines[found.line - 1][found.column - 1 :].startswith('"autoselect": true')
    value = at(Spot(0, "spec.supportedModelFormats[1].priority", True), raw, False)
    assert value is not None
    assert lines[value.line - 1][value.column - 1 :] == '"high"'
    assert at(Spot(3, "kind"), raw, False) is None


def test_one_json_object_is_document_zero():
    raw = b'{"kind": "List", "items": [{"kind": "A"},\n {"kind": "B", "spec": {"x": 1}}]}'
    assert at(Spot(0, "items[1].spec.x"), raw, False) == Position(2, 25)
    assert at(Spot(1, "kind"), raw, False) is None


def test_a_body_that_does_not_read_gives_what_was_found_before():
    assert at(Spot(0, "a.b.c"), b"a: {b: [\n", True) == Position(1, 5)
    assert at(Spot(0, "a"), b'[{"a": ', False) is None


# ---------------------------------------------------------------- held to PyYAML's own nodes

KEYS = st.sampled_from(["a", "b", "spec", "ome.io/x", "name", "k8s"])
SCALARS = st.one_of(st.integers(-5, 5), st.sampled_from(["x", "y z", "", "true"]), st.none())
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, min_size=1, max_size=4)
    ),
    max_leaves=12,
)
DOCUMENTS = st.lists(st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), min_size=1, max_size=3)


def _paths(value, prefix=""):
    """Every (path, holds a value) of a decoded document."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix and "." not in key else None
            path = path or (f"{prefix}[{key}]" if prefix else key)
            yield path, key, item
            yield from _paths(item, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield f"{prefix}[{index}]", index, item
            yield from _paths(item, f"{prefix}[{index}]")


def _node_places(node, prefix=""):
    """(path, key's place, value's place) from PyYAML's composed nodes."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = f"{prefix}.{key.value}" if prefix and "." not in key.value else None
            path = path or (f"{prefix}[{key.value}]" if prefix else key.value)
            yield path, _mark(key), _mark(value)
            yield from _node_places(value, path)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            path = f"{prefix}[{index}]"
            yield path, _mark(value), _mark(value)
            yield from _node_places(value, path)


def _mark(node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


@given(DOCUMENTS, st.booleans(), st.booleans())
def test_every_path_of_any_stream_is_where_pyyaml_composes_it(documents, flow, at_value):
    raw = yaml.safe_dump_all(documents, default_flow_style=flow, explicit_start=True).encode()
    expected = {}
    for index, node in enumerate(yaml.compose_all(raw)):
        for path, key_place, value_place in _node_places(node):
            expected[Spot(index, path, at_value)] = value_place if at_value else key_place
    assert positions(raw, True, expected) == expected


@given(DOCUMENTS)
def test_every_path_of_a_json_body_points_at_its_key(documents):
    raw = json.dumps(documents, indent=1).encode()
    lines = raw.decode().splitlines()
    spots = [Spot(index, path) for index, doc in enumerate(documents) for path, _, _ in _paths(doc)]
    found = positions(raw, False, spots)
    assert set(found) == set(spots)
    for spot in spots:
        place = found[spot]
        text = lines[place.line - 1][place.column - 1 :]
        last = spot.path.rsplit(".", 1)[-1]
        if last.endswith("]") and not spot.path.endswith(f"[{last}"):
            continue  # an item: its value, whatever it is
        key = spot.path.rsplit("[", 1)[-1].rstrip("]") if spot.path.endswith("]") else last
        if text.startswith('"') and text.startswith(json.dumps(key) + ":"):
            continue
        assert text[:1] in '{["-0123456789tfn', (spot, text)


def test_a_key_with_dots_written_after_a_dot():
    assert at(Spot(0, "metadata.annotations.ome.io/inherit-from")) == Position(8, 5)
    # a key that only begins like one of the path's is not it
    raw = b"a:\n  ome: 1\n  ome.io: 2\n"
    assert at(Spot(0, "a.ome.io"), raw) == Position(3, 3)
    assert at(Spot(0, "a.ome"), raw) == Position(2, 3)


# ------------------------------------------------------------- bounded work (the scale group)


@pytest.mark.scale
def test_many_spots_in_one_huge_list_stay_linear():
    """A List of 20 000 items, a spot in each: one walk, each key looked up once."""
    items = "".join(f"- kind: X\n  spec: {{a: {i}, b: [{i}]}}\n" for i in range(20_000))
    raw = f"kind: List\nitems:\n{items}".encode()
    spots = [Spot(0, f"items[{i}].spec.b[0]") for i in range(20_000)]
    with cpu_seconds_under(20):
        found = positions(raw, True, spots)
    assert found[spots[-1]] == Position(2 + 2 * 20_000, 24)


@pytest.mark.scale
def test_a_long_path_through_wide_mappings_stays_linear():
    """Keys full of dots beside a path of hundreds of them, in a mapping of 100 000 keys."""
    key = ".".join(["k"] * 400)  # YAML's implicit keys stop at 1 024 characters
    wide = "".join(f"  '{key}.{i}': {i}\n" for i in range(100_000))
    raw = f"a:\n{wide}  '{key}': {{b: 1}}\n".encode()
    spots = [Spot(0, f"a.{key}.b"), *(Spot(0, f"a.{key}.x{i}") for i in range(100))]
    with cpu_seconds_under(20):
        found = positions(raw, True, spots)
    assert found[spots[0]] == Position(100_002, len(key) + 8)
    json_raw = json.dumps({"a": {f"{key}.{i}": i for i in range(100_000)} | {key: {"b": 1}}})
    with cpu_seconds_under(20):
        found = positions(json_raw.encode(), False, spots)
    assert found[spots[0]].line == 1


def test_a_path_found_twice_counts_once():
    """``ome`` holding ``io``, and ``ome.io`` after it: the longer key wins, and the other spot
    of the document is still found (no early stop from counting the first one twice)."""
    raw = b"a:\n  ome: {io: 1}\n  ome.io: 2\nb: 3\n"
    both = [Spot(0, "a.ome.io"), Spot(0, "b")]
    assert positions(raw, True, both) == {both[0]: Position(3, 3), both[1]: Position(4, 1)}
