import pytest
import schemathesis

from tests.builders import read_whole


@pytest.fixture
def api_schema(make_app):
    """The spec as the app serves it, bound to that app (requests go through WSGI, whose client
    leaves the page's files open unless they are read whole first)."""
    app = make_app()
    app.wsgi_app = read_whole(app.wsgi_app)
    return schemathesis.openapi.from_wsgi("/openapi.json", app)
