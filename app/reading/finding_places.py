"""Where each lint finding is in the body (rules §18): the document that holds its object, and
the line and column of its field there (``positions``), for a body read strictly."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.selection.admission import Finding
from app.selection.values import ObjectKey

from .manifests import label_place
from .object_streams import Body
from .positions import Position, Spot, positions

# What a finding of these codes is about is its field's value (an enum's, a type's, a bound's);
# of the others, the field itself.
AT_VALUE_CODES = frozenset({"Unsupported", "Invalid"})
# A finding without a field is about the whole object: its ``kind:``.
OBJECT_FIELD = "kind"


@dataclass(frozen=True, slots=True)
class Place:
    document: int  # from 0, in the body's stream
    position: Position | None  # None when the body's text does not say


def finding_key(finding: Finding) -> ObjectKey:
    """How the stream keys the finding's object (``labels``): a kind not set is ""."""
    return (finding.kind or "", finding.namespace or "", finding.name)


def finding_spot(field: str | None, code: str, document: int, inside: str = "") -> Spot:
    """The spot a finding of ``code`` about ``field`` points at, in the document (``inside``:
    the path to its object there, ``items[2].`` for a List's item)."""
    at_value = field is not None and code in AT_VALUE_CODES
    return Spot(document, inside + (field or OBJECT_FIELD), at_value)


def finding_places(
    body: Body | None, labels: dict[ObjectKey, str], findings: Iterable[Finding]
) -> dict[Finding, Place]:
    """The place of each finding whose object the body holds."""
    spots: dict[Finding, Spot] = {}
    for finding in findings:
        label = labels.get(finding_key(finding))
        place = None if label is None else label_place(label)
        if place is not None:
            spots[finding] = finding_spot(finding.field, finding.code, *place)
    found = {} if body is None else positions(body.raw, body.is_yaml, spots.values())
    return {finding: Place(spot.document, found.get(spot)) for finding, spot in spots.items()}
