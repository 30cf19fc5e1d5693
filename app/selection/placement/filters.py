"""The constraint filter of rules §20.3.2: whether a class passes
``spec.acceleratorSelector.constraints``, and OME's (log) text for the first check it fails."""

from __future__ import annotations

from .classes import AcceleratorClass
from .requests import Constraints

# rules §20.10 item 23: "ignoring case" and "lowercased" fold ASCII letters only.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def _byte_order(text: str) -> bytes:
    # Go compares strings byte by byte (their UTF-8 encoding).
    return text.encode("utf-8", "surrogatepass")


def _family_failure(accelerator: AcceleratorClass, allowed: tuple[str, ...]) -> str | None:
    family = ascii_lower(accelerator.family)
    vendor_family = f"{ascii_lower(accelerator.vendor)}-{family}"
    for item in allowed:
        wanted = vendor_family if "-" in item else family
        if ascii_lower(item) == wanted:
            return None
    return f"architecture family {family} not in allowed list"


def _memory_failure(accelerator: AcceleratorClass, constraints: Constraints) -> str | None:
    if accelerator.memory_gb is None:
        return "missing memory specification for memory check"
    memory = accelerator.memory_gb.whole_gib
    if constraints.min_memory is not None and memory < constraints.min_memory:
        return f"memory {memory}GB < required {constraints.min_memory}GB"
    if constraints.max_memory is not None and memory > constraints.max_memory:
        return f"memory {memory}GB > max allowed {constraints.max_memory}GB"
    return None


def _feature_failure(accelerator: AcceleratorClass, required: tuple[str, ...]) -> str | None:
    offered = {ascii_lower(feature) for feature in accelerator.features}
    for item in required:
        if ascii_lower(item) not in offered:
            return f"missing required feature: {item}"
    return None


def _architecture_failure(accelerator: AcceleratorClass, minimum: str) -> str | None:
    capability = accelerator.compute_capability
    if capability == "":
        return "missing compute capability for architecture version check"
    # Text order, as OME compares: "10.0" < "9.0".
    if _byte_order(capability) < _byte_order(minimum):
        return f"compute capability {capability} < required {minimum}"
    return None


def constraint_failure(
    accelerator: AcceleratorClass, constraints: Constraints | None
) -> str | None:
    """OME's text for the first constraint the class fails, None when it passes. Without
    constraints (absent or null) every class passes; ``minComputePerformanceTFLOPS`` and
    ``preferredPrecisions`` never exclude."""
    if constraints is None:
        return None
    if accelerator.name in constraints.excluded_classes:
        return "explicitly excluded"
    if constraints.architecture_families:
        failure = _family_failure(accelerator, constraints.architecture_families)
        if failure is not None:
            return failure
    if constraints.min_memory is not None or constraints.max_memory is not None:
        failure = _memory_failure(accelerator, constraints)
        if failure is not None:
            return failure
    failure = _feature_failure(accelerator, constraints.required_features)
    if failure is not None:
        return failure
    if constraints.min_architecture_version is not None:
        return _architecture_failure(accelerator, constraints.min_architecture_version)
    return None
