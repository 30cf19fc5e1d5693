"""The settings a catalog view is read with, from a query (rules §14, §17, §20.8): defaults,
the query's values, and a 422 naming the parameter for a value that is not one."""

from __future__ import annotations

import pytest

from app.errors import InvalidDocument, MalformedRequest
from app.schemas.query_settings import (
    classes_known_setting,
    provider_refusal,
    query_boolean,
    query_settings,
)
from app.selection.values import DEFAULT_OME_VERSION, MAX_VALUE_CHARS


def test_settings_default_to_what_is_given_and_the_query_wins():
    assert query_settings({}) == {
        "ome_version": DEFAULT_OME_VERSION,
        "model_cache_provider": None,
        "classes_known": None,
    }
    given = query_settings({}, "0.1.3", "lustre", classes_known=True)
    assert given == {
        "ome_version": "0.1.3",
        "model_cache_provider": "lustre",
        "classes_known": True,
    }
    query = {"omeVersion": "0.1.2", "modelCacheProvider": "nfs", "acceleratorClassesKnown": "false"}
    assert query_settings(query, "0.1.3", "lustre", classes_known=True) == {
        "ome_version": "0.1.2",
        "model_cache_provider": "nfs",
        "classes_known": False,
    }


def test_a_bad_version_or_boolean_is_refused_at_its_parameter():
    with pytest.raises(InvalidDocument) as version:
        query_settings({"omeVersion": "not a version"})
    assert "omeVersion" in version.value.details["fields"]
    with pytest.raises(InvalidDocument) as flag:
        query_boolean({"x": "yes"}, "x")
    assert flag.value.details["fields"] == {"x": ["Must be true or false."]}
    assert query_boolean({}, "x") is None


def test_the_body_flag_wins_and_must_be_a_boolean():
    query = {"acceleratorClassesKnown": "false"}
    assert classes_known_setting({"acceleratorClassesKnown": True}, query) is True
    assert classes_known_setting({}, query) is False
    with pytest.raises(MalformedRequest):
        classes_known_setting({"acceleratorClassesKnown": "true"}, {})


def test_a_provider_over_the_bound_is_the_first_refusal():
    assert provider_refusal(["lustre", "nfs"]) is None
    refusal = provider_refusal(["ok", "p" * (MAX_VALUE_CHARS + 1), "q" * (MAX_VALUE_CHARS + 2)])
    assert refusal is not None
    assert list(refusal.details["fields"]) == ["modelCacheProvider"]
