"""Each cluster's InferenceServices counted by outcome (rules §21), cached per generation, for
``GET /v1/fleet``, ``GET /v1/clusters`` and the metrics of ``/metrics``.

A cluster's counts are an answer about its catalog like any other (rules §16, §17 "Fast"):
cached under its uid and generation (app/cache/keys.py ``catalog_key``), so a write makes
them unreachable and a poll of an unchanged fleet reads one small entry per cluster (from
this worker's decoded answers when it holds them). What they depend on that is not in the
documents (lint reads whether an engine has a complete runner, and the stored manifests), is
read with them, from one snapshot of the catalog.

Bounded (rules §17 "Bounded work"): for ``GET /v1/fleet`` (``fleet_outcomes``) the work of
every cluster whose counts are not cached is counted before any starts, summed, and refused
over ``OME_RANKER_MAX_RUNTIME_CHECKS``; the list and the metrics, which answer whatever the
counts cost (``bounded_outcomes``), count what fits and leave the rest for the next request.
The request's deadline holds inside each cluster's rules and between clusters.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from flask import current_app

from app import errors
from app.cache import CacheSession
from app.reading.object_streams import has_full_runner
from app.rendering.encode import to_json
from app.rendering.payloads import JSON_MIME, Answer
from app.selection import RULES_VERSION
from app.selection.outcome_counts import OUTCOMES, OutcomeCounts, outcome_counts, planned_work
from app.selection.values import DeadlinePassed
from app.store import CatalogDocuments, ClusterInfo, Generation, StoreError

from . import cached, deadline
from .catalog_reads import answer_key
from .limits import MAX_RUNTIME_CHECKS, check_runtimes, limit_exceeded

if TYPE_CHECKING:
    from app.auth import Token
    from app.store import CatalogStore

log = logging.getLogger("app.catalog")
T = TypeVar("T")

# What the counts are, in their cache key (beside the cluster's uid and generation).
QUESTION = ["outcomes"]
ISVC_KIND = "InferenceService"


@dataclass(frozen=True, slots=True)
class ClusterOutcomes:
    """A cluster's counts and the info of the generation they were computed from (a write
    that landed after the cluster was listed is the one counted, and the one answered)."""

    info: ClusterInfo
    counts: OutcomeCounts


def counts_body(counts: OutcomeCounts) -> dict[str, int]:
    """``{"total": …, "selected": …, …}``, the outcomes in rules §21's order."""
    return {"total": counts.total, **counts.by_outcome()}


def _encoded(counts: OutcomeCounts) -> Answer:
    return Answer(200, JSON_MIME, to_json(counts_body(counts)))


def _decoded(answer: Answer) -> OutcomeCounts | None:
    """The counts of a cached entry; None for one this version does not read (a key of the
    same rules version holds the same fields, so only damage gets here)."""
    try:
        body = json.loads(answer.body)
        by_name = {name: int(body[name]) for name in ("total", *OUTCOMES)}
    except (ValueError, KeyError, TypeError):
        return None
    return OutcomeCounts(
        total=by_name["total"],
        selected=by_name["selected"],
        explicit=by_name["explicit"],
        no_runtime=by_name["noRuntime"],
        refused=by_name["refused"],
        class_unknown=by_name["classUnknown"],
        class_error=by_name["classError"],
    )


def held(session: CacheSession, info: ClusterInfo) -> OutcomeCounts | None:
    """The cluster's counts at ``info``'s generation, if cached."""
    found = session.lookup(answer_key(session.cache.prefix, info, QUESTION))
    return None if found is None else _decoded(found)


def planned(store: CatalogStore, info: ClusterInfo) -> int | None:
    """The runtime checks counting the cluster's outcomes may cost (None: it is gone), after
    the bound every ranking of its runtimes meets (``check_runtimes``)."""
    documents: CatalogDocuments | None = store.read_documents(info.name)
    if documents is None:
        return None
    check_runtimes(len(documents.runtimes))
    return planned_work(documents.view())


def computed(session: CacheSession, store: CatalogStore, cluster: str) -> ClusterOutcomes | None:
    """The cluster's counts at its current generation, computed from one snapshot of its
    catalog and cached under that generation; None when it is gone."""
    catalog = store.read_catalog(cluster)
    if catalog is None:
        return None
    info = catalog.info
    key = answer_key(session.cache.prefix, info, QUESTION)
    with cached.computing(session, key) as found:
        counts = None if found is None else _decoded(found)
        if counts is None:
            objects = catalog.objects
            view = CatalogDocuments.of(info, (item.document for item in objects)).view()
            full_runners = frozenset(
                (item.namespace, item.name)
                for item in objects
                if item.kind == ISVC_KIND and has_full_runner(item.manifest)
            )
            manifests = {item.key: item.manifest for item in objects if item.kind == ISVC_KIND}
            counts = outcome_counts(view, full_runners, manifests)
            session.store({key: _encoded(counts)}, fresh=True)
    return ClusterOutcomes(info, counts)


def refuse_over_bound(work: int, clusters: int) -> None:
    """``LimitExceeded`` when the counts still to compute cost more than one request may."""
    if work > current_app.config[MAX_RUNTIME_CHECKS[0]]:
        raise limit_exceeded(
            MAX_RUNTIME_CHECKS,
            work,
            f"runtime checks (the InferenceServices' outcomes of {clusters} clusters not cached)",
        )


def fleet_outcomes(
    session: CacheSession,
    store: CatalogStore,
    infos: Iterable[ClusterInfo],
    check_work: Callable[[int, int], None] = refuse_over_bound,
) -> list[ClusterOutcomes]:
    """The counts of every cluster of ``infos`` that still exists, in their order: cached ones
    as found, the others computed once ``check_work(work, clusters)`` let their summed work
    through."""
    answered: dict[str, ClusterOutcomes] = {}
    missing: list[ClusterInfo] = []
    listed = list(infos)
    for info in listed:
        counts = held(session, info)
        if counts is None:
            missing.append(info)
        else:
            answered[info.name] = ClusterOutcomes(info, counts)
    if missing:
        costs = {info.name: planned(store, info) for info in missing}
        check_work(sum(cost or 0 for cost in costs.values()), len(missing))
        for info in missing:
            deadline.check()
            if costs[info.name] is None:
                continue
            found = computed(session, store, info.name)
            if found is not None:
                answered[info.name] = found
    return [answered[info.name] for info in listed if info.name in answered]


def age_seconds(info: ClusterInfo, now: datetime) -> int:
    """Whole seconds since the catalog's last write (0 for a clock that reads earlier)."""
    return max(0, int(now.timestamp() - timestamp(info)))


def readable_clusters(store: CatalogStore, token: Token) -> tuple[list[ClusterInfo], int]:
    """The clusters ``token`` may read, by name, and how many others there are (rules §17
    *Access*: counted, never named)."""
    return _readable(store.list_infos(), lambda info: info.name, token)


def _readable(found: list[T], name: Callable[[T], str], token: Token) -> tuple[list[T], int]:
    readable = [each for each in found if token.can_read(name(each))]
    return readable, len(found) - len(readable)


def fleet_etag(infos: Iterable[ClusterInfo], not_readable: int, synced: Mapping[str, str]) -> str:
    """``GET /v1/fleet``'s tag: what its answer says but the ages (each cluster's uid and
    generation, the rules, its last sync) and how many clusters are hidden."""
    return generations_etag(
        ((info.name, info.uid, info.generation, synced.get(info.name)) for info in infos),
        not_readable,
    )


def readable_generations(store: CatalogStore, token: Token) -> tuple[list[Generation], int]:
    """``readable_clusters`` as a fleet's poll needs it: the generations alone."""
    return _readable(store.list_generations(), lambda generation: generation[0], token)


def generations_etag(generations: Iterable[Generation], not_readable: int) -> str:
    """``fleet_etag`` of the clusters' (name, uid, generation, last sync)."""
    clusters = [list(each) for each in generations]
    state = [RULES_VERSION, not_readable, *clusters]
    return f'"fleet-{hashlib.sha256(to_json(state)).hexdigest()[:32]}"'


def bounded_outcomes(
    session: CacheSession | None, store: CatalogStore, infos: Iterable[ClusterInfo]
) -> list[tuple[ClusterInfo, OutcomeCounts | None]]:
    """For ``GET /v1/clusters`` and ``/metrics``, which answer whatever the counts cost: every
    cluster with its counts, cached ones as found; the others are computed, in order, while
    their summed work stays within the request's bound and its deadline has not passed. One
    that does not fit has no counts in this answer (None): the next request starts where this
    one stopped, since the computed ones are cached by then; one whose catalog cannot be read
    has none either. Without a cache (``session`` None), none is counted."""
    if session is None:
        return [(info, None) for info in infos]
    budget = current_app.config[MAX_RUNTIME_CHECKS[0]]
    scraped: list[tuple[ClusterInfo, OutcomeCounts | None]] = []
    late = False
    for info in infos:
        counts = held(session, info)
        if counts is None and not late:
            try:
                cost = planned(store, info)
                if cost is not None and cost <= budget:
                    deadline.check()
                    budget -= cost
                    found = computed(session, store, info.name)
                    if found is not None:
                        info, counts = found.info, found.counts
            except errors.LimitExceeded:
                pass  # more runtimes than one ranking may read: never counted
            except StoreError as failure:
                # One catalog that cannot be read (damaged, or the store failing on it) leaves
                # its own counts out, not the list or the scrape: the others are answered.
                log.warning("counts of cluster %s not read: %s", info.name, failure)
            except (errors.DeadlineExceeded, DeadlinePassed):
                late = True
        scraped.append((info, counts))
    return scraped


def timestamp(info: ClusterInfo) -> float:
    """The catalog's last write, in seconds since the epoch."""
    return seconds(info.updated_at)


def seconds(moment: str) -> float:
    """An RFC 3339 moment of the store's, in seconds since the epoch."""
    return datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp()
