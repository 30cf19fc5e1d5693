"""The PyYAML path's budget (app/reading/yaml_bounds.py): the nodes it composes of a body are
bounded by the body's size, and a body past it is refused before that path composes any of it
when its nodes are known (counted by ryml, or by libyaml's parser), else as it composes."""

from __future__ import annotations

from unittest import mock

import pytest

from app.reading import pyyaml_reader, ryml_reader, yaml_bounds, yaml_loader
from app.reading.decoding import MalformedRequest
from app.reading.yaml_bounds import MIB, PYYAML_NODES_PER_MIB, pyyaml_budget

BUDGET = 40  # nodes: what the PyYAML path composes of a small body while these tests run
PAST_BUDGET = f"YAML stream holds more than {BUDGET} nodes.*up to {BUDGET} nodes per MiB of body"


@pytest.fixture(autouse=True)
def small_budget():
    with mock.patch.object(yaml_bounds, "PYYAML_NODES_PER_MIB", BUDGET):
        yield


def sequence_of_yes(entries: int) -> bytes:
    """`entries + 1` nodes (the sequence, its entries), which only the PyYAML path reads: `yes`
    is a boolean to it and a string to ryml."""
    return b"- yes\n" * entries


def mapping_of_yes(pairs: int) -> bytes:
    """`2 * pairs + 1` nodes, but `pairs + 1` in ryml's tree, where a key and its value are one."""
    return b"".join(b"k%d: yes\n" % pair for pair in range(pairs))


def never_composed():
    """The PyYAML path's loader, which must not be made: the body is refused before it."""
    return mock.patch.object(
        pyyaml_reader, "_Loader", side_effect=AssertionError("composed a body past its budget")
    )


def never_left_to_pyyaml():
    """The PyYAML path, which must not be asked: the fast path refuses the body by its count."""
    return mock.patch.object(
        yaml_loader, "pyyaml_documents", side_effect=AssertionError("left to the PyYAML path")
    )


def test_the_budget_is_a_mib_s_worth_below_a_mib_and_grows_with_the_body_past_it():
    with mock.patch.object(yaml_bounds, "PYYAML_NODES_PER_MIB", PYYAML_NODES_PER_MIB):
        assert pyyaml_budget(0) == pyyaml_budget(MIB) == PYYAML_NODES_PER_MIB == 131_072
        assert pyyaml_budget(2 * MIB) == 2 * PYYAML_NODES_PER_MIB
        assert pyyaml_budget(16 * MIB + 8) == 16 * PYYAML_NODES_PER_MIB + 1


def test_the_pyyaml_path_reads_a_body_at_its_budget():
    assert len(pyyaml_reader.pyyaml_documents(sequence_of_yes(BUDGET - 1))[0]) == BUDGET - 1


def test_the_pyyaml_path_counts_a_body_past_its_budget_before_composing_it():
    with never_composed(), pytest.raises(MalformedRequest, match=PAST_BUDGET) as counted:
        pyyaml_reader.pyyaml_documents(sequence_of_yes(BUDGET))
    with (
        mock.patch.object(pyyaml_reader, "yaml_nodes_ceiling", return_value=0),  # no count
        pytest.raises(MalformedRequest) as composed,
    ):
        pyyaml_reader.pyyaml_documents(sequence_of_yes(BUDGET))
    assert str(counted.value) == str(composed.value)  # the composer's words, where it stopped


@pytest.mark.parametrize(
    ("raw", "budget", "refusal"),
    [
        (b"[" * 300, 250, "nested deeper than 200 levels at line 1, column 201$"),
        (
            b"--- a\n" * 30 + b"- " * 30 + b"x",
            BUDGET,
            "more than 20 documents at line 21, column 1$",
        ),
    ],
    ids=["depth", "documents"],
)
def test_counting_before_composing_refuses_where_the_composer_would(raw, budget, refusal):
    # A body past the budget that crosses another bound first is refused for that one, as the
    # composer refuses it: counting changes when a body is refused, not why.
    with (
        mock.patch.object(yaml_bounds, "PYYAML_NODES_PER_MIB", budget),
        mock.patch.object(pyyaml_reader, "MAX_DOCUMENTS", 20),
    ):
        for ceiling in (10**6, 0):  # counted first, then only composed
            with (
                mock.patch.object(pyyaml_reader, "yaml_nodes_ceiling", return_value=ceiling),
                pytest.raises(MalformedRequest, match=refusal),
            ):
                pyyaml_reader.pyyaml_documents(raw)


def test_a_body_the_parser_refuses_before_the_budget_is_left_to_the_composer_to_name():
    raw = b"- a: b: c\n" + sequence_of_yes(BUDGET)
    with pytest.raises(MalformedRequest, match=r"not valid YAML: .* at line 1, column 7$"):
        pyyaml_reader.pyyaml_documents(raw)


def test_the_composer_holds_the_budget_where_nothing_counted_before_it():
    with (
        mock.patch.object(pyyaml_reader, "yaml_nodes_ceiling", return_value=0),  # no count
        pytest.raises(MalformedRequest, match=f"more than {BUDGET} nodes at line 40, column 3: "),
    ):
        pyyaml_reader.pyyaml_documents(sequence_of_yes(BUDGET))


def test_aliases_count_once_against_the_budget():
    anchored = b"a: &a [" + b"1, " * (BUDGET - 9) + b"1]\n"  # BUDGET - 5 nodes
    raw = anchored + b"b: *a\nc: *a\n"  # four more: two keys, two aliases
    assert len(pyyaml_reader.pyyaml_documents(raw)[0]["c"]) == BUDGET - 8
    with pytest.raises(MalformedRequest, match=PAST_BUDGET):
        pyyaml_reader.pyyaml_documents(raw + b"d: *a\n")


def test_the_fast_path_refuses_a_body_it_leaves_to_the_pyyaml_path_past_its_budget():
    assert ryml_reader.fast_documents(sequence_of_yes(BUDGET - 1)) is None  # left to that path
    with never_left_to_pyyaml(), pytest.raises(MalformedRequest, match=PAST_BUDGET):
        yaml_loader.load_documents(sequence_of_yes(BUDGET))


def test_the_fast_path_counts_keys_against_the_budget():
    # ryml's tree holds BUDGET / 2 + 1 nodes, PyYAML composes BUDGET + 1.
    assert ryml_reader.fast_documents(mapping_of_yes(BUDGET // 2 - 1)) is None
    with never_left_to_pyyaml(), pytest.raises(MalformedRequest, match=PAST_BUDGET):
        yaml_loader.load_documents(mapping_of_yes(BUDGET // 2))


def test_an_anchored_body_is_refused_by_its_count_too():
    # ryml reads it, and its anchor sends it to the PyYAML path before its JSON is written.
    raw = b"a: &a 1\nx:\n" + b"- 1\n" * BUDGET
    with never_left_to_pyyaml(), pytest.raises(MalformedRequest, match=PAST_BUDGET):
        yaml_loader.load_documents(raw)
    raw = b"x: &a 1\n" + mapping_of_yes(BUDGET // 2)  # its keys too
    with never_left_to_pyyaml(), pytest.raises(MalformedRequest, match=PAST_BUDGET):
        yaml_loader.load_documents(raw)


def test_a_body_the_fast_path_reads_itself_is_bounded_by_the_stream_s_nodes_only():
    raw = b"x: [" + b"1, " * BUDGET + b"1]\n"
    assert ryml_reader.fast_documents(raw) == [{"x": [1] * (BUDGET + 1)}]
