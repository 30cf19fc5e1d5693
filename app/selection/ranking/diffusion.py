"""Diffusion pipeline matching (rules §12)."""

from __future__ import annotations

from ..values import DiffusionPipeline, PipelineComponent

# rules §12: the standard components, in the order they are checked.
STANDARD_COMPONENTS = ("scheduler", "textEncoder", "tokenizer", "transformer", "vae")


def _component_mismatch(
    name: str, model: PipelineComponent, required: PipelineComponent
) -> str | None:
    # Only the entry's non-empty library/type constrain; the model's absent
    # values print as "" (rules §15 "Diffusion").
    if required.library and required.library != model.library:
        return f"{name} library mismatch (model={model.library or ''}, runtime={required.library})"
    if required.type and required.type != model.type:
        return f"{name} type mismatch (model={model.type or ''}, runtime={required.type})"
    return None


def diffusion_mismatch(
    model: DiffusionPipeline | None, required: DiffusionPipeline | None
) -> str | None:
    """The first §12 failure of an entry's pipeline against the model's, or ``None``."""
    if required is None:
        return None
    if model is None:
        return "diffusion pipeline required by runtime but not specified in model"
    if required.class_name is not None and required.class_name != model.class_name:
        shown = "<nil>" if model.class_name is None else model.class_name
        return f"pipeline class mismatch (model={shown}, runtime={required.class_name})"
    for name in STANDARD_COMPONENTS:
        wanted = required.components.get(name)
        if wanted is None:
            continue
        have = model.components.get(name)
        if have is None:
            return f"component {name} required by runtime but not specified in model"
        text = _component_mismatch(name, have, wanted)
        if text:
            return text
    if required.additional:
        if not model.additional:
            return "diffusion pipeline missing required additional components"
        # rules §15: additional component keys are checked in byte order.
        for key in sorted(required.additional, key=lambda k: k.encode("utf-8", "surrogatepass")):
            have = model.additional.get(key)
            if have is None:
                return f"diffusion component {key} missing in model"
            text = _component_mismatch(key, have, required.additional[key])
            if text:
                return text
    return None
