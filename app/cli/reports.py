"""``ome-ranker lint``, ``impact`` and ``selections``: what applying the manifests would do
(rules §18, §19), for every object at once."""

from __future__ import annotations

from typing import Any

import click

from app.rendering.check_results import CheckReport, CheckResult, SourcePlace, Subject
from app.rendering.encode import counted
from app.rendering.lint_body import counts_line

from . import output
from .check_options import (
    CI_FORMATS,
    config_option,
    echo_report,
    fail_on_option,
    project_config,
    report_output_option,
    severity_option,
    thresholds,
)
from .client import Call, Sent, encode, endpoint_path, stored_forms
from .lint_report import NO_KIND
from .options import (
    cluster_option,
    connection,
    connection_options,
    input_options,
    load,
    need_server,
    open_api,
    output_option,
    query,
    query_options,
)
from .output import BAD_INPUT, NOT_SELECTED, Failure


@click.command()
@input_options
@query_options
@cluster_option
@severity_option
@fail_on_option
@config_option
@click.option(
    "--allow-empty",
    is_flag=True,
    default=None,
    help="Reading no object to check is not an error (exit 2 without it).",
)
@report_output_option()
@connection_options
def lint(**options: Any) -> None:
    """What kubectl apply would answer.

    OME's and the API server's refusals, kubectl's warnings, and what OME accepts but rarely
    means (POST /v1/lint, or a catalog's with the manifests laid over it), each at its field's
    line. Exit 1 if a finding at or above --fail-on (error) is not suppressed.
    """
    from .lint_report import lint_check_report, lint_subjects, linted_findings, placed_answer

    config = project_config(options)
    fail_on, shown = thresholds(options, config)
    if not options["filenames"]:
        raise Failure("give the manifests with -f FILE|DIR|-")
    sent = Sent(load(options["filenames"], options["recursive"]))
    params = query(
        omeVersion=options["ome_version"], modelCacheProvider=options["model_cache_provider"]
    )
    with open_api(*connection(options)) as api:
        if options["cluster"] is not None:
            need_server(api, "--cluster")
        path = endpoint_path("lint", options["cluster"])
        call = Call("POST", path, params, sent, sent.applied_body())
        _, answer = api.answer(call)
    subjects = lint_subjects(sent, answer.get("ignored") or [])
    allow_empty = options["allow_empty"] or config.allow_empty
    if not subjects and not allow_empty:
        raise Failure(_nothing_to_check(options["filenames"], len(sent.manifests)), BAD_INPUT)
    linted = linted_findings(answer, sent, config)
    report = lint_check_report(linted, subjects, fail_on, shown)
    output_format = options["output"]
    if output_format == "table":
        output.echo_lines(finding_lines(report))
    elif output_format in ("json", "yaml"):
        placed = placed_answer(answer, linted, report)
        if output_format == "json":
            output.echo_bytes(encode(placed))
        else:
            output.echo_yaml(placed)
    else:
        echo_report(report, output_format, config)
    for warning in answer.get("warnings") or []:
        output.warn(warning)
    _lint_exit(report, answer)


def _nothing_to_check(paths: tuple[str, ...], read: int) -> str:
    where = ", ".join(paths)
    if not read:
        return f"no object read from {where}; --allow-empty accepts that"
    return (
        f"no object to check in {where}: {counted(read, 'object')} read, none of a kind lint "
        "checks; --allow-empty accepts that"
    )


def _lint_exit(report: CheckReport, answer: dict[str, Any]) -> None:
    failing = report.failing()
    suppressed_errors = sum(
        result.suppression is not None and result.severity == "error" for result in report.results
    )
    if not answer["admitted"] and not any(r.severity == "error" for r in failing):
        output.warn(
            f"the manifests would not be admitted: {counted(suppressed_errors, 'error')} suppressed"
        )
    if not failing:
        return
    if report.fail_on == "error":
        raise Failure("the manifests would not be admitted", NOT_SELECTED)
    raise Failure(
        f"{counted(len(failing), 'finding')} at or above {report.fail_on} (--fail-on)",
        NOT_SELECTED,
    )


def finding_lines(report: CheckReport) -> list[str]:
    """``file:line: severity: Kind name: [field: ]message`` for each finding shown and not
    suppressed (the field when the message does not name it), at its field's line; then the
    counts of all, and how many were suppressed."""
    lines = []
    for result in report.visible():
        if result.suppression is not None:
            continue
        place = result.place
        origin = f"{place.file}:{place.line}: " if place.file and place.line else ""
        # an object without a kind is named by its message (`[apiVersion not set, …]`) alone
        subject = "" if result.subject.group == NO_KIND else f"{result.subject.title}: "
        field, message = result.field, result.message
        if field and field not in message:
            message = f"{field}: {message}"
        lines.append(f"{origin}{result.severity}: {subject}{message}")
    lines.append(counts_line(report.counts(), report.suppressed()))
    return lines


@click.command()
@click.option(
    "--current",
    multiple=True,
    metavar="PATH",
    help="What the cluster runs now: a file, directory or -; repeatable.",
)
@click.option(
    "--proposed", multiple=True, metavar="PATH", help="What the change applies; repeatable."
)
@click.option(
    "-f",
    "--filename",
    "filenames",
    multiple=True,
    metavar="PATH",
    help="With --cluster: what the change applies; repeatable.",
)
@click.option("-R", "--recursive", is_flag=True, help="Read the directories recursively.")
@cluster_option
@click.option(
    "--delete",
    "deletions",
    multiple=True,
    metavar="KIND/NAMESPACE/NAME",
    help="With --cluster: an object the change deletes (KIND/NAME at cluster scope); repeatable.",
)
@click.option(
    "--fleet",
    is_flag=True,
    help="The change against every stored catalog the token may read (like --cluster).",
)
@click.option("--fail-on-change", is_flag=True, help="Exit 1 when any outcome changes.")
@report_output_option()
@connection_options
def impact(**options: Any) -> None:
    """InferenceServices a change would move.

    Every InferenceService whose runtime (or refusal) changes between --current and --proposed
    (POST /v1/impact), or between a stored catalog and a change (--cluster, -f, --delete), or
    in every stored catalog (--fleet, -f, --delete: POST /v1/fleet/impact).
    """
    if options["fleet"]:
        if options["cluster"] is not None:
            raise Failure("--fleet asks every cluster: drop --cluster")
        _fleet_impact(options)
        return
    cluster, recursive = options["cluster"], options["recursive"]
    # How many objects each side held, said beside the outcome: a side read short (a directory
    # without -R, a wrong path) shows there instead of as InferenceServices that "would change".
    sides: list[str] = []
    with open_api(*connection(options)) as api:
        if cluster is None:
            if options["filenames"] or options["deletions"]:
                raise Failure(
                    "-f and --delete go with --cluster; else give --current and --proposed"
                )
            if not options["current"] or not options["proposed"]:
                raise Failure("give both --current and --proposed (or --cluster with -f)")
            current = load(options["current"], recursive)
            proposed = load(options["proposed"], recursive)
            sides = [
                counted(len(current), "object") + " from --current",
                f"{len(proposed)} from --proposed",
            ]
            sent = Sent(current + proposed, {"current": current, "proposed": proposed})
            body = {"current": stored_forms(current), "proposed": stored_forms(proposed)}
            call = Call("POST", "/v1/impact", [], sent, encode(body))
        else:
            need_server(api, "--cluster")
            if options["current"] or options["proposed"]:
                raise Failure("with --cluster the catalog is the current state: give -f")
            if not options["filenames"] and not options["deletions"]:
                raise Failure("give the change with -f PATH and/or --delete KIND/NAMESPACE/NAME")
            sent = Sent(load(options["filenames"], recursive))
            if options["filenames"]:
                sides = [counted(len(sent.manifests), "object") + " from -f"]
            params = [("delete", deletion) for deletion in options["deletions"]]
            call = Call("POST", endpoint_path("impact", cluster), params, sent, sent.body())
        reply, answer = api.answer(call)
        if options["output"] in CI_FORMATS:
            report = impact_report(answer, sent, options["fail_on_change"])
            echo_report(report, options["output"], project_config(options))
        elif options["output"] != "table" or answer["count"]:
            api.show(call, reply, options["output"])
    read = f" (read {', '.join(sides)})" if sides else ""
    output.note(
        f"{answer['count']} of {counted(answer['checked'], 'InferenceService')} would change{read}"
    )
    _fail_on_change(answer, options)


def _fail_on_change(answer: dict[str, Any], options: dict[str, Any]) -> None:
    if options["fail_on_change"] and answer["count"] > 0:
        raise Failure("InferenceServices would change (--fail-on-change)", NOT_SELECTED)


def impact_report(answer: dict[str, Any], sent: Sent, fail_on_change: bool) -> CheckReport:
    """Each change as a result at its InferenceService's manifest (the proposed side's), an
    error with ``--fail-on-change``, else a warning: ``RuntimeChanged`` when the runtime is
    another (or none), ``AnswerChanged`` when only what OME answers of it is."""
    from .lint_report import subject_of

    proposed = Sent(sent.lists.get("proposed", sent.manifests))
    severity = "error" if fail_on_change else "warning"
    results, subjects = [], []
    for change in answer["changes"]:
        manifest = proposed.manifest_of("InferenceService", change["namespace"], change["name"])
        subject = subject_of("InferenceService", change["namespace"], change["name"])
        if manifest is not None:
            file, _, line = manifest.origin.rpartition(":")
            place = SourcePlace(manifest.file or file, int(line) if line.isdigit() else None)
            subject = Subject(subject.group, subject.name, place)
        before, after = (_runtime_name(change[side]) for side in ("before", "after"))
        code = "RuntimeChanged" if before != after else "AnswerChanged"
        message = f"{before} -> {after}: {change['after']['message']}"
        results.append(CheckResult(code, severity, message, subject, place=subject.place))
        subjects.append(subject)
    return CheckReport("impact", results, subjects, fail_on="error")


def _runtime_name(outcome: dict[str, Any]) -> str:
    return outcome["runtime"]["name"] if outcome["runtime"] else "-"


def fleet_changes(answer: dict[str, Any]) -> dict[str, Any]:
    """A fleet impact's changes as one impact's, each message led by its cluster: what CI
    formats report (``impact_report``)."""
    changes = []
    for part in answer["clusters"]:
        for change in part["changes"]:
            led = f"cluster {part['cluster']}: {change['after']['message']}"
            after = {**change["after"], "message": led}
            changes.append({**change, "after": after})
    return {"changes": changes}


def _fleet_impact(options: dict[str, Any]) -> None:
    """``impact --fleet``: the change against every catalog the token may read, its summary
    (`N InferenceServices would change in N of N clusters`) on stderr."""
    with open_api(*connection(options)) as api:
        need_server(api, "--fleet")
        if options["current"] or options["proposed"]:
            raise Failure("with --fleet each catalog is the current state: give -f")
        if not options["filenames"] and not options["deletions"]:
            raise Failure("give the change with -f PATH and/or --delete KIND/NAMESPACE/NAME")
        sent = Sent(load(options["filenames"], options["recursive"]))
        params = [("delete", deletion) for deletion in options["deletions"]]
        call = Call("POST", "/v1/fleet/impact", params, sent, sent.body())
        reply, answer = api.answer(call)
        if options["output"] in CI_FORMATS:
            report = impact_report(fleet_changes(answer), sent, options["fail_on_change"])
            echo_report(report, options["output"], project_config(options))
        elif options["output"] != "table" or answer["count"]:
            api.show(call, reply, options["output"])
    output.note(answer["summary"])
    _fail_on_change(answer, options)


@click.command()
@input_options
@click.option(
    "--namespace",
    metavar="NS",
    help="With --cluster: only the InferenceServices of this namespace.",
)
@query_options
@cluster_option
@output_option
@connection_options
def selections(**options: Any) -> None:
    """The runtime of every InferenceService.

    Every InferenceService's runtime, and a row for every model no InferenceService names
    (POST /v1/selections, or GET /v1/clusters/CLUSTER/selections). Exit 1 if an
    InferenceService gets none.
    """
    cluster = options["cluster"]
    params = query(
        omeVersion=options["ome_version"], modelCacheProvider=options["model_cache_provider"]
    )
    with open_api(*connection(options)) as api:
        if cluster is None:
            if not options["filenames"]:
                raise Failure("give the manifests with -f FILE|DIR|- (or a --cluster to ask)")
            if options["namespace"] is not None:
                raise Failure("--namespace filters a stored catalog's selections (--cluster)")
            sent = Sent(load(options["filenames"], options["recursive"]))
            call = Call("POST", "/v1/selections", params, sent, sent.body())
        else:
            need_server(api, "--cluster")
            if options["filenames"]:
                raise Failure("selections --cluster reads the stored catalog: drop -f")
            call = Call(
                "GET", endpoint_path("selections", cluster), query(namespace=options["namespace"])
            )
        reply, answer = api.answer(call)
        api.show(call, reply, options["output"])
    missing = [
        row for row in answer["selections"] if row["name"] is not None and not row["runtime"]
    ]
    if missing:
        raise Failure(
            f"{counted(len(missing), 'InferenceService')} would get no runtime", NOT_SELECTED
        )
