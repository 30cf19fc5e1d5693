"""deploy/kubernetes: every kustomization rendered with `kubectl kustomize`, every object checked
against the Kubernetes API's OpenAPI schemas (kubernetes-validate, strict: unknown fields fail),
and the properties its README promises asserted on what kubectl would apply.

Without kubectl these tests skip, except under CI=true, where they fail (.ci/run installs it).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from app.auth import parse_tokens
from app.version import __version__
from config.settings import SettingsError
from tests.deploy.support import (
    CLUSTER_SCOPED,
    CRD_KINDS,
    EXTERNAL_REDIS,
    GRACEFUL_TIMEOUT_DEFAULT,
    IN_CLUSTER_REDIS,
    KUBE,
    KUBERNETES_VERSION,
    KUBERNETES_VERSIONS,
    KUSTOMIZATIONS,
    NAMESPACE,
    OME_RESOURCES,
    OVERLAYS,
    PUSH_ENVIRONMENT,
    REDIS_PASSWORD_REF,
    SERVICE_ACCOUNT_DIR,
    SYNC,
    SYNC_NAMESPACE,
    all_containers,
    container,
    environment,
    find,
    kustomize,
    one,
    pod_template,
    quantity,
    readme,
    redis_bytes,
    render,
    selects,
    service_deployment,
    setting_names,
    validate,
    workloads,
)
from tests.paths import ROOT

# --- every object is valid Kubernetes -------------------------------------------------------------


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("directory", KUSTOMIZATIONS)
def test_every_object_is_valid_against_the_api_schemas(directory, version):
    objects = render(directory)
    assert objects
    for obj in objects:
        if (obj["apiVersion"], obj["kind"]) in CRD_KINDS:
            continue
        where = f"{directory}: {obj['kind']} {obj['metadata'].get('name')} ({version})"
        try:
            validate(json.dumps(obj, sort_keys=True), version)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(part) for part in error.path)
            pytest.fail(f"{where}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError as error:
            pytest.fail(f"{where}: {error.message}")
    keys = [(obj["kind"], obj["metadata"]["name"]) for obj in objects]
    assert len(keys) == len(set(keys)), f"{directory}: an object appears twice"


def test_the_validation_is_strict():
    deployment = one(render("overlays/in-cluster-redis"), "Deployment")
    kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    typo = copy.deepcopy(deployment)
    typo["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, KUBERNETES_VERSION, strict=True)
    unnamed = copy.deepcopy(deployment)
    del unnamed["spec"]["template"]["spec"]["containers"][0]["name"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(unnamed, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize(
    "directory",
    [d for d in KUSTOMIZATIONS if d != "sync"],  # sync/: test_sync_base_is_...
)
def test_namespaced_objects_land_in_one_namespace(directory):
    expected = SYNC_NAMESPACE if directory in SYNC else NAMESPACE
    for obj in render(directory):
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in CLUSTER_SCOPED:
            assert namespace is None, obj["metadata"]["name"]
        else:
            assert namespace == expected, f"{obj['kind']} {obj['metadata']['name']}"


# --- pods -----------------------------------------------------------------------------------------


def _effective(item: dict, pod: dict, field: str):
    return item.get("securityContext", {}).get(field, pod.get("securityContext", {}).get(field))


@pytest.mark.parametrize("directory", KUSTOMIZATIONS)
def test_every_pod_is_locked_down(directory):
    found = workloads(render(directory))
    assert found
    for workload in found:
        pod = pod_template(workload)["spec"]
        name = workload["metadata"]["name"]
        assert not {"hostNetwork", "hostPID", "hostIPC"} & set(pod), name
        assert all("hostPath" not in volume for volume in pod.get("volumes", [])), name
        assert pod.get("enableServiceLinks") is False, name
        # No container gets a token it did not ask for: the sync job's kubectl mounts its own
        # (test_only_kubectl_gets_a_service_account_token).
        assert pod.get("automountServiceAccountToken") is False, name
        for item in all_containers(pod):
            where = f"{directory}: {name}/{item['name']}"
            context = item.get("securityContext", {})
            assert _effective(item, pod, "runAsNonRoot") is True, where
            assert isinstance(_effective(item, pod, "runAsUser"), int), where
            assert _effective(item, pod, "runAsUser") > 0, where
            assert _effective(item, pod, "seccompProfile") == {"type": "RuntimeDefault"}, where
            assert context.get("readOnlyRootFilesystem") is True, where
            assert context.get("allowPrivilegeEscalation") is False, where
            assert context.get("capabilities") == {"drop": ["ALL"]}, where
            assert not context.get("privileged"), where
            resources = item.get("resources", {})
            for resource in ("cpu", "memory"):
                request = resources.get("requests", {}).get(resource)
                limit = resources.get("limits", {}).get(resource)
                assert request is not None and limit is not None, f"{where}: {resource}"
                assert quantity(request) <= quantity(limit), f"{where}: {resource}"
            image = item["image"]
            assert re.fullmatch(r"[^:@\s]+:[\w][\w.-]*", image), f"{where}: unpinned {image}"
            assert not image.endswith(":latest"), where


# --- the service ----------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_service_listens_on_8080_and_answers_its_probes_on_ops(overlay):
    objects = render(f"overlays/{overlay}")
    _, pod, server = service_deployment(objects)
    assert server["image"] == f"ome-ranker:{__version__}"
    env = environment(server)
    assert env["OME_RANKER_BIND"]["value"] == "0.0.0.0:8080"
    # The operations listener (/healthz, /readyz, /metrics) that the API's load cannot take.
    assert env["OME_RANKER_OPS_BIND"]["value"] == "0.0.0.0:9090"
    ports = {port["name"]: port["containerPort"] for port in server["ports"]}
    assert ports == {"http": 8080, "ops": 9090}
    bound = int(env["OME_RANKER_OPS_BIND"]["value"].rpartition(":")[2])
    for probe, path in (
        ("readinessProbe", "/readyz"),
        ("livenessProbe", "/healthz"),
        ("startupProbe", "/healthz"),
    ):
        http = server[probe]["httpGet"]
        assert http["path"] == path, probe
        assert http["port"] == "ops", probe
        assert ports[http["port"]] == bound, probe
    # A draining pod (/readyz 503) must leave the endpoints within the drain period.
    readiness = server["readinessProbe"]
    drain = int(env["OME_RANKER_DRAIN_SECONDS"]["value"])
    assert drain == 5
    assert readiness["periodSeconds"] * readiness["failureThreshold"] < drain
    graceful = int(
        env.get("OME_RANKER_GRACEFUL_TIMEOUT", {}).get("value", GRACEFUL_TIMEOUT_DEFAULT)
    )
    assert pod["terminationGracePeriodSeconds"] > drain + graceful
    assert pod["terminationGracePeriodSeconds"] == 35


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_token_file_is_a_read_only_secret_mount(overlay):
    _, pod, server = service_deployment(render(f"overlays/{overlay}"))
    path = PurePosixPath(environment(server)["OME_RANKER_TOKENS_FILE"]["value"])
    mounts = [
        mount
        for mount in server["volumeMounts"]
        if path.parent == PurePosixPath(mount["mountPath"])
    ]
    assert len(mounts) == 1, f"nothing mounted at {path.parent}"
    assert mounts[0]["readOnly"] is True
    assert "subPath" not in mounts[0]
    (volume,) = [volume for volume in pod["volumes"] if volume["name"] == mounts[0]["name"]]
    secret = volume["secret"]
    assert secret["secretName"] == "ome-ranker-tokens"
    assert {"key": "tokens.yaml", "path": path.name} in secret["items"]
    assert secret.get("optional") is not True  # no token file: the pod must not start


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_tmp_is_writable(overlay):
    _, pod, server = service_deployment(render(f"overlays/{overlay}"))
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    writable = [mount for mount in server["volumeMounts"] if not mount.get("readOnly")]
    assert [mount["mountPath"] for mount in writable] == ["/tmp"]
    assert "emptyDir" in volumes[writable[0]["name"]]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_replicas_share_the_cache_secret(overlay):
    _, _, server = service_deployment(render(f"overlays/{overlay}"))
    variable = environment(server)["OME_RANKER_CACHE_SECRET"]
    assert "value" not in variable
    assert variable["valueFrom"] == {"secretKeyRef": {"name": "ome-ranker-cache", "key": "secret"}}


@pytest.mark.parametrize("directory", [f"overlays/{o}" for o in OVERLAYS] + ["migrate/production"])
def test_every_variable_is_a_real_setting(directory):
    known = setting_names()
    assert {"REDIS_URL", "OME_RANKER_REDIS_CLUSTER", "OME_RANKER_TOKENS_FILE"} <= known
    for workload in workloads(render(directory)):
        for item in all_containers(pod_template(workload)["spec"]):
            if item["image"].startswith("redis:"):
                continue
            env = environment(item)
            # A variable only there to be expanded into another (REDIS_PASSWORD into
            # REDIS_URL) is no setting of its own.
            expanded = {
                name
                for variable in env.values()
                for name in re.findall(r"\$\((\w+)\)", variable.get("value", ""))
            }
            unknown = set(env) - known - expanded
            assert not unknown, f"{workload['metadata']['name']}: not settings: {unknown}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_service_routes_port_80_to_http(overlay):
    objects = render(f"overlays/{overlay}")
    _, pod, server = service_deployment(objects)
    labels = one(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    service = one(objects, "Service", "ome-ranker")
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["ports"] == [
        {"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}
    ]
    assert "http" in {port["name"] for port in server["ports"]}
    assert selects(service["spec"]["selector"], labels)
    assert (
        pod["serviceAccountName"]
        == one(objects, "ServiceAccount", "ome-ranker")["metadata"]["name"]
    )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_at_least_two_replicas_and_a_disruption_budget(overlay):
    objects = render(f"overlays/{overlay}")
    deployment = one(objects, "Deployment")
    autoscalers = find(objects, "HorizontalPodAutoscaler")
    if overlay == "production":
        (autoscaler,) = autoscalers
        assert "replicas" not in deployment["spec"]  # the autoscaler owns it
        assert autoscaler["spec"]["minReplicas"] >= 2
        assert autoscaler["spec"]["maxReplicas"] > autoscaler["spec"]["minReplicas"]
        assert autoscaler["spec"]["scaleTargetRef"] == {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": deployment["metadata"]["name"],
        }
        (metric,) = autoscaler["spec"]["metrics"]
        assert metric["resource"]["name"] == "cpu"
    else:
        assert not autoscalers
        assert deployment["spec"]["replicas"] >= 2
    budget = one(objects, "PodDisruptionBudget")
    assert selects(
        budget["spec"]["selector"]["matchLabels"],
        deployment["spec"]["template"]["metadata"]["labels"],
    )
    assert budget["spec"].get("maxUnavailable") == 1 or budget["spec"].get("minAvailable") == 1


def test_the_servicemonitor_scrapes_metrics_on_ops():
    objects = render("overlays/production")
    (monitor,) = find(objects, "ServiceMonitor")
    assert monitor["kind"] == "ServiceMonitor"
    assert monitor["metadata"]["name"] and monitor["metadata"]["namespace"] == NAMESPACE
    spec = monitor["spec"]
    assert set(spec) <= {"selector", "endpoints", "namespaceSelector", "jobLabel"}
    services = find(objects, "Service")
    chosen = [
        svc
        for svc in services
        if selects(spec["selector"]["matchLabels"], svc["metadata"]["labels"])
    ]
    assert [svc["metadata"]["name"] for svc in chosen] == ["ome-ranker-ops"]
    (ops,) = chosen
    assert ops["spec"]["clusterIP"] == "None"  # Prometheus scrapes each pod
    (port,) = ops["spec"]["ports"]
    _, _, server = service_deployment(objects)
    assert port["targetPort"] == "ops" and "ops" in {p["name"] for p in server["ports"]}
    assert selects(
        ops["spec"]["selector"],
        one(objects, "Deployment")["spec"]["template"]["metadata"]["labels"],
    )
    (endpoint,) = spec["endpoints"]
    assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout", "scheme"}
    assert endpoint["port"] == port["name"] == "ops"
    assert endpoint["path"] == "/metrics"
    interval, timeout = (
        int(re.fullmatch(r"(\d+)s", endpoint[key])[1]) for key in ("interval", "scrapeTimeout")
    )
    assert 0 < timeout <= interval
    # The API's Service never carries the operations port.
    assert [p["name"] for p in one(objects, "Service", "ome-ranker")["spec"]["ports"]] == ["http"]
    for overlay in ("in-cluster-redis", *EXTERNAL_REDIS):
        assert not find(render(f"overlays/{overlay}"), "ServiceMonitor")
        assert not find(render(f"overlays/{overlay}"), "Service", "ome-ranker-ops")


# --- Redis ----------------------------------------------------------------------------------------


def redis_flags(args: list[str]) -> dict[str, str]:
    assert args[0] == "redis-server"
    flags = args[1:]
    assert len(flags) % 2 == 0 and all(flag.startswith("--") for flag in flags[::2]), flags
    return dict(zip((flag[2:] for flag in flags[::2]), flags[1::2], strict=True))


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_redis_keeps_catalogs(overlay):
    redis = one(render(f"overlays/{overlay}"), "StatefulSet")
    pod = pod_template(redis)["spec"]
    (server,) = pod["containers"]
    flags = redis_flags(server.get("command", []) + server.get("args", []))
    assert flags["appendonly"] == "yes"
    assert flags["appendfsync"] == "everysec"
    assert flags["save"] == ""
    # Only keys with a TTL, the cache's, may be evicted: never a catalog.
    assert flags["maxmemory-policy"] == "volatile-lru"
    assert redis_bytes(flags["maxmemory"]) < quantity(server["resources"]["limits"]["memory"])
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    (mount,) = [m for m in server["volumeMounts"] if m["name"] == claim["metadata"]["name"]]
    assert mount["mountPath"] == flags["dir"]
    assert quantity(claim["spec"]["resources"]["requests"]["storage"]) >= 2**30
    assert redis["spec"]["replicas"] == 1


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_redis_url_names_the_redis_service(overlay):
    objects = render(f"overlays/{overlay}")
    redis = one(objects, "StatefulSet")
    service = one(objects, "Service", redis["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"
    labels = pod_template(redis)["metadata"]["labels"]
    assert selects(service["spec"]["selector"], labels)
    assert selects(redis["spec"]["selector"]["matchLabels"], labels)
    (port,) = service["spec"]["ports"]
    (redis_container,) = pod_template(redis)["spec"]["containers"]
    assert port["targetPort"] in {p["name"] for p in redis_container["ports"]}
    _, _, server = service_deployment(objects)
    env = environment(server)
    url = urlsplit(env["REDIS_URL"]["value"])
    assert (url.scheme, url.hostname, url.port) == (
        "redis",
        service["metadata"]["name"],
        port["port"],
    )
    assert "OME_RANKER_REDIS_CLUSTER" not in env
    # Redis's pods are not the service's: its Service and budget never select them.
    assert not selects(one(objects, "Service", "ome-ranker")["spec"]["selector"], labels)
    assert not selects(
        one(objects, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"], labels
    )


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_redis_requires_the_password_of_its_secret(overlay):
    """Both containers need the Secret to start, so no Redis without a password ever runs;
    test_redis.py runs them and checks what they do with it."""
    pod = pod_template(one(render(f"overlays/{overlay}"), "StatefulSet"))["spec"]
    (acl,) = pod["initContainers"]
    (server,) = pod["containers"]
    assert environment(acl)["REDIS_PASSWORD"]["valueFrom"] == REDIS_PASSWORD_REF
    assert environment(server)["REDISCLI_AUTH"]["valueFrom"] == REDIS_PASSWORD_REF
    assert "redis-cli" in server["readinessProbe"]["exec"]["command"][-1]
    flags = redis_flags(server.get("command", []) + server.get("args", []))
    assert "requirepass" not in flags  # a command line is visible to every process of the node
    # The init container writes the ACL file where redis-server reads it, in memory only.
    directory = PurePosixPath(flags["aclfile"]).parent
    (written,) = [m for m in acl["volumeMounts"] if PurePosixPath(m["mountPath"]) == directory]
    (read,) = [m for m in server["volumeMounts"] if PurePosixPath(m["mountPath"]) == directory]
    assert written["name"] == read["name"]
    assert read["readOnly"] is True
    (volume,) = [v for v in pod["volumes"] if v["name"] == read["name"]]
    assert volume["emptyDir"]["medium"] == "Memory"


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_the_service_and_its_migrations_send_the_redis_password(overlay):
    _, _, server = service_deployment(render(f"overlays/{overlay}"))
    (migrate,) = pod_template(one(render(f"migrate/{overlay}"), "Job"))["spec"]["containers"]
    for item in (server, migrate):
        env = environment(item)
        assert env["REDIS_PASSWORD"]["valueFrom"] == REDIS_PASSWORD_REF
        assert urlsplit(env["REDIS_URL"]["value"]).password == "$(REDIS_PASSWORD)"
        # The kubelet expands $(NAME) only for a variable listed earlier.
        names = [variable["name"] for variable in item["env"]]
        assert names.index("REDIS_PASSWORD") < names.index("REDIS_URL"), item["name"]


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_only_the_service_and_its_migrations_reach_redis(overlay):
    objects = render(f"overlays/{overlay}")
    redis = one(objects, "StatefulSet")
    policy = one(objects, "NetworkPolicy", "ome-ranker-redis")
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert not policy["spec"].get("egress")  # it connects to nothing (test_network.py)
    assert selects(
        policy["spec"]["podSelector"]["matchLabels"], pod_template(redis)["metadata"]["labels"]
    )
    (rule,) = policy["spec"]["ingress"]
    (source,) = rule["from"]
    assert set(source) == {"podSelector"}  # this namespace only
    allowed = source["podSelector"]["matchLabels"]
    server_labels = one(objects, "Deployment")["spec"]["template"]["metadata"]["labels"]
    job_labels = pod_template(one(render(f"migrate/{overlay}"), "Job"))["metadata"]["labels"]
    assert selects(allowed, server_labels)
    assert selects(allowed, job_labels)
    assert [p["port"] for p in rule["ports"]] == ["redis"]


@pytest.mark.parametrize("overlay", EXTERNAL_REDIS)
def test_external_overlays_take_redis_url_from_a_secret(overlay):
    objects = render(f"overlays/{overlay}")
    assert not find(objects, "StatefulSet")
    assert not find(objects, "NetworkPolicy", "ome-ranker-redis")
    assert [svc["metadata"]["name"] for svc in find(objects, "Service")] == ["ome-ranker"]
    _, _, server = service_deployment(objects)
    env = environment(server)
    assert env["REDIS_URL"] == {
        "name": "REDIS_URL",
        "valueFrom": {"secretKeyRef": {"name": "ome-ranker-redis", "key": "url"}},
    }
    if overlay == "external-redis-cluster":
        assert env["OME_RANKER_REDIS_CLUSTER"]["value"] == "true"
    else:
        assert "OME_RANKER_REDIS_CLUSTER" not in env


# --- migrations -----------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_migrations_job_runs_with_the_overlays_image_and_environment(overlay):
    objects = render(f"migrate/{overlay}")
    assert [(obj["kind"], obj["metadata"]["name"]) for obj in objects] == [
        ("Job", "ome-ranker-migrate")
    ]
    job = objects[0]
    deployment, _, server = service_deployment(render(f"overlays/{overlay}"))
    pod = pod_template(job)
    (migrate,) = pod["spec"]["containers"]
    assert migrate["command"] == ["python", "-m", "migrations"]
    assert migrate["image"] == server["image"]
    assert migrate["env"] == server["env"]
    assert job["metadata"]["namespace"] == deployment["metadata"]["namespace"]
    assert pod["spec"]["restartPolicy"] == "Never"
    assert 1 <= job["spec"]["backoffLimit"] <= 5
    assert job["spec"]["activeDeadlineSeconds"] > 0
    # Its pod never receives the service's traffic.
    assert not selects(deployment["spec"]["selector"]["matchLabels"], pod["metadata"]["labels"])


def test_the_migrations_job_follows_a_teams_own_overlay(tmp_path):
    """As the README tells a team: its overlay over ours, and a migrate kustomization over it."""
    team, migrate = tmp_path / "team", tmp_path / "team-migrate"
    team.mkdir()
    migrate.mkdir()
    ours = Path(os.path.relpath(KUBE, team)).as_posix()
    (team / "kustomization.yaml").write_text(
        f"""namespace: team-a
resources: [{ours}/overlays/in-cluster-redis]
images: [{{name: ome-ranker, newName: registry.example.com/ome-ranker, newTag: 9.9.9}}]
patches:
  - target: {{kind: Deployment, name: ome-ranker}}
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/env/-
        value: {{name: OME_RANKER_CACHE_PREFIX, value: "team-a:"}}
""",
        encoding="utf-8",
    )
    ours = Path(os.path.relpath(KUBE, migrate)).as_posix()
    (migrate / "kustomization.yaml").write_text(
        f"resources: [../team]\ncomponents: [{ours}/migrate/job, {ours}/migrate/job-only]\n",
        encoding="utf-8",
    )
    (job,) = kustomize(migrate)
    assert job["kind"] == "Job"
    assert job["metadata"]["namespace"] == "team-a"
    (item,) = pod_template(job)["spec"]["containers"]
    assert item["image"] == "registry.example.com/ome-ranker:9.9.9"
    assert environment(item)["OME_RANKER_CACHE_PREFIX"]["value"] == "team-a:"
    env = environment(item)
    assert urlsplit(env["REDIS_URL"]["value"]).hostname == "ome-ranker-redis"
    assert "REDIS_PASSWORD" in env


# --- sync -----------------------------------------------------------------------------------------


def sync_parts(directory: str) -> tuple[list[dict], dict, dict]:
    objects = render(directory)
    cronjob = one(objects, "CronJob")
    return objects, cronjob, pod_template(cronjob)["spec"]


@pytest.mark.parametrize("directory", SYNC)
def test_sync_may_only_read_the_five_ome_kinds(directory):
    objects, _, _ = sync_parts(directory)
    assert not find(objects, "Role") and not find(objects, "RoleBinding")
    role = one(objects, "ClusterRole")
    (rule,) = role["rules"]
    assert set(rule) == {"apiGroups", "resources", "verbs"}
    assert rule["apiGroups"] == ["ome.io"]
    assert sorted(rule["resources"]) == sorted(OME_RESOURCES)
    assert sorted(rule["verbs"]) == ["get", "list"]
    assert "*" not in json.dumps(role["rules"])


@pytest.mark.parametrize("directory", SYNC)
def test_sync_binding_binds_that_role_to_the_jobs_account(directory):
    objects, cronjob, pod = sync_parts(directory)
    (binding,) = find(objects, "ClusterRoleBinding")
    role = one(objects, "ClusterRole")
    account = one(objects, "ServiceAccount")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": role["metadata"]["name"],
    }
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    expected = {"kind": "ServiceAccount", "name": account["metadata"]["name"]}
    if "namespace" in cronjob["metadata"]:
        expected["namespace"] = cronjob["metadata"]["namespace"]
    assert binding["subjects"] == [expected]


def test_sync_base_is_namespace_agnostic():
    objects = render("sync")
    assert not find(objects, "Namespace")
    assert all("namespace" not in obj["metadata"] for obj in objects)
    for binding in find(objects, "ClusterRoleBinding"):
        assert all("namespace" not in subject for subject in binding["subjects"])


@pytest.mark.parametrize("directory", SYNC)
def test_sync_runs_every_five_minutes_one_at_a_time(directory):
    _, cronjob, pod = sync_parts(directory)
    spec = cronjob["spec"]
    assert spec["schedule"] == "*/5 * * * *"
    assert spec["concurrencyPolicy"] == "Forbid"
    assert 1 <= spec["successfulJobsHistoryLimit"] <= 10
    assert 1 <= spec["failedJobsHistoryLimit"] <= 10
    job = spec["jobTemplate"]["spec"]
    assert 0 <= job["backoffLimit"] <= 3
    assert 0 < job["activeDeadlineSeconds"] < 5 * 60
    assert pod["restartPolicy"] == "Never"


@pytest.mark.parametrize("directory", SYNC)
def test_only_kubectl_gets_a_service_account_token(directory):
    objects, _, pod = sync_parts(directory)
    assert pod["automountServiceAccountToken"] is False
    assert one(objects, "ServiceAccount")["automountServiceAccountToken"] is False
    (volume,) = [
        volume
        for volume in pod["volumes"]
        if any(
            "serviceAccountToken" in source
            for source in volume.get("projected", {}).get("sources", [])
        )
    ]
    kubectl_mounts = [
        m for m in container(pod, "kubectl")["volumeMounts"] if m["name"] == volume["name"]
    ]
    assert kubectl_mounts == [
        {"name": volume["name"], "mountPath": SERVICE_ACCOUNT_DIR, "readOnly": True}
    ]
    for mount in container(pod, "push").get("volumeMounts", []):
        assert mount["name"] != volume["name"]
        assert not mount["mountPath"].startswith("/var/run/secrets"), mount
    # What the in-cluster configuration reads there: token, ca.crt and namespace.
    sources = volume["projected"]["sources"]
    (token,) = [
        source["serviceAccountToken"] for source in sources if "serviceAccountToken" in source
    ]
    assert token["path"] == "token"
    assert "audience" not in token  # the API server's own
    assert 600 <= token["expirationSeconds"] <= 3600  # the API's minimum is 600
    assert {
        "configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
    } in sources
    namespace = {"apiVersion": "v1", "fieldPath": "metadata.namespace"}
    assert {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": namespace}]}} in sources


def kubectl_get(script: str) -> tuple[list[str], str]:
    """The resources and the output file of the init container's `kubectl get … > file`."""
    words = shlex.split(script)
    assert words[0] == "kubectl"
    get = words.index("get")
    resources = words[get + 1].split(",")
    rest = words[get + 2 :]
    assert "-A" in rest or "--all-namespaces" in rest
    assert rest[rest.index("-o") + 1] == "yaml"
    assert rest[-2] == ">"
    return resources, rest[-1]


@pytest.mark.parametrize("directory", SYNC)
def test_sync_reads_with_kubectl_then_pushes_the_file(directory):
    objects, _, pod = sync_parts(directory)
    (init,) = pod["initContainers"]
    assert re.fullmatch(r"registry\.k8s\.io/kubectl:v\d+\.\d+\.\d+", init["image"])
    assert init["command"][:2] == ["/bin/sh", "-c"] and len(init["command"]) == 3
    resources, output = kubectl_get(init["command"][2])
    assert all(resource.endswith(".ome.io") for resource in resources)
    assert {resource.removesuffix(".ome.io") for resource in resources} == OME_RESOURCES
    assert len(resources) == len(OME_RESOURCES)
    (rule,) = one(objects, "ClusterRole")["rules"]
    assert {resource.removesuffix(".ome.io") for resource in resources} == set(rule["resources"])

    (push,) = pod["containers"]
    assert push["command"] == ["ome-ranker", "push", "$(OME_RANKER_CLUSTER)", "-f", output]
    work = PurePosixPath(output).parent
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    for item in (init, push):
        (mount,) = [m for m in item["volumeMounts"] if PurePosixPath(m["mountPath"]) == work]
        # The objects as kubectl printed them (env values and all) never touch the node's disk.
        empty_dir = volumes[mount["name"]]["emptyDir"]
        assert empty_dir["medium"] == "Memory"
        assert 0 < quantity(empty_dir["sizeLimit"]) <= 64 * 2**20
        assert quantity(empty_dir["sizeLimit"]) < quantity(item["resources"]["limits"]["memory"])
    (init_mount,) = [m for m in init["volumeMounts"] if PurePosixPath(m["mountPath"]) == work]
    (push_mount,) = [m for m in push["volumeMounts"] if PurePosixPath(m["mountPath"]) == work]
    assert init_mount["name"] == push_mount["name"]
    assert not init_mount.get("readOnly")


@pytest.mark.parametrize("directory", SYNC)
def test_sync_push_environment(directory):
    objects, _, pod = sync_parts(directory)
    push = container(pod, "push")
    env = environment(push)
    assert set(env) <= PUSH_ENVIRONMENT
    cluster = env["OME_RANKER_CLUSTER"]["valueFrom"]["configMapKeyRef"]
    server = env["OME_RANKER_SERVER"]["valueFrom"]["configMapKeyRef"]
    assert (cluster["key"], server["key"]) == ("cluster", "server")
    assert cluster["name"] == server["name"]
    assert env["OME_RANKER_TOKEN"]["valueFrom"] == {
        "secretKeyRef": {"name": "ome-ranker-sync", "key": "token"}
    }
    if directory == "sync":
        assert cluster["name"] == "ome-ranker-sync"
        assert not find(objects, "ConfigMap")  # each cluster's kustomization makes it
        assert "OME_RANKER_CA_FILE" not in env
        return
    config = one(objects, "ConfigMap", cluster["name"])["data"]
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", config["cluster"])
    assert urlsplit(config["server"]).scheme == "https"
    # TLS with a private CA: a PEM bundle from a ConfigMap, read-only.
    ca_file = PurePosixPath(env["OME_RANKER_CA_FILE"]["value"])
    (mount,) = [m for m in push["volumeMounts"] if PurePosixPath(m["mountPath"]) == ca_file.parent]
    assert mount["readOnly"] is True
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["configMap"]["name"] == "ome-ranker-sync-ca"
    assert {"key": "ca.crt", "path": ca_file.name} in volume["configMap"]["items"]
    assert not container(pod, "kubectl").get("env")


# --- the README and the examples ------------------------------------------------------------------


def test_readme_paths_exist():
    text = readme()
    applied = re.findall(r"kubectl apply -k (\S+)", text)
    assert applied
    for path in applied:
        assert (ROOT / path / "kustomization.yaml").is_file(), path
    listed = re.findall(r"^\| `([a-z-]+/[a-z/-]*)` \|", text, flags=re.MULTILINE)
    assert len(listed) >= 10
    for path in listed:
        assert (KUBE / path / "kustomization.yaml").is_file() or (KUBE / path).is_dir(), path


def _references(directory: str) -> set[tuple[str, str, str, str]]:
    """(kind, namespace, name, key) of every Secret and ConfigMap key the pods read that the
    render does not make itself."""
    objects = render(directory)
    made = {(obj["kind"], obj["metadata"]["name"]) for obj in objects}
    found = set()
    for workload in workloads(objects):
        namespace = workload["metadata"].get("namespace")
        pod = pod_template(workload)["spec"]
        for item in all_containers(pod):
            for variable in item.get("env", []):
                source = variable.get("valueFrom", {})
                if "secretKeyRef" in source:
                    ref = source["secretKeyRef"]
                    found.add(("Secret", namespace, ref["name"], ref["key"]))
                if "configMapKeyRef" in source:
                    ref = source["configMapKeyRef"]
                    found.add(("ConfigMap", namespace, ref["name"], ref["key"]))
        for volume in pod.get("volumes", []):
            if "secret" in volume:
                for entry in volume["secret"]["items"]:
                    found.add(("Secret", namespace, volume["secret"]["secretName"], entry["key"]))
            if "configMap" in volume:
                for entry in volume["configMap"]["items"]:
                    found.add(("ConfigMap", namespace, volume["configMap"]["name"], entry["key"]))
    return {ref for ref in found if (ref[0], ref[2]) not in made}


def test_readme_creates_every_secret_and_configmap_the_pods_read():
    created = set()
    for namespace, kind, name, options in re.findall(
        r"kubectl -n (\S+) create (secret generic|configmap) (\S+) (.*)", readme()
    ):
        for key in re.findall(r"--from-(?:literal|file)=([^=\s]+)=", options):
            created.add(
                ("Secret" if kind.startswith("secret") else "ConfigMap", namespace, name, key)
            )
    needed = set()
    for directory in (*(f"overlays/{o}" for o in OVERLAYS), "examples/sync-prod-east"):
        needed |= _references(directory)
    assert ("Secret", NAMESPACE, "ome-ranker-tokens", "tokens.yaml") in needed
    assert ("Secret", SYNC_NAMESPACE, "ome-ranker-sync", "token") in needed
    assert needed <= created, f"the README never creates: {sorted(needed - created)}"


def test_readme_quotes_the_sync_command_and_the_cli_call():
    _, _, pod = sync_parts("sync")
    resources, output = kubectl_get(container(pod, "kubectl")["command"][2])
    text = readme()
    assert f"kubectl get {','.join(resources)} -A -o yaml > {output}" in text
    assert f'ome-ranker push "$OME_RANKER_CLUSTER" -f {output}' in text


def _readme_token_snippet() -> str:
    """The README's first shell block without its kubectl lines: it writes tokens.yaml."""
    block = re.search(r"```bash\n(kubectl create namespace ome-ranker\n.*?)```", readme(), re.S)
    assert block, "the README's namespace and Secrets block is missing"
    return "\n".join(
        line for line in block[1].splitlines() if not line.lstrip().startswith("kubectl")
    )


def test_readme_makes_a_token_file_the_service_accepts(tmp_path):
    if not shutil.which("bash"):
        pytest.skip("needs bash")
    # `ome-ranker` is this checkout's, installed or not.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ome-ranker").write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m app.cli "$@"\n', encoding="utf-8"
    )
    (bin_dir / "ome-ranker").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
    }
    work = tmp_path / "work"
    work.mkdir()
    result = subprocess.run(
        ["bash", "-euc", _readme_token_snippet()],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    written = (work / "tokens.yaml").read_text(encoding="utf-8")
    access = parse_tokens(yaml.safe_load(written), "tokens.yaml")
    # Every secret file the README reads later, as the shell reads it, $(cat …).
    secrets = {
        name: (work / name).read_text(encoding="utf-8").rstrip("\n")
        for name in set(re.findall(r"\$\(cat ([\w.-]+\.secret)\)", readme()))
    }
    assert len(secrets) == 3
    assert not any(secret in written for secret in secrets.values())
    token = access.identify(f"Bearer {secrets['sync-prod-east.secret']}")
    assert token is not None and token.name == "sync-prod-east"
    cluster = one(render("examples/sync-prod-east"), "ConfigMap")["data"]["cluster"]
    assert token.can_write(cluster)
    assert not token.can_manage and not token.can_write("another-cluster")
    admin = access.identify(f"Bearer {secrets['admin.secret']}")
    assert admin is not None and admin.can_manage
    dashboard = access.identify(f"Bearer {secrets['dashboard.secret']}")
    assert dashboard is not None and dashboard.can_read(cluster)
    assert not dashboard.can_write(cluster)


def test_the_example_token_file_is_refused_until_filled_in():
    document = yaml.safe_load((KUBE / "examples" / "tokens.yaml").read_text(encoding="utf-8"))
    with pytest.raises(SettingsError, match="sha256"):
        parse_tokens(document, "tokens.yaml")
    for entry in document["tokens"]:
        entry["sha256"] = hashlib.sha256(entry["name"].encode()).hexdigest()
    access = parse_tokens(document, "tokens.yaml")
    admin = access.identify("Bearer platform-admin")
    assert admin is not None and admin.can_manage
