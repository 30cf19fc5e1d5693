"""Warnings about documents OME accepts but reads differently from how they look."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..values import Model, RepeatedObject, Runtime, format_parameters, is_plain_size, parse_size
from .ranked import text_key

if TYPE_CHECKING:
    from .checks import RuntimeRow

_KIND_ORDER = {
    "BaseModel": 0,
    "ClusterBaseModel": 1,
    "InferenceService": 2,
    "ServingRuntime": 3,
    "ClusterServingRuntime": 4,
}


def _size_warning(kind: str, name: str, field: str, raw: str) -> str | None:
    """rules §9: sizes that are not plain decimals, or that read as 0, get a warning."""
    return _size_text(kind, name, field, raw) if _warns(raw) else None


def _warns(raw: str) -> bool:
    """rules §9: a size that is not a plain decimal, or that reads as 0."""
    return not is_plain_size(raw) or parse_size(raw) == 0


def _size_text(kind: str, name: str, field: str, raw: str) -> str:
    """``_size_warning``'s text, for a size that warns."""
    value = format_parameters(parse_size(raw))
    return f'{kind} {name}: {field} "{raw}" is read by OME as {value} parameters'


def size_warnings(model: Model, runtimes: list[Runtime]) -> list[str]:
    """Size warnings for the model and the candidate runtimes, in canonical order
    (model first, then ServingRuntimes, then ClusterServingRuntimes, by name)."""
    return model_size_warnings(model) + runtime_size_warnings(runtimes)


def model_size_warnings(model: Model) -> list[str]:
    if model.parameter_size is None:
        return []
    text = _size_warning(model.kind, model.name, "spec.modelParameterSize", model.parameter_size)
    return [] if text is None else [text]


def runtime_size_warnings(runtimes: list[Runtime]) -> list[str]:
    """The runtimes' part of ``size_warnings``: ServingRuntimes, then ClusterServingRuntimes,
    by name. Only the runtimes with a bound that warns are sorted (most have none; the sort is
    stable, so equal keys keep the order a sort of every runtime gives them), and each distinct
    bound is read once (a catalog's runtimes repeat a few sizes)."""
    warns: dict[str, bool] = {}  # bound -> whether it warns
    flagged = []
    for runtime in runtimes:
        bounds = runtime.size_range
        if bounds is None:
            continue
        odd = False
        for raw in (bounds.min, bounds.max):
            if raw is not None:
                known = warns.get(raw)
                if known is None:
                    known = warns[raw] = _warns(raw)
                odd = odd or known
        if odd:
            flagged.append(runtime)
    flagged.sort(key=lambda r: (r.is_cluster, text_key(r.name)))
    found = []
    for runtime in flagged:
        bounds = runtime.size_range
        assert bounds is not None  # flagged for one of its bounds
        for field, raw in (("min", bounds.min), ("max", bounds.max)):
            if raw is not None and warns[raw]:
                found.append(
                    _size_text(runtime.kind, runtime.name, f"spec.modelSizeRange.{field}", raw)
                )
    return found


def repeat_warnings(repeated: list[RepeatedObject]) -> list[str]:
    """rules §2: one warning per object the request holds more than once, in kind order (models,
    InferenceServices, ServingRuntimes, ClusterServingRuntimes), then by name."""
    ordered = sorted(
        repeated,
        key=lambda item: (_KIND_ORDER.get(item.kind, len(_KIND_ORDER)), text_key(item.name)),
    )
    return [
        f"{item.kind} {item.name} appears {item.count} times in the request; the last one is used"
        for item in ordered
    ]


def unused_size_range_warning(model: Model, rows: tuple[RuntimeRow, ...]) -> str | None:
    """rules §15: a model without a size leaves the ranges of the qualifying runtimes unused."""
    if model.parameter_size is not None:
        return None
    count = sum(1 for row in rows if row.compatible and row.runtime.size_range is not None)
    if not count:
        return None
    return (
        f"model has no modelParameterSize, so the modelSizeRange of {count} qualifying "
        "runtimes plays no part"
    )
