"""Questions shared across clusters (rules §19 "Fleet impact"): the rankings and placements of
views that agree on everything a ranking reads besides the model and the InferenceService are
computed once for all of them.

Views agree when their runtimes, AcceleratorClasses and settings have the same content: each
object is digested once (by identity, so a change's before and after, which share every object
it leaves alone, cost one digest per object), and the view's context is the digest of those
digests in order. Two catalogs that differ anywhere a ranking reads have different contexts
and share nothing; equal content in another order shares nothing either (a missed share, never
a wrong answer)."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Hashable
from dataclasses import dataclass, field

from ..placement import accelerator_request
from ..values import AcceleratorRequest, CatalogView, Model
from .outcomes import Answers, asked_questions, longest_class_list, placement_checks


@dataclass
class _Plan:
    """One context's work, counted before it starts."""

    runtimes: int
    longest: int  # the longest class list of its runtimes
    questions: set[Hashable] = field(default_factory=set)
    placements: set[tuple[Hashable, AcceleratorRequest]] = field(default_factory=set)


class SharedAnswers:
    """One request's answers, shared by every view given to ``of``; ``plan`` counts, before
    they run, the rankings the views will cost together."""

    def __init__(self) -> None:
        self._answers: dict[bytes, Answers] = {}
        # id → (the object, kept alive so that no id is reused while this lives; its digest)
        self._digests: dict[int, tuple[object, bytes]] = {}
        self._planned: dict[bytes, _Plan] = {}

    def of(self, view: CatalogView) -> Answers:
        """The answers of ``view``'s context, made on the first view of it."""
        context = self._context(view)
        answers = self._answers.get(context)
        if answers is None:
            answers = self._answers[context] = Answers(view, self._model_key)
        return answers

    def plan(self, view: CatalogView, *, namespace: str | None = None) -> None:
        """Count the distinct questions ``selections`` of ``view`` will ask in its context, and
        the distinct placements they may make."""
        context = self._context(view)
        plan = self._planned.get(context)
        if plan is None:
            plan = self._planned[context] = _Plan(len(view.runtimes), longest_class_list(view))
        for question, model, isvc in asked_questions(view, namespace=namespace):
            key = (question, self._model_key(model))
            plan.questions.add(key)
            if plan.longest:
                plan.placements.add((key, accelerator_request(isvc)))

    def planned(self) -> list[tuple[int, int]]:
        """``(rankings, runtimes)`` of each context planned: what ``check_rankings`` takes."""
        return [(len(plan.questions), plan.runtimes) for plan in self._planned.values()]

    def planned_placements(self) -> int:
        """The class checks of every context's distinct placements, at most."""
        return sum(
            placement_checks((request for _, request in plan.placements), plan.longest)
            for plan in self._planned.values()
        )

    def _context(self, view: CatalogView) -> bytes:
        settings = (view.ome_version, view.model_cache_provider, view.classes_known)
        runtimes = (self._digest(runtime) for runtime in view.runtimes)
        classes = (self._digest(accelerator) for accelerator in view.classes)
        parts = [pickle.dumps(settings, protocol=5), *runtimes, b"|", *classes]
        return hashlib.sha256(b"".join(parts)).digest()

    def _digest(self, value: object) -> bytes:
        known = self._digests.get(id(value))
        if known is None:
            digest = hashlib.sha256(pickle.dumps(value, protocol=5)).digest()
            known = self._digests[id(value)] = (value, digest)
        return known[1]

    def _model_key(self, model: Model) -> bytes:
        return self._digest(model)
