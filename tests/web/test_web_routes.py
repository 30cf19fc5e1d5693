"""``/`` and its files without a browser: the page's policy, the files it is made of (each with
its media type), nothing inline, nothing from elsewhere, and the vendored libraries as listed."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from app.web import STATIC, STATIC_CSP
from tests.paths import ROOT

VENDOR = STATIC / "vendor"


def fetch(client, path: str):
    """The answer, read whole and closed (a file answer left open is a ResourceWarning)."""
    response = client.get(path)
    response.get_data()
    response.close()
    return response


def test_the_page_is_served_with_a_strict_policy(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    policy = dict(
        part.strip().split(" ", 1)
        for part in response.headers["Content-Security-Policy"].split(";")
        if part.strip()
    )
    assert policy["default-src"] == "'self'"
    for directive in ("script-src", "style-src", "connect-src", "img-src"):
        assert policy[directive] == "'self'"
    assert policy["object-src"] == policy["base-uri"] == policy["form-action"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Request-ID"]


def test_the_page_has_nothing_inline_and_nothing_from_elsewhere(client):
    page = client.get("/").get_data(as_text=True)
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == ['<script type="module" src="/ui/static/app.js">']
    assert "</script>" in page and not re.search(r"<script\b[^>]*>[^<]+</script>", page)
    assert "<style" not in page
    assert not re.search(r"\sstyle=", page)
    assert not re.search(r"\son[a-z]+=", page)  # no inline event handlers
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page)


def _page_files(client) -> set[str]:
    """Every file the page loads: its links and scripts, and the modules they import."""
    page = client.get("/").get_data(as_text=True)
    found = set(re.findall(r'(?:src|href)="(/ui/static/[^"]+)"', page))
    pending = [path for path in found if path.endswith(".js")]
    while pending:
        path = pending.pop()
        source = fetch(client, path).get_data(as_text=True)
        for name in re.findall(r'from\s*"(\./[^"]+)"', source):
            imported = str(Path(path).parent / name).replace("/./", "/")
            if imported not in found:
                found.add(imported)
                pending.append(imported)
    return found


def test_every_file_of_the_page_is_served_with_its_media_type(client):
    files = _page_files(client)
    assert {
        "/ui/static/app.js",
        "/ui/static/api.js",
        "/ui/static/format.js",
        "/ui/static/manifests.js",
        "/ui/static/errors.js",
        "/ui/static/history.js",
        "/ui/static/app.css",
        "/ui/static/favicon.svg",
        "/ui/static/vendor/preact-10.29.8.module.js",
        "/ui/static/vendor/htm-3.1.1.module.js",
    } <= files
    media = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    for path in files:
        response = fetch(client, path)
        assert response.status_code == 200, path
        assert response.mimetype == media[Path(path).suffix], path
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["Cache-Control"] == "no-cache"


def test_the_scripts_need_no_eval_and_load_nothing_from_elsewhere():
    for path in STATIC.rglob("*.js"):
        source = path.read_text(encoding="utf-8")
        assert "eval(" not in source, path
        assert "new Function" not in source, path
        assert not re.search(r"""(?:import|from)\s*\(?\s*["'](?:https?:)?//""", source), path
        assert not re.search(r"""\bfetch\(\s*["'`](?:https?:)?//""", source), path


@pytest.mark.parametrize(
    "path",
    [
        "/ui/static/nothing.js",
        "/ui/static/../__init__.py",
        "/ui/static/..%2F__init__.py",
        "/ui/static/vendor",
        "/ui/static/page.html",
        "/ui/static/",
    ],
)
def test_anything_else_is_the_apis_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "NotFound"


def test_the_vendored_files_are_listed_with_their_hashes_and_licences():
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `([^`]+)` \| \[(\S+) ([0-9.]+)\]\((https://[^)]+)\) \| `([^`]+)` \| `([0-9a-f]{64})` "
        r"\| ([^,]+), \[`([^`]+)`\]",
        readme,
        flags=re.MULTILINE,
    )
    listed = {row[0]: row for row in rows}
    modules = {path.name for path in VENDOR.glob("*.js")}
    assert set(listed) == modules == {"preact-10.29.8.module.js", "htm-3.1.1.module.js"}
    for name, (_, package, version, url, _, sha256, licence, licence_file) in listed.items():
        data = (VENDOR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha256, name
        assert name == f"{package}-{version}.module.js"
        assert url == f"https://registry.npmjs.org/{package}/-/{package}-{version}.tgz"
        text = (VENDOR / licence_file).read_text(encoding="utf-8")
        assert {"MIT": "MIT License", "Apache-2.0": "Apache License"}[licence] in text
    app_js = (STATIC / "app.js").read_text(encoding="utf-8")
    for name in modules:
        assert f'"./vendor/{name}"' in app_js


def test_the_page_needs_no_token_even_when_the_api_does(make_app):
    client = make_app(AUTH_MODE="token", AUTH_STATELESS=True).test_client()
    assert client.get("/").status_code == 200
    assert fetch(client, "/ui/static/app.js").status_code == 200
    assert client.get("/v1/clusters").status_code == 401


def test_the_page_says_whether_the_service_needs_a_token(make_app):
    """``OME_RANKER_AUTH=none`` (the local quick start): the page asks for no token."""
    for mode, access in (("none", "open"), ("token", "token")):
        page = make_app(AUTH_MODE=mode).test_client().get("/").get_data(as_text=True)
        assert f'<meta name="ome-ranker-access" content="{access}">' in page


def test_the_seed_example_is_served_as_the_tests_know_it(client):
    """ "Load the seed example" reads the file the service ships: byte for byte the seed example
    of tests/fixtures (one file, not a copy of the page's own)."""
    response = fetch(client, "/ui/examples/seed_example.yaml")
    assert response.status_code == 200
    assert response.get_data() == (ROOT / "tests" / "fixtures" / "seed_example.yaml").read_bytes()
    assert response.mimetype == "application/yaml"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Content-Security-Policy"] == STATIC_CSP
    app_js = (STATIC / "app.js").read_text(encoding="utf-8")
    assert '"/ui/examples/seed_example.yaml"' in app_js


@pytest.mark.parametrize(
    "path",
    [
        "/ui/examples/__init__.py",
        "/ui/examples/nothing.yaml",
        "/ui/examples/..%2F..%2Fweb%2F__init__.py",
        "/ui/examples/",
    ],
)
def test_no_other_example_is_served(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "NotFound"
