"""The constraint filter of rules §20.3.2, with OME's texts, in OME's order."""

import pytest

from app.selection.placement.filters import ConstraintFilter, constraint_failure
from app.selection.values import AcceleratorClass, Constraints
from tests.selection.placement.builders import class_doc, h100
from tests.work import cpu_seconds_under


def accelerator(**fields) -> AcceleratorClass:
    return AcceleratorClass.from_mapping(class_doc("gpu", **fields))


HOPPER = AcceleratorClass.from_mapping(h100())


def test_without_constraints_every_class_passes():
    assert constraint_failure(accelerator(), None) is None
    assert constraint_failure(accelerator(), Constraints()) is None


@pytest.mark.parametrize(
    ("constraints", "text"),
    [
        (Constraints(excluded_classes=("nvidia-h100",)), "explicitly excluded"),
        (
            Constraints(architecture_families=("ampere", "amd-hopper")),
            "architecture family hopper not in allowed list",
        ),
        (Constraints(min_memory=81), "memory 80GB < required 81GB"),
        (Constraints(max_memory=79), "memory 80GB > max allowed 79GB"),
        (Constraints(required_features=("fp8", "NVLink", "MIG")), "missing required feature: MIG"),
        (
            Constraints(min_architecture_version="9.1"),
            "compute capability 9.0 < required 9.1",
        ),
    ],
)
def test_each_check_with_omes_text(constraints, text):
    assert constraint_failure(HOPPER, constraints) == text


@pytest.mark.parametrize(
    "constraints",
    [
        Constraints(architecture_families=("hopper",)),
        Constraints(architecture_families=("HOPPER",)),
        Constraints(architecture_families=("NVIDIA-Hopper",)),
        Constraints(min_memory=80, max_memory=80),
        Constraints(required_features=("FP8", "nvlink")),
        Constraints(min_architecture_version="9.0"),
        Constraints(min_architecture_version="10.0"),  # text order: "10.0" < "9.0"
        Constraints(min_architecture_version=""),
        Constraints(min_compute_tflops=10**6, preferred_precisions=("int4",)),  # never exclude
    ],
)
def test_passing_constraints(constraints):
    assert constraint_failure(HOPPER, constraints) is None


def test_the_first_failing_check_gives_the_text():
    everything = Constraints(
        excluded_classes=("nvidia-h100",),
        architecture_families=("ampere",),
        min_memory=1000,
        required_features=("x",),
        min_architecture_version="99",
    )
    assert constraint_failure(HOPPER, everything) == "explicitly excluded"
    rest = Constraints(
        architecture_families=("ampere",),
        min_memory=1000,
        required_features=("x",),
        min_architecture_version="99",
    )
    assert constraint_failure(HOPPER, rest) == "architecture family hopper not in allowed list"
    rest = Constraints(min_memory=1000, required_features=("x",), min_architecture_version="99")
    assert constraint_failure(HOPPER, rest) == "memory 80GB < required 1000GB"
    rest = Constraints(required_features=("x",), min_architecture_version="99")
    assert constraint_failure(HOPPER, rest) == "missing required feature: x"


def test_an_item_with_a_hyphen_matches_vendor_and_family_only():
    # "nvidia-hopper" does not match the family alone; "hopper" does not match vendor-family.
    gpu = accelerator(vendor="NVIDIA", family="Hopper")
    assert constraint_failure(gpu, Constraints(architecture_families=("nvidia-hopper",))) is None
    lone = accelerator(family="Hopper")
    assert constraint_failure(lone, Constraints(architecture_families=("-hopper",))) is None
    assert (
        constraint_failure(lone, Constraints(architecture_families=("nvidia-hopper",)))
        == "architecture family hopper not in allowed list"
    )


def test_missing_fields():
    bare = accelerator()
    assert (
        constraint_failure(bare, Constraints(max_memory=10))
        == "missing memory specification for memory check"
    )
    assert (
        constraint_failure(bare, Constraints(min_architecture_version="8.0"))
        == "missing compute capability for architecture version check"
    )
    assert (
        constraint_failure(bare, Constraints(architecture_families=("x",)))
        == "architecture family  not in allowed list"
    )


def test_memory_is_read_in_whole_gib():
    assert constraint_failure(accelerator(memory="80G"), Constraints(min_memory=80)) == (
        "memory 74GB < required 80GB"
    )
    assert constraint_failure(accelerator(memory="80"), Constraints(min_memory=1)) == (
        "memory 0GB < required 1GB"
    )


def test_case_folds_ascii_letters_only():
    # rules §20.10 item 23: the Kelvin sign is not "k", a dotted capital I is not "i".
    kelvin = accelerator(family="\u212aepler", features=["\u0130nt8"])
    assert constraint_failure(kelvin, Constraints(architecture_families=("kepler",))) == (
        "architecture family \u212aepler not in allowed list"
    )
    assert constraint_failure(kelvin, Constraints(required_features=("int8",))) == (
        "missing required feature: int8"
    )


def test_compute_capability_compares_as_bytes():
    newer = accelerator(compute_capability="10.0")
    assert constraint_failure(newer, Constraints(min_architecture_version="9.0")) == (
        "compute capability 10.0 < required 9.0"
    )


@pytest.mark.scale
def test_long_constraint_lists_cost_each_class_its_own_fields():
    # 2 000 classes × 100 000 items would take minutes of CPU if each class scanned the lists.
    items = tuple(f"item-{i}" for i in range(100_000))
    judge = ConstraintFilter(
        Constraints(excluded_classes=items, architecture_families=items, required_features=items)
    )
    classes = [AcceleratorClass(f"c{i}", features=("fp8",)) for i in range(2_000)]
    with cpu_seconds_under(30):
        texts = {judge.failure(found) for found in classes}
    assert texts == {"architecture family  not in allowed list"}
