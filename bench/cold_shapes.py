"""The cold row on every workload shape (``bench/shapes.py``): a cold ``POST /v1/rank``
(``Cache-Control: no-cache``) through the app in process against an orjson round trip of the same
body, in the same interleaved rounds with a full collection before every sample; the row reports
the worst shape. Beside it, the share of the ways out (rules §19) in the cold request of the
held-out shape (``incompatible``), timed directly in the same rounds.

Beside them, ``--fresh N``: each generated shape on N bodies of other seeds, each asked once (a
cold request and a round trip per body), where the shape's own row asks one body again and again:
the process-wide tables of the service (shared entries and references, parsed versions) then meet
nothing they hold, as a cluster's next catalog would.

Run alone (``python -m bench.cold_shapes``) or as rows of ``python -m bench.table``. It reads only
public names of the app (``way_outs``, ``rank_runtimes``, ``load_rank_request``), so that the same
file measures an older commit's code (copy ``bench/`` into its checkout) for a before/after.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import orjson

from app.reading.decoding import decode_json_body
from app.schemas.requests import load_rank_request
from app.selection.advice import way_outs
from app.selection.ranking import rank_runtimes

from .manifests import encoded_body
from .shapes import fresh_bodies, generated_bodies, ome_bodies
from .timing import Budget, Stats, compare
from .wsgi import WsgiCall, build_app, quiet_logs

HELD_OUT = "incompatible"
HEADERS = {"Content-Type": "application/json", "Cache-Control": "no-cache"}
CPU_HELP = "time the in-process figures by the thread's CPU time (a shared machine)"


def shape_bodies(ome_config: Path | None) -> dict[str, list[bytes]]:
    """Each shape's bodies: one for the generated ones, one per Ready model for OME's."""
    shapes = {"benchmark": [encoded_body(1000)]}
    shapes.update({name: [raw] for name, raw in generated_bodies().items()})
    if ome_config is not None and (ome_config / "runtimes").is_dir():
        shapes["ome"] = list(ome_bodies(ome_config).values())
    return shapes


class WayOutStage:
    """The ways out of the body's ranking, timed alone: each sample ranks the body afresh
    (untimed: a ranking's memo is part of what the ways out cost) and times ``way_outs``, with
    the collector paused as the request pauses it (app/http/collector.py)."""

    def __init__(self, raw: bytes, clock: Callable[[], float]) -> None:
        self.raw, self.clock = raw, clock
        self.samples: list[float] = []

    def __call__(self) -> None:
        body = decode_json_body(self.raw)
        assert isinstance(body, dict)
        ranking = rank_runtimes(load_rank_request(body, {}))
        gc.disable()
        try:
            started = self.clock()
            way_outs(ranking)
            self.samples.append(self.clock() - started)
        finally:
            gc.enable()


def _each(calls: Sequence[Callable[[], object]]) -> Callable[[], None]:
    def run() -> None:
        for call in calls:
            call()

    return run


def _round_trips(bodies: list[bytes]) -> Callable[[], None]:
    def run() -> None:
        for raw in bodies:
            orjson.dumps(orjson.loads(raw))

    return run


class ShapeFigures:
    """One shape's medians: the cold request(s), the round trip(s), the ways out (held-out)."""

    def __init__(
        self,
        name: str,
        bodies: list[bytes],
        stats: dict[str, Stats],
        outs: float,
        unit: str = "models",
    ):
        self.name, self.bodies, self.unit = name, len(bodies), unit
        self.cold, self.floor = stats["cold"].median, stats["orjson"].median
        self.ratio = self.cold / self.floor
        self.way_outs = outs

    def label(self) -> str:
        what = f"{self.name} ({self.bodies} {self.unit})" if self.bodies > 1 else self.name
        return f"{what} {self.ratio:.2f}× ({self.cold * 1000:.1f} vs {self.floor * 1000:.1f} ms)"


def measure(shapes: dict[str, list[bytes]], budget: Budget, progress) -> list[ShapeFigures]:
    app = build_app(redis_url=None, prefix=f"ome-ranker-bench:{uuid.uuid4().hex[:8]}:")
    figures = []
    for name, bodies in shapes.items():
        progress(f"in process: cold POST /v1/rank, shape {name} ({len(bodies)} bodies)")
        calls = [
            WsgiCall(app, "/v1/rank", body=raw, headers=HEADERS, expect_cache="bypass")
            for raw in bodies
        ]
        candidates: dict[str, Callable[[], object]] = {
            "orjson": _round_trips(bodies),
            "cold": _each(calls),
        }
        stage = WayOutStage(bodies[0], budget.clock) if name == HELD_OUT else None
        if stage is not None:
            candidates["way outs"] = stage
        with quiet_logs():
            stats = compare(candidates, budget, before_each=gc.collect)
        outs = Stats.of(stage.samples[budget.warmup :]).median if stage is not None else 0.0
        figures.append(ShapeFigures(name, bodies, stats, outs))
    return figures


def measure_fresh(count: int, clock: Callable[[], float], progress) -> list[ShapeFigures]:
    """Each generated shape on ``count`` bodies never asked before, each once: the median cold
    request against the median round trip of the same bodies."""
    app = build_app(redis_url=None, prefix=f"ome-ranker-bench:{uuid.uuid4().hex[:8]}:")
    figures = []
    for name, bodies in fresh_bodies(count).items():
        progress(f"in process: cold POST /v1/rank, shape {name}, {count} bodies of other seeds")
        cold, floor = [], []
        with quiet_logs():
            for raw in bodies:
                call = WsgiCall(app, "/v1/rank", body=raw, headers=HEADERS, expect_cache="bypass")
                for samples, run in ((cold, call), (floor, _round_trips([raw]))):
                    gc.collect()
                    started = clock()
                    run()
                    samples.append(clock() - started)
        stats = {"cold": Stats.of(cold), "orjson": Stats.of(floor)}
        figures.append(ShapeFigures(name, bodies, stats, 0.0, unit="bodies"))
    return figures


def profiled_share(raw: bytes, requests: int = 5) -> float:
    """The share of ``way_outs`` in cold requests of ``raw`` under cProfile (cumulative time
    over the whole request's): how the issue measured it. The profiler charges every Python
    call, so the share reads higher than the thread's CPU time says."""
    import cProfile
    import pstats

    app = build_app(redis_url=None, prefix=f"ome-ranker-bench:{uuid.uuid4().hex[:8]}:")
    call = WsgiCall(app, "/v1/rank", body=raw, headers=HEADERS, expect_cache="bypass")
    profile = cProfile.Profile()
    with quiet_logs():
        call()  # the first request builds what every request reuses
        for _ in range(requests):
            gc.collect()
            profile.enable()
            call()
            profile.disable()
    stats = pstats.Stats(profile)
    outs = sum(
        cumulative
        for (path, _, name), (_, _, _, cumulative, _) in stats.stats.items()  # type: ignore[attr-defined]
        if name == "way_outs" and path.endswith("way_out.py")
    )
    return outs / stats.total_tt  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cold_shapes", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--ome-config", type=Path, help="an OME checkout's config/ directory")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per shape")
    parser.add_argument("--cpu", action="store_true", help=CPU_HELP)
    parser.add_argument(
        "--fresh", type=int, default=0, metavar="N", help="also each shape on N new bodies"
    )
    parser.add_argument(
        "--profiled", action="store_true", help="also the ways out's share under cProfile"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()

    def progress(message: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {message}", file=sys.stderr, flush=True)

    budget = Budget(args.budget, clock=time.thread_time if args.cpu else time.perf_counter)
    shapes = shape_bodies(args.ome_config)
    figures = measure(shapes, budget, progress)
    for figure in figures:
        print(figure.label())
        if figure.way_outs:
            share = figure.way_outs / figure.cold
            print(f"  way outs {figure.way_outs * 1000:.1f} ms, {share:.0%} of the cold request")
            if args.profiled:
                profiled = profiled_share(shapes[figure.name][0])
                print(f"  way outs under cProfile: {profiled:.0%} of the cold request")
    worst = max(figures, key=lambda figure: figure.ratio)
    print(f"worst: {worst.label()}")
    if args.fresh:
        fresh = measure_fresh(args.fresh, budget.clock, progress)
        print(f"bodies of other seeds, each asked once ({args.fresh} a shape):")
        for figure in fresh:
            print(f"  {figure.label()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
