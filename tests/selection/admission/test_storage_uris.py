"""``pvc://`` URIs as OME parses them (app/selection/admission/storage_uris.py; OME's
``pkg/utils/storage.ParsePVCStorageURI`` and its tests): the namespace, claim and sub-path, or
OME's text of what is wrong."""

from __future__ import annotations

import pytest

from app.selection.admission.storage_uris import parse_pvc

FORMAT = "invalid PVC storage URI format: "


@pytest.mark.parametrize(
    ("uri", "parsed"),
    [
        ("pvc://my-pvc/models/llama", ("", "my-pvc", "models/llama")),
        ("pvc://shared:my-pvc/models/llama", ("shared", "my-pvc", "models/llama")),
        (
            "pvc://model-storage:shared-pvc/path/to/llama2-7b.bin",
            ("model-storage", "shared-pvc", "path/to/llama2-7b.bin"),
        ),
        (
            "pvc://my-pvc/path/with/special@#$%^&*()chars",
            ("", "my-pvc", "path/with/special@#$%^&*()chars"),
        ),
        ("pvc://my-pvc//results", ("", "my-pvc", "/results")),  # the API server refuses it later
        ("pvc://a" + "1" * 62 + ":c/s", ("a" + "1" * 62, "c", "s")),  # 63 characters
    ],
)
def test_a_uri_parses_into_namespace_claim_and_subpath(uri, parsed):
    assert parse_pvc(uri) == parsed


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("pvc://", "missing content after prefix"),
        ("pvc://my-pvc", "missing subpath"),
        ("pvc://my-pvc/", "missing subpath"),
        ("pvc:///results", "missing PVC name"),
        ("pvc://:my-pvc/models", "empty namespace before colon"),
        ("pvc://default:/models", "empty PVC name after colon"),
        ("pvc://ns:pvc:extra/path", "multiple colons not allowed in namespace:pvc-name"),
        ("pvc://ns::/path", "multiple colons not allowed in namespace:pvc-name"),
    ],
)
def test_what_ome_refuses_is_said_in_omes_words(uri, problem):
    assert parse_pvc(uri) == FORMAT + problem


@pytest.mark.parametrize(
    "namespace",
    ["MyNamespace", "my_namespace", "-namespace", "namespace-", "a" + "1" * 63],
)
def test_a_namespace_that_is_not_a_dns_label_is_refused_quoted(namespace):
    assert parse_pvc(f"pvc://{namespace}:my-pvc/models") == (
        f'{FORMAT}invalid namespace "{namespace}" (must be lowercase alphanumeric with hyphens, '
        "max 63 chars)"
    )


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("pvc:///", "missing PVC name"),
        ("pvc://:my-pvc/", "empty namespace before colon"),
        ("pvc://default:/", "empty PVC name after colon"),
        ("pvc://ns:a:b/", "multiple colons not allowed in namespace:pvc-name"),
        ("pvc://:a:b/models", "empty namespace before colon"),
    ],
)
def test_the_claim_part_is_judged_before_the_subpath_and_the_namespace_first(uri, problem):
    """OME's order: the namespace, then the claim, then extra colons, then the sub-path."""
    assert parse_pvc(uri) == FORMAT + problem


def test_the_namespace_is_quoted_as_go_quotes_it():
    assert parse_pvc('pvc://a"b:c/d') == (
        f'{FORMAT}invalid namespace "a\\"b" (must be lowercase alphanumeric with hyphens, '
        "max 63 chars)"
    )
