"""Repeated timings with ``time.perf_counter``: warm-up, then interleaved rounds.

Every figure that is compared with another is measured in the same rounds (A, B, C, A, B, C …)
so that a neighbour's burst of CPU, a frequency change or a GC pause lands on both sides of a
ratio instead of on one. Each figure is the median of its samples, with the minimum beside it.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Stats:
    """Seconds per call."""

    median: float
    minimum: float
    runs: int
    samples: tuple[float, ...] = ()

    @classmethod
    def of(cls, samples: list[float]) -> Stats:
        return cls(statistics.median(samples), min(samples), len(samples), tuple(samples))


@dataclass(frozen=True, slots=True)
class Budget:
    """How long to keep sampling one comparison, and how many rounds at least and at most;
    ``clock`` times the samples and the budget (``time.thread_time``: CPU time of the thread,
    which a machine shared with other work inflates far less than time on the wall)."""

    seconds: float
    min_runs: int = 3
    max_runs: int = 2000
    warmup: int = 1
    clock: Callable[[], float] = time.perf_counter


def compare(
    candidates: Mapping[str, Callable[[], Any]],
    budget: Budget,
    before_each: Callable[[], Any] | None = None,
) -> dict[str, Stats]:
    """Median and minimum of each candidate, sampled in round-robin order.

    Rounds continue until ``budget.seconds`` have passed (at least ``min_runs`` rounds, at most
    ``max_runs``), so a slow candidate gets few samples and a fast one many, and the whole
    comparison is bounded in both count and time. ``before_each`` runs, untimed, before every
    sample (``gc.collect``: so that no candidate pays for the garbage of the one before it).
    """
    for _ in range(budget.warmup):
        for candidate in candidates.values():
            candidate()
    gc.collect()  # start every comparison from the same heap, not the previous one's garbage
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    clock = budget.clock
    deadline = clock() + budget.seconds
    rounds = 0
    while rounds < budget.max_runs and (rounds < budget.min_runs or clock() < deadline):
        for name, candidate in candidates.items():
            if before_each is not None:
                before_each()
            started = clock()
            candidate()
            samples[name].append(clock() - started)
        rounds += 1
    return {name: Stats.of(values) for name, values in samples.items()}


def growth_per_decade(small: int, small_seconds: float, large: int, large_seconds: float) -> float:
    """Time factor per 10× more runtimes, from two sizes (5× apart gives a 10× equivalent):
    ``(t_large / t_small) ** (1 / log10(large / small))``. Linear scaling gives 10."""
    return (large_seconds / small_seconds) ** (1 / math.log10(large / small))


def milliseconds(seconds: float) -> str:
    value = seconds * 1000
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def microseconds(seconds: float) -> str:
    value = seconds * 1e6
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def size_label(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} B"
