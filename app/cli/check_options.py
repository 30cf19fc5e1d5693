"""The options of the commands whose results CI reads (``lint``, ``impact``, ``select``,
``test``): the output formats CI systems take, the thresholds, and the repository's settings
file; and printing a report in those formats."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from app.rendering.check_results import SEVERITIES, CheckReport

from .output import echo_bytes
from .project_config import ProjectConfig, load_config

CI_FORMATS = ("sarif", "junit", "github")
DOCS_URL_VARIABLE = "OME_RANKER_DOCS_URL"


def report_output_option(default: str = "table") -> Any:
    return click.option(
        "-o",
        "--output",
        type=click.Choice(["table", "json", "yaml", *CI_FORMATS]),
        default=default,
        show_default=True,
        help="table: lines for people; json, yaml: the answer; sarif: SARIF 2.1.0 (code "
        "scanning); junit: JUnit XML; github: GitHub Actions annotations.",
    )


fail_on_option = click.option(
    "--fail-on",
    type=click.Choice(list(reversed(SEVERITIES))),
    default=None,
    help="Exit 1 when a finding of this severity or above is not suppressed "
    "[default: failOn of .ome-ranker.yaml, else error].",
)
severity_option = click.option(
    "--severity",
    type=click.Choice(SEVERITIES),
    default=None,
    help="Print findings of this severity and above, in every output format "
    "[default: severity of .ome-ranker.yaml, else warning].",
)
config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    metavar="PATH",
    help="The settings file [default: .ome-ranker.yaml, found from here upwards].",
)


def project_config(options: dict[str, Any]) -> ProjectConfig:
    return load_config(options.get("config_path"))


def thresholds(options: dict[str, Any], config: ProjectConfig) -> tuple[str, str]:
    """(fail on, shown): the options', else the settings file's, else error and warning."""
    fail_on = options.get("fail_on") or config.fail_on or "error"
    shown = options.get("severity") or config.severity or "warning"
    return fail_on, shown


def docs_url(config: ProjectConfig) -> str | None:
    """Where docs/ is published, for the SARIF rules' ``helpUri``: the environment's, the
    settings file's, else the checkout's own docs/ when the command runs from one (a
    ``file://`` URI, which an editor's SARIF viewer opens); None for an installed copy."""
    found = os.environ.get(DOCS_URL_VARIABLE) or config.docs_url
    if found:
        return found
    checkout = Path(__file__).resolve().parents[2] / "docs"
    return checkout.as_uri() if (checkout / "lint.md").is_file() else None


def echo_report(report: CheckReport, output_format: str, config: ProjectConfig) -> None:
    """The report in a CI format (``sarif``, ``junit``, ``github``)."""
    from app.version import __version__

    if output_format == "sarif":
        from app.rendering.sarif_log import sarif_log

        log = sarif_log(report, __version__, docs_url(config))
        echo_bytes(json.dumps(log, indent=2, ensure_ascii=False).encode())
    elif output_format == "junit":
        from app.rendering.junit_xml import junit_xml

        echo_bytes(junit_xml(report))
    else:
        from app.rendering.workflow_commands import workflow_commands

        click.echo(workflow_commands(report), nl=False)
