"""Sections 1 and 2: the selection rules alone, and a cold request through the app.

Both are compared with the same baseline, ``json.loads`` + ``json.dumps`` of the request body: the
least any JSON service must do with those bytes. The cold request is sent with
``Cache-Control: no-cache`` (SPEC §16: skip the reads, still store the answer), so it does
everything a cache miss does except two lookups, on the in-process cache backend, so that the
figure does not depend on Redis. Its stages are timed directly, in the same rounds:
decoding (``decode_json_body``), validation (``load_rank_request``), ranking (``rank_and_place``,
with the advice the JSON answer shows), rendering (``ranking_body`` + ``to_json``), and the
cache's own work on a miss (both keys, the compressed frame); the rest of the request (Flask,
routing, observability) is the remainder.
"""

from __future__ import annotations

import json
import statistics
import time

from app.cache import keys
from app.cache.framing import FrameCodec
from app.reading.decoding import decode_json_body
from app.rendering.answers import Answer
from app.rendering.encode import to_json
from app.rendering.ranking_body import ranking_body
from app.schemas.requests import load_rank_request
from app.selection.prediction import rank_and_place
from app.selection.ranking import rank_runtimes

from .report import Table
from .timing import (
    Budget,
    Stats,
    compare,
    growth_per_decade,
    microseconds,
    milliseconds,
    size_label,
)
from .wsgi import WsgiCall

# How an answer is framed for the cache (signed with this process's own key).
FRAMES = FrameCodec.ephemeral()

STAGES = ("decode", "validate", "rank", "render", "cache")
MAX_RUNTIMES = 10_000  # the service's default OME_RANKER_MAX_RUNTIMES, part of the request key


def json_round_trip(raw: bytes):
    return lambda: json.dumps(json.loads(raw))


class StagedRequest:
    """The cold request's work, stage by stage, outside Flask; keeps each stage's samples."""

    def __init__(self, raw: bytes, prefix: str) -> None:
        self.raw = raw
        self.prefix = prefix
        self.samples: dict[str, list[float]] = {stage: [] for stage in STAGES}

    def __call__(self) -> None:
        clock = time.perf_counter
        t0 = clock()
        body = decode_json_body(self.raw)
        t1 = clock()
        request = load_rank_request(body, {})
        t2 = clock()
        prediction = rank_and_place(request, with_advice=True)
        t3 = clock()
        answer = to_json(ranking_body(prediction))
        t4 = clock()
        keys.request_key(
            self.prefix,
            self.raw,
            endpoint="rank",
            output="json",
            content_type="application/json",
            namespace=None,
            ome_version=None,
            max_runtimes=MAX_RUNTIMES,
        )
        keys.ranking_key(self.prefix, request, "rank", "json")
        FRAMES.encode(Answer(200, "application/json", answer), "")
        t5 = clock()
        for stage, seconds in zip(
            STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True
        ):
            self.samples[stage].append(seconds)

    def stats(self, warmup: int) -> dict[str, Stats]:
        return {stage: Stats.of(values[warmup:]) for stage, values in self.samples.items()}

    def totals(self, warmup: int) -> list[float]:
        """Seconds of all stages together, per call after the warm-up."""
        return [sum(parts) for parts in zip(*self.samples.values(), strict=True)][warmup:]


def selection_core(bodies: dict[int, bytes], budget: Budget) -> tuple[Table, list[float]]:
    """Section 1: ``rank_runtimes`` on an already-validated request, per size."""
    table = Table(
        "1. Selection core: rank_runtimes on a validated RankRequest",
        (
            "runtimes",
            "body",
            "rank median ms",
            "rank min ms",
            "µs/runtime",
            "growth per 10×",
            "JSON round trip ms",
            "rank / JSON",
        ),
    )
    previous: tuple[int, float] | None = None
    growths: list[float] = []
    for count, raw in bodies.items():
        request = load_rank_request(json.loads(raw), {})
        stats = compare(
            {"json": json_round_trip(raw), "rank": lambda r=request: rank_runtimes(r)}, budget
        )
        rank, baseline = stats["rank"], stats["json"]
        growth = "-"
        if previous is not None:
            factor = growth_per_decade(previous[0], previous[1], count, rank.median)
            growths.append(factor)
            growth = f"{factor:.1f}×"
        previous = (count, rank.median)
        table.add(
            count,
            size_label(len(raw)),
            milliseconds(rank.median),
            milliseconds(rank.minimum),
            microseconds(rank.median / count),
            growth,
            milliseconds(baseline.median),
            f"{rank.median / baseline.median:.2f}",
        )
    table.notes.append(
        "growth per 10×: (t(N2)/t(N1)) ** (1/log10(N2/N1)) between consecutive sizes; "
        "linear is 10×, the target ≤ 11×"
    )
    return table, growths


def cold_requests(
    app, bodies: dict[int, bytes], budget: Budget, prefix: str
) -> tuple[Table, Table, dict[int, float]]:
    """Section 2: a cold ``POST /v1/rank`` through the WSGI app, its stages, and the baseline."""
    table = Table(
        "2. Cold request: POST /v1/rank, Cache-Control: no-cache, in process (WSGI callable)",
        (
            "runtimes",
            "body",
            "cold median ms",
            "cold min ms",
            "growth per 10×",
            "JSON round trip ms",
            "cold / JSON",
        ),
    )
    shares = Table(
        "2b. Where a cold request's time goes (share of the cold median)",
        ("runtimes", "decode", "validate", "rank", "render", "cache keys+frame", "Flask+rest"),
    )
    ratios: dict[int, float] = {}
    previous: tuple[int, float] | None = None
    for count, raw in bodies.items():
        cold = WsgiCall(
            app,
            "/v1/rank",
            body=raw,
            headers={"Content-Type": "application/json", "Cache-Control": "no-cache"},
            expect_cache="bypass",
        )
        staged = StagedRequest(raw, prefix)
        stats = compare({"json": json_round_trip(raw), "cold": cold, "stages": staged}, budget)
        request, baseline = stats["cold"], stats["json"]
        ratios[count] = request.median / baseline.median
        growth = "-"
        if previous is not None:
            growth = f"{growth_per_decade(previous[0], previous[1], count, request.median):.1f}×"
        previous = (count, request.median)
        table.add(
            count,
            size_label(len(raw)),
            milliseconds(request.median),
            milliseconds(request.minimum),
            growth,
            milliseconds(baseline.median),
            f"{ratios[count]:.2f}",
        )
        stages = staged.stats(budget.warmup)
        parts = [stages[stage].median for stage in STAGES]
        # Per round: the request minus its stages run just after it, so that a burst of noise
        # in one round does not turn into a negative remainder.
        rest = statistics.median(
            whole - staged_part
            for whole, staged_part in zip(
                request.samples, staged.totals(budget.warmup), strict=True
            )
        )
        shares.add(
            count,
            *(_share(part, request.median) for part in parts),
            _share(rest, request.median) if rest > 0 else "≈ 0 (within noise)",
        )
    shares.notes.append(
        "stages timed directly in the same rounds (decode_json_body, load_rank_request, "
        "rank_and_place, ranking_body+to_json, request_key+ranking_key+FrameCodec.encode); "
        "'Flask+rest' = median over rounds of (request - its stages) (routing, Accept and "
        "Cache-Control parsing, the observability hooks and log lines, the LRU store); shares "
        "are of the cold median, so with noise they need not add up to exactly 100 %"
    )
    return table, shares, ratios


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} % ({milliseconds(part)} ms)"


def harness_overhead(budget: Budget) -> Stats:
    """What ``WsgiCall`` costs around an app that does nothing."""
    from .wsgi import trivial_wsgi

    call = WsgiCall(trivial_wsgi, "/", method="GET")
    return compare({"harness": call}, budget)["harness"]
