"""Each distinct entry's answers computed once per request (app/selection/ranking/entry_memo.py):
the memo answers what entries.py answers, computes once per key, and keys equal entries of two
runtimes of a request alike, since loading a request shares their references."""

from __future__ import annotations

from app.schemas.requests import load_rank_request
from app.selection.ranking.entries import entry_matches, entry_mismatch, entry_score
from app.selection.ranking.entry_memo import EntryMemo, score_key
from tests.builders import entry, loaded, model_doc, rank_body, runtime_doc

MODEL = loaded(model_doc("llama"))


def entries(*items):
    return loaded(runtime_doc("rt", *items)).entries


def counting():
    calls = []

    def compute(model, item, provider):
        calls.append(item)
        return len(calls)

    return compute, calls


def test_the_memo_answers_what_the_entries_answer():
    memo = EntryMemo(MODEL, "")
    for item in entries(entry(), entry(format_name="onnx"), entry(priority=3, weight=2)):
        assert memo.matches(item) == entry_matches(MODEL, item)
        assert memo.mismatch(item) == entry_mismatch(MODEL, item)
        assert memo.score(item) == entry_score(MODEL, item)


def test_the_unit_score_is_the_score_at_priority_one():
    [item] = entries(entry(priority=4, weight=2))
    memo = EntryMemo(MODEL, "")
    assert memo.score(item) == 12
    assert memo.unit_score(item) == 3


def test_equal_entries_of_two_runtimes_are_computed_once():
    body = rank_body(model_doc("llama"), runtime_doc("a", entry()), runtime_doc("b", entry()))
    first, second = (rt.entries[0] for rt in load_rank_request(body, {}).runtimes)
    assert score_key(first) == score_key(second)
    memo = EntryMemo(MODEL, "")
    compute, calls = counting()
    assert memo.cached("t", score_key(first), compute, first) == 1
    assert memo.cached("t", score_key(second), compute, second) == 1
    assert len(calls) == 1


def test_entries_that_read_differently_are_computed_apart():
    body = rank_body(
        model_doc("llama"), runtime_doc("a", entry(), entry(quantization="fp8"), entry(priority=2))
    )
    plain, quantized, prioritised = load_rank_request(body, {}).runtimes[0].entries
    assert score_key(plain) == score_key(quantized)  # a score does not read the quantization
    assert score_key(plain) != score_key(prioritised)  # it reads the priority
    assert memo_scores(plain, quantized, prioritised) == [
        entry_score(MODEL, item) for item in (plain, quantized, prioritised)
    ]


def memo_scores(*items):
    memo = EntryMemo(MODEL, "")
    return [memo.score(item) for item in items]


def test_what_has_no_key_is_computed_every_time():
    [item] = entries(entry(diffusionPipeline={"className": "FluxPipeline"}))
    memo = EntryMemo(MODEL, "")
    compute, calls = counting()
    memo.cached("t", None, compute, item)
    memo.cached("t", None, compute, item)
    assert len(calls) == 2
