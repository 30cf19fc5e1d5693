"""Property tests over the selection rules: invariants that must hold for any input."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.requests import load_rank_request
from app.selection.ranking import rank_runtimes
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime

VERSIONS = st.sampled_from([None, "1.0.0", "1.0", "v1.0.0", "2.0.0", "1.0.0-rc1", "bad..", "1"])
SIZES = st.sampled_from([None, "7B", "1B", "70B", "1.5", "2", "7b", "nan", "inf", "0x1p4M"])
WEIGHTS = st.sampled_from([None, 0, 1, 2, -1, 3])


@st.composite
def entries(draw):
    return entry(
        format_name=draw(st.sampled_from(["safetensors", "onnx", None])),
        format_version=draw(VERSIONS),
        operator=draw(st.sampled_from([None, "Equal", "GreaterThan", "GreaterThanOrEqual", "X"])),
        weight=draw(WEIGHTS),
        framework=draw(st.sampled_from(["transformers", "vllm", None])),
        framework_version=draw(VERSIONS),
        framework_weight=draw(WEIGHTS),
        architecture=draw(st.sampled_from(["LlamaForCausalLM", None, "Other"])),
        auto_select=draw(st.sampled_from([True, False, None])),
        priority=draw(st.sampled_from([None, 1, 2, 3])),
    )


@st.composite
def runtimes(draw, name):
    size_range = draw(
        st.sampled_from(
            [None, {}, {"min": "1B"}, {"max": "8B"}, {"min": "1B", "max": "8B"}, {"min": "2"}]
        )
    )
    kwargs = {"disabled": draw(st.sampled_from([None, False, True]))}
    if draw(st.booleans()):
        kwargs["acceleratorRequirements"] = {"acceleratorClasses": ["a100"]}
    items = draw(st.lists(entries(), min_size=0, max_size=3))
    doc = (
        serving_runtime(name, namespace=draw(st.sampled_from([None, "demo", "other"])), **kwargs)
        if draw(st.booleans())
        else runtime_doc(name, **kwargs)
    )
    doc["spec"]["supportedModelFormats"] = items
    if size_range is not None:
        doc["spec"]["modelSizeRange"] = size_range
    return doc


@st.composite
def requests(draw):
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=0, max_size=7, unique=True))
    docs = [draw(runtimes(name)) for name in names]
    model = model_doc(
        format_version=draw(VERSIONS),
        framework=draw(st.sampled_from(["transformers", None])),
        framework_version=draw(VERSIONS),
        size=draw(SIZES),
    )
    body = rank_body(model, *docs)
    if draw(st.booleans()):
        annotations = {"ome.io/accelerator-class": "a100"} if draw(st.booleans()) else None
        body["inferenceService"] = isvc_doc(annotations=annotations)
    body["omeVersion"] = draw(st.sampled_from(["1.3", "1.2"]))
    return body


def _rank(body):
    return rank_runtimes(load_rank_request(body, {}))


def _summary(ranking):
    return (
        [(r.name, r.scope, r.compatible, r.score, r.weight, r.reason) for r in ranking.rows],
        ranking.selected,
        ranking.message,
        ranking.warnings,
        [(i.name, i.reason) for i in ranking.ignored],
    )


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(requests(), st.randoms(use_true_random=False))
def test_runtime_order_in_the_request_never_matters(body, random):
    shuffled = copy.deepcopy(body)
    random.shuffle(shuffled["runtimes"])
    assert _summary(_rank(body)) == _summary(_rank(shuffled))


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(requests())
def test_rows_are_consistent(body):
    ranking = _rank(body)
    seen_no = False
    previous = None
    for row in ranking.rows:
        if row.compatible:
            assert not seen_no, "a Yes row after a No row"
            assert row.reason is None and row.score > 0 and row.priority >= 1
            if previous is not None and previous.scope == row.scope:
                assert previous.score >= row.score
            if previous is not None:
                assert not (previous.scope == "Cluster" and row.scope == "Namespaced")
            previous = row
        else:
            seen_no = True
            assert row.reason and row.score is None and row.weight is None
    first = ranking.rows[0] if ranking.rows else None
    if first is not None and first.compatible:
        assert (ranking.selected.name, ranking.selected.scope) == (first.name, first.scope)
    else:
        assert ranking.selected is None
        assert ranking.message.startswith("no runtime found to support model")


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(requests())
def test_weight_zero_scores_like_ten_and_five(body):
    zeroed = copy.deepcopy(body)
    tens = copy.deepcopy(body)
    for z_doc, t_doc in zip(zeroed["runtimes"], tens["runtimes"], strict=True):
        for z_entry, t_entry in zip(
            z_doc["spec"]["supportedModelFormats"],
            t_doc["spec"]["supportedModelFormats"],
            strict=True,
        ):
            for key, ten in (("modelFormat", 10), ("modelFramework", 5)):
                if key in z_entry:
                    z_entry[key]["weight"] = 0
                    t_entry[key]["weight"] = ten
    zero_rows = [(r.name, r.scope, r.compatible, r.score) for r in _rank(zeroed).rows]
    ten_rows = [(r.name, r.scope, r.compatible, r.score) for r in _rank(tens).rows]
    assert zero_rows == ten_rows


@settings(max_examples=2 * settings.default.max_examples, deadline=None)
@given(requests())
def test_autoselect_false_everywhere_selects_nothing(body):
    for doc in body["runtimes"]:
        for item in doc["spec"]["supportedModelFormats"]:
            item["autoSelect"] = False
    ranking = _rank(body)
    assert ranking.selected is None
    assert not any(row.compatible for row in ranking.rows)
