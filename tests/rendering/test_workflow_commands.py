"""``app/rendering/workflow_commands.py``: GitHub Actions workflow commands, one a result not
suppressed, escaped so that the runner reads back what was meant."""

from __future__ import annotations

import re

from app.rendering.check_results import CheckResult, SourcePlace, Subject
from app.rendering.workflow_commands import workflow_command, workflow_commands
from tests.rendering.report_builders import sample_report

COMMAND = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def unescape(text: str) -> str:
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """A command as the runner reads it: its name, its properties, its message."""
    found = COMMAND.match(line)
    assert found is not None, line
    properties = dict(item.split("=", 1) for item in found.group(2).split(","))
    return found.group(1), {k: unescape(v) for k, v in properties.items()}, unescape(found.group(3))


def test_one_command_per_result_not_suppressed():
    lines = workflow_commands(sample_report()).splitlines()
    assert [parse(line)[0] for line in lines] == ["error", "warning", "notice"]
    _, properties, message = parse(lines[0])
    assert properties == {
        "file": "runtimes/typo.yaml",
        "line": "9",
        "col": "7",
        "title": "UnknownField",
    }
    assert message == "ClusterServingRuntime typo: UnknownField message"


def test_severity_filters_the_commands():
    lines = workflow_commands(sample_report(shown="error")).splitlines()
    assert [parse(line)[2] for line in lines] == [
        "ClusterServingRuntime typo: UnknownField message"
    ]


def test_what_would_end_a_property_or_the_command_is_escaped():
    subject = Subject("BaseModel", "a,b")
    found = CheckResult(
        "Invalid",
        "error",
        "100% sure:\nline two\r",
        subject,
        place=SourcePlace("dir,with:odd%/f.yaml", 2, 1),
    )
    line = workflow_command(found)
    assert "\n" not in line and "\r" not in line
    _, properties, message = parse(line)
    assert properties["file"] == "dir,with:odd%/f.yaml"
    assert message == "BaseModel a,b: 100% sure:\nline two\r"


def test_a_result_without_a_place_has_only_a_title():
    found = CheckResult("RuntimeChanged", "warning", "m", Subject("InferenceService", "a/b"))
    assert workflow_command(found) == "::warning title=RuntimeChanged::InferenceService a/b: m"
