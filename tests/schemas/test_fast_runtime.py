"""The fast runtime loader agrees with the marshmallow schema: whenever it answers, the
schema accepts the document and builds an equal ``Runtime``; and it does answer for the plain,
valid manifests clusters send, which is what makes it worth having."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from app.schemas import fast_runtime
from app.schemas.document_schemas import runtime_document_schema
from app.schemas.fast_runtime import load_runtime
from app.selection.values import MAX_VALUE_CHARS, documents, too_long
from bench.manifests import rank_request_body
from tests.builders import entry, runtime_doc
from tests.schemas.generated_documents import (
    AT_BOUND,
    FULL_RUNTIME,
    MISSING,
    OVER_BOUND,
    TEXT,
    document,
    ints,
    mutated_runtimes,
    places_of,
    single_changes,
)


def schema_load(value):
    try:
        return runtime_document_schema.load(value)
    except ValidationError:
        return None


@settings(
    max_examples=8 * settings.default.max_examples, suppress_health_check=[HealthCheck.too_slow]
)
@given(mutated_runtimes())
def test_agrees_with_the_schema_whenever_it_answers(value):
    fast = load_runtime(value)
    if fast is not None:
        expected = schema_load(value)
        assert expected is not None, "the fast loader accepted what the schema rejects"
        assert fast == expected
        assert repr(fast) == repr(expected)  # == alone takes 2.0 for 2


REPLACEMENTS = [None, "", "x", 0, 1, -1, 2, 2.0, 1.5, True, False, [], ["a"], [None], {}, {"k": 1}]


def test_agrees_with_the_schema_on_every_single_change():
    answered = 0
    for value in single_changes(FULL_RUNTIME, REPLACEMENTS):
        fast = load_runtime(value)
        if fast is not None:
            answered += 1
            assert repr(fast) == repr(schema_load(value)), value
    assert answered > 100  # the changes that keep a document plain and valid


PLAIN_REF = document(
    name=TEXT,
    version=st.one_of(TEXT, st.none(), st.just(MISSING)),
    operator=st.one_of(TEXT, st.none(), st.just(MISSING)),
    weight=st.one_of(ints(), st.none(), st.just(MISSING)),
)
PLAIN_ENTRY = document(
    name=st.one_of(TEXT, st.none(), st.just(MISSING)),
    modelFormat=st.one_of(PLAIN_REF, st.none(), st.just(MISSING)),
    modelFramework=st.one_of(PLAIN_REF, st.none(), st.just(MISSING)),
    autoSelect=st.one_of(st.booleans(), st.none(), st.just(MISSING)),
    priority=st.one_of(ints(1, 9), st.none(), st.just(MISSING)),
)


KUBERNETES_NAME = st.from_regex(r"[a-z0-9]([-a-z0-9.]{0,6}[a-z0-9])?", fullmatch=True).filter(
    lambda name: ".." not in name and ".-" not in name and "-." not in name
)
NAMESPACE = st.one_of(
    st.from_regex(r"[a-z0-9]([-a-z0-9]{0,6}[a-z0-9])?", fullmatch=True), st.just("")
)


@settings(max_examples=5 * settings.default.max_examples)
@given(
    st.sampled_from(["ServingRuntime", "ClusterServingRuntime"]),
    KUBERNETES_NAME,
    st.one_of(NAMESPACE, st.none()),
    st.lists(PLAIN_ENTRY, max_size=4),
)
def test_answers_for_plain_valid_documents(kind, name, namespace, entries):
    value = {
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"supportedModelFormats": entries},
    }
    fast = load_runtime(value)
    assert fast is not None
    assert repr(fast) == repr(runtime_document_schema.load(value))


def test_answers_for_realistic_manifests():
    """The benchmark's manifests: container specs, labels, size ranges, accelerators, modes."""
    for value in rank_request_body(300)["runtimes"]:
        fast = load_runtime(value)
        assert fast is not None
        assert fast == runtime_document_schema.load(value)


@pytest.mark.parametrize(
    "value",
    [
        runtime_doc("rt", entry(priority=0)),  # invalid: marshmallow reports it
        runtime_doc("rt", entry(priority=2.0)),  # valid, but integral floats are the schema's
        runtime_doc("rt", entry(diffusionPipeline={"className": "P"})),
        runtime_doc("rt", engineConfig={"annotations": {"ome.io/deploymentMode": 3}}),
        runtime_doc("rt", protocolVersions=["openAI", None]),
        runtime_doc("rt", entry(priority=2**31)),  # beyond the CRD's int32
        runtime_doc("rt", entry(weight=2**63)),  # beyond int64
        runtime_doc("rt", entry(modelCacheProviders=["a", 1])),
        {"kind": "ClusterServingRuntime", "metadata": {"name": ""}, "spec": {}},
        # SPEC §17: not Kubernetes names (the schema says why, at the field)
        {"kind": "ClusterServingRuntime", "metadata": {"name": "Bad_Name"}, "spec": {}},
        {"kind": "ClusterServingRuntime", "metadata": {"name": "a\nb"}, "spec": {}},
        {"kind": "ServingRuntime", "metadata": {"name": "a", "namespace": "Team_A"}, "spec": {}},
        {"kind": "ServingRuntime", "metadata": {"name": "a", "namespace": "a.b"}, "spec": {}},
        {"kind": "ClusterServingRuntime", "metadata": {"name": "x"}},
        [],
    ],
)
def test_leaves_the_rest_to_the_schema(value):
    assert load_runtime(value) is None


# The strings of FULL_RUNTIME the rules read: all but its kind and apiVersion, its metadata's
# name and namespace (Kubernetes names, with bounds of their own), a label and an annotation
# no rule reads.
def _read_strings():
    metadata = FULL_RUNTIME["metadata"]
    unread = {
        (id(FULL_RUNTIME), "kind"),
        (id(FULL_RUNTIME), "apiVersion"),
        (id(metadata), "name"),
        (id(metadata), "namespace"),
        (id(metadata["labels"]), "a"),
        (id(metadata["annotations"]), "other"),
    }
    for index, (container, key) in enumerate(places_of(FULL_RUNTIME)):
        if isinstance(container[key], str) and (id(container), key) not in unread:
            yield index


def _with_string(index: int, text: str) -> dict:
    value = copy.deepcopy(FULL_RUNTIME)
    container, key = list(places_of(value))[index]
    container[key] = text
    return value


def test_every_string_the_rules_read_is_bounded_on_both_paths():
    """rules §17: at the bound both loaders take the string; one character over, the fast one
    leaves the document to the schema, which refuses it at that field and names the bound."""
    places = list(_read_strings())
    assert len(places) == 18  # every name, version, operator, size, class, mode, parent …
    for index in places:
        fast = load_runtime(_with_string(index, AT_BOUND))
        assert fast is not None and repr(fast) == repr(schema_load(_with_string(index, AT_BOUND)))
        over = _with_string(index, OVER_BOUND)
        assert load_runtime(over) is None
        with pytest.raises(ValidationError) as refused:
            runtime_document_schema.load(over)
        assert too_long(MAX_VALUE_CHARS) in str(refused.value.messages)


def test_a_shared_format_reference_is_never_served_for_another_value():
    """Entries naming the same format share one EntryRef; a weight of True or 1.0 (which equal
    1 as dict keys) is still the schema's to decide, and the shared ones stay bounded."""
    plain = runtime_doc("a", entry(weight=1))
    first, again = load_runtime(plain), load_runtime(copy.deepcopy(plain))
    assert first.entries[0].format is again.entries[0].format
    for odd in (True, 1.0):
        changed = copy.deepcopy(plain)
        changed["spec"]["supportedModelFormats"][0]["modelFormat"]["weight"] = odd
        assert load_runtime(changed) is None
    for index in range(documents._MAX_REFS + 10):
        load_runtime(runtime_doc("b", entry(format_name=f"format-{index}")))
    assert len(documents.ENTRY_REFS) <= documents._MAX_REFS


def test_a_shared_entry_is_never_served_for_another_value():
    """Plain entries with the same fields share one Entry; any field told apart gives another,
    an entry with an acceleratorConfig (a dict) gets its own, and the shared ones stay bounded."""
    plain = entry(weight=2, priority=3)
    first = load_runtime(runtime_doc("a", plain)).entries[0]
    assert load_runtime(runtime_doc("b", copy.deepcopy(plain))).entries[0] is first
    for field, value in (
        ("name", "other"),
        ("modelArchitecture", "Other"),
        ("quantization", "fp8"),
        ("autoSelect", False),
        ("priority", 1),
        ("modelCacheProviders", ["oci"]),
        ("version", "2"),
    ):
        changed = copy.deepcopy(plain)
        changed[field] = value
        other = load_runtime(runtime_doc("c", changed)).entries[0]
        assert other is not first
        assert other == load_runtime(runtime_doc("d", copy.deepcopy(changed))).entries[0]
    for ref, key, value in (("modelFormat", "version", "9"), ("modelFramework", "weight", 7)):
        changed = copy.deepcopy(plain)
        changed[ref][key] = value
        assert load_runtime(runtime_doc("e", changed)).entries[0] != first
    configured = dict(copy.deepcopy(plain), acceleratorConfig={"tp": 2})
    one = load_runtime(runtime_doc("f", configured)).entries[0]
    assert one.accelerator_config == {"tp": 2}
    assert load_runtime(runtime_doc("g", copy.deepcopy(configured))).entries[0] is not one
    for index in range(fast_runtime._MAX_ENTRIES + 10):
        load_runtime(runtime_doc("h", entry(name=f"entry-{index}")))
    assert len(fast_runtime._ENTRIES) <= fast_runtime._MAX_ENTRIES


def test_a_released_body_loses_only_the_runtimes_that_loaded():
    """``release=True`` (the request's own body, read no more) drops each runtime document
    that loaded; one that marshmallow decides stays for it, and the request is the same."""
    from app.schemas.requests import load_rank_request

    body = rank_request_body(6)
    unusual = copy.deepcopy(body["runtimes"][2])
    unusual["spec"]["supportedModelFormats"][0]["priority"] = 2.0  # a float: marshmallow's
    body["runtimes"][2] = unusual
    kept = copy.deepcopy(body)
    assert load_runtime(unusual) is None
    released = load_rank_request(body, {}, release=True)
    assert released == load_rank_request(kept, {})
    assert body["runtimes"] == [None, None, unusual, None, None, None]
    assert kept["runtimes"][0] is not None  # without release, nothing is dropped
    load_rank_request(kept, {})
    assert None not in kept["runtimes"]


def test_a_body_whose_classes_are_its_runtimes_loses_nothing_to_release():
    """A YAML alias can make one list both ``runtimes`` and ``acceleratorClasses``: releasing
    the runtimes would change what the classes read, so nothing is released there."""
    from app.errors import InvalidDocument
    from app.schemas.requests import load_rank_request

    body = rank_request_body(2)
    body["acceleratorClasses"] = body["runtimes"]
    found = []
    for release in (False, True):
        with pytest.raises(InvalidDocument) as refused:
            load_rank_request(copy.deepcopy(body), {}, release=release)
        found.append(refused.value.details)
    assert found[0] == found[1]
    assert any(path.startswith("acceleratorClasses[0].") for path in found[0]["fields"])


def test_the_shared_references_are_made_on_first_lookup_and_served_after():
    """``ENTRY_REFS`` (a lookup, made on a miss) and ``shared_entry_ref`` give one object."""
    key = ("fresh-format", "1", None, 3)
    documents.ENTRY_REFS.pop(key, None)
    made = documents.ENTRY_REFS[key]
    assert made == documents.EntryRef("fresh-format", "1", None, 3)
    assert documents.shared_entry_ref(*key) is made
    assert documents.ENTRY_REFS[key] is made


def test_runtimes_with_the_same_size_range_share_one():
    ranged = runtime_doc("a", entry(), size_range={"min": "1B", "max": "8B"})
    first = load_runtime(ranged).size_range
    assert first == documents.SizeRange("1B", "8B")
    assert load_runtime(copy.deepcopy(ranged)).size_range is first
    other = runtime_doc("b", entry(), size_range={"min": "1B"})
    assert load_runtime(other).size_range == documents.SizeRange("1B", None)


def test_shared_values_are_made_once_and_bounded():
    made = []

    def make(*fields):
        made.append(fields)
        return fields

    shared = documents.SharedValues(make, 2)
    assert shared["a", 1] is shared["a", 1]
    assert made == [("a", 1)]
    assert shared["b", 2] == ("b", 2)
    assert shared["c", 3] == ("c", 3)  # the third clears the table first
    assert len(shared) == 1


def test_a_plain_entry_beside_one_with_an_accelerator_config_is_still_shared():
    """A list with an ``acceleratorConfig`` is taken entry by entry: the plain entries beside it
    are the shared ones, the configured one its own, and the order is the list's."""
    plain, configured = entry(weight=2), dict(entry(name="tp"), acceleratorConfig={"tp": 2})
    alone = load_runtime(runtime_doc("a", copy.deepcopy(plain))).entries[0]
    mixed = load_runtime(runtime_doc("b", copy.deepcopy(configured), copy.deepcopy(plain)))
    assert [one.name for one in mixed.entries] == ["tp", alone.name]
    assert mixed.entries[1] is alone
    assert mixed.entries[0].accelerator_config == {"tp": 2}
    assert mixed == schema_load(runtime_doc("b", configured, plain))
