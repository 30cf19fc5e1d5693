"""The policies against the rules as SPEC §20.3 writes them, over generated classes: an
independent, sort-based reference of each policy, compared pick, score and reasons."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from app.selection.placement import ClassView
from app.selection.placement.components import ComponentContext, place_component
from app.selection.values import (
    AcceleratorClass,
    AcceleratorRequest,
    ComponentRequest,
    Constraints,
    Performance,
    Selector,
    parse_quantity,
)
from app.selection.values.accelerator_classes import Cost

POLICIES = ["BestFit", "Cheapest", "MostCapable", "FirstAvailable"]
PRECISIONS = ["fp16", "FP16", "int4", "fp8", "int8", "fp32", "bf16"]
TFLOPS = st.sampled_from([None, 0, 1, 60, 312, 989, 989, -5])


def quantities(texts: list[str]):
    return st.one_of(st.none(), st.sampled_from(texts).map(parse_quantity))


@st.composite
def classes(draw, name: str) -> AcceleratorClass:
    performance = None
    if draw(st.booleans()):
        performance = Performance(draw(TFLOPS), draw(TFLOPS), draw(TFLOPS), draw(TFLOPS))
    cost = None
    if draw(st.booleans()):
        prices = quantities(["1", "10", "12", "1000m", "0.5", "10.0000000001"])
        cost = Cost(
            draw(prices),
            draw(prices),
            draw(prices),
            draw(st.sampled_from(["", "low", "High", "medium", "premium"])),
        )
    return AcceleratorClass(
        name=name,
        vendor=draw(st.sampled_from(["", "nvidia", "AMD"])),
        family=draw(st.sampled_from(["", "hopper", "Ampere"])),
        memory_gb=draw(quantities(["40Gi", "80Gi", "141Gi", "80G", "0", "1.5Gi", "96Gi"])),
        compute_capability=draw(st.sampled_from(["", "8.0", "9.0", "10.0"])),
        memory_bandwidth_gbps=draw(quantities(["3350", "4800", "0", "1500m", "2e3"])),
        features=tuple(draw(st.lists(st.sampled_from(["fp8", "NVLink", "mig"]), max_size=3))),
        performance=performance,
        cost=cost,
    )


@st.composite
def constraints(draw, names: list[str]) -> Constraints | None:
    if draw(st.integers(0, 3)) == 0:
        return None
    optional = st.sampled_from([None, 0, 7, 13, 40, 80, 100])
    return Constraints(
        min_memory=draw(optional),
        max_memory=draw(st.sampled_from([None, None, 80, 141])),
        min_compute_tflops=draw(st.sampled_from([None, 0, 500, 2000])),
        min_architecture_version=draw(st.sampled_from([None, None, "", "8.0", "9.0"])),
        required_features=tuple(draw(st.lists(st.sampled_from(["FP8", "nvlink"]), max_size=1))),
        excluded_classes=tuple(draw(st.lists(st.sampled_from(names), max_size=2))),
        architecture_families=tuple(
            draw(st.lists(st.sampled_from(["hopper", "nvidia-hopper", "ampere"]), max_size=2))
        ),
        preferred_precisions=tuple(draw(st.lists(st.sampled_from(PRECISIONS), max_size=3))),
    )


@st.composite
def cases(draw):
    size = draw(st.integers(1, 16))
    names = [f"c{index:02}" for index in range(size)]
    pool = [draw(classes(name)) for name in names]
    return draw(st.sampled_from(POLICIES)), pool, draw(constraints(names))


# --- the reference: SPEC §20.3.2-§20.3.3 restated, sorting instead of scanning -----------------


def lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def passes(c: AcceleratorClass, k: Constraints | None) -> bool:
    if k is None:
        return True
    family = lower(c.family)
    memory = None if c.memory_gb is None else int(c.memory_gb.integer_value / 2**30)
    checks = [
        c.name not in k.excluded_classes,
        not k.architecture_families
        or any(
            lower(item) == (f"{lower(c.vendor)}-{family}" if "-" in item else family)
            for item in k.architecture_families
        ),
        (k.min_memory is None and k.max_memory is None)
        or (
            memory is not None
            and (k.min_memory is None or memory >= k.min_memory)
            and (k.max_memory is None or memory <= k.max_memory)
        ),
        all(lower(f) in map(lower, c.features) for f in k.required_features),
        k.min_architecture_version is None
        or (c.compute_capability != "" and c.compute_capability >= k.min_architecture_version),
    ]
    return all(checks)


def tflops(c: AcceleratorClass, precision: str) -> int:
    p = c.performance
    field = {"fp32": "fp32_tflops", "fp16": "fp16_tflops", "int8": "int8_tops"}
    field |= {"fp8": "int8_tops", "int4": "int4_tops"}
    name = field.get(lower(precision))
    value = None if p is None or name is None else getattr(p, name)
    return value or 0


def best_fit_score(c: AcceleratorClass, k: Constraints) -> float:
    if k.min_memory is None:
        mem = 1.0
    elif c.memory_gb is None:
        mem = 0.0
    else:
        g, r = c.memory_gb.integer_value / 2**30, float(k.min_memory)
        mem = 0.0 if g < r else 1.0 if g == r else 1.0 / (g / r if r else math.inf)
    q = k.min_compute_tflops or 0

    def fit(t: int) -> float:
        return 0.0 if t == 0 else 1.0 if q == 0 else min(1.0, t / q)

    p = c.performance
    if p is None:
        compute = 0.0
    elif not k.preferred_precisions:
        values = [p.fp32_tflops, p.fp16_tflops, p.int8_tops, p.int4_tops]
        compute = fit(max([0] + [v for v in values if v is not None]))
    else:
        found = [i for i, x in enumerate(k.preferred_precisions) if tflops(c, x) > 0]
        n = len(k.preferred_precisions)
        if found:
            i = found[0]
            compute = fit(tflops(c, k.preferred_precisions[i])) * 0.5**i
        elif "fp16" not in map(lower, k.preferred_precisions) and tflops(c, "fp16") > 0:
            compute = fit(tflops(c, "fp16")) * 0.5**n
        else:
            compute = 0.0
    return 0.7 * mem + 0.3 * compute


def capability_scores(pool: list[AcceleratorClass], k: Constraints | None) -> list[float]:
    precisions = list(k.preferred_precisions) if k else []

    def raw(c: AcceleratorClass) -> tuple[float, float, float]:
        firsts = [tflops(c, x) for x in precisions] or [tflops(c, "fp16")]
        t = firsts[0] if firsts[0] != 0 else next((v for v in firsts[1:] if v > 0), 0)
        g = 0.0 if c.memory_gb is None else c.memory_gb.integer_value / 2**30
        bw = c.memory_bandwidth_gbps
        return float(t), g, 0.0 if bw is None else float(bw.integer_value)

    values = [raw(c) for c in pool]
    tops = [max([0.0] + [v[i] for v in values if v[i] > 0]) for i in range(3)]
    norms = [[v[i] / tops[i] if tops[i] > 0 else 0.0 for i in range(3)] for v in values]
    return [0.5 * g + 0.3 * b + 0.2 * t for t, g, b in norms]


def cheapest(pool: list[AcceleratorClass]) -> AcceleratorClass | None:
    def hourly(c):
        return c.cost.spot_per_hour or c.cost.per_hour

    def tier(c):
        return {"low": 1, "medium": 2, "high": 3}.get(lower(c.cost.tier), 2)

    costed = [c for c in pool if c.cost is not None]
    for has, value in [
        (hourly, lambda c: hourly(c).nanos),
        (lambda c: c.cost.per_million_tokens, lambda c: c.cost.per_million_tokens.nanos),
        (lambda c: c.cost.tier, tier),
    ]:
        group = [c for c in costed if has(c)]
        if group:
            return sorted(group, key=value)[0]  # a stable sort: the first of the lowest
    return None


def expected(policy: str, pool: list[AcceleratorClass], k: Constraints | None):
    """(pick, score, known, error) by the rules."""
    filtered = [c for c in pool if passes(c, k)]
    if not filtered:
        return None, None, True, None
    if len(filtered) == 1:
        return filtered[0].name, None, True, None
    if policy == "FirstAvailable":
        return filtered[0].name, None, True, None
    if policy == "Cheapest":
        winner = cheapest(filtered)
        return (winner.name if winner else None), None, True, None
    if policy == "BestFit" and k is None:
        return None, None, True, "BestFitWithoutConstraints"
    if policy == "BestFit":
        scores = [best_fit_score(c, k) for c in filtered]
    else:
        scores = capability_scores(filtered, k)
    order = sorted(range(len(filtered)), key=lambda i: -scores[i])
    top = scores[order[0]]
    if len(filtered) > 12 and scores.count(top) > 1:
        return None, None, False, None
    return filtered[order[0]].name, top, True, None


@settings(max_examples=8 * settings.default.max_examples, deadline=None)
@given(cases())
def test_policies_match_the_rules(case):
    policy, pool, k = case
    context = ComponentContext(
        request=AcceleratorRequest(
            selector=Selector(policy=policy, constraints=k), engine=ComponentRequest()
        ),
        listed=[c.name for c in pool],
        view=ClassView({c.name: c for c in pool}, True),
        missing_aborts=False,
        config=lambda _: None,
    )
    engine = place_component(context, "engine")
    pick, score, known, error = expected(policy, pool, k)
    assert engine.accelerator_class == pick
    assert engine.score == score
    assert engine.known == known
    assert (engine.error.code if engine.error else None) == error
    assert [o.name for o in engine.others] == [c.name for c in pool if c.name != pick]
    # Every class the constraints reject says so; every other one lost to the pick (or nothing).
    for other in engine.others:
        rejected = not passes(next(c for c in pool if c.name == other.name), k)
        assert rejected == (
            other.reason is not None
            and other.reason.split()[0]
            not in ("score", "listed", "no", "spotPerHour", "perHour", "perMillionTokens", "tier")
        )
    if score is not None:
        scores = {o.name: o.reason for o in engine.others if o.reason and o.reason[:6] == "score "}
        for text in scores.values():
            assert text.split()[3].rstrip(",") == repr(score)
