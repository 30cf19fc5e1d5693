"""The page's first ten minutes, in a real headless Chromium: a service without access control
that holds nothing yet says what to do next (and nothing of tokens); "Try it" loads the seed
example, ranks one of several InferenceServices of a `kubectl get -A` dump, and words its answer
as people write it (sizes, entries, what it takes to come first); a cluster without
InferenceServices says how to rank a model instead; the clusters table fits a 1280-pixel window.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from urllib.parse import quote

import yaml

from app.schemas.catalog_answers import STORED_KINDS
from tests.builders import entry, runtime_doc, serving_runtime
from tests.web.catalog import LLAMA, ROOT, SEED_MODEL, SEED_YAML
from tests.web.words import expected_rows, runtime_entries, size_text

YAML = {"Content-Type": "application/yaml"}
JSON = {"Content-Type": "application/json"}
KUBECTL_PATH = "examples/cluster.yaml"
KUBECTL_YAML = (ROOT / KUBECTL_PATH).read_bytes()


def objects_of(stream: bytes | str) -> list[dict]:
    """A stream's objects, Lists flattened, in order."""
    found = []
    for document in yaml.safe_load_all(stream):
        if document is not None:
            found += document["items"] if document.get("kind") == "List" else [document]
    return found


def name_of(item: dict) -> str:
    return item["metadata"]["name"]


def seed_runtimes() -> list[dict]:
    return [item for item in objects_of(SEED_YAML) if item["kind"].endswith("ServingRuntime")]


def seed_model() -> dict:
    (model,) = [item for item in objects_of(SEED_YAML) if item["kind"] == "BaseModel"]
    return model


def rank_on_page(page, label: str | None = None) -> None:
    """Press Rank and wait for this answer (not the one shown before)."""
    before = page.driver.execute_script(
        "const shown = document.querySelector('.result');"
        "return shown ? Number(shown.dataset.answer) : 0;"
    )
    page.find("#do-rank").click()
    page.wait_for(f'#result-rank[data-answer="{before + 1}"]')
    if label is not None:
        assert label in page.text("#result-title")


def assert_shows(page, answer: dict, entries: dict | None) -> None:
    assert page.table("#ranking-table") == expected_rows(answer, entries)
    assert page.text("#model-name") == answer["model"]["name"]
    assert page.text("#selected-name") == (answer["selected"] or {}).get("name", "none")
    assert page.text("#ranking-message") == answer["message"]
    assert page.find_all("#ignored-table") == []  # nothing sent that the ranking does not read


# --- no access control, nothing stored ---------------------------------------------------------


def test_without_access_control_the_page_speaks_of_no_token_and_shows_the_next_step(
    page, open_web_service, emulated
):
    base = f"http://127.0.0.1:{open_web_service.port}"
    page.driver.get(f"{base}/#/clusters")
    steps = page.wait_for("#no-clusters")
    assert page.find("meta[name=ome-ranker-access]").get_attribute("content") == "open"
    assert page.find_all("#token-form") == []
    assert "token" not in page.find("body").text.lower()
    assert page.text("#no-clusters p") == "No cluster is stored yet."
    assert "No cluster that this token may read" not in steps.text
    # The commands to store the example cluster, exact, with this service's address.
    curl = page.find("#push-curl").text
    assert curl == (
        f"curl -X PUT {base}/v1/clusters/demo\n"
        "curl -X PUT -H 'Content-Type: application/yaml' \\\n"
        f"  --data-binary @{KUBECTL_PATH} \\\n"
        f"  {base}/v1/clusters/demo/objects"
    )
    cli = page.find("#push-cli").text
    assert cli == f"ome-ranker push demo -f {KUBECTL_PATH} --server {base} --create"
    assert page.find("#no-clusters-try").get_attribute("href") == f"{base}/#/try"
    assert not page.page_overflows()
    page.screenshot("first-run.png")
    page.viewport(400)
    assert not page.page_overflows()  # the commands scroll inside their own box
    page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # They do what the page says: run from the checkout, then "look again".
    subprocess.run(["bash", "-euc", curl], cwd=ROOT, check=True, capture_output=True)
    page.find("#clusters-again").click()
    page.wait_for("#clusters-table")
    assert [row["name"] for row in page.table("#clusters-table")] == ["demo"]
    # The command line's version (python -m app.cli in a checkout), under another name.
    command = shlex.split(cli.replace(" demo ", " demo-cli "))
    subprocess.run(
        [sys.executable, "-m", "app.cli", *command[1:]], cwd=ROOT, check=True, capture_output=True
    )
    status, _, body = open_web_service.request("GET", "/v1/clusters")
    assert status == 200
    counts = {cluster["name"]: cluster["counts"] for cluster in json.loads(body)["clusters"]}
    assert counts["demo"] == counts["demo-cli"]
    assert counts["demo"]["InferenceService"] == 2
    assert page.console_errors() == []


# --- Try it -----------------------------------------------------------------------------------


def test_try_it_loads_the_seed_example_the_service_ships(page):
    page.sign_in("viewer", "#/try")
    assert page.find("#manifests").get_attribute("value") == ""
    page.find("#load-seed").click()
    page.wait_until(lambda: page.find("#manifests").get_attribute("value") == SEED_YAML.decode())
    # The very bytes of tests/fixtures/seed_example.yaml, from the file the service ships.
    status, headers, body = page.service.request("GET", "/ui/examples/seed_example.yaml")
    assert status == 200
    assert body == SEED_YAML
    assert headers["Content-Type"].startswith("application/yaml")
    assert page.find_all("#rank-pick") == []  # one model, no InferenceService: nothing to pick
    rank_on_page(page)
    status, answer = page.api("POST", "/v1/rank", SEED_YAML, headers=YAML)
    assert status == 200
    assert_shows(page, answer, runtime_entries(seed_runtimes(), answer["namespace"]))
    assert page.text("#selected-name") == "team-llama"
    assert page.console_errors() == []


def test_try_it_ranks_one_of_several_inference_services(page):
    from selenium.webdriver.support.select import Select

    everything = objects_of(KUBECTL_YAML)
    status, refused = page.api("POST", "/v1/rank", KUBECTL_YAML, headers=YAML)
    assert (status, refused["error"]["message"]) == (
        400,
        "the manifests must hold at most one InferenceService, found 2",
    )
    page.sign_in("viewer", "#/try")
    page.fill("#manifests", KUBECTL_YAML.decode())
    picker = Select(page.wait_for("#rank-pick"))
    assert [(option.text, option.get_attribute("value")) for option in picker.options] == [
        (
            "llama-demo/llama-chat (model llama-3-2-3b-instruct)",
            "service|InferenceService|llama-demo|llama-chat",
        ),
        (
            "llama-demo/llama-pinned (model llama-3-2-3b-instruct)",
            "service|InferenceService|llama-demo|llama-pinned",
        ),
        (
            "llama-demo/llama-3-2-3b-instruct (BaseModel)",
            "model|BaseModel|llama-demo|llama-3-2-3b-instruct",
        ),
    ]
    assert page.text("#pick-why").startswith(
        "The manifests hold 2 InferenceServices and 1 model; a ranking is of one model and at "
        "most one InferenceService."
    )
    assert picker.first_selected_option.text.startswith("llama-demo/llama-chat")
    page.screenshot("try-it-pick.png")
    runtimes = [item for item in everything if item["kind"].endswith("ServingRuntime")]
    entries = runtime_entries(runtimes, "llama-demo")
    (model,) = [item for item in everything if item["kind"] == "BaseModel"]
    services = {name_of(item): item for item in everything if item["kind"] == "InferenceService"}

    def answer_for(*chosen: dict) -> dict:
        # What the command line's --inference-service / --model send: the chosen objects and
        # every runtime.
        kept = [item for item in everything if item in runtimes or item in chosen]
        status, answer = page.api("POST", "/v1/rank", json.dumps(kept).encode(), headers=JSON)
        assert status == 200, answer
        return answer

    # The first InferenceService, as offered.
    rank_on_page(page, "InferenceService llama-demo/llama-chat")
    assert_shows(page, answer_for(model, services["llama-chat"]), entries)
    assert page.text("#selected-name") == "team-llama"
    # The one that names its runtime.
    picker = Select(page.find("#rank-pick"))
    picker.select_by_value("service|InferenceService|llama-demo|llama-pinned")
    rank_on_page(page, "InferenceService llama-demo/llama-pinned")
    pinned = answer_for(model, services["llama-pinned"])
    assert_shows(page, pinned, entries)
    rows = {row["runtime"]: row for row in page.table("#ranking-table")}
    assert page.text("#selected-name") == "srt-llama-large"
    note = (
        "spec.runtime names srt-llama-large: OME uses that runtime and selects none automatically"
    )
    assert rows["srt-llama-small"]["to-win"] == (
        "priority 4 on the safetensors entry would make it first among the "
        f"ClusterServingRuntimes; srt-llama-large would still be selected ({note})"
    )
    assert rows["srt-llama-large"]["to-win"] == (
        "priority 4 on the safetensors entry would make it first among the "
        f"ClusterServingRuntimes; it is the selected runtime all the same ({note})"
    )
    # The model alone.
    Select(page.find("#rank-pick")).select_by_value(
        "model|BaseModel|llama-demo|llama-3-2-3b-instruct"
    )
    rank_on_page(page, "BaseModel llama-demo/llama-3-2-3b-instruct")
    assert_shows(page, answer_for(model), entries)

    # The same dump as kubectl get -o json prints it: JSON is cut and sent as JSON.
    page.fill("#manifests", json.dumps(yaml.safe_load(KUBECTL_YAML), indent=2))
    picker = Select(page.wait_for("#rank-pick"))
    picker.select_by_value("service|InferenceService|llama-demo|llama-pinned")
    rank_on_page(page, "InferenceService llama-demo/llama-pinned")
    assert_shows(page, pinned, entries)
    # Lint still reads every object.
    page.find("#do-lint").click()
    page.wait_for("#result-lint")
    assert page.find_all("#result-lint .error") == []
    assert page.console_errors() == []


def test_a_large_stream_gets_its_picker_once_typing_pauses(page):
    """Over 256 KiB the page cuts the stream when typing pauses, and at once when Rank is
    pressed."""
    (model,) = [item for item in objects_of(KUBECTL_YAML) if item["kind"] == "BaseModel"]
    (service,) = [item for item in objects_of(KUBECTL_YAML) if name_of(item) == "llama-chat"]
    services = [
        {**service, "metadata": {**service["metadata"], "name": f"chat-{n}"}} for n in range(300)
    ]
    stream = yaml.safe_dump_all([model, *seed_runtimes(), *services], sort_keys=False)
    assert len(stream) > 256 * 1024
    page.sign_in("viewer", "#/try")
    page.fill("#manifests", stream)
    options = page.wait_for("#rank-pick").find_elements("css selector", "option")
    assert len(options) == 301
    page.fill("#manifests", stream.replace("chat-299", "chat-last"))
    rank_on_page(page, "InferenceService llama-demo/chat-0")
    assert page.text("#selected-name") == "team-llama"
    assert page.find_all("#result-rank .error") == []
    assert page.console_errors() == []


def test_a_single_inference_service_among_several_models_is_the_question(page):
    other = yaml.safe_dump(
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterBaseModel",
            "metadata": {"name": "mistral-7b"},
            "spec": {"modelFormat": {"name": "gguf", "version": "3"}},
        }
    )
    service = yaml.safe_dump(
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "InferenceService",
            "metadata": {"name": "chat", "namespace": "llama-demo"},
            "spec": {"model": {"name": SEED_MODEL}},
        }
    )
    stream = f"{SEED_YAML.decode()}---\n{other}---\n{service}"
    page.sign_in("viewer", "#/try")
    page.fill("#manifests", stream)
    picker = page.wait_for("#rank-pick")
    # As ome-ranker rank does unasked: the InferenceService, with its own model.
    assert picker.get_attribute("value") == "service|InferenceService|llama-demo|chat"
    assert page.text("#pick-why").startswith("The manifests hold 1 InferenceService and 2 models")
    rank_on_page(page, "InferenceService llama-demo/chat")
    kept = [seed_model(), *seed_runtimes(), yaml.safe_load(service)]
    status, answer = page.api("POST", "/v1/rank", json.dumps(kept).encode(), headers=JSON)
    assert status == 200
    assert_shows(page, answer, runtime_entries(seed_runtimes(), "llama-demo"))
    assert page.console_errors() == []


def _case_streams() -> list[str]:
    """Every manifest stream of the OME docs cases (their ``manifests`` texts)."""
    streams = []
    for path in sorted((ROOT / "tests" / "ome_docs" / "cases").glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if isinstance(case, dict) and isinstance(case.get("manifests"), str):
                streams.append(case["manifests"])
    return streams


def test_the_page_cuts_streams_into_the_objects_the_service_reads(page):
    """The page reads a pasted stream only to cut it into objects: each object's value is what
    YAML says, and each object's own text (what the page sends) reads back as that value."""
    streams = [SEED_YAML.decode(), KUBECTL_YAML.decode(), *_case_streams()]
    assert len(streams) > 100
    page.open("#/try")
    read = page.driver.execute_async_script(
        "const [streams, done] = arguments;"
        "import('/ui/static/manifests.js').then((m) => done(streams.map((text) => {"
        "  const stream = m.readStream(text);"
        "  return stream && stream.objects.map((item) => [item.value, item.source]);"
        "})));",
        streams,
    )
    for text, objects in zip(streams, read, strict=True):
        assert objects is not None, text[:200]
        expected = json.loads(json.dumps(objects_of(text), default=str))
        assert [value for value, _ in objects] == expected
        for value, source in objects:
            assert json.loads(json.dumps(yaml.safe_load(source), default=str)) == value
    # What it cannot read it leaves whole (null): the service then reads the stream.
    unread = page.driver.execute_async_script(
        "const [streams, done] = arguments;"
        "import('/ui/static/manifests.js').then((m) => done(streams.map(m.readStream)));",
        [
            "kind: A\nmetadata: &m {name: a}\n",
            "kind: A\nmetadata: {name: !!str a}\n",
            "%YAML 1.2\n---\nkind: A\n",
        ],
    )
    assert unread == [None, None, None]
    assert page.console_errors(api_statuses=(401,)) == []


# --- how the ranking is worded -----------------------------------------------------------------


def test_sizes_read_as_people_write_them(page):
    page.open("#/try")
    values = [0, 500000, 7e8, 1.5e9, 3.21e9, 69e9, 1234567890, 2e12, None]
    shown = page.driver.execute_async_script(
        "const [values, done] = arguments;"
        "import('/ui/static/format.js').then((m) => done(values.map((v) => m.sizeText(v))));",
        values,
    )
    assert [item["text"] for item in shown] == [
        "0",
        "500000",
        "700M",
        "1.5B",
        "3.21B",
        "69B",
        "≈1.235B",
        "2T",
        "-",
    ]
    assert [(item["text"], item["exact"]) for item in shown] == [size_text(v) for v in values]
    assert page.console_errors(api_statuses=(401,)) == []


WORDS = [
    seed_model(),
    runtime_doc("top", entry(priority=5, **LLAMA)),
    runtime_doc("named", entry(name="llama-fmt", priority=1, **LLAMA)),
    runtime_doc("twins", entry(priority=1, **LLAMA), entry(priority=1, weight=3, **LLAMA)),
    runtime_doc("later", entry(format_name="onnx", **LLAMA), entry(priority=1, **LLAMA)),
]
TEAM = [
    serving_runtime("team-a", entry(priority=3, **LLAMA), namespace="llama-demo"),
    serving_runtime("team-b", entry(priority=1, **LLAMA), namespace="llama-demo"),
]


def test_to_come_first_names_the_entry_and_never_contradicts_itself(page):
    page.sign_in("viewer", "#/try")

    def rank(documents: list[dict], extra: str = "") -> tuple[dict, dict[str, str]]:
        text = yaml.safe_dump_all(documents, sort_keys=False) + extra
        page.fill("#manifests", text)
        rank_on_page(page)
        status, answer = page.api("POST", "/v1/rank", text.encode(), headers=YAML)
        assert status == 200, answer
        return answer, {row["runtime"]: row["to-win"] for row in page.table("#ranking-table")}

    # Cluster runtimes only: first among them is selected.
    answer, to_win = rank(WORDS)
    assert page.table("#ranking-table") == expected_rows(
        answer, runtime_entries(WORDS[1:], "llama-demo")
    )
    scope = "first among the ClusterServingRuntimes, so OME would select it"
    assert to_win == {
        "top": "-",
        "twins": (
            f"priority 3 on the safetensors entry (supportedModelFormats[1]) would make it {scope}"
        ),
        "later": f"priority 5 on the safetensors entry would make it {scope}",
        "named": f'priority 5 on entry "llama-fmt" would make it {scope}',
    }
    # With ServingRuntimes in the target namespace: the first of them stays selected.
    answer, to_win = rank(WORDS + TEAM)
    assert page.text("#selected-name") == "team-a"
    assert to_win["team-b"] == (
        "priority 4 on the safetensors entry would make it first among the ServingRuntimes in "
        "llama-demo, so OME would select it"
    )
    assert to_win["later"] == (
        "priority 5 on the safetensors entry would make it first among the "
        "ClusterServingRuntimes; team-a would still be selected (ServingRuntime team-a in "
        "llama-demo qualifies and comes first whatever the score)"
    )
    assert page.table("#ranking-table") == expected_rows(
        answer, runtime_entries(WORDS[1:] + TEAM, "llama-demo")
    )
    # A stream the page cannot cut (an anchor): the entries are numbered instead.
    anchored = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: &meta {name: settings}\n"
    answer, to_win = rank(WORDS, anchored)
    assert to_win["twins"] == (
        f"priority 3 on entry 1 (the 2nd supportedModelFormats item) would make it {scope}"
    )
    assert to_win["named"] == (
        f"priority 5 on entry 0 (the 1st supportedModelFormats item) would make it {scope}"
    )
    assert page.table("#ranking-table") == expected_rows(answer, None)
    assert page.console_errors() == []


# --- a cluster without InferenceServices, and the clusters table at 1280 pixels ---------------


def test_a_cluster_without_inference_services_says_how_to_rank_a_model(page):
    admin = {"who": "admin"}
    status, _ = page.api("PUT", "/v1/clusters/models-only", b"{}", headers=JSON, **admin)
    assert status == 201
    status, _ = page.api(
        "PUT", "/v1/clusters/models-only/objects", SEED_YAML, headers=YAML, **admin
    )
    assert status == 200
    page.sign_in("admin", "#/clusters/models-only")
    note = page.wait_for("#no-selections")
    assert note.text.startswith(
        "models-only holds no InferenceService, so there is no selection to list. To see which "
        "runtime a model would get, rank the model by name instead"
    )
    assert page.find_all("#selections-table") == []
    link = page.wait_for("#cluster-models a")
    assert " ".join(page.text("#cluster-models li").split()) == (
        f"Rank {SEED_MODEL} (BaseModel, llama-demo)"
    )
    page.screenshot("no-selections.png")
    link.click()
    page.wait_for("#ranking-table")
    query = f"model={SEED_MODEL}&namespace=llama-demo&modelKind=BaseModel"
    assert page.driver.current_url.endswith(f"#/clusters/models-only/rank?{query}")
    status, answer = page.api("GET", f"/v1/clusters/models-only/rank?{query}", **admin)
    assert status == 200
    assert page.text("#selected-name") == answer["selected"]["name"] == "team-llama"
    assert page.console_errors() == []


def test_a_model_ranked_in_the_wrong_namespace_says_where_it_is(page):
    """The form "Rank a model" without a namespace, for a model the catalog holds in
    llama-demo: the API's hint under its error, and a link that asks there."""
    page.sign_in("viewer", "#/clusters/prod")
    page.wait_for("#rank-model-form")
    page.fill("#rank-model", SEED_MODEL)
    page.find("#rank-model-form button[type=submit]").click()
    page.wait_for(".error .error-hint")
    status, answer = page.api("GET", f"/v1/clusters/prod/rank?model={SEED_MODEL}")
    assert status == 404
    hint = "not in namespace default; found in llama-demo"
    assert page.text(".error .error-hint") == answer["error"]["hint"] == hint
    assert page.text("#model-elsewhere") == "Rank it in llama-demo"
    page.find("#model-elsewhere a").click()
    page.wait_for("#ranking-table")
    assert page.driver.current_url.endswith(
        f"#/clusters/prod/rank?model={SEED_MODEL}&namespace=llama-demo"
    )
    assert page.text("#selected-name") == "team-llama"
    assert page.console_errors(api_statuses=(404,)) == []


def test_the_clusters_table_fits_a_1280_pixel_window(page, emulated):
    description = "the production cluster of the east region, synced every five minutes"
    body = json.dumps({"description": description, "modelCacheProvider": "oci"}).encode()
    status, _ = page.api("PUT", "/v1/clusters/prod-east-2", body, headers=JSON, who="admin")
    assert status == 201
    page.sign_in("admin", "#/clusters")
    page.viewport(1280)
    page.wait_for('#clusters-table tr[data-cluster="prod-east-2"]')
    box = page.find("#clusters-table").find_element("xpath", "..")
    assert "scroll" in box.get_attribute("class")
    sizes = page.driver.execute_script(
        "return [arguments[0].scrollWidth, arguments[0].clientWidth];", box
    )
    assert sizes[0] <= sizes[1], sizes  # no sideways scroll
    # Every count (and the last column) is inside the box, on screen.
    right = page.driver.execute_script("return arguments[0].getBoundingClientRect().right;", box)
    shown = page.find_all("#clusters-table [data-kind], #clusters-table td[data-col=try] a")
    per_row = len(STORED_KINDS) + 1  # a count per stored kind, and the link
    assert len(shown) == per_row * len(page.table("#clusters-table")) >= per_row * 3
    for element in shown:
        edge = page.driver.execute_script(
            "return arguments[0].getBoundingClientRect().right;", element
        )
        assert element.is_displayed() and edge <= right, element.text
    assert not page.page_overflows()
    assert page.console_errors() == []


def test_a_ranking_link_of_the_catalog_names_the_entries_it_stores(page):
    """The cluster ranking reads the stored runtimes' entries (GET …/objects?kind=)."""
    status, _ = page.api("PUT", "/v1/clusters/words", b"{}", headers=JSON, who="admin")
    assert status == 201
    stream = yaml.safe_dump_all(WORDS, sort_keys=False).encode()
    status, _ = page.api("PUT", "/v1/clusters/words/objects", stream, headers=YAML, who="admin")
    assert status == 200
    page.sign_in("admin", "#/clusters/words")
    page.wait_for("#cluster-models a").click()
    page.wait_for("#ranking-table")
    rows = {row["runtime"]: row["to-win"] for row in page.table("#ranking-table")}
    assert rows["named"].startswith('priority 5 on entry "llama-fmt" would make it first')
    assert rows["twins"].startswith(
        "priority 3 on the safetensors entry (supportedModelFormats[1]) would make it first"
    )
    question = quote(SEED_MODEL)
    assert page.driver.current_url.endswith(
        f"#/clusters/words/rank?model={question}&namespace=llama-demo&modelKind=BaseModel"
    )
    assert page.console_errors() == []
