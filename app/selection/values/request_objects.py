"""What a request holds besides the documents selection reads (rules §2, §15): objects of other
kinds, and how often an object repeats. The accelerator classes report their repeats too, so
these sit below every document."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OtherObject:
    """An object of a kind selection does not read, found in a manifest stream (rules §15):
    skipped and listed under ``ignored``; or one kubectl would not map to a resource (rules
    §18: no ``kind``, or of ``ome.io`` with a kind or version OME does not serve), with
    kubectl's words as ``refusal``."""

    kind: str | None  # None: the object has none (or not a string)
    name: str | None
    namespace: str | None
    refusal: str | None = None

    @property
    def reason(self) -> str:
        """Why it was not read, as ``ignored`` says it."""
        if self.refusal is not None:
            return self.refusal
        return f"{self.kind} is not read by runtime selection"


@dataclass(frozen=True, slots=True)
class RepeatedObject:
    """A model or InferenceService that a stream holds more than once: the last one is used,
    as ``kubectl apply -f`` would leave it (rules §2). Runtimes are counted by selection."""

    kind: str
    name: str
    count: int
