"""The selection history (rules §17.1) on the page, in a real headless Chromium against a real
gunicorn holding a cluster pushed three times through the API, each push moving something: a
cluster's selections list its history a heading per write and a line per InferenceService, as
``GET …/history`` answers it; "Load more" with a small page follows ``next`` to the end; an
InferenceService's ranking shows its own timeline, the filtered answer; a token never leaves the
header; the layout holds at 1 280 and 400 pixels, in the light and the dark theme."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from tests.servers import Service
from tests.web.catalog import HISTORY_PUSHES, LONG_NAME
from tests.web.support import SECRETS, page_service, store_cluster
from tests.web.words import history_change_text, history_heading, history_line, timeline_line

CLUSTER = "timeline"
HIDDEN = "hidden"  # a cluster the viewer may not read
# Each heading's generation and text, each line's seq and text, of the cluster's history.
READ_HISTORY = """
const text = (node) => node.textContent.replace(/\\s+/g, ' ').trim();
return [...document.querySelectorAll('#history-groups > li')].map((group) => ({
  generation: Number(group.dataset.generation),
  heading: text(group.querySelector('h3')),
  lines: [...group.querySelectorAll('ul > li')].map(
    (line) => [Number(line.dataset.seq), text(line)]),
}));
"""
READ_TIMELINE = """
const text = (node) => node.textContent.replace(/\\s+/g, ' ').trim();
return [...document.querySelectorAll('#isvc-history-lines > li')].map(
  (line) => [Number(line.dataset.seq), text(line)]);
"""


@pytest.fixture(scope="module")
def web_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """The page's service (conftest's ``page`` drives it) with ``timeline`` pushed three times
    and ``hidden``, which the viewer may not read."""
    service = page_service(tmp_path_factory.mktemp("web-history"), [CLUSTER])
    try:
        store_cluster(service, CLUSTER, "pushed three times", *HISTORY_PUSHES)
        store_cluster(service, HIDDEN, "not for viewers", HISTORY_PUSHES[0])
        yield service
    finally:
        service.stop()


def history(page, **query) -> dict:
    path = f"/v1/clusters/{CLUSTER}/history"
    status, answer = page.api("GET", f"{path}?{urlencode(query)}" if query else path)
    assert status == 200, answer
    return answer


def expected_groups(changes: list[dict], more: bool) -> list[dict]:
    """The headings and lines the history must show for these entries (newest first): a group
    per run of one generation, the last one `so far` when a next page may hold more of it."""
    groups: list[dict] = []
    for entry in changes:
        if not groups or groups[-1]["generation"] != entry["generation"]:
            groups.append({"generation": entry["generation"], "entries": []})
        groups[-1]["entries"].append(entry)
    return [
        {
            "generation": group["generation"],
            "heading": history_heading(group["entries"], more and index == len(groups) - 1),
            "lines": [[entry["seq"], history_line(entry)] for entry in group["entries"]],
        }
        for index, group in enumerate(groups)
    ]


def open_history(page, fragment: str, pages: int = 1) -> None:
    page.sign_in("viewer", fragment)
    page.wait_for(f'#history .history[data-pages="{pages}"], #history-none, #history .error')


def test_the_history_lists_each_write_as_the_api_answers_it(page, emulated):
    open_history(page, f"#/clusters/{CLUSTER}")
    answer = history(page)
    changes = answer["changes"]
    assert (answer["generation"], answer["next"]) == (4, None)  # created, then three pushes
    shown = page.driver.execute_script(READ_HISTORY)
    assert shown == expected_groups(changes, more=False)
    # What the three pushes did, in the page's words: every kind of line there is.
    assert [group["generation"] for group in shown] == [4, 3, 2]
    assert [len(group["lines"]) for group in shown] == [4, 3, 4]
    lines = [text for group in shown for _, text in group["lines"]]
    at = changes[0]["at"]
    assert shown[0]["heading"] == (
        f"generation 4, {at[:10]} {at[11:16]} UTC: 4 InferenceServices changed"
    )
    assert lines == [
        "llama-demo/assistant: vllm-llama → team-llama",
        "llama-demo/chat: vllm-llama → team-llama",
        "llama-demo/llama-3-3-70b: engine class nvidia-h100 → nvidia-h200 "
        "(runtime srt-llama-3-3-70b-instruct)",
        f"llama-demo/{LONG_NAME}: added → team-llama",
        "llama-demo/assistant: added → vllm-llama",
        "llama-demo/chat: team-llama → vllm-llama",
        "other/orphan: none → removed",
        "llama-demo/chat: added → team-llama",
        "llama-demo/llama-3-3-70b: added → srt-llama-3-3-70b-instruct",
        "llama-demo/pinned: added → srt-llama-large",
        "other/orphan: added → none",
    ]
    # Each write's time is the entry's own `at`, as the <time>'s value.
    times = page.find_all("#history-groups > li h3 time")
    assert [time.get_attribute("datetime") for time in times] == [
        next(entry["at"] for entry in changes if entry["generation"] == generation)
        for generation in (4, 3, 2)
    ]
    # Each InferenceService is a link to its ranking, where its own timeline is.
    chat = next(entry for entry in changes if entry["name"] == "chat")
    link = page.find(f'#history-groups li[data-seq="{chat["seq"]}"] a')
    assert link.get_attribute("href").endswith(
        f"#/clusters/{CLUSTER}/rank?inferenceService=llama-demo%2Fchat"
    )
    assert page.text("#history-shown") == (
        f"11 changes of {CLUSTER} shown, newest first (up to generation 4); "
        "no older change recorded."
    )
    assert page.find_all("#history-more") == []
    # Headings and lists: the section's heading, then a heading per write.
    assert page.find("#history").get_attribute("aria-labelledby") == "history-title"
    assert page.text("#history-title") == "History"
    assert page.find("#history-title").tag_name == "h2"
    # At 1 280 pixels nothing scrolls sideways; the light theme, then the dark one.
    assert page.driver.execute_script("return window.innerWidth") == 1280
    assert not page.page_overflows()
    light_and_dark = page.light_and_dark("#history-groups > li", "borderLeftColor")
    assert light_and_dark == ("rgb(208, 215, 222)", "rgb(48, 54, 61)")  # --line of each theme
    assert page.console_errors() == []


def test_load_more_follows_next_to_the_end(page):
    open_history(page, f"#/clusters/{CLUSTER}?historyLimit=3")
    pages = [history(page, limit=3)]
    while pages[-1]["next"] is not None:
        pages.append(history(page, limit=3, cursor=pages[-1]["next"]))
    assert [len(part["changes"]) for part in pages] == [3, 3, 3, 2]
    for number, part in enumerate(pages, start=1):
        page.wait_for(f'#history .history[data-pages="{number}"]')
        listed = [entry for earlier in pages[:number] for entry in earlier["changes"]]
        more = part["next"] is not None
        # The lines so far are the pages' entries; the write the page ends in says "so far".
        assert page.driver.execute_script(READ_HISTORY) == expected_groups(listed, more)
        assert bool(page.find_all("#history-more")) == more
        if more:
            page.find("#history-more").click()
    # Pages of 3 cut generations 4 and 2 (four entries each) in two; once all are in, each is
    # one heading.
    assert page.driver.execute_script(READ_HISTORY) == expected_groups(
        history(page)["changes"], more=False
    )
    # The focus, with the button gone, is on what says there is no more.
    assert page.driver.switch_to.active_element.get_attribute("id") == "history-shown"
    # The page size stays in the address when a filter changes it.
    from selenium.webdriver.support.select import Select

    Select(page.find("#filter-outcome")).select_by_value("selected")
    page.wait_until(lambda: "outcome=selected" in page.driver.current_url)
    assert page.driver.current_url.endswith(f"#/clusters/{CLUSTER}?outcome=selected&historyLimit=3")
    assert page.console_errors() == []


def test_an_inference_service_ranking_shows_its_own_timeline(page):
    page.sign_in("viewer", f"#/clusters/{CLUSTER}/rank?inferenceService=llama-demo/chat")
    page.wait_for("#isvc-history-lines")
    page.wait_for("#ranking-table")
    answer = history(page, namespace="llama-demo", name="chat")
    expected = [[entry["seq"], timeline_line(entry)] for entry in answer["changes"]]
    assert page.driver.execute_script(READ_TIMELINE) == expected
    assert [text.split(": ", 1)[1] for _, text in expected] == [
        "vllm-llama → team-llama",
        "team-llama → vllm-llama",
        "added → team-llama",
    ]
    assert page.text("#isvc-history-title") == "History of llama-demo/chat"
    # A small page: Load more follows `next` through the same entries.
    page.open(f"#/clusters/{CLUSTER}/rank?inferenceService=llama-demo/chat&historyLimit=1")
    for number in (1, 2, 3):
        page.wait_for(f'#isvc-history .history[data-pages="{number}"]')
        assert page.driver.execute_script(READ_TIMELINE) == expected[:number]
        if number < 3:
            page.find("#isvc-history-more").click()
    page.wait_until(lambda: not page.find_all("#isvc-history-more"))
    # An InferenceService the last push removed: no ranking, but its timeline.
    page.open(f"#/clusters/{CLUSTER}/rank?inferenceService=other/orphan")
    page.wait_for("#isvc-history-lines")
    page.wait_for("section .error")
    orphan = history(page, namespace="other", name="orphan")["changes"]
    assert [history_change_text(entry) for entry in orphan] == ["none → removed", "added → none"]
    assert page.driver.execute_script(READ_TIMELINE) == [
        [entry["seq"], timeline_line(entry)] for entry in orphan
    ]
    # One no write ever held.
    page.open(f"#/clusters/{CLUSTER}/rank?inferenceService=llama-demo/ghost")
    page.wait_for("#isvc-history-none")
    assert page.text("#isvc-history-none") == "No change recorded."
    assert history(page, namespace="llama-demo", name="ghost")["changes"] == []
    # A model ranked by name has no InferenceService, and no timeline.
    page.open(f"#/clusters/{CLUSTER}/rank?model=llama-3-2-3b-instruct&namespace=llama-demo")
    page.wait_for("#ranking-table")
    assert page.find_all("#isvc-history") == []
    assert page.console_errors(api_statuses=(404,)) == []


def test_the_token_stays_in_the_header_and_a_refusal_is_shown(page):
    open_history(page, f"#/clusters/{CLUSTER}")
    assert SECRETS["viewer"] not in page.driver.current_url
    assert SECRETS["viewer"] not in page.service.log_path.read_text()
    page.open(f"#/clusters/{HIDDEN}")
    page.wait_for("#history .error")
    status, refused = page.api("GET", f"/v1/clusters/{HIDDEN}/history")
    assert status == 403
    assert page.text("#history .error-title") == f"403 {refused['error']['code']}"
    assert page.text("#history .error-message") == refused["error"]["message"]
    assert page.find_all("#history-groups") == []
    assert page.console_errors(api_statuses=(403,)) == []


def test_the_history_fits_a_400_pixel_window(page, emulated):
    page.viewport(400)
    for fragment, lines in (
        (f"#/clusters/{CLUSTER}", "#history-groups li"),
        (
            f"#/clusters/{CLUSTER}/rank?inferenceService=llama-demo/{LONG_NAME}",
            "#isvc-history-lines li",
        ),
    ):
        page.sign_in("viewer", fragment)
        page.wait_for(lines)
        assert page.driver.execute_script("return window.innerWidth") == 400
        assert not page.page_overflows(), fragment
        for line in page.find_all(lines):
            left, right = page.driver.execute_script(
                "const box = arguments[0].getBoundingClientRect(); return [box.left, box.right];",
                line,
            )
            assert 0 <= left < right <= 400, (fragment, line.text, left, right)
    assert page.console_errors() == []


# Entries the pushes above do not make: a mark, a class, scope or outcome alone, nothing of the
# five fields.
SIDE = {
    "runtime": "team-llama",
    "scope": "Namespaced",
    "engineClass": None,
    "decoderClass": None,
    "outcome": "selected",
}
ENTRIES = [
    {"truncated": "the write changed 12 InferenceServices; … (OME_RANKER_HISTORY_MAX_CHANGES)"},
    {"before": SIDE, "after": {**SIDE, "scope": "Cluster"}},
    {"before": SIDE, "after": {**SIDE, "outcome": "explicit"}},
    {"before": SIDE, "after": {**SIDE, "decoderClass": "a100", "engineClass": "h100"}},
    {"before": {**SIDE, "decoderClass": "a100"}, "after": SIDE},
    {"before": SIDE, "after": SIDE},
    {"before": {**SIDE, "runtime": None, "scope": None, "outcome": "noRuntime"}, "after": None},
    {"before": SIDE, "after": {**SIDE, "runtime": None, "scope": None, "outcome": "noRuntime"}},
]


def test_each_kind_of_change_reads_as_the_words_the_tests_expect(page):
    """format.js's historyChangeText, run in the browser, against tests/web/words.py."""
    page.open("#/try")
    entries = [
        {"truncated": None, "before": None, "after": None, "namespace": "n", "name": "x", **entry}
        for entry in ENTRIES
    ]
    shown = page.driver.execute_async_script(
        "const [values, done] = arguments;"
        "import('/ui/static/format.js').then((f) => done(values.map(f.historyChangeText)));",
        entries,
    )
    assert shown == [history_change_text(entry) for entry in entries]
    assert shown == [
        "changes not listed: the write changed 12 InferenceServices; … "
        "(OME_RANKER_HISTORY_MAX_CHANGES)",
        "scope Namespaced → Cluster (runtime team-llama)",
        "outcome selected → explicit (runtime team-llama)",
        "engine class none → h100, decoder class none → a100 (runtime team-llama)",
        "decoder class a100 → none (runtime team-llama)",
        "still team-llama (OME's message or placement changed)",
        "none → removed",
        "team-llama → none",
    ]
    times = ["2026-12-01T09:12:59.999Z", "2026-12-01T23:59:00.000+02:00"]
    written = page.driver.execute_async_script(
        "const [values, done] = arguments;"
        "import('/ui/static/format.js').then((f) => done(values.map(f.historyTimeText)));",
        times,
    )
    assert written == ["2026-12-01 09:12 UTC", "2026-12-01 21:59 UTC"]
