"""Prometheus metrics, correct under several gunicorn workers.

With ``PROMETHEUS_MULTIPROC_DIR`` set (config/gunicorn.conf.py sets it before any worker starts),
prometheus_client keeps every worker's values in files there and ``/metrics`` sums them, dead
workers' counts included. Without it (tests, ``flask run``) each app gets its own registry, so
two apps in one process never share a count.

Cache counters are mirrored from the cache's own (``RankingCache.stats()``): after each request
and before each scrape the increase since the last look is added, so the cache stays the single
place that decides what a hit, a miss or an error is.

The gauges about the domain (``ome_ranker_build_info``, each catalog's last write, its
InferenceServices by outcome: docs/rules.md §21) are not kept in any worker: they are made at
scrape time from the store (``DomainFigures``), so every worker answers the same whatever it
served, no state is shared between workers, and a cluster deleted is gone from the next scrape.
The counts are cached per generation, so a scrape of an unchanged fleet only reads them
(app/http/fleet_reads.py).

The gauges of the token file and of the catalog store are set where /readyz reads them
(app/http/readiness.py), each time, and the token file's when the app starts; one nothing has
set is absent, not 0. Every worker reads the same file and the same store, so across workers
the value set last is the truth (``livemostrecent``): a worker that has not been probed since a
file was fixed does not hold the gauge at 0 (as ``livemin`` would), and one that was recycled
leaves nothing behind.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    values,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from config.settings import SettingsError

# The ``*_created`` series exist only in single-process mode; dropping them everywhere keeps the
# output of ``flask run`` and of gunicorn the same.
disable_created_metrics()

MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED_ENDPOINT = "unmatched"  # any path no route serves: one label value, not one per URL
# RankingCache.stats() key -> metric name and help text.
CACHE_COUNTERS = {
    "hits": ("ome_ranker_cache_hits", "Answers served from the ranking cache."),
    "misses": ("ome_ranker_cache_misses", "Answers computed and stored after a cache miss."),
    "bypasses": ("ome_ranker_cache_bypasses", "Answers computed without reading the cache."),
    "errors": ("ome_ranker_cache_errors", "Failed cache operations (answered uncached)."),
    "corrupt": ("ome_ranker_cache_corrupt_entries", "Cache entries that failed verification."),
    "skipped": (
        "ome_ranker_cache_skipped",
        "Cache operations skipped: circuit breaker open or an earlier failure in the request.",
    ),
}
# What /readyz reads, as gauges: key -> metric name and help text.
HEALTH_GAUGES = {
    "tokens_in_force": (
        "ome_ranker_tokens_in_force",
        "Tokens in force (0: every catalog request is refused).",
    ),
    "tokens_file_ok": (
        "ome_ranker_tokens_file_ok",
        "1 when the tokens in force are what the token file says; 0 while a version that does "
        "not parse is ignored and the last good tokens stay in force.",
    ),
    "store_up": (
        "ome_ranker_store_up",
        "1 when the catalog store answered its last check; 0 when it did not (down) or refused "
        "this service (wrong credentials, a file it cannot open or write).",
    ),
}
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
SELECTION_BUCKETS = (
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
)  # fmt: skip
RUNTIME_BUCKETS = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 10000)


def multiprocess_dir() -> str | None:
    """The multiprocess directory, checked at start-up; None in single-process mode."""
    path = os.environ.get(MULTIPROC_DIR_VARIABLE) or None
    if path is None:
        return None
    if not os.path.isdir(path):
        raise SettingsError(f"{MULTIPROC_DIR_VARIABLE} must be an existing directory: {path!r}")
    if values.ValueClass is values.MutexValue:
        # prometheus_client picks its storage once, on import: counts would stay in memory.
        raise SettingsError(
            f"{MULTIPROC_DIR_VARIABLE} was set after prometheus_client was imported; "
            "set it before the process starts"
        )
    return path


class ServiceMetrics:
    """The service's metrics; one per app, in ``app.extensions["metrics"]``."""

    def __init__(self, multiproc_dir: str | None) -> None:
        self.multiproc_dir = multiproc_dir
        # In multiprocess mode values live in files and are collected from there.
        self.registry = None if multiproc_dir else CollectorRegistry()
        labels = ("endpoint", "method", "status")
        self.requests = Counter(
            "ome_ranker_http_requests", "HTTP requests answered.", labels, registry=self.registry
        )
        self.latency = Histogram(
            "ome_ranker_http_request_duration_seconds",
            "Time from the request reaching the app to the response leaving it.",
            labels,
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.runtimes = Histogram(
            "ome_ranker_request_runtimes",
            "Runtimes in each request that was decoded (not answered from the request-keyed "
            "cache, which never decodes the body).",
            ("endpoint",),
            buckets=RUNTIME_BUCKETS,
            registry=self.registry,
        )
        self.selection = Histogram(
            "ome_ranker_selection_duration_seconds",
            "Time spent ranking (the selection rules alone, no decoding or rendering).",
            ("endpoint",),
            buckets=SELECTION_BUCKETS,
            registry=self.registry,
        )
        self.cache = {
            key: Counter(name, text, registry=self.registry)
            for key, (name, text) in CACHE_COUNTERS.items()
        }
        self._cache_seen: dict[str, int] = dict.fromkeys(CACHE_COUNTERS, 0)
        self._cache_lock = threading.Lock()
        # Per worker (a ``pid`` label under gunicorn): each holds its own, and a sum would hide
        # the one about to run out of memory.
        self.cache_bytes = Gauge(
            "ome_ranker_cache_bytes",
            "Bytes this worker's in-process caches hold: hot (decoded answers), local (the "
            "embedded cache's frames, without Redis).",
            ("layer",),
            registry=self.registry,
            multiprocess_mode="liveall",
        )
        # Made on first use, so that a gauge nothing has set yet is absent, not 0.
        self._health: dict[str, Gauge] = {}
        self._health_lock = threading.Lock()

    def observe_request(
        self, endpoint: str | None, method: str, status: int, seconds: float
    ) -> None:
        labels = (
            endpoint or UNMATCHED_ENDPOINT,
            method if method in KNOWN_METHODS else "other",
            str(status),
        )
        self.requests.labels(*labels).inc()
        self.latency.labels(*labels).observe(seconds)

    def observe_runtimes(self, endpoint: str, runtime_count: int) -> None:
        self.runtimes.labels(endpoint).observe(runtime_count)

    def observe_selection(self, endpoint: str, seconds: float) -> None:
        self.selection.labels(endpoint).observe(seconds)

    def observe_cache_bytes(self, held: Mapping[str, int]) -> None:
        for layer, size in held.items():
            self.cache_bytes.labels(layer).set(size)

    def sync_cache(self, stats: Mapping[str, int]) -> None:
        """Add what the cache counted since the last call."""
        with self._cache_lock:
            for key, counter in self.cache.items():
                total = stats.get(key, 0)
                if total > self._cache_seen[key]:
                    counter.inc(total - self._cache_seen[key])
                self._cache_seen[key] = total

    def observe_tokens(self, tokens: int, file_ok: bool) -> None:
        self._health_gauge("tokens_in_force").set(tokens)
        self._health_gauge("tokens_file_ok").set(1 if file_ok else 0)

    def observe_store(self, up: bool) -> None:
        self._health_gauge("store_up").set(1 if up else 0)

    def _health_gauge(self, key: str) -> Gauge:
        with self._health_lock:
            gauge = self._health.get(key)
            if gauge is None:
                name, text = HEALTH_GAUGES[key]
                # Every worker reads the same file and the same store: the value set last is
                # the truth (see the module's docstring).
                gauge = Gauge(
                    name, text, registry=self.registry, multiprocess_mode="livemostrecent"
                )
                self._health[key] = gauge
            return gauge

    def exposition(self, domain: DomainFigures | None = None) -> tuple[bytes, str]:
        """The text format body and its content type; with the gauges of ``domain``."""
        registry = self.registry
        if registry is None:
            registry = CollectorRegistry()
            MultiProcessCollector(registry, path=self.multiproc_dir)
        collected = _Collected(registry, () if domain is None else domain.families())
        # 0.0.4, not prometheus_client's newer default: every Prometheus version reads it, and
        # for names like ours (plain ASCII) the body is the same.
        return generate_latest(collected), CONTENT_TYPE_PLAIN_0_0_4


@dataclass(frozen=True, slots=True)
class CatalogFigures:
    """One stored catalog at scrape time: when it was last written (seconds since the epoch)
    and its InferenceServices by outcome (None: not counted in this scrape, rules §21)."""

    cluster: str
    updated: float
    outcomes: Mapping[str, int] | None
    changes: int | None = None  # selection changes recorded since the cluster was created
    synced: float | None = None  # when its objects were last replaced (a sync), changed or not


@dataclass(frozen=True, slots=True)
class DomainFigures:
    """What the domain's gauges say at one scrape; labels bounded by the number of clusters
    (``OME_RANKER_MAX_CLUSTERS``) times the six outcomes."""

    version: str
    catalogs: tuple[CatalogFigures, ...] = ()

    def families(self) -> list[Metric]:
        build = GaugeMetricFamily(
            "ome_ranker_build_info", "Always 1; the running version.", labels=("version",)
        )
        build.add_metric((self.version,), 1)
        updated = GaugeMetricFamily(
            "ome_ranker_catalog_updated_timestamp_seconds",
            "When the cluster's catalog was last written (a write that changed something).",
            labels=("cluster",),
        )
        services = GaugeMetricFamily(
            "ome_ranker_inferenceservices",
            "The cluster's InferenceServices by outcome (docs/rules.md §21): selected, explicit "
            "and noRuntime split them; refused, classUnknown and classError count among them.",
            labels=("cluster", "outcome"),
        )
        synced = GaugeMetricFamily(
            "ome_ranker_catalog_synced_timestamp_seconds",
            "When the cluster's objects were last replaced (a sync), whether anything changed.",
            labels=("cluster",),
        )
        changes = CounterMetricFamily(
            "ome_ranker_selection_changes",
            "InferenceServices whose outcome a write to the cluster's catalog changed, since the "
            "cluster was created (its selection history's newest seq, docs/rules.md §17).",
            labels=("cluster",),
        )
        for catalog in self.catalogs:
            updated.add_metric((catalog.cluster,), catalog.updated)
            for outcome, count in (catalog.outcomes or {}).items():
                services.add_metric((catalog.cluster, outcome), count)
            if catalog.changes is not None:
                changes.add_metric((catalog.cluster,), catalog.changes)
            if catalog.synced is not None:
                synced.add_metric((catalog.cluster,), catalog.synced)
        return [build, updated, synced, services, changes]


class _Collected:
    """A registry's metrics and some made at scrape time, as one collector."""

    def __init__(self, registry: CollectorRegistry, extra: Iterable[Metric]) -> None:
        self.registry = registry
        self.extra = extra

    def collect(self) -> Iterator[Metric]:
        yield from self.registry.collect()
        yield from self.extra
