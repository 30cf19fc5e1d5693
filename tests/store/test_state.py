"""Objects as a backend stores them and the state a write decides on (app/store/state.py): the
stored texts, their digest and size, what cannot be stored, and anything read back that does
not decode being an unreadable catalog rather than a wrong answer."""

from __future__ import annotations

import pytest

from app.store import UnreadableCatalog
from app.store.state import (
    Change,
    decode_object,
    encode_object,
    encode_objects,
    info_of,
    object_digest,
    reading,
)
from tests.builders import entry, runtime_doc
from tests.store.objects import model, runtime, stored


def test_an_object_is_stored_as_ascii_json_and_read_back_equal():
    item = runtime("rt", weight=3)
    encoded = encode_object(item)
    assert encoded.key == ("ClusterServingRuntime", "", "rt")
    assert encoded.manifest.isascii() and encoded.document.isascii()
    assert encoded.size == len(encoded.manifest) + len(encoded.document)
    assert encoded.digest == object_digest(encoded.manifest, encoded.document)
    with reading("prod"):
        assert (
            decode_object(encoded.key, encoded.manifest, __import__("json").loads(encoded.document))
            == item
        )


def test_a_changed_object_has_another_digest():
    one, other = runtime("rt", weight=1), runtime("rt", weight=2)
    assert encode_object(one).digest != encode_object(other).digest
    assert encode_object(one).digest == encode_object(runtime("rt", weight=1)).digest


def test_the_last_object_of_a_key_wins():
    encoded = encode_objects([runtime("rt", weight=1), model(), runtime("rt", weight=2)])
    assert list(encoded) == [("ClusterServingRuntime", "", "rt"), ("BaseModel", "demo", "llama")]
    assert encoded[("ClusterServingRuntime", "", "rt")] == encode_object(runtime("rt", weight=2))
    with pytest.raises(TypeError):
        encode_objects([{"kind": "BaseModel"}])


def test_a_manifest_that_is_not_json_cannot_be_stored():
    item = stored(runtime_doc("rt", entry()))
    item.manifest["spec"]["odd"] = {"a", "set"}
    with pytest.raises(ValueError) as refused:
        encode_object(item)
    assert str(refused.value).startswith("ClusterServingRuntime rt: cannot be stored: ")


def test_what_does_not_decode_is_an_unreadable_catalog():
    with pytest.raises(UnreadableCatalog) as refused, reading("prod"):
        decode_object(("ClusterServingRuntime", "", "rt"), "{not json", {})
    assert str(refused.value).startswith("cluster prod: cannot read what is stored: ")


def test_a_clusters_info_from_its_stored_fields():
    info = info_of(
        "prod",
        "uid",
        '{"ome_version": "1.2"}',
        b"7",
        "2025-01-02T03:04:05.678Z",
        '{"BaseModel": 2}',
    )
    assert (info.generation, info.settings.ome_version) == (7, "1.2")
    assert info.counts["BaseModel"] == 2 and info.counts["ServingRuntime"] == 0


def test_a_change_is_a_change_when_it_writes_anything():
    info = info_of("prod", "uid", "{}", 1, "t", "{}")
    assert not Change(info).changed
    assert Change(info, created=True).changed
    assert Change(info, settings_changed=True).changed
    assert Change(info, deletes=(("BaseModel", "demo", "llama"),)).changed
    assert Change(info, puts=(encode_object(model()),)).changed
