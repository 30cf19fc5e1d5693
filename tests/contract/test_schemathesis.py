"""The service against its own OpenAPI description: schemathesis through the WSGI app.

Every operation gets the spec's examples, schemathesis's coverage cases and Hypothesis-generated
requests; no response may be a 5xx or contradict the spec (status code, content type, headers,
body schema). Derandomized, so a run never fails on inputs the previous one did not try; for a
longer random exploration against a running service see the README ("Contract tests").

Not checked: schemathesis's "positive data acceptance". The spec cannot say everything the
service rejects with a documented 4xx (a duplicate runtime name, an InferenceService naming
another model, a version string that is not a version), so schema-valid requests may rightly
get a 422.
"""

from __future__ import annotations

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.http.described import YAML_BODIES as YAML_REQUEST_TYPES
from tests.builders import read_whole

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@schemathesis.serializer(*YAML_REQUEST_TYPES)
def yaml_document(ctx, value) -> bytes:
    """A YAML body's schema describes one document (a stream of several is no one value): send
    the value as that document."""
    return yaml.safe_dump(value, allow_unicode=True).encode("utf-8")


@schemathesis.deserializer(*YAML_REQUEST_TYPES)
def yaml_stream(ctx, response):
    """A YAML answer is one document, but for the page's example, a stream of several: read
    as the list of its documents, as its schema describes it."""
    documents = list(yaml.safe_load_all(response.content.decode("utf-8")))
    return documents[0] if len(documents) == 1 else documents


@pytest.fixture
def api_schema(make_app):
    """The spec as the app serves it, bound to that app (requests go through WSGI, whose client
    leaves the page's files open unless they are read whole first)."""
    app = make_app()
    app.wsgi_app = read_whole(app.wsgi_app)
    return schemathesis.openapi.from_wsgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=3 * settings.default.max_examples // 5,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_responses_conform_to_the_spec(case):
    # schemathesis sends Accept-Encoding: gzip, deflate as an HTTP client does, but its WSGI
    # transport does not inflate what it gets: ask for the identity body (tests/http/
    # test_compression.py holds the gzip one to it).
    case.call_and_validate(checks=CHECKS, headers={"Accept-Encoding": "identity"})
