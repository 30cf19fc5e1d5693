"""The page in a real browser: a real gunicorn with a token file and a seeded catalog, and one
headless Chromium (Debian's ``chromium`` and ``chromium-driver``) per module.

Without Chromium, its driver or Selenium the browser tests are skipped, except under ``CI=true``,
where they fail."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers import Service
from tests.web.catalog import CATALOG_YAML
from tests.web.support import CHROME_ARGUMENTS, Page, page_service, store_cluster


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the browser tests cannot run: {reason}")
    pytest.skip(reason)


def _executable(name: str, fallback: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    return fallback if Path(fallback).exists() else None


@pytest.fixture(scope="module")
def web_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """gunicorn with a token file (``admin`` writes everything, ``viewer`` reads ``prod``), the
    catalog ``prod`` and the empty cluster ``secret`` that ``viewer`` may not read."""
    directory = tmp_path_factory.mktemp("web")
    service = page_service(directory, ["prod"])
    try:
        store_cluster(service, "prod", "production", CATALOG_YAML)
        store_cluster(service, "secret", "not for viewers")
        yield service
    finally:
        service.stop()


@pytest.fixture
def open_web_service(tmp_path: Path) -> Iterator[Service]:
    """gunicorn as ``make run`` starts it: ``OME_RANKER_AUTH=none`` on 127.0.0.1, no token file,
    and an empty store."""
    service = Service(
        tmp_path,
        OME_RANKER_AUTH="none",
        OME_RANKER_TOKENS_FILE="",
        OME_RANKER_STORE_PATH=str(tmp_path / "catalogs.sqlite3"),
    ).start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def page(web_service: Service) -> Iterator[Page]:
    chromium = _executable("chromium", "/usr/bin/chromium")
    chromedriver = _executable("chromedriver", "/usr/bin/chromedriver")
    if chromium is None or chromedriver is None:
        _unavailable("no chromium or chromedriver (apt-get install chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service as DriverService
    except ImportError:
        _unavailable("no selenium (pip install -r requirements-dev.txt)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in CHROME_ARGUMENTS:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=DriverService(chromedriver))
    try:
        yield Page(driver, web_service)
    finally:
        driver.quit()


@pytest.fixture
def emulated(page: Page) -> Iterator[Any]:
    """Screen and media emulation, undone afterwards."""
    yield page.driver
    page.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
