"""What a catalog store holds and answers (app/store/records.py, rules §17), as values: a
write's precondition, the settings a newer instance may have written, what may be stored under
which key, a cluster's name and uid."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.store.records import (
    KINDS,
    ClusterSettings,
    Precondition,
    StoredObject,
    check_cluster_name,
    counts_of,
    new_uid,
    rfc3339,
    uid_time,
)
from tests.builders import loaded, model_doc, runtime_doc


@pytest.mark.parametrize(
    ("condition", "generation", "holds"),
    [
        (Precondition.of(7), 7, True),
        (Precondition.of(7), 8, False),
        (Precondition(frozenset({7, 9})), 9, True),
        (Precondition(frozenset()), 7, False),  # no generation never holds
        (Precondition.EXISTS, 12, True),
        (Precondition.EXISTS, None, False),  # nothing holds on a missing cluster
        (Precondition.of(7), None, False),
    ],
)
def test_a_writes_precondition(condition, generation, holds):
    assert condition.holds(generation) is holds


def test_a_condition_of_none_or_a_precondition_is_itself():
    assert Precondition.of(None) is None
    assert Precondition.of(Precondition.EXISTS) is Precondition.EXISTS


def test_settings_round_trip_and_skip_what_a_newer_instance_wrote():
    settings = ClusterSettings("1.2", "DragonFly", "prod", True)
    assert ClusterSettings.from_json(settings.to_json()) == settings
    assert ClusterSettings.from_json({"ome_version": "1.2", "from_the_future": 1}) == (
        ClusterSettings(ome_version="1.2")
    )


def test_an_object_is_stored_under_its_kind_namespace_and_name():
    runtime = loaded(runtime_doc("rt"))
    item = StoredObject("ClusterServingRuntime", None, "rt", {"kind": "x"}, runtime)
    assert item.key == ("ClusterServingRuntime", "", "rt")


@pytest.mark.parametrize(
    ("kind", "namespace", "name", "manifest", "document", "problem"),
    [
        (
            "ConfigMap",
            "demo",
            "cm",
            {},
            "runtime",
            "a store does not hold objects of kind 'ConfigMap'",
        ),
        (
            "BaseModel",
            "demo",
            "rt",
            {},
            "runtime",
            "a BaseModel needs a Model document of that kind, not a Runtime of kind "
            "ClusterServingRuntime",
        ),
        (
            "ServingRuntime",
            "demo",
            "rt",
            {},
            "runtime",
            "a ServingRuntime needs a Runtime document of that kind, not a Runtime of kind "
            "ClusterServingRuntime",
        ),
        (
            "ClusterServingRuntime",
            "demo",
            "rt",
            {},
            "runtime",
            "a ClusterServingRuntime has no namespace",
        ),
        ("BaseModel", None, "llama", {}, "model", "a BaseModel needs a namespace"),
        ("BaseModel", "\ud800", "llama", {}, "model", "a BaseModel needs a namespace"),
        ("ClusterServingRuntime", None, "", {}, "runtime", "an object needs a name"),
        ("ClusterServingRuntime", None, "rt", [], "runtime", "a manifest is a mapping"),
    ],
)
def test_what_no_backend_may_hold(kind, namespace, name, manifest, document, problem):
    documents = {"runtime": loaded(runtime_doc("rt")), "model": loaded(model_doc("llama"))}
    with pytest.raises(ValueError) as refused:
        StoredObject(kind, namespace, name, manifest, documents[document])
    assert str(refused.value) == problem


def test_counts_name_every_kind_zeros_included():
    counts = counts_of(
        [("BaseModel", "demo", "a"), ("BaseModel", "x", "b"), ("ClusterServingRuntime", "", "c")]
    )
    assert list(counts) == list(KINDS)
    assert (counts["BaseModel"], counts["ClusterServingRuntime"], counts["ServingRuntime"]) == (
        2,
        1,
        0,
    )


@pytest.mark.parametrize("name", ["prod", "a", "prod-east-1", "x" * 63])
def test_a_cluster_is_named_by_a_dns_1123_label(name):
    assert check_cluster_name(name) == name


@pytest.mark.parametrize("name", ["", "Prod", "-a", "a-", "a.b", "x" * 64, 7, "a\n"])
def test_other_cluster_names_are_refused(name):
    with pytest.raises(ValueError):
        check_cluster_name(name)


def test_a_uid_says_when_it_was_made_and_is_unique():
    first, second = new_uid(), new_uid()
    assert first != second
    assert abs(uid_time(first) - datetime.now(UTC).timestamp()) < 24 * 3600
    assert uid_time("1700000000000-abc") == 1_700_000_000.0
    assert uid_time("not a uid") == 0.0


def test_times_are_written_in_utc_to_the_millisecond():
    moment = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=timezone(timedelta(hours=2)))
    assert rfc3339(moment) == "2025-01-02T01:04:05.678Z"
