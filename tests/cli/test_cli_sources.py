"""Reading manifests as ``kubectl apply -f`` does, each object with the line it starts on."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from app.cli.sources import (
    STDIN_NAME,
    SourceError,
    files_of,
    parse,
    read_manifests,
    unread_subdirectories,
)
from tests.cli.support import SEED, invoke, line_of


def origins(manifests) -> list[tuple[str, str, str]]:
    return [(m.kind, m.name, m.origin) for m in manifests]


def test_seed_objects_start_where_their_documents_and_list_items_do():
    found = parse(SEED.read_bytes(), "seed.yaml")
    assert [(kind, name) for kind, name, _ in origins(found)] == [
        ("BaseModel", "llama-3-2-3b-instruct"),
        ("ServingRuntime", "team-llama"),
        ("ClusterServingRuntime", "vllm-llama"),
        ("ClusterServingRuntime", "srt-llama-small"),
        ("ClusterServingRuntime", "srt-llama-large"),
    ]
    text = SEED.read_text().splitlines()
    for manifest in found:
        line = int(manifest.origin.rpartition(":")[2])
        # the object's first key: apiVersion, at the document's start or after a List's "- "
        assert text[line - 1].lstrip(" -").startswith("apiVersion:"), manifest.origin
    assert found[0].origin == "seed.yaml:3"  # after the two comment lines


def test_values_are_the_services_own_yaml_values():
    raw = b"kind: BaseModel\nmetadata: {name: m}\nspec:\n  released: 2024-01-01\n  1: one\n"
    (manifest,) = parse(raw, "m.yaml")
    assert manifest.body["spec"] == {"released": "2024-01-01", "1": "one"}  # as the API reads


def test_a_json_array_of_manifests_gives_each_item_its_line():
    text = json.dumps([{"kind": "BaseModel", "metadata": {"name": "a"}}, {"kind": "X"}], indent=1)
    found = parse(text.encode(), "all.json")
    assert [m.origin for m in found] == ["all.json:2", "all.json:8"]  # each item's "{"


def test_json_keeps_the_last_of_a_repeated_key_as_the_api_does():
    (manifest,) = parse(b'{"kind": "X", "metadata": {"name": "a"}, "kind": "Y"}', "x.json")
    assert manifest.kind == "Y"


def test_an_object_without_a_kind_is_read_for_the_service_to_report():
    raw = b"kind: X\n---\nmetadata: {name: a}\n---\nkind: [Y]\nmetadata: {name: b}\n"
    assert origins(parse(raw, "f.yaml")) == [
        ("X", None, "f.yaml:1"),
        (None, "a", "f.yaml:3"),
        (None, "b", "f.yaml:5"),
    ]


def test_null_documents_and_empty_lists_are_skipped():
    raw = b"---\n---\nkind: List\napiVersion: v1\nitems: []\n---\nkind: X\n"
    assert origins(parse(raw, "f.yaml")) == [("X", None, "f.yaml:7")]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"kind: X\n---\n- a\n- b\n", "f.yaml:3: the document is a sequence, not a Kubernetes"),
        (b"apiVersion: v2\nkind: List\nitems: []\n", "f.yaml:1: a List must have apiVersion v1"),
        (b"kind: List\nitems:\n  - kind: X\n  - 3\n", "f.yaml:4: the document is a scalar"),
        (b"a: 1\n  b: 2\n", "f.yaml:2: not valid YAML: mapping values are not allowed"),
        (b"kind: X\nkind: Y\n", 'f.yaml:2: not valid YAML: key "kind" appears twice'),
        (b"kind: !!python/object:os.system x\n", "f.yaml:1: not valid YAML"),
    ],
)
def test_what_the_api_refuses_is_refused_with_file_and_line(raw, message):
    with pytest.raises(SourceError) as refused:
        parse(raw, "f.yaml")
    assert str(refused.value).startswith(message), str(refused.value)


def test_bad_json_in_a_json_file_names_its_line():
    with pytest.raises(SourceError, match=r"^bad\.json:3: not valid JSON"):
        parse(b'{\n "kind": "X",\n oops\n}', "bad.json")


def test_yaml_errors_leave_stderr_to_the_command(capfd):
    with pytest.raises(SourceError):
        parse(b"a: 1\n  b: 2\n", "f.yaml")  # rapidyaml prints its own error to fd 2
    assert capfd.readouterr().err == ""


def test_a_directory_gives_its_manifest_files_in_name_order_and_subdirectories_with_R(tree):
    top = [Path(path).relative_to(tree).as_posix() for path in files_of(str(tree), False)]
    assert top == ["app.yaml"]
    everything = [Path(path).relative_to(tree).as_posix() for path in files_of(str(tree), True)]
    assert everything == [
        "app.yaml",
        "runtimes/team.json",
        "runtimes/vllm.yaml",
        "runtimes/more/qwen.yml",
    ]


def test_a_file_is_read_whatever_its_name_and_a_missing_path_is_refused(tmp_path):
    manifest = tmp_path / "model.txt"
    manifest.write_text("kind: X\n")
    assert files_of(str(manifest), False) == [str(manifest)]
    with pytest.raises(SourceError, match=r'the path ".*nowhere" does not exist'):
        files_of(str(tmp_path / "nowhere"), False)


def test_stdin_is_read_once_and_named(tree):
    stdin = io.BytesIO(b"kind: X\nmetadata: {name: a}\n")
    found = read_manifests(("-", str(tree / "runtimes" / "vllm.yaml"), "-"), False, stdin)
    assert origins(found) == [
        ("X", "a", f"{STDIN_NAME}:1"),
        ("ClusterServingRuntime", "vllm", f"{tree / 'runtimes' / 'vllm.yaml'}:1"),
    ]


def test_tree_lines(tree):
    found = read_manifests((str(tree),), True, io.BytesIO())
    app = tree / "app.yaml"
    assert origins(found)[:3] == [
        ("Namespace", "demo", f"{app}:1"),
        ("BaseModel", "llama", f"{app}:{line_of(app, 'kind: BaseModel') - 1}"),
        ("InferenceService", "chat", f"{app}:{line_of(app, 'kind: InferenceService') - 1}"),
    ]
    qwen = tree / "runtimes" / "more" / "qwen.yml"
    item = line_of(qwen, "kind: ClusterServingRuntime") - 1  # the List item's "- apiVersion"
    assert origins(found)[-1] == ("ClusterServingRuntime", "sglang", f"{qwen}:{item}")


def test_unread_subdirectories_are_what_only_R_reads(tree):
    """Counted as -R would read them: manifest files at any depth; a README is not one."""
    (tree / "docs").mkdir()
    (tree / "docs" / "notes.md").write_text("not a manifest\n")
    (tree / "linked").symlink_to(tree / "runtimes")  # -R does not follow it either
    assert unread_subdirectories(str(tree)) == [(f"{tree / 'runtimes'}/", 3)]
    assert unread_subdirectories(str(tree / "app.yaml")) == []
    assert unread_subdirectories(str(tree / "runtimes" / "more")) == []


def unread_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "not read without -R" in line]


@pytest.mark.parametrize(
    "command",
    [
        ("rank", "--model", "llama", "-f", "{tree}"),
        ("select", "-f", "{tree}"),
        ("lint", "-f", "{tree}"),
        ("selections", "-f", "{tree}"),
        ("impact", "--current", "{tree}", "--proposed", "{tree}/app.yaml"),
        ("impact", "--current", "{tree}/app.yaml", "--proposed", "{tree}"),
        # Both sides the same directory, named two ways: one line.
        ("impact", "--current", "{tree}", "--proposed", "{tree}/"),
    ],
)
def test_every_command_names_the_subdirectories_it_did_not_read(tree, command):
    args = [arg.format(tree=tree) for arg in command]
    result = invoke(*args)
    assert unread_warnings(result.stderr) == [
        f"Warning: not read without -R: {tree / 'runtimes'}/ (3 files)"
    ]
    with_r = invoke(*args, "-R")
    assert unread_warnings(with_r.stderr) == []


def test_the_subdirectories_of_each_directory_given_are_named_once(tree):
    more = tree / "runtimes" / "more"
    result = invoke("lint", "-f", str(tree), "-f", str(tree / "runtimes"), "-f", str(tree))
    assert unread_warnings(result.stderr) == [
        f"Warning: not read without -R: {tree / 'runtimes'}/ (3 files)",
        f"Warning: not read without -R: {more}/ (1 file)",
    ]


DOCUMENT_PARTS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    "# a comment\n\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
    "  # an indented comment\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r\n",
    "{apiVersion: v1, kind: ConfigMap, metadata: {name: d}}\n",
    "--- # started\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: e}\n",
    "--- !!map\nkind: ConfigMap\nmetadata: {name: f}\n",
    "&anchor\nkind: ConfigMap\nmetadata: {name: g}\n",
    '"kind": ConfigMap\nmetadata: {name: h}\n',
    "kind: List\napiVersion: v1\nitems:\n- kind: ConfigMap\n  metadata: {name: i}\n",
    "# only a comment\n",
    "kind:\n  ConfigMap\nmetadata: {name: j}\n",
    "? kind\n: ConfigMap\nmetadata: {name: k}\n",
    "kind: ConfigMap\nmetadata: {name: l}\n...\n",
]


@pytest.mark.parametrize("separator", ["---\n", "--- \n", "---\n# between\n\n"])
@pytest.mark.parametrize("first", range(len(DOCUMENT_PARTS)))
def test_each_object_starts_where_pyyaml_composes_its_node(first, separator):
    """Documents that start plainly have their line without PyYAML's composer: it is the
    line the composed node gives, whatever comes before it (comments, a `---`, CRLF) and
    whatever the documents around it are; any other document is composed, as before."""
    raw = separator.join(
        [DOCUMENT_PARTS[first], *DOCUMENT_PARTS[:first], *DOCUMENT_PARTS[first + 1 :]]
    ).encode()
    found = parse(raw, "f.yaml")
    nodes = list(yaml.compose_all(raw, Loader=yaml.CSafeLoader))
    expected = []
    for node in nodes:
        if isinstance(node, yaml.MappingNode):
            kind = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}.get("kind")
            if isinstance(kind, yaml.ScalarNode) and kind.value == "List":
                items = {k.value: v for k, v in node.value}["items"].value
                expected += [f"f.yaml:{item.start_mark.line + 1}" for item in items]
                continue
            expected.append(f"f.yaml:{node.start_mark.line + 1}")
    assert [manifest.origin for manifest in found] == expected
