"""The four policies of rules §20.3.3: picks, double scores in OME's order, tie rules, and why
every other class lost (§20.8)."""

import pytest

from app.selection.placement import policies
from app.selection.placement.policies import NO_USABLE_COST, TIE_UNKNOWN
from app.selection.values import AcceleratorClass, Constraints
from tests.selection.placement.builders import H100, H200, choose, class_doc, h100, h200, losses

PAGE = [h100(), h200()]


def gpu(name: str, **fields) -> dict:
    return class_doc(name, **fields)


# --- the page's classes (rules §20.9) ---------------------------------------------------------


def test_best_fit_with_min_memory_prefers_the_exact_fit():
    engine = choose("BestFit", PAGE, Constraints(min_memory=80))
    assert (engine.accelerator_class, engine.score) == (H100, 1.0)
    assert losses(engine) == {H200: "score 0.6971631205673758 < 1.0"}
    assert 0.7 * (1.0 / ((141 * 2**30) / 2**30 / 80.0)) + 0.3 * 1.0 == 0.6971631205673758


def test_cheapest_compares_per_hour():
    engine = choose("Cheapest", PAGE)
    assert (engine.accelerator_class, engine.score) == (H100, None)
    assert losses(engine) == {H200: "perHour 12 > perHour 10"}


def test_most_capable_prefers_memory_and_bandwidth():
    engine = choose("MostCapable", PAGE)
    assert (engine.accelerator_class, engine.score) == (H200, 1.0)
    assert losses(engine) == {H100: "score 0.6930629432624114 < 1.0"}
    assert 0.5 * (80.0 / 141.0) + 0.3 * (3350.0 / 4800.0) + 0.2 * 1.0 == 0.6930629432624114


def test_first_available_takes_list_order():
    engine = choose("FirstAvailable", PAGE[::-1])
    assert engine.accelerator_class == H200
    assert losses(engine) == {H100: "listed after nvidia-h200"}


def test_best_fit_without_constraints_is_omes_failure_with_the_fixed_pick():
    engine = choose("BestFit", PAGE)
    assert engine.accelerator_class is None and engine.reason is None and engine.score is None
    assert engine.error is not None
    assert (engine.error.code, engine.error.message, engine.error.if_fixed) == (
        "BestFitWithoutConstraints",
        "invalid memory address or nil pointer dereference",
        H100,  # both score 1.0 in the fixed code: the first listed wins
    )
    assert losses(engine) == {H100: None, H200: None}


def test_best_fit_with_empty_constraints_is_scored():
    engine = choose("BestFit", PAGE, Constraints())
    assert (engine.accelerator_class, engine.score, engine.error) == (H100, 1.0, None)
    assert losses(engine) == {H200: "score 1.0 = 1.0, listed after nvidia-h100"}


# --- one class ---------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["BestFit", "Cheapest", "MostCapable", "FirstAvailable"])
def test_one_class_left_is_the_pick_unscored(policy):
    bare = gpu("bare")  # no memory, no performance, no cost
    engine = choose(policy, [bare, h100()], Constraints(excluded_classes=(H100,)))
    assert (engine.accelerator_class, engine.score, engine.error) == ("bare", None, None)
    assert losses(engine) == {H100: "explicitly excluded"}
    # Without constraints too: OME returns the only class before BestFit scores anything.
    assert choose(policy, [bare]).accelerator_class == "bare"


# --- BestFit -----------------------------------------------------------------------------------


def best_fit_score(doc: dict, constraints: Constraints) -> float:
    return policies.best_fit_score(AcceleratorClass.from_mapping(doc), constraints)


@pytest.mark.parametrize(
    ("fields", "constraints", "score"),
    [
        # over-provisioned memory: 1 / (g / r)
        ({"memory": "160Gi"}, Constraints(min_memory=80), 0.7 * 0.5),
        # 1 / (g / r), not r / g (0.0245): OME's order of operations, to the last bit
        ({"memory": "200Gi"}, Constraints(min_memory=7), 0.024499999999999997),
        ({"memory": "40Gi"}, Constraints(min_memory=80), 0.0),  # filtered first, but scores 0
        ({"performance": {"fp16Tflops": 1}}, Constraints(min_memory=80), 0.3),  # no memoryGB
        ({"memory": "80Gi", "performance": {"fp32Tflops": 10}}, Constraints(), 0.7 + 0.3),
        # minMemory 0: more memory divides by zero in Go, +Inf, so 1 / Inf = 0
        ({"memory": "1Gi"}, Constraints(min_memory=0), 0.0),
        ({"memory": "0"}, Constraints(min_memory=0), 0.7),
        ({"memory": "100"}, Constraints(min_memory=0), 0.0),
        # compute below the requirement is proportional
        (
            {"performance": {"fp16Tflops": 989}},
            Constraints(min_compute_tflops=2000),
            0.7 * 1.0 + 0.3 * (989 / 2000),
        ),
        # the largest of the four without preferredPrecisions
        ({"performance": {"int4Tops": 5, "fp32Tflops": 7}}, Constraints(), 0.7 + 0.3),
        ({"performance": {"int4Tops": -5}}, Constraints(), 0.7),
        ({"performance": {}}, Constraints(), 0.7),
        # each later precision is worth half
        (
            {"performance": {"fp16Tflops": 1}},
            Constraints(preferred_precisions=("int4", "fp16")),
            0.7 + 0.3 * 0.5,
        ),
        (
            {"performance": {"int8Tops": 100}},
            Constraints(preferred_precisions=("fp32", "FP8")),  # fp8 reads int8Tops
            0.7 + 0.3 * 0.5,
        ),
        # fp16 is the last resort when the list does not name it: penalty 0.5^n
        (
            {"performance": {"fp16Tflops": 1}},
            Constraints(preferred_precisions=("int4", "int8")),
            0.7 + 0.3 * 0.25,
        ),
        # but not when it does
        (
            {"performance": {"int8Tops": 1}},
            Constraints(preferred_precisions=("int4", "Fp16")),
            0.7,
        ),
        ({"performance": {"fp16Tflops": 1}}, Constraints(preferred_precisions=("bf16",)), 0.85),
    ],
)
def test_best_fit_score(fields, constraints, score):
    assert best_fit_score(gpu("a", **fields), constraints) == score


def test_best_fit_ties_go_to_the_first_listed_up_to_12_classes():
    docs = [gpu(f"g{index:02}", memory="80Gi") for index in range(12)]
    engine = choose("BestFit", docs, Constraints(min_memory=80))
    assert (engine.accelerator_class, engine.known, engine.score) == ("g00", True, 0.7)
    assert losses(engine)["g11"] == "score 0.7 = 0.7, listed after g00"


def test_a_tie_among_more_than_12_classes_is_unknown():
    docs = [gpu(f"g{index:02}", memory="80Gi") for index in range(13)]
    docs.append(gpu("small", memory="200Gi"))
    engine = choose("BestFit", docs, Constraints(min_memory=80))
    assert (engine.accelerator_class, engine.known, engine.score) == (None, False, None)
    assert engine.reason == TIE_UNKNOWN
    assert losses(engine)["g00"] is None
    assert losses(engine)["small"] == "score 0.27999999999999997 < 0.7"


def test_a_unique_top_among_more_than_12_classes_is_known():
    docs = [gpu(f"g{index:02}", memory="160Gi") for index in range(13)]
    docs.append(gpu("fit", memory="80Gi"))
    engine = choose("BestFit", docs, Constraints(min_memory=80))
    assert (engine.accelerator_class, engine.known, engine.score) == ("fit", True, 0.7)


def test_the_fixed_pick_is_none_when_its_tie_is_unknown():
    docs = [gpu(f"g{index:02}") for index in range(13)]
    engine = choose("BestFit", docs)
    assert engine.error is not None and engine.error.if_fixed is None


# --- MostCapable -------------------------------------------------------------------------------


def test_most_capable_reads_the_first_preferred_precision_then_later_ones():
    fast_int4 = gpu("int4", performance={"int4Tops": 100})
    fast_fp16 = gpu("fp16", performance={"fp16Tflops": 50, "int8Tops": 10})
    engine = choose(
        "MostCapable", [fast_fp16, fast_int4], Constraints(preferred_precisions=("int4",))
    )
    assert engine.accelerator_class == "int4"
    assert losses(engine) == {"fp16": "score 0.0 < 0.2"}
    # A 0 for the first item falls back to the next item that has TFLOPS...
    engine = choose(
        "MostCapable", [fast_int4, fast_fp16], Constraints(preferred_precisions=("int4", "int8"))
    )
    assert losses(engine) == {"fp16": "score 0.020000000000000004 < 0.2"}
    # ...but never to fp16 once items are given.
    engine = choose(
        "MostCapable", [fast_int4, fast_fp16], Constraints(preferred_precisions=("int4", "fp32"))
    )
    assert losses(engine) == {"fp16": "score 0.0 < 0.2"}


def test_most_capable_without_precisions_reads_fp16():
    engine = choose("MostCapable", [gpu("a", performance={"int8Tops": 9}), gpu("b", bandwidth=1)])
    assert engine.accelerator_class == "b"
    assert losses(engine) == {"a": "score 0.0 < 0.3"}


def test_most_capable_bandwidth_is_an_integer_value():
    engine = choose("MostCapable", [gpu("a", bandwidth="1500m"), gpu("b", bandwidth=2)])
    assert losses(engine) == {"b": "score 0.3 = 0.3, listed after a"}


# --- Cheapest ----------------------------------------------------------------------------------


def test_cheapest_reads_spot_before_per_hour_and_leaves_out_classes_without_cost():
    docs = [
        gpu("free"),
        gpu("hourly", cost={"perHour": "2"}),
        gpu("spot", cost={"spotPerHour": "3", "perHour": "1"}),
        gpu("tokens", cost={"perMillionTokens": "0.1"}),
    ]
    engine = choose("Cheapest", docs)
    assert engine.accelerator_class == "hourly"
    assert losses(engine) == {
        "free": "no cost",
        "spot": "spotPerHour 3 > perHour 2",
        "tokens": "no spotPerHour or perHour while others have one",
    }


def test_cheapest_compares_exact_values_and_keeps_the_first_of_equals():
    docs = [gpu("a", cost={"perHour": "1"}), gpu("b", cost={"spotPerHour": "1000m"})]
    engine = choose("Cheapest", docs)
    assert engine.accelerator_class == "a"
    assert losses(engine) == {"b": "spotPerHour 1000m = perHour 1, listed after a"}
    docs = [gpu("a", cost={"perHour": "1.000000001"}), gpu("b", cost={"perHour": "1"})]
    assert choose("Cheapest", docs).accelerator_class == "b"


def test_cheapest_falls_back_to_tokens_then_tier():
    docs = [gpu("a", cost={"tier": "low"}), gpu("b", cost={"perMillionTokens": "5"})]
    engine = choose("Cheapest", docs)
    assert engine.accelerator_class == "b"
    assert losses(engine) == {"a": "no perMillionTokens while others have one"}
    docs = [
        gpu("a", cost={"tier": "High"}),
        gpu("b", cost={"tier": "premium"}),  # any other value counts as medium
        gpu("c", cost={"tier": "MEDIUM"}),
        gpu("d", cost={}),
    ]
    engine = choose("Cheapest", docs)
    assert engine.accelerator_class == "b"
    assert losses(engine) == {
        "a": "tier High > tier premium",
        "c": "tier MEDIUM = tier premium, listed after b",
        "d": "no tier while others have one",
    }


def test_cheapest_without_a_usable_cost_picks_nothing():
    engine = choose("Cheapest", [gpu("a", cost={}), gpu("b")])
    assert (engine.accelerator_class, engine.reason, engine.error) == (None, NO_USABLE_COST, None)
    assert losses(engine) == {"a": None, "b": "no cost"}
