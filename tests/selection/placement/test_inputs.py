"""The placement's inputs read from a validated request (app/selection/placement/inputs.py,
rules §20.8): each runtime's entry names and ``acceleratorConfig``, the InferenceService's
accelerator fields (a stored document without them has its components only), whether the
classes are known, and the placement made on the ranking's selection."""

from __future__ import annotations

import pytest

from app.schemas.requests import load_rank_request
from app.selection.placement.inputs import (
    accelerator_request,
    placement_of,
    request_classes_known,
    runtime_extras,
)
from app.selection.placement.placed import Placement, PlacementEntry
from app.selection.placement.selected import read_selected_runtime
from app.selection.ranking import rank_runtimes
from app.selection.values import AcceleratorRequest, ComponentRequest, InferenceService
from app.selection.values.documents import NAMESPACED
from tests.builders import entry, loaded, model_doc, rank_body, runtime_doc, serving_runtime
from tests.selection.placement.builders import H100, body_of, h100, h200, page_isvc


def test_runtime_extras_read_each_entrys_name_and_config_in_order():
    runtime = loaded(
        runtime_doc(
            "rt",
            entry(name="main", acceleratorConfig={H100: {"tp": 2}}),
            entry(name=""),  # an empty name reads as absent
            entry(),
        )
    )
    extras = runtime_extras(runtime)
    assert extras.entry_names == ("main", None, None)
    assert extras.accelerator_configs == ({H100: {"tp": 2}}, None, None)


def test_an_inference_services_accelerator_fields_are_read_as_loaded():
    isvc = loaded(page_isvc(acceleratorSelector={"policy": "Cheapest"}))
    assert accelerator_request(isvc) is isvc.accelerators


@pytest.mark.parametrize(
    ("has_engine", "has_decoder", "expected"),
    [
        (True, False, AcceleratorRequest(engine=ComponentRequest())),
        (True, True, AcceleratorRequest(engine=ComponentRequest(), decoder=ComponentRequest())),
        (False, False, AcceleratorRequest()),
    ],
)
def test_a_document_stored_before_the_fields_were_read_has_its_components_only(
    has_engine, has_decoder, expected
):
    stored = InferenceService(
        name="svc", namespace="demo", has_engine=has_engine, has_decoder=has_decoder
    )
    assert accelerator_request(stored) == expected


def request_of(body):
    return load_rank_request(body, {})


@pytest.mark.parametrize(
    ("extra", "known"),
    [
        ({}, False),  # no class held
        ({"acceleratorClasses": [h100()]}, True),
        ({"acceleratorClasses": [h100()], "acceleratorClassesKnown": False}, False),
        ({"acceleratorClassesKnown": True}, True),
    ],
)
def test_the_classes_are_known_when_the_request_says_so_or_holds_one(extra, known):
    assert request_classes_known(request_of(body_of(page_isvc(), **extra))) is known


def test_the_placement_is_made_on_the_rankings_selection():
    request = request_of(body_of(page_isvc(), acceleratorClasses=[h100(), h200()]))
    placement = placement_of(request, rank_runtimes(request))
    assert isinstance(placement, Placement)
    assert placement.entry == PlacementEntry(index=0, name=None, score=2)
    assert placement.engine is not None and placement.decoder is None
    assert placement.engine.known


def test_no_inference_service_places_nothing():
    request = request_of(body_of(None))
    assert placement_of(request, rank_runtimes(request)) is None


def test_the_runtime_read_is_the_selected_candidate_the_request_leaves():
    # Namesakes: a cluster one, a copy in another namespace, and two copies in the target
    # namespace, of which the later is the one a kubectl apply leaves (rules §2).
    request = load_rank_request(
        rank_body(
            model_doc(),
            runtime_doc("rt", entry()),
            serving_runtime("rt", entry(), namespace="other"),
            serving_runtime("rt", entry(architecture="Other")),
            serving_runtime("rt", entry()),
            runtime_doc("else", entry()),
        ),
        {},
    )
    ranking = rank_runtimes(request)
    assert ranking.selected is not None and ranking.selected.scope == NAMESPACED
    read = read_selected_runtime(request, ranking)
    assert read is not None and not read.named
    assert read.runtime is read.holder is request.runtimes[3]
