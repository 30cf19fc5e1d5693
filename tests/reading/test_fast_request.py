"""The JSON request object decoded straight into its runtimes (app/reading/fast_request.py)
gives, whenever it answers, the request the usual path gives (``decode_json_body``, the
manifest reading, ``load_runtime`` or marshmallow per runtime); it answers for bodies of plain
runtimes; and it leaves every odd body to the usual path, whose errors are the answer."""

from __future__ import annotations

import json
from dataclasses import replace

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.errors import MalformedRequest
from app.reading import fast_request
from app.reading.decoding import MAX_DEPTH, decode_json_body
from app.reading.fast_request import fast_request_object
from app.reading.manifests import request_of
from app.schemas.fast_runtime import PlainEntry, load_runtime
from app.schemas.requests import load_rank_request
from app.selection.values import Entry, EntryRef, RankRequest
from bench.manifests import encoded_body
from bench.shapes import incompatible_body, namespaces_body, wide_body
from tests.builders import entry, model_doc, rank_body, runtime_doc
from tests.schemas.generated_documents import FULL_RUNTIME, RUNTIME, mutated_runtimes


def usual(raw: bytes):
    """The request of the usual path, or the error it raises."""
    try:
        stream = request_of(False, decode_json_body(raw))
        return load_rank_request(stream.request, {}, stream.others, stream.repeated)
    except Exception as error:  # compared by type and message
        return type(error), str(error)


def fast(raw: bytes):
    found = fast_request_object(raw)
    if found is None:
        return None
    body, runtimes = found
    try:
        return load_rank_request(body, {}, loaded_runtimes=runtimes)
    except Exception as error:
        return type(error), str(error)


def _reference(ref):
    return None if ref is None else EntryRef(ref.name, ref.version, ref.operator, ref.weight)


def _as_entry(item) -> Entry:
    """The ``Entry`` of the same fields: a fast-path entry is a ``PlainEntry`` struct, which
    the rules read through the same attributes (and never compare with an ``Entry``)."""
    fields = {name: getattr(item, name) for name in Entry.__dataclass_fields__}
    fields["format"], fields["framework"] = _reference(item.format), _reference(item.framework)
    return Entry(**fields)


def _fields(found):
    """A request with every entry as an ``Entry`` (an error as it is)."""
    if not isinstance(found, RankRequest):
        return found
    runtimes = tuple(
        replace(runtime, entries=tuple(map(_as_entry, runtime.entries)))
        for runtime in found.runtimes
    )
    return replace(found, runtimes=runtimes)


def same_as_usual(raw: bytes) -> bool:
    """Whether the fast path answered; when it did, it gave what the usual path gives."""
    found = fast(raw)
    if found is None:
        return False
    expected = usual(raw)
    assert _fields(found) == _fields(expected)
    assert repr(_fields(found)) == repr(_fields(expected))  # == alone takes 2.0 for 2
    return True


def _null_name_or_weight(runtime) -> bool:
    """An entry whose ``name`` or reference's ``weight`` is null (read as "" and 1): plain for
    ``load_runtime``, left to the usual path by the fast one, whose entries are read as they
    are decoded."""
    entries = (runtime.get("spec") or {}).get("supportedModelFormats")
    if type(runtime) is not dict or not isinstance(entries, list):
        return False
    for item in entries:
        if type(item) is dict and ("name" in item and item["name"] is None):
            return True
        for key in ("modelFormat", "modelFramework"):
            ref = item.get(key) if type(item) is dict else None
            if type(ref) is dict and "weight" in ref and ref["weight"] is None:
                return True
    return False


def test_a_fast_entry_has_every_field_of_an_entry():
    """The rules read an entry's fields by name: a field added to ``Entry`` (or its
    references) and not to the fast path's structs would be missing there."""
    assert set(Entry.__dataclass_fields__) <= set(PlainEntry.__struct_fields__)
    item = msgspec.convert(FULL_RUNTIME["spec"]["supportedModelFormats"][0], PlainEntry)
    assert set(EntryRef.__dataclass_fields__) <= set(type(item.format).__struct_fields__)
    assert item.effective_priority == 2
    assert msgspec.convert({}, PlainEntry).effective_priority == 1


def encoded(value) -> bytes:
    return json.dumps(value).encode()


@settings(
    max_examples=4 * settings.default.max_examples, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(mutated_runtimes(), max_size=3))
def test_agrees_with_the_usual_path_whenever_it_answers(runtimes):
    raw = encoded(rank_body(model_doc(), *runtimes))
    answered = same_as_usual(raw)
    if all(
        load_runtime(runtime) is not None and not _null_name_or_weight(runtime)
        for runtime in runtimes
    ):
        assert answered, "a body of plain runtimes was left to the usual path"


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RUNTIME, min_size=1, max_size=3))
def test_answers_for_bodies_of_plain_runtimes(runtimes):
    assert same_as_usual(encoded(rank_body(model_doc(), *runtimes))) == all(
        load_runtime(runtime) is not None and not _null_name_or_weight(runtime)
        for runtime in runtimes
    )


def test_answers_for_every_workload_shape():
    for raw in (
        encoded_body(50),
        incompatible_body(40),
        wide_body(3, 20),
        namespaces_body(40, 5),
    ):
        assert same_as_usual(raw)


def test_the_answers_of_every_workload_shape_are_the_usual_path_s_byte_for_byte(client):
    """The rules read a fast-path entry (a ``PlainEntry``, its references not shared) as they
    read an ``Entry``: the same rows, scores, ways out, summary and table. A byte-order mark
    sends the same body down the usual path."""
    headers = {"Content-Type": "application/json", "Cache-Control": "no-cache"}
    # Entries that qualify, with what an entry may leave out (weights, priority, autoSelect,
    # name) and what it may set to its edge: the scores, the WEIGHT column and the advice
    # read every one.
    catalog = encoded(
        rank_body(
            model_doc(),
            runtime_doc("a", entry(name="")),
            runtime_doc("b", entry(weight=0, framework_weight=0, priority=3)),
            runtime_doc("c", entry(auto_select=None, weight=-2), entry(format_name="onnx")),
            runtime_doc("d", entry(framework=None, framework_version=None), entry(priority=7)),
            runtime_doc("e", entry(weight=-9, framework_weight=-9, modelCacheProviders=["x"])),
        )
    )
    shapes = (encoded_body(60), incompatible_body(120), wide_body(3, 40), namespaces_body(60, 6))
    for raw in (catalog, *shapes):
        for accept in ("application/json", "text/plain"):
            answers = [
                client.post(
                    "/v1/rank?omeVersion=1.2", data=body, headers={**headers, "Accept": accept}
                )
                for body in (raw, b"\xef\xbb\xbf" + raw)
            ]
            assert [answer.status_code for answer in answers] == [200, 200]
            assert answers[0].data == answers[1].data


def test_the_request_members_are_read_as_the_usual_path_reads_them():
    """The model, an InferenceService, AcceleratorClasses and the settings, valid or not: the
    same request or the same error."""
    runtime = runtime_doc("rt", entry())
    service = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "svc", "namespace": "demo"},
        "spec": {"model": {"name": "llama"}},
    }
    for extra in (
        {},
        {"namespace": "demo", "omeVersion": "1.2", "modelCacheProvider": "oci"},
        {"namespace": 5},
        {"omeVersion": "not a version"},
        {"acceleratorClassesKnown": True},
        {"acceleratorClassesKnown": "yes"},
        {"acceleratorClasses": "H100"},
        {"acceleratorClasses": [{"kind": "AcceleratorClass", "metadata": {"name": "h100"}}]},
        {"inferenceService": service},
        {"inferenceService": [1]},
        {"model": None},
        {"model": {"kind": "BaseModel"}},
        {"model": {**model_doc(), "spec": {"modelFormat": {"name": "x", "version": 10**30}}}},
        {"unknown": {"deep": [1, 2.5, None]}},
    ):
        body = {**rank_body(model_doc(), runtime), **extra}
        assert same_as_usual(encoded(body)), extra


def test_duplicate_keys_and_long_integers_read_as_the_standard_library_reads_them():
    model = json.dumps(model_doc())
    runtime = json.dumps(runtime_doc("rt", entry()))
    other = json.dumps(runtime_doc("other", entry(priority=3)))
    for text in (
        f'{{"model":{model},"runtimes":[{other}],"runtimes":[{runtime}]}}',
        f'{{"runtimes":[{runtime}],"model":{{"x":1}},"model":{model}}}',
        f'{{"model":{model},"runtimes":[{runtime}],"namespace":"a","namespace":"demo"}}',
        f'{{"model":{model},"runtimes":[{runtime}],"n":123456789012345678901234567890}}',
        f' \n{{"model":{model},"runtimes":[{runtime}]}}\n',
    ):
        assert same_as_usual(text.encode()), text
    spec = runtime.replace('"spec": {', '"spec": {"disabled": false, "disabled": true, ', 1)
    raw = f'{{"model":{model},"runtimes":[{spec}]}}'.encode()
    assert same_as_usual(raw)
    assert fast(raw).runtimes[0].disabled is True


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"[]",
        b'"text"',
        b"\xef\xbb\xbf{}",
        b'{"model":{},"runtimes":[]}x',
        b'{"model":{"name":"\\ud800"},"runtimes":[]}',
        b'{"model":{"n":1e400},"runtimes":[]}',
        b'{"model":{},"runtimes":null}',
        b'{"model":{}}',
        b'{"kind":"BaseModel","runtimes":[]}',
        b'{"model":{},"runtimes":[' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"]}",
    ],
)
def test_leaves_odd_bodies_to_the_usual_path(raw):
    assert fast_request_object(raw) is None


def test_a_body_nested_past_the_bound_is_the_usual_paths_to_refuse():
    deep = {"model": model_doc(), "runtimes": []}
    inner = deep["model"]["spec"]
    for _ in range(MAX_DEPTH):
        inner["x"] = {}
        inner = inner["x"]
    raw = encoded(deep)
    assert fast_request_object(raw) is None
    with pytest.raises(MalformedRequest, match="nested deeper"):
        decode_json_body(raw)


def test_a_runtime_that_is_not_plain_sends_the_whole_body_to_the_usual_path():
    configured = dict(entry(), acceleratorConfig={"h100": {"x": 1}})
    for odd in (
        runtime_doc("rt", configured),
        runtime_doc("rt", entry(priority=0)),
        {**FULL_RUNTIME, "apiVersion": "ome.io/v1"},
        {**FULL_RUNTIME, "metadata": {"name": "rt", "annotations": {"ome.io/inherit-from": 5}}},
        {**FULL_RUNTIME, "spec": {"engineConfig": {"annotations": {"ome.io/deploymentMode": 5}}}},
        {**FULL_RUNTIME, "spec": {"decoderConfig": {"annotations": {"ome.io/deploymentMode": []}}}},
        runtime_doc("Not_A_Name", entry()),
        runtime_doc("rt", entry(), namespace="Team_A"),
    ):
        raw = encoded(rank_body(model_doc(), runtime_doc("plain", entry()), odd))
        assert fast_request_object(raw) is None
        usual(raw)  # decided there (a request or an error), never by the fast path


def test_a_deep_or_unclosed_body_costs_the_fast_path_nothing(monkeypatch):
    """msgspec refuses nesting past its own bound at once; the depth scan, which is exact only on
    valid JSON and costs a pass per level on a pile of brackets, never sees such a body."""
    scanned = []
    monkeypatch.setattr(fast_request, "json_depth", lambda raw: scanned.append(raw) or 0)
    for raw in (
        b'{"model":' + b"[" * 2_000_000 + b"]" * 2_000_000 + b',"runtimes":[]}',
        b"{" + b"[" * 4_000_000,
    ):
        assert fast_request_object(raw) is None
    assert scanned == []
