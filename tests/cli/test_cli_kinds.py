"""The command line past what kubectl would not map (rules §18, revision 3.1): ``lint`` reports
such an object at its ``file:line`` and goes on to the other files; ``rank`` and ``select`` say on
stderr which objects they did not read, and answer about the rest."""

from __future__ import annotations

import json

from tests.builders import entry, retyped, runtime_doc
from tests.cli.support import SEED, invoke, line_of, write_yaml

SEED_TABLE = (SEED.parent / "seed_example.txt").read_text()
SEED_MESSAGE = "Runtime team-llama will be auto-selected for model llama-3-2-3b-instruct"
TYPO = 'no matches for kind "ServingRuntme" in version "ome.io/v1beta1"'


def repository(tmp_path):
    """The seed example, a file without kind and one with a misspelt kind, in one directory."""
    root = tmp_path / "manifests"
    root.mkdir()
    (root / "a-seed.yaml").write_text(SEED.read_text())
    write_yaml(root / "b-bare.yaml", {"metadata": {"name": "bare"}})
    write_yaml(root / "c-typo.yaml", retyped(runtime_doc("typo"), kind="ServingRuntme"))
    return root


def test_lint_reports_them_and_goes_on_past_them(tmp_path):
    root = repository(tmp_path)
    write_yaml(root / "d-zero.yaml", runtime_doc("zero", entry(priority=0)))
    result = invoke("lint", "-R", "-f", str(root))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"{root / 'b-bare.yaml'}:1: error: [apiVersion not set, kind not set]"
    # the files after them are linted all the same (errors in the order of their kinds), each
    # at its field's line: the refused value, the kind no resource maps
    zero = line_of(root / "d-zero.yaml", "priority: 0")
    assert lines[1].startswith(
        f"{root / 'd-zero.yaml'}:{zero}: error: ClusterServingRuntime zero: "
    )
    typo = line_of(root / "c-typo.yaml", "kind: ServingRuntme")
    assert lines[2:] == [
        f"{root / 'c-typo.yaml'}:{typo}: error: ServingRuntme typo: {TYPO}",
        "3 errors, 0 warnings, 1 info",
    ]
    assert result.stderr == "error: the manifests would not be admitted\n"


def test_lint_refuses_an_object_without_api_version(tmp_path):
    plain = retyped(runtime_doc("plain"), api_version=None)
    path = write_yaml(tmp_path / "plain.yaml", plain)
    result = invoke("lint", "-f", str(path))
    assert (result.exit_code, result.stdout.splitlines()) == (
        1,
        [
            f"{path}:1: error: ClusterServingRuntime plain: apiVersion not set",
            "1 error, 0 warnings, 0 infos",
        ],
    )


def test_rank_and_select_say_what_they_did_not_read_and_answer_about_the_rest(tmp_path):
    root = repository(tmp_path)
    unread = (
        f"Warning: not read: {root / 'b-bare.yaml'}:1: <no kind> bare: "
        "[apiVersion not set, kind not set]\n"
        f"Warning: not read: {root / 'c-typo.yaml'}:1: ServingRuntme typo: {TYPO}\n"
    )
    rank = invoke("rank", "-f", str(root))
    assert (rank.exit_code, rank.stdout) == (0, SEED_TABLE)
    assert rank.stderr == unread + SEED_MESSAGE + "\n"
    select = invoke("select", "-f", str(root), "-o", "json")
    assert select.exit_code == 0
    assert select.stderr == unread
    answer = json.loads(select.stdout)
    assert [(item["kind"], item["name"]) for item in answer["ignored"]] == [
        (None, "bare"),
        ("ServingRuntme", "typo"),
    ]


def test_a_runtime_the_service_does_not_read_is_not_counted_where_an_answer_points(tmp_path):
    """``runtimes[i]`` of a refusal counts the runtimes the service read: the line is right."""
    alpha = retyped(runtime_doc("alpha"), api_version="ome.io/v1alpha1")
    path = write_yaml(tmp_path / "more.yaml", alpha, runtime_doc("zero", entry(priority=0)))
    result = invoke("select", "-f", str(SEED), "-f", str(path))
    assert result.exit_code == 2
    start = line_of(path, "name: zero") - 3
    assert result.stderr.splitlines()[-1].startswith(f"  {path}:{start}: runtimes[4].spec.")
