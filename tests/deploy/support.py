"""deploy/kubernetes as the deploy tests read it: every kustomization rendered once with `kubectl
kustomize` (skipped without kubectl, failed under CI=true), the objects found in it, and the
values its manifests hold (quantities, Redis sizes, the service's settings)."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from tests.paths import ROOT

KUBE = ROOT / "deploy" / "kubernetes"
README = KUBE / "README.md"
# The oldest and the newest release the manifests must apply to (deploy/kubernetes/README.md);
# kubernetes-validate ships the schemas of both.
KUBERNETES_VERSION = "1.33.0"
KUBERNETES_VERSIONS = (KUBERNETES_VERSION, "1.37.0")

OVERLAYS = ("in-cluster-redis", "external-redis", "external-redis-cluster", "production")
IN_CLUSTER_REDIS = ("in-cluster-redis", "production")
EXTERNAL_REDIS = ("external-redis", "external-redis-cluster")
SYNC = ("sync", "examples/sync-prod-east")
KUSTOMIZATIONS = (
    *(f"overlays/{overlay}" for overlay in OVERLAYS),
    *(f"migrate/{overlay}" for overlay in OVERLAYS),
    *SYNC,
)
NAMESPACE = "ome-ranker"
SYNC_NAMESPACE = "ome-ranker-sync"
CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding", "Namespace"}
# Kinds of CRDs that kubernetes-validate has no schema for: checked by their own tests.
CRD_KINDS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
}
# What runtime selection and placement read, and so all that the sync job may read (SPEC §17,
# §20.8).
OME_RESOURCES = {
    "acceleratorclasses",
    "servingruntimes",
    "clusterservingruntimes",
    "basemodels",
    "clusterbasemodels",
    "inferenceservices",
}
# The environment `ome-ranker push` reads (its defaults for --server, --token, --ca-file) and
# the cluster's name the CronJob passes it.
PUSH_ENVIRONMENT = {
    "OME_RANKER_SERVER",
    "OME_RANKER_TOKEN",
    "OME_RANKER_CLUSTER",
    "OME_RANKER_CA_FILE",
}
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
GRACEFUL_TIMEOUT_DEFAULT = 20  # OME_RANKER_GRACEFUL_TIMEOUT's default (config/settings.py)
# The in-cluster Redis's password: a Secret the README creates, as it does the tokens'.
REDIS_PASSWORD_REF = {"secretKeyRef": {"name": "ome-ranker-redis-auth", "key": "password"}}
# Where kubectl's in-cluster configuration reads the token, the CA and the namespace.
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


# --- rendering ------------------------------------------------------------------------------------


def kubectl() -> str:
    return installed("kubectl", "(.ci/run installs it): cannot render deploy/")


def installed(tool: str, why: str) -> str:
    """The path of ``tool``; without it the test is skipped, or failed under CI=true (the
    message: ``<tool> is not installed <why>``)."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{tool} is not installed {why}")
        pytest.skip(f"{tool} is not installed")
    return path


def _documents(directory: Path, returncode: int, stdout: str, stderr: str) -> list[dict]:
    if returncode != 0:
        pytest.fail(f"kubectl kustomize {directory} failed:\n{stderr}")
    return [document for document in yaml.load_all(stdout, Loader=LOADER) if document]


def kustomize(directory: Path) -> list[dict]:
    result = subprocess.run(
        [kubectl(), "kustomize", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return _documents(directory, result.returncode, result.stdout, result.stderr)


@functools.cache
def _rendered_all() -> dict[str, tuple[int, str, str]]:
    """Every kustomization of the repository rendered at once (kubectl takes ~0.3 s each)."""
    binary = kubectl()
    processes = {
        directory: subprocess.Popen(
            [binary, "kustomize", str(KUBE / directory)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for directory in KUSTOMIZATIONS
    }
    results = {}
    for directory, process in processes.items():
        stdout, stderr = process.communicate(timeout=60)
        results[directory] = (process.returncode, stdout, stderr)
    return results


def render(directory: str) -> list[dict]:
    """What `kubectl apply -k deploy/kubernetes/<directory>` would apply (a copy: tests may
    change it)."""
    return copy.deepcopy(_parsed(directory))


@functools.cache
def _parsed(directory: str) -> list[dict]:
    return _documents(KUBE / directory, *_rendered_all()[directory])


# --- helpers --------------------------------------------------------------------------------------


def find(objects: list[dict], kind: str, name: str | None = None) -> list[dict]:
    return [
        obj
        for obj in objects
        if obj["kind"] == kind and (name is None or obj["metadata"]["name"] == name)
    ]


def one(objects: list[dict], kind: str, name: str | None = None) -> dict:
    found = find(objects, kind, name)
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def pod_template(obj: dict) -> dict:
    if obj["kind"] == "CronJob":
        return obj["spec"]["jobTemplate"]["spec"]["template"]
    return obj["spec"]["template"]


def workloads(objects: list[dict]) -> list[dict]:
    return [
        obj for obj in objects if obj["kind"] in {"Deployment", "StatefulSet", "Job", "CronJob"}
    ]


def all_containers(pod: dict) -> list[dict]:
    return pod.get("initContainers", []) + pod["containers"]


def container(pod: dict, name: str) -> dict:
    (found,) = [item for item in all_containers(pod) if item["name"] == name]
    return found


def environment(item: dict) -> dict[str, dict]:
    names = [variable["name"] for variable in item.get("env", [])]
    assert len(names) == len(set(names)), f"{item['name']}: a variable is set twice: {names}"
    return {variable["name"]: variable for variable in item.get("env", [])}


def selects(selector: dict, labels: dict) -> bool:
    return bool(selector) and selector.items() <= labels.items()


def service_deployment(objects: list[dict]) -> tuple[dict, dict, dict]:
    deployment = one(objects, "Deployment", "ome-ranker")
    pod = pod_template(deployment)["spec"]
    return deployment, pod, container(pod, "ome-ranker")


_UNITS = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def quantity(value: str | int) -> float:
    """A Kubernetes quantity (``500m``, ``1Gi``, ``2``) as a number."""
    match = re.fullmatch(r"([0-9.]+)(m|k|M|G|Ki|Mi|Gi)?", str(value))
    assert match, f"not a quantity this test knows: {value!r}"
    return float(match[1]) * _UNITS.get(match[2] or "", 1)


def redis_bytes(value: str) -> int:
    match = re.fullmatch(r"(\d+)(kb|mb|gb)?", value.lower())
    assert match, value
    return int(match[1]) * {"kb": 2**10, "mb": 2**20, "gb": 2**30}.get(match[2] or "", 1)


def setting_names() -> set[str]:
    """The variables the service's settings and gunicorn config read."""
    names = set()
    for path in (ROOT / "config" / "settings.py", ROOT / "config" / "gunicorn.conf.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"[\"']((?:OME_RANKER|REDIS|PROMETHEUS)_[A-Z_]+)[\"']", text))
    return names


@functools.cache
def validate(serialized: str, version: str) -> None:
    """kubernetes-validate, strict, once per distinct object (overlays share most of theirs)."""
    kubernetes_validate.validate(json.loads(serialized), version, strict=True)


def readme() -> str:
    return README.read_text(encoding="utf-8")
