"""``ome-ranker push``: replace a stored catalog's objects with the files' (rules §17), only if
nobody wrote it since its generation was read (``If-Match``)."""

from __future__ import annotations

from typing import Any

import click

from app.store.records import KINDS

from . import output
from .client import Api, Sent, echo_answer, refusal
from .options import (
    connection,
    connection_options,
    input_options,
    load,
    need_server,
    open_api,
    output_option,
)
from .output import BAD_INPUT, NOT_SELECTED, Failure
from .transport import Reply, segment


@click.command()
@click.argument("cluster")
@input_options
@click.option("--create", is_flag=True, help="Create the cluster when the service has none.")
@click.option(
    "--allow-empty",
    is_flag=True,
    help="Empty a catalog that holds objects when the files hold none (?allowEmpty=true).",
)
@click.option(
    "--if-match",
    "generation",
    type=click.IntRange(min=0),
    metavar="GENERATION",
    help="Write only if the catalog is at this generation (default: the one read first).",
)
@output_option
@connection_options
def push(cluster: str, **options: Any) -> None:
    """Store the files as CLUSTER's catalog.

    Replaces every stored object with the files' (PUT /v1/clusters/CLUSTER/objects), only if
    the catalog is still at the generation read first: another write in between is not
    overwritten (exit 1). Files that hold no object the catalog stores do not empty a catalog
    that holds some (exit 2) unless --allow-empty.
    """
    if not options["filenames"]:
        raise Failure("give the objects to push with -f FILE|DIR|-")
    manifests = load(options["filenames"], options["recursive"])
    allow_empty = options["allow_empty"]
    empty = not allow_empty and not any(manifest.kind in KINDS for manifest in manifests)
    with open_api(*connection(options)) as api:
        need_server(api, "push")
        path = f"/v1/clusters/{segment(cluster)}"
        generation = options["generation"]
        if generation is None or empty:
            info = current_info(api, path, cluster, options["create"])
            generation = _generation(info) if generation is None else generation
            stored = sum((info.json().get("counts") or {}).values())
            if empty and stored:
                raise _empty_replace(cluster, stored)
        sent = Sent(manifests)
        reply = api.call(
            "PUT",
            f"{path}/objects",
            query=[("allowEmpty", "true")] if allow_empty else [],
            body=sent.body(),
            headers={"If-Match": f'"{generation}"'},
        )
    if reply.status == 409 and reply.error().get("code") == "EmptyReplace":
        raise _empty_replace(cluster, reply.error().get("stored", "its"))
    if reply.status == 412:
        current = reply.error().get("generation", "unknown")
        raise Failure(
            f"catalog {cluster} changed while pushing (generation {current}); not overwritten",
            NOT_SELECTED,
        )
    if reply.status != 200:
        raise refusal(reply, sent)
    if options["output"] == "table":
        _summary(reply.json(), sent)
    else:
        echo_answer(reply, options["output"])


def _empty_replace(cluster: str, stored: object) -> Failure:
    """rules §17 "No silent wipe": what an empty ``kubectl get`` would do, refused."""
    return Failure(
        f"the files hold no object to store: not replacing the {stored} objects of catalog "
        f"{cluster} with none; add --allow-empty to empty it"
    )


def current_info(api: Api, path: str, cluster: str, create: bool) -> Reply:
    """The cluster's answer (generation, counts), after creating it (``--create``) if it is
    new."""
    reply = api.call("GET", path)
    if reply.status == 404 and reply.error().get("code") == "ClusterNotFound":
        if not create:
            raise Failure(f"the service has no cluster {cluster}: add --create to create it")
        reply = api.call("PUT", path, body=b"{}")
        if reply.status not in (200, 201):
            raise refusal(reply, Sent())
    elif reply.status != 200:
        raise refusal(reply, Sent())
    return reply


def _generation(reply: Reply) -> int:
    generation = reply.json().get("generation")
    if not isinstance(generation, int):
        raise Failure("the service's answer holds no generation", BAD_INPUT)
    return generation


def _summary(answer: dict[str, Any], sent: Sent) -> None:
    counts = answer.get("counts") or {}
    stored = sum(counts.values())
    output.echo_lines(
        [
            f"cluster {answer['cluster']}: {stored} objects stored, generation "
            f"{answer['generation']}",
            *(f"  {kind}: {count}" for kind, count in counts.items()),
            *(
                f"ignored: {_origin(sent, item)}{item['kind'] or '<no kind>'} "
                f"{item['name'] or ''}: "
                f"{item['reason']}"
                for item in answer.get("ignored") or []
            ),
        ]
    )
    for warning in answer.get("warnings") or []:
        output.warn(warning)


def _origin(sent: Sent, item: dict[str, Any]) -> str:
    origin = sent.origin_of(item["kind"], item.get("namespace"), item.get("name"))
    return f"{origin}: " if origin else ""
