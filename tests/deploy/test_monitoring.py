"""deploy/kubernetes/components/monitoring, as the production overlay renders it: the
PrometheusRule checked and its alerts fired by ``promtool`` (Debian's ``prometheus`` package,
which .ci/run installs), the Grafana dashboard's JSON, and every metric either reads is one the
service exports (docs/operations.md "Alerts")."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from app.metrics import CatalogFigures, DomainFigures, ServiceMetrics
from tests.deploy.support import NAMESPACE, find, installed, one, render

pytestmark = pytest.mark.kubectl

METRIC = re.compile(r"\bome_ranker_[a-z_]+\b")
SYNC_PERIOD = 300  # deploy/kubernetes/sync/cronjob.yaml: every 5 minutes


def promtool() -> str:
    return installed("promtool", "(.ci/run installs Debian's prometheus)")


def rule_groups() -> dict:
    rule = one(render("overlays/production"), "PrometheusRule", "ome-ranker")
    assert rule["metadata"]["namespace"] == NAMESPACE
    return {"groups": rule["spec"]["groups"]}


def dashboard() -> dict:
    config = one(render("overlays/production"), "ConfigMap", "ome-ranker-dashboard")
    assert config["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert config["metadata"]["namespace"] == NAMESPACE
    (text,) = config["data"].values()
    return json.loads(text)


def exported_names() -> set[str]:
    """Every series name the service's /metrics can hold: its families, with the suffixes the
    exposition adds to counters and histograms."""
    metrics = ServiceMetrics(None)
    metrics.observe_runtimes("/v1/rank", 1)
    domain = DomainFigures("0", (CatalogFigures("c", 1.0, {"noRuntime": 1}, 1, 1.0),))
    text = metrics.exposition(domain)[0].decode()
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        names.add(name)
        if kind == "counter":
            names.add(f"{name}_total")
        if kind == "histogram":
            names.update(f"{name}_{suffix}" for suffix in ("bucket", "sum", "count"))
    return names


def expressions() -> list[str]:
    rules = [rule["expr"] for group in rule_groups()["groups"] for rule in group["rules"]]
    board = dashboard()
    panels = [target["expr"] for panel in board["panels"] for target in panel["targets"]]
    variables = [v["definition"] for v in board["templating"]["list"] if "definition" in v]
    return rules + panels + variables


def test_every_metric_the_rules_and_the_dashboard_read_is_exported():
    read = {name for expr in expressions() for name in METRIC.findall(expr)}
    assert read, "no metric read"
    assert sorted(read - exported_names()) == []


def test_promtool_checks_the_rules(tmp_path: Path):
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump(rule_groups()))
    checked = subprocess.run(
        [promtool(), "check", "rules", str(rules)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_each_alert_fires_on_what_it_is_about_and_not_before(tmp_path: Path):
    """``promtool test rules``: one cluster synced on time and one whose sync stopped; no
    InferenceService without a runtime, then two more; selection changes after a write."""
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(rule_groups()))
    # The timestamps are in seconds from the test's start (time() there); two pods each.
    fresh = " ".join(str(60 * minute) for minute in range(0, 61))
    stale = " ".join(["0"] * 61)
    cases = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [
                    *(
                        {
                            "series": "ome_ranker_catalog_synced_timestamp_seconds"
                            f'{{cluster="{cluster}",pod="{pod}"}}',
                            "values": values,
                        }
                        for cluster, values in (("east", fresh), ("west", stale))
                        for pod in ("a", "b")
                    ),
                    # east's catalog has not changed since the start: synced, it is not stale.
                    {
                        "series": 'ome_ranker_catalog_updated_timestamp_seconds{cluster="east"}',
                        "values": stale,
                    },
                    {
                        "series": "ome_ranker_inferenceservices"
                        '{cluster="east",outcome="noRuntime",pod="a"}',
                        "values": "0x40 2x40",
                    },
                    *(
                        {
                            "series": "ome_ranker_selection_changes_total"
                            f'{{cluster="east",pod="{pod}"}}',
                            "values": "0x30 3x30",
                        }
                        for pod in ("a", "b")  # every pod reads the same count from the store
                    ),
                ],
                "alert_rule_test": [
                    {"eval_time": "14m", "alertname": "OmeRankerCatalogStale", "exp_alerts": []},
                    {
                        "eval_time": "25m",
                        "alertname": "OmeRankerCatalogStale",
                        "exp_alerts": [
                            {
                                "exp_labels": {"cluster": "west", "severity": "warning"},
                                "exp_annotations": {
                                    "summary": "The catalog of west has not been synced for 25m 0s",
                                    "description": "No sync reached cluster west's catalog for "
                                    "three sync periods: check the ome-ranker-sync CronJob in "
                                    "that cluster (its last Job's logs, its token).",
                                },
                            }
                        ],
                    },
                    {
                        "eval_time": "39m",
                        "alertname": "OmeRankerInferenceServicesWithoutRuntimeRising",
                        "exp_alerts": [],
                    },
                    {
                        "eval_time": "55m",
                        "alertname": "OmeRankerInferenceServicesWithoutRuntimeRising",
                        "exp_alerts": [
                            {
                                "exp_labels": {"cluster": "east", "severity": "warning"},
                                "exp_annotations": {
                                    "summary": "2 InferenceServices of east get no runtime, more "
                                    "than 30 minutes before",
                                    "description": "A sync left more InferenceServices of cluster "
                                    "east without a runtime: GET /v1/clusters/east/selections "
                                    "lists them with OME's reason.",
                                },
                            }
                        ],
                    },
                    {
                        "eval_time": "29m",
                        "alertname": "OmeRankerSelectionsChanged",
                        "exp_alerts": [],
                    },
                    {
                        "eval_time": "35m",
                        "alertname": "OmeRankerSelectionsChanged",
                        "exp_alerts": [
                            {
                                "exp_labels": {"cluster": "east", "severity": "info"},
                                "exp_annotations": {
                                    "summary": "3 InferenceServices of east changed runtime or "
                                    "class after a sync",
                                    "description": "GET /v1/clusters/east/history says which, "
                                    "from what to what, and after which generation.",
                                },
                            }
                        ],
                    },
                ],
            }
        ],
    }
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(cases, sort_keys=False))
    tested = subprocess.run(
        [promtool(), "test", "rules", "tests.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_the_stale_threshold_is_three_sync_periods():
    cronjob = one(render("sync"), "CronJob")
    assert cronjob["spec"]["schedule"] == f"*/{SYNC_PERIOD // 60} * * * *"
    (stale,) = [
        rule
        for group in rule_groups()["groups"]
        for rule in group["rules"]
        if rule.get("alert") == "OmeRankerCatalogStale"
    ]
    assert stale["expr"].endswith(f"> 3 * {SYNC_PERIOD}")


def test_the_dashboard_is_one_grafana_reads():
    board = dashboard()
    assert board["uid"] == "ome-ranker" and board["title"]
    ids = [panel["id"] for panel in board["panels"]]
    assert len(ids) == len(set(ids))
    cells = set()
    for panel in board["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24 and grid["h"] > 0
        taken = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not taken & cells, f"panel {panel['id']} overlaps another"
        cells |= taken
        # Every query goes to the data source the dashboard's variable chooses.
        assert panel["datasource"]["uid"] == "${datasource}"
        assert all(target["datasource"]["uid"] == "${datasource}" for target in panel["targets"])
    names = [variable["name"] for variable in board["templating"]["list"]]
    assert names == ["datasource", "cluster"]


def test_only_the_production_overlay_takes_the_monitoring():
    for overlay in ("in-cluster-redis", "external-redis", "external-redis-cluster"):
        objects = render(f"overlays/{overlay}")
        assert not find(objects, "PrometheusRule")
        assert not find(objects, "ConfigMap", "ome-ranker-dashboard")
