"""The advice of one ranking as an answer shows it (app/selection/advice/ranking_advice.py): one
``RowAdvice`` and one way out per row, and the summary, each what its own rule gives."""

from __future__ import annotations

from app.schemas.requests import load_rank_request
from app.selection.advice import NO_ADVICE, advise, exclusion_summary, way_outs
from app.selection.advice.ranking_advice import Advice, advice_on
from app.selection.ranking import rank_runtimes
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime


def test_each_row_has_its_advice_and_way_out_and_the_ranking_its_summary():
    ranking = rank_runtimes(
        load_rank_request(
            rank_body(
                model_doc(),
                runtime_doc("a", entry(priority=1)),
                runtime_doc("b", entry(priority=2)),
                runtime_doc("onnx", entry(format_name="onnx")),
                runtime_doc("off", disabled=True),
            ),
            {},
        )
    )
    assert ranking.checks is not None
    outs = way_outs(ranking)
    assert advice_on(ranking, None) == Advice(
        advise(ranking.checks, ranking.rows, None), outs, exclusion_summary(ranking.rows, outs)
    )
    advice = advice_on(ranking, None)
    assert [out is None for out in advice.ways_out] == [True, True, False, False]
    assert advice.summary is not None and advice.summary.startswith("2 runtimes excluded")


def test_the_named_runtime_is_advised_on_as_named():
    body = rank_body(
        model_doc(),
        runtime_doc("a", entry(priority=1)),
        runtime_doc("b", entry(priority=2)),
        inferenceService=isvc_doc("svc", runtime={"name": "a"}),
    )
    ranking = rank_runtimes(load_rank_request(body, {}))
    assert ranking.checks is not None
    named = advice_on(ranking, "a").rows
    assert named == advise(ranking.checks, ranking.rows, "a") != advice_on(ranking, None).rows
    assert (
        named[1].note
        == "spec.runtime names a: OME uses that runtime and selects none automatically"
    )


def test_a_model_refused_before_any_runtime_is_checked_has_no_advice_on_any_row():
    ranking = rank_runtimes(
        load_rank_request(rank_body(model_doc(format_name=""), runtime_doc("rt")), {})
    )
    assert ranking.checks is None
    advice = advice_on(ranking, None)
    assert advice.rows == (NO_ADVICE,) * len(ranking.rows)
    assert advice.ways_out == (None,) * len(ranking.rows)
    assert advice.summary is None


def test_only_cluster_rows_below_a_qualifying_namespaced_one_note_it():
    body = rank_body(
        model_doc(),
        serving_runtime("ns-a", entry(priority=3), namespace="demo"),
        serving_runtime("ns-b", entry(priority=2), namespace="demo"),
        runtime_doc("cl-a", entry(priority=2)),
        runtime_doc("cl-b", entry(priority=1)),
        namespace="demo",
    )
    ranking = rank_runtimes(load_rank_request(body, {}))
    assert ranking.checks is not None
    rows = advise(ranking.checks, ranking.rows, None)
    assert [row.name for row in ranking.rows] == ["ns-a", "ns-b", "cl-a", "cl-b"]
    assert [advice.to_win is not None for advice in rows] == [False, True, False, True]
    note = "ServingRuntime ns-a in demo qualifies and comes first whatever the score"
    assert [advice.note for advice in rows] == [None, None, None, note]
