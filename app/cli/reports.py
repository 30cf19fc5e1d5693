"""``ome-ranker lint``, ``impact`` and ``selections``: what applying the manifests would do
(rules §18, §19), for every object at once."""

from __future__ import annotations

from typing import Any

import click

from app.rendering.encode import counted
from app.rendering.lint_body import counts_line

from . import output
from .client import Call, Sent, encode, endpoint_path, stored_forms
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
from .output import NOT_SELECTED, Failure

SEVERITIES = ("info", "warning", "error")


@click.command()
@input_options
@query_options
@cluster_option
@click.option(
    "--severity",
    type=click.Choice(SEVERITIES),
    default="warning",
    show_default=True,
    help="Print findings of this severity and above.",
)
@output_option
@connection_options
def lint(**options: Any) -> None:
    """What kubectl apply would answer.

    OME's and the API server's refusals, kubectl's warnings, and what OME accepts but rarely
    means (POST /v1/lint, or a catalog's with the manifests laid over it). Exit 1 if an object
    would be refused.
    """
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
        reply, answer = api.answer(call)
        if options["output"] == "table":
            output.echo_lines(finding_lines(answer, sent, options["severity"]))
            for warning in answer.get("warnings") or []:
                output.warn(warning)
        else:
            api.show(call, reply, options["output"])
    if not answer["admitted"]:
        raise Failure("the manifests would not be admitted", NOT_SELECTED)


def finding_lines(answer: dict[str, Any], sent: Sent, severity: str) -> list[str]:
    """``file:line: severity: Kind name: [field: ]message`` for each finding at or above
    ``severity`` (the field when the message does not name it), then the counts of all."""
    lowest = SEVERITIES.index(severity)
    lines = []
    for finding in answer["findings"]:
        if SEVERITIES.index(finding["severity"]) < lowest:
            continue
        kind, namespace, name = finding["kind"], finding["namespace"], finding["name"]
        origin = sent.origin_of(kind, namespace, name)
        subject = f"{kind} {namespace + '/' if namespace else ''}{name}: " if kind else ""
        field, message = finding.get("field"), finding["message"]
        if field and field not in message:
            message = f"{field}: {message}"
        lines.append(f"{origin + ': ' if origin else ''}{finding['severity']}: {subject}{message}")
    lines.append(counts_line(answer["counts"]))
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
@output_option
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
        if options["output"] != "table" or answer["count"]:
            api.show(call, reply, options["output"])
    read = f" (read {', '.join(sides)})" if sides else ""
    output.note(
        f"{answer['count']} of {counted(answer['checked'], 'InferenceService')} would change{read}"
    )
    _fail_on_change(answer, options)


def _fail_on_change(answer: dict[str, Any], options: dict[str, Any]) -> None:
    if options["fail_on_change"] and answer["count"] > 0:
        raise Failure("InferenceServices would change (--fail-on-change)", NOT_SELECTED)


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
        if options["output"] != "table" or answer["count"]:
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
