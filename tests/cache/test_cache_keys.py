"""Cache keys: equal exactly when selection reads equal inputs (SPEC §16)."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.crc import key_slot

from app.cache import keys
from app.schemas.requests import load_rank_request
from app.selection import RULES_VERSION
from app.selection.ranking import is_candidate, runtime_identity
from app.selection.values import DiffusionPipeline, Entry, EntryRef, RankRequest, Runtime, SizeRange
from tests.builders import (
    entry,
    isvc_doc,
    model_doc,
    rank_body,
    reordered_keys,
    runtime_doc,
    serving_runtime,
)

PREFIX = "ome-ranker:"


def _body() -> dict:
    return rank_body(
        model_doc(size="7B"),
        runtime_doc("vllm", entry(weight=2), size_range={"min": "1B", "max": "70B"}),
        runtime_doc("srt", entry(priority=3)),
        serving_runtime("team", entry()),
        serving_runtime("elsewhere", entry(), namespace="other"),
    )


def _key(body: dict, endpoint: str = "rank", output: str = "json", **query: str) -> str:
    return keys.ranking_key(PREFIX, load_rank_request(body, query), endpoint, output)


def _decorated(body: dict) -> dict:
    """Fields selection never reads: containers, labels, annotations of nobody's business."""
    body = copy.deepcopy(body)
    for runtime in body["runtimes"]:
        runtime["metadata"]["labels"] = {"team": "infra", "tier": "gold"}
        runtime["spec"]["containers"] = [{"name": "ome-container", "image": "vllm/vllm:v0.9"}]
    body["model"]["metadata"]["labels"] = {"owner": "someone"}
    body["model"]["spec"]["storage"] = {"storageUri": "hf://meta-llama/Llama-3.2-3B"}
    return body


def test_reordered_runtimes_share_a_key():
    body = _body()
    reversed_body = {**body, "runtimes": list(reversed(body["runtimes"]))}
    assert _key(reversed_body) == _key(body)


def _copies(first_disabled: bool) -> dict:
    """Two copies of one runtime (rules §2: the last is used), the disabled one first or last."""
    enabled = runtime_doc("vllm", entry())
    disabled = copy.deepcopy(enabled)
    disabled["spec"]["disabled"] = True
    pair = [disabled, enabled] if first_disabled else [enabled, disabled]
    return rank_body(model_doc(), runtime_doc("srt", entry()), *pair)


def test_copies_of_one_runtime_in_another_order_get_another_key():
    """Which copy comes last decides the answer, so it is part of the key; the order of
    runtimes that are not copies of each other is not."""
    assert _key(_copies(first_disabled=True)) != _key(_copies(first_disabled=False))
    swapped = _copies(first_disabled=True)
    swapped["runtimes"] = [*swapped["runtimes"][1:], swapped["runtimes"][0]]  # srt moves last
    assert _key(swapped) == _key(_copies(first_disabled=True))
    namespaced = rank_body(model_doc(), serving_runtime("team", entry(), namespace=None))
    # A ServingRuntime named in the target namespace and one without a namespace are copies.
    placed = copy.deepcopy(namespaced["runtimes"][0])
    placed["metadata"]["namespace"] = "demo"
    placed["spec"]["disabled"] = True
    one = {**namespaced, "runtimes": [placed, namespaced["runtimes"][0]]}
    other = {**namespaced, "runtimes": [namespaced["runtimes"][0], placed]}
    assert _key(one) != _key(other)


def test_keys_from_before_copies_kept_their_order_are_never_met():
    """A key of the old form (runtimes sorted by their encoding, no marker) may hold the answer
    of the other order of two copies: the marker keeps every new key apart from those, even
    where the new order is the old one (a single runtime here)."""
    request = load_rank_request(rank_body(model_doc(), runtime_doc("vllm", entry())), {})
    encoded = keys.canonical_inputs(request, "rank", "json")
    document = json.loads(encoded)
    assert document.pop("runtimeOrder") == keys.RUNTIME_ORDER
    old_form = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    assert old_form != encoded


def test_ignored_fields_and_key_order_share_a_key():
    body = _body()
    assert _key(_decorated(body)) == _key(body)
    assert _key(reordered_keys(body)) == _key(body)
    image_changed = _decorated(body)
    image_changed["runtimes"][0]["spec"]["containers"][0]["image"] = "vllm/vllm:v0.10"
    assert _key(image_changed) == _key(_decorated(body))


def test_target_namespace_replaces_the_requested_one():
    # The model lives in "demo": asking for "demo" explicitly is the same question.
    body = _body()
    assert _key({**body, "namespace": "demo"}) == _key(body)
    assert _key(body, namespace="demo") == _key(body)
    assert _key({**body, "namespace": ""}) == _key(body)


def _changed(path: tuple, value) -> dict:
    body = _body()
    parent = body
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return body


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("runtimes", 0, "spec", "supportedModelFormats", 0, "modelFormat", "weight"), 3),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "priority"), 4),
        (("runtimes", 0, "spec", "supportedModelFormats", 0, "modelFormat", "version"), "1.0.1"),
        (("model", "spec", "modelFramework", "version"), "4.46.0"),
        (("model", "spec", "modelParameterSize"), "8B"),
        (("runtimes", 0, "spec", "modelSizeRange", "max"), "60B"),
        (("runtimes", 1, "spec", "disabled"), True),
        # every field of a runtime, its entries and their refs (keys.py encodes them by hand)
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "name"), "entry"),
        (
            ("runtimes", 1, "spec", "supportedModelFormats", 0, "modelFormat", "operator"),
            "GreaterThan",
        ),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "modelFormat", "name"), "onnx"),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "modelFramework", "name"), "vllm"),
        (
            ("runtimes", 1, "spec", "supportedModelFormats", 0, "modelFramework", "version"),
            "4.46.0",
        ),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "modelFramework", "weight"), 0),
        (
            ("runtimes", 1, "spec", "supportedModelFormats", 0, "modelArchitecture"),
            "MistralForCausalLM",
        ),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "quantization"), "fp8"),
        (("runtimes", 1, "spec", "supportedModelFormats", 0, "autoSelect"), False),
        (
            ("runtimes", 1, "spec", "supportedModelFormats", 0, "diffusionPipeline"),
            {"className": "FluxPipeline"},
        ),
        (("runtimes", 1, "spec", "supportedModelFormats"), []),
        (("runtimes", 1, "kind"), "ServingRuntime"),
        (("runtimes", 1, "metadata", "name"), "srt-2"),
        (("runtimes", 0, "spec", "modelSizeRange", "min"), "2B"),
        (("runtimes", 1, "spec", "acceleratorRequirements"), {"acceleratorClasses": ["a100"]}),
        (("runtimes", 1, "spec", "engineConfig"), {"annotations": {"ome.io/deploymentMode": "X"}}),
        (("runtimes", 1, "spec", "decoderConfig"), {"annotations": {"ome.io/deploymentMode": "X"}}),
        (("runtimes", 1, "spec", "protocolVersions"), ["openAI"]),
        (("runtimes", 2, "metadata", "namespace"), "other"),
        (("model", "metadata", "name"), "llama-2"),
        (("namespace",), "other"),
        (("omeVersion",), "1.2"),
        (("omeVersion",), "1.3.0"),
        (("inferenceService",), isvc_doc(namespace="demo")),
    ],
)
def test_a_field_selection_reads_changes_the_key(path, value):
    assert _key(_changed(path, value)) != _key(_body())


ELSEWHERE = 3  # _body()'s ServingRuntime of another namespace than the target one (demo)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("spec", "supportedModelFormats", 0, "modelFormat", "name"), "onnx"),
        (("spec", "supportedModelFormats"), []),
        (("spec", "disabled"), True),
        (("spec", "modelSizeRange"), {"min": "100B"}),
        (("spec", "acceleratorRequirements"), {"acceleratorClasses": ["a100"]}),
        (("metadata", "annotations"), {"ome.io/inherit-from": "srt"}),
    ],
)
def test_another_namespaces_runtime_is_in_the_key_by_name_alone(client, path, value):
    """Selection never reads it (rules §2) and an answer names it only (``ignored``), so
    requests that differ in its spec alone share a key, and their answers are the same bytes;
    asked for its namespace, it is read, and in the key whole."""
    changed = _changed(("runtimes", ELSEWHERE, *path), value)
    assert _key(changed) == _key(_body())
    assert _key(changed, namespace="other") != _key(_body(), namespace="other")
    named = {**_body(), "inferenceService": isvc_doc(runtime={"name": "elsewhere"})}
    named_changed = {**changed, "inferenceService": named["inferenceService"]}
    headers = {"Cache-Control": "no-cache"}
    for query in ("", "?output=text", "?output=yaml", "?omeVersion=1.2"):
        for url in (f"/v1/rank{query}", f"/v1/select{query}"):
            for before, after in ((_body(), changed), (named, named_changed)):
                one = client.post(url, json=before, headers=headers)
                other = client.post(url, json=after, headers=headers)
                assert (one.status_code, one.get_data()) == (other.status_code, other.get_data())


@pytest.mark.parametrize(
    ("path", "value"), [(("metadata", "name"), "elsewhere-2"), (("metadata", "namespace"), "far")]
)
def test_another_namespaces_runtime_is_in_the_key_by_its_name(path, value):
    assert _key(_changed(("runtimes", ELSEWHERE, *path), value)) != _key(_body())


def test_endpoint_output_and_query_change_the_key():
    body = _body()
    assert _key(body, endpoint="select") != _key(body)
    assert len({_key(body, output=output) for output in ("json", "text", "yaml")}) == 3
    assert _key(body, omeVersion="1.2") != _key(body)
    assert _key(body, namespace="other") != _key(body)


def test_canonical_inputs_are_sorted_compact_json():
    encoded = keys.canonical_inputs(load_rank_request(_body(), {}), "rank", "json")
    document = json.loads(encoded)
    expected = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    assert encoded == expected
    assert document["namespace"] == "demo"
    assert document["rules"] == RULES_VERSION
    names = [runtime[1] for runtime in document["runtimes"]]  # [kind, name, namespace, ...]
    assert sorted(names) == ["elsewhere", "srt", "team", "vllm"]


def test_canonical_inputs_without_runtimes():
    encoded = keys.canonical_inputs(load_rank_request(rank_body(), {}), "select", "json")
    assert json.loads(encoded)["runtimes"] == []


def test_key_names():
    key = _key(_body())
    assert key.startswith(f"{PREFIX}{keys.RANKING_KEYSPACE}:v{RULES_VERSION}:")
    assert keys.ENTRY_KEY.match(key.removeprefix(PREFIX))
    raw = _raw_key(b"{}")
    assert raw.startswith(f"{PREFIX}{keys.REQUEST_KEYSPACE}:v{RULES_VERSION}:")
    assert keys.ENTRY_KEY.match(raw.removeprefix(PREFIX))


def _raw_key(body: bytes, **changes) -> str:
    parts = {
        "endpoint": "rank",
        "output": "json",
        "content_type": "application/json",
        "namespace": None,
        "ome_version": None,
        "max_runtimes": 10_000,
    }
    parts.update(changes)
    return keys.request_key(PREFIX, body, **parts)


def test_request_key_covers_every_part_of_the_raw_request():
    base = _raw_key(b'{"model": {}}')
    variants = [
        _raw_key(b'{"model":{}}'),
        _raw_key(b'{"model": {}}', endpoint="select"),
        _raw_key(b'{"model": {}}', output="yaml"),
        _raw_key(b'{"model": {}}', content_type="application/yaml"),
        _raw_key(b'{"model": {}}', namespace="demo"),
        _raw_key(b'{"model": {}}', namespace=""),
        _raw_key(b'{"model": {}}', ome_version="1.2"),
        _raw_key(b'{"model": {}}', max_runtimes=10),
    ]
    assert base not in variants
    assert len(set(variants)) == len(variants)
    assert _raw_key(b'{"model": {}}') == base


def test_keys_spread_over_cluster_slots():
    # No hash tag in our key names: in a cluster each entry lands on the slot of its digest,
    # so entries spread over every node (a "{...}" in the prefix would pin them to one).
    slots = Counter(key_slot(_raw_key(str(i).encode()).encode()) for i in range(2000))
    assert len(slots) > 1800
    assert "{" not in _key(_body()) and "}" not in _key(_body())


def test_diffusion_components_are_part_of_the_key():
    def body(library: str) -> dict:
        pipeline = {"vae": {"library": library, "type": "AutoencoderKL"}}
        return rank_body(
            model_doc(diffusionPipeline=pipeline),
            runtime_doc("a", entry(diffusionPipeline={"vae": {"library": "diffusers"}})),
        )

    assert _key(body("diffusers")) != _key(body("other"))
    assert _key(body("diffusers")) == _key(body("diffusers"))


def test_only_selection_documents_can_be_encoded():
    with pytest.raises(TypeError, match="cannot encode object"):
        keys._plain(object())


def _two_values(hint: str) -> tuple:
    """Two different values of a runtime document's field type (its annotation, as written)."""
    one = Entry(name="one", format=EntryRef("safetensors"), auto_select=True, priority=1)
    pairs = {
        "str": ("a", "b"),
        "str | None": (None, "b"),
        "bool | None": (None, True),
        "int": (1, 2),
        "int | None": (None, 2),
        "tuple[str, ...]": (("a",), ("b",)),
        "tuple[str, ...] | None": (None, ("b",)),
        "EntryRef | None": (None, EntryRef("onnx")),
        "SizeRange | None": (None, SizeRange("1B")),
        "DiffusionPipeline | None": (None, DiffusionPipeline("FluxPipeline")),
        "tuple[Entry, ...]": ((), (one,)),
        "Mapping[str, Any] | None": (None, {"nvidia-h100": {"runtimeArgsOverride": ["--x"]}}),
    }
    return pairs[hint]


def _variants(kind: type, base):
    """``base`` itself, then ``base`` with each field of ``kind`` changed in turn."""
    yield kind.__name__, base
    for field in dataclasses.fields(kind):
        first, second = _two_values(field.type)
        for value in (first, second):
            if value != getattr(base, field.name):
                yield (
                    f"{kind.__name__}.{field.name}",
                    dataclasses.replace(base, **{field.name: value}),
                )
                break


def test_every_field_of_a_runtime_document_is_in_its_key():
    # keys.py encodes runtimes by hand for speed: a field it forgets would let two requests that
    # differ in it share an answer.
    request = load_rank_request(_body(), {})
    runtime = request.runtimes[0]
    ref = EntryRef("safetensors", "1.0.0", "Equal", 2)
    entry_ = Entry("e", ref, ref, "Llama", "fp8", None, True, 3, ("oci",), "1")
    groups = [
        list(_variants(Runtime, runtime)),
        [
            (name, dataclasses.replace(runtime, entries=(e,)))
            for name, e in _variants(Entry, entry_)
        ],
        [
            (name, dataclasses.replace(runtime, entries=(dataclasses.replace(entry_, format=r),)))
            for name, r in _variants(EntryRef, ref)
        ],
        [
            (name, dataclasses.replace(runtime, size_range=size))
            for name, size in _variants(SizeRange, SizeRange("2B", "60B"))
        ],
    ]
    for group in groups:  # the first of each is the unchanged document
        seen: dict[bytes, str] = {}
        for name, changed in group:
            if name in keys.NOT_IN_KEY:
                continue  # read by admission only: no cached answer depends on it
            changed_request = dataclasses.replace(
                request, runtimes=(changed, *request.runtimes[1:])
            )
            found = keys.canonical_inputs(changed_request, "rank", "json")
            assert found not in seen, (name, seen.get(found))
            seen[found] = name
    not_in_key = {name.split(".")[0]: 1 for name in keys.NOT_IN_KEY if name.startswith("Entry.")}
    assert [len(group) - not_in_key.get(group[0][0], 0) for group in groups] == [
        1 + len(dataclasses.fields(kind)) - not_in_key.get(kind.__name__, 0)
        for kind in (Runtime, Entry, EntryRef, SizeRange)
    ]


def test_what_only_admission_reads_is_not_in_a_key():
    body = _body()
    versioned = copy.deepcopy(body)
    versioned["runtimes"][0]["spec"]["supportedModelFormats"][0]["version"] = "2"
    assert _key(versioned) == _key(body)
    stored = copy.deepcopy(body)
    stored["model"]["spec"]["storage"] = {"storageUri": "pvc://claim/llama"}
    assert _key(stored) == _key(body)


def test_runtimes_sort_after_every_other_member_of_the_key_document():
    # canonical_inputs splices the runtimes in last, which is canonical only while they sort last.
    others = [field.name for field in dataclasses.fields(RankRequest) if field.name != "runtimes"]
    assert max([*others, "endpoint", "output", "rules", "runtimeOrder"]) < "runtimes"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("\ud800", "\udc00"),  # lone surrogates: orjson refuses them, the stdlib escapes them
        ("é", "e"),
        ("\ud800", "\\ud800"),  # an escape and the text of one
    ],
)
def test_runtimes_orjson_cannot_encode_still_get_distinct_keys(first, second):
    # Runtime encodings come from orjson, or from the stdlib where orjson refuses a value:
    # either way, two runtimes that differ in one annotation never share a key.
    def with_mode(mode: str) -> str:
        body = _body()
        body["runtimes"][0]["spec"]["engineConfig"] = {
            "annotations": {"ome.io/deploymentMode": mode}
        }
        return _key(body)

    assert with_mode(first) != with_mode(second)
    assert with_mode(first) == with_mode(first)


def test_accelerator_configs_past_64_bits_get_distinct_keys():
    def with_config(config: dict) -> str:
        body = _body()
        body["runtimes"][0]["spec"]["supportedModelFormats"][0]["acceleratorConfig"] = config
        return _key(body)

    big = 2**70
    assert with_config({"n": big}) != with_config({"n": big + 1})
    assert with_config({"n": big, "m": 1}) == with_config({"m": 1, "n": big})  # keys sorted
    assert with_config({"n": 1, "m": 2}) == with_config({"m": 2, "n": 1})
    assert with_config({"n": 1}) != with_config({"n": True})


RUNTIMES = st.lists(
    st.builds(
        Runtime,
        kind=st.sampled_from(["ServingRuntime", "ClusterServingRuntime"]),
        name=st.sampled_from(["a", "b", "c"]),
        namespace=st.sampled_from([None, "demo", "other"]),
        disabled=st.sampled_from([None, True, False]),
        entries=st.lists(
            st.builds(Entry, st.sampled_from(["", "x"]), priority=st.none() | st.integers(1, 3)),
            max_size=2,
        ).map(tuple),
    ),
    max_size=12,
)


@given(RUNTIMES, st.sampled_from(["demo", "other"]))
def test_runtimes_are_in_identity_order_and_copies_in_request_order(runtimes, namespace):
    # The reference: a stable sort by identity alone keeps the copies of each in their order.
    def encoded(runtime):
        if is_candidate(runtime, namespace):
            return keys._runtime(runtime)
        return keys._ignored(runtime)

    expected = sorted(runtimes, key=lambda runtime: runtime_identity(runtime, namespace))
    assert keys._in_canonical_order(tuple(runtimes), namespace) == list(map(encoded, expected))
