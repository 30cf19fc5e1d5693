"""InferenceService constraints: accelerator class (rules §10) and deployment mode (§11)."""

from __future__ import annotations

from ..values import InferenceService, Runtime

DEPLOYMENT_MODES = frozenset({"RawDeployment", "MultiNode", "VirtualDeployment", "OMENative"})


def required_accelerator_classes(isvc: InferenceService | None) -> frozenset[str]:
    if isvc is None:
        return frozenset()
    candidates = (
        isvc.accelerator_annotation,
        isvc.accelerator_selector,
        isvc.engine_accelerator,
        isvc.decoder_accelerator,
    )
    return frozenset(value for value in candidates if value is not None)


def supports_accelerators(runtime: Runtime, required: frozenset[str]) -> bool:
    if not required:
        return True
    offered = runtime.accelerator_classes
    if not offered:  # absent or empty: offers none
        return False
    return required.issubset(offered)


def valid_mode(value: str | None) -> str | None:
    """A deployment mode, or ``None`` for missing, empty or invalid values (rules §11)."""
    return value if value in DEPLOYMENT_MODES else None


def requested_modes(isvc: InferenceService | None) -> tuple[str | None, str | None]:
    """(engine, decoder) modes the InferenceService asks for."""
    if isvc is None:
        return None, None
    fallback = valid_mode(isvc.deployment_mode)
    # rules §11: spec.deploymentMode applies to the engine even without spec.engine.
    engine = valid_mode(isvc.engine_mode_annotation) or fallback
    decoder = None
    if isvc.has_decoder:
        decoder = valid_mode(isvc.decoder_mode_annotation) or fallback
    return engine, decoder


def deployment_mode_mismatch(
    runtime: Runtime, engine: str | None, decoder: str | None
) -> str | None:
    for component, wanted, annotation in (
        ("engine", engine, runtime.engine_mode_annotation),
        ("decoder", decoder, runtime.decoder_mode_annotation),
    ):
        offered = valid_mode(annotation)
        if wanted is not None and offered is not None and offered != wanted:
            return (
                f"runtime {component} deployment mode {offered} does not match "
                f"requested {component} deployment mode {wanted}"
            )
    return None
