"""Numbers of thousands of digits in the text the rules read (SPEC §17 "Safe to share"): read as
OME's Go reads them (strconv: a range error past 64 bits), never a 500 from CPython's int()
limit (sys.get_int_max_str_digits(): 4 300 digits), and no tenant's object breaks a catalog."""

from __future__ import annotations

import sys

import pytest

from tests.api.reading_endpoints import (
    CLUSTER,
    ENDPOINTS,
    YAML,
    assert_every_reader_answered,
    isvc,
    model,
    request_of,
    stream,
    tenants,
)
from tests.builders import isvc_doc, runtime_doc

DIGITS = "1" * 5000
LONG_NUMBER = "1" * 40  # past uint64, well within any bound on a string's length

assert len(DIGITS) > sys.get_int_max_str_digits()


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_version_past_64_bits_is_answered_as_ome_does_everywhere(client, endpoint):
    """A version part that does not fit uint64 is a parse error in OME's parser: the version
    matches nothing, so no runtime qualifies (``/select``: OME's no-runtime answer)."""
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    method, path, arguments, _ = request_of(endpoint, LONG_NUMBER)
    answered = client.open(path, method=method, **arguments)
    body = answered.get_json()
    if path.endswith("/select"):
        assert (answered.status_code, body["error"]["code"]) == (422, "NoRuntimeFound")
        mismatch = f"format version mismatch (model={LONG_NUMBER}, runtime=1.0.0)"
        assert body["error"]["excluded"]["rt"].endswith(mismatch)
        return
    assert answered.status_code == 200, answered.get_data(as_text=True)
    if path.endswith("/rank"):
        assert body["selected"] is None
    if path.endswith("/selections"):
        assert [row["runtime"] for row in body["selections"]] == [None]


@pytest.mark.parametrize(
    ("tag", "status"),
    [(f'"{DIGITS}"', 412), ('"-1"', 412), ('"\u0661"', 400), ('"1 "', 400)],
    ids=["digits", "minus", "arabic-one", "space"],
)
def test_if_match_past_any_generation_matches_none(client, tag, status):
    """A generation is ASCII digits (Python's int() reads "١" as 1); thousands of them are no
    generation at all: 412, never a 500; a character an entity tag may not hold, 400. Tags
    compare as strings (RFC 9110 §8.8.3.2): "01" is not the ETag "1"."""
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    answered = client.put(f"/v1/clusters/{CLUSTER}", json={}, headers={"If-Match": tag})
    assert answered.status_code == status  # 400: not an entity tag at all (RFC 9110 §8.8.3)
    padded = client.put(f"/v1/clusters/{CLUSTER}", json={}, headers={"If-Match": '"01"'})
    assert padded.status_code == 412
    same = client.put(f"/v1/clusters/{CLUSTER}", json={}, headers={"If-Match": '"1"'})
    assert same.status_code == 200


UTILIZATION = "ome.io/targetUtilizationPercentage"


@pytest.mark.parametrize(
    ("annotation", "refused"),
    [(DIGITS, True), ("-" + DIGITS, True), ("0" * 5000 + "50", False), ("+0" + "0" * 5000, True)],
    ids=["digits", "negative", "zeros-then-50", "zeros"],
)
@pytest.mark.parametrize("path", ["/v1/lint", f"/v1/clusters/{CLUSTER}/lint"])
def test_target_utilization_reads_as_strconv_atoi(client, path, annotation, refused):
    """OME: strconv.Atoi, then 1-100. Thousands of digits are Atoi's range error (refused);
    leading zeros are Go's too (50 is fine)."""
    assert client.put(f"/v1/clusters/{CLUSTER}", json={}).status_code == 201
    service = isvc_doc(
        "svc", model={"name": "llama"}, engine={}, annotations={UTILIZATION: annotation}
    )
    answered = client.post(path, json=[model(), runtime_doc("rt"), service])
    assert answered.status_code == 200
    codes = {f["code"] for f in answered.get_json()["findings"] if f["name"] == "svc"}
    assert ("InvalidTargetUtilization" in codes) is refused


@pytest.mark.parametrize(
    ("budget", "refused"),
    [(DIGITS + "%", True), ("0" * 5000 + "50%", False), ("0" * 5000 + "101%", True)],
    ids=["digits", "zeros-then-50", "zeros-then-101"],
)
@pytest.mark.parametrize("field", ["minAvailable", "maxUnavailable"])
def test_disruption_budget_percentages_read_as_ome_reads_them(client, field, budget, refused):
    """OME: digits, then strconv.Atoi (its range error refuses), then at most 100."""
    service = isvc(engine={field: budget})
    answered = client.post("/v1/lint", json=[model(), runtime_doc("rt"), service])
    assert answered.status_code == 200
    codes = {f["code"] for f in answered.get_json()["findings"] if f["name"] == "svc"}
    assert ("InvalidDisruptionBudget" in codes) is refused


# --- one tenant cannot break a stored catalog ---------------------------------------------------


def test_a_tenant_s_number_past_64_bits_breaks_no_reader(empty_cluster):
    """Before, tenant-a's BaseModel and InferenceService with such a version were stored (200)
    and every unfiltered selections and impact of the cluster was a 500 for every reader."""
    _, client = empty_cluster
    written = client.put(
        f"/v1/clusters/{CLUSTER}/objects", data=stream(*tenants(LONG_NUMBER)), headers=YAML
    )
    assert written.status_code == 200
    assert_every_reader_answered(client)
