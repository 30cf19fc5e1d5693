"""Findings of an admission (app/selection/admission/findings.py, rules §18): which webhook
refuses an object, one error per object with what follows as ``AlsoRefused`` infos, the
canonical order of the findings, and the whole answer's counts."""

from __future__ import annotations

import pytest

from app.selection.admission import ERROR, INFO, WARNING, Admission, Finding
from app.selection.admission.findings import ALSO_REFUSED, finding_order, refused

RUNTIME_WEBHOOK = "servingruntime.ome-webhook-server.validator"


def finding(severity=ERROR, kind="ServingRuntime", namespace="demo", name="rt", **fields):
    fields.setdefault("field", "spec")
    fields.setdefault("code", "SamePriority")
    fields.setdefault("message", "text")
    return Finding(severity, kind, namespace, name, **fields)


@pytest.mark.parametrize(
    ("kind", "webhook"),
    [
        ("ServingRuntime", RUNTIME_WEBHOOK),
        ("ClusterServingRuntime", "clusterservingruntime.ome-webhook-server.validator"),
        ("InferenceService", "inferenceservice.ome-webhook-server.validator"),
        ("BaseModel", "basemodel.ome-webhook-server.validator"),
        ("ClusterBaseModel", "clusterbasemodel.ome-webhook-server.validator"),
        ("AcceleratorClass", None),  # OME runs no webhook of its own for classes
    ],
)
def test_an_error_names_the_webhook_of_its_kind(kind, webhook):
    assert finding(kind=kind).webhook == webhook


@pytest.mark.parametrize("code", ["UnknownField", "Required", "Unsupported", "Invalid"])
def test_the_api_servers_own_refusals_name_no_webhook(code):
    assert finding(code=code).webhook is None


@pytest.mark.parametrize("severity", [WARNING, INFO])
def test_only_an_error_is_a_webhooks_refusal(severity):
    assert finding(severity=severity).webhook is None


def test_the_first_refusal_is_the_error_and_the_others_follow_as_infos_in_their_order():
    refusals = [
        ("InvalidName", "metadata.name", "first"),
        ("InvalidAutoscaler", "spec", "second"),
        ("InvalidReplicaBounds", None, "third"),
    ]
    assert refused("InferenceService", "demo", "svc", refusals) == [
        Finding(ERROR, "InferenceService", "demo", "svc", "metadata.name", "InvalidName", "first"),
        Finding(INFO, "InferenceService", "demo", "svc", "spec", ALSO_REFUSED, "then: second", 1),
        Finding(INFO, "InferenceService", "demo", "svc", None, ALSO_REFUSED, "then: third", 2),
    ]


def test_nothing_refused_is_no_finding():
    assert refused("BaseModel", "demo", "llama", []) == []


def test_findings_order_errors_then_warnings_then_infos_then_by_object():
    ordered = [
        finding(ERROR, name="b"),
        finding(WARNING, kind="InferenceService", name="a"),
        finding(INFO, kind="BaseModel", name="a"),
        finding(INFO, kind="ServingRuntime", namespace=None, name="z"),
        finding(INFO, kind="ServingRuntime", namespace="demo", name="a"),
        finding(INFO, kind="ServingRuntime", namespace="demo", name="b"),
    ]
    assert sorted(reversed(ordered), key=finding_order) == ordered


def test_an_objects_also_refused_infos_keep_omes_order_whatever_their_fields():
    """The sequence comes before the field: what follows the error stays in the order the
    object meets it, though its fields sort the other way."""
    refusals = [("A", "z", "1"), ("B", "y", "2"), ("C", "a", "3")]
    found = refused("InferenceService", "demo", "svc", refusals)
    assert [f.message for f in sorted(reversed(found), key=finding_order)] == [
        "1",
        "then: 2",
        "then: 3",
    ]


def test_a_lone_surrogate_in_a_name_orders_rather_than_failing():
    """A JSON body may carry a lone surrogate (``\\ud800``), which UTF-8 cannot encode."""
    names = ["\U0001f600", "\ud800", "z"]
    found = [finding(INFO, name=name) for name in names]
    assert [f.name for f in sorted(found, key=finding_order)] == ["z", "\ud800", "\U0001f600"]


def test_an_admission_is_admitted_without_errors_and_counts_each_severity():
    warned = Admission((finding(WARNING), finding(INFO), finding(INFO)))
    assert warned.admitted
    assert warned.counts() == {"error": 0, "warning": 1, "info": 2}
    refused_one = Admission((finding(ERROR), finding(INFO)))
    assert not refused_one.admitted
    assert refused_one.counts() == {"error": 1, "warning": 0, "info": 1}
    assert Admission(()).counts() == {"error": 0, "warning": 0, "info": 0}
