"""The page at ``/`` in a real headless Chromium against a real gunicorn: what it shows is the
API's answer, field for field; it is usable by keyboard, on a narrow window, at 200 % zoom and
in dark mode; its Content-Security-Policy holds (no violation, no other console error). Each
view's screenshot is written to docs/screenshots/."""

from __future__ import annotations

import json
import threading
from urllib.parse import quote

import pytest
import yaml

from tests.web.catalog import (
    DISABLE_TEAM_LLAMA,
    LINTED,
    SEED_MODEL,
    SEED_PATH,
    SEED_YAML,
)
from tests.web.words import cell, expected_rows, impact_rows, runtime_entries, size_text

YAML = {"Content-Type": "application/yaml"}
CHAT_RANK = "/v1/clusters/prod/rank?inferenceService=" + quote("llama-demo/chat", safe="")


def explain_rows(text: str) -> list[dict[str, str]]:
    """The API's text table (``Accept: text/plain``), cut at its header's column starts."""
    header, *lines = text.splitlines()
    names = header.split()
    starts = [header.index(name) for name in names]
    ends = [*starts[1:], None]
    return [
        {
            name.lower(): line[start:end].strip()
            for name, start, end in zip(names, starts, ends, strict=True)
        }
        for line in lines
    ]


def stored_entries(page, cluster: str, answer: dict) -> dict[str, list]:
    """The runtimes' supportedModelFormats as the catalog stores them (what the page reads)."""
    runtimes = []
    for query in (
        "kind=ClusterServingRuntime",
        f"kind=ServingRuntime&namespace={answer['namespace']}",
    ):
        status, listed = page.api("GET", f"/v1/clusters/{cluster}/objects?{query}")
        assert status == 200
        runtimes += listed["items"]
    return runtime_entries(runtimes, answer["namespace"])


def assert_ranking_shows(page, answer: dict, text_table: str, entries: dict | None) -> None:
    shown = page.table("#ranking-table")
    assert shown == expected_rows(answer, entries)
    # The exact size distance is the title (tooltip) of the DISTANCE cell's abbreviation.
    titles = page.driver.execute_script(
        "return [...document.querySelectorAll('#ranking-table td[data-col=distance]')]"
        ".map((cell) => cell.querySelector('abbr') && cell.querySelector('abbr').title);"
    )
    expected = [size_text(row["distance"]) for row in answer["runtimes"]]
    assert titles == [exact if exact not in (None, text) else None for text, exact in expected]
    # The explain columns read exactly as the API's text table prints them.
    explain = ["runtime", "scope", "compatible", "priority", "weight", "reason"]
    assert [{key: row[key] for key in explain} for row in shown] == explain_rows(text_table)
    selected = answer["selected"]
    assert page.text("#selected-name") == (selected["name"] if selected else "none")
    assert page.text("#ranking-message") == answer["message"]
    summaries = page.find_all("#ranking-summary")
    assert [s.text for s in summaries] == ([answer["summary"]] if answer["summary"] else [])
    assert page.text("#model-name") == answer["model"]["name"]
    assert page.text("#target-namespace") == answer["namespace"]
    if selected:
        marked = page.find_all("#ranking-table tr.selected .marker")
        assert len(marked) == 1
        marked_row = page.find("#ranking-table tr.selected")
        assert marked_row.get_attribute("data-runtime") == selected["name"]


def test_clusters_need_a_token_and_show_what_it_may_read(page):
    page.open("#/clusters")
    page.use_token(None)
    page.driver.refresh()
    alert = page.wait_for(".error[role=alert]")
    status, refused = page.api("GET", "/v1/clusters", who=None)
    assert status == 401
    assert refused["error"]["message"] in alert.text
    assert "401 Unauthorized" in alert.text
    # A service with tokens asks for one, and says where it goes.
    assert "Enter a token above, in the token field" in alert.text
    assert page.find("meta[name=ome-ranker-access]").get_attribute("content") == "token"
    assert page.text("#token-state") == "No token."

    page.use_token("viewer")
    page.wait_for("#clusters-table")
    status, answer = page.api("GET", "/v1/clusters")
    assert status == 200
    rows = page.table("#clusters-table")
    assert [row["name"] for row in rows] == ["prod"]  # not "secret"
    (cluster,) = answer["clusters"]
    (row,) = rows
    assert row["generation"] == str(cluster["generation"])
    assert row["updatedAt"] == cluster["updatedAt"]
    assert row["description"] == cluster["description"]
    counts = {
        item.get_attribute("data-kind"): " ".join(item.text.split())
        for item in page.find_all('[data-cluster="prod"] [data-col=counts] li')
    }
    assert counts == {kind: f"{count} {kind}" for kind, count in cluster["counts"].items()}
    page.screenshot("clusters.png")
    assert page.console_errors(api_statuses=(401,)) == []


def test_a_token_that_may_not_read_a_cluster_sees_it_refused(page):
    page.sign_in("viewer", "#/clusters/secret")
    alert = page.wait_for(".error[role=alert]")
    status, refused = page.api("GET", "/v1/clusters/secret/selections")
    assert status == 403
    assert refused["error"]["message"] == "token viewer may not read cluster secret"
    assert page.text(".error-message") == refused["error"]["message"]
    assert "403 Forbidden" in alert.text
    page.open("#/clusters/secret/rank?model=x")
    assert page.wait_for(".error-message").text == refused["error"]["message"]
    assert page.console_errors(api_statuses=(403,)) == []


def test_selections_counts_and_filters(page):
    from selenium.webdriver.support.select import Select

    page.sign_in("viewer", "#/clusters")
    page.wait_for("#clusters-table a").click()
    page.wait_for("#selections-table")
    status, answer = page.api("GET", "/v1/clusters/prod/selections")
    assert status == 200
    rows = answer["selections"]

    def counts() -> dict[str, str]:
        return {
            name: page.text(f"#selection-counts [data-count={name}]")
            for name in ("total", "runtime", "selected", "explicit", "none")
        }

    def shown() -> list[str]:
        return [f"{row['namespace']}/{row['name']}" for row in page.table("#selections-table")]

    assert counts() == {
        "total": str(answer["count"]),
        "runtime": str(sum(row["runtime"] is not None for row in rows)),
        "selected": str(
            sum(bool(row["runtime"] and not row["runtime"]["explicit"]) for row in rows)
        ),
        "none": str(sum(row["runtime"] is None for row in rows)),
        "explicit": str(sum(bool(row["runtime"] and row["runtime"]["explicit"]) for row in rows)),
    }
    assert counts() == {"total": "4", "runtime": "2", "selected": "1", "none": "2", "explicit": "1"}
    table = page.table("#selections-table")
    assert [
        (r["namespace"], r["name"], r["model"], r["runtime"], r["scope"], r["explicit"])
        for r in table
    ] == [
        (
            row["namespace"],
            row["name"],
            row["model"],
            cell(row["runtime"] and row["runtime"]["name"]),
            cell(row["runtime"] and row["runtime"]["scope"]),
            cell(row["runtime"] and row["runtime"]["explicit"]),
        )
        for row in rows
    ]
    assert [r["message"] for r in table] == [row["message"] for row in rows]  # never cut
    page.screenshot("selections.png")

    outcome = Select(page.find("#filter-outcome"))
    outcome.select_by_value("noRuntime")
    assert shown() == [f"{r['namespace']}/{r['name']}" for r in rows if r["runtime"] is None]
    assert page.driver.current_url.endswith("#/clusters/prod?outcome=noRuntime")
    outcome.select_by_value("selected")
    assert shown() == ["llama-demo/chat"]
    outcome.select_by_value("explicit")
    assert shown() == ["llama-demo/pinned"]
    assert page.driver.current_url.endswith("#/clusters/prod?outcome=explicit")
    outcome.select_by_value("")
    Select(page.find("#filter-namespace")).select_by_value("llama-demo")
    assert shown() == ["llama-demo/chat", "llama-demo/pinned"]
    assert counts() == {"total": "2", "runtime": "2", "selected": "1", "none": "0", "explicit": "1"}
    status, narrowed = page.api("GET", "/v1/clusters/prod/selections?namespace=llama-demo")
    assert narrowed["count"] == 2
    assert page.console_errors() == []


def test_a_ranking_reads_as_the_api_answers_it(page):
    page.sign_in("viewer", "#/clusters/prod")
    page.wait_for('[data-isvc="llama-demo/chat"] a').click()
    page.wait_for("#ranking-table")
    assert page.driver.current_url.endswith(
        "#/clusters/prod/rank?inferenceService=llama-demo%2Fchat"
    )
    status, answer = page.api("GET", CHAT_RANK)
    assert status == 200
    _, text_table = page.api("GET", CHAT_RANK, headers={"Accept": "text/plain"})
    assert_ranking_shows(page, answer, text_table, stored_entries(page, "prod", answer))

    rows = {row["runtime"]: row for row in page.table("#ranking-table")}
    assert rows["srt-llama-small"]["to-win"] == (
        "priority 4 on the safetensors entry would make it first among the "
        "ClusterServingRuntimes; team-llama would still be selected (ServingRuntime team-llama "
        "in llama-demo qualifies and comes first whatever the score)"
    )
    # Sizes as OME users write them; the exact number in the tooltip.
    assert [rows[name]["distance"] for name in ("team-llama", "srt-llama-small")] == ["0", "7B"]
    large = page.find(
        '#ranking-table tr[data-runtime="srt-llama-large"] td[data-col=distance] abbr'
    )
    assert (large.text, large.get_dom_attribute("title")) == ("69B", "69000000000")
    assert rows["srt-llama-small"]["order"] == "below vllm-llama on size"
    assert rows["vllm-llama"]["order"] == "below team-llama on scope"
    assert rows["tgi-llama"]["to-win"] == (
        "autoSelect: true on the safetensors entry would make it eligible"
    )
    assert rows["tgi-llama"]["compatible"] == "No"
    # A long reason wraps inside its cell: all of it is there, on several lines.
    reason = page.find('#ranking-table tr[data-texts-of="onnx-runtime"] [data-col=reason]')
    assert reason.text.startswith("model format 'mt:safetensors")
    line_height = page.driver.execute_script(
        "return parseFloat(getComputedStyle(arguments[0]).lineHeight)", reason
    )
    assert reason.size["height"] > 1.5 * line_height
    page.screenshot("ranking.png")
    assert page.console_errors() == []


def test_try_it_ranks_a_local_file_with_no_token(page):
    page.sign_in(None, "#/try")
    # The stateless endpoints need no token; the catalogs do, and the page says so.
    unavailable = page.wait_for("#clusters-unavailable")
    assert "no token was sent: send Authorization: Bearer <token>" in unavailable.text
    page.find("#manifest-file").send_keys(str(SEED_PATH))
    page.wait_until(lambda: page.find("#manifests").get_attribute("value") == SEED_YAML.decode())
    page.find("#do-rank").click()
    page.wait_for("#result-rank #ranking-table")
    status, answer = page.api("POST", "/v1/rank", SEED_YAML, who=None, headers=YAML)
    assert status == 200
    _, text_table = page.api(
        "POST", "/v1/rank", SEED_YAML, who=None, headers={**YAML, "Accept": "text/plain"}
    )
    seed_entries = runtime_entries(seed_runtimes(), answer["namespace"])
    assert_ranking_shows(page, answer, text_table, seed_entries)
    assert [row["runtime"] for row in page.table("#ranking-table")] == [
        "team-llama",
        "vllm-llama",
        "srt-llama-small",
        "srt-llama-large",
    ]
    page.screenshot("try-it.png")
    assert page.console_errors(api_statuses=(401,)) == []


def test_try_it_sends_pasted_json_as_json(page):
    page.sign_in("viewer", "#/try")
    # A key given twice: JSON keeps the last, YAML refuses it, so only JSON is ranked.
    manifests = json.dumps(list(yaml.safe_load_all(SEED_YAML))).replace(
        '"metadata": {', '"metadata": {"labels": {}, "labels": {}, ', 1
    )
    status, _ = page.api("POST", "/v1/rank", manifests.encode(), headers=YAML)
    assert status == 400
    page.fill("#manifests", manifests)
    page.find("#do-rank").click()
    page.wait_for("#result-rank #ranking-table")
    status, answer = page.api(
        "POST", "/v1/rank", manifests.encode(), headers={"Content-Type": "application/json"}
    )
    assert status == 200
    assert [row["runtime"] for row in page.table("#ranking-table")] == [
        row["name"] for row in answer["runtimes"]
    ]
    assert page.console_errors() == []


def test_try_it_lints(page):
    page.sign_in("viewer", "#/try")
    page.fill("#manifests", LINTED)
    page.find("#do-lint").click()
    page.wait_for("#result-lint #lint-table")
    status, answer = page.api("POST", "/v1/lint", LINTED.encode(), who=None, headers=YAML)
    assert status == 200
    assert page.text("#lint-admitted") == cell(answer["admitted"]) == "No"
    for severity, count in answer["counts"].items():
        assert page.text(f'.lint [data-count="{severity}"]') == str(count)
    assert page.table("#lint-table") == [
        {
            "severity": finding["severity"],
            "kind": finding["kind"],
            "name": (
                finding["name"]
                if finding["namespace"] is None
                else f"{finding['namespace']}/{finding['name']}"
            ),
            "field": cell(finding["field"]),
            "message": finding["message"],
            "code": finding["code"],
        }
        for finding in answer["findings"]
    ]
    assert {finding["severity"] for finding in answer["findings"]} == {"error", "info"}
    page.screenshot("lint.png")
    assert page.console_errors() == []


def test_try_it_shows_the_impact_on_a_cluster(page):
    from selenium.webdriver.support.select import Select

    page.sign_in(None, "#/try")
    page.wait_for("#clusters-unavailable")
    page.fill("#manifests", DISABLE_TEAM_LLAMA)
    # The token typed after pasting: the clusters it may read come, the text stays.
    page.use_token("viewer")
    page.wait_for('#impact-cluster option[value="prod"]')
    assert page.find("#manifests").get_attribute("value") == DISABLE_TEAM_LLAMA
    assert page.find_all("#clusters-unavailable") == []
    Select(page.find("#impact-cluster")).select_by_value("prod")
    page.find("#do-impact").click()
    page.wait_for("#result-impact #impact-table")
    status, answer = page.api(
        "POST", "/v1/clusters/prod/impact", DISABLE_TEAM_LLAMA.encode(), headers=YAML
    )
    assert status == 200
    assert page.text("#impact-summary") == (
        f"Checked {answer['checked']} InferenceServices of prod; {answer['count']} would change."
    )
    assert page.table("#impact-table") == impact_rows(answer["changes"])
    assert [
        (row["name"], row["before"], row["after"]) for row in impact_rows(answer["changes"])
    ] == [("chat", "team-llama", "vllm-llama")]
    assert page.driver.current_url.endswith("#/try?cluster=prod")
    page.screenshot("impact.png")
    assert page.console_errors(api_statuses=(401,)) == []


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("kind: Foo\nmetadata: {name: x}\n", 400),
        (
            "kind: BaseModel\nmetadata: {name: x}\nspec: {modelFormat: {name: 3}}\n---\n"
            "kind: ClusterServingRuntime\nmetadata: {name: r}\n"
            "spec: {supportedModelFormats: [{priority: 0.5}]}\n",
            422,
        ),
    ],
    ids=["malformed", "invalid"],
)
def test_try_it_shows_error_answers_readably(page, body, status):
    page.sign_in("viewer", "#/try")
    page.fill("#manifests", body)
    page.find("#do-rank").click()
    alert = page.wait_for("#result-rank .error[role=alert]")
    answered, refused = page.api("POST", "/v1/rank", body.encode(), who=None, headers=YAML)
    assert answered == status
    error = refused["error"]
    assert page.text("#result-rank .error-title") == f"{status} {error['code']}"
    assert page.text("#result-rank .error-message") == error["message"]
    fields = [" ".join(item.text.split()) for item in page.find_all(".error-fields li")]
    assert fields == [
        f"{path}: {' '.join(messages)}" for path, messages in error.get("fields", {}).items()
    ]
    if status == 422:
        assert len(fields) >= 2
    assert alert.is_displayed()
    assert page.console_errors(api_statuses=(status,)) == []


def seed_runtimes() -> list[dict]:
    """The seed example's runtimes, its List flattened."""
    runtimes = []
    for document in yaml.safe_load_all(SEED_YAML):
        for item in document.get("items", [document]):
            if item["kind"].endswith("ServingRuntime"):
                runtimes.append(item)
    return runtimes


def _tab_through(page, presses: int) -> list[str]:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    reached = []
    for _ in range(presses):
        ActionChains(page.driver).send_keys(Keys.TAB).perform()
        reached.append(
            page.driver.execute_script(
                "const e = document.activeElement;"
                "return e.id || (e.tagName + ':' + e.textContent.trim());"
            )
        )
    return reached


def test_keyboard_reaches_the_controls_and_shows_focus(page):
    from selenium.webdriver.common.keys import Keys

    page.sign_in("viewer", "#/try")
    page.driver.execute_script("document.activeElement.blur()")
    reached = _tab_through(page, 20)
    for control in (
        "nav-fleet",
        "nav-clusters",
        "nav-try",
        "token",
        "token-use",
        "token-forget",
        "manifests",
        "manifest-file",
        "try-namespace",
        "try-ome-version",
        "do-rank",
        "do-lint",
        "impact-cluster",
        "do-impact",
    ):
        assert control in reached, reached
    outline = page.driver.execute_script(
        "const style = getComputedStyle(document.activeElement);"
        "return [style.outlineStyle, style.outlineWidth];"
    )
    assert outline[0] != "none" and outline[1] != "0px", outline

    # A keyboard user ranks: focus the text area, type, Tab to "Rank", Enter.
    page.fill("#manifests", SEED_YAML.decode())
    page.find("#do-rank").send_keys(Keys.ENTER)
    page.wait_for("#result-rank #ranking-table")
    assert page.driver.execute_script("return document.activeElement.id") == "result-title"

    page.sign_in("viewer", "#/clusters/prod")
    page.wait_for("#selections-table")
    page.driver.execute_script("document.activeElement.blur()")
    reached = _tab_through(page, 20)
    for control in ("filter-namespace", "filter-outcome"):
        assert control in reached, reached
    assert any(item.startswith("A:") and "chat" in item for item in reached), reached
    assert page.console_errors() == []


def _check_views_fit(page) -> None:
    page.open("#/clusters")
    page.wait_for("#clusters-table")
    assert not page.page_overflows()
    page.open("#/clusters/prod")
    page.wait_for("#selections-table")
    assert not page.page_overflows()
    page.open("#/try")
    page.fill("#manifests", SEED_YAML.decode())
    page.find("#do-rank").click()
    page.wait_for("#result-rank #ranking-table")
    assert not page.page_overflows()
    page.open("#/clusters/prod/rank?inferenceService=llama-demo%2Fchat")
    page.wait_for("#ranking-table")
    assert not page.page_overflows()
    # The table scrolls inside its own box instead.
    scrolls = page.driver.execute_script(
        "const box = document.querySelector('.ranking .scroll');"
        "return box.scrollWidth > box.clientWidth;"
    )
    assert scrolls


def test_a_narrow_window_and_200_percent_zoom_never_scroll_the_page_sideways(page, emulated):
    page.sign_in("viewer", "#/clusters")
    page.viewport(400)
    assert page.driver.execute_script("return window.innerWidth") == 400
    _check_views_fit(page)
    page.screenshot("narrow.png")
    # 200 % zoom of a 1280-pixel window: 640 CSS pixels, each two device pixels.
    page.viewport(640, 2)
    _check_views_fit(page)
    assert page.console_errors() == []


# The words (runs of letters and digits) of the ranking's long texts that lie on more than one
# line: a text may wrap at spaces and after punctuation, never inside a word.
SPLIT_WORDS = """
const split = [];
for (const cell of document.querySelectorAll(arguments[0])) {
  if (cell.getClientRects().length === 0) continue;  // hidden: a "-"
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/\\w+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].map((box) => Math.round(box.top)));
      if (lines.size > 1) split.push(word[0]);
    }
  }
}
return split;
"""
RANK_TEXTS = ", ".join(
    f"#ranking-table tbody [data-col={key}]" for key in ("reason", "to-win", "way-out")
)


@pytest.mark.parametrize("width", [1280, 400])
def test_the_way_out_is_in_view_and_no_word_is_cut(page, emulated, width):
    """What a user came for, without scrolling sideways: each No row's way out lies inside the
    window (at 1280 pixels the whole table does), and the long texts wrap between words."""
    page.sign_in("viewer", "#/clusters/prod")
    page.viewport(width)
    page.open("#/clusters/prod/rank?inferenceService=llama-demo%2Fchat")
    page.wait_for("#ranking-table")
    window = page.driver.execute_script("return window.innerWidth")
    assert window == width
    ways_out = [
        shown
        for shown in page.find_all("#ranking-table tbody [data-col=way-out]")
        if shown.get_attribute("textContent").strip() != "-"
    ]
    assert len(ways_out) == 2  # onnx-runtime and tgi-llama do not qualify
    for shown in ways_out:
        assert shown.is_displayed()
        left, right = page.driver.execute_script(
            "const box = arguments[0].getBoundingClientRect(); return [box.left, box.right];", shown
        )
        assert 0 <= left < right <= window, (shown.text, left, right)
    if width == 1280:
        box = page.find(".ranking .scroll")
        sizes = page.driver.execute_script(
            "return [arguments[0].scrollWidth, arguments[0].clientWidth];", box
        )
        assert sizes[0] <= sizes[1], sizes  # nothing to scroll to
    assert page.driver.execute_script(SPLIT_WORDS, RANK_TEXTS) == []
    assert not page.page_overflows()
    assert page.console_errors() == []


def test_dark_mode_follows_the_system(page, emulated):
    page.sign_in("viewer", "#/clusters/prod/rank?inferenceService=llama-demo%2Fchat")
    page.wait_for("#ranking-table")
    light_and_dark = page.light_and_dark(":root", "backgroundColor")
    assert light_and_dark == ("rgb(255, 255, 255)", "rgb(13, 17, 23)")
    assert not page.page_overflows()
    page.screenshot("dark.png")
    assert page.console_errors() == []


def test_the_page_has_its_policy_and_loads_nothing_from_elsewhere(page):
    status, headers, _ = page.service.request("GET", "/")
    assert status == 200
    policy = headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "unsafe" not in policy
    page.open("#/clusters")
    resources = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
    )
    assert resources
    assert all(name.startswith(page.base + "/") for name in resources), resources
    assert page.console_errors(api_statuses=(401,)) == []


@pytest.fixture
def open_service(make_app, tmp_path):
    """The app with OME_RANKER_AUTH=none (the local quick start's setting), served by werkzeug
    in a thread, with the seed example stored as the cluster ``local``."""
    from werkzeug.serving import make_server

    app = make_app(STORE_PATH=str(tmp_path / "catalogs.sqlite3"))
    assert app.config["AUTH_MODE"] == "none"
    client = app.test_client()
    assert client.put("/v1/clusters/local", json={}).status_code == 201
    stored = client.put("/v1/clusters/local/objects", data=SEED_YAML, headers=YAML)
    assert stored.status_code == 200
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_with_auth_none_the_page_needs_no_token(page, open_service):
    page.driver.get(f"{open_service}/#/clusters")
    page.wait_for("#clusters-table")
    assert [row["name"] for row in page.table("#clusters-table")] == ["local"]
    # No token field, and no word of tokens anywhere on the page.
    assert page.find("meta[name=ome-ranker-access]").get_attribute("content") == "open"
    assert page.find_all("#token-form") == []
    assert "token" not in page.find("body").text.lower()
    page.driver.get(f"{open_service}/#/clusters/local/rank?model={SEED_MODEL}&namespace=llama-demo")
    page.wait_for("#ranking-table")
    assert page.text("#selected-name") == "team-llama"
    assert "token" not in page.find("body").text.lower()
    for view, ready in (("#/clusters/local", "#no-selections"), ("#/try", "#manifests")):
        page.driver.get(f"{open_service}/{view}")
        page.wait_for(ready)
        assert "token" not in page.find("body").text.lower(), view
    assert page.console_errors() == []
