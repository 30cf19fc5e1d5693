"""The web page for people (``GET /``): the API's answers shown, not recomputed.

One HTML document and a few static files, all served by the service itself: no build step, no
external asset, no inline script or style, so the page's Content-Security-Policy can forbid
everything but this origin, and the page works offline. The page's script asks the same
``/v1/...`` endpoints as any client, with the token the user typed (kept in the browser tab's
``sessionStorage`` only). A service without access control (``OME_RANKER_AUTH=none``, the local
quick start) tells the page so (``<meta name="ome-ranker-access" content="open">``), and the page
then asks for no token. The page's "Load the seed example" reads the seed example the service
ships for its OpenAPI examples (``/ui/examples/seed_example.yaml``): one file, not a copy.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, send_from_directory

from app.http.described import MANIFEST, answer, described, parameter

STATIC = Path(__file__).resolve().parent / "static"
STATIC_PREFIX = "/ui/static"
# The examples the page offers, by the name it asks for: the files the service ships for its
# OpenAPI description (app/api/examples; a test keeps the seed example equal to
# tests/fixtures/seed_example.yaml), served as they are.
EXAMPLES_DIRECTORY = Path(__file__).resolve().parents[1] / "api" / "examples"
EXAMPLES_PREFIX = "/ui/examples"
EXAMPLES = frozenset({"seed_example.yaml"})

# Everything from this origin, nothing inline, no eval; nothing may frame the page, no <base>,
# no form posts elsewhere, no plugins.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
# The static files are not documents; should one be opened directly, it may load nothing.
STATIC_CSP = "default-src 'none'; frame-ancestors 'none'"

# The file types the page is made of, each with its exact media type (an ES module must come as
# JavaScript; the system's mime.types is not consulted, so every machine answers the same).
# Werkzeug adds ``charset=utf-8`` to the text types.
MEDIA_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".txt": "text/plain",
    ".md": "text/markdown",
}

bp = Blueprint("web", __name__, template_folder="templates")
# What a file answers besides itself (werkzeug's send_file): part of it for a `Range`, 304 for a
# condition its ETag or date meets, 416 for a range outside it.
FILE_ANSWERS = {
    206: answer("The part of the file `Range` asks for.", media=()),
    304: answer("Not modified: `If-None-Match` or `If-Modified-Since` still holds.", media=()),
}
FILE_ERRORS = ("NotFound", "RangeNotSatisfiable")


def _secured(response: Response, policy: str) -> Response:
    response.headers["Content-Security-Policy"] = policy
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    return response


@bp.get("/")
@described(
    "webPage",
    "documentation",
    "The web page for people",
    description='The fleet, clusters, their selections, one ranking and "try it" on pasted '
    "manifests, shown as the API answers them. Its Content-Security-Policy allows nothing but "
    "this origin.",
    answers={200: answer("The page.", media=("text/html",))},
)
def page() -> Response:
    """The single page; its views (the fleet, clusters, selections, a ranking, "try it") are
    routed in the browser by the URL's fragment, so every view can be bookmarked and shared."""
    access = "open" if current_app.config.get("AUTH_MODE") == "none" else "token"
    html = render_template("web/index.html", static=STATIC_PREFIX, access=access)
    response = Response(html, status=200, content_type="text/html; charset=utf-8")
    response.headers["Cache-Control"] = "no-cache"
    return _secured(response, PAGE_CSP)


@bp.get(f"{STATIC_PREFIX}/<path:filename>")
@described(
    "webPageFile",
    "documentation",
    "A file of the web page",
    description="The page's ES modules and style sheet, the vendored libraries and their licences.",
    parameters=(
        parameter(
            "filename", "A file under `app/web/static`, such as `app.js`.", "path", required=True
        ),
    ),
    answers={200: answer("The file.", media=MEDIA_TYPES.values()), **FILE_ANSWERS},
    errors=FILE_ERRORS,
)
def static_file(filename: str) -> Response:
    """A file of ``app/web/static``: the page's modules and style sheet, the vendored libraries
    and their licences. Anything else is the API's 404."""
    media_type = MEDIA_TYPES.get(Path(filename).suffix)
    if media_type is None:
        abort(404)
    # send_from_directory refuses paths that leave the directory (404).
    response = send_from_directory(STATIC, filename, mimetype=media_type, max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return _secured(response, STATIC_CSP)


@bp.get(f"{EXAMPLES_PREFIX}/<name>")
@described(
    "webPageExample",
    "documentation",
    "An example the web page offers",
    description='The manifests "Load the seed example" fills in: `seed_example.yaml`, a YAML '
    "stream of several documents, as the page and `POST /v1/rank` take it.",
    parameters=(
        parameter(
            "name",
            "The example's file name.",
            "path",
            required=True,
            type="string",
            enum=sorted(EXAMPLES),
        ),
    ),
    answers={
        200: answer(
            "The manifests.",
            {
                "description": "A `---`-separated YAML stream: not one YAML value but several "
                "documents, each a manifest (this schema is the list of them that a YAML "
                "library's `load_all` reads).",
                "type": "array",
                "items": MANIFEST,
            },
            media=("application/yaml",),
        ),
        **FILE_ANSWERS,
    },
    errors=FILE_ERRORS,
)
def example(name: str) -> Response:
    """An example manifest stream the page can load into "Try it"; anything else is a 404."""
    if name not in EXAMPLES:
        abort(404)
    response = send_from_directory(EXAMPLES_DIRECTORY, name, mimetype="application/yaml", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return _secured(response, STATIC_CSP)
