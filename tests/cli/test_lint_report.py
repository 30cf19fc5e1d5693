"""``ome-ranker lint`` for CI (``app/cli/lint_report.py``): each finding at its field's line and
column in its file (YAML, JSON, a List's item, stdin and helm's ``# Source:``), in SARIF, JUnit
and GitHub's workflow commands, with the thresholds of ``--fail-on`` and ``--severity`` and the
suppressions of ``.ome-ranker.yaml`` and of the annotation."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
import yaml

from tests.builders import entry, isvc_doc, runtime_doc
from tests.cli.support import invoke, line_of, place_of, write_yaml
from tests.rendering.report_builders import valid_sarif

TYPO = runtime_doc("typo", {**entry(), "autoselect": True})
QUIET = runtime_doc("quiet", entry(auto_select=False))  # an info: NoAutoSelect
ZERO = runtime_doc("zero", entry(priority=0))  # an error: Invalid, at the value


def place_of_text(text: str, found: str) -> tuple[int, int]:
    lines = text.splitlines()
    line = next(number for number, item in enumerate(lines, 1) if found in item)
    return line, lines[line - 1].index(found) + 1


def sarif(*args: str, **kwargs) -> tuple[int, dict]:
    result = invoke("lint", *args, "-o", "sarif", **kwargs)
    return result.exit_code, valid_sarif(json.loads(result.stdout))


def places(log: dict) -> list[tuple[str, str, int, int]]:
    found = []
    for item in log["runs"][0]["results"]:
        physical = item["locations"][0]["physicalLocation"]
        region = physical["region"]
        uri = physical["artifactLocation"]["uri"]
        found.append((item["ruleId"], uri, region["startLine"], region["startColumn"]))
    return found


def test_sarif_puts_a_typo_at_its_line_in_a_stream(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_yaml(tmp_path / "m" / "runtimes.yaml", QUIET, TYPO)
    code, log = sarif("-f", "m/runtimes.yaml")
    assert code == 1
    line, column = place_of(tmp_path / "m" / "runtimes.yaml", "autoselect: true")
    assert places(log) == [("UnknownField", "m/runtimes.yaml", line, column)]


def test_json_files_and_list_items_in_subdirectories(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m" / "sub").mkdir(parents=True)
    (tmp_path / "m" / "a.json").write_text(json.dumps([QUIET, ZERO], indent=2))
    listed = {"apiVersion": "v1", "kind": "List", "items": [QUIET, TYPO]}
    write_yaml(tmp_path / "m" / "sub" / "list.yaml", listed)
    code, log = sarif("-R", "-f", "m", "--severity", "info")
    assert code == 1
    found = {(rule, uri): (line, column) for rule, uri, line, column in places(log)}
    json_lines = (tmp_path / "m" / "a.json").read_text().splitlines()
    line, column = found[("Invalid", "m/a.json")]
    assert json_lines[line - 1][column - 1 :] == "0"  # the value refused
    assert found[("UnknownField", "m/sub/list.yaml")] == place_of(
        tmp_path / "m" / "sub" / "list.yaml", "autoselect: true"
    )


def test_stdin_is_named_stdin_and_helm_sources_name_their_templates():
    plain = yaml.safe_dump(TYPO)
    _, log = sarif("-f", "-", input=plain)
    (typo,) = places(log)
    assert typo[:2] == ("UnknownField", "%3Cstdin%3E")
    rendered = (
        "---\n# Source: chart/templates/quiet.yaml\n"
        + yaml.safe_dump(QUIET)
        + "---\n# Source: chart/templates/typo.yaml\n"
        + yaml.safe_dump(TYPO)
    )
    result = invoke("lint", "-f", "-", "-o", "github", input=rendered)
    (command,) = result.stdout.splitlines()
    # the line counted from the comment: as the template has it when it renders line for line
    line = yaml.safe_dump(TYPO).splitlines().index("    autoselect: true") + 1
    assert command.startswith(f"::error file=chart/templates/typo.yaml,line={line},col=5,")
    assert (line, 5) == place_of_text(yaml.safe_dump(TYPO), "autoselect: true")


def test_junit_has_a_case_per_object_and_a_failure_per_error(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", QUIET, TYPO, ZERO)
    result = invoke("lint", "-f", str(path), "-o", "junit")
    assert result.exit_code == 1
    suite = ElementTree.fromstring(result.stdout).find("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"quiet", "typo", "zero"}
    assert [f.get("type") for f in cases["typo"].findall("failure")] == ["UnknownField"]
    assert cases["quiet"].findall("failure") == []
    assert (suite.get("tests"), suite.get("failures")) == ("3", "2")


def test_github_commands_one_per_finding_shown(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", QUIET, TYPO)
    result = invoke("lint", "-f", str(path), "-o", "github", "--severity", "info")
    lines = result.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::notice"]
    assert f"line={line_of(path, 'autoselect: true')}" in lines[0]


def test_fail_on_sets_the_exit_code(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", QUIET)  # an info only
    assert invoke("lint", "-f", str(path)).exit_code == 0
    assert invoke("lint", "-f", str(path), "--fail-on", "warning").exit_code == 0
    failed = invoke("lint", "-f", str(path), "--fail-on", "info")
    assert failed.exit_code == 1
    assert failed.stderr == "error: 1 finding at or above info (--fail-on)\n"
    # what --severity hides still fails: the threshold counts every finding
    hidden = invoke("lint", "-f", str(path), "--fail-on", "info", "--severity", "error")
    assert (hidden.exit_code, hidden.stdout) == (1, "0 errors, 0 warnings, 1 info\n")


def test_severity_filters_json_and_yaml_too(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", QUIET, ZERO)
    shown = json.loads(invoke("lint", "-f", str(path), "-o", "json").stdout)
    assert [f["code"] for f in shown["findings"]] == ["Invalid"]
    assert shown["counts"] == {"error": 1, "warning": 0, "info": 1}
    every = json.loads(invoke("lint", "-f", str(path), "-o", "json", "--severity", "info").stdout)
    assert [f["code"] for f in every["findings"]] == ["Invalid", "NoAutoSelect"]
    invalid = every["findings"][0]
    assert (invalid["file"], invalid["line"], invalid["document"]) == (
        str(path),
        line_of(path, "priority: 0"),
        1,
    )
    as_yaml = invoke("lint", "-f", str(path), "-o", "yaml", "--severity", "info").stdout
    assert yaml.safe_load(as_yaml) == every


def test_reading_nothing_to_check_is_an_error_unless_allowed(tmp_path):
    (tmp_path / "empty").mkdir()
    result = invoke("lint", "-f", str(tmp_path / "empty"))
    assert result.exit_code == 2
    assert "no object read from" in result.stderr
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}
    other = write_yaml(tmp_path / "ns.yaml", namespace)
    refused = invoke("lint", "-f", str(other))
    assert refused.exit_code == 2
    assert "1 object read, none of a kind lint checks" in refused.stderr
    allowed = invoke("lint", "-f", str(tmp_path / "empty"), "--allow-empty")
    assert (allowed.exit_code, allowed.stdout) == (0, "0 errors, 0 warnings, 0 infos\n")


CONFIG = """\
failOn: warning
ignore:
  - code: UnknownField
    name: typ*
    path: "manifests/*.yaml"
"""


def test_a_config_file_found_upwards_suppresses_and_sets_thresholds(tmp_path, monkeypatch):
    (tmp_path / ".ome-ranker.yaml").write_text(CONFIG)
    write_yaml(tmp_path / "manifests" / "r.yaml", TYPO, isvc_doc("chat", model={"name": "m"}))
    (tmp_path / "deeper").mkdir()
    monkeypatch.chdir(tmp_path / "deeper")
    result = invoke("lint", "-f", "../manifests/r.yaml")
    # the typo is suppressed; failOn: warning makes the InferenceService's error still fail
    assert "UnknownField" not in result.stdout
    assert result.stdout.splitlines()[-1].endswith("(1 suppressed)")
    _, log = sarif("-f", "../manifests/r.yaml")
    (suppressed,) = [r for r in log["runs"][0]["results"] if r.get("suppressions")]
    assert suppressed["ruleId"] == "UnknownField"
    assert suppressed["suppressions"] == [
        {"kind": "external", "justification": f"ignored by {tmp_path / '.ome-ranker.yaml'}:3"}
    ]


def test_an_annotation_suppresses_in_source(tmp_path):
    quiet = runtime_doc("quiet", entry(auto_select=False))
    quiet["metadata"]["annotations"] = {"ome-ranker.io/ignore": "NoAutoSelect"}
    path = write_yaml(tmp_path / "r.yaml", quiet)
    text = invoke("lint", "-f", str(path), "--severity", "info", "--fail-on", "info")
    assert (text.exit_code, text.stdout) == (0, "0 errors, 0 warnings, 0 infos (1 suppressed)\n")
    _, log = sarif("-f", str(path), "--severity", "info")
    (item,) = log["runs"][0]["results"]
    assert item["suppressions"][0]["kind"] == "inSource"


def test_a_suppressed_error_passes_the_threshold_but_is_still_not_admitted(tmp_path):
    config = tmp_path / "lint.yaml"
    config.write_text("ignore:\n  - code: Invalid\n")
    path = write_yaml(tmp_path / "r.yaml", ZERO)
    result = invoke("lint", "-f", str(path), "--config", str(config))
    assert result.exit_code == 0
    assert result.stderr == ("Warning: the manifests would not be admitted: 1 error suppressed\n")
    answer = json.loads(
        invoke("lint", "-f", str(path), "--config", str(config), "-o", "json").stdout
    )
    assert answer["admitted"] is False
    assert [f["suppression"] for f in answer["suppressed"]] == ["external"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("faiOn: warning\n", "lint.yaml:1: faiOn: unknown setting; did you mean failOn?"),
        ("failOn: loud\n", "lint.yaml:1: failOn: must be one of error, warning, info"),
        ("ignore:\n  - kind: X\n", "lint.yaml:2: ignore[0]: needs a code"),
        ("ignore:\n  - code: X\n    nmae: y\n", "lint.yaml:3: ignore[0].nmae: unknown setting"),
        ("- a\n", "lint.yaml: must be one mapping"),
    ],
)
def test_a_bad_config_is_a_usage_error_at_its_line(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lint.yaml").write_text(text)
    path = write_yaml(tmp_path / "r.yaml", QUIET)
    result = invoke("lint", "-f", str(path), "--config", "lint.yaml")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {message}"), result.stderr


def test_a_missing_config_named_is_a_usage_error(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", QUIET)
    result = invoke("lint", "-f", str(path), "--config", str(tmp_path / "nope.yaml"))
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_rules_point_into_the_table_of_codes(tmp_path):
    path = write_yaml(tmp_path / "r.yaml", TYPO)
    env = {"OME_RANKER_DOCS_URL": "https://docs.example/ome-ranker/docs"}
    _, log = sarif("-f", str(path), env=env)
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"] == "https://docs.example/ome-ranker/docs/lint.md#unknownfield"
    # from this checkout, without a URL: its own docs/
    _, log = sarif("-f", str(path))
    (rule,) = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["helpUri"].startswith("file:///")
    assert rule["helpUri"].endswith("/docs/lint.md#unknownfield")
