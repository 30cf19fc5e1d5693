"""Fields of OME's newer Go types that the vendored CRD schemas (``openapi/COMMIT``) predate,
laid over them at load time so that strict field validation does not refuse what a cluster
running OME 1.3 accepts. Each is a field rules §1 reads or names; the schemas of each are those
``controller-gen`` writes for the Go field's type.
"""

from __future__ import annotations

from typing import Any

STRINGS_ATOMIC = {"items": {"type": "string"}, "type": "array", "x-kubernetes-list-type": "atomic"}
# A field of OME's newer types whose shape lint does not model: accepted whole, checked by the
# webhook rules that read it.
OBJECT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
# The enums of OME's newer types that the API server checks before any webhook.
AUTOSCALER = {
    **OBJECT,
    "properties": {"class": {"type": "string", "enum": ["HPA", "KEDA", "External", "None"]}},
}
SCALING_POLICY = {
    **OBJECT,
    "properties": {"mode": {"type": "string", "enum": ["Independent", "Proportional", "Pinned"]}},
}
RUNTIMES = ("ServingRuntime", "ClusterServingRuntime")
ISVC = ("InferenceService",)

# (kinds, path of property names from the schema's root, field, schema)
ADDITIONS: tuple[tuple[tuple[str, ...], tuple[str, ...], str, dict[str, Any]], ...] = (
    # rules §3.1: an entry's cache providers (`[]ModelCacheProvider`, a string type).
    (
        ("ServingRuntime", "ClusterServingRuntime"),
        ("spec", "supportedModelFormats", "[]"),
        "modelCacheProviders",
        STRINGS_ATOMIC,
    ),
    # rules §1.1: `Sharded` models need a cache provider.
    (("BaseModel", "ClusterBaseModel"), ("spec",), "distribution", {"type": "string"}),
    # The InferenceService webhook's revision pins (rules §18).
    (ISVC, ("spec", "runtime"), "autoSync", {"type": "boolean"}),
    (ISVC, ("spec", "runtime"), "revision", {"type": "string"}),
    # Read by the InferenceService webhook's rules (rules §18).
    (ISVC, ("spec", "model"), "overlays", {"type": "array", "items": OBJECT}),
    (ISVC, ("spec",), "deploymentMode", {"type": "string"}),
    (ISVC, ("spec",), "scalingPolicy", SCALING_POLICY),
    (ISVC, ("spec",), "traffic", OBJECT),
    (ISVC, ("spec",), "rollout", OBJECT),
    (ISVC, ("spec",), "placement", OBJECT),
    *(
        (ISVC, ("spec", component), field, AUTOSCALER if field == "autoscaler" else OBJECT)
        for component in ("engine", "decoder", "router")
        for field in ("autoscaler", "autoscalerPolicyRef", "lifecycle")
    ),
    (RUNTIMES, ("spec",), "scalingPolicy", SCALING_POLICY),
    *(
        (RUNTIMES, ("spec", config), field, AUTOSCALER if field == "autoscaler" else OBJECT)
        for config in ("engineConfig", "decoderConfig", "routerConfig")
        for field in ("autoscaler", "autoscalerPolicyRef")
    ),
)


def additions_of(kind: str) -> tuple[int, ...]:
    """This kind's additions, by their place in ``ADDITIONS``: the same for kinds whose Go
    types are one (the two runtimes, the two models)."""
    return tuple(index for index, (kinds, *_) in enumerate(ADDITIONS) if kind in kinds)


def lay_over(additions: tuple[int, ...], schema: dict[str, Any]) -> None:
    """Adds ``additions`` (``additions_of`` a kind) to ``schema`` (a fresh copy, changed in
    place)."""
    for index in additions:
        _, path, name, addition = ADDITIONS[index]
        node = schema
        for step in path:
            node = node["items"] if step == "[]" else node["properties"][step]
        node["properties"].setdefault(name, addition)
