"""``app/reading/finding_places.py``: where each lint finding is, from the label of its object
in the stream and the line and column of its field in the body (rules §18)."""

from __future__ import annotations

from app.reading.finding_places import Place, finding_places, finding_spot
from app.reading.object_streams import read_objects
from app.reading.positions import Position
from app.selection.admission import ERROR, Finding

STREAM = b"""apiVersion: ome.io/v1beta1
kind: BaseModel
metadata: {name: first, namespace: demo}
spec: {modelFormat: {name: safetensors}}
---
apiVersion: v1
kind: List
items:
- apiVersion: ome.io/v1beta1
  kind: ClusterServingRuntime
  metadata:
    name: rt
  spec:
    supportedModelFormats:
    - name: safetensors
      autoSelect: "yes"
"""


def finding(kind: str, namespace: str | None, name: str, field: str | None, code: str) -> Finding:
    return Finding(ERROR, kind, namespace, name, field, code, "a message")


def test_a_field_is_pointed_at_by_its_key_and_a_bad_value_by_the_value():
    assert finding_spot("spec.x", "UnknownField", 0).path == "spec.x"
    assert finding_spot("spec.x", "UnknownField", 0).at_value is False
    assert finding_spot("spec.x", "Unsupported", 2, "items[1].").path == "items[1].spec.x"
    assert finding_spot("spec.x", "Invalid", 2).at_value is True
    # A finding about the whole object is at its kind:.
    assert finding_spot(None, "Invalid", 1).path == "kind"


def test_findings_are_placed_at_their_field_inside_a_list_item():
    stream = read_objects(STREAM, "application/yaml", strict=True)
    typed = finding(
        "ClusterServingRuntime", None, "rt", "spec.supportedModelFormats[0].autoSelect", "Invalid"
    )
    whole = finding("BaseModel", "demo", "first", None, "Forbidden")
    places = finding_places(stream.body, stream.labels, [typed, whole])
    # The value "yes" on line 16, column 19 (from 1) of the second document (from 0).
    assert places[typed] == Place(1, Position(16, 19))
    assert places[whole] == Place(0, Position(2, 1))


def test_a_finding_of_an_object_the_stream_does_not_hold_has_no_place():
    stream = read_objects(STREAM, "application/yaml", strict=True)
    stranger = finding("BaseModel", "demo", "elsewhere", None, "Forbidden")
    assert finding_places(stream.body, stream.labels, [stranger]) == {}


def test_without_the_body_a_finding_has_its_document_only():
    stream = read_objects(STREAM, "application/yaml", strict=True)
    whole = finding("BaseModel", "demo", "first", None, "Forbidden")
    assert finding_places(None, stream.labels, [whole]) == {whole: Place(0, None)}
