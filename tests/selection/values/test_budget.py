"""SPEC §17 "Bounded work": the rules stop inside their own loops once the request's deadline has
passed, and say up front how many rankings a question set will cost.

The deadline is driven by a clock that advances one tick per reading, so that "the work stops
after N checks" is exact, whatever the machine is doing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.schemas.objects import load_object
from app.selection.admission import admit, planned_admission_rankings
from app.selection.prediction import rank_and_place
from app.selection.questions import planned_rankings, selections, unnamed_model_rows
from app.selection.values import CatalogView, RankRequest, Runtime, budget
from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.clock import TickingClock
from tests.work import cpu_seconds_under


@pytest.fixture
def clock(monkeypatch) -> TickingClock:
    ticking = TickingClock()
    monkeypatch.setattr(budget, "time", ticking)
    yield ticking
    budget.clear()


def loaded(manifest: dict):
    """The document a catalog keeps of ``manifest`` (validated as every endpoint does)."""
    errors: dict = {}
    found = load_object(manifest, "document", errors)
    assert found is not None, errors
    return found[1]


def _documents(models: int, runtimes: int, services: int):
    names = [f"model-{i}" for i in range(models)]
    return (
        tuple(loaded(model_doc(name)) for name in names),
        tuple(loaded(runtime_doc(f"rt-{i}", entry(priority=1 + i % 5))) for i in range(runtimes)),
        tuple(
            loaded(isvc_doc(f"svc-{i}", model={"name": names[i % models]}, engine={}))
            for i in range(services)
        ),
    )


def _checks_of(work) -> int:
    """How many checkpoints the whole of ``work`` passes, with a deadline that never comes."""
    ticking = TickingClock()
    original = budget.time
    budget.time = ticking
    try:
        budget.start(1e12)
        work()
        return ticking.readings - 1
    finally:
        budget.clear()
        budget.time = original


WORKLOADS = {
    # /v1/rank's JSON answer: the ranking, its placement and its advice, ways out included
    "rank": lambda models, runtimes, services: rank_and_place(
        RankRequest(models[0], runtimes), with_advice=True
    ),
    "selections": lambda models, runtimes, services: selections(
        CatalogView(runtimes, models, services)
    ),
    "unnamed": lambda models, runtimes, services: unnamed_model_rows(CatalogView(runtimes, models)),
    "admit": lambda models, runtimes, services: admit(CatalogView(runtimes, models, services)),
}


@pytest.mark.parametrize("name", WORKLOADS)
def test_the_rules_stop_inside_their_loops_once_the_deadline_has_passed(name, clock):
    models, runtimes, services = _documents(models=6, runtimes=400, services=12)
    work = WORKLOADS[name]
    total = _checks_of(lambda: work(models, runtimes, services))
    assert total >= 20  # checks all along the work, not only around it
    halfway = total // 2
    budget.start(halfway)  # the deadline passes at the halfway-th reading of the clock
    with pytest.raises(budget.DeadlinePassed, match=rf"deadline \({halfway} s\)"):
        work(models, runtimes, services)
    assert clock.readings <= halfway + 2  # stopped at the check that saw it, not at the end


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 16, 17])
@pytest.mark.parametrize("kind", [list, tuple, iter])
def test_a_loop_is_checked_once_per_run_of_its_items(length, kind, clock):
    budget.start(1e12)
    items = list(range(length))
    before = clock.readings
    assert list(budget.checked(kind(items), every=8)) == items
    assert clock.readings - before == -(-length // 8)  # a short list too: one check, no more


@pytest.mark.parametrize("kind", [list, tuple, iter])
def test_a_short_loop_past_the_deadline_stops(kind, clock):
    budget.start(1)
    clock.now += 5  # the deadline has passed
    with pytest.raises(budget.DeadlinePassed):
        list(budget.checked(kind([1, 2, 3]), every=8))


def test_without_a_deadline_nothing_is_checked_against_a_clock(clock):
    models, runtimes, services = _documents(models=2, runtimes=5, services=3)
    selections(CatalogView(runtimes, models, services))
    assert clock.readings == 0  # the pure tests and the CLI in process pay nothing


def test_planned_rankings_count_distinct_questions():
    models, runtimes, services = _documents(models=3, runtimes=2, services=9)
    view = CatalogView(runtimes, models, services)
    # 9 InferenceServices over 3 models in one namespace, no constraints: 3 questions.
    assert planned_rankings(view) == 3
    assert planned_rankings(view, namespace="elsewhere") == 0
    assert planned_rankings(view, unnamed=True) == 3  # every model is named
    assert planned_rankings(replace(view, services=services[:1]), unnamed=True) == 1 + 2
    counted = []

    def count(*args, **kwargs):
        counted.append(1)
        return real(*args, **kwargs)

    import app.selection.questions.outcomes as catalog

    real = catalog.rank_runtimes
    catalog.rank_runtimes = count
    try:
        selections(view)
    finally:
        catalog.rank_runtimes = real
    assert len(counted) == planned_rankings(view)


def test_planned_admission_rankings_count_what_the_webhook_ranks():
    models, runtimes, services = _documents(models=2, runtimes=2, services=6)
    view = CatalogView(runtimes, models, services)
    assert planned_admission_rankings(view) == 2
    without_engine = tuple(replace(s, has_engine=False) for s in services)
    assert planned_admission_rankings(replace(view, services=without_engine)) == 0
    only = frozenset({("InferenceService", services[0].namespace, services[0].name)})
    assert planned_admission_rankings(view, checked=only) == 1
    runners = frozenset((s.namespace, s.name) for s in services)
    assert planned_admission_rankings(view, full_runners=runners) == 0


@pytest.mark.scale
def test_peers_stay_linear_with_many_entries_and_protocols():
    """Two runtimes with thousands of clashable entries and protocol versions each: comparing
    them pairwise, or indexing every (entry, protocol) pair, would take minutes and gigabytes."""
    entries = tuple(
        loaded(
            runtime_doc("x", entry(name=f"f{i}", format_name=None, framework=None, priority=1))
        ).entries[0]
        for i in range(3000)
    )
    protocols = tuple(f"p{i}" for i in range(3000))
    runtimes = tuple(
        Runtime(
            kind="ClusterServingRuntime",
            name=name,
            namespace=None,
            entries=entries,
            protocol_versions=protocols,
        )
        for name in ("a", "b")
    )
    with cpu_seconds_under(20):  # catches a quadratic blow-up, not speed
        findings = admit(CatalogView(runtimes)).findings
    clashes = [f for f in findings if f.code == "SamePriority"]
    assert {f.name for f in clashes} == {"a", "b"}
    assert clashes[0].message == (
        "same priority assigned for the model format f0 in the clusterservingruntimes "
        f"{'b' if clashes[0].name == 'a' else 'a'} and {clashes[0].name}"
    )


@pytest.mark.scale
def test_a_model_is_compared_with_the_runtimes_once():
    """A model's notes ask whether any runtime sets a size range: once, not once per model."""
    model = loaded(model_doc())
    models = tuple(replace(model, name=f"m{i}") for i in range(2000))
    runtimes = tuple(loaded(runtime_doc(f"r{i}")) for i in range(2000))
    with cpu_seconds_under(20):  # 2 000 models × 2 000 runtimes would take minutes
        admit(CatalogView(runtimes, models))


def test_a_share_of_the_deadline_stops_sooner_and_gives_the_rest_back(clock):
    budget.start(100)  # the clock reads 1: the deadline is at 101
    with budget.sharing(0.5):  # reads 2: (101 - 2) / 2 left, until 51.5
        for _ in range(48):
            budget.checkpoint()  # reads 3 … 50
        with pytest.raises(budget.DeadlinePassed):
            for _ in range(3):
                budget.checkpoint()
    budget.checkpoint()  # the request's own deadline again


def test_a_share_without_a_deadline_is_no_deadline(clock):
    with budget.sharing(0.5):
        budget.checkpoint()
    assert clock.readings == 0
