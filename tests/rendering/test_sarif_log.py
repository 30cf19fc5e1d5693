"""``app/rendering/sarif_log.py``: SARIF 2.1.0 logs, valid against OASIS's schema, each result at
its field's place with a fingerprint that does not move with it."""

from __future__ import annotations

import dataclasses

import pytest

from app.rendering.check_results import SourcePlace
from app.rendering.sarif_log import artifact_uri, sarif_log
from tests.rendering.report_builders import CHAT, result, sample_report
from tests.rendering.report_builders import valid_sarif as valid


def test_a_log_is_valid_sarif_with_one_rule_per_code():
    log = valid(sarif_log(sample_report(), "1.2.3", "https://docs.example/ome-ranker/docs/"))
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [
        "UnknownField",
        "AutoSelected",
        "NoAutoSelect",
        "Invalid",
        "NoParameterSize",
    ]
    assert rules[0]["helpUri"] == "https://docs.example/ome-ranker/docs/lint.md#unknownfield"
    assert rules[0]["help"]["text"].endswith("See docs/lint.md#unknownfield.")
    assert [r["defaultConfiguration"]["level"] for r in rules[:3]] == ["error", "warning", "note"]
    for item in run["results"]:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]


def test_without_a_docs_url_there_is_no_help_uri():
    rules = valid(sarif_log(sample_report(), "1"))["runs"][0]["tool"]["driver"]["rules"]
    assert all("helpUri" not in rule for rule in rules)


def test_results_are_at_their_fields_line_and_column():
    (first, *_) = valid(sarif_log(sample_report(), "1"))["runs"][0]["results"]
    assert first["level"] == "error"
    assert first["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "runtimes/typo.yaml"},
                "region": {"startLine": 9, "startColumn": 7},
            }
        }
    ]
    assert first["message"]["text"] == "ClusterServingRuntime typo: UnknownField message"


def test_suppressed_results_carry_their_kind_of_suppression():
    results = valid(sarif_log(sample_report(), "1"))["runs"][0]["results"]
    suppressions = {item["ruleId"]: item.get("suppressions") for item in results}
    assert suppressions["UnknownField"] is None
    assert suppressions["Invalid"] == [
        {"kind": "external", "justification": "ignored by .ome-ranker.yaml:3"}
    ]
    assert suppressions["NoParameterSize"] == [{"kind": "inSource"}]


def test_severity_filters_the_log():
    results = valid(sarif_log(sample_report(shown="warning"), "1"))["runs"][0]["results"]
    assert [item["ruleId"] for item in results] == ["UnknownField", "AutoSelected", "Invalid"]


def test_the_fingerprint_stays_when_the_line_moves_and_changes_with_what_it_is_about():
    finding = result("UnknownField", "error", field="spec.x")
    moved = dataclasses.replace(finding, place=SourcePlace("elsewhere.yaml", 90, 1))
    reworded = dataclasses.replace(finding, message="another text")
    assert finding.fingerprint() == moved.fingerprint() == reworded.fingerprint()
    for other in (
        dataclasses.replace(finding, field="spec.y"),
        dataclasses.replace(finding, code="Required"),
        dataclasses.replace(finding, subject=CHAT),
    ):
        assert other.fingerprint() != finding.fingerprint()
    report = sample_report()
    first = sarif_log(report, "1")["runs"][0]["results"][0]["partialFingerprints"]
    assert first == {"omeRankerFinding/v1": report.results[0].fingerprint()}


@pytest.mark.parametrize(
    ("file", "uri"),
    [
        ("runtimes/a.yaml", "runtimes/a.yaml"),
        ("./runtimes/a b.yaml", "runtimes/a%20b.yaml"),
        ("/abs/x.yaml", "file:///abs/x.yaml"),
    ],
)
def test_files_become_uris(file, uri):
    assert artifact_uri(file) == uri


def test_a_result_without_a_file_has_no_location():
    report = sample_report()
    report.results = [result("RuntimeChanged", "warning", place=SourcePlace())]
    (item,) = valid(sarif_log(report, "1"))["runs"][0]["results"]
    assert "locations" not in item
