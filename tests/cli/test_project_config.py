"""``app/cli/project_config.py``: ``.ome-ranker.yaml`` found from a directory upwards, its
``ignore`` entries matched by code, kind, namespace, name and file glob."""

from __future__ import annotations

import os

from app.cli.project_config import IgnoreRule, find_config, load_config


def test_the_nearest_file_above_is_found(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    above = find_config(str(tmp_path / "a" / "b"))  # none in tmp_path's tree yet
    assert above is None or not above.startswith(str(tmp_path))
    (tmp_path / ".ome-ranker.yaml").write_text("failOn: warning\n")
    assert find_config(str(tmp_path / "a" / "b")) == str(tmp_path / ".ome-ranker.yaml")
    (tmp_path / "a" / ".ome-ranker.yaml").write_text("failOn: info\n")
    assert find_config(str(tmp_path / "a" / "b")) == str(tmp_path / "a" / ".ome-ranker.yaml")
    assert load_config(None, str(tmp_path / "a" / "b")).fail_on == "info"


def test_an_entry_matches_only_what_it_names():
    rule = IgnoreRule("NoAutoSelect", kind="ClusterServingRuntime", name="legacy-*")
    assert rule.matches("NoAutoSelect", "ClusterServingRuntime", None, "legacy-1", [])
    assert not rule.matches("NoAutoSelect", "ClusterServingRuntime", None, "new", [])
    assert not rule.matches("NoAutoSelect", "ServingRuntime", "ns", "legacy-1", [])
    assert not rule.matches("AutoSelected", "ClusterServingRuntime", None, "legacy-1", [])
    namespaced = IgnoreRule("Invalid", namespace="team-*")
    assert namespaced.matches("Invalid", "ServingRuntime", "team-a", "x", [])
    assert not namespaced.matches("Invalid", "ClusterServingRuntime", None, "x", [])


def test_a_path_glob_matches_the_file_as_named_or_relative_to_the_config(tmp_path, monkeypatch):
    (tmp_path / "repo" / "manifests" / "old").mkdir(parents=True)
    config = tmp_path / "repo" / ".ome-ranker.yaml"
    config.write_text("ignore:\n  - code: NoAutoSelect\n    path: manifests/old/*\n")
    manifest = tmp_path / "repo" / "manifests" / "old" / "r.yaml"
    manifest.write_text("kind: X\n")
    monkeypatch.chdir(tmp_path)
    settings = load_config(str(config))
    assert settings.ignored_by("NoAutoSelect", "X", None, "r", os.path.relpath(manifest))
    assert settings.ignored_by("NoAutoSelect", "X", None, "r", str(manifest))
    assert settings.ignored_by("NoAutoSelect", "X", None, "r", "elsewhere/r.yaml") is None
    rule = settings.ignore[0]
    assert rule.origin == f"{os.path.relpath(config)}:2"


def test_an_empty_file_sets_nothing(tmp_path):
    (tmp_path / ".ome-ranker.yaml").write_text("# nothing yet\n")
    settings = load_config(None, str(tmp_path))
    assert (settings.fail_on, settings.severity, settings.ignore) == (None, None, ())
