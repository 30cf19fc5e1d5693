"""``rank`` and ``select`` on placement (rules §20.8): the class each component gets and why,
after the table, and ``--expect-class``, which exits 4 unless the pinned class is certain."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.cli.support import ACCELERATORS, SEED, invoke, write_yaml

WORKED = list(yaml.safe_load_all(ACCELERATORS.read_text()))
SELECTED = (
    "RUNTIME                      SCOPE     SCORE   EXPLICIT   MESSAGE",
    "srt-llama-3-3-70b-instruct   Cluster   2       Yes        Runtime srt-llama-3-3-70b-instruct "
    "is named explicitly for model llama-3-3-70b-instruct",
    "",
)
BEST_FIT = (
    "engine: nvidia-h100 (from spec.acceleratorSelector.policy: BestFit; score 1.0)",
    "  nvidia-h200: score 0.6971631205673758 < 1.0",
)
NOT_FOUND = (
    "Failed to get accelerator class for engine: accelerator class nvidia-a100 not found at "
    "cluster scope"
)
UNKNOWN = "unknown: the request holds no AcceleratorClass objects"


def worked(tmp_path, *, classes: bool = True, **spec) -> str:
    """The worked example with the InferenceService's spec changed (a None value removes a
    field), with or without its AcceleratorClass objects."""
    documents = copy.deepcopy(WORKED)
    if not classes:
        documents = [doc for doc in documents if doc["kind"] != "AcceleratorClass"]
    service = documents[-1]["spec"]
    for field, value in spec.items():
        if value is None:
            service.pop(field)
        else:
            service[field] = value
    return str(write_yaml(tmp_path / "worked.yaml", *documents))


def test_select_prints_the_class_of_the_engine_and_why_the_other_lost():
    result = invoke("select", "-f", str(ACCELERATORS))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [*SELECTED, *BEST_FIT]
    assert result.stderr == ""


def test_rank_prints_it_after_the_table():
    result = invoke("rank", "-f", str(ACCELERATORS))
    assert result.exit_code == 0, result.stderr
    table, summary, placement = result.stdout.split("\n\n")
    assert table.startswith("RUNTIME ")
    assert summary.startswith("1 runtime excluded: autoSelect")  # named, so still selected
    assert placement.splitlines() == list(BEST_FIT)


def test_no_component_no_lines():
    """The seed example has no InferenceService: no engine, nothing to say of classes."""
    result = invoke("select", "-f", str(SEED), "-o", "json")
    placement = json.loads(result.stdout)["placement"]
    assert placement["engine"] is None and placement["decoder"] is None
    assert len(invoke("select", "-f", str(SEED)).stdout.splitlines()) == 2


def test_a_named_class_that_does_not_exist_prints_the_error_and_the_event(tmp_path):
    path = worked(tmp_path, acceleratorSelector={"acceleratorClass": "nvidia-a100"})
    result = invoke("select", "-f", path)
    assert result.exit_code == 0  # a runtime is selected: a failing class changes no status
    assert result.stdout.splitlines()[len(SELECTED) :] == [
        "engine: none (from spec.acceleratorSelector.acceleratorClass; "
        f"error AcceleratorClassNotFound: {NOT_FOUND})",
        f"event: Warning AcceleratorClassError: {NOT_FOUND}",
    ]
    pinned = invoke("select", "-f", path, "--expect-class", "nvidia-a100")
    assert pinned.exit_code == 4
    assert pinned.stderr.endswith(
        "error: OME gives the engine no class, not nvidia-a100: "
        f"AcceleratorClassNotFound: {NOT_FOUND}\n"
    )


def test_best_fit_without_constraints_names_the_class_of_omes_fix(tmp_path):
    path = worked(tmp_path, acceleratorSelector={"policy": "BestFit"})
    result = invoke("select", "-f", path)
    assert result.stdout.splitlines()[len(SELECTED) :] == [
        "engine: none (from spec.acceleratorSelector.policy: BestFit; error "
        "BestFitWithoutConstraints: invalid memory address or nil pointer dereference; "
        "OME with the fix picks nvidia-h100)",
    ]
    assert invoke("select", "-f", path, "--expect-class", "nvidia-h100").exit_code == 4


def test_cheapest_is_unscored_and_a_runtime_without_classes_says_so(tmp_path):
    path = worked(tmp_path, acceleratorSelector={"policy": "Cheapest"})
    assert invoke("select", "-f", path).stdout.splitlines()[len(SELECTED) :] == [
        "engine: nvidia-h100 (from spec.acceleratorSelector.policy: Cheapest)",
        "  nvidia-h200: perHour 12 > perHour 10",
    ]
    documents = copy.deepcopy(WORKED)
    del documents[1]["spec"]["acceleratorRequirements"]
    bare = write_yaml(tmp_path / "bare.yaml", *documents)
    assert invoke("select", "-f", str(bare)).stdout.splitlines()[-1] == (
        "engine: none (the runtime lists no accelerator classes)"
    )


def test_unknown_classes_never_pass_the_pin(tmp_path):
    policy = worked(tmp_path, classes=False)
    result = invoke("select", "-f", policy, "--expect-class", "nvidia-h100")
    # The classes lost to nothing: no line says why.
    assert result.stdout.splitlines()[len(SELECTED) :] == [
        f"engine: unknown (from spec.acceleratorSelector.policy: BestFit; {UNKNOWN})"
    ]
    assert result.exit_code == 4
    assert (
        result.stderr
        == f"error: whether OME gives the engine nvidia-h100 is not known ({UNKNOWN})\n"
    )

    name = worked(tmp_path, classes=False, acceleratorSelector={"acceleratorClass": "nvidia-h100"})
    result = invoke("select", "-f", name, "--expect-class", "nvidia-h100")
    assert result.stdout.splitlines()[-1] == (
        "engine: nvidia-h100, unverified "
        f"(from spec.acceleratorSelector.acceleratorClass; {UNKNOWN})"
    )
    assert result.exit_code == 4
    assert "whether OME gives the engine nvidia-h100 is not known" in result.stderr
    other = invoke("select", "-f", name, "--expect-class", "nvidia-h200")
    assert other.stderr == "error: OME gives the engine nvidia-h100, not nvidia-h200\n"


def test_expect_class_pins_the_engine_and_the_decoder(tmp_path):
    assert invoke("select", "-f", str(ACCELERATORS), "--expect-class", "nvidia-h100").exit_code == 0
    assert (
        invoke("select", "-f", str(ACCELERATORS), "--expect-class", "engine=nvidia-h100").exit_code
        == 0
    )
    other = invoke("select", "-f", str(ACCELERATORS), "--expect-class", "nvidia-h200")
    assert other.exit_code == 4
    assert other.stderr == "error: OME gives the engine nvidia-h100, not nvidia-h200\n"
    assert other.stdout.splitlines() == [*SELECTED, *BEST_FIT]  # printed all the same

    path = worked(tmp_path, decoder={"acceleratorOverride": {"acceleratorClass": "nvidia-h200"}})
    result = invoke(
        "select",
        "-f",
        path,
        "--expect-class",
        "nvidia-h100",
        "--expect-class",
        "decoder=nvidia-h200",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "decoder: nvidia-h200 (from spec.decoder.acceleratorOverride.acceleratorClass)"
    )
    both = invoke(
        "select",
        "-f",
        path,
        "--expect-class",
        "nvidia-h200",
        "--expect-class",
        "decoder=nvidia-h100",
    )
    assert both.exit_code == 4
    assert both.stderr == (
        "error: OME gives the engine nvidia-h100, not nvidia-h200\n"
        "OME gives the decoder nvidia-h200, not nvidia-h100\n"
    )
    missing = invoke("select", "-f", str(ACCELERATORS), "--expect-class", "decoder=nvidia-h100")
    assert missing.exit_code == 4
    assert missing.stderr == (
        "error: there is no decoder to get nvidia-h100: "
        "no InferenceService in the question sets spec.decoder\n"
    )


def test_the_runtime_is_checked_before_the_class():
    result = invoke(
        "select", "-f", str(ACCELERATORS), "--expect", "vllm", "--expect-class", "nvidia-h200"
    )
    assert result.exit_code == 1
    assert result.stderr == "error: OME selects srt-llama-3-3-70b-instruct, not vllm\n"
    seed = invoke("select", "-f", str(SEED), "--expect-class", "nvidia-h100")
    assert seed.exit_code == 4
    assert seed.stderr.startswith("error: there is no engine to get nvidia-h100")


def test_json_output_is_the_answer_and_the_pin_still_holds():
    result = invoke("select", "-f", str(ACCELERATORS), "-o", "json", "--expect-class", "x")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["placement"]["engine"]["acceleratorClass"] == "nvidia-h100"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("gpu=nvidia-h100", "'gpu=nvidia-h100': give CLASS, engine=CLASS or decoder=CLASS"),
        ("decoder=", "'decoder=': give CLASS, engine=CLASS or decoder=CLASS"),
        ("", "'': give CLASS, engine=CLASS or decoder=CLASS"),
    ],
)
def test_a_bad_pin_is_a_usage_error(value, message):
    result = invoke("select", "-f", str(ACCELERATORS), "--expect-class", value)
    assert result.exit_code == 2
    assert f"Invalid value for '--expect-class': {message}" in result.stderr


def test_two_classes_for_one_component_are_a_usage_error():
    result = invoke(
        "select", "-f", str(ACCELERATORS), "--expect-class", "a", "--expect-class", "engine=b"
    )
    assert result.exit_code == 2
    assert "two classes for the engine: a, b" in result.stderr
