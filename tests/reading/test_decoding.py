"""Request-body decoding: JSON objects and kubectl-style YAML streams, and their bounds.

Depth, as in app/reading/decoding.py: every object/mapping or array/sequence is one level deeper
than the collection holding it; the top-level object is depth 1; scalars add nothing. So
``{"kind": "BaseModel", "d": [[]]}`` has depth 3, and YAML aliases count as if expanded.
"""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from app.reading.decoding import MAX_DEPTH, MalformedRequest, decode_json_body, json_depth
from app.reading.manifests import ModelNotInStream, read_yaml_stream
from app.reading.sizing import json_marks
from app.reading.yaml_bounds import MAX_ALIASES, MAX_NODES


def decode_yaml_body(raw: bytes) -> dict:
    """A YAML body as the views read it: the request its manifest stream makes."""
    return read_yaml_stream(raw).request


MODEL = "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: llama}\n"
ISVC = "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: chat}\n"


def runtime(name: str, kind: str = "ClusterServingRuntime") -> str:
    return f"apiVersion: ome.io/v1beta1\nkind: {kind}\nmetadata: {{name: {name}}}\n"


def stream(*documents: str) -> bytes:
    return "---\n".join(documents).encode()


def malformed(decode, raw: bytes, *fragments: str) -> str:
    """Assert that decoding fails with MalformedRequest whose message holds every fragment."""
    with pytest.raises(MalformedRequest) as info:
        decode(raw)
    message = str(info.value)
    assert message == info.value.message
    for fragment in fragments:
        assert fragment in message
    assert "Traceback" not in message and "\n" not in message
    return message


def nested(depth: int) -> str:
    """Flow YAML (and JSON) of the given depth: an object holding depth-1 nested arrays."""
    return '{"kind": "BaseModel", "d": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


def tree_depth(value: object) -> int:
    """Reference depth, by walking the decoded value."""
    if isinstance(value, dict):
        return 1 + max(map(tree_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(tree_depth, value), default=0)
    return 0


# ---------------------------------------------------------------------------------------- JSON


def test_json_object_is_returned_and_a_bom_is_tolerated():
    body = {"model": {"kind": "BaseModel"}, "runtimes": [], "namespace": "ns"}
    raw = json.dumps(body).encode()
    assert decode_json_body(raw) == body
    assert decode_json_body(b"\xef\xbb\xbf" + raw) == body


def test_json_duplicate_keys_last_wins():
    assert decode_json_body(b'{"a": 1, "a": 2}') == {"a": 2}


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        (b'"x"', "string"),
        (b"1.5", "number"),
        (b"true", "boolean"),
        (b"null", "null"),
    ],
)
def test_json_top_level_must_be_an_object_or_array(raw, name):
    malformed(decode_json_body, raw, f"must be a JSON object or array, got {name}")


def test_json_array_is_decoded_for_the_manifest_reader():
    assert decode_json_body(b'[{"kind": "BaseModel"}]') == [{"kind": "BaseModel"}]


def test_json_syntax_error_names_line_and_column():
    malformed(decode_json_body, b'{\n  "a": 1,\n  "b" 2}', "not valid JSON", "line 3 column 7")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_non_standard_constants_are_rejected(constant):
    malformed(decode_json_body, f'{{"a": [1, {constant}]}}'.encode(), constant)


@pytest.mark.parametrize("raw", [b'{"a": "\xff"}', '{"a": 1}'.encode("utf-16")])
def test_json_must_be_utf8(raw):
    malformed(decode_json_body, raw, "not valid UTF-8")


def test_json_integer_longer_than_pythons_digit_limit_is_malformed():
    malformed(decode_json_body, b'{"a": ' + b"9" * 5000 + b"}", "integer is too long")


def testjson_depth_200_is_accepted_and_201_rejected():
    assert tree_depth(decode_json_body(nested(MAX_DEPTH).encode())) == MAX_DEPTH
    malformed(decode_json_body, nested(MAX_DEPTH + 1).encode(), "nested deeper than 200 levels")


def test_json_brackets_inside_strings_do_not_count_towards_depth():
    tricky = ["[[[{", '\\"]]{', "\\\\", '\\\\"[', "]]]"] * 50
    body = json.loads(nested(MAX_DEPTH))
    body["strings"] = tricky
    body["last-applied"] = json.dumps(body)  # escaped JSON, as kubectl annotations hold
    assert decode_json_body(json.dumps(body).encode()) == body


def test_json_closing_brackets_inside_strings_cannot_hide_depth():
    """Counted as brackets, these strings would take the depth back below the bound."""
    body = '{"s": ["]]]]]]", "}}}}"], "d": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    malformed(decode_json_body, body.encode(), "nested deeper than 200 levels")
    assert json_depth(body.replace('"]]]]]]", "}}}}"', '""').encode()) == MAX_DEPTH + 1


@pytest.mark.parametrize(
    "raw",
    [b"[" * 100_000, b'{"a": ' * 100_000, b"[" * 100_000 + b"]" * 100_000],
    ids=["unclosed-arrays", "unclosed-objects", "closed-arrays"],
)
def test_json_pathological_nesting_is_malformed_not_a_crash(raw):
    malformed(decode_json_body, raw, "nested deeper than 200 levels")


PADDING = "x" * 65_536
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet='[]{}"\\\\ab/é\n\u2028'),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(alphabet='[]{}"\\\\a', max_size=4), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(json_values, st.booleans(), st.sampled_from([None, 1]), st.booleans())
def test_json_byte_scan_depth_matches_the_decoded_tree(value, ensure_ascii, indent, padded):
    raw = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode()
    assert json_depth(raw) == json_depth(raw, json_marks(raw)) == tree_depth(value)
    if padded:  # escapes sparse in a long body: taken out by the other way
        value = [PADDING, value]
        raw = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent).encode()
        assert json_depth(raw) == json_depth(raw, json_marks(raw)) == tree_depth(value)
    assert decode_json_body(json.dumps({"v": value}).encode()) == {"v": value}


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(st.one_of(st.binary(), st.text().map(str.encode)))
def test_json_fuzz_returns_a_dict_or_raises_malformed(raw):
    try:
        assert isinstance(decode_json_body(raw), dict | list)
    except MalformedRequest as exc:
        assert exc.message


def same_json(a: object, b: object) -> bool:
    """Equal with the same types all the way down (1 is not 1.0 nor True), keys in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same_json, a, b))
    return repr(a) == repr(b)


def refused_constant(name: str) -> object:
    raise ValueError(name)


def stdlib_decoded(raw: bytes) -> object:
    """What decode_json_body gave before orjson read bodies: the stdlib's value, or REFUSED."""
    try:
        value = json.loads(
            raw.decode("utf-8").removeprefix("\ufeff"), parse_constant=refused_constant
        )
    except (ValueError, RecursionError):
        return "REFUSED"
    return value if isinstance(value, dict | list) and json_depth(raw) <= MAX_DEPTH else "REFUSED"


EDGE_NUMBERS = [
    "18446744073709551615", "18446744073709551616", "-9223372036854775809", "9" * 30,
    "1e400", "-1e400", "1e-400", "-0", "-0.0", "1E5", "0.1", "5e-324", "1.7976931348623157e308",
    "123456789012345678", "0.1234567890123456789", "1.0",
]  # fmt: skip


@pytest.mark.parametrize("number", EDGE_NUMBERS)
def test_json_numbers_read_as_the_stdlib_reads_them(number):
    """orjson reads an integer past 64 bits as a float: such bodies go to the stdlib."""
    raw = f'{{"n": {number}, "l": [{number}]}}'.encode()
    expected = stdlib_decoded(raw)
    if expected == "REFUSED":
        malformed(decode_json_body, raw, "not valid JSON")
    else:
        assert same_json(decode_json_body(raw), expected)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1, "b": 2, "a": 3}',
        b'\xef\xbb\xbf{"a": 1}',
        b'{"s": "\\ud800"}',  # a lone surrogate escape: the stdlib keeps it
        b'{"s": "\\u0000\\u2028\xc3\xa9"}',
        b" [ {} , [] ] ",
    ],
)
def test_json_bodies_orjson_refuses_or_reads_read_as_the_stdlib_reads_them(raw):
    assert same_json(decode_json_body(raw), stdlib_decoded(raw))


@settings(max_examples=3 * settings.default.max_examples, deadline=None)
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.integers(min_value=2**60, max_value=2**70)
        | st.floats(allow_nan=False)
        | st.text(alphabet='ab"\\é\u2028\x00\U0001f600'),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.sampled_from(["a", "b", "é", ""]), children, max_size=4)
        ),
        max_leaves=30,
    ),
    st.booleans(),
)
def test_json_bodies_decode_exactly_as_the_stdlib_decodes_them(value, ensure_ascii):
    raw = json.dumps({"v": value}, ensure_ascii=ensure_ascii).encode()
    expected = stdlib_decoded(raw)
    if expected == "REFUSED":  # Infinity
        malformed(decode_json_body, raw, "not a JSON value")
    else:
        assert same_json(decode_json_body(raw), expected)


# ---------------------------------------------------------------------------------------- YAML


def test_yaml_stream_gives_model_runtimes_in_order_and_the_inference_service():
    raw = stream(runtime("b", "ServingRuntime"), MODEL, runtime("a"), ISVC, runtime("c"))
    request = decode_yaml_body(raw)
    assert request["model"]["kind"] == "ClusterBaseModel"
    assert [doc["metadata"]["name"] for doc in request["runtimes"]] == ["b", "a", "c"]
    assert request["inferenceService"]["metadata"] == {"name": "chat"}
    assert json.loads(json.dumps(request)) == request


def test_yaml_without_inference_service_has_no_such_key():
    assert decode_yaml_body(stream(MODEL)) == {"model": yaml.safe_load(MODEL), "runtimes": []}


def test_yaml_scalars_resolve_as_safe_loader_does_except_timestamps():
    doc = MODEL + "spec: {a: yes, b: 0x1F, c: 1_000, d: ~, e: 1:30, f: '07', g: 1e3, h: .inf}\n"
    assert decode_yaml_body(doc.encode())["model"] == yaml.safe_load(doc)
    doc = MODEL + "version: 2024-01-01\nat: 2024-01-01T10:00:00Z\nx: !!timestamp 2001-12-14\n"
    model = decode_yaml_body(doc.encode())["model"]
    assert model["version"] == "2024-01-01" and model["at"] == "2024-01-01T10:00:00Z"
    assert model["x"] == "2001-12-14"


def test_yaml_duplicate_keys_are_refused_with_the_key_and_its_line():
    message = malformed(decode_yaml_body, (MODEL + "x: 1\nx: 2\n").encode(), 'key "x"')
    assert "appears twice in one mapping" in message
    assert f"line {MODEL.count(chr(10)) + 2}" in message


def test_yaml_scalar_keys_become_their_json_spelling():
    # `1` and `true` stay apart although 1 == True in Python; `'1'` then overrides `1`.
    doc = MODEL + "m: {1: a, true: b, null: c, 1.5: d, '1': e}\n"
    keys = decode_yaml_body(doc.encode())["model"]["m"]
    assert keys == {"1": "e", "true": "b", "null": "c", "1.5": "d"}


@pytest.mark.parametrize("key", ["? [a, b]\n: x\n", "? {a: b}\n: x\n", "[a]: x\n"])
def test_yaml_collection_keys_are_malformed(key):
    malformed(decode_yaml_body, (MODEL + key).encode(), "not valid YAML")


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['echo hi']",
        "!!python/name:os.system",
        "!!python/tuple [1, 2]",
        "!!binary aGVsbG8=",
        "!!set {a, b}",
        "!!omap [a: 1]",
        "!custom x",
    ],
)
def test_yaml_tags_that_do_not_give_json_are_malformed(value):
    malformed(decode_yaml_body, (MODEL + f"x: {value}\n").encode(), "not valid YAML", "line 4")


def test_yaml_merge_keys_work():
    doc = MODEL + "base: &b {x: 1, y: 2}\nspec: {<<: *b, y: 3}\n"
    assert decode_yaml_body(doc.encode())["model"]["spec"] == {"x": 1, "y": 3}


@pytest.mark.parametrize(
    ("raw", "fragments"),
    [
        (b"kind: BaseModel\nx: [a, b\n", ("not valid YAML", "line 3, column 1")),
        (b"kind: BaseModel\n\tx: 1\n", ("not valid YAML", "line 2, column 1")),
        (b"kind: BaseModel\nx: *nowhere\n", ("undefined alias", "line 2, column 4")),
        (b"a: &x 1\nb: &x 2\n", ("duplicate anchor", "line 1", "line 2")),
        (b"kind: BaseModel\nx: &a [1, *a]\n", ("recursive alias",)),
        (b"kind: BaseModel\nx: \x00\n", ("not valid YAML",)),
    ],
)
def test_yaml_syntax_errors_are_malformed_with_a_position(raw, fragments):
    message = malformed(decode_yaml_body, raw, *fragments)
    assert "^" not in message  # no source snippet from the body


@pytest.mark.parametrize(
    "raw", [b"kind: BaseModel\nx: \xff\n", "kind: BaseModel\n".encode("utf-16"), b"\xc3("]
)
def test_yaml_must_be_utf8(raw):
    malformed(decode_yaml_body, raw, "not valid UTF-8")


def test_yaml_null_and_empty_documents_are_skipped_but_numbered():
    assert decode_yaml_body(b"---\n---\nnull\n---\n" + MODEL.encode() + b"---\n")["model"]["kind"]
    malformed(decode_yaml_body, b"---\n---\n~\n---\n- a\n", "document 3 is a sequence, not a")
    malformed(decode_yaml_body, stream(MODEL, "just text\n"), "document 2 is a scalar")


def test_yaml_lists_are_flattened_recursively_in_order():
    inner = {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(runtime("b"))]}
    outer = {"kind": "List", "items": [yaml.safe_load(runtime("a")), inner, yaml.safe_load(MODEL)]}
    raw = stream(yaml.safe_dump(outer), "kind: List\n", runtime("c"))
    request = decode_yaml_body(raw)
    assert [doc["metadata"]["name"] for doc in request["runtimes"]] == ["a", "b", "c"]
    assert request["model"]["kind"] == "ClusterBaseModel"


@pytest.mark.parametrize(
    ("document", "fragments"),
    [
        ("apiVersion: v2\nkind: List\nitems: []\n", ("document 2 is a List of apiVersion v2",)),
        ("kind: List\nitems: {a: 1}\n", ("document 2 is a List whose items",)),
        (
            "kind: List\nitems: [{kind: List, items: [{}, 3]}]\n",
            ("document 2 items[0] items[1] is a scalar",),
        ),
        ("kind: List\nitems: [null, true]\n", ("document 2 items[1] is a scalar",)),
    ],
)
def test_yaml_malformed_lists(document, fragments):
    malformed(decode_yaml_body, stream(MODEL, document), *fragments)


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ("apiVersion: v1\nmetadata: {name: x}\n", "kind not set"),
        ("apiVersion: v1\nkind: ''\nmetadata: {name: x}\n", "kind not set"),
        ("metadata: {name: x}\n", "[apiVersion not set, kind not set]"),
        ("apiVersion: v1\nkind: [ServingRuntime]\nmetadata: {name: x}\n", "kind isn't string type"),
        ("apiVersion: v1\nkind: {a: 1}\nmetadata: {name: x}\n", "kind isn't string type"),
        (
            "apiVersion: 7\nkind: 7\nmetadata: {name: x}\n",
            "[apiVersion isn't string type, kind isn't string type]",
        ),
    ],
)
def test_yaml_objects_without_a_string_kind_are_skipped_in_kubectls_words(document, reason):
    read = read_yaml_stream(stream(MODEL, document, runtime("a")))
    assert [doc["metadata"]["name"] for doc in read.request["runtimes"]] == ["a"]
    assert [(o.kind, o.name, o.reason) for o in read.others] == [(None, "x", reason)]


def test_yaml_other_kinds_are_skipped_and_reported():
    deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
    read = read_yaml_stream(stream(MODEL, deployment, runtime("a")))
    assert [doc["metadata"]["name"] for doc in read.request["runtimes"]] == ["a"]
    assert [(o.kind, o.name, o.namespace) for o in read.others] == [("Deployment", "web", "ns")]


@pytest.mark.parametrize(
    ("documents", "fragment"),
    [
        ((runtime("a"),), "exactly one BaseModel or ClusterBaseModel, found 0"),
        ((), "found 0"),
        ((MODEL, "kind: BaseModel\n"), "exactly one BaseModel or ClusterBaseModel, found 2"),
        ((MODEL, ISVC, ISVC.replace("chat", "other")), "at most one InferenceService, found 2"),
    ],
)
def test_yaml_model_and_inference_service_counts(documents, fragment):
    malformed(decode_yaml_body, stream(*documents), fragment)


# ------------------------------------------------------------------------------ YAML bounds


def billion_laughs(levels: int = 9) -> bytes:
    lines = ['kind: BaseModel\nl0: &l0 "lol"']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines).encode()


def test_yaml_billion_laughs_is_rejected():
    assert len(billion_laughs()) < 1_000
    malformed(decode_yaml_body, billion_laughs(), f"expand to more than {MAX_NODES} nodes")


def test_yaml_alias_uses_are_bounded_at_1000():
    def doc(aliases: int) -> bytes:
        return ("kind: BaseModel\na: &x 1\nb: [" + ", ".join(["*x"] * aliases) + "]\n").encode()

    assert len(decode_yaml_body(doc(MAX_ALIASES))["model"]["b"]) == MAX_ALIASES
    malformed(decode_yaml_body, doc(MAX_ALIASES + 1), "more than 1000 aliases")


def test_yaml_node_count_is_exact_with_aliases_expanded():
    # Nodes: mapping 1 + `kind: BaseModel` 2 + key a, seq, n scalars + key b, seq, m aliases of
    # n + 1 nodes each + key c, seq, k scalars = 9 + n + k + m * (n + 1).
    n, m = 999, 998

    def doc(k: int) -> bytes:
        a = "[" + ", ".join(["0"] * n) + "]"
        b = "[" + ", ".join(["*x"] * m) + "]"
        c = "[" + ", ".join(["0"] * k) + "]"
        return f"kind: BaseModel\na: &x {a}\nb: {b}\nc: {c}\n".encode()

    k = MAX_NODES - (9 + n + m * (n + 1))
    assert len(decode_yaml_body(doc(k))["model"]["c"]) == k
    malformed(decode_yaml_body, doc(k + 1), "more than 1000000 nodes")


def test_yaml_depth_200_is_accepted_and_201_rejected():
    assert tree_depth(decode_yaml_body(nested(MAX_DEPTH).encode())["model"]) == MAX_DEPTH
    malformed(decode_yaml_body, nested(MAX_DEPTH + 1).encode(), "nested deeper than 200 levels")


def test_yaml_depth_counts_aliases_expanded_where_used():
    deep = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)  # reaches depth 200 where anchored
    assert decode_yaml_body(f"kind: BaseModel\na: &x {deep}\nb: *x\n".encode())
    malformed(
        decode_yaml_body,
        f"kind: BaseModel\na: &x {deep}\nb: [*x]\n".encode(),
        "nested deeper than 200 levels",
    )


def test_yaml_depth_of_list_items_counts_before_flattening():
    # List mapping 1, items 2, the item mapping 3: the item's own depth budget is 198.
    item = '{"kind": "BaseModel", "d": ' + "[" * 197 + "]" * 197 + "}"
    assert decode_yaml_body(f"kind: List\nitems: [{item}]\n".encode())["model"]["kind"]
    item = '{"kind": "BaseModel", "d": ' + "[" * 198 + "]" * 198 + "}"
    malformed(decode_yaml_body, f"kind: List\nitems: [{item}]\n".encode(), "deeper than 200")


@pytest.mark.parametrize(
    "raw",
    [b"[" * 100_000, b"- " * 50_000 + b"x", b"{a: " * 100_000],
    ids=["flow-sequences", "block-sequences", "flow-mappings"],
)
def test_yaml_pathological_nesting_is_malformed_not_a_crash(raw):
    malformed(decode_yaml_body, raw, "nested deeper than 200 levels")


@pytest.mark.parametrize(
    "value",
    ["1" + ":0" * 3_000, "0x" + "f" * 4_000, "9" * 5_000, "0b_", "0x_"],
    ids=["sexagesimal", "hex", "decimal", "0b_", "0x_"],
)
def test_yaml_bad_or_huge_numbers_are_malformed(value):
    malformed(decode_yaml_body, (MODEL + f"x: {value}\n").encode(), "malformed or too long number")


@pytest.mark.parametrize("value", ["!!int abc", "!!float abc", "!!bool maybe", "!!map x"])
def test_yaml_explicit_tags_that_do_not_fit_the_value_are_malformed(value):
    # `!!bool maybe` makes PyYAML raise a bare KeyError: it must still come out as a 400.
    malformed(decode_yaml_body, (MODEL + f"x: {value}\n").encode(), "YAML")


def test_yaml_a_mapping_tag_on_a_scalar_names_the_problem():
    malformed(decode_yaml_body, (MODEL + "x: !!map x\n").encode(), "expected a mapping", "line 4")


def test_yaml_big_numbers_within_limits_stay_json_serialisable():
    # YAML 1.1 floats need a dot and a signed exponent: `1e99999` is the string "1e99999".
    doc = MODEL + "a: 0b" + "1" * 4_000 + "\nb: 1.0e+99999\nc: .nan\nd: 1e99999\n"
    model = decode_yaml_body(doc.encode())["model"]
    assert model["a"] == 2**4_000 - 1
    assert (model["b"], model["d"]) == (float("inf"), "1e99999")
    json.dumps(model)


def test_yaml_a_large_stream_loads_like_safe_load_all():
    docs = [MODEL] + [
        runtime(f"rt-{i}") + "spec: {args: [--port=8080], priority: 1}\n" for i in range(300)
    ]
    request = decode_yaml_body(stream(*docs))
    assert request["runtimes"] == list(yaml.safe_load_all(stream(*docs[1:])))


# ---------------------------------------------------------------------------------------- fuzz

# fmt: off
YAML_FRAGMENTS = [
    "kind: ", "BaseModel", "ServingRuntime", "InferenceService", "List", "items:", "apiVersion: v1",
    "\n", "  ", "- ", "---\n", "...\n", "%YAML 1.1\n", "[", "]", "{", "}", ", ", ": ", "? ", "#",
    "|\n", "\t", "\ufeff", "&a ", "*a", "&b ", "*b", "<<: ", "!!python/object:os.system ",
    "!!binary ", "!!set ", "!!timestamp ", "2024-01-01", "0x_", "1:0", ".nan", "~", "'q'",
    '"\\u0000"',
]
# fmt: on


def _check_yaml(raw: bytes) -> None:
    """decode_yaml_body returns a JSON-serialisable request dict or raises MalformedRequest (or
    OME's model-lookup failure, for a stream whose only object is an InferenceService)."""
    try:
        request = decode_yaml_body(raw)
    except (MalformedRequest, ModelNotInStream) as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    assert set(request) in ({"model", "runtimes"}, {"model", "runtimes", "inferenceService"})
    json.dumps(request)


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(st.one_of(st.binary(), st.text().map(str.encode)))
def test_yaml_fuzz_arbitrary_bytes_and_text(raw):
    _check_yaml(raw)


@settings(max_examples=4 * settings.default.max_examples, deadline=None)
@given(st.lists(st.sampled_from(YAML_FRAGMENTS), max_size=40).map("".join))
def test_yaml_fuzz_yaml_like_text(text):
    _check_yaml(text.encode())
    _check_yaml(("kind: BaseModel\nx: " + text).encode())


@pytest.mark.scale
def test_yaml_node_budget_is_per_stream_as_well_as_per_document():
    half = MAX_NODES // 2 + 10  # two documents together exceed MAX_NODES, each stays below

    def runtime(name: str, scalars: int) -> str:
        items = ", ".join(["0"] * scalars)
        return f"kind: ServingRuntime\nmetadata: {{name: {name}}}\nx: [{items}]\n"

    one = "kind: BaseModel\n---\n" + runtime("a", half)
    assert len(decode_yaml_body(one.encode())["runtimes"]) == 1
    stream = one + "---\n" + runtime("b", half)
    malformed(decode_yaml_body, stream.encode(), "nodes")

    # Each document's aliases stay far below the per-document bound, but together they
    # would expand past it: refused.
    anchored = "[" + ", ".join(["0"] * 2_000) + "]"
    bomb = "kind: ServingRuntime\na: &x " + anchored + "\nb: [" + ", ".join(["*x"] * 300) + "]\n"
    stream = "kind: BaseModel\n" + "".join(f"---\n{bomb}" for _ in range(3))
    malformed(decode_yaml_body, stream.encode(), f"aliases expand to more than {MAX_NODES} nodes")
