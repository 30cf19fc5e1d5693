"""Two auto-select runtimes that compete for the same models (app/selection/admission/overlaps.py,
OME issues #30 and #594): one ``OverlappingAutoSelect`` info on each runtime the leader beats
without a priority to say so, naming the leader and why OME picks it (rules §4, §5, §18)."""

from __future__ import annotations

import pytest

from app.selection.admission import INFO, Finding
from app.selection.admission.overlaps import overlap_notes
from tests.builders import entry, loaded, runtime_doc, serving_runtime

CODE = "OverlappingAutoSelect"
SHARED = "both auto-select safetensors/transformers models at priority 1"


def runtime(name, *entries, namespace=None, **spec):
    if namespace is not None:
        return loaded(serving_runtime(name, *entries, namespace=namespace, **spec))
    return loaded(runtime_doc(name, *entries, **spec))


def note(rt, message, index=0):
    field = f"spec.supportedModelFormats[{index}]"
    return Finding(INFO, rt.kind, rt.namespace, rt.name, field, CODE, message)


def test_equal_runtimes_are_ordered_by_name():
    a, b = runtime("a", entry()), runtime("b", entry())
    assert overlap_notes([b, a]) == [
        note(
            b,
            f"a and this runtime {SHARED}; for a model both take, a is chosen by name order: "
            "equal score 2",
        )
    ]


def test_a_heavier_runtime_wins_by_weight_whatever_its_name():
    light, heavy = runtime("a", entry(weight=1)), runtime("z", entry(weight=5, framework_weight=3))
    assert overlap_notes([light, heavy]) == [
        note(
            light,
            f"z and this runtime {SHARED}; for a model both take, z is chosen by weight: "
            "score 8 > 2",
        )
    ]


def test_a_weight_of_zero_scores_as_ome_reads_it():
    """rules §4: a zero format weight counts 10, a zero framework weight 5."""
    zero, one = runtime("a", entry(weight=0, framework_weight=0)), runtime("b", entry())
    assert overlap_notes([zero, one]) == [
        note(
            one,
            f"a and this runtime {SHARED}; for a model both take, a is chosen by weight: "
            "score 15 > 2",
        )
    ]


def test_the_priority_multiplies_the_score_and_names_the_shared_priority():
    a = runtime("a", entry(priority=3, weight=2))
    b = runtime("b", entry(priority=3))
    assert overlap_notes([a, b]) == [
        note(
            b,
            "a and this runtime both auto-select safetensors/transformers models at priority "
            "3; for a model both take, a is chosen by weight: score 9 > 6",
        )
    ]


def test_overlapping_size_ranges_are_named_and_the_distance_decides():
    small = runtime("small", entry(), size_range={"min": "1B", "max": "8B"})
    large = runtime("large", entry(), size_range={"min": "4B"})
    assert overlap_notes([small, large]) == [
        note(
            small,
            f"large and this runtime {SHARED} (sizes [1B, 8B] and [4B, inf) overlap); "
            "equal score 2: a model with modelParameterSize goes to the runtime whose range "
            "bounds are nearer its size, one without to large by name order",
        )
    ]


def test_one_range_against_none_at_all():
    ranged = runtime("a", entry(), size_range={"max": "8B"})
    unranged = runtime("b", entry())
    assert overlap_notes([ranged, unranged]) == [
        note(
            unranged,
            f"a and this runtime {SHARED} (sizes (-inf, inf) and (-inf, 8B] overlap); "
            "equal score 2: a model with modelParameterSize goes to the runtime whose range "
            "bounds are nearer its size, one without to a by name order",
        )
    ]


def test_equal_ranges_leave_the_name_to_decide():
    sized = {"size_range": {"min": "1B", "max": "8B"}}
    a, b = runtime("a", entry(), **sized), runtime("b", entry(), **sized)
    assert overlap_notes([a, b]) == [
        note(
            b,
            f"a and this runtime {SHARED} (sizes [1B, 8B] and [1B, 8B] overlap); for a model "
            "both take, a is chosen by name order: equal score 2",
        )
    ]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"size_range": {"max": "7B"}}, {"size_range": {"min": "8B"}}),  # ranges apart
        ({}, {"disabled": True}),
        ({}, {"namespace": "demo"}),  # another scope
        ({"namespace": "demo"}, {"namespace": "other"}),
    ],
)
def test_runtimes_that_do_not_compete(first, second):
    a = runtime("a", entry(), **first)
    b = runtime("b", entry(), **second)
    assert overlap_notes([a, b]) == []


@pytest.mark.parametrize(
    "other",
    [
        entry(priority=2),
        entry(auto_select=False),
        entry(auto_select=None),
        entry(format_version="2.0.0"),
        entry(operator="GreaterThan"),
        entry(framework=None),
        entry(architecture="Qwen2ForCausalLM"),
        entry(quantization="fp8"),
        entry(format_name=None),  # no modelFormat: nothing to compete for
    ],
)
def test_entries_that_do_not_take_the_same_models_at_the_same_priority(other):
    assert overlap_notes([runtime("a", entry()), runtime("b", other)]) == []


def test_ranges_that_touch_overlap():
    a = runtime("a", entry(), size_range={"max": "8B"})
    b = runtime("b", entry(), size_range={"min": "8B"})
    assert [f.name for f in overlap_notes([a, b])] == ["b"]


def test_every_runtime_the_leader_beats_gets_one_note_naming_the_leader():
    runtimes = [runtime(name, entry()) for name in ("d", "b", "a", "c")]
    found = overlap_notes(runtimes)
    assert [(f.name, f.message.split(" ", 1)[0]) for f in found] == [
        ("d", "a"),
        ("b", "a"),
        ("c", "a"),
    ]


def test_a_runtime_beside_the_leader_but_not_overlapping_it_gets_nothing():
    """Each note is against the leader only: linear in the runtimes."""
    leader = runtime("a", entry(), size_range={"max": "8B"})
    far = runtime("b", entry(), size_range={"min": "70B"})
    wide = runtime("c", entry())
    assert [f.name for f in overlap_notes([leader, far, wide])] == ["c"]


def test_the_note_names_the_competing_entry_of_each_runtime_once():
    both = runtime("b", entry(priority=2), entry(), entry())  # the same entry twice
    assert overlap_notes([runtime("a", entry()), both]) == [
        note(
            both,
            f"a and this runtime {SHARED}; for a model both take, a is chosen by name "
            "order: equal score 2",
            index=1,
        )
    ]


def test_only_the_runtimes_wanted_get_notes():
    runtimes = [runtime(name, entry()) for name in ("a", "b", "c")]
    found = overlap_notes(runtimes, wanted=lambda rt: rt.name == "c")
    assert [f.name for f in found] == ["c"]
    assert overlap_notes(runtimes, wanted=lambda rt: rt.name == "a") == []  # the leader


def test_a_format_without_framework_is_labelled_by_its_format():
    a = runtime("a", entry(framework=None))
    b = runtime("b", entry(framework=None))
    [found] = overlap_notes([a, b])
    assert found.message.startswith("a and this runtime both auto-select safetensors models at")
