"""The way out of a ``No`` row: applied to the runtime's manifest, its changes make it a ``Yes``
row under the same rules, and the summary groups the rows by reason."""

from __future__ import annotations

import copy
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from app.schemas.requests import load_rank_request
from app.selection.advice import WayOut, way_outs
from app.selection.advice.entry_fixes import version_accepting
from app.selection.advice.row_advice import best_entry
from app.selection.advice.way_out import FAR, WAY_OUTS, exclusion_summary, way_out
from app.selection.prediction import Prediction, rank_and_place
from app.selection.ranking import CHECK_FORMAT, RuntimeChecks, rank_runtimes
from app.selection.values import versions_match
from tests.builders import entry, isvc_doc, model_doc, rank_body, runtime_doc, serving_runtime
from tests.selection.advice.builders import requests

_KEY = re.compile(r'([^.\[]+)|\["([^"]*)"\]')


def _path(field: str) -> list[str]:
    return [plain or quoted for plain, quoted in _KEY.findall(field)]


def apply_way_out(body: dict, row_index: int, ranking: Explained) -> dict:
    """The request with the row's changes made to its runtime's manifest, as a person would
    edit the YAML: set the field (creating objects on the way), or remove it for null."""
    row, out = ranking.rows[row_index], ranking.way_outs[row_index]
    changed = copy.deepcopy(body)
    doc = next(
        d
        for d in reversed(changed["runtimes"])
        if d["metadata"]["name"] == row.name
        and (d["kind"] == "ClusterServingRuntime") == (row.scope == "Cluster")
    )
    for change in out.changes:
        target = doc["spec"]
        if change.entry is not None:
            target = target["supportedModelFormats"][change.entry]
        *parents, last = _path(change.field)
        for key in parents:
            if target.get(key) is None:
                target[key] = {}
            target = target[key]
        value = list(change.value) if isinstance(change.value, tuple) else change.value
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return changed


class Explained:
    """A ranking with its ways out and summary, as the answer shows them."""

    def __init__(self, prediction: Prediction):
        advice = prediction.explained()
        self.rows = prediction.ranking.rows
        self.advice = advice.rows
        self.message = prediction.ranking.message
        self.way_outs: tuple[WayOut | None, ...] = advice.ways_out
        self.summary = advice.summary


def _rank(body: dict) -> Explained:
    return Explained(rank_and_place(load_rank_request(body, {}), with_advice=True))


def _row(ranking: Explained, name: str, scope: str):
    return next(r for r in ranking.rows if r.name == name and r.scope == scope)


def _fields(ranking: Explained, name: str) -> list[tuple]:
    index = next(i for i, r in enumerate(ranking.rows) if r.name == name)
    out = ranking.way_outs[index]
    return [(c.check, c.entry, c.field, c.value) for c in out.changes]


def test_a_framework_version_below_the_model_s_takes_the_model_s_own():
    body = rank_body(
        model_doc(framework_version="4.46.0"),
        runtime_doc("vllm-llama", entry(framework_version="4.45.0")),
    )
    ranking = _rank(body)
    assert _fields(ranking, "vllm-llama") == [
        ("framework version", 0, "modelFramework.version", "4.46.0")
    ]
    assert _row(_rank(apply_way_out(body, 0, ranking)), "vllm-llama", "Cluster").compatible


def test_greater_than_needs_the_next_version_up_at_the_model_s_precision():
    """rules §8: the entry's version is on the left, so GreaterThan wants one above the
    model's, with the model's precision and prefix."""
    body = rank_body(
        model_doc(framework_version="4.46"),
        runtime_doc("r", entry(framework_version="4.40", operator=None)),
    )
    body["runtimes"][0]["spec"]["supportedModelFormats"][0]["modelFramework"]["operator"] = (
        "GreaterThan"
    )
    ranking = _rank(body)
    assert _fields(ranking, "r") == [("framework version", 0, "modelFramework.version", "4.47")]
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_versions_at_the_edge_are_accepted_by_their_operator():
    for model, operator, wanted in [
        ("4.45", "GreaterThan", "4.46"),
        ("v1", "GreaterThan", "v2"),
        ("1.2.3", "GreaterThan", "1.2.4"),
        ("1.2.3", "GreaterThanOrEqual", "1.2.3"),
        ("1.2.3-rc1", "GreaterThan", "1.2.3-rc1"),
        ("4.45.0.dev0", None, "4.45.0.dev0"),
        ("1.2", "Other", "1.2"),
    ]:
        assert version_accepting(model, operator) == wanted
        assert versions_match(model, wanted, operator)
    assert version_accepting("latest", None) is None
    assert version_accepting(f"1.{2**64 - 1}", "GreaterThan") is None


def test_every_failing_check_gets_its_change_in_the_order_of_the_checks():
    body = rank_body(
        model_doc(size="70B"),
        runtime_doc(
            "big",
            entry(architecture="Other", auto_select=False),
            disabled=True,
            acceleratorRequirements={"acceleratorClasses": ["l4"]},
            engineConfig={"annotations": {"ome.io/deploymentMode": "MultiNode"}},
            modelSizeRange={"min": "1B", "max": "8B"},
        ),
        inferenceService=isvc_doc(
            annotations={"ome.io/accelerator-class": "h100"}, deploymentMode="RawDeployment"
        ),
    )
    ranking = _rank(body)
    assert ranking.rows[0].reason == "runtime is disabled"
    assert _fields(ranking, "big") == [
        ("disabled", None, "disabled", False),
        ("accelerator class", None, "acceleratorRequirements.acceleratorClasses", ("l4", "h100")),
        (
            "deployment mode",
            None,
            'engineConfig.annotations["ome.io/deploymentMode"]',
            "RawDeployment",
        ),
        ("architecture", 0, "modelArchitecture", "LlamaForCausalLM"),
        ("size range", None, "modelSizeRange.max", "70B"),
        ("autoSelect", 0, "autoSelect", True),
    ]
    assert ranking.way_outs[0].label == "disabled"
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_before_1_3_a_one_bound_range_gains_the_model_s_size_as_its_other_bound():
    body = rank_body(
        model_doc(size="7B"),
        runtime_doc("r", size_range={"min": "8B"}),
        omeVersion="1.2",
    )
    ranking = _rank(body)
    assert _fields(ranking, "r") == [
        ("size range", None, "modelSizeRange.max", "7B"),
        ("size range", None, "modelSizeRange.min", "7B"),
    ]
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_the_entry_with_the_fewest_changes_is_chosen_first_of_equals():
    body = rank_body(
        model_doc(),
        runtime_doc(
            "r",
            entry(format_name="onnx", architecture="Other"),
            entry(format_name="onnx"),
            entry(format_name="gguf"),
        ),
    )
    ranking = _rank(body)
    assert _fields(ranking, "r") == [("format name mismatch", 1, "modelFormat.name", "safetensors")]
    # The row's group is the first part its reason names (its first entry's), not the part
    # its nearest entry fails.
    assert ranking.rows[0].reason.split(": ", 1)[1].startswith("architecture mismatch")
    assert ranking.way_outs[0].label == "architecture"


def test_a_sharded_model_without_a_configured_provider_has_no_way_out():
    model = model_doc(distribution="Sharded")
    body = rank_body(model, runtime_doc("r", entry(modelCacheProviders=["local"])))
    out = _rank(body).way_outs[0]
    assert out.changes is None
    assert "no model cache provider is configured" in out.note
    body["modelCacheProvider"] = "fleet"
    ranking = _rank(body)
    assert _fields(ranking, "r") == [
        ("cache provider", 0, "modelCacheProviders", ("local", "fleet"))
    ]
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_a_runtime_without_entries_and_an_unreadable_model_version_say_so():
    body = rank_body(model_doc(framework_version="latest"), runtime_doc("a"), runtime_doc("b"))
    body["runtimes"][0]["spec"]["supportedModelFormats"] = []
    ranking = _rank(body)
    notes = {r.name: o.note for r, o in zip(ranking.rows, ranking.way_outs, strict=True)}
    assert "no supportedModelFormats entry" in notes["a"]
    assert "modelFramework.version latest does not parse" in notes["b"]
    assert ranking.summary == (
        "2 runtimes excluded: framework version ×1, no supported formats ×1; "
        "closest: none (no change to one runtime alone makes it qualify)"
    )


def test_only_autoselect_missing_is_the_same_advice_as_to_win():
    body = rank_body(model_doc(), runtime_doc("r", entry(auto_select=None)))
    ranking = _rank(body)
    assert _fields(ranking, "r") == [("autoSelect", 0, "autoSelect", True)]
    assert ranking.advice[0].to_win == {"entry": 0, "autoSelect": True}


def test_an_autoselect_entry_that_scores_makes_a_runtime_selectable():
    """rules §4: the score reads format and framework only, so a non-matching autoSelect
    entry can carry a runtime that an autoSelect: false entry matches."""
    body = rank_body(
        model_doc(),
        runtime_doc("r", entry(auto_select=False), entry(format_name="onnx", architecture="Other")),
    )
    ranking = _rank(body)
    assert ranking.way_outs[0].label == "autoSelect"
    # One change either way: the first entry's wins.
    assert _fields(ranking, "r") == [("autoSelect", 0, "autoSelect", True)]
    body["runtimes"][0]["spec"]["supportedModelFormats"][0]["modelFormat"]["weight"] = -5
    ranking = _rank(body)
    assert _fields(ranking, "r") == [("zero score", 1, "modelFormat.name", "safetensors")]
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_negative_weights_are_lifted_just_enough():
    body = rank_body(model_doc(), runtime_doc("r", entry(weight=-3, framework_weight=-1)))
    ranking = _rank(body)
    assert ranking.rows[0].reason == "auto-select score is 0"
    assert ranking.way_outs[0].label == "zero score"
    assert _fields(ranking, "r") == [("zero score", 0, "modelFormat.weight", 2)]
    assert _rank(apply_way_out(body, 0, ranking)).rows[0].compatible


def test_the_summary_counts_groups_in_check_order_and_names_the_closest():
    body = rank_body(
        model_doc(framework_version="4.46.0"),
        *[runtime_doc(f"onnx-{i}", entry(format_name="onnx")) for i in range(4)],
        runtime_doc("vllm-llama", entry(framework_version="4.45.0")),
        serving_runtime("off", disabled=True),
    )
    ranking = _rank(body)
    assert ranking.summary == (
        "6 runtimes excluded: disabled ×1, format name mismatch ×4, framework version ×1; "
        "closest: vllm-llama (framework version)"
    )
    assert ranking.message.startswith("no runtime found")  # OME's text is untouched


def test_yes_rows_have_no_way_out_and_no_no_row_means_no_summary():
    ranking = _rank(rank_body(model_doc(), runtime_doc("r")))
    assert ranking.way_outs == (None,)
    assert ranking.summary is None


# --- the property: the changes make the row a Yes row -------------------------------------


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(requests())
def test_the_changes_of_a_way_out_make_the_runtime_qualify(body):
    ranking = _rank(body)
    _assert_the_shared_memo_changes_nothing(body)
    assert len(ranking.way_outs) == len(ranking.rows)
    for index, (row, out) in enumerate(zip(ranking.rows, ranking.way_outs, strict=True)):
        if row.compatible:
            assert out is None
            continue
        assert out.label
        if out.changes is None:
            assert out.note
            continue
        assert out.changes, "a No row needs at least one change"
        again = _rank(apply_way_out(body, index, ranking))
        assert _row(again, row.name, row.scope).compatible, (row.reason, out)
    if any(out is not None for out in ranking.way_outs):
        assert ranking.summary.split(" ", 1)[0] == str(
            sum(out is not None for out in ranking.way_outs)
        )
    else:
        assert ranking.summary is None


def _assert_the_shared_memo_changes_nothing(body: dict) -> None:
    """A request computes each entry's match, mismatch, score, score per unit of priority and
    fixes once (a memo keyed by the fields they read, entry_memo.py), shared by every row: the
    same rows, ways out and advice as each runtime checked on its own, with checks (and so a
    memo) of its own."""
    request = load_rank_request(body, {})
    ranking = rank_runtimes(request)
    if ranking.checks is None:
        return
    alone_rows = [RuntimeChecks(request).row(row.runtime) for row in ranking.rows]
    # repr: a NaN size's distance is NaN, which equals no other NaN object (rules §9)
    assert [repr(row) for row in ranking.rows] == [repr(row) for row in alone_rows]
    alone = tuple(way_out(RuntimeChecks(request), row) for row in ranking.rows)
    assert way_outs(ranking, len(ranking.rows)) == alone
    for row in ranking.rows:  # the priority advice's entry and its score per unit
        runtime = row.runtime
        assert best_entry(ranking.checks, runtime) == best_entry(RuntimeChecks(request), runtime)


def _assert_bounded_as_unbounded(body: dict, bound: int) -> None:
    """``way_outs`` with a bound of ``bound`` rows: the first ``bound`` ``No`` rows and the
    closest carry the way out the unbounded answer gives them, every other ``No`` row the
    note and its group; the summary is the unbounded one (its closest is found among all)."""
    ranking = rank_runtimes(load_rank_request(body, {}))
    every = way_outs(ranking, len(ranking.rows))
    some = way_outs(ranking, bound)
    refused = [index for index, row in enumerate(ranking.rows) if not row.compatible]
    assert exclusion_summary(ranking.rows, some) == exclusion_summary(ranking.rows, every)
    if len(refused) <= bound:
        assert some == every
        return
    reachable = [
        (len(every[index].changes), index) for index in refused if every[index].changes is not None
    ]
    closest = min(reachable)[1] if reachable else None
    note = FAR.format(count=len(refused), bound=bound)
    for place, index in enumerate(refused):
        if place < bound or index == closest:
            assert some[index] == every[index]
        else:
            assert some[index] == WayOut(every[index].label, None, note)


@settings(deadline=None)
@given(requests(), st.integers(min_value=0, max_value=3))
def test_beyond_the_bound_only_the_closest_is_worked_out(body, bound):
    _assert_bounded_as_unbounded(body, bound)


def test_the_closest_after_the_bound_is_worked_out_even_one_change_closer():
    """The first rows need three changes each; after them one needs two and one four: with a
    bound of 2, the one of two changes is worked out (it is the closest, one change closer
    than the best of the first), the one of four is not, and the summary names the closest."""
    far = entry(format_name="onnx", architecture="Other", framework="vllm")
    body = rank_body(
        model_doc(),
        runtime_doc("a-far", far),
        runtime_doc("b-far", far),
        runtime_doc(
            "c-farther",
            entry(format_name="onnx", architecture="Other", framework="vllm", quantization="fp8"),
        ),
        runtime_doc("d-close", entry(format_name="onnx", architecture="Other")),
    )
    ranking = rank_runtimes(load_rank_request(body, {}))
    outs = way_outs(ranking, 2)
    by_name = {row.name: out for row, out in zip(ranking.rows, outs, strict=True)}
    assert [len(by_name[name].changes) for name in ("a-far", "b-far", "d-close")] == [3, 3, 2]
    assert by_name["c-farther"].changes is None
    assert by_name["c-farther"].note == FAR.format(count=4, bound=2)
    assert by_name["c-farther"].label == "architecture"
    assert exclusion_summary(ranking.rows, outs) == (
        "4 runtimes excluded: architecture ×4; closest: d-close (architecture, "
        "format name mismatch)"
    )
    _assert_bounded_as_unbounded(body, 2)


def test_the_rules_state_the_bound_and_its_note_as_the_code_has_them():
    from tests.paths import ROOT

    rules = " ".join((ROOT / "docs" / "rules.md").read_text(encoding="utf-8").split())
    assert f'"{FAR.format(count="<n>", bound=WAY_OUTS)}"' in rules
    assert f"while there are at most {WAY_OUTS} `No` rows" in rules


def test_the_bound_on_the_benchmark_s_runtimes_and_a_catalog_with_no_way_out():
    """300 runtimes of random entries (the closest among the first or after them), and a
    sharded model with no cache provider: no row has a way out, every row is read for one."""
    from bench.manifests import rank_request_body
    from bench.shapes import incompatible_body

    for bound in (0, 1, 16, WAY_OUTS):
        _assert_bounded_as_unbounded(rank_request_body(300), bound)
    held_out = json.loads(incompatible_body(400))
    for bound in (0, 5, WAY_OUTS):
        _assert_bounded_as_unbounded(held_out, bound)
    sharded = rank_body(
        model_doc(distribution="Sharded"),
        *[runtime_doc(f"r{i}", entry(format_name="onnx")) for i in range(6)],
    )
    _assert_bounded_as_unbounded(sharded, 2)
    ranking = rank_runtimes(load_rank_request(sharded, {}))
    assert exclusion_summary(ranking.rows, way_outs(ranking, 2)).endswith(
        "closest: none (no change to one runtime alone makes it qualify)"
    )


def test_the_shared_memo_changes_nothing_on_the_benchmark_s_runtimes():
    from bench.manifests import rank_request_body

    _assert_the_shared_memo_changes_nothing(rank_request_body(300))


def test_the_shared_memo_tells_apart_entries_that_differ_in_any_field_it_reads():
    """Runtimes whose entries differ in one field each, every row a ``No`` (disabled) so that
    each has a way out, in both orders: an entry's memo key leaving out a field the rules read
    would hand one runtime another's answer."""
    variants = [
        entry(),
        entry(modelCacheProviders=["fleet"]),
        entry(modelCacheProviders=["local"]),
        entry(format_version="2.0.0"),
        entry(format_version="1.0.0", operator="GreaterThan"),
        entry(framework_version="4.46.0"),
        entry(framework=None, framework_version=None),
        entry(architecture="MistralForCausalLM"),
        entry(quantization="fp8"),
        entry(weight=-3),
        entry(weight=-3, priority=4),
        entry(framework_weight=-30),
        entry(format_name="onnx"),
        entry(auto_select=False),
        entry(auto_select=None),
    ]
    for ordered in (variants, variants[::-1]):
        for disabled in (True, False):  # disabled: every row has a way out; else checks 4-7
            runtimes = [
                runtime_doc(f"r{i}", variant, disabled=disabled)
                for i, variant in enumerate(ordered)
            ]
            body = rank_body(
                model_doc(distribution="Sharded"), *runtimes, modelCacheProvider="fleet"
            )
            _assert_the_shared_memo_changes_nothing(body)


@settings(deadline=None)
@given(requests())
def test_few_entries_read_in_order_choose_as_sorted_floors_do(body):
    """A runtime of few entries compares their floors in order, not sorted (way_out.py
    ``FEW_ENTRIES``): the same ways out as every runtime's floors sorted."""
    from app.selection.advice import way_out as module

    few = way_outs(rank_runtimes(load_rank_request(body, {})))
    original = module.FEW_ENTRIES
    module.FEW_ENTRIES = 0
    try:
        assert way_outs(rank_runtimes(load_rank_request(body, {}))) == few
    finally:
        module.FEW_ENTRIES = original


@settings(deadline=None)
@given(requests())
def test_a_changed_entry_that_scores_needs_what_checks_6_and_7_find(body):
    """The changes of checks 6 and 7 in a way out that changes an entry: what
    ``_Eligibility.changes`` finds, also where the changed entry is taken at once (selectable,
    it scores once changed)."""
    from app.selection.advice import way_out as module

    ranking = rank_runtimes(load_rank_request(body, {}))
    if ranking.checks is None:
        return
    memo = module._EntryMemo(ranking.checks)
    for row in ranking.rows:
        entries = row.runtime.entries
        if row.compatible or row.failed_check != CHECK_FORMAT or not entries:
            continue
        plan = module._entry_plan(memo, row.runtime, True)
        if isinstance(plan, str):
            continue
        index = module._fewest(memo, entries)[0] if len(entries) > 1 else 0
        assert plan[1] == module._Eligibility(memo, entries).changes(index, index)


@settings(deadline=None)
@given(requests())
def test_an_entry_alone_is_the_cheapest_and_no_other_scores(body):
    """``_Eligibility.changes`` on a runtime of one entry, changed, skips the other entries:
    none scores, and the cheapest way to a score is the entry's own, as reading them finds."""
    from app.selection.advice import way_out as module

    ranking = rank_runtimes(load_rank_request(body, {}))
    if ranking.checks is None:
        return
    memo = module._EntryMemo(ranking.checks)
    for row in ranking.rows:
        if row.compatible or len(row.runtime.entries) != 1:
            continue
        entry = row.runtime.entries[0]
        eligibility = module._Eligibility(memo, row.runtime.entries)
        assert not eligibility._scores_elsewhere(0)
        for scores in (False, True):
            own = (int(not scores) + eligibility._needs_autoselect(entry),)
            assert eligibility._cheapest(0, own) == 0


_MODES = st.sampled_from([None, "RawDeployment", "MultiNode"])


@settings(deadline=None)
@given(
    st.sampled_from([frozenset(), frozenset({"a100"})]),
    _MODES,
    _MODES,
    st.sampled_from([None, "8B"]),
    st.lists(
        st.tuples(
            st.sampled_from([None, False, True]),
            st.sampled_from([None, ("a100",), ("h100",)]),
            st.sampled_from([None, "RawDeployment", "MultiNode", "bogus"]),
            st.sampled_from([None, "RawDeployment", "MultiNode"]),
            st.sampled_from([None, ("1B", None), (None, "4B"), ("1B", "70B")]),
        ),
        max_size=8,
    ),
)
def test_runtime_wide_fixes_shared_by_what_the_request_reads_are_each_runtime_s_own(
    accelerators, engine, decoder, size, fields
):
    """A way out's runtime-wide fixes are shared by runtimes that differ only in what the
    request does not ask about: each is what the runtime alone gets."""
    from app.selection.advice import way_out as module
    from app.selection.values import Runtime, SizeRange

    checks = RuntimeChecks(load_rank_request(rank_body(model_doc(size=size)), {}))
    checks.accelerators, checks.engine_mode, checks.decoder_mode = accelerators, engine, decoder
    memo = module._EntryMemo(checks)
    for disabled, offered, engine_annotation, decoder_annotation, bounds in fields:
        runtime = Runtime(
            "ClusterServingRuntime",
            "rt",
            None,
            disabled=disabled,
            size_range=None if bounds is None else SizeRange(*bounds),
            accelerator_classes=offered,
            engine_mode_annotation=engine_annotation,
            decoder_mode_annotation=decoder_annotation,
        )
        own = module._runtime_fixes(checks, runtime), module._size_fixes(checks, runtime)
        assert memo.runtime_fixes(checks, runtime) == tuple(map(tuple, own))
