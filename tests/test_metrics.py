"""ServiceMetrics: cache counters mirrored by increments, and prometheus multiprocess mode
summing several processes as gunicorn's workers are summed, and the gauges about the
domain, made at scrape time."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from app.metrics import (
    MULTIPROC_DIR_VARIABLE,
    CatalogFigures,
    DomainFigures,
    ServiceMetrics,
    multiprocess_dir,
)
from app.version import __version__
from config.settings import SettingsError
from tests.paths import ROOT


def sample(metrics: ServiceMetrics, line_start: str) -> float:
    for line in generate_latest(metrics.registry).decode().splitlines():
        if line.startswith(line_start + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no sample {line_start}")


def test_cache_counters_follow_the_cache_stats():
    metrics = ServiceMetrics(None)
    metrics.sync_cache({"hits": 3, "misses": 1, "errors": 0})
    metrics.sync_cache({"hits": 5, "misses": 1, "errors": 2, "skipped": 1})
    assert sample(metrics, "ome_ranker_cache_hits_total") == 5
    assert sample(metrics, "ome_ranker_cache_misses_total") == 1
    assert sample(metrics, "ome_ranker_cache_errors_total") == 2
    assert sample(metrics, "ome_ranker_cache_skipped_total") == 1
    # A cache that starts again from zero (a new cache object) only ever adds.
    metrics.sync_cache({"hits": 1})
    metrics.sync_cache({"hits": 2})
    assert sample(metrics, "ome_ranker_cache_hits_total") == 6


def test_labels_stay_bounded():
    metrics = ServiceMetrics(None)
    metrics.observe_request(None, "PROPFIND", 405, 0.01)
    metrics.observe_request("/v1/rank", "POST", 200, 0.01)
    text = generate_latest(metrics.registry).decode()
    assert 'endpoint="unmatched",method="other",status="405"' in text
    assert 'endpoint="/v1/rank",method="POST",status="200"' in text
    assert "_created" not in text


def test_single_process_mode_without_the_variable(monkeypatch):
    monkeypatch.delenv(MULTIPROC_DIR_VARIABLE, raising=False)
    assert multiprocess_dir() is None


def test_a_missing_multiprocess_directory_stops_start_up(monkeypatch, tmp_path):
    monkeypatch.setenv(MULTIPROC_DIR_VARIABLE, str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match=MULTIPROC_DIR_VARIABLE):
        multiprocess_dir()


def test_a_directory_set_after_prometheus_client_was_imported_stops_start_up(monkeypatch, tmp_path):
    # This process imported prometheus_client without the variable: counts would stay in memory.
    monkeypatch.setenv(MULTIPROC_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(SettingsError, match="after prometheus_client was imported"):
        multiprocess_dir()


WORKER = textwrap.dedent(
    """
    import os
    import sys
    from app import create_app
    from config.settings import TestConfig

    config = TestConfig()
    # A catalog file in the test's directory (the collector reads only its *.db files).
    config.STORE_PATH = os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], "catalog.sqlite3")
    client = create_app(config).test_client()
    for _ in range(int(sys.argv[1])):
        assert client.get("/healthz").status_code == 200
    if len(sys.argv) > 2:
        sys.stdout.write(client.get("/metrics").get_data(as_text=True))
    """
)


def run_worker(directory: Path, *args: str, script: str = WORKER) -> str:
    env = {**os.environ, MULTIPROC_DIR_VARIABLE: str(directory)}
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_multiprocess_mode_sums_every_process(tmp_path):
    run_worker(tmp_path, "3")
    run_worker(tmp_path, "4")
    text = run_worker(tmp_path, "5", "scrape")
    healthz = 'ome_ranker_http_requests_total{endpoint="/healthz",method="GET",status="200"}'
    (line,) = [line for line in text.splitlines() if line.startswith(healthz)]
    assert float(line.split()[-1]) == 3 + 4 + 5
    assert len(list(tmp_path.glob("counter_*.db"))) == 3


PUSH_OR_SCRAPE = textwrap.dedent(
    """
    import os
    import sys
    from app import create_app
    from config.settings import TestConfig

    config = TestConfig()
    config.STORE_PATH = os.path.join(os.environ["PROMETHEUS_MULTIPROC_DIR"], "catalog.sqlite3")
    client = create_app(config).test_client()
    if sys.argv[1] == "push":
        assert client.put("/v1/clusters/east", json={}).status_code == 201
        pushed = client.put(
            "/v1/clusters/east/objects",
            data=open(sys.argv[2], "rb").read(),
            headers={"Content-Type": "application/yaml"},
        )
        assert pushed.status_code == 200
        assert client.get("/metrics").status_code == 200
    else:
        sys.stdout.write(client.get("/metrics").get_data(as_text=True))
    """
)


def test_in_multiprocess_mode_the_domain_gauges_are_the_stores_once(tmp_path):
    """Made at scrape time, they are neither summed over the processes nor missing from one
    that served nothing: a worker that only scrapes sees what another stored."""
    seed = ROOT / "tests" / "fixtures" / "kubectl_get_seed_cluster.yaml"
    run_worker(tmp_path, "push", str(seed), script=PUSH_OR_SCRAPE)
    text = run_worker(tmp_path, "scrape", script=PUSH_OR_SCRAPE)
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert [line for line in lines if line.startswith("ome_ranker_build_info")] == [
        f'ome_ranker_build_info{{version="{__version__}"}} 1.0'
    ]
    services = [line for line in lines if line.startswith("ome_ranker_inferenceservices{")]
    assert len(services) == 6
    split = sum(
        float(line.split()[-1])
        for line in services
        if any(f'outcome="{name}"' in line for name in ("selected", "explicit", "noRuntime"))
    )
    assert split == 2  # the seed cluster's two InferenceServices, once


def test_the_domain_gauges_of_one_scrape():
    metrics = ServiceMetrics(None)
    domain = DomainFigures(
        "9.9.9",
        (
            CatalogFigures("east", 1796434081.5, {"selected": 3, "noRuntime": 1}),
            CatalogFigures("west", 1796434000.0, None),  # not counted in this scrape
        ),
    )
    text = metrics.exposition(domain)[0].decode()
    assert 'ome_ranker_build_info{version="9.9.9"} 1.0' in text
    assert 'ome_ranker_catalog_updated_timestamp_seconds{cluster="east"} 1.7964340815e+09' in text
    assert 'ome_ranker_catalog_updated_timestamp_seconds{cluster="west"}' in text
    assert 'ome_ranker_inferenceservices{cluster="east",outcome="selected"} 3.0' in text
    assert 'ome_ranker_inferenceservices{cluster="east",outcome="noRuntime"} 1.0' in text
    assert 'cluster="west",outcome' not in text
    # Made for one scrape only: nothing of them stays in the registry.
    plain = metrics.exposition()[0].decode()
    assert "ome_ranker_build_info" not in plain and "east" not in plain


def test_the_runtimes_histogram_has_its_conventional_name():
    metrics = ServiceMetrics(None)
    metrics.observe_runtimes("/v1/rank", 3)
    text = generate_latest(metrics.registry).decode()
    assert 'ome_ranker_request_runtimes_count{endpoint="/v1/rank"} 1.0' in text
    assert "runtimes_per_request" not in text
