"""``python -m bench.deadline``: what the request deadline's checks inside the rules cost.

SPEC §17 asks every loop that grows with the input to check the request's deadline, "cheap
enough not to show in the benchmarks". This times, in the same interleaved rounds (medians after
a warm-up), the same work three ways:

* **no checks**: the rules with ``budget.checked`` / ``budget.checkpoint`` replaced by no-ops,
  as they were before the deadline reached inside them (the baseline);
* **no deadline**: the checks as shipped, outside a request (the CLI in process): each one is a
  context-variable read;
* **deadline**: the checks as shipped inside a request whose deadline is far away: each one
  also reads the clock, as every request of the service does.

The work: the selection core (``rank_runtimes``, 1 000 runtimes of ``bench/manifests.py``), the
selections of 100 models over 200 runtimes (100 rankings, ``selections`` and
``unnamed_model_rows``), and lint of the same with 100 InferenceServices (``admit``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
from collections.abc import Callable, Iterator

from app.schemas.objects import load_object
from app.schemas.requests import load_rank_request
from app.selection.admission import judgement as admission
from app.selection.questions import outcomes as catalog
from app.selection.ranking import selector as ranking
from app.selection.values import CatalogView, RankRequest, budget

from .manifests import model_manifest, rank_request_body
from .report import Table
from .timing import Budget, compare, milliseconds

TARGET = 1.03  # the checks may cost at most 3 % of the work they guard
MODELS = 40


def _identity(items, every: int = 1):
    return items


def _nothing() -> None:
    return None


# The budget's checks, and what stands in for each when they are off.
REPLACEMENTS = {"checked": _identity, "checkpoint": _nothing}


def _check_names() -> list[tuple[object, str]]:
    """Every (module, name) of the rules that holds one of the budget's checks, as imported
    (``from ..values import checked``): found, not listed, so a module that comes to call one
    is turned off with the others."""
    found = []
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("app.selection") or module is budget:
            continue
        for name in REPLACEMENTS:
            if getattr(module, name, None) is getattr(budget, name):
                found.append((module, name))
    return found


@contextlib.contextmanager
def checks_off() -> Iterator[None]:
    names = _check_names()
    assert names, "no module of the rules calls the budget's checks"
    for module, name in names:
        setattr(module, name, REPLACEMENTS[name])
    try:
        yield
    finally:
        for module, name in names:
            setattr(module, name, getattr(budget, name))


def three_ways(work: Callable[[], object]) -> dict[str, Callable[[], object]]:
    def without_checks() -> None:
        with checks_off():
            work()

    def with_deadline() -> None:
        budget.start(1e9)
        try:
            work()
        finally:
            budget.clear()

    return {"no checks": without_checks, "no deadline": work, "deadline": with_deadline}


def _loaded(manifest: dict):
    errors: dict = {}
    found = load_object(manifest, "document", errors)
    if found is None:
        raise SystemExit(f"a benchmark manifest does not load: {errors}")
    return found[1]


def workloads() -> dict[str, Callable[[], object]]:
    request = load_rank_request(rank_request_body(1000), {})
    runtimes = tuple(_loaded(m) for m in rank_request_body(200)["runtimes"])
    models = []
    services = []
    for index in range(MODELS):
        model = model_manifest()
        model["metadata"]["name"] = f"model-{index}"
        # Each of its own size: copies of one model share their rows in an admission
        # (``selector.rows_key``), and the lint row is meant to rank for every one.
        model["spec"]["modelParameterSize"] = f"{1 + index}B"
        models.append(_loaded(model))
        services.append(
            _loaded(
                {
                    "apiVersion": "ome.io/v1beta1",
                    "kind": "InferenceService",
                    "metadata": {"name": f"svc-{index}", "namespace": "llama-demo"},
                    "spec": {"model": {"name": f"model-{index}"}, "engine": {}},
                }
            )
        )
    models, services = tuple(models), tuple(services)

    half = MODELS // 2  # half the models through InferenceServices, half alone
    partly_named = CatalogView(runtimes, models, services[:half])

    def selections() -> None:
        catalog.selections(partly_named)
        catalog.unnamed_model_rows(partly_named)

    return {
        "rank_runtimes, 1 000 runtimes": lambda: ranking.rank_runtimes(
            RankRequest(request.model, request.runtimes, ome_version="1.3")
        ),
        f"selections, {MODELS} models × 200 runtimes": selections,
        f"lint, {MODELS} InferenceServices × 200 runtimes": lambda: admission.admit(
            CatalogView(runtimes, models, services)
        ),
    }


def measure(budget_: Budget) -> tuple[Table, list[float]]:
    table = Table(
        "The deadline's checks inside the rules, against the same rules without them",
        (
            "work",
            "no checks ms",
            "no deadline ms",
            "deadline ms",
            "no deadline / no checks",
            "deadline / no checks",
            "(minimums)",
            f"target <= {TARGET:g}",
        ),
    )
    ratios = []
    for name, work in workloads().items():
        stats = compare(three_ways(work), budget_, before_each=gc.collect)
        base = stats["no checks"].median
        quiet, timed = stats["no deadline"].median / base, stats["deadline"].median / base
        ratios.append(timed)
        table.add(
            name,
            milliseconds(base),
            milliseconds(stats["no deadline"].median),
            milliseconds(stats["deadline"].median),
            f"{quiet:.3f}",
            f"{timed:.3f}",
            f"{stats['deadline'].minimum / stats['no checks'].minimum:.3f}",
            "met" if timed <= TARGET else "MISSED",
        )
    table.notes.append(
        "medians after a warm-up, the three ways in interleaved rounds, a gc.collect() (untimed) "
        "before each sample so that none pays for another's garbage"
    )
    return table, ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.deadline", description=__doc__)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds per comparison (5)")
    parser.add_argument("--runs", type=int, default=7, help="rounds at least per comparison (7)")
    args = parser.parse_args(argv)
    table, ratios = measure(Budget(args.budget, min_runs=args.runs, warmup=1))
    print(table.markdown(), flush=True)
    return 0 if all(ratio <= TARGET for ratio in ratios) else 1


if __name__ == "__main__":
    sys.exit(main())
