"""A command's results as JUnit XML, the report GitLab, Jenkins and most CI systems read: one
test case per object (or case) checked, a ``failure`` for each result that fails the command
(``--fail-on``: errors by default), the other results shown written to its output."""

from __future__ import annotations

from xml.etree import ElementTree

from .check_results import CheckReport, CheckResult, Subject, at_least

# Characters XML 1.0 cannot hold, even escaped: a manifest's string may carry them.
_NOT_XML = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xFFFE, 0xFFFF])


def _text(value: str) -> str:
    text = value.translate(_NOT_XML)
    return "".join(char for char in text if not 0xD800 <= ord(char) <= 0xDFFF)


def _where(result: CheckResult) -> str:
    place = result.place
    if place.file is None:
        return ""
    parts = [place.file, *(str(n) for n in (place.line, place.column) if n is not None)]
    return ":".join(parts) + ": "


def _line(result: CheckResult) -> str:
    return _text(f"{_where(result)}{result.severity}: {result.code}: {result.message}")


def junit_xml(report: CheckReport) -> bytes:
    """The report of one run, one ``testsuite`` named for the command."""
    shown = report.visible()
    by_subject: dict[Subject, list[CheckResult]] = {subject: [] for subject in report.subjects}
    for result in shown:
        by_subject.setdefault(result.subject, []).append(result)
    name = f"ome-ranker {report.command}"
    suites = ElementTree.Element("testsuites", name=name)
    suite = ElementTree.SubElement(suites, "testsuite", name=name)
    failures = 0
    for subject, results in by_subject.items():
        case = ElementTree.SubElement(
            suite, "testcase", classname=_text(subject.group), name=_text(subject.name)
        )
        if subject.place.file is not None:
            case.set("file", _text(subject.place.file))
            if subject.place.line is not None:
                case.set("line", str(subject.place.line))
        failed = [
            r for r in results if r.suppression is None and at_least(r.severity, report.fail_on)
        ]
        for result in failed:
            failure = ElementTree.SubElement(
                case, "failure", message=_text(result.message), type=_text(result.code)
            )
            failure.text = _line(result)
        others = [result for result in results if result not in failed]
        if others:
            lines = [
                _line(r) + (f" ({r.suppression} suppression)" if r.suppression else "")
                for r in others
            ]
            ElementTree.SubElement(case, "system-out").text = "\n".join(lines)
        failures += bool(failed)
    counts = {"tests": len(by_subject), "failures": failures, "errors": 0, "skipped": 0}
    for element in (suites, suite):
        for key, value in counts.items():
            element.set(key, str(value))
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="UTF-8", xml_declaration=True) + b"\n"
