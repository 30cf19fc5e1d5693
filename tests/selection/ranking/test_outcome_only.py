"""``rank_runtimes(..., outcome_only=True)``, the ranking admission asks for: what OME answers
(the selection, its message, the warnings, notes and error) is the full ranking's, for any
request; only the table is left out, and kept whole where OME's refusal lists it."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.ome_kinds import DEPLOYMENT_MODE_ANNOTATION as DEPLOYMENT_MODE
from app.schemas.requests import load_rank_request
from app.selection.ranking import RuntimeSet, rank_runtimes
from app.selection.values import InferenceService
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime
from tests.selection.builders import requests

# Runtimes most of which serve the model (the shared strategy's rarely do): each check that
# ``may_qualify`` skips a runtime for is met by some of them and failed by others.
NEAR_ENTRIES = st.builds(
    entry,
    format_name=st.sampled_from(["safetensors", "safetensors", "onnx"]),
    format_version=st.sampled_from([None, "1.0.0"]),
    weight=st.sampled_from([None, 0, 1, 2]),
    architecture=st.sampled_from([None, "LlamaForCausalLM", "Other"]),
    auto_select=st.sampled_from([True, True, False, None]),
    priority=st.sampled_from([None, 1, 2]),
)


@st.composite
def near_requests(draw):
    runtimes = []
    for name in draw(st.lists(st.sampled_from("abcdefgh"), max_size=6, unique=True)):
        spec = {"disabled": draw(st.sampled_from([None, False, True]))}
        if draw(st.booleans()):
            spec["acceleratorRequirements"] = {"acceleratorClasses": ["a100"]}
        if draw(st.booleans()):
            runtime = serving_runtime(name, namespace=draw(st.sampled_from([None, "demo"])), **spec)
        else:
            runtime = runtime_doc(name, **spec)
        runtime["spec"]["supportedModelFormats"] = draw(st.lists(NEAR_ENTRIES, max_size=3))
        mode = draw(st.sampled_from([None, "RawDeployment", "MultiNode"]))
        if mode is not None:
            runtime["spec"]["engineConfig"] = {"annotations": {"ome.io/deploymentMode": mode}}
        runtime["spec"]["modelSizeRange"] = draw(
            st.sampled_from([None, {"min": "1B", "max": "8B"}])
        )
        if runtime["spec"]["modelSizeRange"] is None:
            del runtime["spec"]["modelSizeRange"]
        runtimes.append(runtime)
    size = draw(st.sampled_from([None, "7B", "70B"]))
    body = rank_body(model_doc(size=size), *runtimes)
    if draw(st.booleans()):
        annotations = {"ome.io/accelerator-class": "a100"} if draw(st.booleans()) else None
        body["inferenceService"] = isvc_doc(annotations=annotations)
    return body


def outcome(ranking):
    return (
        ranking.selected,
        ranking.message,
        ranking.warnings,
        ranking.notes,
        ranking.error,
        ranking.ignored,
    )


@settings(max_examples=10 * settings.default.max_examples, deadline=None)
@given(st.one_of(requests(), near_requests()), st.data())
def test_the_outcome_is_the_full_rankings(body, data):
    names = [runtime["metadata"]["name"] for runtime in body["runtimes"]]
    if names and data.draw(st.booleans()):  # a runtime named: OME's explicit path
        named = data.draw(st.sampled_from([*names, "missing"]))
        service = body.get("inferenceService") or isvc_doc()
        service["spec"]["runtime"] = {"name": named}
        body["inferenceService"] = service
    request = load_rank_request(body, {})
    full = rank_runtimes(request)
    fast = rank_runtimes(request, outcome_only=True)
    assert outcome(fast) == outcome(full)
    # The same, with the runtimes' facts shared by an earlier question of another namespace.
    shared = RuntimeSet(request.runtimes)
    rank_runtimes(replace(request, namespace="elsewhere"), shared=shared)
    assert outcome(rank_runtimes(request, outcome_only=True, shared=shared)) == outcome(full)
    assert rank_runtimes(request, shared=shared) == full
    compatible = tuple(row for row in full.rows if row.compatible)
    explicit = "runtime" in body.get("inferenceService", {}).get("spec", {})
    if compatible or explicit:
        assert fast.rows == compatible
    else:
        assert fast.rows == full.rows  # OME's no-runtime text lists every excluded runtime


def test_a_refusal_still_lists_every_excluded_runtime():
    body = rank_body(
        model_doc(),
        runtime_doc("other-format", entry(format_name="onnx")),
        runtime_doc("disabled", entry(), disabled=True),
    )
    ranking = rank_runtimes(load_rank_request(body, {}), outcome_only=True)
    assert ranking.selected is None
    assert [name for name, _ in ranking.excluded()] == ["disabled", "other-format"]
    assert "Excluded runtimes: disabled (" in ranking.message


def test_only_compatible_rows_are_kept_once_one_qualifies():
    body = rank_body(
        model_doc(),
        runtime_doc("fits", entry()),
        runtime_doc("other-format", entry(format_name="onnx")),
    )
    ranking = rank_runtimes(load_rank_request(body, {}), outcome_only=True)
    assert [row.name for row in ranking.rows] == ["fits"]
    assert (
        ranking.message
        == f"Runtime fits will be auto-selected for model {body['model']['metadata']['name']}"
    )


def _variant(request, data):
    """The request's model under another name, and maybe with another field the rows read;
    the InferenceService maybe naming its runtime or asking for a class."""
    model = replace(request.model, name=data.draw(st.sampled_from(["m-1", "m-2", "m-3"])))
    changed = data.draw(st.sampled_from([None, "size", "quantization", "architecture"]))
    if changed == "size":
        model = replace(model, parameter_size=data.draw(st.sampled_from([None, "7B", "70B"])))
    elif changed is not None:
        model = replace(model, **{changed: data.draw(st.sampled_from([None, "fp8", "Other"]))})
    service = data.draw(
        st.sampled_from(
            [
                request.inference_service,
                None,
                InferenceService("svc", accelerator_annotation="a100"),
                InferenceService("svc", runtime_name="a"),
                InferenceService("svc", deployment_mode="MultiNode"),
            ]
        )
    )
    return replace(request, model=model, inference_service=service)


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(st.one_of(requests(), near_requests()), st.data())
def test_questions_that_share_rows_answer_as_alone(body, data):
    """An admission's questions share a namespace's ordered compatible rows when they differ
    only in the model's name (``selector.rows_key``): every answer, rows included, is the one
    the question gets alone, whatever was asked before it."""
    request = load_rank_request(body, {})
    shared = RuntimeSet(request.runtimes)
    for _ in range(4):
        question = _variant(request, data)
        alone = rank_runtimes(question, outcome_only=True)
        together = rank_runtimes(question, outcome_only=True, shared=shared)
        assert outcome(together) == outcome(alone)
        assert together.rows == alone.rows


def test_copies_of_a_model_share_their_rows_and_another_model_does_not():
    body = rank_body(
        model_doc(size="7B"),
        runtime_doc("small", entry(), modelSizeRange={"min": "1B", "max": "8B"}),
        runtime_doc("any", entry()),
    )
    request = load_rank_request(body, {})
    shared = RuntimeSet(request.runtimes)
    first = rank_runtimes(request, outcome_only=True, shared=shared)
    copy = rank_runtimes(
        replace(request, model=replace(request.model, name="copy")),
        outcome_only=True,
        shared=shared,
    )
    assert copy.rows is first.rows
    assert copy.message.endswith("for model copy")
    larger = replace(request, model=replace(request.model, name="big", parameter_size="70B"))
    other = rank_runtimes(larger, outcome_only=True, shared=shared)
    assert other.rows is not first.rows
    assert other.rows == rank_runtimes(larger, outcome_only=True).rows


def test_questions_asking_other_modes_or_classes_do_not_share_rows():
    body = rank_body(
        model_doc(),
        runtime_doc(
            "raw", entry(), engineConfig={"annotations": {DEPLOYMENT_MODE: "RawDeployment"}}
        ),
        runtime_doc("a100", entry(), acceleratorRequirements={"acceleratorClasses": ["a100"]}),
    )
    request = load_rank_request(body, {})
    shared = RuntimeSet(request.runtimes)
    for service in (
        None,
        InferenceService("svc", deployment_mode="MultiNode"),
        InferenceService("svc", accelerator_annotation="a100"),
        InferenceService("svc", runtime_name="raw"),
        None,
    ):
        question = replace(request, inference_service=service)
        together = rank_runtimes(question, outcome_only=True, shared=shared)
        alone = rank_runtimes(question, outcome_only=True)
        assert (outcome(together), together.rows) == (outcome(alone), alone.rows)
