"""``app/selection/admission/suppressions.py``: the codes an object's ``ome-ranker.io/ignore``
annotation names, and the findings it sets apart."""

from __future__ import annotations

import pytest

from app.selection.admission import ERROR, INFO, Finding
from app.selection.admission.suppressions import ignored_codes, split_suppressed


def manifest(value):
    return {"metadata": {"annotations": {"ome-ranker.io/ignore": value}}}


@pytest.mark.parametrize(
    ("value", "codes"),
    [
        ("NoAutoSelect", {"NoAutoSelect"}),
        (" NoAutoSelect , AutoSelected,,", {"NoAutoSelect", "AutoSelected"}),
        ("", set()),
        (["NoAutoSelect"], set()),  # not a string: the API server refuses it anyway
        (None, set()),
    ],
)
def test_the_codes_of_the_annotation(value, codes):
    assert ignored_codes(manifest(value)) == codes


def test_no_annotation_names_nothing():
    assert ignored_codes({"metadata": {}}) == frozenset()
    assert ignored_codes(None) == frozenset()


def test_only_the_annotated_objects_findings_of_those_codes_are_set_apart():
    quiet = Finding(INFO, "ClusterServingRuntime", None, "quiet", None, "NoAutoSelect", "m")
    other_code = Finding(ERROR, "ClusterServingRuntime", None, "quiet", None, "Invalid", "m")
    loud = Finding(INFO, "ClusterServingRuntime", None, "loud", None, "NoAutoSelect", "m")
    manifests = {("ClusterServingRuntime", "", "quiet"): manifest("NoAutoSelect")}
    assert split_suppressed([quiet, other_code, loud], manifests) == (
        [other_code, loud],
        [quiet],
    )
