"""A catalog's InferenceServices counted by outcome (app/selection/outcome_counts.py, rules §21):
the split of every InferenceService into selected, explicit and noRuntime, and the counts that
overlap it (refused, classUnknown, classError), each from the rules that decide it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from app.reading.object_streams import read_objects
from app.selection.outcome_counts import (
    OUTCOMES,
    OutcomeCounts,
    outcome_counts,
    planned_work,
    refused_services,
    row_outcome,
)
from app.selection.questions import selections
from app.selection.values import CatalogView
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.selection.placement.builders import H100, class_doc, h100

ENGINE = {"engine": {"runner": {"image": "vllm"}}}  # a complete runner: no runtime needed


def counted(*manifests: dict, known: bool | None = None) -> tuple[OutcomeCounts, CatalogView]:
    stream = read_objects(json.dumps(list(manifests)).encode(), "application/json")
    assert not stream.problems, stream.problems
    view = replace(CatalogView.of(stream.documents()), classes_known=known)
    manifests_by_key = {item.key: item.manifest for item in stream.objects}
    return outcome_counts(view, frozenset(stream.full_runners), manifests_by_key), view


A100 = "nvidia-a100"  # listed, never stored
CLUSTER = (
    model_doc("llama"),
    runtime_doc("rt", entry(), acceleratorRequirements={"acceleratorClasses": [H100, A100]}),
    runtime_doc("off", entry(auto_select=False), disabled=True),
    isvc_doc("auto", model={"name": "llama"}, engine={}),
    isvc_doc("pinned", model={"name": "llama"}, runtime={"name": "rt"}, **ENGINE),
    isvc_doc("ghost", model={"name": "ghost"}, **ENGINE),
    isvc_doc("nameless", **ENGINE),
    isvc_doc("on-off", model={"name": "llama"}, runtime={"name": "off"}, engine={}),
    # a decoder without an engine: the webhook refuses it, selection still gives a runtime
    isvc_doc("lonely-decoder", model={"name": "llama"}, decoder={}),
)


def test_every_inference_service_has_one_of_three_outcomes_and_may_be_refused():
    counts, view = counted(*CLUSTER)
    assert counts == OutcomeCounts(
        total=6,
        selected=2,  # auto, lonely-decoder
        explicit=1,  # pinned
        no_runtime=3,  # ghost, nameless, on-off
        refused=4,  # ghost, nameless, on-off, lonely-decoder
        class_unknown=0,
        class_error=0,
    )
    assert counts.selected + counts.explicit + counts.no_runtime == counts.total
    outcomes = {row.name: row_outcome(row) for row in selections(view)}
    assert outcomes == {
        "auto": "selected",
        "lonely-decoder": "selected",
        "pinned": "explicit",
        "ghost": "noRuntime",
        "nameless": "noRuntime",
        "on-off": "noRuntime",
    }


def test_refused_is_what_lint_refuses_of_each_inference_service():
    stream = read_objects(json.dumps(list(CLUSTER)).encode(), "application/json")
    view = CatalogView.of(stream.documents())
    manifests = {item.key: item.manifest for item in stream.objects}
    refused = refused_services(view, frozenset(stream.full_runners), manifests)
    assert refused == {
        ("demo", "ghost"),
        ("demo", "nameless"),
        ("demo", "on-off"),
        ("demo", "lonely-decoder"),
    }
    # Without a complete runner, auto-selection that finds nothing is refused too.
    bare = isvc_doc("bare", model={"name": "llama"}, engine={})
    counts, _ = counted(model_doc("llama"), bare)
    assert (counts.no_runtime, counts.refused) == (1, 1)
    counts, _ = counted(model_doc("llama"), isvc_doc("bare", model={"name": "llama"}, **ENGINE))
    assert (counts.no_runtime, counts.refused) == (1, 0)


@pytest.mark.parametrize(
    ("selector", "known", "unknown", "error"),
    [
        ({"acceleratorClass": H100}, None, 0, 0),  # the class exists
        ({"acceleratorClass": A100}, None, 0, 1),  # AcceleratorClassNotFound
        ({"policy": "BestFit"}, None, 0, 0),  # one class exists: no BestFit failure
        ({"policy": "FirstAvailable"}, False, 1, 0),  # classes said unknown
        ({"acceleratorClass": A100}, False, 1, 0),  # a name, unverified
        ({"policy": "BestFit"}, False, 1, 0),
    ],
)
def test_class_counts_are_the_placements_known_and_error(selector, known, unknown, error):
    counts, _ = counted(
        *CLUSTER[:2],
        h100(),
        isvc_doc("placed", model={"name": "llama"}, engine={}, acceleratorSelector=selector),
        known=known,
    )
    assert (counts.total, counts.selected) == (1, 1)
    assert (counts.class_unknown, counts.class_error) == (unknown, error)


def test_a_service_without_a_runtime_has_no_class_to_count():
    selector = {"acceleratorClass": "nvidia-b200"}  # no runtime lists it (rules §10)
    counts, _ = counted(
        *CLUSTER[:2],
        class_doc("other"),
        isvc_doc("placed", model={"name": "llama"}, acceleratorSelector=selector, **ENGINE),
    )
    assert (counts.no_runtime, counts.class_unknown, counts.class_error) == (1, 0, 0)


@pytest.mark.parametrize("decoder", [A100, H100])
def test_a_service_counts_once_however_many_components_fail(decoder):
    counts, _ = counted(
        *CLUSTER[:2],
        h100(),
        isvc_doc(
            "both",
            model={"name": "llama"},
            engine={"acceleratorOverride": {"acceleratorClass": A100}},
            decoder={"acceleratorOverride": {"acceleratorClass": decoder}},
        ),
    )
    assert (counts.selected, counts.class_unknown, counts.class_error) == (1, 0, 1)


def test_the_counts_by_name_in_the_rules_order():
    counts = OutcomeCounts(9, 1, 2, 3, 4, 5, 6)
    assert list(counts.by_outcome().items()) == list(zip(OUTCOMES, range(1, 7), strict=True))


def test_planned_work_counts_selections_and_lint_over_every_runtime():
    _, view = counted(*CLUSTER)
    # Three questions of selections (auto and the decoder's, pinned's, on-off's), three of
    # lint, each over both runtimes, and four components' checks of rt's two classes.
    assert planned_work(view) == (3 + 3) * 2 + 4 * 2
    _, empty = counted(model_doc("llama"))
    assert planned_work(empty) == 0


def test_an_engine_unknown_and_a_decoder_failing_count_in_both():
    """rules §20.10 item 3: more than 12 classes tied for the top score are `unknown`; a named
    class that does not exist fails. One InferenceService, one of each."""
    tied = [class_doc(f"gpu-{i:02}", memory="80Gi") for i in range(13)]
    listed = [*(doc["metadata"]["name"] for doc in tied), "gpu-missing"]
    counts, view = counted(
        model_doc("llama"),
        runtime_doc("rt", entry(), acceleratorRequirements={"acceleratorClasses": listed}),
        *tied,
        isvc_doc(
            "both",
            model={"name": "llama"},
            acceleratorSelector={"constraints": {}},
            engine={"acceleratorOverride": {"policy": "BestFit"}},
            decoder={"acceleratorOverride": {"acceleratorClass": "gpu-missing"}},
        ),
    )
    (row,) = selections(view)
    assert row.placement is not None and row.placement.engine is not None
    assert row.placement.engine.known is False
    assert (counts.selected, counts.class_unknown, counts.class_error) == (1, 1, 1)
