"""The ranking's placement panel (rules §20.8) in a real headless Chromium: the entry, and a row
per component with its class, where it came from, why every other class lost and what the pods
get, field for field as the API answers; errors and OME's event; answer strings as text."""

from __future__ import annotations

import copy

import yaml

from tests.web.catalog import ROOT, SEED_YAML
from tests.web.words import placement_rows

YAML = {"Content-Type": "application/yaml"}
WORKED_PATH = ROOT / "tests" / "fixtures" / "select_accelerators.yaml"  # rules §20.9
WORKED = list(yaml.safe_load_all(WORKED_PATH.read_text()))
NOT_FOUND = (
    "Failed to get accelerator class for engine: accelerator class nvidia-a100 not found at "
    "cluster scope"
)


def worked(**spec) -> str:
    """The worked example with fields of the InferenceService's spec replaced."""
    documents = copy.deepcopy(WORKED)
    documents[-1]["spec"].update(spec)
    return yaml.safe_dump_all(documents, sort_keys=False)


def rank_pasted(page, manifests: str) -> dict:
    """Paste, press Rank, wait for the answer; the API's own answer to the same manifests."""
    page.sign_in(None, "#/try")
    page.fill("#manifests", manifests)
    page.find("#do-rank").click()
    page.wait_for("#result-rank #placement")
    status, answer = page.api("POST", "/v1/rank", manifests.encode(), who=None, headers=YAML)
    assert status == 200
    return answer


def test_the_worked_example_best_fit_picks_the_h100(page, emulated):
    answer = rank_pasted(page, WORKED_PATH.read_text())
    placement = answer["placement"]
    rows = page.table_items("#placement-table")
    assert rows == placement_rows(placement)
    (engine,) = rows  # the InferenceService sets no decoder
    assert {key: engine[key] for key in ("component", "class", "from", "policy", "score")} == {
        "component": "engine",
        "class": "nvidia-h100",
        "from": "spec.acceleratorSelector.policy",
        "policy": "BestFit",
        "score": "1.0",  # as the reasons write scores, not JavaScript's "1"
    }
    assert engine["others"] == ["nvidia-h200: score 0.6971631205673758 < 1.0"]
    assert (engine["known"], engine["reason"], engine["error"], engine["config"]) == (
        "Yes",
        "-",
        "-",
        "-",
    )
    assert engine["node-selector"] == ["nvidia.com/gpu.product=nvidia-h100"]
    assert engine["resources"] == ["limits: nvidia.com/gpu=1", "requests: nvidia.com/gpu=1"]
    assert [
        page.text(f"#placement-{what}")
        for what in ("entry", "entry-name", "entry-score", "entry-defined-in", "event")
    ] == ["supportedModelFormats[0]", "-", "2", "the selected runtime", "none"]
    page.screenshot("placement.png")
    # A 400-pixel window: the table scrolls inside its own box, never the page.
    page.viewport(400)
    assert not page.page_overflows()
    assert page.console_errors(api_statuses=(401,)) == []


def test_a_class_that_does_not_exist_shows_the_error_and_the_event(page):
    # The decoder names a class whose name is markup: it must read as text, never as HTML.
    markup = "<b>nvidia-a100</b>"
    answer = rank_pasted(
        page,
        worked(
            acceleratorSelector={"acceleratorClass": "nvidia-a100"},
            decoder={"acceleratorOverride": {"acceleratorClass": markup}},
        ),
    )
    placement = answer["placement"]
    rows = page.table_items("#placement-table")
    assert rows == placement_rows(placement)
    engine, decoder = rows
    assert (engine["class"], engine["error"]) == ("none", f"AcceleratorClassNotFound: {NOT_FOUND}")
    assert engine["from"] == "spec.acceleratorSelector.acceleratorClass"
    assert engine["others"] == "-"
    # OME records the engine's failure, and goes no further (rules §20.5).
    assert page.text("#placement-event") == f"Warning AcceleratorClassError: {NOT_FOUND}"
    assert markup in decoder["error"]
    assert page.find_all("#placement b") == []
    assert page.console_errors(api_statuses=(401,)) == []


def test_unknown_classes_are_never_guessed(page):
    """Without AcceleratorClass objects a policy's pick is unknown, and a named class is kept
    but unverified."""
    documents = [doc for doc in WORKED if doc["kind"] != "AcceleratorClass"]
    documents[-1] = copy.deepcopy(documents[-1])
    documents[-1]["spec"]["decoder"] = {"acceleratorOverride": {"acceleratorClass": "nvidia-h200"}}
    answer = rank_pasted(page, yaml.safe_dump_all(documents, sort_keys=False))
    rows = page.table_items("#placement-table")
    assert rows == placement_rows(answer["placement"])
    unknown = "unknown: the request holds no AcceleratorClass objects"
    assert [(row["class"], row["known"], row["reason"]) for row in rows] == [
        ("unknown", "No", unknown),
        ("nvidia-h200 (unverified)", "No", unknown),
    ]
    # The classes lost to nothing: no reason to give.
    assert rows[0]["others"] == ["nvidia-h100: -", "nvidia-h200: -"]
    assert page.console_errors(api_statuses=(401,)) == []


def test_without_an_inference_service_no_component_gets_a_class(page):
    answer = rank_pasted(page, SEED_YAML.decode())
    placement = answer["placement"]
    assert placement["engine"] is None and placement["decoder"] is None
    assert page.find_all("#placement-table") == []
    assert "No engine and no decoder" in page.text("#placement-no-component")
    assert page.text("#placement-entry-name") == placement["entry"]["name"] == "safetensors"
    assert page.console_errors(api_statuses=(401,)) == []


def test_nothing_selected_no_panel(page):
    documents = copy.deepcopy(WORKED)
    documents[-1]["spec"]["runtime"]["name"] = "no-such-runtime"
    manifests = yaml.safe_dump_all(documents, sort_keys=False)
    page.sign_in(None, "#/try")
    page.fill("#manifests", manifests)
    page.find("#do-rank").click()
    page.wait_for("#result-rank .error, #result-rank #ranking-table")
    assert page.find_all("#placement") == []
    assert page.console_errors(api_statuses=(401, 404)) == []


def test_scores_read_as_the_answers_reasons_write_them(page):
    """format.js's scoreText is Python's repr of the double, as rules §20.10 item 18 prints
    scores (JavaScript's String() would write 1 and 0.00005)."""
    values = [1.0, 0.0, 0.6971631205673758, 0.5, 5e-05, 1e-07, 0.0001, 1.5e-10, 0.25]
    page.open("#/try")
    shown = page.driver.execute_async_script(
        "const [values, done] = arguments;"
        "import('/ui/static/format.js').then((format) => done(values.map(format.scoreText)));",
        values,
    )
    assert shown == [repr(value) for value in values]
    assert page.console_errors(api_statuses=(401,)) == []
