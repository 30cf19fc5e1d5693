"""Builders for the placement tests: AcceleratorClass documents, the classes and runtime of
OME's *Select accelerators* page (rules §20.9), a placement predicted from a request body the way
the API will (schema -> ranking -> placement), and one component's class under a selector."""

from __future__ import annotations

from typing import Any

from app.schemas.requests import load_rank_request
from app.selection.placement import ClassView, ComponentPlacement, Placement
from app.selection.placement.components import ComponentContext, place_component
from app.selection.placement.selected import predict_placement
from app.selection.ranking import rank_runtimes
from app.selection.values import (
    AcceleratorClass,
    AcceleratorRequest,
    ComponentRequest,
    RuntimeExtras,
    Selector,
    latest_classes,
)
from tests.builders import API, entry, isvc_doc, model_doc, runtime_doc

H100 = "nvidia-h100"
H200 = "nvidia-h200"
RUNTIME = "srt-llama-3-3-70b-instruct"
MODEL = "llama-3-3-70b-instruct"


def class_doc(
    name: str,
    *,
    memory: Any = None,
    bandwidth: Any = None,
    performance: dict | None = None,
    cost: dict | None = None,
    vendor: str | None = None,
    family: str | None = None,
    compute_capability: str | None = None,
    features: list[str] | None = None,
    node_selector: dict | None = None,
    resources: list[dict] | None = None,
) -> dict:
    capabilities: dict[str, Any] = {}
    for key, value in (
        ("memoryGB", memory),
        ("memoryBandwidthGBps", bandwidth),
        ("performance", performance),
        ("computeCapability", compute_capability),
        ("features", features),
    ):
        if value is not None:
            capabilities[key] = value
    spec: dict[str, Any] = {"discovery": {}, "capabilities": capabilities}
    if node_selector is not None:
        spec["discovery"]["nodeSelector"] = node_selector
    for key, value in (
        ("vendor", vendor),
        ("family", family),
        ("cost", cost),
        ("resources", resources),
    ):
        if value is not None:
            spec[key] = value
    return {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": name}, "spec": spec}


def _hopper(name: str, memory: str, bandwidth: str, per_hour: str, product: str) -> dict:
    return class_doc(
        name,
        vendor="nvidia",
        family="hopper",
        memory=memory,
        bandwidth=bandwidth,
        compute_capability="9.0",
        features=["fp8", "nvlink"],
        performance={"fp16Tflops": 989},
        cost={"perHour": per_hour},
        node_selector={"nvidia.com/gpu.product": product},
    )


def h100() -> dict:
    return _hopper(H100, "80Gi", "3350", "10", "NVIDIA-H100-80GB-HBM3")


def h200() -> dict:
    return _hopper(H200, "141Gi", "4800", "12", "NVIDIA-H200")


def page_runtime(classes: list[str] | None = None, *entries: dict, **spec: Any) -> dict:
    """The page's runtime: one entry (format and framework, weights 1), autoSelect false."""
    items = entries or (entry(architecture=None, auto_select=False),)
    body = dict(spec)
    if classes is not None:
        body["acceleratorRequirements"] = {"acceleratorClasses": classes}
    return runtime_doc(RUNTIME, *items, **body)


def page_model() -> dict:
    return model_doc(MODEL, kind="ClusterBaseModel", namespace=None, architecture=None)


def page_isvc(runtime: str | None = RUNTIME, **spec: Any) -> dict:
    spec.setdefault("engine", {"minReplicas": 1})
    spec["model"] = {"name": MODEL}
    if runtime is not None:
        spec["runtime"] = {"name": runtime}
    return isvc_doc(MODEL, namespace="llama-demo", **spec)


def body_of(isvc: dict | None, *runtimes: dict, model: dict | None = None, **extra: Any) -> dict:
    body: dict[str, Any] = {
        "model": model or page_model(),
        "runtimes": list(runtimes) or [page_runtime([H100, H200])],
    }
    if isvc is not None:
        body["inferenceService"] = isvc
    body.update(extra)
    return body


def predict_body(
    body: dict, classes: list[dict] | None = None, known: bool | None = None
) -> Placement | None:
    """What the wiring will do: validate, rank, then predict the placement, with the classes
    and each runtime document's entry names and acceleratorConfig."""
    request = load_rank_request(body, {})
    ranking = rank_runtimes(request)
    extras = [RuntimeExtras.from_mapping(doc) for doc in body["runtimes"]]
    by_runtime = dict(zip(map(id, request.runtimes), extras, strict=True))
    isvc = body.get("inferenceService")
    docs = classes if classes is not None else [h100(), h200()]
    held, _ = latest_classes(AcceleratorClass.from_mapping(doc) for doc in docs)
    return predict_placement(
        request,
        ranking,
        AcceleratorRequest.from_mapping(isvc) if isvc is not None else None,
        held,
        known if known is not None else bool(held),
        lambda runtime: by_runtime[id(runtime)],
    )


def choose(
    policy: str | None,
    docs: list[dict],
    constraints: Any = None,
    *,
    listed: list[str] | None = None,
    name: str | None = None,
    missing_aborts: bool = False,
    known: bool = True,
) -> ComponentPlacement:
    """The engine's class under ``spec.acceleratorSelector`` {policy, constraints, name} with
    ``docs`` as the cluster's classes, listed in order (or ``listed``)."""
    classes, _ = latest_classes(AcceleratorClass.from_mapping(doc) for doc in docs)
    context = ComponentContext(
        request=AcceleratorRequest(
            selector=Selector(accelerator_class=name, policy=policy, constraints=constraints),
            engine=ComponentRequest(),
        ),
        listed=listed if listed is not None else [doc["metadata"]["name"] for doc in docs],
        view=ClassView(classes, known),
        missing_aborts=missing_aborts,
        config=lambda _: None,
    )
    return place_component(context, "engine")


def losses(component: ComponentPlacement) -> dict[str, str | None]:
    return {other.name: other.reason for other in component.others}
