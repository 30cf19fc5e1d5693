"""deploy/kubernetes's NetworkPolicies, judged as the API defines them on what `kubectl kustomize`
renders: who may connect to the service's pods on which port (the API from labelled client
namespaces and this cluster's sync job, the operations port from labelled monitoring namespaces,
nobody else), and where its pods and its Redis may connect (DNS and that Redis, nothing else).
``components/open-ingress`` restores the open form, on purpose."""

from __future__ import annotations

import ipaddress
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.deploy.support import (
    EXTERNAL_REDIS,
    IN_CLUSTER_REDIS,
    KUBE,
    KUBERNETES_VERSION,
    NAMESPACE,
    OVERLAYS,
    SYNC_NAMESPACE,
    find,
    kustomize,
    one,
    pod_template,
    readme,
    render,
    service_deployment,
    validate,
)

CLIENT_LABEL = {"ome-ranker.io/client": "true"}
MONITORING_LABEL = {"ome-ranker.io/monitoring": "true"}
# What the tests can judge: a peer or rule with anything else fails them, not passes them.
PEER_KEYS = {"namespaceSelector", "podSelector", "ipBlock"}
SELECTOR_KEYS = {"matchLabels"}


@dataclass(frozen=True)
class Pod:
    """One end of a connection: its namespace's labels, its own labels, its address and its
    named ports (``{"http": 8080}``)."""

    namespace: str
    labels: dict = field(default_factory=dict)
    namespace_labels: dict = field(default_factory=dict)
    ip: str = "10.1.2.3"
    ports: dict = field(default_factory=dict)

    def all_namespace_labels(self) -> dict:
        return {"kubernetes.io/metadata.name": self.namespace, **self.namespace_labels}


def _matches(selector: dict | None, labels: dict) -> bool:
    """A label selector; ``{}`` selects everything."""
    assert set(selector or {}) <= SELECTOR_KEYS, selector
    return (selector or {}).get("matchLabels", {}).items() <= labels.items()


def _peer_matches(peer: dict, policy_namespace: str, other: Pod) -> bool:
    assert set(peer) <= PEER_KEYS and peer, peer
    if "ipBlock" in peer:
        block = peer["ipBlock"]
        address = ipaddress.ip_address(other.ip)
        excluded = any(address in ipaddress.ip_network(cidr) for cidr in block.get("except", []))
        return address in ipaddress.ip_network(block["cidr"]) and not excluded
    if "namespaceSelector" in peer:
        in_namespace = _matches(peer["namespaceSelector"], other.all_namespace_labels())
    else:
        in_namespace = other.namespace == policy_namespace
    return in_namespace and _matches(peer.get("podSelector"), other.labels)


def _port_matches(rule_ports: list[dict] | None, port: int, protocol: str, named: dict) -> bool:
    """A rule's ports; none: every port. A named port means the number ``named`` gives it."""
    if not rule_ports:
        return True
    for item in rule_ports:
        assert set(item) <= {"port", "protocol"}, item
        if item.get("protocol", "TCP") != protocol:
            continue
        wanted = item.get("port")
        if wanted is None or (named.get(wanted) if isinstance(wanted, str) else wanted) == port:
            return True
    return False


def _allowed(objects: list[dict], pod: Pod, other: Pod, port: int, protocol: str, way: str):
    """Whether the policies let ``pod`` take (``Ingress``) or make (``Egress``) a connection
    with ``other`` on ``port``: a pod no policy of that type selects is not isolated."""
    rules_key, peers_key = ("ingress", "from") if way == "Ingress" else ("egress", "to")
    # A named port is the pod's own for ingress, the destination's for egress.
    named = pod.ports if way == "Ingress" else other.ports
    isolated = False
    for policy in find(objects, "NetworkPolicy"):
        spec = policy["spec"]
        namespace = policy["metadata"].get("namespace", NAMESPACE)
        if namespace != pod.namespace or not _matches(spec["podSelector"], pod.labels):
            continue
        if way not in spec.get("policyTypes", ["Ingress"]):
            continue
        isolated = True
        for rule in spec.get(rules_key, []):
            peers = rule.get(peers_key)
            if (not peers or any(_peer_matches(p, namespace, other) for p in peers)) and (
                _port_matches(rule.get("ports"), port, protocol, named)
            ):
                return True
    return not isolated


def server_pod(objects: list[dict]) -> Pod:
    deployment, _, server = service_deployment(objects)
    labels = pod_template(deployment)["metadata"]["labels"]
    ports = {item["name"]: item["containerPort"] for item in server["ports"]}
    return Pod(NAMESPACE, labels, ip="10.1.0.10", ports=ports)


def admitted(objects: list[dict], source: Pod) -> set[str]:
    """The server's named ports that ``source`` may connect to."""
    server = server_pod(objects)
    return {
        name
        for name, number in server.ports.items()
        if _allowed(objects, server, source, number, "TCP", "Ingress")
    }


SOURCES = {
    "a client namespace's pod": (Pod("ingress-nginx", {"app": "x"}, CLIENT_LABEL), {"http"}),
    "a monitoring namespace's pod": (Pod("monitoring", {"app": "p"}, MONITORING_LABEL), {"ops"}),
    "a namespace labelled both": (
        Pod("platform", {}, {**CLIENT_LABEL, **MONITORING_LABEL}),
        {"http", "ops"},
    ),
    "the sync job's pod": (
        Pod(SYNC_NAMESPACE, {"app.kubernetes.io/name": "ome-ranker-sync"}),
        {"http"},
    ),
    "another pod of the sync namespace": (Pod(SYNC_NAMESPACE, {"app": "other"}), set()),
    "a sync-labelled pod elsewhere": (
        Pod("default", {"app.kubernetes.io/name": "ome-ranker-sync"}),
        set(),
    ),
    "a pod of an unlabelled namespace": (Pod("default", {"app": "web"}), set()),
    "another pod of the service's namespace": (Pod(NAMESPACE, {"app": "debug"}), set()),
    "a client label on a pod, not its namespace": (Pod("default", CLIENT_LABEL), set()),
}


@pytest.mark.parametrize("overlay", OVERLAYS)
@pytest.mark.parametrize("source", SOURCES)
def test_who_may_reach_the_service_on_which_port(overlay, source):
    objects = render(f"overlays/{overlay}")
    pod, ports = SOURCES[source]
    assert admitted(objects, pod) == ports
    assert server_pod(objects).ports == {"http": 8080, "ops": 9090}


def _open_ingress(tmp_path: Path, overlay: str) -> list[dict]:
    """An overlay of the user's: ours with components/open-ingress."""
    ours = Path(os.path.relpath(KUBE, tmp_path)).as_posix()
    (tmp_path / "kustomization.yaml").write_text(
        f"resources: [{ours}/overlays/{overlay}]\ncomponents: [{ours}/components/open-ingress]\n",
        encoding="utf-8",
    )
    return kustomize(tmp_path)


@pytest.mark.parametrize("overlay", ("in-cluster-redis", "external-redis"))
def test_open_ingress_admits_every_namespace_on_both_ports_and_nothing_else_changes(
    tmp_path, overlay
):
    objects = _open_ingress(tmp_path, overlay)
    for pod, _ in SOURCES.values():
        assert admitted(objects, pod) == {"http", "ops"}
    for policy in find(objects, "NetworkPolicy"):
        validate(json.dumps(policy, sort_keys=True), KUBERNETES_VERSION)
    assert _but_the_ingress_policy(objects) == _but_the_ingress_policy(
        render(f"overlays/{overlay}")
    )


def _but_the_ingress_policy(objects: list[dict]) -> list[dict]:
    return [
        o for o in objects if (o["kind"], o["metadata"]["name"]) != ("NetworkPolicy", "ome-ranker")
    ]


# --- egress ---------------------------------------------------------------------------------------

DNS = Pod("kube-system", {"k8s-app": "kube-dns"}, ip="10.96.0.10")
ELSEWHERE = [
    ("the Internet", Pod("", ip="93.184.216.34"), 443, "TCP"),
    ("cloud metadata", Pod("", ip="169.254.169.254"), 80, "TCP"),
    ("the Kubernetes API", Pod("default", {"component": "apiserver"}, ip="10.96.0.1"), 443, "TCP"),
    ("a pod of its own namespace", Pod(NAMESPACE, {"app": "debug"}), 8080, "TCP"),
    ("DNS outside kube-system", Pod("default", {"k8s-app": "kube-dns"}), 53, "UDP"),
    ("kube-system on another port", DNS, 443, "TCP"),
]
EXTERNAL_REDIS_ADDRESS = Pod("", ip="203.0.113.10")


def _pods_of_the_service(overlay: str) -> list[Pod]:
    """The server's pods and the migrations Job's, which reach the same Redis."""
    objects = render(f"overlays/{overlay}")
    job = pod_template(one(render(f"migrate/{overlay}"), "Job"))["metadata"]["labels"]
    return [server_pod(objects), Pod(NAMESPACE, job, ip="10.1.0.20")]


def _redis_pod(objects: list[dict]) -> Pod:
    redis = one(objects, "StatefulSet")
    (server,) = pod_template(redis)["spec"]["containers"]
    ports = {item["name"]: item["containerPort"] for item in server["ports"]}
    return Pod(NAMESPACE, pod_template(redis)["metadata"]["labels"], ip="10.1.0.30", ports=ports)


def _reaches(objects: list[dict], pod: Pod, other: Pod, port: int, protocol: str = "TCP") -> bool:
    return _allowed(objects, pod, other, port, protocol, "Egress")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_service_reaches_dns_and_its_redis_only(overlay):
    objects = render(f"overlays/{overlay}")
    for pod in _pods_of_the_service(overlay):
        assert _reaches(objects, pod, DNS, 53, "UDP") and _reaches(objects, pod, DNS, 53, "TCP")
        for what, other, port, protocol in ELSEWHERE:
            assert not _reaches(objects, pod, other, port, protocol), (pod.labels, what)
        if overlay in IN_CLUSTER_REDIS:
            assert _reaches(objects, pod, _redis_pod(objects), 6379)
            assert not _reaches(objects, pod, EXTERNAL_REDIS_ADDRESS, 6379)
        else:
            # Where the external Redis is, the overlay cannot know: its ports, at any address.
            assert _reaches(objects, pod, EXTERNAL_REDIS_ADDRESS, 6379)
            assert _reaches(objects, pod, EXTERNAL_REDIS_ADDRESS, 6380)
            assert not _reaches(objects, pod, EXTERNAL_REDIS_ADDRESS, 6381)


@pytest.mark.parametrize("overlay", IN_CLUSTER_REDIS)
def test_redis_admits_the_service_only_and_connects_nowhere(overlay):
    objects = render(f"overlays/{overlay}")
    redis = _redis_pod(objects)
    for pod in _pods_of_the_service(overlay):
        assert _allowed(objects, redis, pod, 6379, "TCP", "Ingress")
    for source, _ in SOURCES.values():
        assert not _allowed(objects, redis, source, 6379, "TCP", "Ingress")
    for other in (DNS, EXTERNAL_REDIS_ADDRESS, server_pod(objects)):
        for port, protocol in ((53, "UDP"), (6379, "TCP"), (8080, "TCP")):
            assert not _reaches(objects, redis, other, port, protocol)


@pytest.mark.parametrize("overlay", EXTERNAL_REDIS)
def test_external_overlays_have_no_redis_policy_of_their_own(overlay):
    objects = render(f"overlays/{overlay}")
    names = sorted(policy["metadata"]["name"] for policy in find(objects, "NetworkPolicy"))
    assert names == ["ome-ranker", "ome-ranker-egress"]


def test_the_readmes_patch_narrows_the_external_redis_egress_to_its_address(tmp_path):
    block = re.search(r"```yaml\n(patches:\n.*?)```", readme(), re.S)
    assert block, "the README's egress patch is missing"
    ours = Path(os.path.relpath(KUBE, tmp_path)).as_posix()
    (tmp_path / "kustomization.yaml").write_text(
        f"resources: [{ours}/overlays/external-redis]\n{block[1]}", encoding="utf-8"
    )
    objects = kustomize(tmp_path)
    server = server_pod(objects)
    ours_redis = Pod("", ip="10.20.30.40")
    assert _reaches(objects, server, ours_redis, 6380)
    assert not _reaches(objects, server, EXTERNAL_REDIS_ADDRESS, 6379)
    assert _reaches(objects, server, DNS, 53, "UDP")
