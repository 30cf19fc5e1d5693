"""The browser on the service's page, as the browser tests drive it (``Page``): the API to compare
with, waiting, reading tables, typing, tokens, console errors, emulated screens, screenshots; and
the tokens of the service the fixtures of ``tests/web/conftest.py`` start."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.builders import token_file
from tests.paths import ROOT
from tests.servers import YAML, Service
from tests.web.catalog import FLEET, SEED_YAML

SCREENSHOTS = ROOT / "docs" / "screenshots"
SECRETS = {"admin": "web-admin-secret", "viewer": "web-viewer-secret"}
WINDOW = (1280, 900)
CHROME_ARGUMENTS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-dev-shm-usage",
    f"--window-size={WINDOW[0]},{WINDOW[1]}",
    "--lang=en-US",
    "--force-color-profile=srgb",
    "--hide-scrollbars",
    "--disable-extensions",
    "--no-first-run",
)
# Reads a table into rows of {data-col: text}; the marker of the selected runtime is left out.
READ_TABLE = """
const rows = [...document.querySelectorAll(arguments[0] + ' tbody tr:not(.rank-texts)')];
return rows.map((row) => {
  const under = row.nextElementSibling;
  const texts = under && under.matches('.rank-texts') ? under.querySelectorAll('[data-col]') : [];
  return Object.fromEntries([...row.querySelectorAll('[data-col]'), ...texts].map((cell) => {
    const copy = cell.cloneNode(true);
    copy.querySelectorAll('.marker, .badge').forEach((node) => node.remove());
    return [cell.dataset.col, copy.textContent.replace(/\\s+/g, ' ').trim()];
  }));
});
"""
# The same, but a cell of list items reads as the list of their texts.
READ_TABLE_ITEMS = """
const text = (node) => node.textContent.replace(/\\s+/g, ' ').trim();
return [...document.querySelectorAll(arguments[0] + ' tbody tr')].map((row) =>
  Object.fromEntries([...row.querySelectorAll('[data-col]')].map((cell) => {
    const items = [...cell.querySelectorAll('li')];
    return [cell.dataset.col, items.length ? items.map(text) : text(cell)];
  })));
"""
# Sets a text control's value as typing would (an input event), much faster than send_keys.
FILL = """
const [element, text] = arguments;
element.value = text;
element.dispatchEvent(new Event('input', {bubbles: true}));
"""


def bearer(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {SECRETS[who]}"}


def page_service(directory: Path, viewer_reads: list[str]) -> Service:
    """gunicorn with a token file (``admin`` writes every cluster, ``viewer`` reads those of
    ``viewer_reads``) and a store of its own, started."""
    tokens = token_file(
        directory / "tokens.yaml",
        {"name": "admin", "secret": SECRETS["admin"], "write": ["*"]},
        {"name": "viewer", "secret": SECRETS["viewer"], "read": viewer_reads},
    )
    return Service(
        directory,
        OME_RANKER_TOKENS_FILE=tokens,
        OME_RANKER_STORE_PATH=str(directory / "catalogs.sqlite3"),
    ).start()


def store_cluster(service: Service, cluster: str, description: str, *catalogs: bytes) -> None:
    """Create ``cluster`` through the API as ``admin`` and write each catalog in turn."""
    admin = bearer("admin")
    body = json.dumps({"description": description}).encode()
    headers = {**admin, "Content-Type": "application/json"}
    status, _, answer = service.request("PUT", f"/v1/clusters/{cluster}", body, headers)
    assert status == 201, answer
    for catalog in catalogs:
        status, _, answer = service.request(
            "PUT", f"/v1/clusters/{cluster}/objects", catalog, {**YAML, **admin}
        )
        assert status == 200, answer


@contextmanager
def fleet_service(directory: Path, viewer_reads: list[str]) -> Iterator[Service]:
    """``page_service`` with the fleet of ``tests.web.catalog.FLEET`` stored through the API,
    stopped afterwards; fleet-a is written twice (the seed example first), so that the
    clusters' generations differ."""
    service = page_service(directory, viewer_reads)
    try:
        for cluster, catalog in FLEET.items():
            earlier = [SEED_YAML] if cluster == "fleet-a" else []
            store_cluster(service, cluster, cluster, *earlier, catalog)
        yield service
    finally:
        service.stop()


class Page:
    """The browser on the service's page, with what the tests do to it."""

    def __init__(self, driver: Any, service: Service) -> None:
        self.driver = driver
        self.service = service
        self.base = f"http://127.0.0.1:{service.port}"

    # --- the API, to compare with -------------------------------------------------------------

    def api(
        self, method: str, path: str, body: bytes | None = None, who: str | None = "viewer", **kw
    ) -> tuple[int, Any]:
        headers = {**(bearer(who) if who else {}), **kw.pop("headers", {})}
        status, _, answer = self.service.request(method, path, body, headers, **kw)
        text = answer.decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    # --- the browser ---------------------------------------------------------------------------

    def open(self, fragment: str = "#/clusters") -> None:
        self.driver.get(f"{self.base}/{fragment}")
        self.wait_for("#view-title")

    def wait_for(self, css: str, timeout: float = 10) -> Any:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions
        from selenium.webdriver.support.wait import WebDriverWait

        return WebDriverWait(self.driver, timeout).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
        )

    def wait_until(self, condition, timeout: float = 10) -> Any:
        from selenium.webdriver.support.wait import WebDriverWait

        return WebDriverWait(self.driver, timeout).until(lambda _: condition())

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def find_all(self, css: str) -> list[Any]:
        from selenium.webdriver.common.by import By

        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return " ".join(self.find(css).text.split())

    def table(self, css: str) -> list[dict[str, str]]:
        return self.driver.execute_script(READ_TABLE, css)

    def table_items(self, css: str) -> list[dict[str, Any]]:
        """``table``, with a cell of list items read as the list of their texts."""
        return self.driver.execute_script(READ_TABLE_ITEMS, css)

    def fill(self, css: str, text: str) -> None:
        self.driver.execute_script(FILL, self.find(css), text)

    def use_token(self, who: str | None) -> None:
        """Type the token into the page's token field (or forget it), as a person would."""
        if who is None:
            self.find("#token-forget").click()
            self.wait_until(lambda: self.text("#token-state") == "No token.")
            return
        field = self.find("#token")
        field.clear()
        field.send_keys(SECRETS[who])
        self.find("#token-use").click()
        self.wait_until(lambda: self.text("#token-state") == "A token is set for this tab.")

    def sign_in(self, who: str | None, then: str) -> None:
        """Type the token on a view that asks the API nothing, then open ``then``: the views
        ask with the token from their first request on."""
        self.open("#/sign-in")
        self.use_token(who)
        self.open(then)

    def console_errors(self, *, api_statuses: tuple[int, ...] = ()) -> list[dict]:
        """The SEVERE browser log entries since the last call, less the network errors of the
        API answers a test asked for (Chrome logs every 4xx answer to fetch)."""
        errors = []
        for entry in self.driver.get_log("browser"):
            if entry["level"] != "SEVERE":
                continue
            message = entry["message"]
            expected = entry.get("source") == "network" and any(
                f"status of {status} " in message for status in api_statuses
            )
            if not (expected and "/v1/" in message):
                errors.append(entry)
        return errors

    def viewport(self, width: int, scale: float = 1) -> None:
        """A window ``width`` CSS pixels wide, each ``scale`` device pixels (200 % zoom: 2)."""
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": scale, "mobile": False},
        )

    def light_and_dark(self, css: str, style: str) -> tuple[str, str]:
        """The computed ``style`` of the element ``css`` in the light theme, then in the dark
        one, which stays emulated (the ``emulated`` fixture undoes it)."""
        script = f"return getComputedStyle(document.querySelector(arguments[0])).{style}"
        light = self.driver.execute_script(script, css)
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": "dark"}]},
        )
        return light, self.driver.execute_script(script, css)

    def scrolls_sideways(self, css: str) -> bool:
        """Whether the element ``css`` holds more than its width shows (a table's box)."""
        return self.driver.execute_script(
            "const box = document.querySelector(arguments[0]);"
            "return box.scrollWidth > box.clientWidth;",
            css,
        )

    def page_overflows(self) -> bool:
        return self.driver.execute_script(
            "const root = document.documentElement;"
            "return root.scrollWidth > root.clientWidth || document.body.scrollWidth > "
            "root.clientWidth;"
        )

    def screenshot(self, name: str) -> Path:
        """The whole page (not only the window) as docs/screenshots/<name>."""
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics["cssContentSize"]
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {
                    "x": 0,
                    "y": 0,
                    "width": size["width"],
                    "height": size["height"],
                    "scale": 1,
                },
            },
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(shot["data"]))
        return path
