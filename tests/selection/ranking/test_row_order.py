"""The §5 order of compatible rows by a key (``selector._order_key``) is the order of the sort on
the comparison itself (``_compare_rows``) wherever the key is given: the comparison ties rows
less than 1 apart and rows without a distance, so it is not transitive in general, and Python's
sort on it gives an order that depends on its steps; the key is only given where the comparison
is a total preorder, on which every stable sort gives one order."""

from __future__ import annotations

from functools import cmp_to_key

from hypothesis import given, settings
from hypothesis import strategies as st

from app.selection.ranking.checks import RuntimeRow
from app.selection.ranking.ranked import name_scope_key
from app.selection.ranking.selector import _compare_rows, _order_key, order_rows
from app.selection.values import Runtime

DISTANCES = st.one_of(
    st.none(),
    st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 2.5e9, 7.97e9, float("inf"), float("nan")]),
    st.floats(0, 12, allow_nan=False),
    st.integers(0, 6).map(float),
)


@st.composite
def compatible_rows(draw, distances=DISTANCES):
    count = draw(st.integers(0, 12))
    rows = []
    for index in range(count):
        cluster = draw(st.booleans())
        runtime = Runtime(
            kind="ClusterServingRuntime" if cluster else "ServingRuntime",
            name=f"rt-{index:02d}",
            namespace=None if cluster else "default",
        )
        score = draw(st.integers(1, 3))
        rows.append(RuntimeRow(runtime, True, score=score, distance=draw(distances)))
    draw(st.randoms(use_true_random=False)).shuffle(rows)
    return rows


def by_comparison(rows):
    """The order before the key: name order, then the sort on the comparison."""
    ordered = sorted(rows, key=name_scope_key)
    ordered.sort(key=cmp_to_key(_compare_rows))
    return [row.name for row in ordered]


@settings(max_examples=10 * settings.default.max_examples, deadline=None)
@given(compatible_rows())
def test_the_key_orders_as_the_comparison_wherever_it_is_given(rows):
    assert [row.name for row in order_rows(rows)] == by_comparison(rows)


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(compatible_rows(st.one_of(st.none(), st.integers(0, 4).map(lambda n: n * 1.0e9))))
def test_the_key_is_given_for_models_without_a_size_and_sizes_far_apart(rows):
    """What a repository asks: every distance None (a model without a size), or sizes whole
    billions of parameters apart; in a group of one scope and score, all or none."""
    groups: dict = {}
    for row in rows:
        groups.setdefault((row.runtime.is_cluster, row.score), set()).add(row.distance is None)
    if all(len(kinds) == 1 for kinds in groups.values()):
        assert _order_key(sorted(rows, key=name_scope_key)) is not None
    assert [row.name for row in order_rows(rows)] == by_comparison(rows)


def test_a_chain_of_ties_is_left_to_the_comparison():
    """0 ties 0.5, 0.5 ties 1.2, and 0 comes before 1.2: no key orders that."""
    rows = [
        RuntimeRow(Runtime("ServingRuntime", name, "default"), True, score=1, distance=distance)
        for name, distance in (("a", 1.2), ("b", 0.5), ("c", 0.0))
    ]
    assert _order_key(rows) is None
    assert [row.name for row in order_rows(rows)] == by_comparison(rows)
