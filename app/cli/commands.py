"""``ome-ranker rank`` and ``select``: which runtime OME picks for one model, from manifest files
(or a stored catalog), through the HTTP API."""

from __future__ import annotations

from typing import Any

import click

from . import output
from .check_options import CI_FORMATS, echo_report, report_output_option
from .client import Api, Call, Sent, echo_answer, endpoint_path, model_elsewhere, refusal
from .options import (
    cluster_option,
    combine,
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
from .output import NOT_SELECTED, OTHER_CLASS, Failure
from .picking import choose
from .placement_report import check_pins, expect_class_option, placement_lines
from .sources import Manifest
from .transport import Reply

# OME's answers that no runtime will serve the model (rules §7, §15, §17): exit 1, not 2.
NOT_SELECTED_CODES = frozenset(
    {
        "NoRuntimeFound",
        "RuntimeNotFound",
        "RuntimeDisabled",
        "RuntimeInheritanceError",
        "RuntimeIncompatible",
        "ModelNotFound",
        "ModelNotReady",
    }
)
SELECT_COLUMNS = ("RUNTIME", "SCOPE", "SCORE", "EXPLICIT", "MESSAGE")


question_options = [
    click.option("--model", metavar="NAME", help="The model to ask about, when there are several."),
    click.option(
        "--namespace",
        metavar="NS",
        help="The target namespace (?namespace=); also where --model is looked up.",
    ),
    click.option(
        "--inference-service",
        metavar="NS/NAME",
        help="Ask about this InferenceService and its model.",
    ),
    click.option(
        "--expect",
        metavar="RUNTIME",
        help="Exit 1 unless OME selects this runtime.",
    ),
    expect_class_option,
]


question_command = combine(
    input_options,
    *question_options,
    query_options,
    cluster_option,
    output_option,
    connection_options,
)
# select's answer is one check a CI job makes (--expect, --expect-class): its formats too.
select_command = combine(
    input_options,
    *question_options,
    query_options,
    cluster_option,
    report_output_option(),
    connection_options,
)


def build_call(endpoint: str, api: Api, options: dict[str, Any]) -> Call:
    """The request for ``/v1/<endpoint>``, a catalog's ``POST`` (files laid over it) or its
    ``GET`` by name (no files)."""
    cluster = options["cluster"]
    params = query(
        namespace=options["namespace"],
        omeVersion=options["ome_version"],
        modelCacheProvider=options["model_cache_provider"],
    )
    if cluster is not None:
        need_server(api, "--cluster")
    if not options["filenames"]:
        if cluster is None:
            raise Failure("give the manifests with -f FILE|DIR|- (or a --cluster to ask)")
        return _by_name(endpoint, cluster, options)
    manifests = load(options["filenames"], options["recursive"])
    _say_unread(manifests)
    question = choose(
        manifests,
        model=options["model"],
        namespace=options["namespace"],
        inference_service=options["inference_service"],
        cluster=cluster,
    )
    if question.stored_model is not None:
        params.append(("model", question.stored_model))
    sent = Sent(question.manifests)
    return Call("POST", endpoint_path(endpoint, cluster), params, sent, sent.body())


def _say_unread(manifests: list[Manifest]) -> None:
    """Each object the service will not read because kubectl would not map it (rules §18),
    on stderr: the answer lists it under ``ignored``, which a table does not show."""
    # Here, not at import: ``ome-ranker --version`` and ``--help`` need none of it.
    from app.reading.manifests import unread_refusal

    for manifest in manifests:
        refusal = unread_refusal(manifest.body)
        if refusal is not None:
            output.warn(f"not read: {manifest.origin}: {manifest.describe()}: {refusal}")


def _by_name(endpoint: str, cluster: str, options: dict[str, Any]) -> Call:
    if options["ome_version"] or options["model_cache_provider"]:
        raise Failure(
            "--ome-version and --model-cache-provider apply to manifests sent with -f; "
            f"without them the settings of cluster {cluster} apply"
        )
    params = query(namespace=options["namespace"])
    isvc = options["inference_service"]
    if isvc is not None:
        params.append(("inferenceService", isvc))
    elif options["model"] is not None:
        params.append(("model", options["model"]))
    else:
        raise Failure("name the model with --model NAME or --inference-service NS/NAME")
    return Call("GET", endpoint_path(endpoint, cluster), params)


def not_selected(reply: Reply, sent: Sent, output_format: str) -> Failure:
    """OME's refusal (exit 1, its message and the excluded runtimes' reasons), or the input's
    (exit 2)."""
    error = reply.error()
    elsewhere = model_elsewhere(error)
    if elsewhere is not None:
        return elsewhere
    if error.get("code") not in NOT_SELECTED_CODES:
        return refusal(reply, sent)
    if output_format != "table":
        echo_answer(reply, output_format)
    lines = [error["message"]]
    excluded = error.get("excluded")
    if isinstance(excluded, dict):
        lines += [f"  {name}: {reason}" for name, reason in excluded.items()]
    if error.get("hint"):
        lines.append(f"  hint: {error['hint']}")
    return Failure.of_lines(lines, NOT_SELECTED)


@click.command()
@question_command
def rank(**options: Any) -> None:
    """Rank the runtimes for one model, as OME does.

    Every candidate runtime in OME's order with the reason for each it passes over (POST
    /v1/rank; the table is `kubectl ome runtime explain`'s), the AcceleratorClass each
    component gets, and OME's message on stderr.
    """
    with open_api(*connection(options)) as api:
        call = build_call("rank", api, options)
        reply = api.ask(call)
        if reply.status != 200:
            raise not_selected(reply, call.sent, options["output"])
        answer = reply.json()
        api.show(call, reply, options["output"])
    if options["output"] == "table":
        _summary(answer)
        _placement(answer)
        _notes(answer)
    _selected_or_exit(answer, options)


def _summary(answer: dict) -> None:
    """After the explain table (which stays OME's, byte for byte): the ``No`` rows in one line,
    grouped by reason, and the closest one (the answer's ``summary``)."""
    if answer.get("summary"):
        output.echo_lines(["", answer["summary"]])


@click.command()
@select_command
def select(**options: Any) -> None:
    """The runtime OME selects for one model.

    Only the runtime OME would use, or OME's refusal (POST /v1/select), then the
    AcceleratorClass each component of the InferenceService gets, and why. With -o sarif,
    junit or github: --expect and --expect-class as one check a CI system reads.
    """
    with open_api(*connection(options)) as api:
        call = build_call("select", api, options)
        reply = api.ask(call)
        if options["output"] in CI_FORMATS:
            _select_check(reply, call, options)
            return
        if reply.status != 200:
            raise not_selected(reply, call.sent, options["output"])
    answer = reply.json()
    if options["output"] == "table":
        chosen = answer["selected"]
        output.echo_table(
            output.table(
                SELECT_COLUMNS,
                [
                    (
                        chosen["name"],
                        chosen["scope"],
                        str(chosen["score"]),
                        "Yes" if chosen["explicit"] else "No",
                        answer["message"],
                    )
                ],
            )
        )
        _placement(answer)
        for warning in answer["warnings"]:
            output.warn(warning)
    else:
        echo_answer(reply, options["output"])
    _selected_or_exit(answer, options)


def _select_check(reply: Reply, call: Call, options: dict[str, Any]) -> None:
    """The selection as a check: printed in a CI format, then the exit code of the table's."""
    from app.rendering.check_results import CheckReport

    from .project_config import load_config
    from .selection_checks import NO_RUNTIME, OTHER_RUNTIME, refused_selection, selection_results

    subject = question_subject(call.sent, options)
    if reply.status != 200:
        error = reply.error()
        if error.get("code") not in NOT_SELECTED_CODES:
            raise refusal(reply, call.sent)
        results = [refused_selection(error, subject)]
    else:
        results = selection_results(
            reply.json(), options["expect"], options["expect_class"], subject
        )
    echo_report(CheckReport("select", results, [subject]), options["output"], load_config(None))
    if results:
        runtime = any(result.code in (NO_RUNTIME, OTHER_RUNTIME) for result in results)
        lines = [result.message for result in results]
        raise Failure.of_lines(lines, NOT_SELECTED if runtime else OTHER_CLASS)


def question_subject(sent: Sent, options: dict[str, Any]) -> Any:
    """What the question is about, for a report: the InferenceService sent, else the model,
    else (a stored catalog's, by name) what the options name."""
    from app.rendering.check_results import SourcePlace, Subject
    from app.schemas.ome_kinds import ISVC_KIND, MODEL_KINDS

    from .lint_report import subject_of

    chosen = [m for m in sent.manifests if m.kind == ISVC_KIND] or [
        m for m in sent.manifests if m.kind in MODEL_KINDS
    ]
    if chosen:
        manifest = chosen[-1]
        file, _, line = manifest.origin.rpartition(":")
        subject = subject_of(manifest.kind, manifest.namespace, manifest.name)
        place = SourcePlace(manifest.file or file, int(line) if line.isdigit() else None)
        return Subject(subject.group, subject.name, place)
    if options.get("inference_service"):
        return Subject(ISVC_KIND, options["inference_service"])
    return subject_of("model", options.get("namespace"), options.get("model"))


def _notes(answer: dict) -> None:
    """Beside the table, which does not say it: OME's message when a runtime is selected (else
    it is the error), and the warnings, on stderr."""
    if answer["selected"] is not None:
        output.note(answer["message"])
    for warning in answer["warnings"]:
        output.warn(warning)


def _placement(answer: dict) -> None:
    """After the table, a blank line and the class each component gets (rules §20.8)."""
    lines = placement_lines(answer.get("placement"))
    if lines:
        output.echo_lines(["", *lines])


def _selected_or_exit(answer: dict, options: dict[str, Any]) -> None:
    """The runtime first (exit 1), then the classes pinned (exit 4)."""
    selected = answer.get("selected")
    expected = options["expect"]
    if selected is None:
        raise Failure.of_lines([answer.get("message") or "no runtime selected"], NOT_SELECTED)
    if expected is not None and selected["name"] != expected:
        raise Failure.of_lines([f"OME selects {selected['name']}, not {expected}"], NOT_SELECTED)
    check_pins(answer, options["expect_class"])
