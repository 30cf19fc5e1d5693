"""Values kept as written (app/selection/values/json_values.py): only what JSON can hold passes
on whole, and a manifest's field is read at a path, None where the path breaks."""

from __future__ import annotations

import pytest

from app.selection.values.json_values import get, is_json_value


@pytest.mark.parametrize(
    "value",
    [None, "", "text", 0, -(2**80), True, 1.5, [], {}, [1, "a", None], {"a": {"b": [1.0, {}]}}],
)
def test_json_values(value):
    assert is_json_value(value)


@pytest.mark.parametrize(
    "value",
    [
        float("nan"),
        float("inf"),
        [1, float("-inf")],
        {"a": {"b": float("nan")}},
        {1: "a"},  # a key that is not a string
        (1, 2),
        {"a": (1,)},
        b"bytes",
        object(),
    ],
)
def test_what_json_cannot_hold(value):
    assert not is_json_value(value)


def test_get_reads_a_field_at_a_path():
    manifest = {"spec": {"storage": {"storageUri": "pvc://a/b"}, "list": [1]}, "n": None}
    assert get(manifest, "spec", "storage", "storageUri") == "pvc://a/b"
    assert get(manifest, "spec", "storage") == {"storageUri": "pvc://a/b"}
    assert get(manifest) is manifest


@pytest.mark.parametrize(
    "path",
    [
        ("missing",),
        ("spec", "missing", "deeper"),
        ("spec", "list", "0"),
        ("n", "x"),
        ("spec", "storage", "storageUri", "x"),
    ],
)
def test_get_is_none_where_the_path_breaks(path):
    manifest = {"spec": {"storage": {"storageUri": "pvc://a/b"}, "list": [1]}, "n": None}
    assert get(manifest, *path) is None
    assert get(None, *path) is None
