"""The worked examples of OME's documentation pages, posted to the service.

Every file in ``cases/`` holds the examples of one page as a list of cases. A case posts its
``manifests`` (a YAML stream, as ``kubectl apply -f`` takes it) with its ``query`` parameters to
``/v1/rank`` and ``/v1/select`` and checks every expectation it gives:

- ``rank_status`` / ``rank_code``: the ``/v1/rank`` status (200 when absent) and error code;
- ``selected``: ``null`` or a subset of ``{name, scope, explicit, score}``;
- ``message``: OME's message, exact (``message_prefix``: its beginning);
- ``table``: the whole ``Accept: text/plain`` answer, exact;
- ``order``: the runtime names of the rows, in order;
- ``rows``: runtime name (``name (Cluster)`` / ``name (Namespaced)`` where a ServingRuntime and a
  ClusterServingRuntime share it) to a subset of ``{compatible, priority, weight, score, reason}``;
- ``warnings`` / ``notes``: texts that must be present; ``warnings_contain``: substrings that some
  warning must hold; ``warnings_absent``: substrings that no warning may hold;
- ``ignored``: the names of the runtimes listed under ``ignored``;
- ``select_status`` / ``select_code`` / ``select_message`` (``message`` when absent) /
  ``excluded``: the ``/v1/select`` answer.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
import yaml

from tests.ome_docs.support import load_cases

YAML_MIME = "application/yaml"
CASE_KEYS = frozenset({"name", "source", "query", "manifests", "expect"})
EXPECT_KEYS = frozenset(
    {
        "rank_status",
        "rank_code",
        "selected",
        "message",
        "message_prefix",
        "table",
        "order",
        "rows",
        "warnings",
        "warnings_contain",
        "warnings_absent",
        "notes",
        "ignored",
        "select_status",
        "select_code",
        "select_message",
        "excluded",
    }
)
ROW_KEYS = frozenset({"compatible", "priority", "weight", "score", "reason", "distance"})
SELECTED_KEYS = frozenset({"name", "scope", "explicit", "score"})


CASES = load_cases()


def test_case_files_are_well_formed() -> None:
    names = [param.id for param in CASES]
    assert len(names) == len(set(names)), "case names are unique within a page"
    for param in CASES:
        (case,) = param.values
        assert set(case) <= CASE_KEYS, (param.id, set(case) - CASE_KEYS)
        assert {"name", "source", "manifests", "expect"} <= set(case), param.id
        expect = case["expect"]
        assert set(expect) <= EXPECT_KEYS, (param.id, set(expect) - EXPECT_KEYS)
        for row in (expect.get("rows") or {}).values():
            assert set(row) <= ROW_KEYS, (param.id, set(row) - ROW_KEYS)
        if isinstance(expect.get("selected"), dict):
            assert set(expect["selected"]) <= SELECTED_KEYS, param.id
        # Every manifest stream parses as kubectl would read it.
        documents = [d for d in yaml.safe_load_all(case["manifests"]) if d is not None]
        assert documents, param.id


class Mismatches:
    """Collects every difference of one case, so that one run shows all of them."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def equal(self, what: str, actual: Any, expected: Any) -> None:
        if actual != expected:
            self.found.append(f"{what}:\n    expected: {expected!r}\n    actual:   {actual!r}")

    def check(self, what: str, condition: bool, detail: Any) -> None:
        if not condition:
            self.found.append(f"{what}: {detail!r}")


def _post(client, endpoint: str, case: dict, accept: str = "application/json"):
    query = case.get("query") or {}
    url = endpoint + (f"?{urlencode(query)}" if query else "")
    return client.post(
        url,
        data=case["manifests"].encode("utf-8"),
        headers={"Content-Type": YAML_MIME, "Accept": accept},
    )


def _row_key(row: dict, shared_names: set[str]) -> str:
    return f"{row['name']} ({row['scope']})" if row["name"] in shared_names else row["name"]


def _check_selected(found: Mismatches, where: str, actual: Any, expected: Any) -> None:
    if expected is None or actual is None:
        found.equal(f"{where} selected", actual, expected)
        return
    found.equal(f"{where} selected", {key: actual.get(key) for key in expected}, expected)


def _check_warnings(found: Mismatches, where: str, warnings: list[str], expect: dict) -> None:
    for text in expect.get("warnings") or []:
        found.check(f"{where} warning missing", text in warnings, {"want": text, "got": warnings})
    for part in expect.get("warnings_contain") or []:
        found.check(
            f"{where} no warning contains",
            any(part in text for text in warnings),
            {"want": part, "got": warnings},
        )
    for part in expect.get("warnings_absent") or []:
        found.check(
            f"{where} unexpected warning",
            not any(part in text for text in warnings),
            {"absent": part, "got": warnings},
        )


def _check_message(found: Mismatches, where: str, actual: Any, expect: dict, key: str) -> None:
    if key in expect:
        found.equal(f"{where} message", actual, expect[key])
    elif "message_prefix" in expect:
        found.check(
            f"{where} message prefix",
            isinstance(actual, str) and actual.startswith(expect["message_prefix"]),
            {"want prefix": expect["message_prefix"], "got": actual},
        )


def _check_rank(found: Mismatches, client, case: dict) -> None:
    expect = case["expect"]
    response = _post(client, "/v1/rank", case)
    status = expect.get("rank_status", 200)
    body = response.get_json(silent=True) or {}
    found.equal("/v1/rank status", response.status_code, status)
    if status != 200:
        error = body.get("error") or {}
        if "rank_code" in expect:
            found.equal("/v1/rank error code", error.get("code"), expect["rank_code"])
        _check_message(found, "/v1/rank", error.get("message"), expect, "message")
        return
    if response.status_code != 200:
        found.found.append(f"/v1/rank answered {body!r}")
        return
    if "selected" in expect:
        _check_selected(found, "/v1/rank", body.get("selected"), expect["selected"])
    _check_message(found, "/v1/rank", body.get("message"), expect, "message")
    rows = body.get("runtimes") or []
    names = [row["name"] for row in rows]
    if "order" in expect:
        found.equal("/v1/rank row order", names, expect["order"])
    shared = {name for name in names if names.count(name) > 1}
    by_key = {_row_key(row, shared): row for row in rows}
    for key, wanted in (expect.get("rows") or {}).items():
        row = by_key.get(key)
        if row is None:
            found.found.append(f"/v1/rank has no row {key!r} (rows: {sorted(by_key)})")
            continue
        found.equal(f"/v1/rank row {key}", {field: row.get(field) for field in wanted}, wanted)
    _check_warnings(found, "/v1/rank", body.get("warnings") or [], expect)
    notes = body.get("notes") or []
    for text in expect.get("notes") or []:
        found.check("/v1/rank note missing", text in notes, {"want": text, "got": notes})
    if "ignored" in expect:
        ignored = [item["name"] for item in body.get("ignored") or []]
        found.equal("/v1/rank ignored", ignored, expect["ignored"])
    if "table" in expect:
        table = _post(client, "/v1/rank", case, accept="text/plain")
        found.equal("explain table status", table.status_code, 200)
        found.equal("explain table", table.get_data(as_text=True), expect["table"])


def _select_status(expect: dict) -> int | None:
    if "select_status" in expect:
        return expect["select_status"]
    if isinstance(expect.get("selected"), dict):
        return 200
    if expect.get("rank_status", 200) != 200:
        return expect["rank_status"]
    return None


def _check_select(found: Mismatches, client, case: dict) -> None:
    expect = case["expect"]
    status = _select_status(expect)
    if status is None:
        return
    response = _post(client, "/v1/select", case)
    body = response.get_json(silent=True) or {}
    found.equal("/v1/select status", response.status_code, status)
    if status == 200:
        if response.status_code != 200:
            found.found.append(f"/v1/select answered {body!r}")
            return
        if "selected" in expect:
            _check_selected(found, "/v1/select", body.get("selected"), expect["selected"])
        _check_message(found, "/v1/select", body.get("message"), expect, "message")
        _check_warnings(found, "/v1/select", body.get("warnings") or [], expect)
        return
    error = body.get("error") or {}
    code = expect.get("select_code", expect.get("rank_code"))
    if code is not None:
        found.equal("/v1/select error code", error.get("code"), code)
    key = "select_message" if "select_message" in expect else "message"
    _check_message(found, "/v1/select", error.get("message"), expect, key)
    if "excluded" in expect:
        found.equal("/v1/select excluded", error.get("excluded"), expect["excluded"])


@pytest.mark.parametrize("case", CASES)
def test_ome_docs_example(client, case: dict) -> None:
    found = Mismatches()
    _check_rank(found, client, case)
    _check_select(found, client, case)
    if found.found:
        pytest.fail(
            f"{case['source']}\n" + "\n".join(found.found),
            pytrace=False,
        )
