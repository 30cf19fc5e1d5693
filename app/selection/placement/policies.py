"""The four policies of rules §20.3.3 on a filtered pool of two or more classes: the pick, its
score, and why each other class lost, in OME's order of double arithmetic.

Every score is computed as OME's Go code writes it, one IEEE-754 binary64 operation at a time
(Python's float is binary64 and never fuses a multiply-add), so equal inputs give equal bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..values import AcceleratorClass, Constraints, Performance, Quantity, checked
from .filters import ascii_lower

# Go's sort.Slice sorts up to 12 elements by insertion sort (stable: the first of equal scores
# stays first); above that pdqsort, which is not stable (rules §20.3.3, §20.10 item 3).
STABLE_SORT_LIMIT = 12
TIE_UNKNOWN = "unknown: more than 12 classes tie for the top score"
NO_USABLE_COST = "No usable cost fields found for any candidate"
NO_COST = "no cost"
CLASSES_PER_CHECK = 32

BEST_FIT_MEMORY_WEIGHT = 0.70
BEST_FIT_COMPUTE_WEIGHT = 0.30
CAPABILITY_MEMORY_WEIGHT = 0.5
CAPABILITY_BANDWIDTH_WEIGHT = 0.3
CAPABILITY_TFLOPS_WEIGHT = 0.2


@dataclass(frozen=True, slots=True)
class PolicyPick:
    """What a policy makes of a filtered pool. ``pick`` None: no class (``reason`` says why;
    ``known`` False when the pick cannot be known). ``losses``: for each other class of the
    pool, why it lost, None when it lost to nothing."""

    pick: str | None
    score: float | None = None
    known: bool = True
    reason: str | None = None
    losses: dict[str, str | None] = field(default_factory=dict)


def number(value: float) -> str:
    """rules §20.8, §20.10 item 18: the shortest decimal that reads back as the same double."""
    return repr(value)


def tflops_of(performance: Performance | None, precision: str) -> int:
    """The TFLOPS field a precision reads (``fp8`` reads ``int8Tops``); 0 for any other name or
    an absent field."""
    if performance is None:
        return 0
    value = {
        "fp32": performance.fp32_tflops,
        "fp16": performance.fp16_tflops,
        "int8": performance.int8_tops,
        "fp8": performance.int8_tops,
        "int4": performance.int4_tops,
    }.get(ascii_lower(precision))
    return 0 if value is None else value


def _largest_tflops(performance: Performance) -> int:
    largest = 0
    for value in (
        performance.fp32_tflops,
        performance.fp16_tflops,
        performance.int8_tops,
        performance.int4_tops,
    ):
        if value is not None and value > largest:
            largest = value
    return largest


def first_available(pool: Sequence[AcceleratorClass]) -> PolicyPick:
    pick = pool[0].name
    return PolicyPick(pick, losses={other.name: f"listed after {pick}" for other in pool[1:]})


def _highest(pool: Sequence[AcceleratorClass], scores: Sequence[float]) -> PolicyPick:
    """The class with the highest score: the first of equals while the sort is stable, unknown
    when an unstable sort meets a tie for the top score."""
    best = 0
    for index in range(1, len(scores)):
        if scores[index] > scores[best]:
            best = index
    top = scores[best]
    tied = sum(1 for score in scores if score == top)
    if len(pool) > STABLE_SORT_LIMIT and tied > 1:
        losses = {
            accelerator.name: None if score == top else f"score {number(score)} < {number(top)}"
            for accelerator, score in zip(pool, scores, strict=True)
        }
        return PolicyPick(None, None, known=False, reason=TIE_UNKNOWN, losses=losses)
    pick = pool[best].name
    losses = {}
    for index, (accelerator, score) in enumerate(zip(pool, scores, strict=True)):
        if index == best:
            continue
        if score == top:
            losses[accelerator.name] = f"score {number(score)} = {number(top)}, listed after {pick}"
        else:
            losses[accelerator.name] = f"score {number(score)} < {number(top)}"
    return PolicyPick(pick, top, losses=losses)


def memory_fit(accelerator: AcceleratorClass, constraints: Constraints) -> float:
    """BestFit's *mem*: over-provisioning is penalised as 1 / (g / r)."""
    if constraints.min_memory is None:
        return 1.0
    if accelerator.memory_gb is None:
        return 0.0
    memory = accelerator.memory_gb.gib
    required = float(constraints.min_memory)
    if memory < required:
        return 0.0
    if memory == required:
        return 1.0
    ratio = math.inf if required == 0.0 else memory / required  # Go: x / 0.0 is +Inf
    return 1.0 / ratio


def compute_fit(accelerator: AcceleratorClass, constraints: Constraints) -> float:
    """BestFit's *compute*: the TFLOPS of the preferred precisions, each later one worth half."""
    performance = accelerator.performance
    if performance is None:
        return 0.0
    required = constraints.min_compute_tflops or 0

    def fit(tflops: int) -> float:
        if tflops == 0:
            return 0.0
        if required == 0:
            return 1.0
        ratio = float(tflops) / float(required)
        return 1.0 if ratio >= 1.0 else ratio

    precisions = constraints.preferred_precisions
    if not precisions:
        return fit(_largest_tflops(performance))
    penalty = 1.0
    for precision in precisions:
        tflops = tflops_of(performance, precision)
        if tflops > 0:
            return fit(tflops) * penalty
        penalty *= 0.5
    if all(ascii_lower(precision) != "fp16" for precision in precisions):
        tflops = tflops_of(performance, "fp16")
        if tflops > 0:
            return fit(tflops) * penalty
    return 0.0


def best_fit_score(accelerator: AcceleratorClass, constraints: Constraints) -> float:
    memory = memory_fit(accelerator, constraints)
    compute = compute_fit(accelerator, constraints)
    return BEST_FIT_MEMORY_WEIGHT * memory + BEST_FIT_COMPUTE_WEIGHT * compute


def best_fit(pool: Sequence[AcceleratorClass], constraints: Constraints) -> PolicyPick:
    """BestFit with constraints (without them OME fails: the caller reports that)."""
    scores = [
        best_fit_score(accelerator, constraints)
        for accelerator in checked(pool, every=CLASSES_PER_CHECK)
    ]
    return _highest(pool, scores)


def capability_values(
    accelerator: AcceleratorClass, precisions: Sequence[str]
) -> tuple[float, float, float]:
    """MostCapable's raw (TFLOPS, GiB, bandwidth) of a class."""
    performance = accelerator.performance
    primary = precisions[0] if precisions else "fp16"
    tflops = float(tflops_of(performance, primary))
    if tflops == 0.0 and len(precisions) > 1:
        for precision in precisions[1:]:
            fallback = tflops_of(performance, precision)
            if fallback > 0:
                tflops = float(fallback)
                break
    memory = 0.0 if accelerator.memory_gb is None else accelerator.memory_gb.gib
    bandwidth = accelerator.memory_bandwidth_gbps
    return tflops, memory, 0.0 if bandwidth is None else float(bandwidth.integer_value)


def most_capable(pool: Sequence[AcceleratorClass], constraints: Constraints | None) -> PolicyPick:
    precisions = () if constraints is None else constraints.preferred_precisions
    values = [
        capability_values(accelerator, precisions)
        for accelerator in checked(pool, every=CLASSES_PER_CHECK)
    ]
    most_tflops = most_memory = most_bandwidth = 0.0
    for tflops, memory, bandwidth in values:
        most_tflops = tflops if tflops > most_tflops else most_tflops
        most_memory = memory if memory > most_memory else most_memory
        most_bandwidth = bandwidth if bandwidth > most_bandwidth else most_bandwidth
    scores = []
    for tflops, memory, bandwidth in values:
        norm_tflops = tflops / most_tflops if most_tflops > 0 else 0.0
        norm_memory = memory / most_memory if most_memory > 0 else 0.0
        norm_bandwidth = bandwidth / most_bandwidth if most_bandwidth > 0 else 0.0
        scores.append(
            CAPABILITY_MEMORY_WEIGHT * norm_memory
            + CAPABILITY_BANDWIDTH_WEIGHT * norm_bandwidth
            + CAPABILITY_TFLOPS_WEIGHT * norm_tflops
        )
    return _highest(pool, scores)


@dataclass(frozen=True, slots=True)
class _CostGroup:
    missing: str  # why a class with a cost but without this group's field lost
    value: Callable[[AcceleratorClass], tuple[str, str, int] | None]  # (field, raw, comparable)


def _hourly(accelerator: AcceleratorClass) -> tuple[str, str, int] | None:
    cost = accelerator.cost
    if cost is None:
        return None
    if cost.spot_per_hour is not None:
        return _quantity_value("spotPerHour", cost.spot_per_hour)
    if cost.per_hour is not None:
        return _quantity_value("perHour", cost.per_hour)
    return None


def _per_million_tokens(accelerator: AcceleratorClass) -> tuple[str, str, int] | None:
    cost = accelerator.cost
    if cost is None or cost.per_million_tokens is None:
        return None
    return _quantity_value("perMillionTokens", cost.per_million_tokens)


def _tier(accelerator: AcceleratorClass) -> tuple[str, str, int] | None:
    cost = accelerator.cost
    if cost is None or cost.tier == "":
        return None
    # OME's tierToNumeric: any other value counts as medium.
    return "tier", cost.tier, {"low": 1, "medium": 2, "high": 3}.get(ascii_lower(cost.tier), 2)


def _quantity_value(name: str, quantity: Quantity) -> tuple[str, str, int]:
    return name, quantity.raw, quantity.nanos  # quantities compare by exact value


_COST_GROUPS = (
    _CostGroup("no spotPerHour or perHour while others have one", _hourly),
    _CostGroup("no perMillionTokens while others have one", _per_million_tokens),
    _CostGroup("no tier while others have one", _tier),
)


def cheapest(pool: Sequence[AcceleratorClass]) -> PolicyPick:
    """Classes without ``cost`` are left out; the first group any class has a value in decides,
    and the first class with the strictly lowest value wins."""
    for group in _COST_GROUPS:
        values = [(accelerator, group.value(accelerator)) for accelerator in pool]
        priced = [(accelerator, value) for accelerator, value in values if value is not None]
        if not priced:
            continue
        winner, (win_field, win_raw, lowest) = priced[0]
        for accelerator, (name, raw, amount) in priced[1:]:
            if amount < lowest:
                winner, win_field, win_raw, lowest = accelerator, name, raw, amount
        losses: dict[str, str | None] = {}
        for accelerator, value in values:
            if accelerator is winner:
                continue
            if accelerator.cost is None:
                losses[accelerator.name] = NO_COST
            elif value is None:
                losses[accelerator.name] = group.missing
            else:
                name, raw, amount = value
                text = f"{name} {raw} {'=' if amount == lowest else '>'} {win_field} {win_raw}"
                if amount == lowest:
                    text += f", listed after {winner.name}"
                losses[accelerator.name] = text
        return PolicyPick(winner.name, losses=losses)
    losses = {
        accelerator.name: NO_COST if accelerator.cost is None else None for accelerator in pool
    }
    return PolicyPick(None, reason=NO_USABLE_COST, losses=losses)
