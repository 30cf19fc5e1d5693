"""``app/rendering/junit_xml.py``: one test case per object, a failure per result that fails
the command, read back with ``xml.etree``."""

from __future__ import annotations

from xml.etree import ElementTree

from app.rendering.check_results import CheckResult
from app.rendering.junit_xml import junit_xml
from tests.rendering.report_builders import CHAT, result, sample_report


def cases(xml: bytes) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(xml)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    return {f"{c.get('classname')} {c.get('name')}": c for c in suite.findall("testcase")}


def test_one_case_per_object_and_a_failure_per_error():
    xml = junit_xml(sample_report())
    root = ElementTree.fromstring(xml)
    assert (root.get("tests"), root.get("failures")) == ("3", "1")
    found = cases(xml)
    assert list(found) == [
        "ClusterServingRuntime typo",
        "InferenceService demo/chat",
        "BaseModel demo/llama",
    ]
    (failure,) = found["ClusterServingRuntime typo"].findall("failure")
    assert failure.get("type") == "UnknownField"
    assert failure.text == "runtimes/typo.yaml:9:7: error: UnknownField: UnknownField message"
    assert found["ClusterServingRuntime typo"].get("file") == "runtimes/typo.yaml"
    # the suppressed error fails nothing; it is written to the case's output
    chat = found["InferenceService demo/chat"]
    assert chat.findall("failure") == []
    assert "(external suppression)" in chat.find("system-out").text
    assert found["BaseModel demo/llama"].findall("failure") == []


def test_fail_on_warning_makes_warnings_failures_too():
    found = cases(junit_xml(sample_report(fail_on="warning")))
    (failure,) = found["InferenceService demo/chat"].findall("failure")
    assert failure.get("type") == "AutoSelected"


def test_two_errors_of_one_object_are_two_failures():
    report = sample_report()
    report.results.append(result("Required", "error"))
    (typo, *_) = cases(junit_xml(report)).values()
    assert [f.get("type") for f in typo.findall("failure")] == ["UnknownField", "Required"]


def test_text_xml_cannot_hold_is_dropped_and_the_rest_escaped():
    report = sample_report()
    report.results = [CheckResult("Invalid", "error", 'bad "\x01<value>" &', CHAT)]
    (failure,) = cases(junit_xml(report))["InferenceService demo/chat"].findall("failure")
    assert failure.get("message") == 'bad "<value>" &'
