"""``ome-ranker test``: many expected outcomes in one run (docs/ci.md "ome-ranker test"). The
manifests are read once; each case of ``ome-ranker-test.yaml`` asks ``/v1/select`` about its
InferenceService or model (as ``select --inference-service`` or ``--model`` does) and, when it
expects findings or an admission, reads lint's one answer for every object; every miss is a
result at its expectation's line, printed in any format, and the run exits 1 on any."""

from __future__ import annotations

from typing import Any

import click

from . import output
from .check_options import CI_FORMATS, echo_report, report_output_option
from .options import connection, connection_options, input_options, load, open_api, query
from .options import query_options as settings_options
from .output import NOT_SELECTED, Failure


@click.command("test")
@input_options
@click.option(
    "--expectations",
    "expectations_path",
    type=click.Path(dir_okay=False),
    metavar="PATH",
    help="The cases and what OME must give each [default: ome-ranker-test.yaml].",
)
@settings_options
@report_output_option()
@connection_options
def run_tests(**options: Any) -> None:
    """Check many expected outcomes in one run.

    Each case of ome-ranker-test.yaml (an InferenceService, or a model and namespace) and what
    OME must give it: its runtime, its engine's and decoder's AcceleratorClass, whether kubectl
    apply admits it, the lint codes it must (not) get. Exit 1 on any miss, 2 for an expectation
    that names what the manifests do not hold.
    """
    from app.rendering.check_results import CheckReport, Subject

    from .case_checks import ACCELERATOR_CLASS_KIND, RUNTIME_KINDS, CaseRun, lint_codes
    from .client import Sent
    from .expectations import check_names, read_plan

    plan = read_plan(options["expectations_path"])
    filenames = options["filenames"] or plan.manifests
    if not filenames:
        raise Failure(f"give the manifests with -f FILE|DIR|- or manifests: in {plan.path}")
    manifests = load(filenames, options["recursive"] or plan.recursive)
    runtimes = {m.name for m in manifests if m.kind in RUNTIME_KINDS and m.name}
    classes = {m.name for m in manifests if m.kind == ACCELERATOR_CLASS_KIND and m.name}
    check_names(plan, runtimes, classes, lint_codes(), ", ".join(filenames))
    params = query(
        omeVersion=options["ome_version"], modelCacheProvider=options["model_cache_provider"]
    )
    subjects = [Subject("case", case.name, case.place) for case in plan.cases]
    with open_api(*connection(options)) as api:
        run = CaseRun(api, Sent(manifests), params)
        results = [
            result
            for case, subject in zip(plan.cases, subjects, strict=True)
            for result in run.check(case, subject)
        ]
    report = CheckReport("test", results, subjects, shown="info")
    output_format = options["output"]
    if output_format in CI_FORMATS:
        from .project_config import load_config

        echo_report(report, output_format, load_config(None))
    elif output_format == "table":
        output.echo_lines(_lines(report))
    else:
        _echo_answer(report, output_format)
    failed = len({result.subject for result in results})
    if failed:
        raise Failure(f"{failed} of {len(subjects)} cases failed", NOT_SELECTED)


def _where(place: Any) -> str:
    return f"{place.file}:{place.line}" if place.line else str(place.file)


def _lines(report: Any) -> list[str]:
    lines = []
    for subject in report.subjects:
        found = [result for result in report.results if result.subject == subject]
        lines.append(f"{'FAIL' if found else 'PASS'}  {subject.name} ({_where(subject.place)})")
        lines += [f"  {_where(r.place)}: {r.code}: {r.message}" for r in found]
    failed = len({result.subject for result in report.results})
    total = len(report.subjects)
    lines.append(f"{total} cases: {total - failed} passed, {failed} failed")
    return lines


def _echo_answer(report: Any, output_format: str) -> None:
    from .client import encode

    cases = []
    for subject in report.subjects:
        found = [result for result in report.results if result.subject == subject]
        cases.append(
            {
                "name": subject.name,
                "file": subject.place.file,
                "line": subject.place.line,
                "passed": not found,
                "failures": [
                    {
                        "code": r.code,
                        "message": r.message,
                        "file": r.place.file,
                        "line": r.place.line,
                        "column": r.place.column,
                    }
                    for r in found
                ],
            }
        )
    failed = sum(not case["passed"] for case in cases)
    answer = {"passed": len(cases) - failed, "failed": failed, "cases": cases}
    if output_format == "json":
        output.echo_bytes(encode(answer))
    else:
        output.echo_yaml(answer)


# The name ``app.cli`` finds the command under (``ome-ranker test``).
test = run_tests
