"""``ome-ranker impact --fleet`` (rules §19 "Fleet impact"): the change against every stored
catalog, the table with a CLUSTER column, the summary on stderr, ``--fail-on-change``'s exit 1
as the per-cluster impact's; against a real gunicorn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.builders import isvc_doc
from tests.cli.support import SEED, invoke

pytestmark = pytest.mark.gunicorn

CHAT = isvc_doc("chat", namespace="llama-demo", model={"name": "llama-3-2-3b-instruct"})


def _server(service) -> tuple[str, str]:
    return ("--server", f"http://127.0.0.1:{service.port}")


@pytest.fixture
def fleet(service, tmp_path: Path) -> Path:
    """Two catalogs of the seed and an InferenceService; the change that disables the runtime
    it selects."""
    documents = [d for d in yaml.safe_load_all(SEED.read_text()) if d is not None]
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(yaml.safe_dump_all([*documents, CHAT]))
    for name in ("fleet-a", "fleet-b"):
        pushed = invoke("push", name, "-f", str(catalog), "--create", *_server(service))
        assert pushed.exit_code == 0, pushed.stderr
    (team,) = [d for d in documents if d["kind"] == "ServingRuntime"]
    change = tmp_path / "change.yaml"
    change.write_text(yaml.safe_dump(dict(team, spec={**team["spec"], "disabled": True})))
    return change


def test_the_fleet_table_and_its_summary(service, fleet):
    shown = invoke("impact", "--fleet", "-f", str(fleet), *_server(service))
    assert shown.exit_code == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].split()[:3] == ["CLUSTER", "NAMESPACE", "INFERENCESERVICE"]
    rows = {tuple(line.split()[:5]) for line in lines[1:]}
    assert {
        ("fleet-a", "llama-demo", "chat", "llama-3-2-3b-instruct", "team-llama"),
        ("fleet-b", "llama-demo", "chat", "llama-3-2-3b-instruct", "team-llama"),
    } <= rows
    answer = json.loads(
        invoke("impact", "--fleet", "-f", str(fleet), "-o", "json", *_server(service)).stdout
    )
    assert shown.stderr == answer["summary"] + "\n"
    assert answer["summary"].startswith(f"{answer['count']} InferenceServices would change in ")


def test_fail_on_change_exits_1_as_the_per_cluster_impact(service, fleet):
    fleet_run = invoke("impact", "--fleet", "-f", str(fleet), "--fail-on-change", *_server(service))
    one = invoke(
        "impact", "--cluster", "fleet-a", "-f", str(fleet), "--fail-on-change", *_server(service)
    )
    assert fleet_run.exit_code == one.exit_code == 1
    assert fleet_run.stderr.splitlines()[-1] == one.stderr.splitlines()[-1]


def test_usage(service, fleet):
    both = invoke("impact", "--fleet", "--cluster", "fleet-a", "-f", str(fleet), *_server(service))
    assert (both.exit_code, both.stderr) == (
        2,
        "error: --fleet asks every cluster: drop --cluster\n",
    )
    assert invoke("impact", "--fleet", *_server(service)).exit_code == 2
    assert invoke("impact", "--fleet", "-f", str(fleet)).exit_code == 2  # no --server


def test_ci_formats_report_each_clusters_change(service, fleet):
    """``-o github``: one annotation per changed InferenceService of each cluster, at the
    change's manifest, its message led by the cluster."""
    shown = invoke(
        "impact", "--fleet", "-f", str(fleet), "-o", "github", "--fail-on-change", *_server(service)
    )
    assert shown.exit_code == 1, shown.stderr
    annotations = [line for line in shown.stdout.splitlines() if line.startswith("::error")]
    clusters = sorted(line.split("cluster ", 1)[1].split(":", 1)[0] for line in annotations)
    assert clusters[:2] == ["fleet-a", "fleet-b"]
    assert all("title=RuntimeChanged" in line for line in annotations)
