"""The constraint filter of rules §20.3.2: whether a class passes
``spec.acceleratorSelector.constraints``, and OME's (log) text for the first check it fails."""

from __future__ import annotations

from ..values import AcceleratorClass, Constraints

# rules §20.10 item 23: "ignoring case" and "lowercased" fold ASCII letters only.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def _byte_order(text: str) -> bytes:
    # Go compares strings byte by byte (their UTF-8 encoding).
    return text.encode("utf-8", "surrogatepass")


class ConstraintFilter:
    """``spec.acceleratorSelector.constraints`` read once for a pool: its lists as sets, so
    that judging each class costs its own fields, not the lists' lengths (a request can hold
    long lists and many classes)."""

    def __init__(self, constraints: Constraints | None) -> None:
        self.constraints = constraints
        if constraints is None:
            return
        self.excluded = frozenset(constraints.excluded_classes)
        families = [ascii_lower(item) for item in constraints.architecture_families]
        self.vendor_families = frozenset(item for item in families if "-" in item)
        self.families = frozenset(item for item in families if "-" not in item)
        # The first of each feature (ignoring case), in order, with its text as written.
        required: dict[str, str] = {}
        for item in constraints.required_features:
            required.setdefault(ascii_lower(item), item)
        self.required = list(required.items())

    def failure(self, accelerator: AcceleratorClass) -> str | None:
        """OME's text for the first constraint the class fails, None when it passes. Without
        constraints (absent or null) every class passes; ``minComputePerformanceTFLOPS`` and
        ``preferredPrecisions`` never exclude."""
        constraints = self.constraints
        if constraints is None:
            return None
        if accelerator.name in self.excluded:
            return "explicitly excluded"
        if constraints.architecture_families:
            family = ascii_lower(accelerator.family)
            vendor_family = f"{ascii_lower(accelerator.vendor)}-{family}"
            if family not in self.families and vendor_family not in self.vendor_families:
                return f"architecture family {family} not in allowed list"
        if constraints.min_memory is not None or constraints.max_memory is not None:
            failure = _memory_failure(accelerator, constraints)
            if failure is not None:
                return failure
        failure = self._feature_failure(accelerator)
        if failure is not None:
            return failure
        if constraints.min_architecture_version is not None:
            return _architecture_failure(accelerator, constraints.min_architecture_version)
        return None

    def _feature_failure(self, accelerator: AcceleratorClass) -> str | None:
        offered = {ascii_lower(feature) for feature in accelerator.features}
        # The first missing one is among the first len(offered) + 1 distinct ones: linear.
        for folded, item in self.required[: len(offered) + 1]:
            if folded not in offered:
                return f"missing required feature: {item}"
        return None


def _memory_failure(accelerator: AcceleratorClass, constraints: Constraints) -> str | None:
    if accelerator.memory_gb is None:
        return "missing memory specification for memory check"
    memory = accelerator.memory_gb.whole_gib
    if constraints.min_memory is not None and memory < constraints.min_memory:
        return f"memory {memory}GB < required {constraints.min_memory}GB"
    if constraints.max_memory is not None and memory > constraints.max_memory:
        return f"memory {memory}GB > max allowed {constraints.max_memory}GB"
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
    """``ConstraintFilter(constraints).failure(accelerator)``: for one class."""
    return ConstraintFilter(constraints).failure(accelerator)
