"""A command's results as GitHub Actions workflow commands, one a result
(``::error file=…,line=…,col=…,title=<code>::<message>``), which the runner turns into
annotations on the pull request's files; suppressed results are not printed."""

from __future__ import annotations

from .check_results import CheckReport, CheckResult

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """A command's message, as the runner reads it back."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A property's value (``file``, ``title``): also its separators."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(result: CheckResult) -> str:
    properties = []
    place = result.place
    if place.file is not None:
        properties.append(f"file={escape_property(place.file)}")
        if place.line is not None:
            properties.append(f"line={place.line}")
            if place.column is not None:
                properties.append(f"col={place.column}")
    properties.append(f"title={escape_property(result.code)}")
    message = f"{result.subject.title}: {result.message}"
    return f"::{COMMANDS[result.severity]} {','.join(properties)}::{escape_data(message)}"


def workflow_commands(report: CheckReport) -> str:
    return "".join(
        workflow_command(result) + "\n" for result in report.visible() if result.suppression is None
    )
