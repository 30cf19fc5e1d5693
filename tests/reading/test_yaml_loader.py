"""The YAML loader: its fast path (rapidyaml) gives exactly the PyYAML path's values or steps aside,
and both hold the stream's bounds (app/reading/yaml_loader.py, ryml_reader.py, pyyaml_reader.py,
yaml_bounds.py).

The differential tests load each stream both ways: wherever the fast path answers, its documents
must be the PyYAML path's (same types, same key order, same float spelling), and it must not load
a stream the PyYAML path refuses. Streams come from hypothesis (dumped data, hand-built block
YAML with every YAML 1.1 typing trap in every position and style, fragment soup) and from real
manifests (bench/manifests.py, the OME documentation cases).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from unittest import mock

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from app.reading import pyyaml_reader, ryml_reader, yaml_bounds
from app.reading.decoding import MAX_DEPTH, MalformedRequest
from app.reading.manifests import read_yaml_stream
from app.reading.yaml_bounds import MAX_DOCUMENTS, MAX_NUMBER_CHARS, MAX_STREAM_NODES
from app.reading.yaml_loader import load_documents
from bench import manifests, yaml_cost
from tests.paths import ROOT
from tests.work import cpu_seconds_under

REFUSED = object()
OME_CASES = sorted((ROOT / "tests" / "ome_docs" / "cases").glob("*.yaml"))

# Scalars that YAML 1.1 (PyYAML) and YAML 1.2 (ryml) type differently, or that ryml rewrites in
# its JSON, or that are plain strings looking like numbers: each is tried plain, single- and
# double-quoted, as a value and as a key.
# fmt: off
TRAPS = [
    "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "n",
    "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~", "=", "<<",
    "nan", "NaN", ".nan", ".NaN", ".NAN", "inf", ".inf", ".Inf", "-.inf", "+.inf", "-inf",
    "infinity", "Infinity", "0", "-0", "+0", "00", "07", "08", "010", "-010", "0o17", "0x1F",
    "-0x1F", "0xff", "0b101", "0b_", "0x_", "1_000", "1__0", "_1", "1_", "1:30", "-1:30", "1:60",
    "190:20:30", "12:30:45", "1:30.5", "1.5", "-1.5", "+1.5", "1.", "-1.", ".5", "-.5", "+.5",
    "0.", ".0", "0.5", "0.50", "1.50", "1e3", "1E3", "-1e3", "1.0e3", "1.0e+3", "1.5E-3",
    "0.5e+3", "1.e+3", "1e+", "1e", ".", "-", "--", "---", "...", "1.2.3", "v1", "2024-01-01",
    "2001-12-14t21:59:43.10-05:00", "8.03B", "99999999999999999999", "-9223372036854775809",
    "4.45.0", "8080", "0.92", "a:b", "http://h:1/p",
]
# fmt: on
PLAINS = ["a", "b c", "x:y", "-x", "a#b", "é", "a  b", "a - b", "x,y", "$(X)", "--port=8080"]
# Scalars the fast path reads without help, whatever their style (plain numbers, true, null...)
FAST = [*PLAINS, "8080", "0", "-1", "1.5", "0.92", "1e3", "true", "false", "null", "1.0.0", "v1"]


def same(a: object, b: object) -> bool:
    """Equal, with the same types all the way down (True is not 1), keys in the same order and
    floats spelled the same (-0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return a == b


def pyyaml(raw: bytes) -> object:
    try:
        return pyyaml_reader.pyyaml_documents(raw)
    except MalformedRequest:
        return REFUSED


def assert_loads_as_pyyaml(raw: bytes) -> None:
    """``load_documents`` gives the PyYAML path's documents, or refuses what it refuses."""
    expected = pyyaml(raw)
    if expected is REFUSED:
        with pytest.raises(MalformedRequest):
            load_documents(raw)
    else:
        assert same(load_documents(raw), expected)


def record(what: str) -> None:
    """Count, in hypothesis' statistics (--hypothesis-show-statistics), which path answered."""
    if currently_in_test_context():
        event(what)


def assert_fast_path_agrees(raw: bytes) -> object:
    """The fast path's answer, checked against the PyYAML path's; None when it stepped aside."""
    expected = pyyaml(raw)
    try:
        documents = ryml_reader.fast_documents(raw)
    except MalformedRequest:  # only past the stream's bounds, which the PyYAML path holds too
        assert expected is REFUSED, raw
        record("refused by the fast path")
        return REFUSED
    if documents is None:
        record("fell back")
        return None
    record("fast path")
    assert expected is not REFUSED, f"fast path loaded what the PyYAML path refuses: {raw!r}"
    assert same(documents, expected), (raw, documents, expected)
    return documents


# ---------------------------------------------------------------------------- real manifests


def manifest_stream(runtimes: int) -> bytes:
    body = manifests.rank_request_body(runtimes)
    return yaml.safe_dump_all([body["model"], *body["runtimes"]], sort_keys=False).encode()


@pytest.mark.parametrize("runtimes", [1, 10, 100])
def test_bench_manifests_take_the_fast_path_with_the_same_values(runtimes):
    raw = manifest_stream(runtimes)
    documents = assert_fast_path_agrees(raw)
    assert documents is not None  # not a fallback: ordinary manifests are the fast path's job
    body = manifests.rank_request_body(runtimes)
    assert documents == [body["model"], *body["runtimes"]]


@pytest.mark.skipif(not OME_CASES, reason="no OME documentation cases in this tree")
@pytest.mark.parametrize("path", OME_CASES, ids=lambda path: path.stem)
def test_ome_documentation_manifests_take_the_fast_path_with_the_same_values(path):
    cases = [case for case in yaml.safe_load(path.read_text()) if "manifests" in case]
    assert cases
    for case in cases:
        assert assert_fast_path_agrees(case["manifests"].encode()) is not None, case.get("name")


def test_kubectl_style_manifest_with_comments_block_scalars_and_quoted_numbers():
    raw = b"""\
# a runtime as people write them
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-llama   # trailing comment
  annotations:
    ome.io/description: "llama: 3.2 on H100 (`srt`)"
    ome.io/enabled: "true"
spec:
  supportedModelFormats:
    - name: safetensors
      version: "1.0.0"
      priority: 1
      weight: 0.5
  engineConfig:
    runner:
      args:
        - --port
        - '8080'
        - "--served-model-name={{.Name}}"
      command:
        - /bin/sh
        - -c
        - |
          set -e
          exec python3 -m sglang.launch_server \\
            --tp 8   # not a comment in a block scalar

      env:
        - name: EMPTY
          value: ""
        - name: UNSET
          value:
---
kind: BaseModel
"""
    documents = assert_fast_path_agrees(raw)
    assert documents is not None
    runner = documents[0]["spec"]["engineConfig"]["runner"]
    assert runner["args"] == ["--port", "8080", "--served-model-name={{.Name}}"]
    assert runner["command"][2].endswith("--tp 8   # not a comment in a block scalar\n")
    assert runner["env"] == [{"name": "EMPTY", "value": ""}, {"name": "UNSET", "value": None}]


# ------------------------------------------------------------------ typing: YAML 1.1, exactly


def styled(text: str, style: str) -> str:
    if style == "plain":
        return text
    if style == "single":
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


@pytest.mark.parametrize("style", ["plain", "single", "double"])
@pytest.mark.parametrize("text", TRAPS + PLAINS)
def test_every_typing_trap_reads_as_the_pyyaml_path_reads_it(text, style):
    scalar = styled(text, style)
    for raw in (f"v: {scalar}\n", f"{scalar}: v\n", f"- {scalar}\n", f"a:\n  - {scalar}\n  - x\n"):
        expected = pyyaml(raw.encode())
        if expected is REFUSED:
            with pytest.raises(MalformedRequest):
                load_documents(raw.encode())
        else:
            assert same(load_documents(raw.encode()), expected), raw
        assert_fast_path_agrees(raw.encode())


def test_yaml11_values_come_out_typed_and_timestamps_as_strings():
    raw = b"a: yes\nb: 0x1F\nc: 1_000\nd: ~\ne: 1:30\nf: '07'\ng: 1e3\nh: .inf\ni: 010\n"
    raw += b"j: 2024-01-01\nk: 1.0e+3\nl: -.5\nm: Off\nn: 0b11\no: 1.\n"
    assert load_documents(raw) == [
        {
            **{"a": True, "b": 31, "c": 1000, "d": None, "e": 90, "f": "07", "g": "1e3"},
            **{"h": float("inf"), "i": 8, "j": "2024-01-01", "k": 1000.0, "l": "-.5"},
            **{"m": False, "n": 3, "o": 1.0},
        }
    ]


def test_keys_take_their_json_spelling():
    raw = b"m:\n  1: a\n  true: b\n  null: c\n  1.5: d\n  0x11: e\n  ~x: f\n  1.50e+1: g\n"
    assert load_documents(raw) == [
        {"m": {"1": "a", "true": "b", "null": "c", "1.5": "d", "17": "e", "~x": "f", "15.0": "g"}}
    ]


def test_quoted_numbers_and_booleans_stay_on_the_fast_path():
    # The commonest quoting in manifests costs no fallback: ryml writes plain 8080 and true
    # bare, so the JSON strings "8080" and "true" can only have been quoted.
    raw = b"a: '8080'\nb: \"true\"\nc: 'null'\nd: \"0.92\"\ne: '1.0.0'\nf: 8080\ng: true\n"
    assert ryml_reader.fast_documents(raw) == [
        {"a": "8080", "b": "true", "c": "null", "d": "0.92", "e": "1.0.0", "f": 8080, "g": True}
    ]


# --------------------------------------------------------------- what falls back, and why


@pytest.mark.parametrize(
    "raw",
    [
        b"a: yes\n",  # YAML 1.1 booleans are strings to ryml
        b"a: 'yes'\n",  # ... and once in JSON, quoted and plain look alike
        b"a: ~\n",
        b"a: 0x1F\n",
        b"a: 1_000\n",
        b"a: 12:30\n",
        b"a: .inf\n",
        b"a: -.5\n",  # ryml writes -0.5
        b"a: 0.5e3\n",  # ... or .5e3
        b"1.50: x\n",  # a key whose JSON spelling is not its text
        b"'': x\n",
        b"a: !!str 12\n",  # a tag (ryml drops it)
        b"a: !!binary aGk=\n",
        b"a: &x 1\nb: *x\n",  # anchors and aliases are metered by the PyYAML path
        b"a: &x 1\nb: &x 2\n",  # a duplicate anchor
        b"base: &b {x: 1}\nm:\n  <<: *b\n",
        b"a: {b: c #comment\n  }\n",  # ryml keeps the comment in the value
        b"a: [?x]\n",  # a mapping in YAML 1.1
        b"a: [b,\n  c]\n",  # a flow collection over several lines
        b"a: [b, c] # c\n",  # ... or with a comment, an empty entry, a trailing comma
        b"a: [b, , c]\n",
        b"a: [b, c,]\n",
        b"[b, c]: d\n",  # ... or as a key
        b"a: [b: c]\n",  # a mapping of one pair in a sequence
        b"a: [[[b]]]\n",  # three levels
        b"%YAML 1.1\n---\na: 1\n",
        b"a:\tb\n",
        b"a: |2\n   x\n  \n",  # ryml drops the spaces of the blank line
        b"a: |\n  x",  # ryml adds a line break at the end of the body
        b"a: 1\n...\nb: 2\n",  # YAML 1.1 wants `---` here
        b"a: @x\n",
        b"a: ]x\n",
        b"? a\n: b\n",
        b">\nfolded at the root\n",
        b"a: b\xc2\x85c: d\n",  # NEL is a line break in YAML 1.1
        b'- " \\\n  \\L\\L"\n',  # \L is a line separator to YAML 1.1, not to ryml
        b'a: "x\\Ny"\n',  # \N (NEL), \P and \_ too
        b"a: 1\n\xef\xbb\xbfb: 2\n",  # a byte-order mark past the start
        b"a: 1\nb: 2\na: 3\n",  # a duplicate key: the PyYAML path names it
        b"a: \x01\n",
        b"!=\n!=kind: !=",  # ryml makes no document of it; PyYAML refuses the tag
        b"# nothing but a comment\n",  # no document: the PyYAML path says so
        ("a:\n" + "".join("  " * depth + "b:\n" for depth in range(1, 70))).encode(),
    ],
)
def test_streams_the_fast_path_cannot_vouch_for_go_to_the_pyyaml_path(raw):
    assert ryml_reader.fast_documents(raw) is None
    assert_loads_as_pyyaml(raw)


def test_strings_that_merely_contain_indicators_stay_on_the_fast_path():
    raw = b'a: x&y\nb: "!important"\nc: "*.example.com"\nd: a && b\ne: 50%\nf: x@y\n'
    assert assert_fast_path_agrees(raw) == [
        {"a": "x&y", "b": "!important", "c": "*.example.com", "d": "a && b", "e": "50%", "f": "x@y"}
    ]


def test_ryml_ids_are_the_range_of_its_size():
    # The tag/anchor scan reads node ids 0..size-1: ryml only ever drops its newest node.
    for raw in (b"---\n---\na: 1\n---\n", b"- [a]\n- {b: c}\n", b"a:\n  - b\n  -\n"):
        tree = ryml_reader._parse(raw, unsure=False)
        used = [node for node in range(tree.capacity()) if tree.type_str(node) != "NOTYPE"]
        assert used == list(range(tree.size()))


def test_json_is_emitted_whole_when_the_first_buffer_is_too_small():
    tree = ryml_reader._parse(b"a: [1, 2]\nb: {c: d}\n", unsure=False)
    assert json.loads(ryml_reader._emit_json(tree, tree.root_id(), 1)) == {
        "a": [1, 2],
        "b": {"c": "d"},
    }


# ----------------------------------------------------------------------- differential, fuzzed


json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.sampled_from(TRAPS + PLAINS),
    st.text(max_size=12),
    st.text(alphabet=" \n-:#'\"\\é\u2028\t", max_size=8),
)
json_keys = st.one_of(st.sampled_from(TRAPS + PLAINS), st.text(max_size=8))
documents = st.recursive(
    json_leaves,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(json_keys, children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(
    st.lists(documents, min_size=1, max_size=3),
    st.sampled_from([False, None, True]),
    st.sampled_from([None, None, None, "'", '"', "|"]),
    st.booleans(),
    st.sampled_from([2, 4]),
    st.sampled_from([20, 80, 1000]),
)
def test_dumped_data_loads_the_same_both_ways(docs, flow, style, explicit, indent, width):
    raw = yaml.safe_dump_all(
        docs,
        default_flow_style=flow,
        default_style=style,
        explicit_start=explicit,
        indent=indent,
        width=width,
        allow_unicode=True,
        sort_keys=False,
    ).encode()
    assert_fast_path_agrees(raw)


@st.composite
def scalar_text(draw, indent: int, words: list[str]) -> str:
    """A scalar in any of YAML's styles, one of `words`."""
    text = draw(st.sampled_from(words))
    kind = draw(st.sampled_from(["plain"] * 4 + ["single", "double", "block", "multi", "empty"]))
    pad = " " * (indent + 2)
    if kind == "block":
        header = draw(st.sampled_from(["|", ">", "|-", ">+", "|+", ">-"]))
        lines = draw(st.lists(st.sampled_from(["", text, " " + text, "#no comment"]), max_size=3))
        return header + "\n" + "".join(f"{pad}{line}\n" for line in lines)
    if kind == "multi":
        return f"{text}\n{pad}{draw(st.sampled_from(PLAINS))}\n"
    if kind == "empty":
        return "\n"
    comment = draw(st.sampled_from(["", "", " # c"]))
    return styled(text, kind) + comment + "\n"


STYLES = ["plain", "plain", "plain", "single", "double"]


@st.composite
def block_node(draw, words: list[str], indent: int = 0, depth: int = 0) -> str:
    """A block mapping or sequence (at depth 0 always), or a scalar, as people indent them."""
    kinds = ["map", "seq"] + (["scalar", "scalar"] if depth else [])
    kind = draw(st.sampled_from(kinds if depth < 3 else ["scalar"]))
    if kind == "scalar":
        return " " + draw(scalar_text(indent, words))
    pad, out = " " * indent, "\n" if depth else ""
    for _ in range(draw(st.integers(1, 3))):
        if kind == "seq":
            out += pad + "-" + draw(block_node(words, indent + 2, depth + 1))
        else:
            key = styled(draw(st.sampled_from(words)), draw(st.sampled_from(STYLES)))
            out += pad + key + ":" + draw(block_node(words, indent + 2, depth + 1))
    return out


# Half the streams have only words the fast path reads itself, half have the traps too.
block_streams = st.sampled_from([FAST, FAST + TRAPS]).flatmap(
    lambda words: st.lists(block_node(words), min_size=1, max_size=3)
)


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(
    block_streams,
    st.sampled_from(["---\n", "--- # c\n", "\n---\n"]),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
)
def test_hand_written_block_yaml_loads_the_same_both_ways(nodes, separator, first, newline):
    text = ("---\n" if first else "") + separator.join(nodes)
    assert_fast_path_agrees(text.replace("\n", newline).encode())


# Entries of a flow collection: words the fast path reads itself, the typing traps, and what a
# word must not hold (an indicator, a blank, a quote), for the lines it must leave alone.
LOOSE_WORDS = [
    *FAST, *TRAPS, "--port", "$(X)", "a/b", "a=b", "(x)", "-", "a:b", "a: b", "a#b", "a #b", "@x",
    "!x", "&x", "*x", "?x", "? x", "%x", "|", ">", "x]", "x}", "x,y", "", " ", "'", '"', "é",
]  # fmt: skip
# Half the collections are written as people write them, the others loosely.
HEADS = ["a: ", "a:  ", "- ", "- - ", "- a: ", "--- ", "", "  b: ", "'q': "]
STRICT = {
    "words": ["a", "-x", "$(X)", "--port=8080", "8080", "-1", "1.5", "1e3", "true", "null", "v1"],
    "separators": [", ", ",", " , "],
    "heads": HEADS,
    "afters": ["", " "],
    "depth": 1,  # a collection in a collection: as deep as the fast path reads
}
LOOSE = {
    "words": LOOSE_WORDS,
    "separators": [", ", ",", " , ", ",  ", ",\n  ", ", , "],
    "ends": ["", "", ",", " # c\n", "\n"],
    "heads": [*HEADS, "? ", "[x]: ", "a: b "],
    "afters": ["", "", " ", ": v", " x"],
    "depth": 2,
}


@st.composite
def flow_collection(draw, style: dict, depth: int = 0) -> str:
    """A flow sequence or mapping, on one line unless ``style`` lets it go on; in a loose one,
    keys are collections too."""

    def entry(key: bool = False) -> str:
        nested = depth < style["depth"] and not (key and style is STRICT)
        if nested and draw(st.integers(0, 4)) == 0:
            return draw(flow_collection(style, depth + 1))
        return styled(draw(st.sampled_from(style["words"])), draw(st.sampled_from(STYLES)))

    mapping = draw(st.booleans())
    colon = ": " if style is STRICT else draw(st.sampled_from([": ", ":  ", ":"]))
    count = draw(st.integers(0, 4))
    entries = [(entry(key=True) + colon + entry()) if mapping else entry() for _ in range(count)]
    inside = draw(st.sampled_from(style["separators"])).join(entries)
    inside += draw(st.sampled_from(style.get("ends", [""])))
    blank = draw(st.sampled_from(["", "", " "]))
    return ("{" if mapping else "[") + blank + inside + blank + ("}" if mapping else "]")


@settings(max_examples=6 * settings.default.max_examples, deadline=None)
@given(
    st.sampled_from([STRICT, LOOSE]).flatmap(
        lambda style: st.lists(
            st.tuples(
                st.sampled_from(style["heads"]),
                flow_collection(style),
                st.sampled_from(style["afters"]),
            ),
            min_size=1,
            max_size=3,
        )
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_flow_collections_on_one_line_load_the_same_both_ways(lines, newline):
    # Lines of flow collections, one per line, under block indicators and keys: the fast path
    # reads those of words itself (emptied before its token checks look), and each answer it
    # gives must be the PyYAML path's.
    text = "a:\n" if lines[0][0] == "  b: " else ""
    text += "".join(head + flow + after + "\n" for head, flow, after in lines)
    assert_fast_path_agrees(text.replace("\n", newline).encode())


def test_flow_collections_of_words_take_the_fast_path():
    document = b'args: [--port, "8080", \'--x=$(Y)\']\nspec: {x: [1, 2.5, -3], y: {z: "q"}}\n'
    assert assert_fast_path_agrees(document) == [
        {"args": ["--port", "8080", "--x=$(Y)"], "spec": {"x": [1, 2.5, -3], "y": {"z": "q"}}}
    ]
    assert assert_fast_path_agrees(b"- [a, b]\n- {k: v}\n--- [1, {}]\n") == [
        [["a", "b"], {"k": "v"}],
        [1, {}],
    ]


FRAGMENTS = [
    "kind: ", "List", "items:", "\n", "  ", "- ", "---\n", "...\n", "[", "]", "{", "}", ", ",
    ": ", "? ", "#", "|\n", ">\n", "|-\n", "'q'", '"d"', '"\\u00e9"', "~", "1:0", ".nan", "yes",
    "0x1F", "1_000", "-.5", "1e3", "x", "y z", "\r\n", "\ufeff", "é", " # c\n", "-", ":", "'",
    '"', "\\", "a:b", "8080", "'8080'", "null", "True", "<<: ", "=", "1.", ".5", "+1", "010",
    "&a ", "*a", "!!str ", "%", "@", "\t", "\\_", "\\L", "# \\_ \u00af\n", "!=", "1.5", "\u00a0",
]  # fmt: skip


@settings(max_examples=6 * settings.default.max_examples, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_fragment_soup_never_loads_otherwise_than_the_pyyaml_path(text):
    assert_fast_path_agrees(text.encode())


# ------------------------------------------------------------------------------------ bounds


def block_document(entries: int) -> str:
    """A document of `entries + 3` nodes: the mapping, the key `x`, the sequence, its entries."""
    return "x:\n" + "- 0\n" * entries


@pytest.mark.scale
def test_stream_node_budget_is_exact_on_the_fast_path():
    first = 400_000
    second = MAX_STREAM_NODES - (first + 3) - 3
    raw = f"{block_document(first)}---\n{block_document(second)}".encode()
    assert ryml_reader.fast_documents(raw) is not None  # within the budget, on the fast path
    assert [len(document["x"]) for document in load_documents(raw)] == [first, second]
    raw = f"{block_document(first)}---\n{block_document(second + 1)}".encode()
    with pytest.raises(MalformedRequest, match=f"stream holds more than {MAX_STREAM_NODES} nodes"):
        load_documents(raw)


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(block_streams, st.integers(1, 100))
def test_both_paths_count_the_same_nodes(nodes, budget):
    # With a small budget, every stream on either side of it: the fast path refuses exactly
    # the streams the PyYAML path refuses, so both count nodes alike (keys, documents included).
    raw = "---\n".join(nodes).encode()
    with contextlib.ExitStack() as patches:
        for module in (yaml_bounds, ryml_reader, pyyaml_reader):  # each that names the bound
            patches.enter_context(mock.patch.object(module, "MAX_STREAM_NODES", budget))
        assert_fast_path_agrees(raw)


SOUP = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)


def composed_nodes(raw: bytes) -> int | None:
    """The nodes the PyYAML path composes of a body (aliases once), or None if it refuses it."""
    loader = pyyaml_reader._Loader(raw)
    try:
        while loader.check_data():
            loader.get_data()
    except Exception:
        return None
    finally:
        loader.dispose()
    return loader._meter.composed


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(st.one_of(block_streams.map("---\n".join), SOUP))
def test_the_fast_path_counts_no_more_nodes_than_the_pyyaml_path_composes(text):
    # With a budget of exactly what the PyYAML path composes of the body, and every body counted
    # however small, the fast path never refuses it by the budget; one node less, that path
    # refuses it too.
    raw = text.encode()
    nodes = composed_nodes(raw)
    if not nodes:  # refused, or empty
        return
    with mock.patch.object(ryml_reader, "_SMALL", 0):
        with mock.patch.object(yaml_bounds, "PYYAML_NODES_PER_MIB", nodes):
            try:
                ryml_reader.fast_documents(raw)
            except MalformedRequest as refused:
                assert "per MiB" not in str(refused), raw
        with mock.patch.object(yaml_bounds, "PYYAML_NODES_PER_MIB", nodes - 1):
            assert pyyaml(raw) is REFUSED
            try:
                record("answered" if ryml_reader.fast_documents(raw) else "left to PyYAML")
            except MalformedRequest:
                record("refused by the fast path")


@pytest.mark.scale
@pytest.mark.parametrize(
    "document",
    [
        "kind: ServingRuntime\nx: [" + ", ".join(["0"] * 999_990) + "]\n",
        "kind: ServingRuntime\nx:\n" + "- 0\n" * 999_990,
        "kind: ServingRuntime\nx: [\n" + ",\n".join(["0"] * 999_990) + "]\n",  # PyYAML's
    ],
    ids=["flow", "block", "flow-over-lines"],
)
def test_four_documents_at_the_per_document_bound_are_refused_quickly(document):
    raw = "---\n".join([document] * 4).encode()  # each within MAX_NODES, 4 M nodes together
    # Refused at the stream's millionth node, not after reading all four million of it (which
    # took > 30 s of CPU before the stream budget).
    with (
        cpu_seconds_under(10),
        pytest.raises(MalformedRequest, match=f"more than {MAX_STREAM_NODES} nodes"),
    ):
        load_documents(raw)


# Bodies near the stream's node bound, shaped to cost the most per byte, as the fast path reads
# them and as only the PyYAML path can (bench/yaml_cost.py, which measures them).
NODE_BOUND_SHAPES = [
    name for name in yaml_cost.SHAPES if "budget" not in name and "real" not in name
]


@pytest.mark.scale
@pytest.mark.parametrize("shape", NODE_BOUND_SHAPES)
def test_no_body_at_the_node_bound_is_composed_by_the_pyyaml_path(shape):
    # Each is answered by the fast path or refused by a count (ryml's, or libyaml's events)
    # before the PyYAML path composes a node of it: a million nodes composed took ~10 s of CPU.
    raw = yaml_cost.SHAPES[shape]()
    composer = mock.patch.object(
        pyyaml_reader, "_Loader", side_effect=AssertionError("composed by the PyYAML path")
    )
    with composer, cpu_seconds_under(1 + 2 * len(raw) / yaml_bounds.MIB):
        try:
            documents = load_documents(raw)
        except MalformedRequest as refused:
            assert re.search(r"more than \d+ nodes", str(refused))
        else:
            assert documents[0]["kind"] == "BaseModel"


@pytest.mark.scale
def test_the_flow_sequence_of_integers_takes_the_fast_path():
    raw = yaml_cost.issue_body()
    assert len(ryml_reader.fast_documents(raw)[0]["spec"]["x"]) == yaml_cost.INTEGERS + 1


@pytest.mark.scale
@pytest.mark.parametrize("shape", [name for name in yaml_cost.SHAPES if "budget" in name])
def test_a_body_at_the_pyyaml_budget_is_read_by_that_path(shape):
    raw = yaml_cost.SHAPES[shape]()
    assert ryml_reader.fast_documents(raw) is None
    assert load_documents(raw)[0]["kind"] == "BaseModel"


@pytest.mark.scale
@pytest.mark.parametrize(
    "document", ["a: 1\n", "a: yes\n", "a: !!str 1\n"], ids=["fast", "ambiguous", "tagged"]
)
def test_document_count_is_bounded_on_both_paths(document):
    raw = ("---\n" + document) * MAX_DOCUMENTS
    assert len(load_documents(raw.encode())) == MAX_DOCUMENTS
    raw += "---\n"
    for load in (load_documents, pyyaml_reader.pyyaml_documents):
        with pytest.raises(MalformedRequest, match=f"more than {MAX_DOCUMENTS} documents"):
            load(raw.encode())


def nested_mappings(depth: int) -> bytes:
    """Block mappings `a:` under `a:`, `depth` levels, the last holding `a: 1`."""
    lines = ["  " * level + "a:" for level in range(depth)]
    return ("\n".join(lines) + " 1\n").encode()


def test_depth_past_the_fast_path_is_left_to_the_pyyaml_path():
    assert ryml_reader.fast_documents(nested_mappings(60)) is not None
    assert ryml_reader.fast_documents(nested_mappings(100)) is None  # ryml's JSON: 64 levels
    document = load_documents(nested_mappings(MAX_DEPTH))[0]
    for _ in range(MAX_DEPTH - 1):
        document = document["a"]
    assert document == {"a": 1}
    with pytest.raises(MalformedRequest, match=f"nested deeper than {MAX_DEPTH} levels"):
        load_documents(nested_mappings(MAX_DEPTH + 1))


@pytest.mark.parametrize(
    "raw",
    [
        b"- " * 100_000 + b"x\n",
        b"".join(b"  " * level + b"- a:\n" for level in range(300)),  # 600 levels
        b"- - - - - " * 20_000 + b"x\n",
    ],
    ids=["block-sequences", "indented", "nested-on-one-line"],
)
def test_pathological_block_nesting_is_refused_not_a_crash(raw):
    with pytest.raises(MalformedRequest, match="nested deeper than 200 levels"):
        load_documents(raw)


def test_aliases_always_go_through_the_metering_composer():
    laughs = ['kind: BaseModel\nl0: &l0 "lol"']
    for level in range(1, 10):
        laughs.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    raw = ("\n".join(laughs) + "\n").encode()
    assert ryml_reader.fast_documents(b"a: &x [1]\nb: *x\n") is None
    with pytest.raises(MalformedRequest, match="aliases expand to more than"):
        load_documents(raw)
    with pytest.raises(MalformedRequest, match="recursive alias"):
        load_documents(b"kind: BaseModel\nx: &a [1, *a]\n")


def test_numbers_past_the_digit_limit_are_refused_on_both_paths():
    limit = "9" * MAX_NUMBER_CHARS
    assert load_documents(f"a: {limit}\n".encode()) == [{"a": int(limit)}]
    for text in ("9" + limit, "-" + limit, "0." + limit):  # `-` and 4300 digits: 4301 chars
        raw = f"a: {text}\n".encode()
        assert pyyaml(raw) is REFUSED
        with pytest.raises(MalformedRequest, match="malformed or too long number"):
            load_documents(raw)


def test_invalid_utf8_is_refused_by_the_loader_itself():
    with pytest.raises(MalformedRequest, match="not valid UTF-8"):
        load_documents(b"a: \xff\n")


# ------------------------------------------------------------------------------ duplicate keys


def test_a_key_twice_in_a_mapping_is_refused_with_its_name_and_line():
    raw = b"apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  name: a\n"
    raw += b"spec: {}\nstatus: {}\nname: x\n  \nname: y\n"
    with pytest.raises(MalformedRequest) as info:
        load_documents(raw)
    assert info.value.message == (
        'request body is not valid YAML: key "name" appears twice in one mapping (line 9)'
    )


def test_two_manifests_concatenated_without_a_separator_are_refused():
    runtime = "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  name: {}\n"
    with pytest.raises(MalformedRequest, match=r'key "apiVersion" appears twice.*line 5'):
        load_documents((runtime.format("a") + runtime.format("b")).encode())


@pytest.mark.parametrize(
    ("raw", "key", "line"),
    [
        (b"a:\n  - b: 1\n    c: 2\n    b: 3\n", "b", 4),  # in a sequence's mapping
        (b"a: {x: 1, y: 2, x: 3}\n", "x", 1),  # flow
        (b"a: 1\n---\nb: 1\nb: 2\n", "b", 4),  # in a later document
        (b"m:\n  0x10: a\n  16: b\n", "16", 3),  # one YAML key, two spellings
        (b"m:\n  ~: a\n  null: b\n", "null", 3),
        (b"m:\n  <<: {x: 1, x: 2}\n", "x", 2),  # inside a merged mapping
    ],
)
def test_duplicate_keys_are_refused_everywhere(raw, key, line):
    with pytest.raises(MalformedRequest, match=rf'key "{key}" appears twice.*line {line}'):
        load_documents(raw)


# Strings that hold colons, or `": `, once written as JSON, in every quoting style, with the
# backslashes and quotes around them that decide whether a JSON writer escapes them.
SEPARATOR_STRINGS = [
    "'x\": y'", "'\\\": z'", "'\\'", '"x\\": y"', '"\\\\\\": "', '"a\\\\"', "'\"'",
    "'\"\": '", "x\": y", "plain", "'{\"k\": \"v\"}'", "|\n  \"a\": b\n  c: \"d\": e",
    "http://h:8080/p", "'a:b'", '"\\u003a::"', "'::'", "[a:b, 'c:']",
]  # fmt: skip


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(
                ["a", "b", "'a'", '"b"', "'x\": y'", "'\\'", '"q\\"": r"', "'a:b'", "c:d"]
            ),
            st.sampled_from(SEPARATOR_STRINGS),
        ),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_a_key_twice_is_found_whatever_the_strings_hold(entries, nested):
    """The fast path finds a key given twice by counting colons in ryml's JSON and in orjson's
    JSON of what it read: strings holding colons count in both, so only a key lost to a
    duplicate (with its value) makes the two differ."""
    lines = [f"{key}: {value}" for key, value in entries]
    if nested:
        lines = ["top:", *(f"  {line}".replace("\n  ", "\n    ") for line in lines), "z: 1"]
    assert_fast_path_agrees(("\n".join(lines) + "\n").encode())


@pytest.mark.parametrize(
    "raw",
    [
        b"a: 'x\": y'\nb: 1\na: 2\n",  # the lost value held `": ` as well
        b"a: '\\\": '\na: '\\\": '\n",  # a backslash before it
        b"- {k: 'v\": w', k: 'v\": w'}\n",
        b"'x\": y': 1\n'x\": y': 2\n",  # the key itself holds it
        b"a: 'x:y'\nb: 1\na: 'http://h:1'\n",  # colons in both values
        b"'a:b': 1\n'a:b': '::'\n",
    ],
)
def test_a_key_twice_beside_separators_in_strings_still_goes_to_the_pyyaml_path(raw):
    assert ryml_reader.fast_documents(raw) is None
    with pytest.raises(MalformedRequest, match="appears twice"):
        load_documents(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"a: 1\n--- >\n  folded\n",  # a later document that is a block scalar
        b"a: 1\n---\n'a quoted document'\n",
        b"--- |\n  literal\n---\nb: 2\n",
        b"plain document\n",
    ],
)
def test_a_document_that_is_a_string_goes_to_the_pyyaml_path(raw):
    assert ryml_reader.fast_documents(raw) is None
    assert same(load_documents(raw), pyyaml(raw))


def test_keys_that_only_share_a_json_spelling_are_not_duplicates():
    # `1` and '1' are two YAML keys (an int and a string): the later wins, as before.
    assert load_documents(b"m: {1: a, '1': b, true: c, 'true': d}\n") == [
        {"m": {"1": "b", "true": "d"}}
    ]


def test_merge_keys_are_not_duplicates_of_what_they_bring():
    raw = b"""\
base: &base {x: 1, y: 2}
more: &more {y: 3, z: 4}
m:
  <<: [*base, *more]
  x: 10
n:
  <<: *base
  <<: *more
"""
    assert load_documents(raw)[0]["m"] == {"x": 10, "y": 2, "z": 4}  # explicit beats merged
    assert load_documents(raw)[0]["n"] == {"x": 1, "y": 3, "z": 4}


# ---------------------------------------------------------------------------------- interface


def test_a_yaml_stream_is_read_with_this_loader():
    request = read_yaml_stream(manifest_stream(3)).request
    assert [runtime["kind"] for runtime in request["runtimes"]] == [
        runtime["kind"] for runtime in manifests.rank_request_body(3)["runtimes"]
    ]


OME_RUNTIME_LINES = b"""\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: srt-x
spec:
  engineConfig:
    runner:
      env:
        - name: ISVC
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['ome.io/inferenceservice']
      args:
        - "{% if messages[0]['role'] == 'system' %}{{ x }}{% endif %}"
        - "{% if message['role'] != 'user' %}{{ raise_exception('x') }}{% endif %}"
        - '--compilation-config={"mode":"FULL","custom_ops":["all"]}'
# adding this for the sake of completeness \\_(\xe3\x83\x84)_/\xc2\xaf
      resources:
        limits:
          nvidia.com/gpu: 8
      ratio: 0.9
      ratios:
        - 0.5
        - 1e3
"""


def test_the_quirks_of_ome_s_own_runtimes_take_the_fast_path():
    """Brackets and braces inside quoted scalars, a quote inside a plain scalar, `!=` inside a
    quoted template, an escape's text in a comment: OME's shipped runtimes are full of them and
    must not fall back, neither alone nor in a stream of many."""
    for raw in (OME_RUNTIME_LINES, b"---\n".join([OME_RUNTIME_LINES] * 50)):
        fast = assert_fast_path_agrees(raw)
        assert fast is not None
    engine = fast[0]["spec"]["engineConfig"]["runner"]
    assert engine["ratio"] == 0.9  # YAML 1.1 reads the floats, `1e3` is a string
    assert engine["ratios"] == [0.5, "1e3"]


@pytest.mark.parametrize(
    "raw",
    [
        b"# \\_ \\L \\N \\P\na: 1\n",
        b"a: x\\_y\n",  # plain: the backslash is text
        b"a: 'x\\_y'\n",  # single-quoted: the same
        b"a: |\n  x\\Ly\n",
    ],
)
def test_escapes_outside_double_quoted_scalars_stay_on_the_fast_path(raw):
    assert assert_fast_path_agrees(raw) is not None


@pytest.mark.parametrize(
    "raw",
    [b'# \\_\na: "x\\_y"\n', b'a: "\\N"  # \\_\n', b'"\\L": 1\n', b"b: \xc2\xa0\na: '\\_'\n"],
)
def test_an_escape_a_double_quoted_scalar_uses_still_falls_back(raw):
    """Only ryml's output tells where an escape was read (a comment beside it changes nothing);
    a no-break space written as it is, beside the escape's text, falls back too (harmless)."""
    assert ryml_reader.fast_documents(raw) is None
    assert same(load_documents(raw), pyyaml(raw))


OME_CONFIG = os.environ.get("OME_CONFIG_DIR")


@pytest.mark.skipif(not OME_CONFIG, reason="OME_CONFIG_DIR names no OME checkout's config/")
def test_ome_s_shipped_runtimes_take_the_fast_path_with_the_same_values():
    """OME_CONFIG_DIR=/path/to/ome/config: every shipped runtime file, and all in one stream."""
    files = sorted(Path(OME_CONFIG, "runtimes").rglob("*.yaml"))
    files = [path for path in files if path.name != "kustomization.yaml"]
    assert files
    for path in files:
        assert assert_fast_path_agrees(path.read_bytes()) is not None, path
    stream = b"".join(b"\n---\n" + path.read_bytes() for path in files)
    assert assert_fast_path_agrees(stream) is not None


@pytest.mark.parametrize("text", [b"a: 'x']\n", b'a: "x"}\n', b"- 'x']\n", b"a: ['b']]\n"])
def test_a_quoted_token_followed_by_a_bracket_still_falls_back(text):
    assert ryml_reader._unsure(text)


@pytest.mark.parametrize("text", [b"a: [b, 'c']\n", b'a: {b: "c"}\n', b"- ['x', \"y\"]\n"])
def test_a_quoted_token_that_ends_a_flow_collection_of_words_does_not(text):
    assert not ryml_reader._unsure(text)
    assert assert_fast_path_agrees(text) is not None


# Text of the bytes the token patterns decide on, in runs long enough to pass _PROBES.
TOKEN_BYTES = st.text(alphabet="\"'\\\n ,:?-[]{}|>@`%!&*19ab", max_size=60).map(str.encode)
TOKEN_TEXTS = st.one_of(
    TOKEN_BYTES,
    st.tuples(TOKEN_BYTES, st.integers(1, 3 * ryml_reader._PROBES)).map(lambda t: t[0] * t[1]),
)
# The loops the unrolled patterns stand for, each a plain alternation per character.
QUOTED_LOOPS = [
    (rb'"(?<![^\s,\[{-]")(?:[^"\\\n]|\\.)*"', ryml_reader._QUOTED_TOKENS[0][0]),
    (rb"'(?<![^\s,\[{-]')(?:[^'\n]|'')*'", ryml_reader._QUOTED_TOKENS[1][0]),
    (rb'"(?<![^\s,:?-]")(?:[^"\\\n]|\\.)*"[\]}]', dict(ryml_reader._UNSURE)[b'"']),
]


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(TOKEN_TEXTS)
def test_the_unrolled_quoted_token_patterns_match_what_their_loops_match(text):
    for loop, unrolled in QUOTED_LOOPS:
        expected = [match.span() for match in re.finditer(loop, text)]
        assert [match.span() for match in unrolled.finditer(text)] == expected, loop


@pytest.mark.parametrize(
    "text", [b"\"a\\\"b\" 'c''d' 'e''\n", b"'x'''\n", b"'' '''' 'a''", b'"\\\n" "\\\\"]']
)
def test_the_unrolled_quoted_token_patterns_on_escapes_and_doubled_quotes(text):
    for loop, unrolled in QUOTED_LOOPS:
        assert [m.span() for m in unrolled.finditer(text)] == [
            m.span() for m in re.finditer(loop, text)
        ]


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(TOKEN_TEXTS)
def test_the_token_checks_find_what_a_search_finds(text):
    """``_matches`` tries the first places a pattern's byte stands, then searches the rest."""
    for char, pattern in [*ryml_reader._UNSURE, *ryml_reader._NODE_PROPERTIES]:
        assert ryml_reader._matches(char, pattern, text) == bool(pattern.search(text)), pattern


# Lines of the constructs the emptying empties (quoted scalars, flow collections of words) and of
# the bytes the token patterns decide on, with the line breaks the lines are cut at.
LINE_FRAGMENTS = [
    "- ", "a: ", "--- ", "[a, b]", "{a: 1}", "[x, [1, 2]]", "[]", "'x'", '"y"', "'a''b'",
    '"q\\"r"', "]", "}", "[", "{", "'", '"', "%", "!", "&", "*", "@", "`", "?", "|2", ">-1",
    "\n", "\r", "\r\n", " ", ",", ":", "#", "b",
]  # fmt: skip
LINE_SOUP = st.lists(st.sampled_from(LINE_FRAGMENTS), max_size=40).map("".join).map(str.encode)


def found_on_the_whole_body(raw: bytes, patterns) -> bool:
    if not any(pattern.search(raw) for _, pattern in patterns):
        return False
    emptied = ryml_reader._without_flow_lines(ryml_reader._without_quoted_tokens(raw))
    return any(pattern.search(emptied) for _, pattern in patterns)


@settings(max_examples=5 * settings.default.max_examples, deadline=None)
@given(st.one_of(TOKEN_TEXTS, LINE_SOUP))
def test_lines_emptied_one_by_one_find_what_the_whole_body_emptied_finds(text):
    checks = [ryml_reader._UNSURE, ryml_reader._NODE_PROPERTIES]
    expected = [found_on_the_whole_body(text, patterns) for patterns in checks]
    by_lines = ryml_reader._Scanned(text)  # one after the other, as _read asks them
    assert [by_lines.found(patterns) for patterns in checks] == expected
    whole = ryml_reader._Scanned(text)
    whole._line_budget = 0  # the first line past the budget: the whole body emptied
    assert [whole.found(patterns) for patterns in checks] == expected


@pytest.mark.parametrize(
    "text",
    [b"a: ['x', b]\n", b"- ['x']\n", b"a: {'x'}\n", b'a: ["x"}\n', b"a: [b, c]\nd: 'e' ]\n"],
)
def test_a_quoted_scalar_before_a_bracket_is_looked_for_on_the_lines_with_the_bracket(text):
    expected = found_on_the_whole_body(text, ryml_reader._UNSURE)
    assert ryml_reader._Scanned(text).found(ryml_reader._UNSURE) == expected


def test_a_body_with_many_lines_to_look_at_is_emptied_whole():
    lines = ryml_reader._LINES + 1  # more than its budget: a short body
    scanned = ryml_reader._Scanned(b"a: [x, y]\n" * lines + b"b: ]\n")
    assert scanned.found(ryml_reader._UNSURE)
    assert scanned._emptied is not None
    few = ryml_reader._Scanned(b"a: [x, y]\n" * (lines - 2) + b"b: ]\n")
    assert few.found(ryml_reader._UNSURE)
    assert few._emptied is None


@pytest.mark.parametrize("before", [0, 1, 15, 16, 17, 40])
@pytest.mark.parametrize("gap", [0, 2000])  # dense: the engine scans the rest; sparse: tries
def test_a_token_past_the_probes_is_still_found(before, gap):
    filler = b"x" * gap
    text = (filler + b"a]") * before + filler + b" ]"  # `]` after `a` is no token
    assert ryml_reader._matches(b"]", dict(ryml_reader._UNSURE)[b"]"], text)
    assert not ryml_reader._matches(b"]", dict(ryml_reader._UNSURE)[b"]"], text[:-2])


@pytest.mark.parametrize("tries", [15, 16, 17])
def test_a_token_right_after_the_last_try_is_found(tries):
    # `|` then a digit is a token check (a block scalar's indentation indicator): the `|` that
    # begins it stands right after the last place tried one by one.
    text = b"|x" * tries + b"||1"
    pattern = dict(ryml_reader._UNSURE)[b"|"]
    assert ryml_reader._matches(b"|", pattern, text) == bool(pattern.search(text)) is True


@pytest.mark.parametrize("raw", [b"...\na: 1\n", b"a: 1\r...\rb: 2\r", b"a: 1\n...\nb: 2\n"])
def test_a_document_end_anywhere_a_line_starts_goes_to_the_pyyaml_path(raw):
    assert ryml_reader._unsure(raw)
    assert_loads_as_pyyaml(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"- 1e3\n",  # a whole stream of one document that is a sequence
        b"a:\n- 1\n- 1e3\n",  # after a comma in orjson's JSON
        b"a:\n  - 1.5\n",  # first: after `[`
        b"a: [1, 2]\nb:\n  - x\n  - - -1.5E3\n",
        b"a: 1\n---\n- .5\n",
        b"a: 'x,1.5'\nb: '[2.5'\n",  # in strings: the detour, the same values
        b"a: 'k\": 1.5'\n",
        b"1.5\n",
        b"--- 1e3\n",
    ],
)
def test_floats_in_sequences_read_as_the_pyyaml_path_reads_them(raw):
    assert same(load_documents(raw), pyyaml(raw))
    fast = ryml_reader.fast_documents(raw)
    assert fast is None or same(fast, pyyaml(raw))


@pytest.mark.parametrize(
    "raw",
    [
        b"a: 18446744073709551616\n",  # 2**64: orjson reads a float
        b"a: 18446744073709551615\n",  # 2**64 - 1: orjson reads it exactly
        b"- 1\n- -9223372036854775809\n",  # below -2**63, an item after a comma
        b"a:\n- 100000000000000000000000000000\n",  # the first item, after `[`
        b"18446744073709551616\n",  # a whole document
        b"--- 1\n--- 123456789012345678901234567890\n",
    ],
)
def test_integers_past_64_bits_are_read_exactly_on_the_fast_path(raw):
    # orjson reads them as floats: found as floats in its compact JSON, read by the stdlib.
    fast = ryml_reader.fast_documents(raw)
    assert fast is not None
    assert same(fast, pyyaml(raw))
    assert same(load_documents(raw), pyyaml(raw))
