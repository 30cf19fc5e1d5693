"""OME's refusals as selection answers them (rules §7, §15, §17), typed by code as OME types its
errors (``RuntimeNotFoundError``, ``RuntimeDisabledError`` …): a code is one of these or does not
type-check, and each maps to one HTTP error (``app.errors.selection_error``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SelectionErrorCode(StrEnum):
    """The codes of OME's refusals. A ranking answers the first five as its ``error``; an
    InferenceService's outcome also has ``NoRuntimeFound`` (nothing qualifies) and
    ``ModelNotFound`` (its model does not exist)."""

    MODEL_NOT_READY = "ModelNotReady"
    RUNTIME_NOT_FOUND = "RuntimeNotFound"
    RUNTIME_DISABLED = "RuntimeDisabled"
    RUNTIME_INHERITANCE_ERROR = "RuntimeInheritanceError"
    RUNTIME_INCOMPATIBLE = "RuntimeIncompatible"
    NO_RUNTIME_FOUND = "NoRuntimeFound"
    MODEL_NOT_FOUND = "ModelNotFound"


@dataclass(frozen=True, slots=True)
class SelectionError:
    """An answer OME gives as an error (rules §7, §15); ``message`` is OME's text."""

    code: SelectionErrorCode
    message: str
