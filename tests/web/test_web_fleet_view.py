"""The fleet view at ``#/`` in a real headless Chromium against a real gunicorn holding a fleet of
three clusters: each row and the totals are ``GET /v1/fleet``'s answer; each count opens that
cluster's selections with that outcome, showing the rows ``selections`` gives it; a token of some
clusters sees the others counted, never named; Refresh asks with the ETag and keeps the table on
a 304; the table has row and column headers, fits 1 280 and 400 pixels without scrolling the
page sideways, and follows the dark theme."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime

import pytest
import yaml

from tests.builders import isvc_doc
from tests.servers import YAML, Service
from tests.web.catalog import FLEET, SEED_MODEL
from tests.web.support import SECRETS, bearer, fleet_service, store_cluster
from tests.web.words import age_text

# The token `viewer` may read these; `admin` writes (and so reads) every cluster.
VIEWER_READS = ["fleet-a", "fleet-c"]
COUNTS = ("total", "selected", "explicit", "noRuntime", "refused", "classUnknown", "classError")
# The outcomes a count opens the selections filtered by; the others open them unfiltered.
FILTERED = ("selected", "explicit", "noRuntime")
# rules §21: the outcome of a selections row.
HAS = {
    "selected": lambda row: row["runtime"] is not None and not row["runtime"]["explicit"],
    "explicit": lambda row: row["runtime"] is not None and row["runtime"]["explicit"],
    "noRuntime": lambda row: row["runtime"] is None,
}
READ_TOTALS = """
const row = document.querySelector('#fleet-table tfoot tr');
return Object.fromEntries([...row.querySelectorAll('[data-col]')].map(
  (cell) => [cell.dataset.col, cell.textContent.replace(/\\s+/g, ' ').trim()]));
"""
# Each count cell's link, by cluster and column: its address (after `#`) and accessible name,
# or null for a count without one.
READ_LINKS = """
const links = {};
for (const row of document.querySelectorAll('#fleet-table tbody tr')) {
  links[row.dataset.cluster] = Object.fromEntries([...row.querySelectorAll('td.count')].map(
    (cell) => {
      const link = cell.querySelector('a');
      return [cell.dataset.col, link && [link.getAttribute('href'), link.ariaLabel]];
    }));
}
return links;
"""


@pytest.fixture(scope="module")
def web_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The page's service (conftest's ``page`` drives it) with the fleet of ``FLEET``."""
    with fleet_service(tmp_path_factory.mktemp("web-fleet-view"), VIEWER_READS) as service:
        yield service


def fleet(page, who: str) -> dict:
    status, answer = page.api("GET", "/v1/fleet", who=who)
    assert status == 200, answer
    return answer


def open_fleet(page, who: str, checks: int = 1) -> None:
    page.sign_in(who, "#/")
    page.wait_for(f'section.fleet[data-checks="{checks}"]')


def refresh(page) -> None:
    """Press Refresh and wait for its answer (not the one shown before)."""
    checks = int(page.find("section.fleet").get_attribute("data-checks"))
    page.find("#fleet-refresh").click()
    page.wait_for(f'section.fleet[data-checks="{checks + 1}"]')


def assert_fleet_shows(page, answer: dict, ages: tuple[dict, dict]) -> None:
    """Each row (name, generation, each count) and the totals as the API answers them; each
    catalog's `updatedAt` on its age, and the age as the answer's `ageSeconds` words it, between
    an answer asked before the page's and one asked after."""
    rows = page.table("#fleet-table")
    assert [row["name"] for row in rows] == [cluster["name"] for cluster in answer["clusters"]]
    for row, cluster in zip(rows, answer["clusters"], strict=True):
        assert row["generation"] == str(cluster["generation"])
        assert {name: row[name] for name in COUNTS} == {
            name: str(cluster["inferenceServices"][name]) for name in COUNTS
        }
        name = cluster["name"]
        shown = page.find(f'tr[data-cluster="{name}"] time')
        assert shown.get_attribute("datetime") == cluster["syncedAt"]
        assert shown.get_attribute("title") == (
            f"synced {cluster['syncedAt']}; last changed {cluster['updatedAt']}"
        )
        before, after = (each[name] for each in ages)
        assert row["synced"] in {age_text(age) for age in range(before, after + 1)}
    totals = page.driver.execute_script(READ_TOTALS)
    assert totals == {
        "name": "Total",
        "generation": "",
        "synced": "",
        **{name: str(answer["totals"][name]) for name in COUNTS},
    }
    hidden = answer["notReadable"]
    shown = page.find_all("#fleet-not-readable strong")
    noun = "cluster" if hidden == 1 else "clusters"
    assert [line.text for line in shown] == ([f"{hidden} {noun} not readable"] if hidden else [])


def ages_of(answer: dict) -> dict[str, int]:
    """Each catalog's time since its last sync, in the service's seconds (as the page works
    it out: ``ageSeconds`` less the time from ``updatedAt`` to ``syncedAt``)."""
    return {cluster["name"]: sync_age(cluster) for cluster in answer["clusters"]}


def sync_age(cluster: dict) -> int:
    synced, updated = (
        datetime.fromisoformat(cluster[key].replace("Z", "+00:00"))
        for key in ("syncedAt", "updatedAt")
    )
    return max(0, cluster["ageSeconds"] - math.floor((synced - updated).total_seconds()))


def shown_fleet(page, who: str) -> dict:
    """Open `#/` as `who` and check what it shows against the API's answer, which it returns."""
    before = fleet(page, who)
    open_fleet(page, who)
    answer = fleet(page, who)
    assert [c["generation"] for c in answer["clusters"]] == [
        c["generation"] for c in before["clusters"]
    ]
    assert_fleet_shows(page, answer, (ages_of(before), ages_of(answer)))
    return answer


def test_the_fleet_is_the_landing_view_and_shows_each_cluster_as_the_api_answers(page, emulated):
    answer = shown_fleet(page, "admin")
    # The fleet as built: fleet-a (pushed twice: a generation of its own) has every one of the
    # three outcomes and one InferenceService lint would refuse; fleet-b auto-selects both of
    # its own; fleet-c's one names its runtime.
    assert {c["name"]: (c["generation"], c["inferenceServices"]) for c in answer["clusters"]} == {
        "fleet-a": (3, dict(zip(COUNTS, (4, 1, 1, 2, 1, 0, 0), strict=True))),
        "fleet-b": (2, dict(zip(COUNTS, (2, 2, 0, 0, 0, 0, 0), strict=True))),
        "fleet-c": (2, dict(zip(COUNTS, (1, 0, 1, 0, 0, 0, 0), strict=True))),
    }
    assert answer["notReadable"] == 0
    assert page.driver.title == "Fleet · ome-ranker"
    assert page.find("#nav-fleet").get_attribute("aria-current") == "page"
    assert page.text("#fleet-checked") == ""
    # A non-zero count is a link into the cluster's selections with its outcome; a zero is
    # none; the counts the selections cannot filter by open them unfiltered, and say so.
    links = page.driver.execute_script(READ_LINKS)
    for cluster in answer["clusters"]:
        name = cluster["name"]
        for column in COUNTS:
            count = cluster["inferenceServices"][column]
            link = links[name][column]
            if not count:
                assert link is None, (name, column)
                continue
            address, label = link
            if column in FILTERED:
                assert address == f"#/clusters/{name}?outcome={column}"
            else:
                assert address == f"#/clusters/{name}"
            noun = "InferenceService" if count == 1 else "InferenceServices"
            assert label.startswith(f"{count} {noun}")
            assert f" in {name}" in label
            assert label.endswith("(opens every selection, unfiltered)") == (
                column not in (*FILTERED, "total")
            )
    # Table semantics: a region around it, a caption, column headers, each row's header its
    # cluster (a link to its selections), the totals a row of their own with its header.
    region = page.find(".fleet .scroll[role=region]")
    assert region.get_attribute("aria-label") == "Fleet"
    assert page.text("#fleet-table caption").startswith("3 clusters: InferenceServices by outcome")
    assert page.find("#fleet-table").get_attribute("aria-describedby") == "fleet-how"
    assert [th.text for th in page.find_all("#fleet-table thead th[scope=col]")] == [
        "CLUSTER",
        "GENERATION",
        "SYNCED",
        "INFERENCESERVICES",
        "SELECTED",
        "EXPLICIT",
        "NO RUNTIME",
        "REFUSED",
        "CLASS UNKNOWN",
        "CLASS ERROR",
    ]
    assert [
        th.find_element("css selector", "a").get_attribute("href").split("#", 1)[1]
        for th in page.find_all("#fleet-table tbody th[scope=row]")
    ] == [f"/clusters/{cluster['name']}" for cluster in answer["clusters"]]
    assert page.text("#fleet-table tfoot th[scope=row]") == "Total"
    # The address without a fragment is the fleet too.
    page.driver.get(page.base + "/")
    page.wait_for('section.fleet[data-checks="1"] #fleet-table')
    # At 1 280 pixels the whole table is in view: neither the page nor its box scrolls.
    assert page.driver.execute_script("return window.innerWidth") == 1280
    assert not (page.page_overflows() or page.scrolls_sideways(".fleet .scroll"))
    page.screenshot("fleet.png")
    # The light theme, then the dark one.
    light_and_dark = page.light_and_dark("#fleet-table thead th", "backgroundColor")
    assert light_and_dark == ("rgb(246, 248, 250)", "rgb(22, 27, 34)")  # --panel of each theme
    assert page.console_errors() == []


def test_a_count_opens_the_selections_with_that_outcome(page):
    from selenium.webdriver.support.select import Select

    answer = fleet(page, "admin")
    opened = 0
    for cluster in answer["clusters"]:
        name = cluster["name"]
        status, selections = page.api("GET", f"/v1/clusters/{name}/selections", who="admin")
        assert status == 200
        rows = selections["selections"]
        for outcome in (*FILTERED, "refused"):
            count = cluster["inferenceServices"][outcome]
            if not count:
                continue
            open_fleet(page, "admin")
            page.find(f'tr[data-cluster="{name}"] td[data-col="{outcome}"] a').click()
            page.wait_for("#selections-table")
            opened += 1
            shown = [f"{row['namespace']}/{row['name']}" for row in page.table("#selections-table")]
            if outcome == "refused":  # the selections cannot tell: every one, unfiltered
                assert page.driver.current_url.endswith(f"#/clusters/{name}")
                assert page.find("#filter-outcome").get_attribute("value") == ""
                assert shown == [f"{row['namespace']}/{row['name']}" for row in rows]
                continue
            assert page.driver.current_url.endswith(f"#/clusters/{name}?outcome={outcome}")
            assert (
                Select(page.find("#filter-outcome")).first_selected_option.get_attribute("value")
                == outcome
            )
            expected = [f"{row['namespace']}/{row['name']}" for row in rows if HAS[outcome](row)]
            assert shown == expected
            assert len(shown) == count  # the fleet's count is the selections' rows
    assert opened == 6  # fleet-a: its three outcomes and its refused; fleet-b's; fleet-c's
    # `none`, the filter's earlier name in the address, still means no runtime.
    page.open("#/clusters/fleet-a?outcome=none")
    page.wait_for("#selections-table")
    assert page.find("#filter-outcome").get_attribute("value") == "noRuntime"
    assert [row["name"] for row in page.table("#selections-table")] == ["mistral-chat", "orphan"]
    assert page.console_errors() == []


def test_a_token_of_some_clusters_sees_the_others_counted_never_named(page):
    answer = shown_fleet(page, "viewer")
    assert [cluster["name"] for cluster in answer["clusters"]] == VIEWER_READS
    assert answer["notReadable"] == 1
    assert page.text("#fleet-not-readable") == (
        "1 cluster not readable (the token may not read it: left out, not named)"
    )
    assert "fleet-b" not in page.find("body").text
    assert "fleet-b" not in page.driver.page_source
    assert SECRETS["viewer"] not in page.driver.current_url
    assert SECRETS["viewer"] not in page.service.log_path.read_text()
    # Without a token the service's refusal is shown as it is given, and no table.
    page.use_token(None)
    page.wait_for(".fleet .error")
    status, refused = page.api("GET", "/v1/fleet", who=None)
    assert status == 401
    assert page.text(".fleet .error-title") == f"401 {refused['error']['code']}"
    assert page.text(".fleet .error-message") == refused["error"]["message"]
    assert page.find_all("#fleet-table") == []
    assert page.console_errors(api_statuses=(401,)) == []


def test_refresh_asks_with_the_etag_keeps_the_table_on_a_304_and_shows_a_change(page):
    # A cluster of this test's own, deleted afterwards: the others keep their generations.
    store_cluster(page.service, "fleet-d", "fleet-d", FLEET["fleet-c"])
    admin = bearer("admin")
    try:
        open_fleet(page, "admin")
        row = page.find('tr[data-cluster="fleet-d"]')
        refresh(page)
        assert page.text("#fleet-checked") == (
            "Unchanged since the last answer (304 Not Modified): the table is kept."
        )
        assert row.get_attribute("data-cluster") == "fleet-d"  # the same row, not drawn anew
        answer = fleet(page, "admin")
        ages = ages_of(answer)
        assert_fleet_shows(page, answer, (dict.fromkeys(ages, 0), ages))
        # A sync of fleet-d: an InferenceService more, with no runtime.
        lost = isvc_doc("lost", namespace="nowhere", model={"name": f"{SEED_MODEL}-gone"})
        status, _, body = page.service.request(
            "PUT",
            "/v1/clusters/fleet-d/objects",
            FLEET["fleet-c"] + b"\n---\n" + yaml.safe_dump(lost, sort_keys=False).encode(),
            {**YAML, **admin},
        )
        assert status == 200, body
        refresh(page)
        assert page.text("#fleet-checked") == (
            "Changed since the last answer: the table is the new one."
        )
        changed = fleet(page, "admin")
        counts = {c["name"]: c["inferenceServices"] for c in changed["clusters"]}
        assert (counts["fleet-d"]["total"], counts["fleet-d"]["noRuntime"]) == (2, 1)
        ages = ages_of(changed)
        assert_fleet_shows(page, changed, (dict.fromkeys(ages, 0), ages))
        link = page.find('tr[data-cluster="fleet-d"] td[data-col="noRuntime"] a')
        assert link.get_attribute("href").endswith("#/clusters/fleet-d?outcome=noRuntime")
        assert page.console_errors() == []
    finally:
        status = page.service.request("DELETE", "/v1/clusters/fleet-d", headers=admin)[0]
        assert status == 204


def test_the_fleet_fits_a_400_pixel_window(page, emulated):
    page.viewport(400)
    answer = shown_fleet(page, "admin")
    assert page.driver.execute_script("return window.innerWidth") == 400
    assert not page.page_overflows()
    # The table scrolls inside its own box; the heading, Refresh and the cluster names stay in
    # view.
    assert page.scrolls_sideways(".fleet .scroll")
    for css in (
        "#view-title",
        "#fleet-refresh",
        *(f'tr[data-cluster="{c["name"]}"] th a' for c in answer["clusters"]),
    ):
        left, right = page.driver.execute_script(
            "const box = arguments[0].getBoundingClientRect(); return [box.left, box.right];",
            page.find(css),
        )
        assert 0 <= left < right <= 400, (css, left, right)
    page.screenshot("fleet-narrow.png")
    # Scrolled to its last column, the box still shows each row's cluster beside its counts.
    box = page.find(".fleet .scroll")
    page.driver.execute_script("arguments[0].scrollLeft = arguments[0].scrollWidth;", box)
    right = page.driver.execute_script("return arguments[0].getBoundingClientRect().right;", box)
    for cluster in answer["clusters"]:
        where = f'tr[data-cluster="{cluster["name"]}"]'
        name, last = (
            page.driver.execute_script(
                "const box = arguments[0].getBoundingClientRect(); return [box.left, box.right];",
                page.find(f"{where} {css}"),
            )
            for css in ("th a", "td[data-col=classError]")
        )
        assert 0 <= name[0] < name[1] <= last[0] < last[1] <= right, (name, last)
    assert page.console_errors() == []


def test_ages_read_as_people_say_them(page):
    """format.js's ageText, run in the browser, against the words the tests expect."""
    page.open("#/try")
    seconds = [0, 59, 60, 179, 3599, 3600, 7199, 86399, 86400, 172800, None]
    shown = page.driver.execute_async_script(
        "const [values, done] = arguments;"
        "import('/ui/static/format.js').then((format) => done(values.map(format.ageText)));",
        seconds,
    )
    assert shown == [age_text(value) for value in seconds]
    assert shown[:4] == ["under a minute ago", "under a minute ago", "1 min ago", "2 min ago"]
    assert shown[5:] == ["1 h ago", "1 h ago", "23 h ago", "1 day ago", "2 days ago", "-"]


def test_an_empty_store_without_access_control_says_what_to_do_next(page, open_web_service):
    origin = f"http://127.0.0.1:{open_web_service.port}/"
    page.driver.get(f"{origin}#/")
    page.wait_for("#no-clusters")
    assert page.text("#no-clusters p") == "No cluster is stored yet."
    assert page.find_all("#fleet-table") == []
    assert page.find_all("#fleet-not-readable") == []
    # This page's errors: the fixture's own service, which needs a token, may still log the 401
    # of a request its page sent before this one was opened.
    errors = page.console_errors()
    assert [e for e in errors if e.get("source") != "network" or origin in e["message"]] == []
