"""Try it's impact on every cluster in a real headless Chromium against a real gunicorn holding a
fleet of three clusters: what the page shows is ``POST /v1/fleet/impact``'s answer, cluster by
cluster and row by row; a token that may read some clusters sees the others counted, never
named; the view has headings and table semantics, fits 1 280 and 400 pixels without scrolling
the page sideways, and follows the dark theme."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers import YAML, Service
from tests.web.catalog import DISABLE_TEAM_LLAMA
from tests.web.support import SECRETS, fleet_service
from tests.web.words import impact_rows

# The token `viewer` may read these; `admin` writes (and so reads) every cluster.
VIEWER_READS = ["fleet-a", "fleet-c"]


@pytest.fixture(scope="module")
def web_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The page's service (conftest's ``page`` drives it) with the fleet of ``FLEET``."""
    with fleet_service(tmp_path_factory.mktemp("web-fleet"), VIEWER_READS) as service:
        yield service


def fleet_impact(page, who: str) -> dict:
    """Paste the change, choose "Every cluster", press Impact; the API's answer to compare."""
    from selenium.webdriver.support.select import Select

    page.sign_in(who, "#/try")
    page.wait_for('#impact-cluster option[value="fleet-a"]')
    page.fill("#manifests", DISABLE_TEAM_LLAMA)
    Select(page.find("#impact-cluster")).select_by_value("*")
    assert page.text("#do-impact") == "Impact on every cluster"
    page.find("#do-impact").click()
    page.wait_for("#result-fleet")
    assert page.find_all("#result-fleet .error") == []
    status, answer = page.api(
        "POST", "/v1/fleet/impact", DISABLE_TEAM_LLAMA.encode(), who=who, headers=YAML
    )
    assert status == 200, answer
    return answer


def assert_fleet_shows(page, answer: dict) -> None:
    """The summary, a section per cluster with changes (name, generation, counts, rows), the
    clusters without on one line, and the clusters not readable counted."""
    assert page.text("#fleet-impact-summary") == answer["summary"]
    moved = [part for part in answer["clusters"] if part["count"]]
    sections = page.find_all("#result-fleet section.fleet-cluster")
    assert [section.get_attribute("data-cluster") for section in sections] == [
        part["cluster"] for part in moved
    ]
    for part in moved:
        where = f'#result-fleet section[data-cluster="{part["cluster"]}"]'
        assert page.text(f"{where} h3") == part["cluster"]
        noun = "InferenceService" if part["checked"] == 1 else "InferenceServices"
        assert page.text(f"{where} .fleet-cluster-counts") == (
            f"Generation {part['generation']}: checked {part['checked']} {noun}; "
            f"{part['count']} would change."
        )
        assert page.table(f"{where} table") == impact_rows(part["changes"])
    unmoved = [part["cluster"] for part in answer["clusters"] if not part["count"]]
    shown = page.find_all("#fleet-unchanged")
    assert [" ".join(line.text.split()) for line in shown] == (
        [f"No change in {', '.join(unmoved)}."] if unmoved else []
    )
    hidden = answer["notReadable"]
    shown = page.find_all("#fleet-not-readable strong")
    noun = "cluster" if hidden == 1 else "clusters"
    assert [line.text for line in shown] == ([f"{hidden} {noun} not readable"] if hidden else [])


def test_every_cluster_shows_each_clusters_changes_as_the_api_answers(page, emulated):
    answer = fleet_impact(page, "admin")
    # The fleet as built: one row moves in fleet-a (pushed twice: a generation of its own), two
    # in fleet-b, none in fleet-c; so the page's sections, rows and "no change" line, and the
    # generation of each, are each put to the test.
    parts = {part["cluster"]: part for part in answer["clusters"]}
    assert {name: (part["generation"], part["count"]) for name, part in parts.items()} == {
        "fleet-a": (3, 1),
        "fleet-b": (2, 2),
        "fleet-c": (2, 0),
    }
    assert answer["notReadable"] == 0
    assert_fleet_shows(page, answer)
    assert page.text("#result-title") == (
        "InferenceServices this change would move in every cluster"
    )
    assert page.driver.execute_script("return document.activeElement.id") == "result-title"
    # The choice is in the address (and the token is not).
    url = page.driver.current_url
    assert url.endswith("#/try?cluster=*")
    assert SECRETS["admin"] not in url
    # Headings and table semantics: a section named by its h3, a region per table, column
    # headers, and each row's header its InferenceService, a link to its ranking there.
    for part in answer["clusters"]:
        if not part["count"]:
            continue
        name = part["cluster"]
        section = page.find(f'section[data-cluster="{name}"]')
        heading = page.find(f"#{section.get_attribute('aria-labelledby')}")
        assert (heading.tag_name, heading.text) == ("h3", name)
        region = section.find_element("css selector", ".scroll[role=region]")
        assert region.get_attribute("aria-label") == f"Changed InferenceServices in {name}"
        columns = section.find_elements("css selector", "thead th[scope=col]")
        assert len(columns) == 7
        links = [
            link.get_attribute("href").split("#", 1)[1]
            for link in section.find_elements("css selector", "tbody th[scope=row] a")
        ]
        assert links == [
            f"/clusters/{name}/rank?inferenceService={change['namespace']}%2F{change['name']}"
            for change in part["changes"]
        ]
    # At 1 280 pixels nothing scrolls the page sideways; the light theme, then the dark one.
    assert page.driver.execute_script("return window.innerWidth") == 1280
    assert not page.page_overflows()
    page.screenshot("fleet-impact.png")
    light_and_dark = page.light_and_dark(".fleet-cluster", "borderLeftColor")
    assert light_and_dark == ("rgb(208, 215, 222)", "rgb(48, 54, 61)")  # --line of each theme
    assert page.console_errors() == []


def test_a_token_of_some_clusters_sees_the_others_counted_never_named(page):
    answer = fleet_impact(page, "viewer")
    assert [part["cluster"] for part in answer["clusters"]] == VIEWER_READS
    assert answer["notReadable"] == 1
    assert_fleet_shows(page, answer)
    assert page.text("#fleet-not-readable") == (
        "1 cluster not readable (the token may not read it: left out, not named)"
    )
    assert "fleet-b" not in page.find("body").text
    # The choice comes back with the address, and the token never goes into it or the log.
    page.open("#/sign-in")
    page.open("#/try?cluster=*")
    page.wait_for('#impact-cluster option[value="fleet-a"]')
    assert page.find("#impact-cluster").get_attribute("value") == "*"
    assert page.text("#do-impact") == "Impact on every cluster"
    assert SECRETS["viewer"] not in page.driver.current_url
    assert SECRETS["viewer"] not in page.service.log_path.read_text()
    # Without a token the service's refusal is shown as it is given, choice and text kept.
    page.fill("#manifests", DISABLE_TEAM_LLAMA)
    page.use_token(None)
    page.find("#do-impact").click()
    page.wait_for("#result-fleet .error")
    status, refused = page.api(
        "POST", "/v1/fleet/impact", DISABLE_TEAM_LLAMA.encode(), who=None, headers=YAML
    )
    assert status == 401
    assert page.text("#result-fleet .error-title") == f"401 {refused['error']['code']}"
    assert page.text("#result-fleet .error-message") == refused["error"]["message"]
    assert page.find_all("#result-fleet .fleet-impact") == []
    assert page.console_errors(api_statuses=(401,)) == []


def test_every_cluster_fits_a_400_pixel_window(page, emulated):
    page.sign_in("admin", "#/try")
    page.viewport(400)
    answer = fleet_impact(page, "admin")
    assert page.driver.execute_script("return window.innerWidth") == 400
    assert_fleet_shows(page, answer)
    assert not page.page_overflows()
    # Each cluster's table scrolls inside its own box; its heading and summary stay in view.
    for section in page.find_all("section.fleet-cluster"):
        box = section.find_element("css selector", ".scroll")
        sizes = page.driver.execute_script(
            "return [arguments[0].scrollWidth, arguments[0].clientWidth];", box
        )
        assert sizes[0] > sizes[1], sizes
        for css in ("h3", ".fleet-cluster-counts"):
            shown = section.find_element("css selector", css)
            left, right = page.driver.execute_script(
                "const box = arguments[0].getBoundingClientRect(); return [box.left, box.right];",
                shown,
            )
            assert 0 <= left < right <= 400, (css, left, right)
    page.screenshot("fleet-impact-narrow.png")
    assert page.console_errors() == []
