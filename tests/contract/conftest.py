import pytest
import schemathesis


@pytest.fixture
def api_schema(make_app):
    """The spec as the app serves it, bound to that app (requests go through WSGI)."""
    return schemathesis.openapi.from_wsgi("/openapi.json", make_app())
